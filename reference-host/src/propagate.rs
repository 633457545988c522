//! What a combined deny does to the agent loop at each point (§6, §6.1,
//! §6.1a, §6.2), including the tool-seam posture for host errors.

use crate::point::Point;
use crate::verdict::model::Verdict;

/// How a host handles a `host_error:*` deny at the tool seam (§6.2).
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

/// What the loop does after a deny that stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterDeny {
    /// End the run as blocked (the session still shuts down, reason `error`).
    EndRun,
    /// Do not invoke the tool; tell the model it was blocked; keep looping.
    SkipTool,
    /// Discard the tool result (never incorporated); tell the model; keep looping.
    DiscardResult,
}

/// The propagation rule for a standing deny at `point`. Startup, input,
/// model and output denies end the reference host's run; tool-seam denies
/// continue, except a host error under the `terminate` posture. A deny at
/// `agent_shutdown` has nothing left to end: the loop records it and never
/// asks here.
pub fn after_deny(point: Point, verdict: &Verdict, posture: ToolSeamPosture) -> AfterDeny {
    let terminate = verdict.is_host_error() && posture == ToolSeamPosture::Terminate;
    match point {
        Point::PreToolCall if !terminate => AfterDeny::SkipTool,
        Point::PostToolCall if !terminate => AfterDeny::DiscardResult,
        _ => AfterDeny::EndRun,
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
    fn policy_denies_at_the_tool_seam_continue_in_both_postures() {
        for posture in [ToolSeamPosture::Continue, ToolSeamPosture::Terminate] {
            assert_eq!(
                after_deny(Point::PreToolCall, &policy_deny(), posture),
                AfterDeny::SkipTool
            );
            assert_eq!(
                after_deny(Point::PostToolCall, &policy_deny(), posture),
                AfterDeny::DiscardResult
            );
        }
    }

    #[test]
    fn host_errors_follow_the_posture() {
        let failed = Verdict::host_deny(ReservedReason::InterceptorFailed);
        assert_eq!(
            after_deny(Point::PreToolCall, &failed, ToolSeamPosture::Continue),
            AfterDeny::SkipTool
        );
        assert_eq!(
            after_deny(Point::PreToolCall, &failed, ToolSeamPosture::Terminate),
            AfterDeny::EndRun
        );
        assert_eq!(
            after_deny(Point::PostToolCall, &failed, ToolSeamPosture::Terminate),
            AfterDeny::EndRun
        );
    }

    #[test]
    fn other_points_end_the_run() {
        for p in [
            Point::AgentStartup,
            Point::Input,
            Point::PreModelCall,
            Point::PostModelCall,
            Point::Output,
        ] {
            assert_eq!(
                after_deny(p, &policy_deny(), ToolSeamPosture::Continue),
                AfterDeny::EndRun
            );
        }
    }

    #[test]
    fn blocked_message_names_the_reason() {
        assert_eq!(blocked_message(&policy_deny()), "blocked: ctk:no");
    }
}
