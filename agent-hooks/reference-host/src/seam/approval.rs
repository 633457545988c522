//! The approval seam (§9): request, resolution, and the normative
//! validation order of a resolution.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::compose::dispatch::{spawn_guarded, BoxFuture, Guarded};
use crate::identity::provider::IdentityProvider;
use crate::point::Point;
use crate::reason::ReservedReason;
use crate::seam::redaction::{Redactor, RedactorAnswer};
use crate::spec_version::SpecVersion;
use crate::verdict::gate::gate_for;
use crate::verdict::model::Verdict;

/// What the resolver did.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolverAnswer {
    /// It returned this value as its `ApprovalResolution`.
    Resolution(Value),
    /// It raised.
    Raised,
}

/// An approval resolver: receives an `ApprovalRequest`, returns an
/// `ApprovalResolution`.
pub trait ApprovalResolver: Send + Sync {
    /// Resolve `request`.
    fn resolve(&self, request: Value) -> BoxFuture<ResolverAnswer>;
}

impl std::fmt::Debug for dyn ApprovalResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApprovalResolver")
    }
}

/// How one consultation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Consultation {
    /// A permit substitutes for the consulted deny (`resolved_by: approval`).
    Approved(Verdict),
    /// The deny stands, as this verdict (`resolved_by: rejection`): the
    /// resolver's own deny, or a host-synthesized one.
    Rejected(Verdict),
}

/// Everything a consultation needs, shared by every emission of an emitter.
#[derive(Clone)]
pub struct Seam {
    /// The registered resolver, if any.
    pub resolver: Option<Arc<dyn ApprovalResolver>>,
    /// The registered redactor, if any.
    pub redactor: Option<Arc<dyn Redactor>>,
    /// Resolver (and redactor) time limit; `None` is unbounded.
    pub timeout: Option<Duration>,
    /// The emitter's identity provider.
    pub provider: IdentityProvider,
    /// The emitter's spec version.
    pub version: SpecVersion,
}

