//! Method names and the typed params and result of each method. Each method
//! has one schema file in `schemas/harness-protocol/` holding both.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::interface::{InterceptorReply, KnownAnswers, RedactorReply, ResolverReply};
use crate::model::host::HostInfo;

/// Runner to host: the handshake, first on every host process.
pub const INITIALIZE: &str = "initialize";
/// Runner to host: prepare one vector ([`crate::VectorSetup`] as params).
pub const VECTOR_SETUP: &str = "vector/setup";
/// Runner to host: run the prepared vector ([`crate::RunRecord`] as result).
pub const VECTOR_RUN: &str = "vector/run";
/// Runner to host: release the prepared vector.
pub const VECTOR_TEARDOWN: &str = "vector/teardown";
/// Runner to host: answer, then exit.
pub const SHUTDOWN: &str = "shutdown";
/// Host to runner, during `vector/run`: an interceptor's verdict.
pub const CALLBACK_INTERCEPT: &str = "callback/intercept";
/// Host to runner, during `vector/run`: approval resolution.
pub const CALLBACK_RESOLVE_APPROVAL: &str = "callback/resolve_approval";
/// Host to runner, during `vector/run`: redaction.
pub const CALLBACK_REDACT: &str = "callback/redact";
/// Host to runner, during `vector/run`, a notification (feature
/// `recorded-contexts`): the context an interceptor the host answered itself
/// was handed, for the runner to record.
pub const CALLBACK_RECORD: &str = "callback/record";

/// The notifications the runner reads (host to runner, during `vector/run`);
/// each has a schema file holding its params.
pub const NOTIFICATIONS: [&str; 1] = [CALLBACK_RECORD];

/// The methods a host serves (runner to host).
pub const HOST_METHODS: [&str; 5] = [
    INITIALIZE,
    VECTOR_SETUP,
    VECTOR_RUN,
    VECTOR_TEARDOWN,
    SHUTDOWN,
];

/// The methods the runner serves (host to runner, during `vector/run`).
pub const CALLBACK_METHODS: [&str; 3] = [
    CALLBACK_INTERCEPT,
    CALLBACK_RESOLVE_APPROVAL,
    CALLBACK_REDACT,
];

/// Every method, runner-to-host first.
pub const ALL: [&str; 8] = [
    INITIALIZE,
    VECTOR_SETUP,
    VECTOR_RUN,
    VECTOR_TEARDOWN,
    SHUTDOWN,
    CALLBACK_INTERCEPT,
    CALLBACK_RESOLVE_APPROVAL,
    CALLBACK_REDACT,
];

/// Who is driving the host, sent in `initialize` for the host's logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RunnerInfo {
    /// Runner name.
    pub name: String,
    /// Runner version.
    pub version: String,
}

/// Params of `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InitializeParams {
    /// The protocol version the runner speaks: [`super::PROTOCOL_VERSION`].
    pub protocol: String,
    /// Who the runner is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<RunnerInfo>,
}

impl InitializeParams {
    /// The params this crate's client sends.
    pub fn current() -> Self {
        Self {
            protocol: super::PROTOCOL_VERSION.to_owned(),
            runner: Some(RunnerInfo {
                name: "ctk-harness-protocol".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            }),
        }
    }
}

/// Result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InitializeResult {
    /// The protocol version the host speaks; must equal the runner's.
    pub protocol: String,
    /// The host's identity.
    pub host: HostInfo,
}

impl InitializeResult {
    /// The result for `host`, at the current protocol version.
    pub fn new(host: HostInfo) -> Self {
        Self {
            protocol: super::PROTOCOL_VERSION.to_owned(),
            host,
        }
    }
}

/// The empty object: params of `vector/teardown` and `shutdown` (and of
/// `vector/run` for a host without `known-answers`), result of
/// `vector/setup`, `vector/teardown` and `shutdown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Params of `vector/run`: empty, but for the answers the runner knows
/// before the run, which it sends only to a host that announced the
/// `known-answers` feature.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RunParams {
    /// One entry per interceptor of the setup, in its order; `null` where
    /// nothing is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_answers: Option<Vec<Option<KnownAnswersWire>>>,
}

impl RunParams {
    /// The params carrying `known`, one entry per interceptor; empty params
    /// when nothing at all is known.
    pub fn with_known(known: Vec<Option<KnownAnswers>>) -> Self {
        if known.iter().all(Option::is_none) {
            return Self::default();
        }
        Self {
            known_answers: Some(
                known
                    .into_iter()
                    .map(|k| k.map(KnownAnswersWire::from))
                    .collect(),
            ),
        }
    }

