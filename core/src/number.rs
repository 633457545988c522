//! JSON numbers as the kit reads them: by value, however they are spelled.

use serde_json::Value;

/// The largest integer a double holds exactly: 2^53 − 1.
const EXACT: f64 = 9_007_199_254_740_991.0;

/// The integer a JSON number denotes, however it is spelled: `3`, `3.0` and
/// `3e0` are one number (JSON Schema's `integer` counts all three), and an
/// implementation may write any of them (the freedoms `number-spelling` of
/// `spec/0.1/freedoms.json` and `json-number-spelling` of
/// `spec/ahp/0.1/freedoms.json`). `None` for anything but a number, for a
/// number with a fraction, and for a double beyond 2^53 that may not be
/// exact.
pub fn integral(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    n.as_i64().or_else(|| {
        let f = n.as_f64()?;
        (f.fract() == 0.0 && f.abs() <= EXACT).then_some(f as i64)
    })
}

/// JSON equality with numbers compared by mathematical value: `1` and
/// `1.0` are equal, however deep they sit. Every value assertion of both
/// suites compares through this, so a number's spelling never decides.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn as_int(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn number_eq(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    match (as_int(x), as_int(y)) {
        (Some(i), Some(j)) => i == j,
        (Some(i), None) | (None, Some(i)) => {
            let f = if as_int(x).is_some() {
                y.as_f64()
            } else {
                x.as_f64()
            };
            f.is_some_and(|f| f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == i)
        }
        (None, None) => x.as_f64() == y.as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_equal_whatever_their_numbers_spelling() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1.0]}), &json!({"a": [1]})));
        assert!(!json_eq(&json!(1), &json!(1.5)));
        assert!(!json_eq(&json!(1), &json!("1")));
        assert!(json_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn every_spelling_of_an_integer_is_that_integer() {
        for (v, want) in [
            (json!(3), Some(3)),
            (json!(3.0), Some(3)),
            (json!(-32001.0), Some(-32001)),
        ] {
            assert_eq!(integral(&v), want, "{v}");
        }
        assert_eq!(
            integral(&serde_json::from_str::<Value>("3e0").unwrap()),
            Some(3)
        );
        assert_eq!(integral(&json!(3.5)), None);
        assert_eq!(
            integral(&json!(1e21)),
            None,
            "beyond 2^53 a double may not be exact"
        );
        assert_eq!(integral(&json!("3")), None);
    }
}
