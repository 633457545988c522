//! Harness-role assertions: a run record and a vector in, failures out.
//!
//! Besides what each vector states, every run is held to the MUSTs that
//! apply to whatever a harness sends (they cost nothing to check and a
//! harness must never break them): every intercept request is a valid 0.1
//! `hooks/intercept` whose id equals `event.id` (8.1) and that advertises
//! `deny` (11), leaves `native` out unless asked (9.4), names the tool it
//! was given; notifications carry no id (8.4); HTTP requests are POSTs of
//! one JSON object with media type `application/json` (18.1); the bearer
//! canary appears in no payload and no reported reason (18.3); interceptors
//! of one call never overlap (13.1, D-17); retries are identical, within
//! 2 × the deadline, and never follow a decision (15, D-01, D-18); a denied
//! call produces no `tool.error` (10.3, D-30); distinct calls get distinct
//! event ids (9.1, D-15).

use std::collections::{BTreeMap, BTreeSet};

use ctk_ahp_wire::schema::SchemaKind;
use ctk_ahp_wire::validate::{check_as, check_message, check_reply};
use ctk_core::number::json_eq;
use serde_json::Value;

use super::adapter::{ToolCallResult, ToolOutcome};
use super::engine::HarnessConfig;
use super::record::{CallRecord, HarnessRecord, Received};
use super::script::Action;
use super::vector::{Denial, HarnessVector, LoadExpect, RequestAssert};
use crate::assert::AssertionFailure;

fn fail(key: impl Into<String>, message: impl Into<String>) -> AssertionFailure {
    AssertionFailure::message(key, message)
}

/// A failure comparing what the vector expected with what the harness did.
fn differs(
    key: impl Into<String>,
    message: impl Into<String>,
    expected: &impl serde::Serialize,
    actual: &impl serde::Serialize,
) -> AssertionFailure {
    // Values the kit's own types hold always serialize; null only guards.
    let expected = serde_json::to_value(expected).unwrap_or(Value::Null);
    let actual = serde_json::to_value(actual).unwrap_or(Value::Null);
    AssertionFailure::mismatch(key, message, &expected, Some(&actual))
}

/// What the registration template says of one backend.
#[derive(Debug, Default, Clone)]
struct Meta {
    timeout_ms: Option<u64>,
    native_intercept: bool,
    native_observe: bool,
}

