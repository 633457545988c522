//! Generated values: `{"$ctk.generate": {...}}` states a large value in a
//! few bytes of a vector file, so a vector can carry a context beyond the
//! §12.3 size bound (5 MiB in the reference host) without a 5 MiB file.
//!
//! The loader checks every generated value right after the file is parsed
//! (before the schema check, so that a misplaced or malformed one is
//! refused with its own message) and expands all but the context-sized
//! fills once the schema check passes; nothing after it ever sees the form:
//! the host gets the expanded value (on the stdio wire too), the
//! assertions and the engine work on it. The file's digest and the text the
//! lint reads stay those of the file as written.
//!
//! The forms, each an object whose only member is `$ctk.generate`:
//!
//! * `{"repeat": S, "count": N}`: the string S repeated N times;
//! * `{"keys": P, "count": N, "value": V}`: the object
//!   `{"P0": V, "P1": V, ..., "P<N-1>": V}`, members in that order (V any
//!   JSON value without a generated value in it);
//! * `{"nest": "object", "key": K, "depth": N, "leaf": V}`: N nested
//!   one-member objects `{"K": {"K": ... V}}`, and `{"nest": "array",
//!   "depth": N, "leaf": V}`: N nested one-element arrays `[[... V]]`, so a
//!   vector can state a value nested past the §12.3 depth bound (128 levels
//!   in the reference host) in a file that nests a few levels; V as for
//!   `keys`, N from 0 to [`MAX_NESTING`]; expanded where it stands, the
//!   value (with the arrays and objects around it) must nest at most
//!   [`MAX_NESTING`] levels, the bound the kit reads;
//! * `{"json": V}`: the compact JSON text of V, generated values in V
//!   expanded first; only as `host_declaration_text`, so that a vector can
//!   state a declaration text beyond the §7.7.3 bound of 1 MiB;
//! * `{"pad_context_to": N}` and `{"pad_context_past": N}`: a string of
//!   `x` whose length the scripted interceptor chooses when it answers, so
//!   that the context the transform composes has the canonical size N (or
//!   the largest size below N the fill can reach), respectively the
//!   smallest size beyond N it can reach ([`crate::script::pad`]). Part of
//!   the context is the host's to choose (session ids, names, clocks), so
//!   no value written in the file can meet the §12.3 size bound exactly;
//!   this form stays in the rule until the interceptor answers, and only
//!   in a scripted transform's value, once per value ([`pad_allowed`]).
//!
//! They are allowed only in scenario data a host receives ([`allowed`]), in
//! the value of a scripted transform and as the declaration text; the
//! expanded size of all the generated values of one file (a string's UTF-8
//! bytes, an object's compact JSON text, a `json` text's bound with each
//! string inside it escaped at worst, a fill's N plus one) is at most
//! [`MAX_GENERATED_BYTES`].

use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::json_path::pointer_token;
use ctk_agent_hooks_adapter::wire::depth::{self, MAX_NESTING};

/// The member that marks a generated value.
pub const KEY: &str = "$ctk.generate";

/// The most bytes the generated values of one vector file may expand to.
pub const MAX_GENERATED_BYTES: u64 = 64 * 1024 * 1024;

/// A refusal: the JSON pointer of the offending value and what is wrong.
pub type Refusal = (String, String);

/// Whether a generated value may stand at `pointer` (a JSON pointer into
/// the vector file): at or below an input's or a model response's
/// `content`, a tool behaviour's `return` or a scripted transform's
/// `value`, below a tool call's `args` (which must stay an object), or as
/// `host_declaration_text` (a `repeat` or `json` form: a string).
pub fn allowed(pointer: &str) -> bool {
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let n = |t: &&str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match tokens.as_slice() {
        ["scenario", "input", "content", ..] => true,
        ["scenario", "turns", i, "input", "content", ..] => n(i),
        ["scenario", "model_script", i, "respond", "content", ..] => n(i),
        ["scenario", "model_script", i, "respond", "tool_calls", j, "args", _, ..] => n(i) && n(j),
        ["scenario", "tools", i, "behavior", j, "return", ..] => n(i) && n(j),
        ["interceptor_script", j, "return", "transform", "value", ..] => n(j),
        ["interceptor_scripts", k, j, "return", "transform", "value", ..] => n(k) && n(j),
        ["host_declaration_text"] => true,
        _ => false,
    }
}

