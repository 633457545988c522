//! The eight interception points (§3) and what each one may rewrite (§4.3).

/// One of the eight interception points; the set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Point {
    /// Once, before the first input of a session.
    AgentStartup,
    /// Each external request entering the session.
    Input,
    /// Right before each model request.
    PreModelCall,
    /// Right after each model response.
    PostModelCall,
    /// Right before each tool invocation.
    PreToolCall,
    /// Right after each tool invocation, success or error.
    PostToolCall,
    /// Right before the final response goes to the caller.
    Output,
    /// Once, after the last output or on an abnormal end.
    AgentShutdown,
}

impl Point {
    /// Every point in lifecycle order.
    pub const ALL: [Point; 8] = [
        Point::AgentStartup,
        Point::Input,
        Point::PreModelCall,
        Point::PostModelCall,
        Point::PreToolCall,
        Point::PostToolCall,
        Point::Output,
        Point::AgentShutdown,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Point::AgentStartup => "agent_startup",
            Point::Input => "input",
            Point::PreModelCall => "pre_model_call",
            Point::PostModelCall => "post_model_call",
            Point::PreToolCall => "pre_tool_call",
            Point::PostToolCall => "post_tool_call",
            Point::Output => "output",
            Point::AgentShutdown => "agent_shutdown",
        }
    }

    /// Parse a wire spelling; `None` for anything outside the closed set.
    pub fn parse(text: &str) -> Option<Point> {
        Point::ALL.into_iter().find(|p| p.as_str() == text)
    }

    /// Whether a transform may rewrite this point's target (§4.3).
    pub fn transformable(self) -> bool {
        !matches!(self, Point::AgentStartup | Point::AgentShutdown)
    }

    /// The conditional field that `target` aliases: a transform of the target
    /// is written back here so the next step of the loop uses it (§4.3).
    pub fn target_path(self) -> &'static [&'static str] {
        match self {
            Point::AgentStartup => &["agent_init"],
            Point::Input => &["input"],
            Point::PreModelCall => &["messages"],
            Point::PostModelCall => &["response"],
            Point::PreToolCall => &["tool_call", "args"],
            Point::PostToolCall => &["tool_result", "value"],
            Point::Output => &["output"],
            Point::AgentShutdown => &["summary"],
        }
    }

    /// The conditional members this point's context must carry (§4.2), each
    /// with the subfields the envelope requires and the identity keeps;
    /// `None` means the member is kept whole and only its presence is checked.
    pub fn conditional(self) -> &'static [(&'static str, Option<&'static [&'static str]>)] {
        match self {
            Point::AgentStartup => &[("agent_init", Some(&["tools_registered"]))],
            Point::Input => &[("input", Some(&["content", "role"]))],
            Point::PreModelCall => &[("model", Some(&["id"])), ("messages", None)],
            Point::PostModelCall => &[
                ("model", Some(&["id"])),
                (
                    "response",
                    Some(&["content", "tool_calls", "finish_reason"]),
                ),
            ],
            Point::PreToolCall => &[("tool_call", Some(&["id", "name", "args"]))],
            Point::PostToolCall => &[
                ("tool_call", Some(&["id", "name", "args"])),
                ("tool_result", Some(&["value", "is_error"])),
            ],
            Point::Output => &[("output", Some(&["content"]))],
            Point::AgentShutdown => &[("summary", Some(&["reason"]))],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_the_points_in_declaration_order() {
        // The emitter indexes its per-point bindings by `point as usize`.
        for (i, p) in Point::ALL.into_iter().enumerate() {
            assert_eq!(p as usize, i, "{p:?}");
        }
    }

    #[test]
    fn every_point_round_trips_its_wire_name() {
        for p in Point::ALL {
            assert_eq!(Point::parse(p.as_str()), Some(p));
        }
        assert_eq!(Point::parse("pre_tool"), None);
    }

    #[test]
    fn only_session_boundaries_forbid_transforms() {
        let forbidden: Vec<_> = Point::ALL
            .into_iter()
            .filter(|p| !p.transformable())
            .collect();
        assert_eq!(forbidden, vec![Point::AgentStartup, Point::AgentShutdown]);
    }

    #[test]
    fn target_alias_is_a_conditional_member() {
        for p in Point::ALL {
            let head = p.target_path()[0];
            assert!(
                p.conditional().iter().any(|(k, _)| *k == head),
                "{}",
                p.as_str()
            );
        }
    }
}