fn metas(v: &HarnessVector) -> BTreeMap<String, Meta> {
    let mut out = BTreeMap::new();
    for h in v
        .registration
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = h
            .get("transport")
            .and_then(Value::as_str)
            .and_then(|s| s.strip_prefix("{{backend:"))
            .and_then(|s| s.strip_suffix("}}"))
        else {
            continue;
        };
        let m: &mut Meta = out.entry(name.to_owned()).or_default();
        for s in h
            .get("subscriptions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let native = s.get("includeNative").and_then(Value::as_bool) == Some(true);
            match s.get("mode").and_then(Value::as_str) {
                Some("intercept") => {
                    m.timeout_ms = s.get("timeoutMs").and_then(Value::as_u64).or(m.timeout_ms);
                    m.native_intercept |= native;
                }
                Some("observe") => m.native_observe |= native,
                _ => {}
            }
        }
    }
    out
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() || ctk_core::number::integral(v).is_some() => {
            "integer"
        }
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expand_canary(v: &Value, canary: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{{canary}}", canary)),
        Value::Array(a) => Value::Array(a.iter().map(|x| expand_canary(x, canary)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), expand_canary(x, canary)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn media_type(ct: Option<&str>) -> Option<String> {
    ct.map(|c| {
        c.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    })
}

/// Whether `backend`'s scripted answer to `request` is a valid decision, so
/// that a retry after it breaks "A harness MUST NOT retry an explicit
/// denial or a successful empty-effect response" (spec 15). Only a reply
/// the text makes valid counts: a deny whose reason is only whitespace
/// (D-05's open reading) or whose code or extensions break the schema is a
/// malformed effect, a failure the harness may retry.
fn plain_decision(v: &HarnessVector, backend: &str, request: Option<&Value>) -> bool {
    let Some(b) = v.backends.get(backend) else {
        return false;
    };
    // The plan that answered: the one named for the request's tool, or
    // the positional ones.
    let named = b.script.tool_plan(request).map(|p| vec![p]);
    match named.as_deref().unwrap_or(b.script.intercept.as_slice()) {
        [] => true,
        [plan] => match plan.as_slice() {
            [Action::Reply {
                result,
                id: None,
                null_id: false,
                extra,
            }] => {
                extra.is_empty()
                    && result.as_ref().is_none_or(|r| {
                        let shaped = r.get("protocolVersion") == Some(&Value::from(v.wire()))
                            && r.get("effects").and_then(Value::as_array).is_some_and(|e| {
                                e.is_empty()
                                    || (e.len() == 1
                                        && e[0].get("type") == Some(&Value::from("deny"))
                                        && e[0]
                                            .get("reason")
                                            .and_then(Value::as_str)
                                            .is_some_and(|s| !s.trim().is_empty()))
                            });
                        // The line's schemas and reply rules: 0.1's, or the
                        // draft's (which closes a deny effect).
                        let valid = request.is_none_or(|req| {
                            let reply = serde_json::json!({
                                "jsonrpc": "2.0",
                                "id": req.get("id").cloned().unwrap_or(Value::Null),
                                "result": r,
                            });
                            if v.is_draft() {
                                crate::draft::decision(&reply, Some(req)).is_ok()
                            } else {
                                check_message(&reply).is_empty()
                                    && check_reply(req, &reply).is_empty()
                            }
                        });
                        shaped && valid
                    })
            }
            _ => false,
        },
        _ => false,
    }
}

/// Judge `rec` against `v`: what the vector expects of the load, of each
/// call and of what the backends received, then the rules every run is
/// held to (`global`).
pub fn check(v: &HarnessVector, rec: &HarnessRecord, cfg: &HarnessConfig) -> Vec<AssertionFailure> {
    let mut f = Vec::new();
    let meta = metas(v);
    check_load(v, rec, &mut f);
    for c in &rec.calls {
        check_call(v, rec, c, cfg, &mut f);
    }
    check_observed(v, rec, &mut f);
    for (i, a) in v.expect.request_assert.iter().enumerate() {
        request_assert(i, a, rec, &cfg.canary, &mut f);
    }
    check_processes(v, rec, cfg, &mut f);
    global(v, rec, cfg, &meta, &mut f);
    f
}

/// The load (taken or refused, as expected) and the backends that must
/// receive nothing.
fn check_load(v: &HarnessVector, rec: &HarnessRecord, f: &mut Vec<AssertionFailure>) {
    // Load.
    match (v.expect.load, rec.load.loaded) {
        (LoadExpect::Loaded, false) => f.push(differs(
            "load",
            format!(
                "the harness refused a valid registration (ahp-6.2-a): {:?}",
                rec.load.refused
            ),
            &"loaded",
            &"refused",
        )),
        (LoadExpect::Refused, true) => f.push(differs(
            "load",
            "the harness loaded a registration it must refuse at load time (ahp-6.1-f, D-21)",
            &"refused",
            &"loaded",
        )),
        _ => {}
    }
    for b in &v.expect.silent {
        let got: Vec<&Received> = rec.received.iter().filter(|r| &r.backend == b).collect();
        if let Some(first) = got.first() {
            f.push(fail(
                format!("silent.{b}"),
                format!(
                    "backend {b} must receive nothing, but received {} message(s), first: {}",
                    got.len(),
                    clip(&first.text)
                ),
            ));
        }
    }
}

/// One tool call as the adapter reported it: its outcome, the backends the
/// chain reached, the reason, and when the answer came.
fn check_call(
    v: &HarnessVector,
    rec: &HarnessRecord,
    c: &CallRecord,
    cfg: &HarnessConfig,
    f: &mut Vec<AssertionFailure>,
) {
    let t = v.triggers[c.trigger].part(c.part);
    let key = match c.part {
        Some(j) => format!("triggers[{}].parallel[{j}]", c.trigger),
        None => format!("triggers[{}]", c.trigger),
    };
    if t.tool_call.is_none() {
        return;
    }
    let e = &t.expect;
    let Some(result) = &c.result else {
        // The message stays the same from run to run (interop matrices
        // publish it); the adapter's own error, with its measured bound
        // and stderr, is the actual value.
        let mut failure = fail(
            &key,
            format!(
                "the harness gave no outcome for the tool call ({}); a harness must reach its \
                 failure-policy outcome within 10 × timeoutMs + 5000 ms (D-01)",
                c.error_summary
                    .as_deref()
                    .or(c.error.as_deref())
                    .unwrap_or("no answer")
            ),
        );
        failure.actual = c.error.clone().map(Value::String);
        f.push(failure);
        return;
    };
    let r: ToolCallResult = match serde_json::from_value(result.clone()) {
        Ok(r) => r,
        Err(err) => {
            f.push(fail(
                &key,
                format!("the adapter's tool_call result breaks the contract: {err}"),
            ));
            return;
        }
    };
    if let Err(err) = r.validate() {
        f.push(fail(
            &key,
            format!("the adapter's tool_call result breaks the contract: {err}"),
        ));
    }
    if !e.outcome.is_empty() && !e.outcome.contains(&r.outcome) {
        let why = match r.outcome {
            ToolOutcome::Executed => " (the tool ran)",
            ToolOutcome::Denied => " (the tool did not run)",
            ToolOutcome::Prompted => "",
        };
        f.push(differs(
            format!("{key}.outcome"),
            format!(
                "outcome {:?}{why}, expected one of {:?}",
                r.outcome, e.outcome
            ),
            &e.outcome,
            &r.outcome,
        ));
    } else if r.outcome == ToolOutcome::Denied {
        match (e.denial, r.synthetic) {
            (Some(Denial::Explicit), Some(true)) => f.push(differs(
                format!("{key}.denial"),
                "the backend's deny was reported as a synthetic (fail-closed) denial (ahp-14.3-c)",
                &Denial::Explicit,
                &Denial::Synthetic,
            )),
            (Some(Denial::Synthetic), Some(false)) => f.push(differs(
                format!("{key}.denial"),
                "a fail-closed failure was reported as a backend's explicit deny (ahp-14.3-c)",
                &Denial::Synthetic,
                &Denial::Explicit,
            )),
            _ => {}
        }
    }
    let reason = r.reason.as_deref().unwrap_or("");
    if reason.contains(&cfg.canary) {
        f.push(fail(
            format!("{key}.reason"),
            "the reported denial reason holds the bearer token (ahp-18.3-a)",
        ));
    }
    for x in &e.reason_excludes {
        let x = x.replace("{{canary}}", &cfg.canary);
        if reason.contains(&x) {
            f.push(fail(
                format!("{key}.reason"),
                format!("the reported reason {reason:?} holds {x:?} (malformed backend content, ahp-14.3-b)"),
            ));
        }
    }
    if let Some(max) = e.max_answer_ms {
        let took = c.t_answered - c.t_sent;
        #[allow(clippy::cast_precision_loss)]
        if took > max as f64 {
            f.push(fail(
                format!("{key}.max_answer_ms"),
                // The measured time stays out of the message, which
                // interop matrices publish and must not vary by run.
                format!("the outcome took longer than the generous bound {max} ms (D-01)"),
            ));
        }
    }
    let mine: Vec<&Received> = rec
        .received
        .iter()
        .filter(|x| x.trigger == Some(c.trigger) && x.part == c.part)
        .collect();
    if let Some(want) = &e.calls {
        let mut got: Vec<String> = Vec::new();
        for x in mine.iter().filter(|x| x.kind == "intercept") {
            if got.last() != Some(&x.backend) {
                got.push(x.backend.clone());
            }
        }
        if &got != want {
            f.push(differs(
                format!("{key}.calls"),
                format!(
                    "hooks/intercept reached backends {got:?} in that order; expected {want:?} \
                     (serial, registration order, stop on deny or fail-closed failure: ahp-13.1-a)"
                ),
                want,
                &got,
            ));
        }
    }
    for b in &e.asked {
        if !mine
            .iter()
            .any(|x| &x.backend == b && x.kind == "intercept")
        {
            f.push(fail(
                format!("{key}.asked"),
                format!(
                    "backend {b} received no hooks/intercept for this call; the chain must go on \
                     to it (fail-open failure before it, or no effect: ahp-13.1-a)"
                ),
            ));
        }
    }
    for b in &e.not_asked {
        if mine
            .iter()
            .any(|x| &x.backend == b && x.kind == "intercept")
        {
            f.push(fail(
                format!("{key}.not_asked"),
                format!(
                    "backend {b} received a hooks/intercept for this call; the chain stops at a \
                     deny or a fail-closed failure before it (ahp-13.1-a)"
                ),
            ));
        }
    }
    for b in &e.answered_before_plan_end {
        let first = mine.iter().find(|x| &x.backend == b && x.kind != "other");
        if let Some(end) = first.and_then(|x| x.plan_end_t) {
            if c.t_answered > end {
                // The measured lateness is the actual value, never the
                // message, which must not vary by run.
                let mut failure = fail(
                    format!("{key}.answered_before_plan_end"),
                    format!(
                        "the harness answered after backend {b} finished its scripted \
                         delay: it waited for a late reply or a slow observer (ahp-14.4-e, ahp-13.2-a)"
                    ),
                );
                failure.actual = Some(serde_json::json!({
                    "answered_ms_after_plan_end": (c.t_answered - end).round()
                }));
                f.push(failure);
            }
        }
    }
}

/// The notifications each observer must have received.
fn check_observed(v: &HarnessVector, rec: &HarnessRecord, f: &mut Vec<AssertionFailure>) {
    for (b, events) in &v.expect.observed {
        for ev in events {
            let seen = rec.received.iter().any(|r| {
                &r.backend == b
                    && r.kind == "observe"
                    && r.event()
                        .and_then(|x| x.get("type"))
                        .and_then(Value::as_str)
                        == Some(ev)
            });
            if !seen {
                f.push(fail(
                    format!("observed.{b}"),
                    format!("observer {b} never received a hooks/observe for {ev}"),
                ));
            }
        }
    }
}

/// What the harness did with the backend processes it started: one frame
/// per per_event process, one process per persistent backend, arguments,
/// working folder and environment as registered.
fn check_processes(
    v: &HarnessVector,
    rec: &HarnessRecord,
    cfg: &HarnessConfig,
    f: &mut Vec<AssertionFailure>,
) {
    for b in &v.expect.per_event_one_frame {
        let procs: Vec<_> = rec.processes.iter().filter(|p| &p.backend == b).collect();
        // An interceptor that was expected to be asked must have been
        // started; an observer only if the harness emitted its events.
        let asked = v
            .triggers
            .iter()
            .flat_map(|t| std::iter::once(t).chain(&t.parallel))
            .any(|t| t.expect.calls.as_ref().is_some_and(|c| c.contains(b)));
        if procs.is_empty() && asked {
            f.push(fail(
                format!("per_event.{b}"),
                format!("backend {b} was never started"),
            ));
        }
        // Processes are named by their start order, not their pid: the
        // message is published in interop matrices and must not change
        // from run to run.
        for (n, p) in procs.iter().enumerate() {
            if p.frames != 1 || p.eof_t.is_none() {
                f.push(fail(
                    format!("per_event.{b}"),
                    format!(
                        "per_event process {} of backend {b} read {} frame(s){}; each gets exactly one \
                         message, then end of file (ahp-17.1-a, 17.3)",
                        n + 1,
                        p.frames,
                        if p.eof_t.is_none() {
                            " and never saw end of file"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
    }
    for b in &v.expect.one_outstanding {
        one_outstanding(v, b, rec, f);
    }
    for b in &v.expect.one_process {
        // Processes that read nothing are left out: a harness may start a
        // backend early (at load) and never use that process.
        let used = rec
            .processes
            .iter()
            .filter(|p| &p.backend == b && p.frames > 0)
            .count();
        if used != 1 {
            f.push(fail(
                format!("one_process.{b}"),
                if used == 0 {
                    format!("persistent backend {b} never read a message")
                } else {
                    format!(
                        "the messages to persistent backend {b} reached {used} processes, though it \
                         answered each one in time and well-formed: the harness ended or restarted it \
                         (17.2: \"A persistent backend remains alive for multiple messages.\"; D-39)"
                    )
                },
            ));
        }
    }
    for b in &v.expect.args_verbatim {
        let want = &v.backends[b].args;
        let procs: Vec<_> = rec.processes.iter().filter(|p| &p.backend == b).collect();
        if procs.is_empty() {
            f.push(fail(
                format!("args.{b}"),
                format!("backend {b} was never started"),
            ));
        }
        for p in procs {
            let got: Vec<String> = p
                .argv
                .iter()
                .skip_while(|a| *a != "--")
                .skip(1)
                .cloned()
                .collect();
            if &got != want {
                f.push(fail(
                    format!("args.{b}"),
                    format!("the arguments arrived as {got:?}, not verbatim {want:?}: a shell is in the way (ahp-17.4-a)"),
                ));
            }
        }
    }
    for b in &v.expect.cwd_honoured {
        let procs: Vec<_> = rec.processes.iter().filter(|p| &p.backend == b).collect();
        if procs.is_empty() {
            f.push(fail(
                format!("cwd.{b}"),
                format!("backend {b} was never started"),
            ));
        }
        for p in procs {
            let dir = p
                .argv
                .iter()
                .skip_while(|a| *a != "--log")
                .nth(1)
                .and_then(|l| {
                    std::path::Path::new(l)
                        .parent()
                        .map(|d| d.join(format!("cwd-{b}")))
                });
            let want = dir.map(|d| d.canonicalize().unwrap_or(d).display().to_string());
            if want.is_some() && p.cwd != want {
                f.push(fail(
                    format!("cwd.{b}"),
                    format!("the backend started in {:?}, not the registration's cwd {:?} (ahp-17.4-a, 19.4)", p.cwd, want),
                ));
            }
        }
    }
    for (b, names) in &v.expect.env_absent {
        for p in rec.processes.iter().filter(|p| &p.backend == b) {
            for n in names {
                let n = if n == "{{env_canary}}" {
                    &cfg.env_canary_name
                } else {
                    n
                };
                if p.env_names.iter().any(|x| x == n) {
                    f.push(fail(
                        format!("env.{b}"),
                        format!("the stdio backend's environment holds {n}, an unrelated credential of the harness (17.4: smallest practical environment)"),
                    ));
                }
            }
        }
    }
    if v.expect.env_canary_absent {
        if let Some(r) = rec
            .received
            .iter()
            .find(|r| r.text.contains(&cfg.env_canary))
        {
            f.push(fail(
                "env_canary",
                format!("the value of {} (a credential in the harness's environment) appears in a message to {} (ahp-17.4-c)", cfg.env_canary_name, r.backend),
            ));
        }
    }
}

/// Advisory D-17: backend `b` never had two `hooks/intercept` requests
/// outstanding at once. A request stops being outstanding when it is
/// answered, or when half its deadline has passed since it arrived (the
/// harness may have started its clock before the request reached the
/// backend, D-01; so only the first half surely still counts).
fn one_outstanding(v: &HarnessVector, b: &str, rec: &HarnessRecord, f: &mut Vec<AssertionFailure>) {
    let timeout = metas(v).get(b).and_then(|m| m.timeout_ms).unwrap_or(5000);
    let reqs: Vec<&Received> = rec
        .received
        .iter()
        .filter(|r| r.backend == b && r.kind == "intercept")
        .collect();
    for (i, a) in reqs.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let deadline = a.t + timeout as f64 / 2.0;
        let busy = a.reply_t.map_or(deadline, |r| r.min(deadline));
        // A retry of the same request is not a second one (D-18).
        if reqs[i + 1..]
            .iter()
            .any(|x| x.t + 2.0 < busy && x.id() != a.id())
        {
            f.push(fail(
                format!("one_outstanding.{b}"),
                // Ids stay out of the message: interop matrices publish
                // it, and a harness's event ids change from run to run.
                format!(
                    "backend {b} received a hooks/intercept while its intercept request {} was still \
                     outstanding: the preferred reading allows one outstanding intercept request per \
                     persistent backend, across events (ahp-17.2-b, D-17)",
                    i + 1
                ),
            ));
            return;
        }
    }
}

/// A tool call's name in messages: its trigger index, and for a call of a
/// parallel trigger its place there.
fn call_label((t, part): (usize, Option<usize>)) -> String {
    match part {
        Some(j) => format!("{t} (parallel call {j})"),
        None => t.to_string(),
    }
}

fn clip(s: &str) -> String {
    let mut t: String = s.chars().take(200).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

fn request_assert(
    i: usize,
    a: &RequestAssert,
    rec: &HarnessRecord,
    canary: &str,
    f: &mut Vec<AssertionFailure>,
) {
    let key = format!("request_assert[{i}]");
    let method_ok = |r: &Received| {
        a.method.as_deref().is_none_or(|m| {
            r.json
                .as_ref()
                .and_then(|j| j.get("method"))
                .and_then(Value::as_str)
                == Some(m)
        })
    };
    let msgs: Vec<&Received> = rec
        .received
        .iter()
        // A blank stdio line is no message (whether a harness may write one
        // is D-24's open reading, the freedom `stdio-blank-lines`): it
        // is never the message an assertion reads.
        .filter(|r| r.backend == a.backend && !r.text.trim().is_empty() && method_ok(r))
        .collect();
    if a.required && msgs.is_empty() {
        f.push(fail(
            &key,
            format!(
                "backend {} received no {} message to check",
                a.backend,
                a.method.as_deref().unwrap_or("JSON-RPC")
            ),
        ));
    }
    for r in msgs {
        let (what, got): (String, Option<Value>) = if let Some(h) = &a.header {
            (
                format!("header {h}"),
                r.http
                    .as_ref()
                    .and_then(|x| x.header(h))
                    .map(|s| Value::String(s.to_owned())),
            )
        } else {
            let p = a.ptr.as_deref().unwrap_or("");
            (
                format!("{p:?}"),
                r.json.as_ref().and_then(|j| j.pointer(p)).cloned(),
            )
        };
        let bad = |msg: String| {
            fail(
                &key,
                format!("message to {} ({}): {what} {msg}", a.backend, clip(&r.text)),
            )
        };
        if let Some(p) = a.present {
            if got.is_some() != p {
                f.push(bad(if p {
                    "is absent".into()
                } else {
                    format!(
                        "is present ({})",
                        clip(&got.clone().unwrap_or_default().to_string())
                    )
                }));
                continue;
            }
        }
        if let Some(want) = &a.eq {
            let want = expand_canary(want, canary);
            if !got.as_ref().is_some_and(|g| json_eq(g, &want)) {
                let shown = got
                    .as_ref()
                    .map(|g| g.to_string().replace(canary, "<canary>"));
                // The values too, with the secret masked as in the message:
                // a report is published, the bearer token never.
                let masked = |v: &Value| {
                    serde_json::from_str(&v.to_string().replace(canary, "<canary>"))
                        .unwrap_or(Value::Null)
                };
                f.push(AssertionFailure::mismatch(
                    &key,
                    format!(
                        "message to {} ({}): {what} is {shown:?}, expected {}",
                        a.backend,
                        clip(&r.text),
                        want.to_string().replace(canary, "<canary>")
                    ),
                    &masked(&want),
                    got.as_ref().map(masked).as_ref(),
                ));
            }
        }
        if let Some(token) = &a.bearer {
            let token = token.replace("{{canary}}", canary);
            let ok = got.as_ref().and_then(Value::as_str).is_some_and(|v| {
                v.split_once(' ').is_some_and(|(scheme, given)| {
                    scheme.eq_ignore_ascii_case("bearer") && given == token
                })
            });
            if !ok {
                let shown = got
                    .as_ref()
                    .map(|g| g.to_string().replace(canary, "<canary>"));
                f.push(bad(format!(
                    "is {shown:?}, expected the Bearer scheme (any case) with {}",
                    a.bearer
                        .as_deref()
                        .unwrap_or_default()
                        .replace("{{canary}}", "<canary>")
                )));
            }
        }
        if let Some(p) = &a.eq_ptr {
            let other = r.json.as_ref().and_then(|j| j.pointer(p));
            let same = matches!((&got, other), (Some(g), Some(o)) if json_eq(g, o));
            if !same {
                f.push(bad(format!("is {got:?}, not equal to {p} ({other:?})")));
            }
        }
        if let Some(t) = &a.json_type {
            if got.as_ref().map(json_type) != Some(t.as_str()) {
                f.push(bad(format!("is not of type {t}")));
            }
        }
        if let Some(x) = &a.contains {
            if !got
                .as_ref()
                .and_then(Value::as_array)
                .is_some_and(|arr| arr.contains(x))
            {
                f.push(bad(format!("does not contain {x}")));
            }
        }
    }
}

fn global(
    v: &HarnessVector,
    rec: &HarnessRecord,
    cfg: &HarnessConfig,
    meta: &BTreeMap<String, Meta>,
    f: &mut Vec<AssertionFailure>,
) {
    global_messages(v, rec, cfg, meta, f);
    global_windows(v, rec, meta, f);
    global_call_ids(v, rec, f);
}

/// Where an event carries its call id: 0.1 `tool.callId`, the draft
/// `call.id` (DIFFERENCES.md item 5).
fn call_id_pointer(v: &HarnessVector) -> &'static str {
    if v.is_draft() {
        "/call/id"
    } else {
        "/tool/callId"
    }
}

/// The rules each message a backend received is held to by itself: its
/// shape, id, `native`, tool name, transport and secrets.
fn global_messages(
    v: &HarnessVector,
    rec: &HarnessRecord,
    cfg: &HarnessConfig,
    meta: &BTreeMap<String, Meta>,
    f: &mut Vec<AssertionFailure>,
) {
    let mut shape_reported = BTreeSet::new();
    // A message is named by its backend and its place among the messages
    // that backend received (`A#2`), never by a time: the name appears in
    // messages that interop matrices publish.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &rec.received {
        let n = seen.entry(r.backend.as_str()).or_insert(0);
        *n += 1;
        let tag = format!("{}#{n}", r.backend);
        if r.text.contains(&cfg.canary) {
            f.push(fail(
                "global.canary",
                format!(
                    "the bearer token appears in a message to {} (ahp-18.3-a, ahp-17.4-c)",
                    r.backend
                ),
            ));
        }
        if let Some(x) = &r.http {
            if x.method != "POST" {
                f.push(fail(
                    "global.http",
                    format!(
                        "{tag}: HTTP method {} (each message is a POST, 18.1)",
                        x.method
                    ),
                ));
            }
            if media_type(x.header("content-type")).as_deref() != Some("application/json") {
                f.push(fail(
                    "global.http",
                    format!(
                        "{tag}: Content-Type {:?}, not application/json (ahp-18.1-a)",
                        x.header("content-type")
                    ),
                ));
            }
            if !r.json.as_ref().is_some_and(Value::is_object) {
                f.push(fail(
                    "global.http",
                    format!("{tag}: the body is not one JSON-RPC object (ahp-18.1-b)"),
                ));
            }
        }
        let m = meta.get(&r.backend).cloned().unwrap_or_default();
        match r.kind.as_str() {
            "intercept" => {
                let j = r.json.as_ref().expect("intercept messages are parsed");
                let list: Vec<String> = if v.is_draft() {
                    crate::draft::intercept_request_problems(j)
                } else {
                    check_as(SchemaKind::InterceptRequest, j)
                        .iter()
                        .map(|x| format!("{x:?}"))
                        .collect()
                };
                if !list.is_empty() && shape_reported.insert(r.backend.clone()) {
                    f.push(fail("global.request", format!("{tag}: the hooks/intercept request is not a valid {} tool.before request (ahp-6.2-c, AHP-TB-001): {}", v.wire(), clip(&list.join("; ")))));
                }
                let id = j.get("id");
                let eid = j.pointer("/params/event/id");
                if !id.is_some_and(Value::is_string) || id != eid {
                    f.push(fail("global.id", format!("{tag}: request id {id:?} is not the string event.id {eid:?} (ahp-8.1-a)")));
                }
                let effects = j
                    .pointer("/params/capabilities/effects")
                    .and_then(Value::as_array);
                if !effects.is_some_and(|e| e.contains(&Value::from("deny"))) {
                    f.push(fail(
                        "global.capabilities",
                        format!("{tag}: capabilities.effects does not advertise deny (ahp-11-b)"),
                    ));
                }
                if !m.native_intercept && j.pointer("/params/event/native").is_some() {
                    f.push(fail("global.native", format!("{tag}: event.native is present though includeNative is not set (ahp-9.4-a)")));
                }
                if let Some(tool) = r
                    .trigger
                    .and_then(|i| v.triggers.get(i))
                    .and_then(|t| t.part(r.part).tool_call.as_ref())
                {
                    let ev = j.pointer("/params/event/tool");
                    if ev.and_then(|t| t.get("name")).and_then(Value::as_str)
                        != Some(tool.name.as_str())
                    {
                        f.push(fail("global.tool", format!("{tag}: tool.name is not {:?} as the harness was given it (ahp-9.3-b)", tool.name)));
                    }
                    // The draft makes tool.kind optional and free-form
                    // (DIFFERENCES.md item 8): only 0.1 checks it, and 0.1
                    // lets a harness "Assign a v0.1 `kind` or use `other`"
                    // (§22), so `other` passes too (issue 26).
                    let kind = ev.and_then(|t| t.get("kind")).and_then(Value::as_str);
                    if !v.is_draft() && kind != Some(tool.kind.as_str()) && kind != Some("other") {
                        f.push(fail(
                            "global.tool",
                            format!(
                                "{tag}: tool.kind is neither {:?} nor \"other\" (ahp-9.3-c, §22)",
                                tool.kind
                            ),
                        ));
                    }
                    if !ev
                        .and_then(|t| t.get("input"))
                        .is_some_and(Value::is_object)
                    {
                        f.push(fail(
                            "global.tool",
                            format!("{tag}: tool.input is not a JSON object (ahp-9.3-d, 7.4)"),
                        ));
                    }
                }
            }
            "observe" => {
                let j = r.json.as_ref().expect("observe messages are parsed");
                if j.get("id").is_some() {
                    f.push(fail(
                        "global.observe",
                        format!("{tag}: a hooks/observe notification carries an id (ahp-8.4-a)"),
                    ));
                }
                if j.pointer("/params/protocolVersion") != Some(&Value::from(v.wire())) {
                    f.push(fail(
                        "global.observe",
                        format!(
                            "{tag}: params.protocolVersion is not {:?} (ahp-7.2-a)",
                            v.wire()
                        ),
                    ));
                }
                if !m.native_observe && j.pointer("/params/event/native").is_some() {
                    f.push(fail("global.native", format!("{tag}: event.native is present though includeNative is not set (ahp-9.4-a)")));
                }
            }
            _ => {}
        }
    }
}

/// The rules of one tool call's messages together: interceptors never
/// overlap, retries are identical and bounded, and distinct calls get
/// distinct event ids.
fn global_windows(
    v: &HarnessVector,
    rec: &HarnessRecord,
    meta: &BTreeMap<String, Meta>,
    f: &mut Vec<AssertionFailure>,
) {
    // Per call window: serial, retries.
    // A window is one tool call: a trigger, or one call of a parallel one
    // (its events are one event each, and serial only among themselves).
    let windows: BTreeSet<(usize, Option<usize>)> = rec
        .received
        .iter()
        .filter_map(|r| r.trigger.map(|t| (t, r.part)))
        .collect();
    let mut ids_by_window: BTreeMap<(usize, Option<usize>), BTreeSet<String>> = BTreeMap::new();
    for w in windows {
        let reqs: Vec<&Received> = rec
            .received
            .iter()
            .filter(|r| (r.trigger, r.part) == (Some(w.0), w.1) && r.kind == "intercept")
            .collect();
        for (i, a) in reqs.iter().enumerate() {
            if let Some(eid) = a.event().and_then(|e| e.get("id")).and_then(Value::as_str) {
                ids_by_window.entry(w).or_default().insert(eid.to_owned());
            }
            let timeout = meta
                .get(&a.backend)
                .and_then(|m| m.timeout_ms)
                .unwrap_or(5000);
            // A harness may start its clock before the request reaches the
            // backend (process launch, connection setup: D-01), so only the
            // first half of the deadline counts as surely outstanding.
            #[allow(clippy::cast_precision_loss)]
            let deadline = a.t + timeout as f64 / 2.0;
            let busy = a.reply_t.map_or(deadline, |r| r.min(deadline));
            for b in &reqs[i + 1..] {
                if b.backend != a.backend && b.t + 2.0 < busy {
                    let mut failure = fail(
                        "global.serial",
                        format!(
                            "backend {} received hooks/intercept before backend {}'s request was \
                             answered or timed out: interceptors ran concurrently (ahp-13.1-b, D-17)",
                            b.backend, a.backend
                        ),
                    );
                    failure.actual = Some(serde_json::json!({
                        "ms_before_answer_or_deadline": (busy - b.t).round()
                    }));
                    f.push(failure);
                }
                if b.backend == a.backend && b.id() == a.id() && a.id().is_some() {
                    let same = match (&b.json, &a.json) {
                        (Some(x), Some(y)) => json_eq(x, y),
                        (x, y) => x == y,
                    };
                    if !same {
                        f.push(fail(
                            "global.retry",
                            format!(
                                "a retry to {} changed the request's content (ahp-15-b)",
                                a.backend
                            ),
                        ));
                    }
                    #[allow(clippy::cast_precision_loss)]
                    if b.t > a.t + 2.0 * timeout as f64 {
                        f.push(fail(
                            "global.retry",
                            format!(
                                "a retry to {} came after 2 × the deadline (ahp-15-a, D-01)",
                                a.backend
                            ),
                        ));
                    }
                    if plain_decision(v, &a.backend, a.json.as_ref())
                        && a.reply_t.is_some_and(|t| t < b.t)
                    {
                        f.push(fail(
                            "global.retry",
                            format!(
                                "the harness retried after {}'s valid decision (ahp-15-g)",
                                a.backend
                            ),
                        ));
                    }
                }
            }
        }
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (w, ids) in &ids_by_window {
        for id in ids {
            if let Some(other) = seen.insert(id.clone(), call_label(*w)) {
                f.push(fail(
                    "global.event_id",
                    format!(
                        "triggers {other} and {} (distinct tool calls) share event id {id:?} (ahp-9.1-h, D-15)",
                        call_label(*w)
                    ),
                ));
            }
        }
    }
}

/// Call ids across events: a tool.after or tool.error names a call some
/// tool.before carried, and a denied call has no tool.error.
fn global_call_ids(v: &HarnessVector, rec: &HarnessRecord, f: &mut Vec<AssertionFailure>) {
    let call_id_ptr = call_id_pointer(v);
    // tool.after and tool.error carry the callId of their tool.before
    // (9.3, 10.2): with one call id per tool call, every observed one must
    // be a call id some tool.before of the run carried.
    let before_ids: BTreeSet<&str> = rec
        .received
        .iter()
        .filter(|r| {
            r.event()
                .and_then(|e| e.get("type"))
                .and_then(Value::as_str)
                == Some("tool.before")
        })
        .filter_map(|r| {
            r.event()
                .and_then(|e| e.pointer(call_id_ptr))
                .and_then(Value::as_str)
        })
        .collect();
    if !before_ids.is_empty() {
        for r in rec.received.iter().filter(|r| r.kind == "observe") {
            let ev = r.event();
            let typ = ev.and_then(|e| e.get("type")).and_then(Value::as_str);
            if matches!(typ, Some("tool.after" | "tool.error")) {
                let id = ev
                    .and_then(|e| e.pointer(call_id_ptr))
                    .and_then(Value::as_str);
                if !id.is_some_and(|id| before_ids.contains(id)) {
                    f.push(fail(
                        "global.call_id",
                        format!(
                            "{} received {} with callId {id:?}, which no tool.before carried (ahp-9.3-f, ahp-10.2-a)",
                            r.backend,
                            typ.unwrap_or("")
                        ),
                    ));
                }
            }
        }
    }
    // No tool.error for a denied call.
    for c in &rec.calls {
        let denied = c
            .result
            .as_ref()
            .and_then(|r| r.get("outcome"))
            .and_then(Value::as_str)
            == Some("denied");
        if !denied {
            continue;
        }
        let call_ids: BTreeSet<&str> = rec
            .received
            .iter()
            .filter(|r| r.trigger == Some(c.trigger) && r.part == c.part && r.kind == "intercept")
            .filter_map(|r| {
                r.event()
                    .and_then(|e| e.pointer(call_id_ptr))
                    .and_then(Value::as_str)
            })
            .collect();
        for r in rec.received.iter().filter(|r| r.kind == "observe") {
            let ev = r.event();
            if ev.and_then(|e| e.get("type")).and_then(Value::as_str) == Some("tool.error")
                && ev
                    .and_then(|e| e.pointer(call_id_ptr))
                    .and_then(Value::as_str)
                    .is_some_and(|id| call_ids.contains(id))
            {
                f.push(fail(
                    "global.tool_error",
                    format!(
                        "{} received tool.error for a call the harness denied (ahp-10.3-a, D-30)",
                        r.backend
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::adapter::{AdapterError, AdapterInfo, LoadResult};
    use crate::harness::engine::ScriptedCommand;
    use crate::harness::record::CallRecord;

    /// The first released harness vector (one tool call).
    fn vector() -> HarnessVector {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../vectors/ahp/0.1/AHP-H-0001.json");
        let bytes = std::fs::read(&path).expect("the vector file");
        crate::harness::vector::parse_harness(&path, &bytes).expect("a harness vector")
    }

    /// A record of one call the adapter never answered, with `error`.
    fn unanswered(error: &AdapterError) -> HarnessRecord {
        HarnessRecord {
            adapter: AdapterInfo {
                adapter: "ctk-ahp-adapter/1".into(),
                name: "h".into(),
                version: "1".into(),
                protocol_versions: vec!["0.1".into()],
                bindings: vec!["stdio".into()],
                lifecycles: vec!["persistent".into()],
                profiles: Vec::new(),
                features: Vec::new(),
            },
            registration: Value::Null,
            load: LoadResult {
                loaded: true,
                refused: None,
            },
            calls: vec![CallRecord {
                trigger: 0,
                part: None,
                t_sent: 0.0,
                t_answered: 1.0,
                result: None,
                error: Some(error.to_string()),
                error_summary: Some(error.summary()),
            }],
            received: Vec::new(),
            processes: Vec::new(),
            transcript: Vec::new(),
            adapter_stderr: String::new(),
            adapter_exit: None,
        }
    }

    #[test]
    fn an_unanswered_call_reads_the_same_whatever_the_bound_and_stderr_were() {
        let cfg = HarnessConfig::new(ScriptedCommand {
            program: "unused".into(),
            prefix_args: Vec::new(),
        });
        let timeout = |ms, stderr: &str| AdapterError::Timeout {
            method: "harness/tool_call".into(),
            ms,
            stderr: stderr.into(),
        };
        let first = check(&vector(), &unanswered(&timeout(17372, "a\nb")), &cfg);
        let second = check(&vector(), &unanswered(&timeout(12406, "")), &cfg);
        let no_outcome = |f: &Vec<AssertionFailure>| {
            f.iter()
                .find(|x| x.message.starts_with("the harness gave no outcome"))
                .cloned()
                .expect("the no-outcome failure")
        };
        let (a, b) = (no_outcome(&first), no_outcome(&second));
        assert_eq!(a.message, b.message);
        assert!(
            a.message.contains("within the call's bound") && !a.message.contains("17372"),
            "{}",
            a.message
        );
        assert!(
            a.actual
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("17372 ms") && t.contains("a\nb")),
            "{:?}",
            a.actual
        );
    }
}
