//! The message-level edge: [`FreedomBackend`] stands between a binding and
//! an unchanged [`Backend`], and takes the other reading at every freedom
//! that decides what a message is answered with (error codes, `data` and
//! wording, decisions the declared policies do not fix, requests whose
//! handling the text leaves open) and how an HTTP reply is framed.
//!
//! It rewrites a request only where a freedom is about that request (then
//! the backend handles the rewritten value), and otherwise hands the
//! backend the frame's own bytes, so the backend's duplicate-member check
//! still sees them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use ctk_ahp_wire::version::{AhpLine, WIRE_VERSION};
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};

use super::{Freedom, Freedoms};
use crate::backend::{Backend, Disposition, Handled, Respond};
use crate::http::{Finish, ReplyBody};
use crate::rpc::ErrorCode;

/// The event types AHP 0.1 defines (spec 10).
const EVENT_TYPES: [&str; 5] = [
    "tool.before",
    "tool.after",
    "tool.error",
    "session.start",
    "session.end",
];

/// The code of the deny the other decision readings add.
const FREEDOM_DENY_CODE: &str = "dev.agent-hooks-ctk.freedom.decision";

/// How long every reply waits under `backend-answer-latency`: well inside
/// any deadline the text lets a harness set (at least 100 ms is too short
/// for it, which is the harness's affair), yet long enough to be seen.
pub const ANSWER_LATENCY: Duration = Duration::from_millis(400);

/// A [`Backend`] with the message-level freedoms taken.
#[derive(Debug)]
pub struct FreedomBackend {
    backend: Backend,
    /// The same policy on the released line, for a `"0.1"` request that a
    /// draft backend answers under `released-version-at-draft-backend`.
    released: Backend,
    freedoms: Freedoms,
    /// Whether frames come from a stdio pipe (a line that is not JSON can
    /// only be ignored there: an HTTP request always gets an answer).
    stdio: bool,
    /// How many requests no declared policy covers were decided, for
    /// `decision-state`.
    uncovered: AtomicUsize,
    /// The disposition of the last frame, for the per_event exit status.
    last: Mutex<Option<Disposition>>,
}

impl FreedomBackend {
    /// `backend` taking `freedoms`; `stdio` says which binding it serves.
    pub fn new(backend: Backend, freedoms: Freedoms, stdio: bool) -> Self {
        let released = Backend::new(backend.policy().clone());
        Self {
            backend,
            released,
            freedoms,
            stdio,
            uncovered: AtomicUsize::new(0),
            last: Mutex::new(None),
        }
    }

    /// The freedoms taken.
    pub fn freedoms(&self) -> &Freedoms {
        &self.freedoms
    }

    /// What the last frame was, once one was handled.
    pub fn last_disposition(&self) -> Option<Disposition> {
        self.last.lock().map(|l| l.clone()).unwrap_or(None)
    }

    fn has(&self, f: Freedom) -> bool {
        self.freedoms.has(f)
    }

