//! What the runner hands a host for one vector: everything needed to run it,
//! nothing of what is expected.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// Name of the default identity provider (§10.1, §10.2).
pub const JCS_SHA256_PROVIDER: &str = "jcs-sha256";

/// Enforcement mode (§8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Honour combined verdicts.
    #[default]
    Enforce,
    /// Record verdicts, proceed as if allowed, never apply transforms.
    EvaluateOnly,
}

impl Mode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::EvaluateOnly => "evaluate_only",
        }
    }
}

/// One of the four composition profiles (§7.2); the set is closed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub enum Profile {
    /// Registration order, stop at the first deny.
    #[default]
    #[serde(rename = "sequential/first_deny")]
    SequentialFirstDeny,
    /// Registration order, every interceptor runs.
    #[serde(rename = "sequential/run_all")]
    SequentialRunAll,
    /// Isolated snapshots, strictest verdict wins.
    #[serde(rename = "parallel/strictest")]
    ParallelStrictest,
    /// Isolated snapshots, allow only if every verdict allows.
    #[serde(rename = "parallel/unanimous")]
    ParallelUnanimous,
}

impl Profile {
    /// Every profile, in the order the spec lists them.
    pub const ALL: [Profile; 4] = [
        Profile::SequentialFirstDeny,
        Profile::SequentialRunAll,
        Profile::ParallelStrictest,
        Profile::ParallelUnanimous,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::SequentialFirstDeny => "sequential/first_deny",
            Profile::SequentialRunAll => "sequential/run_all",
            Profile::ParallelStrictest => "parallel/strictest",
            Profile::ParallelUnanimous => "parallel/unanimous",
        }
    }

    /// The one knob this profile consults, if any (§7.2).
    pub fn knob_name(self) -> Option<&'static str> {
        match self {
            Profile::SequentialFirstDeny => Some("on_approval"),
            Profile::SequentialRunAll => None,
            Profile::ParallelStrictest => Some("on_transform_conflict"),
            Profile::ParallelUnanimous => Some("on_disagreement"),
        }
    }
}

/// The `on_approval` knob of `sequential/first_deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnApproval {
    /// A lifted deny ends the fold.
    #[default]
    Stop,
    /// A lifted deny substitutes and the fold goes on.
    Resume,
}

/// The `on_transform_conflict` / `on_disagreement` knob of the parallel profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// Deny with the profile's reserved reason.
    #[default]
    Deny,
    /// Synthesize a liftable deny and consult the approval seam.
    Approval,
}

/// A composition profile with its knobs as configured; unset knobs take the
/// §7.2 defaults when resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Composition {
    /// The profile.
    pub profile: Profile,
    /// `sequential/first_deny` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_approval: Option<OnApproval>,
    /// `parallel/unanimous` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_disagreement: Option<Knob>,
    /// `parallel/strictest` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_transform_conflict: Option<Knob>,
}

/// One interceptor the host must register for a vector, in registration
/// (dispatch) order. Its verdicts come from [`crate::Callbacks::intercept`]
/// with this binding's index; the index is its only identity. Version 1 of
/// the protocol gives it no members: every scripted interceptor is anonymous
/// and bound at every point (a vector's rules pick the points they act at),
/// so the wire form is `{}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InterceptorBinding {}

impl InterceptorBinding {
    /// An anonymous interceptor bound at every point.
    pub fn everywhere() -> Self {
        Self::default()
    }
}

/// Everything a host needs to run one vector.
///
/// The scenario travels as raw JSON text so that a host can see integer
/// literals exactly as the vector wrote them (§4.4: an integer beyond u64
/// must be refused, not silently coerced by a JSON parser).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct VectorSetup {
    /// The vector's id, for the host's logs only.
    pub vector_id: String,
    /// The wire spec version the host must emit, e.g. `agent-hooks/0.1`.
    pub spec: String,
    /// The scenario (scripted model, mock tools, input) as raw JSON.
    pub scenario: Box<RawValue>,
    /// The interceptors to register, in registration order.
    pub interceptors: Vec<InterceptorBinding>,
    /// Register an approval resolver that calls back into the runner.
    #[serde(default)]
    pub approval_resolver: bool,
    /// Register a redactor that calls back into the runner.
    #[serde(default)]
    pub redactor: bool,
    /// Enforcement mode.
    #[serde(default)]
    pub mode: Mode,
    /// Composition profile and knobs.
    #[serde(default)]
    pub composition: Composition,
    /// Identity provider name: `jcs-sha256`, a custom name the host knows
    /// (the kit uses `ctk-fault`, a provider that fails every compute), or
    /// `None` for identity-unbound records.
    pub identity_provider: Option<String>,
    /// Interceptor timeout in milliseconds; `None` means the host default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interceptor_timeout_ms: Option<u64>,
    /// Approval resolver timeout in milliseconds; `None` means the host default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_timeout_ms: Option<u64>,
    /// A host declaration document the host must build its emitter from
    /// (declaration vectors); `None` for field-configured vectors. Any JSON
    /// value but `null`: a root that is not an object must be refused as
    /// `declaration_error:malformed`. The host loads it through its value,
    /// text and file paths, and through its builder path when the root is an
    /// object (a builder only writes the members of an object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<Value>,
    /// The declaration document as raw text, for documents a parsed value
    /// cannot carry (duplicate keys, trailing content, text that is not
    /// JSON). The host loads it through its text path and, written to a file
    /// as UTF-8, its file path; through its value path (and builder path,
    /// for an object root) only when the text parses as one JSON value with
    /// no repeated member name within an object. Never sent together with
    /// `declaration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration_text: Option<String>,
    /// A file fault the host must materialise in a fresh temporary directory
    /// and load through its file path only (no other path applies). The
    /// file's content, where the fault has one, is built from the document
    /// in `declaration` (serialized) or `declaration_text`; see
    /// [`DeclarationFileFault::contents`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration_file: Option<DeclarationFileFault>,
}

