//! The loader: the twelve pipeline steps, and the [`Declaration`] it builds.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::compose::dispatch::{BindingTimeout, Registration};
use crate::context::build::AgentIdentity;
use crate::declaration::builder::DeclarationBuilder;
use crate::declaration::check;
use crate::declaration::error::{DeclarationError, Finding, RefusalClass};
use crate::declaration::registry::{BindingContext, HostRegistry};
use crate::declaration::resolved::Resolved;
use crate::declaration::text;
use crate::declaration::DeclarationVersion;
use crate::emitter::{Emitter, EmitterBuilder};
use crate::identity::jcs::hash_canonical;
use crate::identity::provider::IdentityProvider;
use crate::output::OutputMode;
use crate::seam::approval::ApprovalResolver;
use crate::seam::redaction::Redactor;
use crate::spec_version::SpecVersion;

/// A sink for the one line a loader logs per accepted document (§7.7.8),
/// outside the record stream.
pub type LoadLog = Arc<dyn Fn(&str) + Send + Sync>;

/// Loads declaration documents against one registry.
#[derive(Clone)]
pub struct Loader<'r> {
    registry: &'r HostRegistry,
    specs: Vec<SpecVersion>,
    log: Option<LoadLog>,
}

impl std::fmt::Debug for Loader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("registry", self.registry)
            .field("specs", &self.specs)
            .finish()
    }
}

/// A loaded document: the resolved form and everything the registry built
/// for it. Emitters made from it are sealed.
#[derive(Clone)]
pub struct Declaration {
    resolved: Resolved,
    registrations: Vec<Registration>,
    provider: IdentityProvider,
    resolver: Option<Arc<dyn ApprovalResolver>>,
    redactor: Option<Arc<dyn Redactor>>,
}

impl std::fmt::Debug for Declaration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Declaration")
            .field("resolved", &self.resolved)
            .field("registrations", &self.registrations)
            .finish()
    }
}

impl<'r> Loader<'r> {
    /// A loader over `registry` implementing every supported spec version:
    /// the document's `spec` member selects the rules.
    pub fn new(registry: &'r HostRegistry) -> Loader<'r> {
        Loader {
            registry,
            specs: vec![SpecVersion::V0_1, SpecVersion::Draft],
            log: None,
        }
    }

    /// Restrict the loader to one spec version (a host asked to emit that
    /// version): a document written for another is refused
    /// (`spec_unsupported`), and only that version's declaration versions
    /// are accepted (`version_unsupported`).
    #[must_use]
    pub fn for_spec(mut self, spec: SpecVersion) -> Loader<'r> {
        self.specs = vec![spec];
        self
    }

