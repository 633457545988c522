//! [`ScriptedCallbacks`]: the `Callbacks` a running vector calls back into.

use std::sync::{Arc, Mutex};

use ctk_agent_hooks_adapter::{
    BoxFuture, Callbacks, InterceptorReply, KnownAnswers, RedactorReply, ResolverReply, SharedReply,
};
use serde_json::Value;

use crate::script::interceptor::{self, Decision};
use crate::script::{redactor, resolver};
use crate::vector::model::{ApprovalRule, InterceptorRule, Vector};

/// The scripted callbacks of one vector run.
#[derive(Debug, Default)]
pub struct ScriptedCallbacks {
    scripts: Vec<Vec<InterceptorRule>>,
    approval: Vec<ApprovalRule>,
    redact: Vec<String>,
    /// Interceptor 0's contexts; shared with the host where it lent them.
    recorded: Mutex<Vec<Arc<Value>>>,
    approval_requests: Mutex<Vec<Value>>,
    rule_errors: Mutex<Vec<String>>,
}

impl ScriptedCallbacks {
    /// Callbacks scripted by `vector`.
    pub fn new(vector: &Vector) -> Arc<Self> {
        Arc::new(Self {
            scripts: vector.scripts(),
            approval: vector.approval_script.clone(),
            redact: vector.redact_for_approval.clone(),
            recorded: Mutex::new(Vec::new()),
            approval_requests: Mutex::new(Vec::new()),
            rule_errors: Mutex::new(Vec::new()),
        })
    }

    /// Callbacks from explicit scripts (tests).
    pub fn from_parts(
        scripts: Vec<Vec<InterceptorRule>>,
        approval: Vec<ApprovalRule>,
        redact: Vec<String>,
    ) -> Self {
        Self {
            scripts,
            approval,
            redact,
            recorded: Mutex::new(Vec::new()),
            approval_requests: Mutex::new(Vec::new()),
            rule_errors: Mutex::new(Vec::new()),
        }
    }

    /// Copies of the contexts interceptor 0 received, in arrival order.
    pub fn recorded(&self) -> Vec<Value> {
        let recorded = self
            .recorded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        recorded.iter().map(|c| Value::clone(c)).collect()
    }

    /// The contexts interceptor 0 received, in arrival order, taken out of
    /// the callbacks: what the assertions read once the run is over. A
    /// context the host lent is copied only if the host still holds it.
    pub fn take_recorded(&self) -> Vec<Value> {
        let taken = match self.recorded.lock() {
            Ok(mut r) => std::mem::take(&mut *r),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        taken.into_iter().map(Arc::unwrap_or_clone).collect()
    }

    /// Copies of the approval requests the resolver received, in arrival
    /// order (the assertions check their §9 shape).
    pub fn approval_requests(&self) -> Vec<Value> {
        self.approval_requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    /// The rules a scripted interceptor could not answer, each naming the
    /// interceptor, the rule and the point: the vector, not the host, is at
    /// fault, so the engine reports the run as an error.
    pub fn rule_errors(&self) -> Vec<String> {
        self.rule_errors
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    fn push_recorded(&self, context: Arc<Value>) {
        match self.recorded.lock() {
            Ok(mut r) => r.push(context),
            Err(poisoned) => poisoned.into_inner().push(context),
        }
    }

    /// What interceptor `index`'s script decides on `context`; a rule it
    /// cannot answer is kept for the engine and raised.
    fn decide(&self, index: usize, context: &Value) -> Decision {
        let Some(rules) = self.scripts.get(index) else {
            return Decision::Reply(InterceptorReply::Raised {
                message: format!("ctk: no interceptor script at index {index}"),
            });
        };
        interceptor::decide(rules, context).unwrap_or_else(|e| {
            let message = format!("interceptor {index}'s {e}");
            match self.rule_errors.lock() {
                Ok(mut r) => r.push(message.clone()),
                Err(poisoned) => poisoned.into_inner().push(message.clone()),
            }
            Decision::Reply(InterceptorReply::Raised {
                message: format!("ctk: {message}"),
            })
        })
    }
}

fn push(list: &Mutex<Vec<Value>>, value: &Value) {
    match list.lock() {
        Ok(mut r) => r.push(value.clone()),
        Err(poisoned) => poisoned.into_inner().push(value.clone()),
    }
}

impl Callbacks for ScriptedCallbacks {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async move {
            if index == 0 {
                self.push_recorded(Arc::new(context.clone()));
            }
            match self.decide(index, context) {
                Decision::Reply(reply) => reply,
                Decision::Mutate => {
                    interceptor::mutate(context);
                    interceptor::mutated_reply()
                }
                Decision::Never => std::future::pending().await,
            }
        })
    }

    fn intercept_shared(&self, index: usize, context: Arc<Value>) -> BoxFuture<'_, SharedReply> {
        Box::pin(async move {
            if index == 0 {
                self.push_recorded(Arc::clone(&context));
            }
            match self.decide(index, &context) {
                Decision::Reply(reply) => SharedReply::new(reply, None),
                Decision::Mutate => {
                    let mut own = Value::clone(&context);
                    interceptor::mutate(&mut own);
                    // A context the fault cannot touch comes back unchanged.
                    let changed = (own != *context).then_some(own);
                    SharedReply::new(interceptor::mutated_reply(), changed)
                }
                Decision::Never => std::future::pending().await,
            }
        })
    }

