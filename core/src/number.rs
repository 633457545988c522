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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