/// Whether a context-sized fill (`pad_context_to`, `pad_context_past`) may
/// stand at `pointer`: at or below a scripted transform's `value` (never in
/// `return_raw`, which is returned verbatim, nor in scenario data, which
/// the host receives before any context exists).
pub fn pad_allowed(pointer: &str) -> bool {
    pad_rule(pointer).is_some()
}

/// The pointer of the rule whose transform value holds `pointer`, when
/// `pointer` is at or below a scripted transform's `value`.
fn pad_rule(pointer: &str) -> Option<String> {
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let n = |t: &&str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match tokens.as_slice() {
        ["interceptor_script", j, "return", "transform", "value", ..] if n(j) => {
            Some(format!("/interceptor_script/{j}"))
        }
        ["interceptor_scripts", k, j, "return", "transform", "value", ..] if n(k) && n(j) => {
            Some(format!("/interceptor_scripts/{k}/{j}"))
        }
        _ => None,
    }
}

/// Which side of its size a context-sized fill lands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadSide {
    /// `pad_context_to`: the size itself, or the largest size below it the
    /// fill can reach.
    AtMost,
    /// `pad_context_past`: the smallest size beyond it the fill can reach.
    Beyond,
}

/// A context-sized fill, read from a checked generated value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pad {
    /// The canonical size in bytes the composed context is filled towards.
    pub size: u64,
    /// Which side of `size` the composed context lands on.
    pub side: PadSide,
}

/// The fill `value` stands for, when it is a context-sized fill.
pub fn pad_form(value: &Value) -> Option<Pad> {
    let p = params(value)?.as_object()?;
    let (name, side) = [
        ("pad_context_to", PadSide::AtMost),
        ("pad_context_past", PadSide::Beyond),
    ]
    .into_iter()
    .find(|(name, _)| p.contains_key(*name))?;
    Some(Pad {
        size: p.get(name)?.as_u64()?,
        side,
    })
}

/// The parameters of the generated value `node` (an object with the
/// [`KEY`] member), or `None` when `node` is no generated value.
fn params(node: &Value) -> Option<&Value> {
    node.as_object().and_then(|m| m.get(KEY))
}

/// Whether `node` is a context-sized fill (checked or not): a generated
/// value naming `pad_context_to` or `pad_context_past`.
fn is_pad(node: &Value) -> bool {
    params(node)
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key("pad_context_to") || p.contains_key("pad_context_past"))
}

/// Whether `value` holds a context-sized fill anywhere (a scripted verdict
/// whose answer will be of the size of a context: the oracle runs such
/// vectors last, with those whose scenario is large).
pub fn holds_pad(value: &Value) -> bool {
    is_pad(value)
        || match value {
            Value::Object(m) => m.values().any(holds_pad),
            Value::Array(a) => a.iter().any(holds_pad),
            _ => false,
        }
}

/// Whether `value` holds a generated value anywhere.
fn holds_generated(value: &Value) -> bool {
    match value {
        Value::Object(m) => m.contains_key(KEY) || m.values().any(holds_generated),
        Value::Array(a) => a.iter().any(holds_generated),
        _ => false,
    }
}

/// The number of decimal digits written by `0, 1, ..., count - 1`.
fn index_digits(count: u64) -> u64 {
    let (mut total, mut low, mut digits) = (0u64, 0u64, 1u64);
    while low < count {
        let high = if low == 0 { 10 } else { low * 10 }.min(count);
        total += (high - low) * digits;
        low = high;
        digits += 1;
    }
    total
}

