//! The redaction seam (§9): a host-registered function shaping the context
//! an approver is shown. The request identity is computed over its output.

use serde_json::Value;

use crate::compose::dispatch::BoxFuture;

/// What the redactor did.
#[derive(Debug, Clone, PartialEq)]
pub enum RedactorAnswer {
    /// The context the approver may see.
    Redacted(Value),
    /// It raised; the consultation fails with `approval_resolver_failed`.
    Raised,
}

/// A redactor: should be pure; it receives its own copy of the context.
pub trait Redactor: Send + Sync {
    /// Produce the context the approver is shown.
    fn redact(&self, context: Value) -> BoxFuture<RedactorAnswer>;
}

impl std::fmt::Debug for dyn Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor")
    }
}
