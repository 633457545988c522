//! Context-sized fills: a scripted transform whose value holds
//! `{"$ctk.generate": {"pad_context_to": N}}` (or `pad_context_past`) is
//! answered with that form replaced by a string of `x` whose length makes
//! the context the transform composes exactly N bytes in RFC 8785 form (or
//! the nearest size the fill can reach on the form's side of N).
//!
//! Part of a context is the host's to choose (`session.id`, the agent's
//! names, the clock, `request_id`), so no value written in a vector file can
//! put a context at the §12.3 size bound; the interceptor sees the context
//! the host actually built, and sizes the fill against it.
//!
//! The composed context is the one §4.3 and §5.2 describe: the transform's
//! value replaces the value at its path inside `target`, and the new target
//! is written back to the member the point mirrors (D-13 counts every
//! member once, so the fill counts twice where both hold it). Every fill
//! character then adds the same number of bytes k, which this module
//! measures rather than assumes; only one size in k is reachable, hence the
//! two sides.

use ctk_core::digest::canonical;
use serde_json::Value;

use crate::json_path::{get_mut, parse_target, Segment};
use crate::script::redactor::write_back_field;
use crate::vector::generate::{pad_form, Pad, PadSide};

/// The character a fill repeats: ASCII, so one byte in UTF-8, and never
/// escaped in JSON text.
pub const FILL: char = 'x';

/// Why a scripted transform with a context-sized fill could not be
/// answered: the interceptor then raises, and the run is an error naming
/// the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PadError {
    /// The transform's path is not a `$target` path.
    #[error("the transform path {0:?} is not a $target path")]
    Path(String),
    /// The received context has no `target`, or the path does not resolve
    /// in it.
    #[error("the transform path {0:?} does not resolve in the context's target")]
    Unresolved(String),
    /// The composed context has no RFC 8785 form.
    #[error("the composed context has no canonical form: {0}")]
    Canonical(String),
    /// The fill does not reach the composed context.
    #[error("the fill does not reach the composed context")]
    Unreached,
    /// Even an empty fill leaves the composed context beyond the size
    /// `pad_context_to` asks for.
    #[error("with an empty fill the composed context is already {size} bytes, beyond {bound}")]
    AlreadyBeyond {
        /// The composed context's size with an empty fill.
        size: u64,
        /// The size asked for.
        bound: u64,
    },
}

/// The first context-sized fill inside a transform value: where it stands
/// and what it asks for.
fn locate(value: &Value) -> Option<(Vec<Segment>, Pad)> {
    if let Some(pad) = pad_form(value) {
        return Some((Vec::new(), pad));
    }
    let (segment, (mut path, pad)) = match value {
        Value::Object(m) => m
            .iter()
            .find_map(|(k, v)| Some((Segment::Key(k.clone()), locate(v)?)))?,
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| Some((Segment::Index(i), locate(v)?)))?,
        _ => return None,
    };
    path.insert(0, segment);
    Some((path, pad))
}

/// Whether `verdict` holds a context-sized fill: its answer then depends on
/// the context it is sized against.
pub fn holds_fill(verdict: &Value) -> bool {
    verdict
        .get("transform")
        .and_then(|t| t.get("value"))
        .and_then(locate)
        .is_some()
}

