//! Assertions: a run record and a vector's expectations in, a list of
//! failures out. Only what the record shows is judged: a reply that was not
//! observed is a failure, never a pass.

use serde::Serialize;
use serde_json::Value;

use crate::record::{RunRecord, StepRecord};
use crate::vector::{CanaryScope, PointerAssert, ReplyClass, ReplyCount, Step, StepExpect, Vector};

/// One failed expectation: the core's, so a report shows an AHP failure's
/// expected and actual values and their diff as it shows any other.
pub use ctk_core::outcome::AssertionFailure;

/// The decision a valid success result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// `effects: []`.
    NoEffect,
    /// One valid deny (draft line: at least one, with the other effects
    /// valid).
    Deny,
    /// Draft line only: advertised effects other than `deny` and no deny
    /// (see [`crate::draft`]).
    Other,
}

use ctk_ahp_wire::wire::is_reverse_dns;

/// Reverse-DNS key problems of an `extensions` object at `at`.
pub(crate) fn check_extensions(v: Option<&Value>, at: &str, problems: &mut Vec<String>) {
    let Some(v) = v else { return };
    match v.as_object() {
        None => problems.push(format!("{at} is not an object")),
        Some(o) => {
            for k in o.keys() {
                if !is_reverse_dns(k) {
                    problems.push(format!("{at} key {k:?} is not a reverse-DNS name"));
                }
            }
        }
    }
}

/// The JSON-RPC 2.0 envelope problems of a response.
pub(crate) fn envelope_problems(v: &Value) -> Vec<String> {
    let mut p = Vec::new();
    let Some(o) = v.as_object() else {
        return vec!["the response is not a JSON object".to_owned()];
    };
    if o.get("jsonrpc") != Some(&Value::from("2.0")) {
        p.push(format!(
            "jsonrpc is {}, not \"2.0\"",
            o.get("jsonrpc")
                .map_or("absent".to_owned(), Value::to_string)
        ));
    }
    if !o.contains_key("id") {
        p.push("the response has no id".to_owned());
    }
    match (o.contains_key("result"), o.contains_key("error")) {
        (true, true) => p.push("the response has both result and error".to_owned()),
        (false, false) => p.push("the response has neither result nor error".to_owned()),
        _ => {}
    }
    p
}

/// The decision of a success response, or why it is not a valid 0.1
/// intercept result (spec 7.2, 12.1, 12.2, 9.5).
pub fn decision(v: &Value) -> Result<Decision, Vec<String>> {
    let mut p = envelope_problems(v);
    let Some(result) = v.get("result") else {
        if let Some(e) = v.get("error") {
            p.push(format!("the backend answered with a JSON-RPC error: {e}"));
        }
        return Err(p);
    };
    let Some(r) = result.as_object() else {
        p.push("result is not an object".to_owned());
        return Err(p);
    };
    match r.get("protocolVersion") {
        Some(Value::String(s)) if s == "0.1" => {}
        other => p.push(format!(
            "result.protocolVersion is {}, not \"0.1\"",
            other.map_or("absent".to_owned(), Value::to_string)
        )),
    }
    check_extensions(r.get("extensions"), "result.extensions", &mut p);
    let d = match r.get("effects") {
        None => {
            p.push("result.effects is absent".to_owned());
            None
        }
        Some(Value::Array(effects)) => match effects.as_slice() {
            [] => Some(Decision::NoEffect),
            [effect] => {
                let mut ok = true;
                match effect.as_object() {
                    None => {
                        p.push("effects[0] is not an object".to_owned());
                        ok = false;
                    }
                    Some(e) => {
                        if e.get("type") != Some(&Value::from("deny")) {
                            p.push(format!(
                                "effects[0].type is {}; 0.1 defines only \"deny\", the one effect advertised",
                                e.get("type").map_or("absent".to_owned(), Value::to_string)
                            ));
                            ok = false;
                        }
                        match e.get("reason") {
                            Some(Value::String(s)) if !s.is_empty() => {}
                            other => {
                                p.push(format!(
                                    "effects[0].reason is {}; a deny needs a non-empty reason",
                                    other.map_or("absent".to_owned(), Value::to_string)
                                ));
                                ok = false;
                            }
                        }
                        match e.get("code") {
                            None => {}
                            Some(Value::String(s)) if is_reverse_dns(s) => {}
                            Some(other) => {
                                p.push(format!(
                                    "effects[0].code {other} is not a reverse-DNS name"
                                ));
                                ok = false;
                            }
                        }
                        let before = p.len();
                        check_extensions(e.get("extensions"), "effects[0].extensions", &mut p);
                        ok &= p.len() == before;
                    }
                }
                ok.then_some(Decision::Deny)
            }
            many => {
                p.push(format!(
                    "effects holds {} effects; 0.1 allows none or exactly one deny",
                    many.len()
                ));
                None
            }
        },
        Some(other) => {
            p.push(format!("result.effects is {other}, not an array"));
            None
        }
    };
    match d {
        Some(d) if p.is_empty() => Ok(d),
        _ => Err(p),
    }
}

