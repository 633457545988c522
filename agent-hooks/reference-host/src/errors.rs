//! Every error type of the crate. None of them is a verdict: a spec-defined
//! failure becomes a reserved-reason deny in a record; these name why.
//! Messages are lowercase fragments and never carry a context's values.

use crate::context::domain::{MAX_CONTEXT_BYTES, MAX_DEPTH};

/// Why a value lies outside the domain or the bounds. Messages name the rule,
/// never the offending value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DomainError {
    /// An integer beyond ±(2^53 − 1).
    #[error("integer exceeds 2^53-1; string-encode 64-bit identifiers (spec 4.4)")]
    UnsafeInteger,
    /// Nesting deeper than [`MAX_DEPTH`].
    #[error("context nesting exceeds {MAX_DEPTH} levels (spec 12.3)")]
    TooDeep,
    /// Serialized size beyond [`MAX_CONTEXT_BYTES`].
    #[error("context exceeds {MAX_CONTEXT_BYTES} bytes (spec 12.3)")]
    TooLarge,
}

/// Why a context failed the envelope check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The context is not a JSON object.
    #[error("context is not an object")]
    NotObject,
    /// A required member is missing or has the wrong type.
    #[error("member `{0}` is missing or has the wrong type")]
    Member(&'static str),
    /// `interception_point` is not one of the eight.
    #[error("interception_point is not one of the eight points")]
    UnknownPoint,
    /// `spec` names a version this emitter does not emit.
    #[error("spec names a version other than the emitter's")]
    OtherVersion,
    /// `agent.framework` does not match `^[a-z0-9_-]+$`.
    #[error("agent.framework does not match ^[a-z0-9_-]+$")]
    Framework,
    /// A conditional member or one of its subfields is missing.
    #[error("conditional member `{0}` is missing or incomplete")]
    Conditional(&'static str),
    /// `extensions` is not an object of `^[a-z][a-z0-9_]*$` namespaces.
    #[error("extensions is not an object keyed by ^[a-z][a-z0-9_]*$ namespaces")]
    Extensions,
}

/// Why an identity could not be computed. Every variant fails the emission
/// closed with `host_error:context_invalid`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// The context failed the envelope check.
    #[error("context failed the envelope check: {0}")]
    Envelope(#[from] EnvelopeError),
    /// The projection left the I-JSON domain or the depth bound.
    #[error("context outside the identity value domain: {0}")]
    Domain(#[from] DomainError),
    /// Raw text behind the context held an integer beyond 2^53-1.
    #[error("integer exceeds 2^53-1 in the raw text; string-encode 64-bit identifiers (spec 4.4)")]
    RawInteger,
    /// A custom provider failed or panicked.
    #[error("identity provider failed")]
    ProviderFailed,
}

/// Why a context failed the §12.3 bounds or its identity, checked together
/// ([`IdentityProvider::compute_bounded`](crate::identity::provider::IdentityProvider::compute_bounded)).
/// Each variant reads exactly as the error it wraps.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BoundedError {
    /// The context breaks the depth or the size bound.
    #[error(transparent)]
    Bounds(DomainError),
    /// Its identity could not be computed.
    #[error(transparent)]
    Identity(IdentityError),
}

/// Why a registration or a lookup failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name breaks `^[a-z][a-z0-9_-]*$` or starts with `jcs`.
    #[error("identity provider name `{0}` breaks ^[a-z][a-z0-9_-]*$ or starts with jcs")]
    BadName(String),
    /// The name is registered already.
    #[error("identity provider `{0}` is registered already")]
    Duplicate(String),
    /// No provider of that name is registered.
    #[error("identity provider `{0}` is not registered")]
    Unknown(String),
}

/// Why a path string was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// Not rooted at `$target` or its alias `$policy_target`.
    #[error("transform path is not rooted at $target")]
    NotRooted,
    /// Rooted correctly but outside the grammar.
    #[error("transform path does not follow the path grammar")]
    Malformed,
}

/// Why a scenario could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The text is not a scenario.
    #[error("scenario is malformed: {0}")]
    Malformed(#[from] serde_json::Error),
    /// The text nests deeper than `ctk-harness/1` lines may.
    #[error("scenario is too deep: {0}")]
    TooDeep(#[from] ctk_agent_hooks_adapter::wire::depth::TooDeep),
}

/// Why a tool could not produce a result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No behaviour clause matched the arguments (a scenario bug).
    #[error("tool `{0}` has no behaviour matching its arguments")]
    NoMatch(String),
}

/// Why a segment could not be released.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReleaseError {
    /// The permitted content no longer extends what was already released
    /// (a transform rewrote released text, which cannot be retracted).
    #[error("permitted content does not extend the released prefix")]
    Diverged,
}