    /// The known answers, one entry per interceptor (none past the list).
    pub fn into_known(self) -> Vec<Option<KnownAnswers>> {
        self.known_answers
            .unwrap_or_default()
            .into_iter()
            .map(|k| k.map(KnownAnswers::from))
            .collect()
    }
}

/// [`KnownAnswers`] on the wire: each answer is a `callback/intercept`
/// result without `context` (a known answer never changes the context).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KnownAnswersWire {
    /// By point; `null` where the interceptor is called back.
    #[serde(default)]
    pub at: BTreeMap<String, Option<InterceptResult>>,
    /// At every other point; `null` (or absent): called back.
    #[serde(default)]
    pub elsewhere: Option<InterceptResult>,
    /// The host reports the contexts of the calls it answers itself
    /// (`callback/record`); sent only to a host that announced
    /// `recorded-contexts`, and left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub record: bool,
}

impl From<KnownAnswers> for KnownAnswersWire {
    fn from(known: KnownAnswers) -> Self {
        let wire = |r: Option<InterceptorReply>| r.map(|r| InterceptResult::from_reply(r, None));
        Self {
            at: known.at.into_iter().map(|(p, r)| (p, wire(r))).collect(),
            elsewhere: wire(known.elsewhere),
            record: known.record,
        }
    }
}

impl From<KnownAnswersWire> for KnownAnswers {
    fn from(wire: KnownAnswersWire) -> Self {
        let reply = |r: Option<InterceptResult>| r.map(|r| r.into_reply().0);
        KnownAnswers {
            at: wire.at.into_iter().map(|(p, r)| (p, reply(r))).collect(),
            elsewhere: reply(wire.elsewhere),
            record: wire.record,
        }
    }
}

/// Params of `callback/intercept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InterceptParams {
    /// Index into the setup's interceptors.
    pub index: u64,
    /// The interceptor's own copy of the context.
    pub context: Value,
}

impl InterceptParams {
    /// Params for interceptor `index` on `context`.
    pub fn new(index: u64, context: Value) -> Self {
        Self { index, context }
    }
}

/// Params of `callback/record`: the context interceptor `index` was handed
/// where the host answered it itself. The same members as
/// [`InterceptParams`], so a host can write both from one borrowed context.
pub type RecordParams = InterceptParams;

/// Result of `callback/intercept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum InterceptResult {
    /// The interceptor returned `response`.
    Response {
        /// What it returned.
        response: Value,
        /// Its copy of the context, when it changed it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        context: Option<Value>,
    },
    /// The interceptor raised.
    Raised {
        /// Diagnostic text.
        message: String,
        /// Its copy of the context, when it changed it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        context: Option<Value>,
    },
}

impl InterceptResult {
    /// Read a `callback/intercept` result, moving its `response` and
    /// `context` out of `value`: the derived decode of this internally
    /// tagged enum buffers every member and rebuilds it, and a context-sized
    /// fill is megabytes. Whatever is not a well-formed result goes to that
    /// decode, so for any value parsed from JSON the outcome and its error
    /// are the derived decode's.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        let Value::Object(mut members) = value else {
            return serde_json::from_value(value);
        };
        let only_known = members
            .keys()
            .all(|k| matches!(k.as_str(), "outcome" | "response" | "message" | "context"));
        let outcome = members.get("outcome").and_then(Value::as_str);
        match outcome {
            Some("response")
                if only_known
                    && !members.contains_key("message")
                    && members.contains_key("response") =>
            {
                if let Some(response) = members.remove("response") {
                    let context = members.remove("context");
                    return Ok(InterceptResult::Response { response, context });
                }
            }
            Some("raised")
                if only_known
                    && !members.contains_key("response")
                    && members.get("message").is_some_and(Value::is_string) =>
            {
                if let Some(Value::String(message)) = members.remove("message") {
                    let context = members.remove("context");
                    return Ok(InterceptResult::Raised { message, context });
                }
            }
            _ => {}
        }
        serde_json::from_value(Value::Object(members))
    }

    /// The wire form of `reply`, carrying `context` when the interceptor
    /// changed its copy.
    pub fn from_reply(reply: InterceptorReply, context: Option<Value>) -> Self {
        match reply {
            InterceptorReply::Response(response) => InterceptResult::Response { response, context },
            InterceptorReply::Raised { message } => InterceptResult::Raised { message, context },
        }
    }

    /// Split into the reply and the changed context, if any.
    pub fn into_reply(self) -> (InterceptorReply, Option<Value>) {
        match self {
            InterceptResult::Response { response, context } => {
                (InterceptorReply::Response(response), context)
            }
            InterceptResult::Raised { message, context } => {
                (InterceptorReply::Raised { message }, context)
            }
        }
    }
}