/// Problems of a JSON-RPC error response.
fn error_problems(v: &Value, code: Option<i64>) -> Vec<String> {
    let mut p = envelope_problems(v);
    match v.get("error") {
        None => p.push(match v.get("result") {
            Some(r) => format!("expected a JSON-RPC error, got a result: {r}"),
            None => "expected a JSON-RPC error".to_owned(),
        }),
        Some(e) => {
            match e.get("code") {
                Some(c) if ctk_core::number::integral(c).is_some() => {
                    if let Some(want) = code {
                        if ctk_core::number::integral(c) != Some(want) {
                            p.push(format!("error.code is {c}, expected {want}"));
                        }
                    }
                }
                other => p.push(format!(
                    "error.code is {}, not an integer",
                    other.map_or("absent".to_owned(), Value::to_string)
                )),
            }
            if !e.get("message").is_some_and(Value::is_string) {
                p.push("error.message is not a string".to_owned());
            }
        }
    }
    p
}

fn type_name(v: &Value) -> &'static str {
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

fn check_pointer(
    key: &str,
    a: &PointerAssert,
    reply: &Value,
    step: &Step,
    out: &mut Vec<AssertionFailure>,
) {
    let actual = reply.pointer(&a.ptr);
    if let Some(present) = a.present {
        if actual.is_some() != present {
            out.push(AssertionFailure::message(
                key,
                format!(
                    "{} is {}",
                    a.ptr,
                    if present { "absent" } else { "present" }
                ),
            ));
        }
    }
    let mut compare = |expected: &Value, what: String| match actual {
        Some(v) if ctk_core::number::json_eq(v, expected) => {}
        Some(v) => out.push(AssertionFailure::mismatch(
            key,
            format!("{} is {v}, expected {what}", a.ptr),
            expected,
            Some(v),
        )),
        None => out.push(AssertionFailure::message(
            key,
            format!("{} is absent, expected {what}", a.ptr),
        )),
    };
    if let Some(eq) = &a.eq {
        compare(eq, eq.to_string());
    }
    if let Some(p) = &a.eq_request {
        match step.message().as_ref().and_then(|m| m.pointer(p)) {
            Some(want) => compare(want, format!("the request's {p} ({want})")),
            None => out.push(AssertionFailure::message(
                key,
                format!("vector error: the request has nothing at {p}"),
            )),
        }
    }
    if let Some(t) = &a.json_type {
        if let Some(v) = actual {
            if type_name(v) != t && !(t == "number" && v.is_number()) {
                out.push(AssertionFailure::mismatch(
                    key,
                    format!("{} is a {}, expected a {t}", a.ptr, type_name(v)),
                    &Value::String(t.clone()),
                    Some(&Value::String(type_name(v).to_owned())),
                ));
            }
        } else if a.present != Some(false) {
            out.push(AssertionFailure::message(
                key,
                format!("{} is absent, expected a {t}", a.ptr),
            ));
        }
    }
    if let Some(set) = &a.one_of {
        match actual {
            Some(v) if set.contains(v) => {}
            other => out.push(AssertionFailure::mismatch(
                key,
                format!(
                    "{} is {}, expected one of {}",
                    a.ptr,
                    other.map_or("absent".to_owned(), Value::to_string),
                    Value::Array(set.clone())
                ),
                &Value::Array(set.clone()),
                other,
            )),
        }
    }
}