    /// The request as the backend should see it, when a freedom is about
    /// it; `None` leaves the frame as it came.
    fn rewrite_request(&self, request: &Value) -> Option<(Value, bool)> {
        let obj = request.as_object()?;
        if obj.get("method").and_then(Value::as_str) != Some("hooks/intercept") {
            return None;
        }
        let mut v = request.clone();
        let mut changed = false;
        let mut released = false;
        let draft = self.backend.line() == AhpLine::Draft;
        let version = obj
            .get("params")
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        if draft
            && version == Some(WIRE_VERSION)
            && self.has(Freedom::ReleasedVersionAtDraftBackend)
        {
            released = true;
            changed = true;
        }
        if self.has(Freedom::IdMismatchHandling) {
            let event_id = obj
                .get("params")
                .and_then(|p| p.get("event"))
                .and_then(|e| e.get("id"))
                .and_then(Value::as_str);
            if let Some(event_id) = event_id.filter(|e| !e.is_empty()) {
                if obj.get("id").and_then(Value::as_str) != Some(event_id) {
                    // Decided as if the ids agreed; the reply still
                    // echoes the request's own id (see `respond_to`).
                    v["id"] = Value::from(event_id);
                    changed = true;
                }
            }
        }
        if draft && !released && self.has(Freedom::ClosedObjectMembers) {
            if let Some(event) = v
                .get_mut("params")
                .and_then(|p| p.get_mut("event"))
                .and_then(Value::as_object_mut)
            {
                for (name, members) in &ctk_ahp_wire::draft::tables().closed {
                    if let Some(Value::Object(o)) = event.get_mut(name) {
                        let before = o.len();
                        o.retain(|k, _| ctk_ahp_wire::draft::holds(members, k));
                        changed |= o.len() != before;
                    }
                }
            }
        }
        if draft && !released && self.has(Freedom::ExtensionEffectsToolBefore) {
            if let Some(Value::Array(effects)) = v
                .get_mut("params")
                .and_then(|p| p.get_mut("capabilities"))
                .and_then(|c| c.get_mut("effects"))
            {
                let before = effects.len();
                effects.retain(|e| !e.as_str().is_some_and(is_extension_effect));
                changed |= effects.len() != before;
            }
        }
        changed.then_some((v, released))
    }

    /// The error `extension-effect-advertised` answers, when it applies.
    fn refuse_extension_effect(&self, request: &Value) -> Option<Handled> {
        if !self.has(Freedom::ExtensionEffectAdvertised)
            || self.backend.line() != AhpLine::V0_1
            || request.get("method").and_then(Value::as_str) != Some("hooks/intercept")
        {
            return None;
        }
        let effects = request
            .pointer("/params/capabilities/effects")
            .and_then(Value::as_array)?;
        if !effects
            .iter()
            .any(|e| e.as_str().is_some_and(is_extension_effect))
        {
            return None;
        }
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let code = ErrorCode::InvalidParams;
        Some(Handled {
            reply: Some(crate::rpc::error_response(
                id,
                code,
                Some(json!({
                    "pointer": "/params/capabilities/effects",
                    "problem": "this backend enforces no extension effect",
                })),
            )),
            disposition: Disposition::Error(code.code()),
            method: Some("hooks/intercept".into()),
        })
    }

    /// Rewrite the reply of a handled request.
    fn rewrite_reply(&self, request: Option<&Value>, handled: &mut Handled) {
        let Some(reply) = handled.reply.as_mut().and_then(Value::as_object_mut) else {
            return;
        };
        if let Some(Value::Object(result)) = reply.get_mut("result") {
            let Some(Value::Array(effects)) = result.get_mut("effects") else {
                return;
            };
            if effects.is_empty() && !request.is_some_and(covered_by_no_effect_policy) {
                let deny = if self.has(Freedom::DecisionState) {
                    // No effect and one deny by turns.
                    self.uncovered.fetch_add(1, Ordering::Relaxed) % 2 == 1
                } else {
                    self.has(Freedom::DecisionPolicy)
                };
                if deny {
                    effects.push(json!({
                        "type": "deny",
                        "reason": "The other reading denies what no declared policy covers.",
                        "code": FREEDOM_DENY_CODE,
                    }));
                    handled.disposition = Disposition::Denied(None);
                }
            }
            for effect in effects.iter_mut().filter_map(Value::as_object_mut) {
                if effect.get("type").and_then(Value::as_str) != Some("deny") {
                    continue;
                }
                if self.has(Freedom::DenyCode) {
                    effect.remove("code");
                }
                if self.has(Freedom::DenyReasonWording) {
                    effect.insert(
                        "reason".into(),
                        Value::from("Denied under the backend's policy (reworded)."),
                    );
                }
            }
            if self.has(Freedom::SeveralEffects) {
                if let Some(first) = effects.first().cloned() {
                    effects.push(first);
                }
            }
            return;
        }
        let Some(Value::Object(error)) = reply.get_mut("error") else {
            return;
        };
        let mut code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        if code == ErrorCode::MethodNotFound.code() && self.has(Freedom::UnknownMethodErrorCode) {
            code = ErrorCode::InvalidRequest.code();
        }
        if self.has(Freedom::UnsupportedRequestErrorCode) {
            let pointer = error
                .get("data")
                .and_then(|d| d.get("pointer"))
                .and_then(Value::as_str);
            // An event type 0.1 defines, sent to the wrong method, keeps
            // -32002: section 16's table gives it that meaning. Only a type
            // 0.1 does not define at all is left open.
            let event_type = request
                .and_then(|r| r.pointer("/params/event/type"))
                .and_then(Value::as_str);
            let undefined_type = !event_type.is_some_and(|t| EVENT_TYPES.contains(&t));
            let unsupported = (code == ErrorCode::UnsupportedEvent.code() && undefined_type)
                || (code == ErrorCode::InvalidParams.code()
                    && matches!(
                        pointer,
                        Some("/params/event/tool/kind" | "/params/protocolVersion")
                    ));
            if unsupported {
                code = ErrorCode::InvalidRequest.code();
                error.remove("data");
            } else if code == ErrorCode::UnsupportedProtocolVersion.code() {
                error.remove("data");
            }
        }
        if self.has(Freedom::ErrorData) {
            error.remove("data");
        }
        error.insert("code".into(), Value::from(code));
        if self.has(Freedom::ErrorMessageWording) {
            error.insert(
                "message".into(),
                Value::from(format!("ctk freedom: the request was refused ({code})")),
            );
        } else if let Some(c) = ErrorCode::from_code(code) {
            error.insert("message".into(), Value::from(c.message()));
        }
        handled.disposition = Disposition::Error(code);
    }