/// A member that is present is `Some`, even when it is `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Params of `callback/resolve_approval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ResolveApprovalParams {
    /// The `ApprovalRequest`.
    pub request: Value,
}

impl ResolveApprovalParams {
    /// Params for `request`.
    pub fn new(request: Value) -> Self {
        Self { request }
    }
}

/// Result of `callback/resolve_approval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ResolveApprovalResult {
    /// The resolver returned `resolution`.
    Resolution {
        /// What it returned.
        resolution: Value,
    },
    /// The resolver raised.
    Raised {
        /// Diagnostic text.
        message: String,
    },
}

impl From<ResolverReply> for ResolveApprovalResult {
    fn from(reply: ResolverReply) -> Self {
        match reply {
            ResolverReply::Resolution(resolution) => {
                ResolveApprovalResult::Resolution { resolution }
            }
            ResolverReply::Raised { message } => ResolveApprovalResult::Raised { message },
        }
    }
}

impl From<ResolveApprovalResult> for ResolverReply {
    fn from(result: ResolveApprovalResult) -> Self {
        match result {
            ResolveApprovalResult::Resolution { resolution } => {
                ResolverReply::Resolution(resolution)
            }
            ResolveApprovalResult::Raised { message } => ResolverReply::Raised { message },
        }
    }
}

/// Params of `callback/redact`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RedactParams {
    /// The context to redact.
    pub context: Value,
}

impl RedactParams {
    /// Params for `context`.
    pub fn new(context: Value) -> Self {
        Self { context }
    }
}

/// Result of `callback/redact`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum RedactResult {
    /// The context the approver may see.
    Redacted {
        /// The redacted context.
        context: Value,
    },
    /// The redactor raised.
    Raised {
        /// Diagnostic text.
        message: String,
    },
}

impl From<RedactorReply> for RedactResult {
    fn from(reply: RedactorReply) -> Self {
        match reply {
            RedactorReply::Redacted(context) => RedactResult::Redacted { context },
            RedactorReply::Raised { message } => RedactResult::Raised { message },
        }
    }
}

