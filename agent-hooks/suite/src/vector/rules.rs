//! The vector lint's consistency rules: what the schema cannot say about a
//! vector but a vector must hold to mean what it says. Each rule reads the
//! vector's document as written (so an empty list is told from an absent
//! one) and reports a JSON pointer into the file.
//!
//! They apply to every vector `ctk validate vector` sees: the project's,
//! upstream's and a vendor's. Rules about how the project's own set is kept
//! (id and file-name conventions, retired ids, clause coverage) stay with the
//! generator, in `vectors/gen/check.py`.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::json_path::pointer_token;

/// Largest integer an I-JSON number carries exactly (2^53 - 1).
const MAX_SAFE_INTEGER: u128 = 9_007_199_254_740_991;

/// Context and record members a host chooses for itself (its agent and
/// session ids, its framework name, its model id; the timestamp is the
/// nondeterminism rule's). A vector pinning one fails a conforming host
/// that chose differently.
const HOST_CHOSEN: [&str; 5] = [
    "agent.id",
    "agent.framework",
    "session.id",
    "session_id",
    "model.id",
];

/// Expectation members that assert something of their own beyond the run
/// outcome.
const ASSERTING: [&str; 11] = [
    "load",
    "records",
    "final_output",
    "released_output",
    "tool_invocations",
    "tool_not_invoked",
    "identities_equal",
    "interceptions_absent",
    "persisted_must_not_contain",
    "persisted_must_contain",
    "principal_notices",
];

/// One finding: the JSON pointer it names and what is wrong.
pub type Finding = (String, String);

/// Every consistency finding of one vector: `doc` is the parsed file, `text`
/// the file as written (for integer literals beyond what a double holds).
pub fn check(doc: &Value, text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(v) = doc.as_object() else {
        return out;
    };
    let empty = Map::new();
    let expect = v.get("expect").and_then(Value::as_object).unwrap_or(&empty);
    let caps: Vec<&str> = v
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let has_cap = |c: &str| caps.contains(&c);
    let strict = expect
        .get("sequence_strict")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    host_chosen(expect, &mut out);
    posture(expect, strict, &mut out);
    asserting(expect, strict, &mut out);
    scenario(v, expect, strict, &has_cap, &mut out);
    scripts(v, &mut out);
    declaration(v, expect, &has_cap, &mut out);
    for (pointer, literal, need) in wide_integers(text) {
        if !has_cap(need) {
            out.push((
                pointer,
                format!(
                    "integer {literal} is beyond +/-(2^53-1) and needs the {need} capability (or string-encode it, spec 4.4)"
                ),
            ));
        }
    }
    out
}

/// Host-chosen values pinned in context expectations or record assertions.
fn host_chosen(expect: &Map<String, Value>, out: &mut Vec<Finding>) {
    let maps = [("interceptions", "context"), ("records", "assert")];
    for (list, member) in maps {
        for (i, entry) in array(expect.get(list)).iter().enumerate() {
            let Some(map) = entry.get(member).and_then(Value::as_object) else {
                continue;
            };
            for path in map.keys().filter(|p| HOST_CHOSEN.contains(&p.as_str())) {
                out.push((
                    format!("/expect/{list}/{i}/{member}/{}", pointer_token(path)),
                    format!("{path:?} pins a value the host chooses; a vector must hold for any host's choice"),
                ));
            }
        }
    }
}

/// `run_outcome_by_posture`: its `continue` entry is `run_outcome`, and the
/// point sequence depends on the posture, so it cannot be strict.
fn posture(expect: &Map<String, Value>, strict: bool, out: &mut Vec<Finding>) {
    let Some(by) = expect.get("run_outcome_by_posture") else {
        return;
    };
    let cont = by.pointer("/outcomes/continue");
    if cont != expect.get("run_outcome") {
        out.push((
            "/expect/run_outcome_by_posture/outcomes/continue".into(),
            format!(
                "the continue posture's outcome {} must equal run_outcome {}",
                cont.unwrap_or(&Value::Null),
                expect.get("run_outcome").unwrap_or(&Value::Null)
            ),
        ));
    }
    if strict {
        out.push((
            "/expect/run_outcome_by_posture".into(),
            "which points are reached depends on the posture: set sequence_strict to false".into(),
        ));
    }
}

