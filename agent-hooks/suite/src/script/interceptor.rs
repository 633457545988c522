//! Scripted interceptor rules (stateless: every call evaluates afresh).

use ctk_agent_hooks_adapter::InterceptorReply;
use serde_json::{json, Map, Value};

use crate::json_path::{json_eq, lookup};
use crate::script::pad::{self, PadError};
use crate::vector::model::{InterceptorFault, InterceptorRule};

/// A scripted rule the interceptor could not answer (a context-sized fill
/// that cannot be sized against the context received): the interceptor
/// raises, and the engine reports the vector as an error naming the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule {rule} at {point}: {cause}")]
pub struct RuleError {
    /// The rule's index in its interceptor's script.
    pub rule: usize,
    /// The point it matched at.
    pub point: String,
    /// Why it could not be answered.
    pub cause: PadError,
}

/// Whether every dotted-path predicate of `matches` holds on `context`.
pub fn matches(predicates: &Map<String, Value>, context: &Value) -> bool {
    predicates
        .iter()
        .all(|(path, want)| lookup(context, path).is_some_and(|got| json_eq(got, want)))
}

/// What a scripted interceptor does with the context it was handed.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// It answers this, leaving its copy as it was.
    Reply(InterceptorReply),
    /// The `mutate` fault: it tampers with its own copy ([`mutate`]), then
    /// answers [`mutated_reply`].
    Mutate,
    /// It never answers (`timeout`).
    Never,
}

/// The first rule at the context's point whose `match` holds decides; no rule
/// means allow. A `return` holding a context-sized fill is sized against
/// `context` here ([`pad`]). Reads the context only, so that a context lent
/// shared is copied just for the rule that changes it.
pub fn decide(rules: &[InterceptorRule], context: &Value) -> Result<Decision, RuleError> {
    let point = context
        .get("interception_point")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((index, rule)) = rules
        .iter()
        .enumerate()
        .find(|(_, r)| r.at == point && matches(&r.match_, context))
    else {
        return Ok(Decision::Reply(InterceptorReply::Response(
            json!({"decision": "allow"}),
        )));
    };
    if rule.fault.is_none() && rule.return_raw.is_none() {
        if let Some(ret) = &rule.return_ {
            let filled = pad::fill(ret, context).map_err(|cause| RuleError {
                rule: index,
                point: point.to_owned(),
                cause,
            })?;
            if let Some(filled) = filled {
                return Ok(Decision::Reply(InterceptorReply::Response(filled)));
            }
        }
    }
    Ok(match rule.fault {
        Some(InterceptorFault::Raise) => Decision::Reply(InterceptorReply::Raised {
            message: "ctk: scripted interceptor raised".into(),
        }),
        Some(InterceptorFault::MalformedVerdict) => {
            Decision::Reply(InterceptorReply::Response(json!({"decision": "transform"})))
        }
        Some(InterceptorFault::Mutate) => Decision::Mutate,
        Some(InterceptorFault::Timeout) => Decision::Never,
        None => Decision::Reply(InterceptorReply::Response(
            rule.return_raw
                .clone()
                .or_else(|| rule.return_.clone())
                .unwrap_or_else(|| json!({"decision": "allow"})),
        )),
    })
}

/// [`decide`], carried out on the interceptor's own copy: a `mutate` fault
/// writes into `context`. `None` means the interceptor never answers.
pub fn evaluate(
    rules: &[InterceptorRule],
    context: &mut Value,
) -> Result<Option<InterceptorReply>, RuleError> {
    Ok(match decide(rules, context)? {
        Decision::Reply(reply) => Some(reply),
        Decision::Mutate => {
            mutate(context);
            Some(mutated_reply())
        }
        Decision::Never => None,
    })
}

/// The answer of an interceptor that tampered with its copy.
pub fn mutated_reply() -> InterceptorReply {
    InterceptorReply::Response(json!({"decision": "allow", "reason": "ctk:mutated"}))
}

/// The `mutate` fault: tamper with the received context in place.
pub fn mutate(context: &mut Value) {
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
        evaluate(&rules(rules_json), &mut ctx).expect("answers")
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

    /// A fill is sized when the rule answers; one that cannot be names its
    /// rule and point.
    #[test]
    fn a_context_sized_fill_is_sized_at_answer_time() {
        let ctx = json!({"interception_point": "output", "target": {"content": "c"}, "output": {"content": "c"}});
        let r = json!([
            {"at": "input", "return": {"decision": "deny", "reason": "ctk:x"}},
            {"at": "output", "return": {"decision": "transform", "transform": {"path": "$target.content",
                "value": {"$ctk.generate": {"pad_context_to": 100}}}}}
        ]);
        let Some(InterceptorReply::Response(v)) = reply(r.clone(), ctx.clone()) else {
            panic!("a response");
        };
        let content = v["transform"]["value"].as_str().expect("filled");
        let mut composed = ctx.clone();
        composed["target"]["content"] = json!(content);
        composed["output"]["content"] = json!(content);
        let size = ctk_core::digest::canonical(&composed)
            .expect("canonical")
            .len();
        assert!((99..=100).contains(&size), "{size}");
        let err = evaluate(
            &rules(
                r.as_array()
                    .map(|a| a.to_vec())
                    .map(|mut a| {
                        a[1]["return"]["transform"]["value"] =
                            json!({"$ctk.generate": {"pad_context_to": 10}});
                        Value::Array(a)
                    })
                    .expect("rules"),
            ),
            &mut ctx.clone(),
        )
        .expect_err("cannot fill");
        assert_eq!(err.rule, 1);
        assert_eq!(err.point, "output");
        assert!(
            err.to_string()
                .starts_with("rule 1 at output: with an empty fill"),
            "{err}"
        );
    }

    #[test]
    fn mutate_tampers_target_and_args() {
        let mut ctx = json!({"interception_point": "pre_tool_call", "target": {"a": 1}, "tool_call": {"args": {"a": 1}}});
        let out = evaluate(
            &rules(json!([{"at": "pre_tool_call", "fault": "mutate"}])),
            &mut ctx,
        )
        .expect("answers");
        assert_eq!(
            out,
            response(json!({"decision": "allow", "reason": "ctk:mutated"}))
        );
        assert_eq!(ctx["target"], json!("TAMPERED"));
        assert_eq!(ctx["tool_call"]["args"], json!({"tampered": true}));
    }
}
