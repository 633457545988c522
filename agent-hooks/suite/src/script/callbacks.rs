//! [`ScriptedCallbacks`]: the `Callbacks` a running vector calls back into.

use std::sync::{Arc, Mutex};

use ctk_agent_hooks_adapter::{
    BoxFuture, Callbacks, InterceptorReply, RedactorReply, ResolverReply,
};
use serde_json::Value;

use crate::script::{interceptor, redactor, resolver};
use crate::vector::model::{ApprovalRule, InterceptorRule, Vector};

/// The scripted callbacks of one vector run.
#[derive(Debug, Default)]
pub struct ScriptedCallbacks {
    scripts: Vec<Vec<InterceptorRule>>,
    approval: Vec<ApprovalRule>,
    redact: Vec<String>,
    recorded: Mutex<Vec<Value>>,
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

    /// Deep copies of the contexts interceptor 0 received, in arrival order.
    pub fn recorded(&self) -> Vec<Value> {
        self.recorded
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    /// The contexts interceptor 0 received, in arrival order, taken out of
    /// the callbacks: what the assertions read once the run is over, with
    /// no second copy of every context.
    pub fn take_recorded(&self) -> Vec<Value> {
        match self.recorded.lock() {
            Ok(mut r) => std::mem::take(&mut *r),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
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

    fn record(&self, context: &Value) {
        push(&self.recorded, context);
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
                self.record(context);
            }
            let Some(rules) = self.scripts.get(index) else {
                return InterceptorReply::Raised {
                    message: format!("ctk: no interceptor script at index {index}"),
                };
            };
            match interceptor::evaluate(rules, context) {
                Ok(Some(reply)) => reply,
                Ok(None) => std::future::pending().await,
                Err(e) => {
                    let message = format!("interceptor {index}'s {e}");
                    match self.rule_errors.lock() {
                        Ok(mut r) => r.push(message.clone()),
                        Err(poisoned) => poisoned.into_inner().push(message.clone()),
                    }
                    InterceptorReply::Raised {
                        message: format!("ctk: {message}"),
                    }
                }
            }
        })
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