    /// The [`Finish`] hook of the HTTP binding under these freedoms.
    pub fn http_finish(self: &Arc<Self>) -> Finish {
        let this = Arc::clone(self);
        Arc::new(move |handled: &Handled, response: Response<ReplyBody>| {
            this.finish_http(handled, response)
        })
    }

    fn finish_http(
        &self,
        handled: &Handled,
        mut response: Response<ReplyBody>,
    ) -> Response<ReplyBody> {
        let f = &self.freedoms;
        match &handled.reply {
            None => {
                if f.has(Freedom::HttpNotificationStatus)
                    && response.status() == StatusCode::ACCEPTED
                {
                    *response.status_mut() = StatusCode::OK;
                }
            }
            Some(reply) => {
                if f.has(Freedom::HttpErrorStatus) && reply.get("error").is_some() {
                    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
                }
                let line = serde_json::to_string(reply).expect("a JSON value serializes");
                let mut body = f.respell(&line);
                if f.has(Freedom::HttpBodyLayout) {
                    if let Ok(v) = serde_json::from_str::<Value>(&body) {
                        body = serde_json::to_string_pretty(&v).expect("a JSON value serializes");
                        body.push('\n');
                    }
                }
                let bytes = Bytes::from(body);
                *response.body_mut() = if f.has(Freedom::HttpMessageFraming) {
                    response.headers_mut().remove(CONTENT_LENGTH);
                    super::http::chunked(bytes)
                } else {
                    Full::new(bytes).boxed()
                };
                if f.has(Freedom::HttpContentTypeParameters) {
                    response.headers_mut().insert(
                        CONTENT_TYPE,
                        HeaderValue::from_static("application/json; charset=utf-8"),
                    );
                }
            }
        }
        if f.has(Freedom::HttpMessageFraming) {
            let headers = response.headers_mut();
            headers.insert(CONNECTION, HeaderValue::from_static("close"));
            headers.insert(
                HeaderName::from_static("x-ctk-freedom"),
                HeaderValue::from_static("http-message-framing"),
            );
        }
        response
    }
}

