//! Scripted interceptor rules (stateless: every call evaluates afresh).

use ctk_harness_protocol::InterceptorReply;
use serde_json::{json, Map, Value};

use crate::json_path::{json_eq, lookup};
use crate::vector::model::{InterceptorFault, InterceptorRule};

/// Whether every dotted-path predicate of `matches` holds on `context`.
pub fn matches(predicates: &Map<String, Value>, context: &Value) -> bool {
    predicates
        .iter()
        .all(|(path, want)| lookup(context, path).is_some_and(|got| json_eq(got, want)))
}

/// The first rule at the context's point whose `match` holds decides; no rule
/// means allow. `None` means the interceptor never answers (`timeout`).
pub fn evaluate(rules: &[InterceptorRule], context: &mut Value) -> Option<InterceptorReply> {
    let point = context
        .get("interception_point")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let Some(rule) = rules
        .iter()
        .find(|r| r.at == point && matches(&r.match_, context))
    else {
        return Some(InterceptorReply::Response(json!({"decision": "allow"})));
    };
    Some(match rule.fault {
        Some(InterceptorFault::Raise) => InterceptorReply::Raised {
            message: "ctk: scripted interceptor raised".into(),
        },
        Some(InterceptorFault::MalformedVerdict) => {
            InterceptorReply::Response(json!({"decision": "transform"}))
        }
        Some(InterceptorFault::Mutate) => {
            mutate(context);
            InterceptorReply::Response(json!({"decision": "allow", "reason": "ctk:mutated"}))
        }
        Some(InterceptorFault::Timeout) => return None,
        None => InterceptorReply::Response(
            rule.return_raw
                .clone()
                .or_else(|| rule.return_.clone())
                .unwrap_or_else(|| json!({"decision": "allow"})),
        ),
    })
}

/// The `mutate` fault: tamper with the received context in place.
fn mutate(context: &mut Value) {
    if let Some(obj) = context.as_object_mut() {
        obj.insert("target".into(), json!("TAMPERED"));
        if let Some(Value::Object(call)) = obj.get_mut("tool_call") {
            call.insert("args".into(), json!({"tampered": true}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(v: Value) -> Vec<InterceptorRule> {
        serde_json::from_value(v).expect("rules")
    }

    fn reply(rules_json: Value, mut ctx: Value) -> Option<InterceptorReply> {
        evaluate(&rules(rules_json), &mut ctx)
    }

    fn response(v: Value) -> Option<InterceptorReply> {
        Some(InterceptorReply::Response(v))
    }

    #[test]
    fn first_matching_rule_at_the_point_wins() {
        let r = json!([
            {"at": "pre_tool_call", "match": {"tool_call.name": "rm"}, "return": {"decision": "deny", "reason": "ctk:a"}},
            {"at": "pre_tool_call", "return": {"decision": "deny", "reason": "ctk:b"}}
        ]);
        let ctx = |name: &str| json!({"interception_point": "pre_tool_call", "tool_call": {"name": name}});
        assert_eq!(
            reply(r.clone(), ctx("rm")),
            response(json!({"decision": "deny", "reason": "ctk:a"}))
        );
        assert_eq!(
            reply(r.clone(), ctx("ls")),
            response(json!({"decision": "deny", "reason": "ctk:b"}))
        );
        assert_eq!(
            reply(r, json!({"interception_point": "input"})),
            response(json!({"decision": "allow"}))
        );
    }

    #[test]
    fn faults_and_raw_returns() {
        let ctx = json!({"interception_point": "input"});
        assert!(matches!(
            reply(json!([{"at": "input", "fault": "raise"}]), ctx.clone()),
            Some(InterceptorReply::Raised { .. })
        ));
        assert_eq!(
            reply(
                json!([{"at": "input", "fault": "malformed_verdict"}]),
                ctx.clone()
            ),
            response(json!({"decision": "transform"}))
        );
        assert_eq!(
            reply(json!([{"at": "input", "fault": "timeout"}]), ctx.clone()),
            None
        );
        assert_eq!(
            reply(
                json!([{"at": "input", "return_raw": {"decision": "deny", "reason": "host_error:x", "zz": 1}}]),
                ctx.clone()
            ),
            response(json!({"decision": "deny", "reason": "host_error:x", "zz": 1}))
        );
        assert_eq!(
            reply(json!([{"at": "input", "return_raw": null}]), ctx),
            response(Value::Null)
        );
    }

    #[test]
    fn mutate_tampers_target_and_args() {
        let mut ctx = json!({"interception_point": "pre_tool_call", "target": {"a": 1}, "tool_call": {"args": {"a": 1}}});
        let out = evaluate(
            &rules(json!([{"at": "pre_tool_call", "fault": "mutate"}])),
            &mut ctx,
        );
        assert_eq!(
            out,
            response(json!({"decision": "allow", "reason": "ctk:mutated"}))
        );
        assert_eq!(ctx["target"], json!("TAMPERED"));
        assert_eq!(ctx["tool_call"]["args"], json!({"tampered": true}));
    }
}
