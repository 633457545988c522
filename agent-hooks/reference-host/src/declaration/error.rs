//! Refusals of a declaration document: the eleven `declaration_error:*`
//! classes in pipeline order (§7.7.6), each with the findings of the one step
//! that failed. A refusal is a construction error, never a verdict.

use std::fmt;

/// One of the eleven refusal classes, in load-pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefusalClass {
    /// Step 1 (file path only): not a readable regular UTF-8 file within 1 MiB.
    Unreadable,
    /// Step 2: not one JSON object, duplicate key, too deep, too large, trailing content.
    Malformed,
    /// Step 3: `declaration` missing, not a string, or not accepted.
    VersionUnsupported,
    /// Step 4: `spec` missing, not a string, malformed, or not implemented.
    SpecUnsupported,
    /// Step 5: a member the contract does not define at a closed level.
    UnknownField,
    /// Step 6: wrong type, enum, pattern, range, or a required-iff rule.
    InvalidField,
    /// Step 7: members that contradict each other.
    Inconsistent,
    /// Step 8: more than the host code has.
    SurfaceUnsupported,
    /// Step 9: a named provider, resolver or redactor is not registered.
    ReferenceUnresolved,
    /// Step 10: a binding kind has no registered resolver.
    KindUnknown,
    /// Step 11: a kind resolver refused its binding, or panicked.
    BindingRejected,
}

impl RefusalClass {
    /// All eleven, in pipeline order.
    pub const ALL: [RefusalClass; 11] = [
        RefusalClass::Unreadable,
        RefusalClass::Malformed,
        RefusalClass::VersionUnsupported,
        RefusalClass::SpecUnsupported,
        RefusalClass::UnknownField,
        RefusalClass::InvalidField,
        RefusalClass::Inconsistent,
        RefusalClass::SurfaceUnsupported,
        RefusalClass::ReferenceUnresolved,
        RefusalClass::KindUnknown,
        RefusalClass::BindingRejected,
    ];

    /// The wire id, `declaration_error:<name>`.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalClass::Unreadable => "declaration_error:unreadable",
            RefusalClass::Malformed => "declaration_error:malformed",
            RefusalClass::VersionUnsupported => "declaration_error:version_unsupported",
            RefusalClass::SpecUnsupported => "declaration_error:spec_unsupported",
            RefusalClass::UnknownField => "declaration_error:unknown_field",
            RefusalClass::InvalidField => "declaration_error:invalid_field",
            RefusalClass::Inconsistent => "declaration_error:inconsistent",
            RefusalClass::SurfaceUnsupported => "declaration_error:surface_unsupported",
            RefusalClass::ReferenceUnresolved => "declaration_error:reference_unresolved",
            RefusalClass::KindUnknown => "declaration_error:kind_unknown",
            RefusalClass::BindingRejected => "declaration_error:binding_rejected",
        }
    }

    /// The pipeline step, 1 to 11. Only the loader's own tests read it (a
    /// refusal names its class, never its step number).
    #[cfg(test)]
    pub(crate) fn step(self) -> usize {
        RefusalClass::ALL
            .iter()
            .position(|c| *c == self)
            .map_or(0, |i| i + 1)
    }
}

impl fmt::Display for RefusalClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding of a failed step: where (an RFC 6901 pointer into the
/// document, `""` for the whole document) and why. A detail never echoes a
/// binding's `config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// RFC 6901 pointer, e.g. `/bindings/1/kind`.
    pub pointer: String,
    /// What is wrong, at most 512 bytes.
    pub detail: String,
}

/// Longest detail a finding carries (§7.7.3 bounds); longer texts are
/// cut on a char boundary (a detail is diagnostic, not document content).
pub const DETAIL_MAX_BYTES: usize = 512;

impl Finding {
    /// A finding at `pointer`.
    pub fn new(pointer: impl Into<String>, detail: impl Into<String>) -> Finding {
        let mut detail: String = detail.into();
        if detail.len() > DETAIL_MAX_BYTES {
            let mut end = DETAIL_MAX_BYTES;
            while !detail.is_char_boundary(end) {
                end -= 1;
            }
            detail.truncate(end);
        }
        Finding {
            pointer: pointer.into(),
            detail,
        }
    }
}

/// A refused declaration: one class, every finding of the step that failed,
/// and for `version_unsupported` the versions the loader accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DeclarationError {
    /// The class of the first step that failed.
    pub class: RefusalClass,
    /// Every finding of that step, in document order.
    pub findings: Vec<Finding>,
    /// The accepted declaration versions (set for `version_unsupported`).
    pub accepted: Option<Vec<String>>,
}

impl DeclarationError {
    /// A refusal of `class` with `findings`.
    pub fn new(class: RefusalClass, findings: Vec<Finding>) -> DeclarationError {
        DeclarationError {
            class,
            findings,
            accepted: None,
        }
    }

    /// A refusal with a single finding.
    pub fn one(
        class: RefusalClass,
        pointer: impl Into<String>,
        detail: impl Into<String>,
    ) -> DeclarationError {
        DeclarationError::new(class, vec![Finding::new(pointer, detail)])
    }

    /// One line per finding, prefixed with the class.
    pub fn detail(&self) -> String {
        let mut out = String::from(self.class.as_str());
        for f in &self.findings {
            let pointer = if f.pointer.is_empty() {
                "(document)"
            } else {
                f.pointer.as_str()
            };
            out.push_str(&format!("; {pointer}: {}", f.detail));
        }
        if let Some(accepted) = &self.accepted {
            out.push_str(&format!("; accepted: {}", accepted.join(", ")));
        }
        out
    }
}

impl fmt::Display for DeclarationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail())
    }
}

/// Why a registry refused a registration: a programming error of the host,
/// never a document refusal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostRegistryError {
    /// The kind name breaks the kind grammar or exceeds 128 characters.
    #[error(
        "kind `{0}` breaks ^[a-z][a-z0-9_-]*(\\.[a-z][a-z0-9_-]*)+$ or exceeds 128 characters"
    )]
    BadKind(String),
    /// The kind's first segment is reserved (`agent_hooks`, or `ctk` outside
    /// a conformance registry).
    #[error("kind `{0}` uses a reserved first segment")]
    ReservedKind(String),
    /// A resolver, redactor or provider name breaks `^[a-z][a-z0-9_-]{{0,63}}$`.
    #[error("name `{0}` breaks ^[a-z][a-z0-9_-]{{0,63}}$")]
    BadName(String),
    /// The name is registered already.
    #[error("`{0}` is registered already")]
    Duplicate(String),
    /// The identity provider registry refused the name.
    #[error(transparent)]
    Provider(#[from] crate::errors::RegistryError),
}