fn media_type(ct: &str) -> String {
    ct.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn check_http(key: &str, exp: &StepExpect, rec: &StepRecord, out: &mut Vec<AssertionFailure>) {
    let Some(h) = &rec.http else {
        if exp.http_status.is_some() || exp.content_type.is_some() || exp.http_empty_body {
            out.push(AssertionFailure::message(
                key,
                format!(
                    "no HTTP response was observed: {}",
                    rec.no_reply.as_deref().unwrap_or("unknown")
                ),
            ));
        }
        return;
    };
    if let Some(statuses) = &exp.http_status {
        if !statuses.contains(&h.status) {
            out.push(AssertionFailure::mismatch(
                key,
                format!(
                    "HTTP status {} (expected {}){}",
                    h.status,
                    statuses
                        .iter()
                        .map(u16::to_string)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    h.location
                        .as_deref()
                        .map(|l| format!("; Location: {l} (redirects are not followed)"))
                        .unwrap_or_default()
                ),
                &Value::from(statuses.clone()),
                Some(&Value::from(h.status)),
            ));
        }
    }
    if let Some(want) = &exp.content_type {
        if h.body_len > 0 {
            let got = h.content_type.as_deref().map(media_type);
            if got.as_deref() != Some(want.as_str()) {
                out.push(AssertionFailure::mismatch(
                    key,
                    format!(
                        "Content-Type is {}, expected {want}",
                        h.content_type.as_deref().unwrap_or("absent")
                    ),
                    &Value::String(want.clone()),
                    h.content_type.clone().map(Value::String).as_ref(),
                ));
            }
        }
    }
    if exp.http_empty_body && h.body_len > 0 {
        out.push(AssertionFailure::message(
            key,
            format!("the body is not empty: {:?}", truncate(&h.body, 200)),
        ));
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_owned();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

/// Judge `record` against `vector`; empty means pass. `canary` is the
/// secret the driver sent (HTTP bearer token; stdio environment).
pub fn check(vector: &Vector, record: &RunRecord, canary: &str) -> Vec<AssertionFailure> {
    let mut out = Vec::new();
    let mut decisions: Vec<Option<Decision>> = Vec::new();
    let http = record.binding == "http";
    for (i, (step, exp)) in vector.send.iter().zip(&vector.expect).enumerate() {
        let key = format!("expect[{i}]");
        // A draft-line vector's replies follow the draft's validity rules.
        let request = step.message();
        let decision = |v: &Value| {
            if vector.is_draft() {
                crate::draft::decision(v, request.as_ref())
            } else {
                decision(v)
            }
        };
        let Some(rec) = record.steps.get(i) else {
            out.push(AssertionFailure::message(&key, "the step was never run"));
            decisions.push(None);
            continue;
        };
        // A backend free not to answer a message (at_most_one: a line past
        // its bound) is free to stop reading it too.
        if !rec.sent && !step.close_stdin && exp.reply != ReplyCount::AtMostOne {
            out.push(AssertionFailure::message(
                &key,
                format!(
                    "send[{i}] was not delivered: {}",
                    rec.send_error
                        .as_deref()
                        .or(rec.no_reply.as_deref())
                        .unwrap_or("unknown")
                ),
            ));
        }
        let mut this_decision = None;
        match exp.reply {
            ReplyCount::AtMostOne if rec.reply.is_none() => {}
            ReplyCount::One | ReplyCount::AtMostOne => match &rec.reply {
                None => out.push(AssertionFailure::message(
                    &key,
                    format!(
                        "expected one JSON-RPC response: {}",
                        rec.no_reply.as_deref().unwrap_or("none was observed")
                    ),
                )),
                Some(reply) => {
                    let v = &reply.value;
                    let problems = match exp.class.unwrap_or(ReplyClass::Any) {
                        ReplyClass::NoEffect => match decision(v) {
                            Ok(Decision::NoEffect) => {
                                this_decision = Some(Decision::NoEffect);
                                vec![]
                            }
                            Ok(other) => {
                                vec![format!("expected no effect (effects: []), got {other:?}")]
                            }
                            Err(p) => p,
                        },
                        ReplyClass::ExplicitDeny => match decision(v) {
                            Ok(Decision::Deny) => {
                                this_decision = Some(Decision::Deny);
                                vec![]
                            }
                            Ok(other) => vec![format!("expected a deny, got {other:?}")],
                            Err(p) => p,
                        },
                        ReplyClass::AnyValidDecision => match decision(v) {
                            Ok(d) => {
                                this_decision = Some(d);
                                vec![]
                            }
                            Err(p) => p,
                        },
                        ReplyClass::JsonrpcError => error_problems(v, exp.error_code),
                        ReplyClass::Any => {
                            if v.get("error").is_some() {
                                error_problems(v, None)
                            } else {
                                match decision(v) {
                                    Ok(d) => {
                                        this_decision = Some(d);
                                        vec![]
                                    }
                                    Err(p) => p,
                                }
                            }
                        }
                    };
                    // The reply is the actual value; what was expected of it
                    // is a class, named in the message and as the expected
                    // value.
                    let class = exp.class.unwrap_or(ReplyClass::Any);
                    let expected = serde_json::to_value(class).unwrap_or(Value::Null);
                    for p in problems {
                        out.push(AssertionFailure::mismatch(
                            &key,
                            format!("{p} (reply: {})", truncate(&reply.text, 300)),
                            &expected,
                            Some(v),
                        ));
                    }
                    for (k, a) in exp.assert.iter().enumerate() {
                        check_pointer(&format!("{key}.assert[{k}]"), a, v, step, &mut out);
                    }
                }
            },
            ReplyCount::None => {
                if http {
                    if let Some(reply) = &rec.reply {
                        out.push(AssertionFailure::message(
                            &key,
                            format!(
                                "the notification got a JSON-RPC response: {}",
                                truncate(&reply.text, 300)
                            ),
                        ));
                    }
                }
            }
        }
        if let Some(j) = exp.same_decision_as {
            if let (Some(a), Some(Some(b))) = (this_decision, decisions.get(j)) {
                if a != *b {
                    out.push(AssertionFailure::mismatch(
                        &key,
                        format!(
                            "decision {a:?} differs from step {j}'s {b:?}; the two messages \
                             differ only in what must not change the decision"
                        ),
                        &serde_json::to_value(b).unwrap_or(Value::Null),
                        Some(&serde_json::to_value(a).unwrap_or(Value::Null)),
                    ));
                }
            }
        }
        if http {
            check_http(&key, exp, rec, &mut out);
        }
        decisions.push(this_decision);
    }
    // Responses nobody asked for, attributed to the step after which they
    // arrived: an answered notification, or a second answer.
    for (n, line) in record.lines.iter().enumerate() {
        if line.reply_to.is_some() || line.as_response().is_none() {
            continue;
        }
        let after = line.after_step;
        let notification = after
            .and_then(|i| vector.send.get(i))
            .is_some_and(|s| s.notification);
        let key = after.map_or("run".to_owned(), |i| format!("expect[{i}]"));
        out.push(AssertionFailure::message(
            key,
            format!(
                "{} (stdout line {}): {}",
                if notification {
                    "the notification got a JSON-RPC response"
                } else {
                    "a JSON-RPC response nobody asked for (one reply per request)"
                },
                n + 1,
                truncate(&line.text, 300)
            ),
        ));
    }
    for (p, proc_rec) in record.processes.iter().enumerate() {
        if proc_rec.flooded {
            out.push(AssertionFailure::message(
                "run.stdout",
                format!("process {p} flooded stdout past the byte budget; reading stopped"),
            ));
        }
    }
    check_run(vector, record, canary, &mut out);
    out
}

fn check_run(vector: &Vector, record: &RunRecord, canary: &str, out: &mut Vec<AssertionFailure>) {
    let run = &vector.run;
    if record.binding == "stdio" && run.stdout_protocol_only {
        for (n, line) in record.lines.iter().enumerate() {
            let key = "run.stdout_protocol_only";
            let at = format!("stdout line {}", n + 1);
            let problem = if line.cut {
                Some(format!("{at} is {} bytes, past the line limit", line.len))
            } else if !line.utf8 {
                Some(format!("{at} is not UTF-8"))
            } else if line.text.trim().is_empty() {
                None // blank lines: D-24, `stdout_strict_lines`
            } else if line.as_response().is_none() {
                Some(format!(
                    "{at} is not one JSON-RPC response object (banners, logs and \
                     pretty-printed JSON are not allowed on stdout): {:?}",
                    truncate(&line.text, 200)
                ))
            } else if !line.terminated {
                Some(format!("{at} is not ended by a newline"))
            } else {
                None
            };
            if let Some(p) = problem {
                out.push(AssertionFailure::message(key, p));
            }
        }
    }
    if record.binding == "stdio" && run.stdout_strict_lines {
        for (n, line) in record.lines.iter().enumerate() {
            if line.text.contains('\r') {
                out.push(AssertionFailure::message(
                    "run.stdout_strict_lines",
                    format!("stdout line {} holds a carriage return", n + 1),
                ));
            } else if line.text.trim().is_empty() {
                out.push(AssertionFailure::message(
                    "run.stdout_strict_lines",
                    format!("stdout line {} is blank", n + 1),
                ));
            }
        }
    }
    if record.lifecycle == "per_event" && run.per_event_exit_zero {
        for proc_rec in &record.processes {
            let request = proc_rec
                .steps
                .iter()
                .any(|&i| vector.send.get(i).is_some_and(|s| !s.notification));
            if !request {
                // An observer's exit status has no effect (17.3), but it
                // exits (D-25).
                if !proc_rec.exited {
                    out.push(AssertionFailure::message(
                        "run.per_event_exit_zero",
                        format!(
                            "the per_event process for notification step {:?} did not exit \
                             after stdin closed and was killed",
                            proc_rec.steps
                        ),
                    ));
                }
                continue;
            }
            if !proc_rec.exited || proc_rec.exit_code != Some(0) {
                let how = if !proc_rec.exited {
                    "did not exit after stdin closed and was killed".to_owned()
                } else if let Some(code) = proc_rec.exit_code {
                    format!("exited with status {code}")
                } else {
                    format!("was ended by signal {}", proc_rec.signal.unwrap_or(0))
                };
                out.push(AssertionFailure::message(
                    "run.per_event_exit_zero",
                    format!(
                        "the per_event process for step {:?} {how}; status 0 is required \
                         (stderr tail: {:?})",
                        proc_rec.steps,
                        truncate(&proc_rec.stderr_tail, 300)
                    ),
                ));
            }
        }
    }
    if let Some(scope) = run.canary {
        if canary.is_empty() {
            return;
        }
        let mut hits = Vec::new();
        for rec in &record.steps {
            let Some(reply) = &rec.reply else { continue };
            let v = &reply.value;
            if let Some(data) = v.pointer("/error/data") {
                if data.to_string().contains(canary) || json_contains(data, canary) {
                    hits.push(format!("step {}: error.data", rec.index));
                }
            }
            if scope != CanaryScope::ErrorData {
                if let Some(Value::Array(effects)) = v.pointer("/result/effects") {
                    for (k, e) in effects.iter().enumerate() {
                        if e.get("reason").is_some_and(|r| json_contains(r, canary)) {
                            hits.push(format!("step {}: effects[{k}].reason", rec.index));
                        }
                    }
                }
            }
        }
        if scope == CanaryScope::Anywhere {
            for (n, line) in record.lines.iter().enumerate() {
                if line.text.contains(canary) {
                    hits.push(format!("stdout line {}", n + 1));
                }
            }
            for rec in &record.steps {
                if let Some(h) = &rec.http {
                    if h.body.contains(canary) {
                        hits.push(format!("step {}: HTTP body", rec.index));
                    }
                }
            }
        }
        hits.dedup();
        for h in hits {
            out.push(AssertionFailure::message(
                "run.canary",
                format!("the secret the kit handed the backend came back in {h}"),
            ));
        }
    }
}

fn json_contains(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(a) => a.iter().any(|x| json_contains(x, needle)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| k.contains(needle) || json_contains(x, needle)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_code_is_an_integer_however_it_is_spelled() {
        for code in [json!(-32001), json!(-32001.0)] {
            let reply = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}});
            assert_eq!(
                error_problems(&reply, Some(-32001)),
                Vec::<String>::new(),
                "{code}"
            );
        }
        let fraction =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001.5, "message": "m"}});
        assert_eq!(error_problems(&fraction, Some(-32001)).len(), 1);
        let other = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000.0, "message": "m"}});
        assert_eq!(error_problems(&other, Some(-32001)).len(), 1);
        assert_eq!(type_name(&json!(3.0)), "integer");
        assert_eq!(type_name(&json!(3.5)), "number");
    }

    #[test]
    fn reverse_dns_names() {
        assert!(is_reverse_dns("com.example.policy"));
        assert!(is_reverse_dns("org.w3c.trace_context"));
        assert!(is_reverse_dns("com.example.local-review"));
        assert!(!is_reverse_dns("policy"));
        assert!(!is_reverse_dns("com..x"));
        assert!(!is_reverse_dns("1com.example"));
    }

    #[test]
    fn decisions_follow_section_12() {
        let ok = json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[]}});
        assert_eq!(decision(&ok), Ok(Decision::NoEffect));
        let deny = json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1",
            "effects":[{"type":"deny","reason":"no","code":"com.example.x"}]}});
        assert_eq!(decision(&deny), Ok(Decision::Deny));
        for bad in [
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.2","effects":[]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1"}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":{}}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[
                {"type":"deny","reason":"a"},{"type":"deny","reason":"b"}]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[
                {"type":"deny","reason":""}]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[
                {"type":"allow"}]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[
                {"type":"deny","reason":"x","code":"force_push"}]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[],
                "extensions":{"bare":1}}}),
            json!({"jsonrpc":"1.0","id":"e","result":{"protocolVersion":"0.1","effects":[]}}),
            json!({"jsonrpc":"2.0","id":"e","result":{"protocolVersion":"0.1","effects":[]},
                "error":{"code":1,"message":"x"}}),
        ] {
            assert!(decision(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_members_of_a_result_are_tolerated() {
        let v = json!({"jsonrpc":"2.0","id":"e","x":1,"result":{"protocolVersion":"0.1",
            "effects":[{"type":"deny","reason":"r","z":true}],"y":2}});
        assert_eq!(decision(&v), Ok(Decision::Deny));
    }

    #[test]
    fn error_codes_are_compared() {
        let v = json!({"jsonrpc":"2.0","id":"e","error":{"code":-32001,"message":"m"}});
        assert!(error_problems(&v, Some(-32001)).is_empty());
        assert_eq!(error_problems(&v, Some(-32002)).len(), 1);
        let no_msg = json!({"jsonrpc":"2.0","id":"e","error":{"code":-32001}});
        assert_eq!(error_problems(&no_msg, None).len(), 1);
    }
}