/// Check one generated value's parameters; its expanded size.
fn check(node: &Map<String, Value>) -> Result<u64, String> {
    if node.len() != 1 {
        return Err(format!(
            "a generated value is an object whose only member is {KEY:?}"
        ));
    }
    let Some(Value::Object(p)) = node.get(KEY) else {
        return Err(format!("{KEY} takes an object of parameters"));
    };
    let count = || match p.get("count") {
        Some(c) => c
            .as_u64()
            .ok_or_else(|| format!("{KEY}: count must be an integer from 0, not {c}")),
        None => Err(format!("{KEY}: count is missing")),
    };
    let only = |names: &[&str]| match p.keys().find(|k| !names.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "{KEY}: unknown parameter {k:?} (with {:?}: {})",
            names[0],
            names.join(", ")
        )),
        None => Ok(()),
    };
    let too_big = || format!("{KEY}: the value expands beyond {MAX_GENERATED_BYTES} bytes");
    if let Some(nest) = p.get("nest") {
        let per_level = match nest.as_str() {
            Some("object") => {
                only(&["nest", "key", "depth", "leaf"])?;
                let Some(Value::String(key)) = p.get("key") else {
                    return Err(format!("{KEY}: nest \"object\" needs a key, a string"));
                };
                // `{"K":` and `}` around each level.
                serde_json::to_string(key).map_err(|e| e.to_string())?.len() as u64 + 3
            }
            Some("array") => {
                only(&["nest", "depth", "leaf"])?;
                2
            }
            _ => {
                return Err(format!(
                    "{KEY}: nest must be \"object\" or \"array\", not {nest}"
                ))
            }
        };
        let levels = nest_depth(p)?;
        let leaf = p
            .get("leaf")
            .ok_or_else(|| format!("{KEY}: nest needs a leaf"))?;
        if holds_generated(leaf) {
            return Err(format!("{KEY}: a generated value cannot hold another"));
        }
        let leaf = serde_json::to_string(leaf).map_err(|e| e.to_string())?;
        return per_level
            .checked_mul(levels as u64)
            .and_then(|b| b.checked_add(leaf.len() as u64))
            .ok_or_else(too_big);
    }
    for name in ["pad_context_to", "pad_context_past"] {
        if let Some(size) = p.get(name) {
            only(&[name])?;
            // The fill is shorter than the size it fills towards (one byte
            // beyond it at most).
            return size
                .as_u64()
                .map(|n| n.saturating_add(1))
                .ok_or_else(|| format!("{KEY}: {name} must be an integer from 0, not {size}"));
        }
    }
    if let Some(json) = p.get("json") {
        only(&["json"])?;
        // The text as written; the generated values inside it are counted
        // by the caller.
        return serde_json::to_string(json)
            .map(|t| t.len() as u64)
            .map_err(|e| e.to_string());
    }
    match (p.get("repeat"), p.get("keys")) {
        (Some(Value::String(s)), None) => {
            only(&["repeat", "count"])?;
            (s.len() as u64).checked_mul(count()?).ok_or_else(too_big)
        }
        (None, Some(Value::String(prefix))) => {
            only(&["keys", "count", "value"])?;
            let count = count()?;
            let value = p
                .get("value")
                .ok_or_else(|| format!("{KEY}: keys needs a value"))?;
            if holds_generated(value) {
                return Err(format!("{KEY}: a generated value cannot hold another"));
            }
            // `{"P0":V,...}`: per member the quoted key and its index, a
            // colon and the value; a comma between members; the braces.
            let key = serde_json::to_string(prefix).map_err(|e| e.to_string())?;
            let value = serde_json::to_string(value).map_err(|e| e.to_string())?;
            let per = (key.len() as u64) + (value.len() as u64) + 1;
            per.checked_mul(count)
                .and_then(|b| b.checked_add(index_digits(count)))
                .and_then(|b| b.checked_add(2 + count.saturating_sub(1)))
                .ok_or_else(too_big)
        }
        (Some(Value::String(_)), Some(_)) => Err(format!("{KEY}: repeat or keys, not both")),
        (Some(_), _) => Err(format!("{KEY}: repeat must be a string")),
        (_, Some(_)) => Err(format!("{KEY}: keys must be a string")),
        (None, None) => Err(format!(
            "{KEY}: no form named (repeat and count; keys, count and value; nest, depth and leaf; json; pad_context_to; or pad_context_past)"
        )),
    }
}

/// A nest form's `depth`: an integer from 0 to [`MAX_NESTING`].
fn nest_depth(p: &Map<String, Value>) -> Result<usize, String> {
    match p.get("depth") {
        Some(d) => d
            .as_u64()
            .and_then(|d| usize::try_from(d).ok())
            .filter(|d| *d <= MAX_NESTING)
            .ok_or_else(|| {
                format!("{KEY}: depth must be an integer from 0 to {MAX_NESTING}, not {d}")
            }),
        None => Err(format!("{KEY}: depth is missing")),
    }
}

/// How many levels of arrays and objects a checked generated value's
/// expansion nests (a string's none).
fn expanded_nesting(p: &Value) -> usize {
    let leaf = |name| p.get(name).map_or(0, depth::nesting);
    match (p.get("nest"), p.get("keys")) {
        (Some(_), _) => {
            let levels = p.get("depth").and_then(Value::as_u64).unwrap_or(0);
            usize::try_from(levels)
                .unwrap_or(usize::MAX)
                .saturating_add(leaf("leaf"))
        }
        (None, Some(_)) => 1 + leaf("value"),
        (None, None) => 0,
    }
}