impl Respond for FreedomBackend {
    fn respond_to(&self, frame: &[u8]) -> Handled {
        let request: Option<Value> = serde_json::from_slice(frame).ok();
        let mut handled = match &request {
            None if self.stdio && self.has(Freedom::NonJsonLine) => Handled {
                reply: None,
                disposition: Disposition::Ignored,
                method: None,
            },
            None => self.backend.handle_bytes(frame),
            Some(req) => match self.refuse_extension_effect(req) {
                Some(h) => h,
                None => match self.rewrite_request(req) {
                    None => self.backend.handle_bytes(frame),
                    Some((rewritten, released)) => {
                        let backend = if released {
                            &self.released
                        } else {
                            &self.backend
                        };
                        let mut h = backend.handle_value(&rewritten);
                        // The reply echoes the id the request carried.
                        if let (Some(reply), Some(id)) = (h.reply.as_mut(), req.get("id")) {
                            reply["id"] = id.clone();
                        }
                        h
                    }
                },
            },
        };
        self.rewrite_reply(request.as_ref(), &mut handled);
        if let Ok(mut last) = self.last.lock() {
            *last = Some(handled.disposition.clone());
        }
        handled
    }

    fn delay(&self, handled: &Handled) -> Duration {
        if handled.reply.is_some() && self.has(Freedom::BackendAnswerLatency) {
            ANSWER_LATENCY
        } else {
            Duration::ZERO
        }
    }
}

/// Whether a `tool.before` request is one the suite's
/// `ctk.no-effect-file-read` policy covers (a `file_read` of `README.md`):
/// the decision readings must leave that one without effect.
fn covered_by_no_effect_policy(request: &Value) -> bool {
    let tool = request.pointer("/params/event/tool");
    tool.and_then(|t| t.get("kind")).and_then(Value::as_str) == Some("file_read")
        && tool
            .and_then(|t| t.pointer("/input/path"))
            .and_then(Value::as_str)
            == Some("README.md")
}

