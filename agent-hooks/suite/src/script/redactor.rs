//! The redactor: writes `"[redacted]"` at each `redact_for_approval` path of
//! the context's `target` and mirrors the new target into the point's
//! conditional field (§4.3 write-back). Paths that do not resolve are left alone.

use serde_json::Value;

use crate::json_path::{get_mut, parse_target, Segment};

/// The conditional field mirroring `target` at each point (none at startup
/// and shutdown, where the target is not transformable).
pub fn write_back_field(point: &str) -> Option<&'static [&'static str]> {
    Some(match point {
        "input" => &["input"],
        "pre_model_call" => &["messages"],
        "post_model_call" => &["response"],
        "pre_tool_call" => &["tool_call", "args"],
        "post_tool_call" => &["tool_result", "value"],
        "output" => &["output"],
        _ => return None,
    })
}

/// The context the approver may see.
pub fn redact(paths: &[String], context: &Value) -> Value {
    let mut out = context.clone();
    let mut changed = false;
    for path in paths {
        let Some(segments) = parse_target(path) else {
            continue;
        };
        let mut full = vec![Segment::Key("target".into())];
        full.extend(segments);
        if let Some(slot) = get_mut(&mut out, &full) {
            *slot = Value::String("[redacted]".into());
            changed = true;
        }
    }
    if changed {
        let point = out
            .get("interception_point")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let (Some(field), Some(target)) = (write_back_field(&point), out.get("target").cloned())
        {
            let field: Vec<Segment> = field.iter().map(|k| Segment::Key((*k).into())).collect();
            if let Some(slot) = get_mut(&mut out, &field) {
                *slot = target;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_target_and_mirror() {
        let ctx = json!({"interception_point": "pre_tool_call", "target": {"amount": 100, "to": "x"},
                         "tool_call": {"name": "w", "args": {"amount": 100, "to": "x"}}});
        let out = redact(&["$target.amount".into(), "$target.missing".into()], &ctx);
        assert_eq!(out["target"], json!({"amount": "[redacted]", "to": "x"}));
        assert_eq!(
            out["tool_call"]["args"],
            json!({"amount": "[redacted]", "to": "x"})
        );
        assert_eq!(ctx["target"]["amount"], json!(100));
    }

    #[test]
    fn unresolvable_paths_leave_the_context_alone() {
        let ctx = json!({"interception_point": "output", "target": {"content": "c"}, "output": {"content": "c"}});
        assert_eq!(
            redact(&["$target.nope".into(), "$target[0]".into()], &ctx),
            ctx
        );
        let whole = redact(&["$target".into()], &ctx);
        assert_eq!(whole["output"], json!("[redacted]"));
    }
}