/// The verdict `verdict` (a scripted transform) with its context-sized fill
/// sized against `context`, the context the interceptor received; `None`
/// when the verdict holds no fill.
pub fn fill(verdict: &Value, context: &Value) -> Result<Option<Value>, PadError> {
    let Some(value) = verdict.get("transform").and_then(|t| t.get("value")) else {
        return Ok(None);
    };
    let Some((at, pad)) = locate(value) else {
        return Ok(None);
    };
    let path = verdict
        .get("transform")
        .and_then(|t| t.get("path"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    // §5.2's deprecated alias names the same root.
    let segments = match path.strip_prefix("$policy_target") {
        Some(rest) => parse_target(&format!("$target{rest}")),
        None => parse_target(path),
    }
    .ok_or_else(|| PadError::Path(path.to_owned()))?;
    let with = |n: u64| -> Value {
        let mut v = value.clone();
        if let Some(slot) = get_mut(&mut v, &at) {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            *slot = Value::String(std::iter::repeat_n(FILL, n).collect());
        }
        v
    };
    let measure = |n: u64| -> Result<u64, PadError> {
        let composed = compose(context, &segments, with(n))
            .ok_or_else(|| PadError::Unresolved(path.to_owned()))?;
        canonical(&composed)
            .map(|t| t.len() as u64)
            .map_err(|e| PadError::Canonical(e.0))
    };
    let (empty, one) = (measure(0)?, measure(1)?);
    let n = fill_length(pad, empty, one)?;
    // Each fill character is one unescaped byte in every place the fill
    // stands, so the size grows by the same step per character; measuring
    // the filled context too would cost a second pass over several MiB.
    let mut out = verdict.clone();
    if let Some(slot) = out.get_mut("transform").and_then(|t| t.get_mut("value")) {
        *slot = with(n);
    }
    Ok(Some(out))
}

/// The fill length that puts the composed context on `pad`'s side of its
/// size, given the composed size with an empty fill (`empty`) and with one
/// fill character (`one`).
fn fill_length(pad: Pad, empty: u64, one: u64) -> Result<u64, PadError> {
    let step = one
        .checked_sub(empty)
        .filter(|k| *k > 0)
        .ok_or(PadError::Unreached)?;
    match pad.side {
        PadSide::AtMost => {
            pad.size
                .checked_sub(empty)
                .map(|room| room / step)
                .ok_or(PadError::AlreadyBeyond {
                    size: empty,
                    bound: pad.size,
                })
        }
        PadSide::Beyond => Ok(pad
            .size
            .checked_sub(empty)
            .map_or(0, |room| room / step + 1)),
    }
}

/// `context` with `value` at `segments` inside its target, the new target
/// written back to the member the point mirrors; `None` when the path does
/// not resolve.
fn compose(context: &Value, segments: &[Segment], value: Value) -> Option<Value> {
    let mut out = context.clone();
    let slot = get_mut(out.get_mut("target")?, segments)?;
    *slot = value;
    let point = out
        .get("interception_point")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if let (Some(field), Some(target)) = (write_back_field(&point), out.get("target").cloned()) {
        let field: Vec<Segment> = field.iter().map(|k| Segment::Key((*k).into())).collect();
        if let Some(slot) = get_mut(&mut out, &field) {
            *slot = target;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn size(v: &Value) -> u64 {
        canonical(v).expect("canonical").len() as u64
    }

    fn ctx() -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "sequence": 4,
            "timestamp": "2026-01-01T00:00:00.000Z", "agent": {"id": "a", "framework": "f"},
            "session": {"id": "sess-7"}, "target": {"q": "alpha", "n": 1.0},
            "tool_call": {"id": "tc-1", "name": "lookup", "args": {"q": "alpha", "n": 1.0}}})
    }

    fn verdict(value: Value) -> Value {
        json!({"decision": "transform", "transform": {"path": "$target.q", "value": value}})
    }

    /// The composed context the host measures: the fill in the target and
    /// in the member it mirrors.
    fn composed(answer: &Value) -> Value {
        let mut c = ctx();
        c["target"]["q"] = answer["transform"]["value"].clone();
        c["tool_call"]["args"]["q"] = answer["transform"]["value"].clone();
        c
    }

    #[test]
    fn fills_to_the_size_or_the_nearest_below() {
        let base = size(&composed(&verdict(json!(""))));
        for want in [base, base + 1, base + 2, base + 101, 5_242_880] {
            let answer = fill(
                &verdict(json!({"$ctk.generate": {"pad_context_to": want}})),
                &ctx(),
            )
            .expect("fills")
            .expect("a fill");
            let got = size(&composed(&answer));
            // Each fill character counts twice (target and tool_call.args).
            assert_eq!(got, want - (want - base) % 2, "{want}");
            let text = answer["transform"]["value"].as_str().expect("a string");
            assert!(text.bytes().all(|b| b == b'x'));
        }
    }

    #[test]
    fn fills_past_the_size_by_the_least_it_can() {
        let base = size(&composed(&verdict(json!(""))));
        for (past, want) in [
            (0, base),
            (base - 1, base),
            (base, base + 2),
            (base + 1, base + 2),
            (base + 2, base + 4),
        ] {
            let answer = fill(
                &verdict(json!({"$ctk.generate": {"pad_context_past": past}})),
                &ctx(),
            )
            .expect("fills")
            .expect("a fill");
            assert_eq!(size(&composed(&answer)), want, "{past}");
        }
    }

    /// The fill may sit inside the value, and the point's mirror is the one
    /// §4.3 names: `messages` at pre_model_call, whose other members
    /// (`request_id`) count too.
    #[test]
    fn fills_inside_a_value_at_any_mirrored_point() {
        let ctx = json!({"interception_point": "pre_model_call", "request_id": "req-1",
            "target": [{"role": "user", "content": "hi"}], "messages": [{"role": "user", "content": "hi"}]});
        let v = json!({"decision": "transform", "transform": {"path": "$policy_target[0]",
            "value": {"role": "user", "content": {"$ctk.generate": {"pad_context_to": 1000}}}}});
        let answer = fill(&v, &ctx).expect("fills").expect("a fill");
        let mut c = ctx.clone();
        c["target"][0] = answer["transform"]["value"].clone();
        c["messages"][0] = answer["transform"]["value"].clone();
        assert!((999..=1000).contains(&size(&c)), "{}", size(&c));
        assert_eq!(c["target"][0]["role"], "user");
    }

    #[test]
    fn a_verdict_without_a_fill_is_left_alone() {
        assert_eq!(fill(&verdict(json!("plain")), &ctx()), Ok(None));
        assert_eq!(fill(&json!({"decision": "allow"}), &ctx()), Ok(None));
    }

    #[test]
    fn what_cannot_be_filled_is_an_error() {
        let pad = |n: u64| json!({"$ctk.generate": {"pad_context_to": n}});
        assert!(matches!(
            fill(&verdict(pad(10)), &ctx()),
            Err(PadError::AlreadyBeyond { bound: 10, .. })
        ));
        let mut v = verdict(pad(1000));
        v["transform"]["path"] = json!("$target.missing.deeper");
        assert_eq!(
            fill(&v, &ctx()),
            Err(PadError::Unresolved("$target.missing.deeper".into()))
        );
        v["transform"]["path"] = json!("tool_call.args");
        assert_eq!(
            fill(&v, &ctx()),
            Err(PadError::Path("tool_call.args".into()))
        );
        let mut no_target = ctx();
        no_target.as_object_mut().expect("object").remove("target");
        assert!(matches!(
            fill(&verdict(pad(1000)), &no_target),
            Err(PadError::Unresolved(_))
        ));
    }

    #[test]
    fn lengths() {
        let to = |size| Pad {
            size,
            side: PadSide::AtMost,
        };
        let past = |size| Pad {
            size,
            side: PadSide::Beyond,
        };
        assert_eq!(fill_length(to(100), 90, 92), Ok(5));
        assert_eq!(fill_length(to(101), 90, 92), Ok(5));
        assert_eq!(fill_length(to(90), 90, 92), Ok(0));
        assert_eq!(fill_length(past(100), 90, 92), Ok(6));
        assert_eq!(fill_length(past(101), 90, 92), Ok(6));
        assert_eq!(fill_length(past(80), 90, 92), Ok(0));
        assert_eq!(fill_length(to(100), 90, 91), Ok(10));
        assert_eq!(fill_length(past(100), 90, 91), Ok(11));
        assert_eq!(fill_length(to(100), 90, 90), Err(PadError::Unreached));
    }
}