/// Whether an advertised effect name is an extension effect (reverse-DNS,
/// so it holds a dot; the core effects are single words).
fn is_extension_effect(name: &str) -> bool {
    name.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Policy;

    fn edge(ids: &str, line: AhpLine) -> FreedomBackend {
        FreedomBackend::new(
            Backend::with_line(Policy::builtin(), line),
            Freedoms::parse(ids, line).unwrap(),
            true,
        )
    }

    fn intercept(id: &str, version: &str, event_type: &str, kind: &str, path: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": id, "method": "hooks/intercept",
            "params": {
                "protocolVersion": version,
                "event": {
                    "id": id, "source": "urn:x", "type": event_type, "time": "2026-01-01T00:00:00Z",
                    "session": {"id": "s"},
                    "tool": {"callId": "c", "name": "Read", "kind": kind, "input": {"path": path}}
                },
                "capabilities": {"effects": ["deny"]}
            }
        }))
        .unwrap()
    }

    fn effects(h: &Handled) -> usize {
        h.reply.as_ref().unwrap()["result"]["effects"]
            .as_array()
            .unwrap()
            .len()
    }

    fn code(h: &Handled) -> i64 {
        h.reply.as_ref().unwrap()["error"]["code"].as_i64().unwrap()
    }

    #[test]
    fn decisions_change_only_where_no_declared_policy_covers_the_request() {
        let v = AhpLine::V0_1;
        let policy = edge("decision-policy", v);
        assert_eq!(
            effects(&policy.respond_to(&intercept(
                "e1",
                "0.1",
                "tool.before",
                "file_read",
                "a.txt"
            ))),
            1
        );
        assert_eq!(
            effects(&policy.respond_to(&intercept(
                "e2",
                "0.1",
                "tool.before",
                "file_read",
                "README.md"
            ))),
            0
        );
        let state = edge("decision-state", v);
        let by_turns: Vec<usize> = (0..4)
            .map(|i| {
                effects(&state.respond_to(&intercept(
                    &format!("e{i}"),
                    "0.1",
                    "tool.before",
                    "shell",
                    "x",
                )))
            })
            .collect();
        assert_eq!(by_turns, [0, 1, 0, 1]);
        let plain = edge("none", v);
        assert_eq!(
            effects(&plain.respond_to(&intercept(
                "e9",
                "0.1",
                "tool.before",
                "file_read",
                "a.txt"
            ))),
            0
        );
    }

    #[test]
    fn only_an_undefined_event_type_loses_minus_32002() {
        let e = edge("unsupported-request-error-code", AhpLine::V0_1);
        let after = e.respond_to(&intercept("e1", "0.1", "tool.after", "shell", "x"));
        assert_eq!(code(&after), -32002);
        let unknown = e.respond_to(&intercept("e2", "0.1", "tool.sideways", "shell", "x"));
        assert_eq!(code(&unknown), -32600);
        assert!(unknown.reply.as_ref().unwrap()["error"]
            .get("data")
            .is_none());
        assert_eq!(unknown.disposition, Disposition::Error(-32600));
        let kind = e.respond_to(&intercept("e3", "0.1", "tool.before", "browser", "x"));
        assert_eq!(code(&kind), -32600);
    }

    #[test]
    fn a_mismatched_id_is_decided_and_echoed() {
        let e = edge("id-mismatch-handling", AhpLine::V0_1);
        let mut frame: Value =
            serde_json::from_slice(&intercept("e1", "0.1", "tool.before", "shell", "x")).unwrap();
        frame["id"] = json!(42);
        let h = e.respond_to(&serde_json::to_vec(&frame).unwrap());
        let reply = h.reply.unwrap();
        assert_eq!(reply["id"], 42);
        assert!(reply["result"]["effects"].is_array(), "{reply}");
        let plain = edge("none", AhpLine::V0_1).respond_to(&serde_json::to_vec(&frame).unwrap());
        assert_eq!(code(&plain), -32602);
    }

    #[test]
    fn the_draft_freedoms_accept_what_the_draft_reference_refuses() {
        let d = AhpLine::Draft;
        let mut frame = json!({
            "jsonrpc": "2.0", "id": "e1", "method": "hooks/intercept",
            "params": {
                "protocolVersion": "draft",
                "event": {
                    "id": "e1", "source": "urn:x", "type": "tool.before", "time": "2026-01-01T00:00:00Z",
                    "path": "native", "harness": {"name": "h", "version": "1"}, "call": {"id": "c"},
                    "tool": {"name": "Bash", "kind": "shell", "origin": "native",
                             "input": {"command": "git push --force"}, "x-extra": 1}
                },
                "capabilities": {"effects": ["deny"]}
            }
        });
        let bytes = serde_json::to_vec(&frame).unwrap();
        assert_eq!(code(&edge("none", d).respond_to(&bytes)), -32602);
        let closed = edge("closed-object-members,several-effects", d).respond_to(&bytes);
        assert_eq!(effects(&closed), 2, "{:?}", closed.reply);
        frame["params"]["event"]["tool"]
            .as_object_mut()
            .unwrap()
            .remove("x-extra");
        frame["params"]["capabilities"]["effects"] = json!(["dev.example.noop", "deny"]);
        let bytes = serde_json::to_vec(&frame).unwrap();
        assert_eq!(code(&edge("none", d).respond_to(&bytes)), -32602);
        assert_eq!(
            effects(&edge("extension-effects-tool-before", d).respond_to(&bytes)),
            1
        );
    }

    #[test]
    fn http_finishing_sets_status_media_type_and_body() {
        let e = Arc::new(edge(
            "http-error-status,http-content-type-parameters,http-body-layout",
            AhpLine::V0_1,
        ));
        let handled = e.respond_to(br#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#);
        let finished = e.finish_http(&handled, Response::new(Full::new(Bytes::new()).boxed()));
        assert_eq!(finished.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            finished.headers()[CONTENT_TYPE],
            "application/json; charset=utf-8"
        );
        let note = Handled {
            reply: None,
            disposition: Disposition::Notification,
            method: None,
        };
        let mut accepted = Response::new(Full::new(Bytes::new()).boxed());
        *accepted.status_mut() = StatusCode::ACCEPTED;
        assert_eq!(
            e.finish_http(&note, accepted).status(),
            StatusCode::ACCEPTED
        );
    }
}
