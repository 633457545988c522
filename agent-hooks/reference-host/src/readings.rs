//! The reference host's behavioural readings: where the text allows several
//! behaviours and a choice cannot be made at the link, the normative code
//! asks here which one to take. The default is the reference host's own
//! reading (`spec/0.1/DECISIONS.md`); only the stdio binary's `--freedoms`
//! (`crate::freedoms`) sets another, once, before it serves, so every
//! in-process use (the runner's default host, the tests, the benches) keeps
//! the default.

use std::sync::OnceLock;

use serde_json::Value;

use crate::errors::DomainError;

/// The behavioural choices the text leaves open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Readings {
    /// `jcs-sha256` refuses a float literal of integral value beyond
    /// ±(2^53 − 1), such as `1e+21` (freedom `integral-float-refused`; the
    /// default keeps it in the domain, D-13).
    pub integral_floats_refused: bool,
    /// The tool calls of one response are handled last to first (freedom
    /// `tool-call-order`).
    pub tool_calls_reversed: bool,
    /// The §12.3 bounds are 4 MiB over the host's own serialisation and 64
    /// levels (freedom `context-bounds`; the default is 5 MiB of RFC 8785
    /// bytes and 128 levels, D-13).
    pub tighter_bounds: bool,
}

static READINGS: OnceLock<Readings> = OnceLock::new();

/// Take `readings` for the rest of the process. Only the first call counts:
/// a process serves one set of readings. Returns whether this call set them.
pub fn set(readings: Readings) -> bool {
    READINGS.set(readings).is_ok()
}

/// The readings in force.
pub fn get() -> Readings {
    READINGS.get().copied().unwrap_or_default()
}

/// The size bound of the tighter reading.
pub const TIGHTER_MAX_BYTES: usize = 4 * 1024 * 1024;
/// The depth bound of the tighter reading (the context object is level 1).
pub const TIGHTER_MAX_DEPTH: usize = 64;

/// Under [`Readings::tighter_bounds`], the §12.3 breach of `context` by
/// those bounds; `None` when it is within them or the reading is not taken.
pub fn tighter_breach(context: &Value) -> Option<DomainError> {
    if !get().tighter_bounds {
        return None;
    }
    if depth(context) > TIGHTER_MAX_DEPTH {
        return Some(DomainError::TooDeep);
    }
    let size = serde_json::to_vec(context).map_or(usize::MAX, |v| v.len());
    (size > TIGHTER_MAX_BYTES).then_some(DomainError::TooLarge)
}

/// Nesting level of the deepest value, `value` itself at level 1 (a scalar
/// member counts one level below its parent, as D-13 counts).
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 1,
    }
}

/// Under [`Readings::integral_floats_refused`], whether `value` holds a
/// float of integral value beyond ±(2^53 − 1) anywhere.
pub fn holds_refused_float(value: &Value) -> bool {
    if !get().integral_floats_refused {
        return false;
    }
    fn walk(v: &Value) -> bool {
        match v {
            Value::Number(n) if n.is_f64() => n
                .as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() > 9_007_199_254_740_991.0),
            Value::Array(items) => items.iter().any(walk),
            Value::Object(map) => map.values().any(walk),
            _ => false,
        }
    }
    walk(value)
}

/// Whether the identity projection of `obj` (a context at `point`) holds a
/// float the readings refuse ([`Readings::integral_floats_refused`]).
pub fn refuses_float_in(obj: &serde_json::Map<String, Value>, point: crate::point::Point) -> bool {
    get().integral_floats_refused
        && crate::identity::jcs::projection_members(obj, point)
            .into_iter()
            .any(|(m, _)| holds_refused_float(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_the_context_as_level_one_and_scalars_below_it() {
        assert_eq!(depth(&json!(1)), 1);
        assert_eq!(depth(&json!({"a": 1})), 2);
        assert_eq!(depth(&json!({"a": [[1]]})), 4);
    }

    #[test]
    fn the_default_readings_change_nothing() {
        // Tests never set the readings: the process keeps the default.
        assert_eq!(get(), Readings::default());
        assert!(!holds_refused_float(&json!({"big": 1e21})));
        assert_eq!(
            tighter_breach(&json!({"a": "x".repeat(5 * 1024 * 1024)})),
            None
        );
    }
}