/// Lists that assert nothing, record entries that assert nothing, and a
/// vector any host reaching its run outcome passes.
fn asserting(expect: &Map<String, Value>, strict: bool, out: &mut Vec<Finding>) {
    for key in [
        "interceptions_absent",
        "tool_not_invoked",
        "persisted_must_not_contain",
        "persisted_must_contain",
    ] {
        if expect
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            out.push((
                format!("/expect/{key}"),
                format!("an empty {key} asserts nothing: drop it or list something"),
            ));
        }
    }
    for (i, record) in array(expect.get("records")).iter().enumerate() {
        let non_empty = |k: &str| {
            record.get(k).is_some_and(|x| match x {
                Value::Object(m) => !m.is_empty(),
                Value::Array(a) => !a.is_empty(),
                _ => true,
            })
        };
        let forms = [
            "assert",
            "absent",
            "present",
            "absent_or_null",
            "no_entries",
            "same_members",
            "contains",
            "one_of",
            "types",
        ];
        if !forms.iter().any(|k| non_empty(k)) {
            out.push((
                format!("/expect/records/{i}"),
                "record entry asserts nothing: give it assert, absent, present or another form"
                    .into(),
            ));
        }
    }
    let interceptions = array(expect.get("interceptions"));
    let vacuous = !ASSERTING.iter().any(|k| expect.contains_key(*k))
        && interceptions.is_empty()
        && !strict
        && expect.contains_key("interceptions");
    if vacuous {
        out.push((
            "/expect".into(),
            "asserts nothing beyond the run outcome: any host reaching it passes".into(),
        ));
    }
}

/// The scenario against the capabilities and expectations it needs.
fn scenario(
    v: &Map<String, Value>,
    expect: &Map<String, Value>,
    strict: bool,
    has_cap: &dyn Fn(&str) -> bool,
    out: &mut Vec<Finding>,
) {
    let Some(sc) = v.get("scenario") else {
        return;
    };
    let tools = array(sc.get("tools"));
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    for (i, tool) in tools.iter().enumerate() {
        if tool
            .get("behavior")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            out.push((
                format!("/scenario/tools/{i}/behavior"),
                "a tool with no behaviour cannot answer a call".into(),
            ));
        }
    }
    // A check of the kit's own loop may call a tool on purpose that the
    // scenario lacks: HOSTS.md §4.3 says what that call gets.
    let checks_the_loop = v.contains_key("adapter_contract");
    for (i, step) in array(sc.get("model_script")).iter().enumerate() {
        let Some(resp) = step.get("respond") else {
            continue;
        };
        let at = format!("/scenario/model_script/{i}/respond");
        for (j, call) in array(resp.get("tool_calls")).iter().enumerate() {
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            if !names.contains(&name) && !checks_the_loop {
                out.push((
                    format!("{at}/tool_calls/{j}/name"),
                    format!("the model calls {name:?}, which scenario.tools does not define"),
                ));
            }
        }
        if resp.get("parallel").and_then(Value::as_bool) == Some(true) {
            if !has_cap("parallel_tool_calls") {
                out.push((
                    format!("{at}/parallel"),
                    "parallel tool calls need the parallel_tool_calls capability".into(),
                ));
            }
            if strict {
                out.push((
                    format!("{at}/parallel"),
                    "parallel tool calls interleave their points: set sequence_strict to false"
                        .into(),
                ));
            }
            if expect.contains_key("tool_invocations") {
                out.push((
                    "/expect/tool_invocations".into(),
                    "parallel tool calls have no invocation order to pin: use tool_not_invoked or records".into(),
                ));
            }
        }
        if let Some(stream) = resp.get("stream").and_then(Value::as_array) {
            // An incremental host mediates the chunks (HOSTS.md §4.4); a buffered one
            // assembles them, which only a host that streams model output does (§12.1).
            let buffered = has_cap("streaming") && has_cap("buffered_output");
            if !has_cap("incremental_output") && !buffered {
                out.push((
                    format!("{at}/stream"),
                    "a chunked stream reaches only a host that streams: add the incremental_output capability, or streaming and buffered_output".into(),
                ));
            }
            let joined: String = stream.iter().filter_map(Value::as_str).collect();
            if resp.get("content").and_then(Value::as_str) != Some(joined.as_str()) {
                out.push((
                    format!("{at}/stream"),
                    "stream chunks must concatenate to content".into(),
                ));
            }
        }
    }
    if sc.get("turns").is_some() && !has_cap("multi_turn") {
        out.push((
            "/scenario/turns".into(),
            "further turns need the multi_turn capability".into(),
        ));
    }
}