impl From<RedactResult> for RedactorReply {
    fn from(result: RedactResult) -> Self {
        match result {
            RedactResult::Redacted { context } => RedactorReply::Redacted(context),
            RedactResult::Raised { message } => RedactorReply::Raised { message },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Schemas;
    use serde_json::json;

    /// Reading a `callback/intercept` result in place gives what the
    /// derived decode gives, value or error text, for every shape: the
    /// result's members moved, never a different reading.
    #[test]
    fn intercept_results_read_in_place_as_the_derived_decode_reads_them() {
        let cases = [
            json!({"outcome": "response", "response": {"decision": "allow"}}),
            json!({"outcome": "response", "response": null}),
            json!({"outcome": "response", "response": {"decision": "deny"}, "context": {"n": 1}}),
            json!({"outcome": "response", "response": 1, "context": null}),
            json!({"outcome": "raised", "message": "boom"}),
            json!({"outcome": "raised", "message": "boom", "context": null}),
            json!({"outcome": "raised", "message": "boom", "context": {"n": 2}}),
            json!({"outcome": "response"}),
            json!({"outcome": "response", "response": 1, "message": "both"}),
            json!({"outcome": "response", "response": 1, "extra": true}),
            json!({"outcome": "raised"}),
            json!({"outcome": "raised", "message": 7}),
            json!({"outcome": "raised", "message": "m", "response": 1}),
            json!({"outcome": "maybe", "response": 1}),
            json!({"outcome": 3, "response": 1}),
            json!({"outcome": 0, "response": 1}),
            json!(["response", 1]),
            json!({"response": 1}),
            json!({}),
            json!([1]),
            json!("response"),
            json!(null),
        ];
        for case in cases {
            let derived = serde_json::from_value::<InterceptResult>(case.clone());
            let in_place = InterceptResult::from_value(case.clone());
            match (derived, in_place) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{case}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{case}"),
                (a, b) => panic!("{case}: derived {a:?}, in place {b:?}"),
            }
        }
        assert_eq!(
            InterceptResult::from_value(
                json!({"outcome": "response", "response": 1, "context": null})
            )
            .expect("a result"),
            InterceptResult::Response {
                response: json!(1),
                context: Some(Value::Null)
            },
            "a context that is present and null is kept"
        );
    }

    /// A well-formed result's `response` and `context` are moved out, not
    /// rebuilt: their maps keep their storage (a context-sized fill is
    /// megabytes).
    #[test]
    fn intercept_results_move_their_members_out() {
        let address = |v: &Value| v.get("a").map(|a| a as *const Value);
        let response = json!({"a": 1});
        let context = json!({"a": 2});
        let r = address(&response);
        let read = |outcome: Value| {
            let mut members = serde_json::Map::new();
            members.insert("outcome".into(), outcome);
            members.insert("context".into(), context.clone());
            members
        };
        let mut members = read(json!("response"));
        let context_at = address(&members["context"]);
        members.insert("response".into(), response);
        let Ok(InterceptResult::Response { response, context }) =
            InterceptResult::from_value(Value::Object(members))
        else {
            panic!("a response")
        };
        assert_eq!(address(&response), r, "the response was rebuilt");
        assert_eq!(address(context.as_ref().expect("a context")), context_at);
        let mut members = read(json!("raised"));
        let context_at = address(&members["context"]);
        members.insert("message".into(), json!("boom"));
        let Ok(InterceptResult::Raised { context, .. }) =
            InterceptResult::from_value(Value::Object(members))
        else {
            panic!("a raise")
        };
        assert_eq!(
            address(context.as_ref().expect("a context")),
            context_at,
            "the context was rebuilt"
        );
    }

    #[test]
    fn run_params_carry_known_answers_only_where_something_is_known() {
        assert_eq!(
            serde_json::to_value(RunParams::with_known(vec![None, None])).expect("JSON"),
            json!({}),
            "nothing known: the base's empty params"
        );
        let mut known = KnownAnswers::default();
        known.at.insert(
            "input".into(),
            Some(InterceptorReply::Raised {
                message: "scripted".into(),
            }),
        );
        known.at.insert("pre_tool_call".into(), None);
        known.elsewhere = Some(InterceptorReply::Response(json!({"decision": "allow"})));
        let params = RunParams::with_known(vec![None, Some(known.clone())]);
        let wire = serde_json::to_value(&params).expect("JSON");
        assert_eq!(
            wire,
            json!({"known_answers": [null, {
                "at": {"input": {"outcome": "raised", "message": "scripted"}, "pre_tool_call": null},
                "elsewhere": {"outcome": "response", "response": {"decision": "allow"}}
            }]})
        );
        let schemas = Schemas::get();
        schemas
            .check_params(super::VECTOR_RUN, &wire)
            .expect("the schema takes them");
        let back: RunParams = serde_json::from_value(wire).expect("read back");
        assert_eq!(back.into_known(), vec![None, Some(known)]);
        // A known answer never changes the context.
        let with_context = json!({"known_answers": [{"elsewhere":
            {"outcome": "response", "response": {}, "context": {}}}]});
        assert!(schemas
            .check_params(super::VECTOR_RUN, &with_context)
            .is_err());
        assert!(schemas
            .check_params(super::VECTOR_RUN, &json!({"other": 1}))
            .is_err());
    }

    #[test]
    fn a_recorded_interceptor_says_so_on_the_wire_and_its_contexts_come_back_as_notifications() {
        let known = KnownAnswers {
            elsewhere: Some(InterceptorReply::Response(json!({"decision": "allow"}))),
            record: true,
            ..KnownAnswers::default()
        };
        let wire =
            serde_json::to_value(RunParams::with_known(vec![Some(known.clone())])).expect("JSON");
        assert_eq!(
            wire,
            json!({"known_answers": [{
                "at": {},
                "elsewhere": {"outcome": "response", "response": {"decision": "allow"}},
                "record": true
            }]})
        );
        let schemas = Schemas::get();
        schemas
            .check_params(super::VECTOR_RUN, &wire)
            .expect("the schema takes record");
        let back: RunParams = serde_json::from_value(wire).expect("read back");
        assert_eq!(back.into_known(), vec![Some(known)]);
        assert!(schemas
            .check_params(
                super::VECTOR_RUN,
                &json!({"known_answers": [{"record": "yes"}]})
            )
            .is_err());

        let params =
            serde_json::to_value(RecordParams::new(0, json!({"interception_point": "input"})))
                .expect("JSON");
        schemas
            .check_notification(super::CALLBACK_RECORD, &params)
            .expect("the schema takes the params");
        for bad in [
            json!({"index": 0}),
            json!({"index": -1, "context": {}}),
            json!({"index": 0, "context": {}, "reply": {}}),
        ] {
            assert!(
                schemas
                    .check_notification(super::CALLBACK_RECORD, &bad)
                    .is_err(),
                "{bad}"
            );
        }
        assert!(schemas
            .check_notification("callback/other", &params)
            .is_err());
    }
}
