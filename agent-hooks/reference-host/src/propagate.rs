//! The tool-seam side of §6.2: the posture a declaration names for host
//! errors there, and the message that stands in for a blocked call. The
//! rest of §6 (a standing deny at startup, input, a model call or the
//! output ends the run; at the tool seam it skips the tool or discards its
//! result and the loop goes on) is the agent loop's own control flow.

use crate::verdict::model::Verdict;

/// How a host handles a `host_error:*` deny at the tool seam (§6.2). The
/// reference host's code implements `continue` only (D-41): a declaration
/// asking for `terminate` is refused `surface_unsupported`, so the loop has
/// no terminate path. The enum stays whole because declarations name both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ToolSeamPosture {
    /// Surface a tool error and keep looping (the default).
    #[default]
    Continue,
    /// End the turn.
    Terminate,
}

impl ToolSeamPosture {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolSeamPosture::Continue => "continue",
            ToolSeamPosture::Terminate => "terminate",
        }
    }
}

/// The tool message that replaces a blocked tool call or a discarded
/// result: names the reason, never the withheld content.
pub fn blocked_message(verdict: &Verdict) -> String {
    format!("blocked: {}", verdict.reason.as_deref().unwrap_or("denied"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::ReservedReason;

    fn policy_deny() -> Verdict {
        Verdict {
            reason: Some("ctk:no".into()),
            ..Verdict::host_deny(ReservedReason::NoInterceptor)
        }
    }

    #[test]
    fn blocked_message_names_the_reason() {
        assert_eq!(blocked_message(&policy_deny()), "blocked: ctk:no");
    }
}