/// Interceptor rules: a scripted timeout fires only within a configured
/// timeout (a declaration vector configures it in its document).
fn scripts(v: &Map<String, Value>, out: &mut Vec<Finding>) {
    if v.contains_key("interceptor_timeout_ms") || v.contains_key("host_declaration") {
        return;
    }
    let mut lists: Vec<(String, &Vec<Value>)> = Vec::new();
    if let Some(rules) = v.get("interceptor_script").and_then(Value::as_array) {
        lists.push(("/interceptor_script".into(), rules));
    }
    for (k, rules) in array(v.get("interceptor_scripts")).iter().enumerate() {
        if let Some(rules) = rules.as_array() {
            lists.push((format!("/interceptor_scripts/{k}"), rules));
        }
    }
    for (base, rules) in lists {
        for (j, rule) in rules.iter().enumerate() {
            if rule.get("fault").and_then(Value::as_str) == Some("timeout") {
                out.push((
                    format!("{base}/{j}/fault"),
                    "a timeout fault never fires without interceptor_timeout_ms".into(),
                ));
            }
        }
    }
}

/// Declaration vectors: the capability, no separate composition, and a
/// refused load that expects no interception.
fn declaration(
    v: &Map<String, Value>,
    expect: &Map<String, Value>,
    has_cap: &dyn Fn(&str) -> bool,
    out: &mut Vec<Finding>,
) {
    let declared = [
        "host_declaration",
        "host_declaration_text",
        "host_declaration_file",
    ]
    .into_iter()
    .find(|k| v.contains_key(*k));
    if let Some(key) = declared {
        if !has_cap("host_declaration") {
            out.push((
                format!("/{key}"),
                format!("{key} needs the host_declaration capability"),
            ));
        }
        if v.contains_key("composition") {
            out.push((
                "/composition".into(),
                "a declaration vector configures composition in its document, not beside it".into(),
            ));
        }
    }
    let refused =
        expect.get("load").and_then(|l| l.get("outcome")) == Some(&Value::from("refused"));
    if refused && !array(expect.get("interceptions")).is_empty() {
        out.push((
            "/expect/interceptions".into(),
            "a refused load builds no emitter, so no interception can be expected".into(),
        ));
    }
}

/// The elements of `value` if it is an array.
fn array(value: Option<&Value>) -> &[Value] {
    value
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Every integer literal of `text` (valid JSON) beyond +/-(2^53-1): its
/// pointer, the literal, and the capability it needs (`int64_json` within
/// the signed and unsigned 64-bit range, `bigint_json` beyond).
pub fn wide_integers(text: &str) -> Vec<(String, String, &'static str)> {
    let mut walker = Walker {
        text: text.as_bytes(),
        pos: 0,
        out: Vec::new(),
    };
    walker.value(&mut String::new());
    walker.out
}

/// A walk over JSON text already known to parse, tracking the pointer.
struct Walker<'a> {
    text: &'a [u8],
    pos: usize,
    out: Vec<(String, String, &'static str)>,
}

impl<'a> Walker<'a> {
    fn ws(&mut self) {
        while self.text.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    /// Skip a string literal and return its decoded text, borrowed when it
    /// holds no escape (most member names: the walk visits every one).
    fn string(&mut self) -> Cow<'a, str> {
        let text: &'a [u8] = self.text;
        let start = self.pos;
        let mut escaped = false;
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                }
                b'"' => break,
                _ => {}
            }
        }
        let raw = std::str::from_utf8(&text[start..self.pos]).unwrap_or("\"\"");
        match raw.get(1..raw.len().saturating_sub(1)) {
            Some(inner) if !escaped && raw.len() >= 2 && raw.ends_with('"') => Cow::Borrowed(inner),
            _ => Cow::Owned(serde_json::from_str(raw).unwrap_or_default()),
        }
    }

    fn value(&mut self, pointer: &mut String) {
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b'"') => {}
                        Some(b'}') | None => break,
                        Some(_) => {
                            self.pos += 1;
                            continue;
                        }
                    }
                    let key = self.string();
                    self.ws();
                    self.pos += 1; // ':'
                    let len = pointer.len();
                    pointer.push('/');
                    ctk_support::pointer::push_token(pointer, &key);
                    self.value(pointer);
                    pointer.truncate(len);
                    self.ws();
                    if self.peek() == Some(b',') {
                        self.pos += 1;
                    }
                }
                self.pos += 1;
            }
            Some(b'[') => {
                self.pos += 1;
                let mut i = 0;
                loop {
                    self.ws();
                    if matches!(self.peek(), Some(b']') | None) {
                        break;
                    }
                    let len = pointer.len();
                    // Written in place: this walk visits every member.
                    let _ = write!(pointer, "/{i}");
                    self.value(pointer);
                    pointer.truncate(len);
                    i += 1;
                    self.ws();
                    if self.peek() == Some(b',') {
                        self.pos += 1;
                    }
                }
                self.pos += 1;
            }
            Some(b'"') => {
                self.string();
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                {
                    self.pos += 1;
                }
                let literal = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("");
                if let Some(need) = integer_capability(literal) {
                    self.out.push((pointer.clone(), literal.to_owned(), need));
                }
            }
            Some(_) => {
                while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                    self.pos += 1;
                }
            }
            None => {}
        }
    }
}