    /// Log one line per accepted document: contract version, document `id`
    /// and the `jcs-sha256` digest of the document.
    #[must_use]
    pub fn log_to(mut self, log: LoadLog) -> Loader<'r> {
        self.log = Some(log);
        self
    }

    /// The declaration versions this loader accepts.
    pub fn accepted(&self) -> Vec<DeclarationVersion> {
        DeclarationVersion::accepted_under(&self.specs)
    }

    /// Load from a file (step 1, then the text path).
    pub fn load_path(&self, path: impl AsRef<Path>) -> Result<Declaration, DeclarationError> {
        let text = text::read_file(path.as_ref())?;
        self.load_text(&text)
    }

    /// Load from JSON text.
    pub fn load_text(&self, text: &str) -> Result<Declaration, DeclarationError> {
        let doc = text::parse_text(text)?;
        // Integer literals beyond the I-JSON bound, seen in the text itself:
        // one beyond 64 bits reaches the value as a float.
        let unsafe_integers = text::unsafe_integer_pointers(text);
        self.load_document(doc, &unsafe_integers)
    }

    /// Load from a parsed value.
    pub fn load_value(&self, value: &Value) -> Result<Declaration, DeclarationError> {
        text::check_value(value)?;
        self.load_document(value.clone(), &[])
    }

    /// Load a document built in code: it is serialized and goes through the
    /// text path.
    pub fn load_builder(
        &self,
        builder: &DeclarationBuilder,
    ) -> Result<Declaration, DeclarationError> {
        let text = serde_json::to_string(&builder.to_value()).map_err(|_| {
            DeclarationError::one(
                RefusalClass::Malformed,
                "",
                "the built value does not serialize",
            )
        })?;
        self.load_text(&text)
    }

    /// Steps 3 to 12 over a parsed document; `unsafe_integers` are the
    /// pointers of integer literals beyond ±(2^53 − 1) the text path saw
    /// (judged at step 6 with the rest of the member values).
    fn load_document(
        &self,
        doc: Value,
        unsafe_integers: &[String],
    ) -> Result<Declaration, DeclarationError> {
        let Some(obj) = doc.as_object() else {
            return Err(DeclarationError::one(
                RefusalClass::Malformed,
                "",
                "the root is not an object",
            ));
        };
        let accepted = self.accepted();
        let version = check::version(obj, &self.specs)?;
        let spec = check::spec(obj, version, &self.specs)?;
        check::unknown_fields(obj, version)?;
        let typed = check::fields(obj, unsafe_integers)?;
        let resolved = check::resolve(typed, version, spec, self.registry.surface(), &accepted)?;
        // Step 9: references.
        let mut missing = Vec::new();
        let provider = match self
            .registry
            .providers()
            .resolve(resolved.identity_provider.as_deref())
        {
            Ok(p) => Some(p),
            Err(_) => {
                missing.push(Finding::new(
                    "/configuration/identity_provider",
                    "no identity provider of this name is registered",
                ));
                None
            }
        };
        let resolver = match &resolved.resolver {
            None => None,
            Some(name) => {
                let r = self.registry.resolver(name).cloned();
                if r.is_none() {
                    missing.push(Finding::new(
                        "/configuration/approval/resolver",
                        "no approval resolver of this name is registered",
                    ));
                }
                r
            }
        };
        let redactor = match &resolved.redactor {
            None => None,
            Some(name) => {
                let r = self.registry.redactor(name).cloned();
                if r.is_none() {
                    missing.push(Finding::new(
                        "/configuration/approval/redactor",
                        "no redactor of this name is registered",
                    ));
                }
                r
            }
        };
        if !missing.is_empty() {
            return Err(DeclarationError::new(
                RefusalClass::ReferenceUnresolved,
                missing,
            ));
        }
        let provider = provider.unwrap_or(IdentityProvider::JcsSha256);
        // Step 10: every kind exists before any resolver runs.
        let unknown: Vec<Finding> = resolved
            .bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| self.registry.kind_resolver(&b.kind).is_none())
            .map(|(i, _)| {
                Finding::new(
                    format!("/bindings/{i}/kind"),
                    "no resolver is registered for this kind",
                )
            })
            .collect();
        if !unknown.is_empty() {
            return Err(DeclarationError::new(RefusalClass::KindUnknown, unknown));
        }
        // Step 11: resolve each binding in array order; the first refusal
        // discards everything built so far.
        let host = resolved
            .host
            .as_ref()
            .and_then(|h| h.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut registrations = Vec::with_capacity(resolved.bindings.len());
        for (i, b) in resolved.bindings.iter().enumerate() {
            let timeout = b.timeout_ms.map(Duration::from_millis);
            let context = BindingContext {
                id: b.id.clone(),
                kind: b.kind.clone(),
                at: b.at.clone(),
                timeout,
                host: host.clone(),
                declaration: resolved.declaration.as_str().to_owned(),
                spec: resolved.spec,
            };
            let Some(kind) = self.registry.kind_resolver(&b.kind) else {
                continue; // checked at step 10
            };
            let built = catch_unwind(AssertUnwindSafe(|| kind.resolve(&b.config, &context)));
            let interceptor = match built {
                Ok(Ok(i)) => i,
                Ok(Err(why)) => {
                    return Err(DeclarationError::one(
                        RefusalClass::BindingRejected,
                        format!("/bindings/{i}"),
                        format!("the {} resolver refused this binding: {why}", b.kind),
                    ))
                }
                Err(_) => {
                    return Err(DeclarationError::one(
                        RefusalClass::BindingRejected,
                        format!("/bindings/{i}"),
                        format!("the {} resolver panicked", b.kind),
                    ))
                }
            };
            registrations.push(Registration {
                name: Some(b.id.clone()),
                at: Some(b.at.clone()),
                timeout: match timeout {
                    Some(d) => BindingTimeout::After(d),
                    None => BindingTimeout::Unbounded,
                },
                on_error: b.on_error.unwrap_or_default(),
                interceptor,
            });
        }
        let digest = hash_canonical(&doc);
        if let Some(log) = &self.log {
            log(&format!(
                "host declaration loaded: {} id={} digest={}",
                resolved.declaration.as_str(),
                resolved.id.as_deref().unwrap_or("-"),
                digest
            ));
        }
        Ok(Declaration {
            resolved,
            registrations,
            provider,
            resolver,
            redactor,
        })
    }
}

impl Declaration {
    /// The resolved form.
    pub fn resolved(&self) -> &Resolved {
        &self.resolved
    }

    /// The RFC 8785 canonical JSON of the resolved form.
    pub fn canonical_json(&self) -> String {
        self.resolved.canonical_json()
    }

    /// The spec version the emitter emits.
    pub fn spec(&self) -> SpecVersion {
        self.resolved.spec
    }

    /// The caller-output mode the loop follows.
    pub fn output_mode(&self) -> OutputMode {
        if self.resolved.surface.buffered_output {
            OutputMode::Buffered
        } else {
            OutputMode::Incremental
        }
    }

    /// Build a sealed emitter for one session as `who`: every record it
    /// writes carries the declaration's contract version.
    pub fn emitter(&self, who: AgentIdentity) -> Emitter {
        let r = &self.resolved;
        let mut b = EmitterBuilder::new(r.spec, who)
            .mode(r.mode)
            .composition(r.composition)
            .identity_provider(self.provider.clone())
            .interceptor_timeout(r.interceptor_ms.map(Duration::from_millis))
            .approval_timeout(r.approval_resolver_ms.map(Duration::from_millis))
            .surface(r.surface.interception_points.iter().copied())
            .max_buffered(
                r.max_buffered
                    .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            );
        for reg in &self.registrations {
            b = b.interceptor(reg.clone());
        }
        if let Some(r) = &self.resolver {
            b = b.approval_resolver(r.clone());
        }
        if let Some(r) = &self.redactor {
            b = b.redactor(r.clone());
        }
        b.build_declared(self.resolved.declaration.as_str())
    }
}