    /// Every interceptor's answers that read nothing of the context are
    /// known; interceptor 0's are marked to be recorded.
    fn known_answers(&self, index: usize) -> Option<KnownAnswers> {
        let mut known = interceptor::known_answers(self.scripts.get(index)?);
        // Interceptor 0's contexts are what the assertions read: a host that
        // answers it itself must report each one.
        known.record = index == 0;
        Some(known)
    }

    /// Interceptor 0's contexts reported by a host that answered it itself:
    /// recorded as if the call had come back.
    fn record(&self, index: usize, context: Arc<Value>) {
        if index == 0 {
            self.push_recorded(context);
        }
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async move {
            push(&self.approval_requests, request);
            resolver::resolve(&self.approval, request)
        })
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        Box::pin(async move { RedactorReply::Redacted(redactor::redact(&self.redact, context)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn rule(v: Value) -> InterceptorRule {
        serde_json::from_value(v).expect("rule")
    }

    #[tokio::test]
    async fn only_interceptor_zero_records_a_copy_taken_before_evaluation() {
        let cb = ScriptedCallbacks::from_parts(
            vec![
                vec![rule(json!({"at": "input", "fault": "mutate"}))],
                vec![],
            ],
            vec![],
            vec![],
        );
        let mut ctx = json!({"interception_point": "input", "target": {"content": "x"}});
        let reply = cb.intercept(0, &mut ctx).await;
        assert_eq!(
            reply,
            InterceptorReply::Response(json!({"decision": "allow", "reason": "ctk:mutated"}))
        );
        assert_eq!(ctx["target"], json!("TAMPERED"));
        let mut other = json!({"interception_point": "output"});
        cb.intercept(1, &mut other).await;
        assert_eq!(
            cb.recorded(),
            vec![json!({"interception_point": "input", "target": {"content": "x"}})]
        );
        assert_eq!(
            cb.take_recorded(),
            vec![json!({"interception_point": "input", "target": {"content": "x"}})]
        );
        assert!(cb.take_recorded().is_empty(), "taken once, not copied");
    }

    /// A lent context is recorded as the very snapshot, not a copy; the copy
    /// a `mutate` fault changes is made apart and comes back as `changed`.
    #[tokio::test]
    async fn a_lent_context_is_shared_and_copied_only_to_mutate() {
        let cb = ScriptedCallbacks::from_parts(
            vec![
                vec![rule(json!({"at": "output", "fault": "mutate"}))],
                vec![rule(json!({"at": "input", "fault": "mutate"}))],
            ],
            vec![],
            vec![],
        );
        let input = Arc::new(json!({"interception_point": "input", "target": {"content": "x"}}));
        let read = cb.intercept_shared(0, Arc::clone(&input)).await;
        assert_eq!(
            read,
            SharedReply::new(
                InterceptorReply::Response(json!({"decision": "allow"})),
                None
            )
        );
        assert_eq!(Arc::strong_count(&input), 2, "recorded without a copy");
        let mutated = cb.intercept_shared(1, Arc::clone(&input)).await;
        assert_eq!(mutated.reply, interceptor::mutated_reply());
        assert_eq!(
            mutated.changed,
            Some(json!({"interception_point": "input", "target": "TAMPERED"}))
        );
        assert_eq!(
            input["target"],
            json!({"content": "x"}),
            "the lent context is never written"
        );
        assert_eq!(Arc::strong_count(&input), 2, "only interceptor 0 records");
        // A context the fault cannot touch is not reported as changed.
        let untouched = Arc::new(json!({"interception_point": "input", "target": "TAMPERED"}));
        assert_eq!(cb.intercept_shared(1, untouched).await.changed, None);
        drop(input);
        assert_eq!(
            cb.take_recorded(),
            vec![json!({"interception_point": "input", "target": {"content": "x"}})]
        );
    }

    /// The host may still hold what it lent when the run is over: the record
    /// is then copied out, and the two stay apart.
    #[tokio::test]
    async fn a_context_still_held_is_copied_out() {
        let cb = ScriptedCallbacks::from_parts(vec![vec![]], vec![], vec![]);
        let held = Arc::new(json!({"interception_point": "input"}));
        cb.intercept_shared(0, Arc::clone(&held)).await;
        assert_eq!(cb.recorded(), vec![Value::clone(&held)]);
        assert_eq!(cb.take_recorded(), vec![Value::clone(&held)]);
        assert!(cb.take_recorded().is_empty());
        assert_eq!(Arc::strong_count(&held), 1);
    }

    #[tokio::test]
    async fn a_lent_context_times_out_and_raises_as_an_owned_one() {
        let cb = ScriptedCallbacks::from_parts(
            vec![vec![rule(json!({"at": "input", "fault": "timeout"}))]],
            vec![],
            vec![],
        );
        let ctx = Arc::new(json!({"interception_point": "input"}));
        let waited = tokio::time::timeout(
            Duration::from_millis(20),
            cb.intercept_shared(0, ctx.clone()),
        )
        .await;
        assert!(waited.is_err());
        assert!(matches!(
            cb.intercept_shared(5, ctx).await.reply,
            InterceptorReply::Raised { .. }
        ));
    }

    /// Interceptor 0's contexts are what the assertions read: its answers
    /// are known like any other's, but marked to be recorded, so a host
    /// that answers it itself reports every context.
    #[test]
    fn every_interceptor_has_known_answers_and_only_zero_is_recorded() {
        let cb = ScriptedCallbacks::from_parts(
            vec![
                vec![rule(
                    json!({"at": "input", "return": {"decision": "deny", "reason": "ctk:a"}}),
                )],
                vec![rule(
                    json!({"at": "input", "return": {"decision": "deny", "reason": "ctk:a"}}),
                )],
            ],
            vec![],
            vec![],
        );
        let zero = cb.known_answers(0).expect("interceptor 0 is known");
        assert!(zero.record, "interceptor 0's contexts are recorded");
        assert_eq!(
            zero.answer("input"),
            Some(&InterceptorReply::Response(
                json!({"decision": "deny", "reason": "ctk:a"})
            ))
        );
        let known = cb.known_answers(1).expect("interceptor 1 is known");
        assert!(!known.record, "only interceptor 0 is recorded");
        assert_eq!(
            known.answer("input"),
            Some(&InterceptorReply::Response(
                json!({"decision": "deny", "reason": "ctk:a"})
            ))
        );
        assert_eq!(
            cb.known_answers(2),
            None,
            "no script: called back, and raised"
        );
    }

    /// A context a host reports for interceptor 0 is recorded in order,
    /// shared, as a call would have recorded it; no other is.
    #[test]
    fn reported_contexts_of_interceptor_zero_are_recorded_in_order() {
        let cb = ScriptedCallbacks::from_parts(vec![vec![], vec![]], vec![], vec![]);
        let first = Arc::new(json!({"interception_point": "input", "n": 1}));
        let second = Arc::new(json!({"interception_point": "output", "n": 2}));
        Callbacks::record(&cb, 0, Arc::clone(&first));
        Callbacks::record(&cb, 1, Arc::new(json!({"interception_point": "input"})));
        Callbacks::record(&cb, 0, Arc::clone(&second));
        assert_eq!(Arc::strong_count(&first), 2, "recorded without a copy");
        assert_eq!(
            cb.take_recorded(),
            vec![Value::clone(&first), Value::clone(&second)]
        );
    }

    #[tokio::test]
    async fn timeout_fault_never_answers() {
        let cb = ScriptedCallbacks::from_parts(
            vec![vec![rule(json!({"at": "input", "fault": "timeout"}))]],
            vec![],
            vec![],
        );
        let mut ctx = json!({"interception_point": "input"});
        let waited =
            tokio::time::timeout(Duration::from_millis(20), cb.intercept(0, &mut ctx)).await;
        assert!(waited.is_err());
    }

    #[tokio::test]
    async fn a_rule_that_cannot_be_answered_raises_and_is_kept() {
        let cb = ScriptedCallbacks::from_parts(
            vec![vec![rule(
                json!({"at": "input", "return": {"decision": "transform", "transform": {"path": "$target.nope",
                    "value": {"$ctk.generate": {"pad_context_past": 100}}}}}),
            )]],
            vec![],
            vec![],
        );
        let mut ctx = json!({"interception_point": "input", "target": {"content": "x"}});
        assert!(matches!(
            cb.intercept(0, &mut ctx).await,
            InterceptorReply::Raised { .. }
        ));
        assert_eq!(
            cb.rule_errors(),
            vec![
                "interceptor 0's rule 0 at input: the transform path \"$target.nope\" does not resolve in the context's target"
                    .to_owned()
            ]
        );
    }

    #[tokio::test]
    async fn unknown_index_raises() {
        let cb = ScriptedCallbacks::default();
        let mut ctx = json!({"interception_point": "input"});
        assert!(matches!(
            cb.intercept(3, &mut ctx).await,
            InterceptorReply::Raised { .. }
        ));
    }
}