/// The capability an integer literal needs, if it is beyond +/-(2^53-1).
fn integer_capability(literal: &str) -> Option<&'static str> {
    if literal.contains(['.', 'e', 'E']) {
        return None;
    }
    let (negative, digits) = match literal.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, literal),
    };
    // More digits than u128 holds is beyond every 64-bit range.
    let Ok(magnitude) = digits.parse::<u128>() else {
        return Some("bigint_json");
    };
    if magnitude <= MAX_SAFE_INTEGER {
        return None;
    }
    let in_64 = if negative {
        magnitude <= 1u128 << 63
    } else {
        magnitude < 1u128 << 64
    };
    Some(if in_64 { "int64_json" } else { "bigint_json" })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call to a tool the scenario lacks is a typo in a conformance
    /// vector, and the point of a check of the kit's loop (HOSTS.md §4.3).
    #[test]
    fn only_a_check_of_the_loop_may_call_an_undefined_tool() {
        let vector = |extra: &str| {
            serde_json::from_str::<Value>(&format!(
                r#"{{"id":"CTK-9993","capabilities":["model_calls","tool_calls"]{extra},
                "scenario":{{"input":{{"content":"x","role":"user"}},"tools":[{{"name":"lookup","behavior":[{{"return":1}}]}}],
                  "model_script":[{{"respond":{{"content":null,"tool_calls":[{{"id":"t","name":"missing","args":{{}}}}],"finish_reason":"tool_calls"}}}},
                                  {{"respond":{{"content":"done","tool_calls":[],"finish_reason":"stop"}}}}]}},
                "expect":{{"interceptions":[],"final_output":"done","run_outcome":"completed"}}}}"#
            ))
            .expect("json")
        };
        let undefined = |doc: &Value| {
            check(doc, &doc.to_string())
                .into_iter()
                .any(|(pointer, _)| pointer.ends_with("/tool_calls/0/name"))
        };
        assert!(undefined(&vector("")));
        assert!(!undefined(&vector(
            r#","adapter_contract":"HOSTS.md §4.3""#
        )));
    }

    #[test]
    fn wide_integers_name_their_pointer_and_capability() {
        let text = r#"{"a": [1, 9007199254740991, {"b\/c": -9007199254740992}],
            "s": "18446744073709551616", "d": 18446744073709551615, "e": 18446744073709551616,
            "f": 1e300, "g": -9223372036854775809, "h": 123456789012345678901234567890123456789012}"#;
        assert_eq!(
            wide_integers(text),
            vec![
                ("/a/2/b~1c".into(), "-9007199254740992".into(), "int64_json"),
                ("/d".into(), "18446744073709551615".into(), "int64_json"),
                ("/e".into(), "18446744073709551616".into(), "bigint_json"),
                ("/g".into(), "-9223372036854775809".into(), "bigint_json"),
                (
                    "/h".into(),
                    "123456789012345678901234567890123456789012".into(),
                    "bigint_json"
                ),
            ]
        );
    }
}
