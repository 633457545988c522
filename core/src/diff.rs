//! Readable expected-against-actual diffs.

use serde_json::Value;
use similar::TextDiff;

/// Pretty JSON of a value (one line for scalars).
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// A unified diff of the pretty forms, `-` expected, `+` actual.
pub fn json_diff(expected: &Value, actual: &Value) -> String {
    let (e, a) = (pretty(expected) + "\n", pretty(actual) + "\n");
    TextDiff::from_lines(&e, &a)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_marks_changed_lines() {
        let d = json_diff(&json!({"a": 1, "b": 2}), &json!({"a": 1, "b": 3}));
        assert_eq!(
            d,
            "--- expected\n+++ actual\n@@ -1,4 +1,4 @@\n {\n   \"a\": 1,\n-  \"b\": 2\n+  \"b\": 3\n }\n"
        );
    }
}
