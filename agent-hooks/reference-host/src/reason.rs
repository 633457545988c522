//! The fourteen reserved `host_error:*` reasons (§11): only the host
//! synthesizes them, and the verdict gate refuses them from interceptors.

/// Prefix of every reserved reason.
pub const HOST_ERROR_PREFIX: &str = "host_error:";

/// A reserved host-synthesized deny reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReservedReason {
    /// The context failed the envelope, value-domain or bound checks, or the
    /// identity provider failed.
    ContextInvalid,
    /// An interceptor raised.
    InterceptorFailed,
    /// An interceptor did not answer in time.
    InterceptorTimeout,
    /// A returned value failed the §5 gate.
    VerdictInvalid,
    /// A transform path did not resolve or its value could not be set.
    TransformInvalid,
    /// A transform was not rooted at `$target` or the point forbids transforms.
    TransformTargetForbidden,
    /// Two or more transforms at top severity in `parallel/strictest`.
    TransformConflict,
    /// Non-unanimous outcome in `parallel/unanimous`.
    CompositionDisagreement,
    /// The approval resolver or redactor failed, or the resolution was malformed.
    ApprovalResolverFailed,
    /// The resolver answered `unresolved`.
    ApprovalUnresolved,
    /// The resolution broke the echo rule.
    ApprovalIdentityMismatch,
    /// The adapter cannot emit this point.
    AdapterUnsupported,
    /// No interceptor is bound at the point.
    NoInterceptor,
    /// A stream could not be assembled or left unevaluated residue.
    StreamingUnsupported,
}

impl ReservedReason {
    /// All fourteen, in the order of `spec/reserved-reasons.json`.
    pub const ALL: [ReservedReason; 14] = [
        ReservedReason::ContextInvalid,
        ReservedReason::InterceptorFailed,
        ReservedReason::InterceptorTimeout,
        ReservedReason::VerdictInvalid,
        ReservedReason::TransformInvalid,
        ReservedReason::TransformTargetForbidden,
        ReservedReason::TransformConflict,
        ReservedReason::CompositionDisagreement,
        ReservedReason::ApprovalResolverFailed,
        ReservedReason::ApprovalUnresolved,
        ReservedReason::ApprovalIdentityMismatch,
        ReservedReason::AdapterUnsupported,
        ReservedReason::StreamingUnsupported,
        ReservedReason::NoInterceptor,
    ];

    /// The wire string, `host_error:<name>`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReservedReason::ContextInvalid => "host_error:context_invalid",
            ReservedReason::InterceptorFailed => "host_error:interceptor_failed",
            ReservedReason::InterceptorTimeout => "host_error:interceptor_timeout",
            ReservedReason::VerdictInvalid => "host_error:verdict_invalid",
            ReservedReason::TransformInvalid => "host_error:transform_invalid",
            ReservedReason::TransformTargetForbidden => "host_error:transform_target_forbidden",
            ReservedReason::TransformConflict => "host_error:transform_conflict",
            ReservedReason::CompositionDisagreement => "host_error:composition_disagreement",
            ReservedReason::ApprovalResolverFailed => "host_error:approval_resolver_failed",
            ReservedReason::ApprovalUnresolved => "host_error:approval_unresolved",
            ReservedReason::ApprovalIdentityMismatch => "host_error:approval_identity_mismatch",
            ReservedReason::AdapterUnsupported => "host_error:adapter_unsupported",
            ReservedReason::NoInterceptor => "host_error:no_interceptor",
            ReservedReason::StreamingUnsupported => "host_error:streaming_unsupported",
        }
    }
}

/// Whether a reason lies in the reserved namespace.
pub fn is_reserved(reason: &str) -> bool {
    reason.starts_with(HOST_ERROR_PREFIX)
}

/// Prefix of the host's warnings; reserved under `agent-hooks/draft` only.
pub const HOST_WARNING_PREFIX: &str = "host_warning:";

/// The one host warning the draft defines: a best-effort binding failed and
/// the host substituted an allow (draft §6.3.1).
pub const CONTROL_FAILED: &str = "host_warning:control_failed";

/// Whether an interceptor may not use `reason` (as a verdict reason or a
/// warning reason) under `version`: `host_error:*` always, `host_warning:*`
/// under the draft. Under 0.1 a `host_warning:` reason is an ordinary
/// string: 0.1 defines no such namespace (draft DECISIONS DD-05).
pub fn is_reserved_under(reason: &str, version: crate::spec_version::SpecVersion) -> bool {
    is_reserved(reason)
        || (version == crate::spec_version::SpecVersion::Draft
            && reason.starts_with(HOST_WARNING_PREFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_is_in_the_reserved_namespace() {
        let mut seen = std::collections::BTreeSet::new();
        for r in ReservedReason::ALL {
            assert!(is_reserved(r.as_str()));
            assert!(seen.insert(r.as_str()), "{} listed twice", r.as_str());
        }
    }

    #[test]
    fn removed_names_are_not_reasons() {
        for removed in [
            "host_error:approval_resolver_missing",
            "host_error:approval_action_mismatch",
        ] {
            assert!(ReservedReason::ALL.iter().all(|r| r.as_str() != removed));
        }
    }
}