impl std::fmt::Debug for Seam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seam")
            .field("resolver", &self.resolver.is_some())
            .field("redactor", &self.redactor.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

fn failed(reason: ReservedReason) -> Consultation {
    Consultation::Rejected(Verdict::host_deny(reason))
}

impl Seam {
    /// Consult the resolver about the liftable `deny` on `context` (the
    /// context as it stands at consultation time). The caller has checked
    /// that a resolver is registered and that the seam may be consulted.
    pub async fn consult(&self, point: Point, deny: &Verdict, context: &Value) -> Consultation {
        let Some(resolver) = self.resolver.clone() else {
            return Consultation::Rejected(deny.clone());
        };
        let presented = match &self.redactor {
            None => context.clone(),
            Some(redactor) => match spawn_guarded(redactor.redact(context.clone()), self.timeout)
                .wait()
                .await
            {
                Guarded::Done(RedactorAnswer::Redacted(v)) => v,
                _ => return failed(ReservedReason::ApprovalResolverFailed),
            },
        };
        let identity = match self.provider.compute(&presented, self.version, false) {
            Ok(id) => id.map_or(Value::Null, Value::String),
            Err(_) => return failed(ReservedReason::ContextInvalid),
        };
        let mut request = Map::new();
        request.insert("context_identity".into(), identity.clone());
        request.insert(
            "interception_point".into(),
            Value::String(point.as_str().into()),
        );
        request.insert("verdict".into(), deny.to_json());
        request.insert("context".into(), presented);
        let resolution = match spawn_guarded(resolver.resolve(Value::Object(request)), self.timeout)
            .wait()
            .await
        {
            Guarded::Done(ResolverAnswer::Resolution(v)) => v,
            _ => return failed(ReservedReason::ApprovalResolverFailed),
        };
        validate_resolution_for(&resolution, &identity, self.version)
    }
}

/// Validate a resolution in the §9 order; the first failure wins:
/// echo, shape, the carried verdict's §5 gate, outcome/decision agreement.
pub fn validate_resolution(resolution: &Value, request_identity: &Value) -> Consultation {
    validate_resolution_for(resolution, request_identity, SpecVersion::V0_1)
}

/// [`validate_resolution`] with the §5 rules of `version` for the carried verdict.
pub fn validate_resolution_for(
    resolution: &Value,
    request_identity: &Value,
    version: SpecVersion,
) -> Consultation {
    let Some(obj) = resolution.as_object() else {
        return failed(ReservedReason::ApprovalResolverFailed);
    };
    // 1. Echo rule: byte-equal, null echoes null; a missing member echoes nothing.
    if obj.get("context_identity") != Some(request_identity) {
        return failed(ReservedReason::ApprovalIdentityMismatch);
    }
    // 2. Shape: closed members, a known outcome, a verdict iff not unresolved.
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "outcome" | "context_identity" | "verdict"))
    {
        return failed(ReservedReason::ApprovalResolverFailed);
    }
    let verdict = obj.get("verdict").filter(|v| !v.is_null());
    let outcome = obj.get("outcome").and_then(Value::as_str);
    match (outcome, verdict) {
        (Some("approve" | "reject"), Some(_)) | (Some("unresolved"), None) => {}
        _ => return failed(ReservedReason::ApprovalResolverFailed),
    }
    let Some(verdict) = verdict else {
        return failed(ReservedReason::ApprovalUnresolved);
    };
    // 3. The carried verdict passes §5.
    let verdict = match gate_for(verdict, version) {
        Ok(v) => v,
        Err(reason) => return failed(reason),
    };
    // 4. approve carries a permit, reject a deny.
    match (outcome, verdict.is_permit()) {
        (Some("approve"), true) => Consultation::Approved(verdict),
        (Some("reject"), false) => Consultation::Rejected(verdict),
        _ => failed(ReservedReason::VerdictInvalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reason(c: Consultation) -> String {
        match c {
            Consultation::Rejected(v) => v.reason.unwrap_or_default(),
            Consultation::Approved(_) => "approved".into(),
        }
    }

    #[test]
    fn approve_with_a_permit_substitutes() {
        let id = json!("sha256:aa");
        let c = validate_resolution(
            &json!({"outcome": "approve", "context_identity": "sha256:aa", "verdict": {"decision": "allow"}}),
            &id,
        );
        assert_eq!(c, Consultation::Approved(Verdict::allow()));
    }

    #[test]
    fn echo_is_checked_first() {
        let id = json!("sha256:aa");
        // Also malformed, but the echo failure wins.
        let c = validate_resolution(
            &json!({"outcome": "bogus", "context_identity": "sha256:bb"}),
            &id,
        );
        assert_eq!(reason(c), "host_error:approval_identity_mismatch");
        let c = validate_resolution(
            &json!({"outcome": "approve", "verdict": {"decision": "allow"}}),
            &id,
        );
        assert_eq!(reason(c), "host_error:approval_identity_mismatch");
    }

    #[test]
    fn null_identity_echoes_null() {
        let c = validate_resolution(
            &json!({"outcome": "approve", "context_identity": null, "verdict": {"decision": "allow"}}),
            &Value::Null,
        );
        assert!(matches!(c, Consultation::Approved(_)));
    }

    #[test]
    fn malformed_shape_is_resolver_failed() {
        let id = Value::Null;
        for bad in [
            json!({"outcome": "maybe", "context_identity": null, "verdict": {"decision": "allow"}}),
            json!({"outcome": "approve", "context_identity": null}),
            json!({"outcome": "unresolved", "context_identity": null, "verdict": {"decision": "allow"}}),
            json!({"outcome": "approve", "context_identity": null, "verdict": {"decision": "allow"}, "x": 1}),
            json!("approve"),
        ] {
            assert_eq!(
                reason(validate_resolution(&bad, &id)),
                "host_error:approval_resolver_failed",
                "{bad}"
            );
        }
    }

    #[test]
    fn unresolved_is_its_own_reason() {
        let c = validate_resolution(
            &json!({"outcome": "unresolved", "context_identity": null}),
            &Value::Null,
        );
        assert_eq!(reason(c), "host_error:approval_unresolved");
    }

    #[test]
    fn gate_runs_before_agreement() {
        let id = Value::Null;
        let c = validate_resolution(
            &json!({"outcome": "reject", "context_identity": null, "verdict": {"decision": "allow", "reason": "host_error:x"}}),
            &id,
        );
        assert_eq!(reason(c), "host_error:verdict_invalid");
        let c = validate_resolution(
            &json!({"outcome": "approve", "context_identity": null, "verdict": {"decision": "deny", "reason": "ctk:no"}}),
            &id,
        );
        assert_eq!(reason(c), "host_error:verdict_invalid");
        let c = validate_resolution(
            &json!({"outcome": "reject", "context_identity": null, "verdict": {"decision": "deny", "reason": "ctk:rejected"}}),
            &id,
        );
        assert_eq!(reason(c), "ctk:rejected");
    }
}