/// Every generated value of a parsed vector file the loader expands, by
/// JSON pointer, in document order (a context-sized fill is checked but not
/// listed: it is expanded when the interceptor answers); a refusal names the
/// pointer of the first one that is misplaced or malformed, or of the one
/// that takes the file beyond [`MAX_GENERATED_BYTES`].
pub fn find(doc: &Value) -> Result<Vec<String>, Refusal> {
    /// `in_json`: inside a `json` form, where a generated value may stand
    /// anywhere (but another `json` form nowhere) and counts seven times:
    /// once itself, six times over for the most JSON escaping can grow it.
    /// `level`: the arrays and objects around `v` once expanded (in the
    /// file, or in a `json` form's text).
    ///
    /// `pads`: the rules whose transform value holds a context-sized fill
    /// (one each); a fill is checked and counted but left in place, for the
    /// interceptor to size when it answers.
    fn walk(
        v: &Value,
        pointer: &mut String,
        level: usize,
        total: &mut u64,
        out: &mut Vec<String>,
        pads: &mut Vec<String>,
        in_json: bool,
    ) -> Result<(), Refusal> {
        let len = pointer.len();
        let refuse = |pointer: &String, detail: String| Err((pointer.clone(), detail));
        match v {
            Value::Object(m) if m.contains_key(KEY) && is_pad(v) => {
                let rule = if in_json { None } else { pad_rule(pointer) };
                let Some(rule) = rule else {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY}: pad_context_to and pad_context_past stand only in a scripted transform's value"
                        ),
                    );
                };
                if pads.contains(&rule) {
                    return refuse(
                        pointer,
                        format!("{KEY}: one context-sized fill per transform value"),
                    );
                }
                pads.push(rule);
                let size = check(m).map_err(|e| (pointer.clone(), e))?;
                *total = total.saturating_add(size);
                if *total > MAX_GENERATED_BYTES {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY}: the file's generated values expand to more than {MAX_GENERATED_BYTES} bytes"
                        ),
                    );
                }
            }
            Value::Object(m) if m.contains_key(KEY) => {
                if !in_json && !allowed(pointer) {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY} is allowed only in scenario data a host receives (input and response content, tool call args, tool returns), in a scripted transform's value and as host_declaration_text"
                        ),
                    );
                }
                let json = params(v).and_then(|p| p.get("json"));
                let text_position = !in_json && pointer == "/host_declaration_text";
                if json.is_some() && !text_position {
                    return refuse(
                        pointer,
                        format!("{KEY}: the json form stands only as host_declaration_text"),
                    );
                }
                if json.is_none()
                    && text_position
                    && params(v).is_some_and(|p| p.get("repeat").is_none())
                {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY}: host_declaration_text is a string: the repeat or the json form"
                        ),
                    );
                }
                let size = check(m).map_err(|e| (pointer.clone(), e))?;
                let nesting = level.saturating_add(expanded_nesting(params(v).unwrap_or(v)));
                if nesting > MAX_NESTING {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY}: expanded here the value nests {nesting} levels (arrays and objects, those around it included), beyond the {MAX_NESTING} the kit reads"
                        ),
                    );
                }
                let size = if in_json {
                    size.saturating_mul(7)
                } else {
                    size
                };
                *total = total.saturating_add(size);
                if *total > MAX_GENERATED_BYTES {
                    return refuse(
                        pointer,
                        format!(
                            "{KEY}: the file's generated values expand to more than {MAX_GENERATED_BYTES} bytes"
                        ),
                    );
                }
                if let Some(json) = json {
                    pointer.push_str(&format!("/{}/json", pointer_token(KEY)));
                    walk(json, pointer, 0, total, out, pads, true)?;
                    pointer.truncate(len);
                }
                if !in_json {
                    out.push(pointer.clone());
                }
            }
            Value::Object(m) => {
                for (k, child) in m {
                    pointer.push('/');
                    // In place: the walk visits every member of every vector.
                    ctk_support::pointer::push_token(pointer, k);
                    walk(child, pointer, level + 1, total, out, pads, in_json)?;
                    pointer.truncate(len);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    let _ = write!(pointer, "/{i}");
                    walk(child, pointer, level + 1, total, out, pads, in_json)?;
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(
        doc,
        &mut String::new(),
        0,
        &mut 0,
        &mut out,
        &mut Vec::new(),
        false,
    )?;
    Ok(out)
}

/// The value a checked generated value stands for.
fn expand_one(params: &Value) -> Value {
    if let Some(json) = params.get("json") {
        let mut json = json.clone();
        expand_value(&mut json);
        return Value::String(serde_json::to_string(&json).unwrap_or_default());
    }
    if let Some(nest) = params.get("nest") {
        let levels = params.get("depth").and_then(Value::as_u64).unwrap_or(0);
        let key = params.get("key").and_then(Value::as_str).unwrap_or("");
        let mut value = params.get("leaf").cloned().unwrap_or(Value::Null);
        // From the leaf outwards: no recursion, whatever the depth.
        for _ in 0..levels {
            value = match nest.as_str() {
                Some("object") => Value::Object(Map::from_iter([(key.to_owned(), value)])),
                _ => Value::Array(vec![value]),
            };
        }
        return value;
    }
    let count = params.get("count").and_then(Value::as_u64).unwrap_or(0);
    let count = usize::try_from(count).unwrap_or(0);
    match (params.get("repeat"), params.get("keys")) {
        (Some(Value::String(s)), _) => Value::String(s.repeat(count)),
        (_, Some(Value::String(prefix))) => {
            let value = params.get("value").cloned().unwrap_or(Value::Null);
            let mut m = Map::with_capacity(count);
            for i in 0..count {
                m.insert(format!("{prefix}{i}"), value.clone());
            }
            Value::Object(m)
        }
        _ => Value::Null,
    }
}

/// Replace every generated value inside `value` by what it stands for
/// (`value` was checked by [`find`] as part of its file).
pub fn expand_value(value: &mut Value) {
    if is_pad(value) {
        // A context-sized fill is sized when the interceptor answers
        // (crate::script::pad).
        return;
    }
    match value {
        Value::Object(m) => {
            if let Some(p) = m.get(KEY) {
                *value = expand_one(p);
            } else {
                m.values_mut().for_each(expand_value);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(expand_value),
        _ => {}
    }
}

/// The string a checked generated value at `host_declaration_text` stands
/// for; `None` when `value` is no generated string.
pub fn expand_text(value: &Value) -> Option<String> {
    match expand_one(params(value)?) {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// An object's members as written, in order, duplicates kept, each value
/// raw.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An array's items as written, each raw.
struct Items<'a>(Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Items<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Items<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    out.push(item);
                }
                Ok(Items(out))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// The raw text `raw` (the value at `pointer`) with the generated values
/// at `targets` expanded: subtrees that hold none are copied as written,
/// token for token, so integer literals stay exact (AH-CTK-091). A target
/// is checked again from the raw text itself (a duplicate member the
/// parsed value dropped cannot slip through).
pub fn expand_raw(raw: &RawValue, pointer: &str, targets: &[String]) -> Result<String, Refusal> {
    let refuse = |e: String| (pointer.to_owned(), e);
    if targets.iter().any(|t| t == pointer) {
        let value: Value = depth::parse_checked(raw.get()).map_err(|e| refuse(e.to_string()))?;
        let Value::Object(m) = &value else {
            return Err(refuse(format!("{KEY} is not an object here")));
        };
        check(m).map_err(refuse)?;
        let p = params(&value).unwrap_or(&Value::Null);
        return serde_json::to_string(&expand_one(p)).map_err(|e| refuse(e.to_string()));
    }
    let prefix = format!("{pointer}/");
    if !targets.iter().any(|t| t.starts_with(&prefix)) {
        return Ok(raw.get().to_owned());
    }
    let text = raw.get().trim_start();
    let mut out = String::with_capacity(text.len());
    if text.starts_with('{') {
        let Members(members) = depth::parse_checked(text).map_err(|e| refuse(e.to_string()))?;
        if members.iter().any(|(k, _)| k == KEY) {
            // A generated value whose pointer was not among the targets:
            // only a duplicate member can hide one from the parsed value.
            return Err(refuse(format!("{KEY} under a duplicate member")));
        }
        out.push('{');
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(k).map_err(|e| refuse(e.to_string()))?);
            out.push(':');
            out.push_str(&expand_raw(
                v,
                &format!("{prefix}{}", pointer_token(k)),
                targets,
            )?);
        }
        out.push('}');
    } else if text.starts_with('[') {
        let Items(items) = depth::parse_checked(text).map_err(|e| refuse(e.to_string()))?;
        out.push('[');
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&expand_raw(v, &format!("{prefix}{i}"), targets)?);
        }
        out.push(']');
    } else {
        return Ok(raw.get().to_owned());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn positions() {
        for p in [
            "/scenario/input/content",
            "/scenario/input/content/a/0",
            "/scenario/turns/1/input/content",
            "/scenario/model_script/0/respond/content",
            "/scenario/model_script/2/respond/tool_calls/0/args/q",
            "/scenario/model_script/2/respond/tool_calls/0/args/q/r",
            "/scenario/tools/0/behavior/3/return",
            "/scenario/tools/0/behavior/3/return/hits",
            "/interceptor_script/0/return/transform/value",
            "/interceptor_scripts/1/0/return/transform/value/x",
            "/host_declaration_text",
        ] {
            assert!(allowed(p), "{p}");
        }
        for p in [
            "",
            "/title",
            "/scenario/input",
            "/scenario/input/role",
            "/scenario/model_script/0/respond/tool_calls/0/args",
            "/scenario/model_script/0/respond/stream/0",
            "/scenario/model_script/x/respond/content",
            "/scenario/tools/0/behavior/0/when_args/q",
            "/interceptor_script/0/match/target.content",
            "/interceptor_script/0/return_raw/transform/value",
            "/interceptor_script/0/return/reason",
            "/expect/final_output",
            "/host_declaration",
            "/host_declaration_text/x",
        ] {
            assert!(!allowed(p), "{p}");
        }
    }

    #[test]
    fn sizes_are_exact() {
        for n in [0u64, 1, 9, 10, 11, 99, 100, 101, 1234] {
            let spec = json!({KEY: {"keys": "m", "count": n, "value": [1, "x"]}});
            let size = check(spec.as_object().expect("object")).expect("valid");
            let mut v = spec.clone();
            expand_value(&mut v);
            assert_eq!(
                size,
                serde_json::to_string(&v).expect("json").len() as u64,
                "{n}"
            );
            assert_eq!(v.as_object().expect("object").len() as u64, n);
        }
        let spec = json!({KEY: {"repeat": "ab", "count": 3}});
        assert_eq!(check(spec.as_object().expect("object")), Ok(6));
        let mut v = spec;
        expand_value(&mut v);
        assert_eq!(v, json!("ababab"));
    }

    /// The json form: a text, only as `host_declaration_text`, its
    /// generated values expanded and counted seven times towards the cap.
    #[test]
    fn json_texts() {
        let doc = |text: Value| json!({"id": "x", "host_declaration_text": text});
        let inner = json!({KEY: {"repeat": "ab", "count": 2}});
        let form = json!({KEY: {"json": {"a": [inner, 1], "b": null}}});
        assert_eq!(
            find(&doc(form.clone())),
            Ok(vec!["/host_declaration_text".to_owned()])
        );
        assert_eq!(
            expand_text(&form).as_deref(),
            Some(r#"{"a":["abab",1],"b":null}"#)
        );
        assert_eq!(
            expand_text(&json!({KEY: {"repeat": "ab", "count": 2}})).as_deref(),
            Some("abab")
        );
        let refused = |v: Value| find(&v).expect_err("refused");
        let (at, why) = refused(doc(json!({KEY: {"keys": "k", "count": 1, "value": 0}})));
        assert_eq!(at, "/host_declaration_text");
        assert!(why.contains("the repeat or the json form"), "{why}");
        let (at, why) = refused(json!({"scenario": {"input": {"content": form}}}));
        assert_eq!(at, "/scenario/input/content");
        assert!(why.contains("only as host_declaration_text"), "{why}");
        let nested = json!({KEY: {"json": {"a": {KEY: {"json": 1}}}}});
        let (at, why) = refused(doc(nested));
        assert_eq!(at, "/host_declaration_text/$ctk.generate/json/a");
        assert!(why.contains("only as host_declaration_text"), "{why}");
        // 10 MiB inside a json text counts 70 MiB.
        let big = json!({KEY: {"json": {"a": {KEY: {"repeat": "a", "count": 10 << 20}}}}});
        let (_, why) = refused(doc(big));
        assert!(why.contains("more than 67108864 bytes"), "{why}");
        let fits = json!({KEY: {"json": {"a": {KEY: {"repeat": "a", "count": 9 << 20}}}}});
        assert!(find(&doc(fits)).is_ok());
    }

    /// The nest forms: exact sizes, iterative expansion from the leaf
    /// out, and the kit's nesting bound met exactly where the value
    /// stands (the levels around it count), one level more refused.
    #[test]
    fn nests() {
        for (spec, text) in [
            (
                json!({"nest": "object", "key": "n", "depth": 3, "leaf": [1, "x"]}),
                r#"{"n":{"n":{"n":[1,"x"]}}}"#,
            ),
            (
                json!({"nest": "object", "key": "a\"b", "depth": 1, "leaf": null}),
                r#"{"a\"b":null}"#,
            ),
            (
                json!({"nest": "array", "depth": 2, "leaf": {"a": 0}}),
                r#"[[{"a":0}]]"#,
            ),
            (json!({"nest": "array", "depth": 0, "leaf": 7}), "7"),
        ] {
            let node = json!({KEY: spec});
            let size = check(node.as_object().expect("object")).expect("valid");
            let mut v = node.clone();
            expand_value(&mut v);
            assert_eq!(serde_json::to_string(&v).expect("json"), text);
            assert_eq!(size, text.len() as u64, "{text}");
        }
        // At the bound: the content sits inside three containers (the
        // file, scenario, input); 252 arrays around a one-level leaf make
        // 256, and the expansion nests exactly that deep.
        let doc = |depth: usize| {
            json!({"scenario": {"input": {"content":
                {KEY: {"nest": "array", "depth": depth, "leaf": {"a": 0}}}}}})
        };
        assert_eq!(
            find(&doc(252)),
            Ok(vec!["/scenario/input/content".to_owned()])
        );
        let mut at = doc(252);
        expand_value(&mut at);
        assert_eq!(depth::nesting(&at), MAX_NESTING);
        let (pointer, why) = find(&doc(253)).expect_err("one past the bound");
        assert_eq!(pointer, "/scenario/input/content");
        assert!(
            why.contains("nests 257 levels") && why.contains("beyond the 256"),
            "{why}"
        );
        let refused = |spec: Value| {
            let node = json!({KEY: spec});
            check(node.as_object().expect("object")).expect_err("refused")
        };
        for (spec, says) in [
            (
                json!({"nest": "list", "depth": 1, "leaf": 0}),
                "nest must be \"object\" or \"array\"",
            ),
            (
                json!({"nest": "object", "depth": 1, "leaf": 0}),
                "needs a key",
            ),
            (
                json!({"nest": "object", "key": 1, "depth": 1, "leaf": 0}),
                "needs a key",
            ),
            (
                json!({"nest": "array", "key": "n", "depth": 1, "leaf": 0}),
                "unknown parameter \"key\"",
            ),
            (
                json!({"nest": "array", "depth": 257, "leaf": 0}),
                "depth must be an integer from 0 to 256",
            ),
            (
                json!({"nest": "array", "depth": -1, "leaf": 0}),
                "depth must be an integer",
            ),
            (json!({"nest": "array", "leaf": 0}), "depth is missing"),
            (json!({"nest": "array", "depth": 1}), "needs a leaf"),
            (
                json!({"nest": "array", "depth": 1, "leaf": {KEY: {"repeat": "a", "count": 1}}}),
                "cannot hold another",
            ),
        ] {
            let why = refused(spec.clone());
            assert!(why.contains(says), "{spec}: {why}");
        }
    }

    /// Context-sized fills: only in a scripted transform's value, one per
    /// value, checked and counted towards the cap, and left in place by the
    /// loader for the interceptor to size.
    #[test]
    fn context_sized_fills() {
        let pad = json!({KEY: {"pad_context_to": 5_242_880}});
        let past = json!({KEY: {"pad_context_past": 5_242_880}});
        assert_eq!(
            pad_form(&pad),
            Some(Pad {
                size: 5_242_880,
                side: PadSide::AtMost
            })
        );
        assert_eq!(
            pad_form(&past),
            Some(Pad {
                size: 5_242_880,
                side: PadSide::Beyond
            })
        );
        assert_eq!(pad_form(&json!({KEY: {"repeat": "a", "count": 1}})), None);
        let rule = |value: Value| {
            json!({"at": "input", "return": {"decision": "transform",
            "transform": {"path": "$target.content", "value": value}}})
        };
        let doc = json!({"interceptor_scripts": [[], [rule(json!({"a": [pad.clone()]}))]],
            "interceptor_script": [rule(past.clone()), rule(pad.clone())]});
        assert_eq!(find(&doc), Ok(vec![]), "checked, not listed for expansion");
        assert!(holds_pad(&doc));
        assert!(!holds_pad(
            &json!({"a": [{KEY: {"repeat": "a", "count": 1}}]})
        ));
        let mut value = rule(json!({"a": [pad.clone()], "b": {KEY: {"repeat": "ab", "count": 2}}}));
        expand_value(&mut value);
        assert_eq!(
            value["return"]["transform"]["value"],
            json!({"a": [pad.clone()], "b": "abab"})
        );
        assert!(pad_allowed("/interceptor_script/3/return/transform/value"));
        assert!(pad_allowed(
            "/interceptor_scripts/0/1/return/transform/value/a/0"
        ));
        let refused = |v: Value| find(&v).expect_err("refused");
        for (doc, at, says) in [
            (
                json!({"scenario": {"input": {"content": pad.clone()}}}),
                "/scenario/input/content",
                "stand only in a scripted transform's value",
            ),
            (
                json!({"interceptor_script": [{"return_raw": {"transform": {"value": pad.clone()}}}]}),
                "/interceptor_script/0/return_raw/transform/value",
                "stand only in a scripted transform's value",
            ),
            (
                json!({"host_declaration_text": {KEY: {"json": {"a": pad.clone()}}}}),
                "/host_declaration_text/$ctk.generate/json/a",
                "stand only in a scripted transform's value",
            ),
            (
                json!({"interceptor_script": [rule(json!([pad.clone(), past.clone()]))]}),
                "/interceptor_script/0/return/transform/value/1",
                "one context-sized fill per transform value",
            ),
            (
                json!({"interceptor_script": [rule(json!({KEY: {"pad_context_to": -1}}))]}),
                "/interceptor_script/0/return/transform/value",
                "pad_context_to must be an integer from 0",
            ),
            (
                json!({"interceptor_script": [rule(json!({KEY: {"pad_context_past": 1, "fill": "y"}}))]}),
                "/interceptor_script/0/return/transform/value",
                "unknown parameter \"fill\"",
            ),
            (
                json!({"interceptor_script": [rule(json!({KEY: {"pad_context_to": MAX_GENERATED_BYTES}}))]}),
                "/interceptor_script/0/return/transform/value",
                "more than 67108864 bytes",
            ),
            (
                json!({"interceptor_script": [rule(json!({KEY: {"keys": "k", "count": 1, "value": pad.clone()}}))]}),
                "/interceptor_script/0/return/transform/value",
                "cannot hold another",
            ),
        ] {
            let (pointer, why) = refused(doc);
            assert_eq!(pointer, at, "{why}");
            assert!(why.contains(says), "{why}");
        }
    }

    #[test]
    fn raw_expansion_keeps_everything_else_as_written() {
        let text = r#"{"input": {"content": [18446744073709551616, {"$ctk.generate": {"keys": "k", "count": 2, "value": 1.0}}], "role": "user"},
            "tools": [{"name": "t", "behavior": [{"return": 1e400}]}]}"#;
        let raw: Box<RawValue> = serde_json::from_str(text).expect("raw");
        let targets = vec!["/scenario/input/content/1".to_owned()];
        let out = expand_raw(&raw, "/scenario", &targets).expect("expands");
        assert_eq!(
            out,
            r#"{"input":{"content":[18446744073709551616,{"k0":1.0,"k1":1.0}],"role":"user"},"tools":[{"name": "t", "behavior": [{"return": 1e400}]}]}"#
        );
        // A nest past serde_json's own limit of 127 levels expands in the
        // raw text too.
        let text = r#"{"input": {"content": {"$ctk.generate": {"nest": "array", "depth": 200, "leaf": 0}}}}"#;
        let raw: Box<RawValue> = serde_json::from_str(text).expect("raw");
        let targets = vec!["/scenario/input/content".to_owned()];
        let out = expand_raw(&raw, "/scenario", &targets).expect("expands");
        let expanded: Value = depth::from_str(&out).expect("within the bound");
        assert_eq!(depth::nesting(&expanded), 202);
    }
}
