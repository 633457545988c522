//! Scripted interceptor rules (stateless: every call evaluates afresh).

use ctk_agent_hooks_adapter::{InterceptorReply, KnownAnswers};
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
    match rule.fault {
        Some(InterceptorFault::Mutate) => return Ok(Decision::Mutate),
        Some(InterceptorFault::Timeout) => return Ok(Decision::Never),
        _ => {}
    }
    if let Some(reply) = fixed_reply(rule) {
        return Ok(Decision::Reply(reply));
    }
    // What is left is a `return` holding a context-sized fill, sized against
    // this context.
    let ret = rule.return_.as_ref().unwrap_or(&Value::Null);
    let filled = pad::fill(ret, context).map_err(|cause| RuleError {
        rule: index,
        point: point.to_owned(),
        cause,
    })?;
    Ok(Decision::Reply(InterceptorReply::Response(
        filled.unwrap_or_else(|| ret.clone()),
    )))
}

/// What the interceptor scripted by `rules` answers whatever the context, at
/// each point where that is known before the run, as [`decide`] would answer.
/// At a point its rules name, the first rule there decides every context
/// when it has no `match`: its answer is known unless it reads the context
/// (a context-sized fill) or is no plain answer (`mutate`, `timeout`). At
/// every other point no rule acts, and it allows.
pub fn known_answers(rules: &[InterceptorRule]) -> KnownAnswers {
    let mut known = KnownAnswers::default();
    for rule in rules {
        if known.at.contains_key(&rule.at) {
            continue;
        }
        let fixed = if rule.match_.is_empty() {
            fixed_reply(rule)
        } else {
            None
        };
        known.at.insert(rule.at.clone(), fixed);
    }
    known.elsewhere = Some(InterceptorReply::Response(json!({"decision": "allow"})));
    known
}

/// The answer of `rule`, the rule that decides, when it reads nothing of the
/// context; [`decide`] gives the same answer for every context it decides.
fn fixed_reply(rule: &InterceptorRule) -> Option<InterceptorReply> {
    if rule.fault.is_none() && rule.return_raw.is_none() {
        if let Some(ret) = &rule.return_ {
            if pad::holds_fill(ret) {
                return None;
            }
        }
    }
    match rule.fault {
        Some(InterceptorFault::Raise) => Some(InterceptorReply::Raised {
            message: "ctk: scripted interceptor raised".into(),
        }),
        Some(InterceptorFault::MalformedVerdict) => {
            Some(InterceptorReply::Response(json!({"decision": "transform"})))
        }
        Some(InterceptorFault::Mutate | InterceptorFault::Timeout) => None,
        None => Some(InterceptorReply::Response(
            rule.return_raw
                .clone()
                .or_else(|| rule.return_.clone())
                .unwrap_or_else(|| json!({"decision": "allow"})),
        )),
    }
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

    /// [`decide`], carried out on the interceptor's own copy: a `mutate` fault
    /// writes into `context`. `None` means the interceptor never answers.
    fn evaluate(
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
    fn known_answers_are_those_no_context_can_change() {
        let known = known_answers(&rules(json!([
            {"at": "input", "return": {"decision": "deny", "reason": "ctk:a"}},
            {"at": "input", "return": {"decision": "allow"}},
            {"at": "pre_tool_call", "match": {"tool_call.name": "rm"}, "return": {"decision": "deny", "reason": "ctk:b"}},
            {"at": "pre_tool_call", "return": {"decision": "allow"}},
            {"at": "output", "return": {"decision": "transform", "transform": {"path": "$target.content",
                "value": {"$ctk.generate": {"pad_context_to": 100}}}}},
            {"at": "post_tool_call", "fault": "mutate"},
            {"at": "pre_model_call", "fault": "timeout"},
            {"at": "post_model_call", "fault": "raise"},
            {"at": "agent_shutdown", "return_raw": null}
        ])));
        assert_eq!(
            known.answer("input"),
            Some(&InterceptorReply::Response(
                json!({"decision": "deny", "reason": "ctk:a"})
            )),
            "the first rule at the point decides"
        );
        for point in [
            "pre_tool_call",
            "output",
            "post_tool_call",
            "pre_model_call",
        ] {
            assert_eq!(
                known.answer(point),
                None,
                "{point} reads the context or never answers"
            );
        }
        assert!(matches!(
            known.answer("post_model_call"),
            Some(InterceptorReply::Raised { .. })
        ));
        assert_eq!(
            known.answer("agent_shutdown"),
            Some(&InterceptorReply::Response(Value::Null))
        );
        assert_eq!(
            known.answer("post_output"),
            Some(&InterceptorReply::Response(json!({"decision": "allow"}))),
            "no rule acts there"
        );
    }

    /// Wherever an answer is known, `decide` gives it for every context: held
    /// over every script of the released suites, at every point, on contexts
    /// that do and do not match the scripts' predicates.
    #[test]
    fn a_known_answer_is_what_decide_answers() {
        use crate::vector::embedded;
        use crate::vector::model::SpecVersion;
        // The eight points, and one no script names.
        let points = [
            "agent_startup",
            "input",
            "pre_model_call",
            "post_model_call",
            "pre_tool_call",
            "post_tool_call",
            "output",
            "agent_shutdown",
            "elsewhere",
        ];
        let mut checked = 0;
        for spec in [SpecVersion::V0_1, SpecVersion::Draft] {
            for loaded in embedded::released(spec).expect("the released suite loads") {
                for script in loaded.vector.scripts() {
                    let known = known_answers(&script);
                    // A script may name a point of another spec line too.
                    let named = script.iter().map(|r| r.at.as_str());
                    let all: std::collections::BTreeSet<&str> =
                        points.into_iter().chain(named).collect();
                    for point in all {
                        let Some(answer) = known.answer(point) else {
                            continue;
                        };
                        let mut contexts = vec![json!({"interception_point": point})];
                        for rule in script.iter().filter(|r| r.at == point) {
                            let mut matching = json!({"interception_point": point});
                            for (path, want) in &rule.match_ {
                                let mut at = &mut matching;
                                for key in path.split('.') {
                                    at = &mut at[key];
                                }
                                *at = want.clone();
                            }
                            contexts.push(matching);
                        }
                        for context in contexts {
                            let decided = decide(&script, &context).expect("answers");
                            assert_eq!(
                                decided,
                                Decision::Reply(answer.clone()),
                                "{} at {point} on {context}",
                                loaded.vector.id
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} answers checked");
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