/// Largest declaration document a loader reads, in bytes (§7.7.6 step 1).
pub const MAX_DECLARATION_BYTES: usize = 1024 * 1024;

/// A fault of the declaration file a host is asked to load (§7.7.6 step 1,
/// `declaration_error:unreadable`). The set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeclarationFileFault {
    /// The path names nothing (a name inside the fresh directory that was
    /// never created).
    Missing,
    /// The path names a directory, not a regular file.
    Directory,
    /// A regular file: the UTF-8 byte-order mark `EF BB BF`, then the
    /// document's text.
    Bom,
    /// A regular file: the document's text with the byte `FF` inserted right
    /// after its first `"` (inside the first member name), so that it is
    /// not UTF-8.
    InvalidUtf8,
    /// A regular file: the document's text followed by spaces up to
    /// [`MAX_DECLARATION_BYTES`]` + 1` bytes (JSON whitespace: only the size
    /// bound is broken).
    Oversized,
}

impl DeclarationFileFault {
    /// Every fault.
    pub const ALL: [DeclarationFileFault; 5] = [
        DeclarationFileFault::Missing,
        DeclarationFileFault::Directory,
        DeclarationFileFault::Bom,
        DeclarationFileFault::InvalidUtf8,
        DeclarationFileFault::Oversized,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DeclarationFileFault::Missing => "missing",
            DeclarationFileFault::Directory => "directory",
            DeclarationFileFault::Bom => "bom",
            DeclarationFileFault::InvalidUtf8 => "invalid_utf8",
            DeclarationFileFault::Oversized => "oversized",
        }
    }

    /// Whether the fault is a regular file whose bytes come from the
    /// document's text (so the vector must carry a document).
    pub fn has_contents(self) -> bool {
        matches!(
            self,
            DeclarationFileFault::Bom
                | DeclarationFileFault::InvalidUtf8
                | DeclarationFileFault::Oversized
        )
    }

    /// The bytes of the faulty file made from the document text `text`;
    /// `None` for a fault that is no regular file (`missing`, `directory`),
    /// or for `invalid_utf8` when `text` holds no `"`.
    pub fn contents(self, text: &str) -> Option<Vec<u8>> {
        let mut bytes = text.as_bytes().to_vec();
        match self {
            DeclarationFileFault::Missing | DeclarationFileFault::Directory => None,
            DeclarationFileFault::Bom => {
                bytes.splice(0..0, [0xEF, 0xBB, 0xBF]);
                Some(bytes)
            }
            DeclarationFileFault::InvalidUtf8 => {
                let quote = bytes.iter().position(|b| *b == b'"')?;
                bytes.insert(quote + 1, 0xFF);
                Some(bytes)
            }
            DeclarationFileFault::Oversized => {
                let len = bytes.len().max(MAX_DECLARATION_BYTES + 1);
                bytes.resize(len, b' ');
                Some(bytes)
            }
        }
    }
}

impl VectorSetup {
    /// A setup with the defaults of a vector that states nothing but its
    /// scenario: first_deny/stop, enforce, `jcs-sha256`, no seams.
    pub fn new(
        vector_id: impl Into<String>,
        spec: impl Into<String>,
        scenario: Box<RawValue>,
    ) -> Self {
        Self {
            vector_id: vector_id.into(),
            spec: spec.into(),
            scenario,
            interceptors: Vec::new(),
            approval_resolver: false,
            redactor: false,
            mode: Mode::Enforce,
            composition: Composition::default(),
            identity_provider: Some(JCS_SHA256_PROVIDER.to_owned()),
            interceptor_timeout_ms: None,
            approval_timeout_ms: None,
            declaration: None,
            declaration_text: None,
            declaration_file: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_faults_build_their_bytes_from_the_document_text() {
        let text = r#"{"declaration":"agent-hooks-declaration/1.0"}"#;
        for fault in [
            DeclarationFileFault::Missing,
            DeclarationFileFault::Directory,
        ] {
            assert!(!fault.has_contents());
            assert_eq!(fault.contents(text), None);
        }
        let bom = DeclarationFileFault::Bom.contents(text).expect("bytes");
        assert_eq!(&bom[..3], &[0xEF, 0xBB, 0xBF]);
        assert_eq!(&bom[3..], text.as_bytes());
        let bad = DeclarationFileFault::InvalidUtf8
            .contents(text)
            .expect("bytes");
        assert_eq!(&bad[..3], b"{\"\xFF");
        assert_eq!(bad.len(), text.len() + 1);
        assert!(std::str::from_utf8(&bad).is_err());
        assert_eq!(DeclarationFileFault::InvalidUtf8.contents("{}"), None);
        let big = DeclarationFileFault::Oversized
            .contents(text)
            .expect("bytes");
        assert_eq!(big.len(), MAX_DECLARATION_BYTES + 1);
        assert!(big.starts_with(text.as_bytes()));
        assert!(big[text.len()..].iter().all(|b| *b == b' '));
        for fault in DeclarationFileFault::ALL {
            let wire = serde_json::to_value(fault).expect("serializes");
            assert_eq!(wire, fault.as_str());
            assert_eq!(
                serde_json::from_value::<DeclarationFileFault>(wire).expect("parses"),
                fault
            );
        }
    }
}
