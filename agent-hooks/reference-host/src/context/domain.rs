//! The I-JSON value domain (§4.4, §10.2 step 4) and the resource bounds
//! (§12.3): checks that refuse a value, never rewrite it.

use serde_json::Value;

pub use crate::errors::DomainError;
use crate::identity::jcs::bounded_size;

/// The largest integer magnitude I-JSON carries exactly: 2^53 - 1.
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;
/// Maximum nesting depth of a context (§12.3).
pub const MAX_DEPTH: usize = 128;
/// Maximum serialized size of a context in bytes (§12.3): 5 MiB.
pub const MAX_CONTEXT_BYTES: usize = 5 * 1024 * 1024;

/// Refuse integers beyond ±(2^53 − 1) and nesting deeper than [`MAX_DEPTH`]
/// anywhere in `value`; `depth` is the nesting level `value` sits at.
///
/// Only integer-typed numbers are judged: a float such as `1e+21` is a
/// double and canonicalizes as one (golden G-03).
pub fn check_domain(value: &Value, depth: usize) -> Result<(), DomainError> {
    if depth > MAX_DEPTH {
        return Err(DomainError::TooDeep);
    }
    match value {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                if u > MAX_SAFE_INTEGER {
                    return Err(DomainError::UnsafeInteger);
                }
            } else if let Some(i) = n.as_i64() {
                if i.unsigned_abs() > MAX_SAFE_INTEGER {
                    return Err(DomainError::UnsafeInteger);
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|v| check_domain(v, depth + 1)),
        Value::Object(map) => map.values().try_for_each(|v| check_domain(v, depth + 1)),
        _ => Ok(()),
    }
}

/// Enforce the §12.3 bounds on a whole context: depth, then canonical size,
/// measured in one walk that stops at the first level beyond [`MAX_DEPTH`].
pub fn check_bounds(context: &Value) -> Result<(), DomainError> {
    if bounded_size(context, 1)? > MAX_CONTEXT_BYTES {
        return Err(DomainError::TooLarge);
    }
    Ok(())
}

/// Scan raw JSON text for integer literals beyond ±(2^53 − 1), before any
/// parser coerces them: serde_json turns `18446744073709551616` into a
/// double that no value check can tell from a float literal.
///
/// String contents are skipped; a number with a fraction or an exponent is
/// not an integer literal. Malformed text is not this function's business:
/// it only reports what it can see.
pub fn raw_text_has_unsafe_integer(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                if bytes[i] == b'-' {
                    i += 1;
                }
                let digits_start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = &bytes[digits_start..i];
                let mut is_integer = true;
                while i < bytes.len()
                    && matches!(bytes[i], b'.' | b'e' | b'E' | b'+' | b'-' | b'0'..=b'9')
                {
                    is_integer = false;
                    i += 1;
                }
                if is_integer && digits_exceed_safe(digits) {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

fn digits_exceed_safe(digits: &[u8]) -> bool {
    const LIMIT: &[u8] = b"9007199254740991";
    let trimmed = match digits.iter().position(|&d| d != b'0') {
        Some(p) => &digits[p..],
        None => return false,
    };
    trimmed.len() > LIMIT.len() || (trimmed.len() == LIMIT.len() && trimmed > LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn safe_integer_boundaries_are_exact() {
        assert!(check_domain(&json!(9_007_199_254_740_991_u64), 0).is_ok());
        assert!(check_domain(&json!(-9_007_199_254_740_991_i64), 0).is_ok());
        assert_eq!(
            check_domain(&json!({"a": [9_007_199_254_740_992_u64]}), 0),
            Err(DomainError::UnsafeInteger)
        );
        assert_eq!(
            check_domain(&json!(-9_007_199_254_740_992_i64), 0),
            Err(DomainError::UnsafeInteger)
        );
    }

    #[test]
    fn floats_beyond_the_bound_are_doubles_not_integers() {
        assert!(check_domain(&json!(1e21), 0).is_ok());
    }

    #[test]
    fn raw_scan_sees_integers_a_parser_would_coerce() {
        assert!(raw_text_has_unsafe_integer(
            r#"{"id":18446744073709551616}"#
        ));
        assert!(raw_text_has_unsafe_integer(r#"[-9007199254740992]"#));
        assert!(!raw_text_has_unsafe_integer(
            r#"[9007199254740991, 1e400, 18446744073709551616.0]"#
        ));
        assert!(!raw_text_has_unsafe_integer(
            r#"{"s":"18446744073709551616 \" 99999999999999999999"}"#
        ));
    }

    #[test]
    fn non_finite_numbers_cannot_reach_a_context() {
        // A context is a serde_json value: the parser refuses the literals and
        // a number cannot hold a non-finite double, so §4.4's NaN/Infinity
        // rule holds by construction.
        for text in ["NaN", "Infinity", "-Infinity", "[1e999]"] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
        assert!(serde_json::Number::from_f64(f64::NAN).is_none());
        assert!(serde_json::Number::from_f64(f64::INFINITY).is_none());
    }

    #[test]
    fn lone_surrogates_cannot_reach_a_context() {
        for text in [r#""\ud800""#, r#""a\udc00b""#, r#"{"\ud83d": 1}"#] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn depth_beyond_bound_is_refused() {
        let mut v = json!(1);
        for _ in 0..MAX_DEPTH {
            v = json!([v]);
        }
        assert_eq!(check_bounds(&v), Err(DomainError::TooDeep));
        let mut ok = json!(1);
        for _ in 0..MAX_DEPTH - 1 {
            ok = json!([ok]);
        }
        assert!(check_bounds(&ok).is_ok());
    }

    #[test]
    fn size_beyond_bound_is_refused() {
        let big = json!({"s": "x".repeat(MAX_CONTEXT_BYTES)});
        assert_eq!(check_bounds(&big), Err(DomainError::TooLarge));
    }
}
