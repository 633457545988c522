//! The §5.2 transform path grammar (`spec/schema/path-grammar.abnf`) and
//! replace-only application against a context's target.

use serde_json::Value;

pub use crate::errors::PathError;
use crate::reason::ReservedReason;

/// One step of a parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// `.name` or `["name"]`.
    Member(String),
    /// `[digits]`.
    Index(usize),
}

/// A parsed transform path: the segments after the `$target` root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformPath {
    /// Segments below the root; empty means the whole target.
    pub segments: Vec<Segment>,
}

impl PathError {
    /// The reserved reason a refusal becomes (§5.2).
    pub fn reason(self) -> ReservedReason {
        match self {
            PathError::NotRooted => ReservedReason::TransformTargetForbidden,
            PathError::Malformed => ReservedReason::TransformInvalid,
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

impl TransformPath {
    /// Parse a path string. `$policy_target` is the deprecated alias of
    /// `$target` and means exactly the same.
    pub fn parse(text: &str) -> Result<TransformPath, PathError> {
        let rest = if let Some(r) = text.strip_prefix("$policy_target") {
            r
        } else if let Some(r) = text.strip_prefix("$target") {
            r
        } else {
            return Err(PathError::NotRooted);
        };
        // `$targetx` is a different root, not a malformed `$target` path.
        if rest.as_bytes().first().is_some_and(|b| is_name_byte(*b)) {
            return Err(PathError::NotRooted);
        }
        let b = rest.as_bytes();
        let mut i = 0;
        let mut segments = Vec::new();
        while i < b.len() {
            match b[i] {
                b'.' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && is_name_byte(b[j]) {
                        j += 1;
                    }
                    if j == start {
                        return Err(PathError::Malformed);
                    }
                    segments.push(Segment::Member(rest[start..j].to_owned()));
                    i = j;
                }
                b'[' if b.get(i + 1) == Some(&b'"') => {
                    let start = i + 2;
                    let mut j = start;
                    while j < b.len() && is_name_byte(b[j]) {
                        j += 1;
                    }
                    if j == start || b.get(j) != Some(&b'"') || b.get(j + 1) != Some(&b']') {
                        return Err(PathError::Malformed);
                    }
                    segments.push(Segment::Member(rest[start..j].to_owned()));
                    i = j + 2;
                }
                b'[' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    if j == start || b.get(j) != Some(&b']') {
                        return Err(PathError::Malformed);
                    }
                    let index = rest[start..j]
                        .parse::<usize>()
                        .map_err(|_| PathError::Malformed)?;
                    segments.push(Segment::Index(index));
                    i = j + 1;
                }
                _ => return Err(PathError::Malformed),
            }
        }
        Ok(TransformPath { segments })
    }

    /// Replace the value at this path inside `target`. Replace-only: the last
    /// member or index must already exist; nothing else is touched.
    pub fn apply(&self, target: &mut Value, value: Value) -> Result<(), ReservedReason> {
        let mut slot = target;
        for seg in &self.segments {
            slot = match (seg, slot) {
                (Segment::Member(name), Value::Object(map)) => map.get_mut(name),
                (Segment::Index(i), Value::Array(items)) => items.get_mut(*i),
                _ => None,
            }
            .ok_or(ReservedReason::TransformInvalid)?;
        }
        *slot = value;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn grammar_accepts_every_segment_form() {
        let p = TransformPath::parse(r#"$target.a[2]["b-c"]._x"#).expect("valid");
        assert_eq!(
            p.segments,
            vec![
                Segment::Member("a".into()),
                Segment::Index(2),
                Segment::Member("b-c".into()),
                Segment::Member("_x".into())
            ]
        );
        assert_eq!(
            TransformPath::parse("$target").expect("root").segments,
            vec![]
        );
    }

    #[test]
    fn policy_target_is_an_alias() {
        assert_eq!(
            TransformPath::parse("$policy_target.url"),
            TransformPath::parse("$target.url")
        );
    }

    #[test]
    fn other_roots_are_forbidden_not_invalid() {
        for p in ["$.url", "tool_call.args", "$targets.x", "$context.url", ""] {
            assert_eq!(TransformPath::parse(p), Err(PathError::NotRooted), "{p}");
        }
    }

    #[test]
    fn grammar_refuses_wildcards_negatives_and_single_quotes() {
        for p in [
            "$target.*",
            "$target[-1]",
            "$target['a']",
            "$target.",
            "$target[]",
            "$target[\"a\"",
            "$target..a",
            "$target.a b",
        ] {
            assert_eq!(TransformPath::parse(p), Err(PathError::Malformed), "{p}");
        }
    }

    #[test]
    fn apply_replaces_only_existing_locations() {
        let mut t = json!({"a": [1, {"b": 2}], "c": 3});
        TransformPath::parse("$target.a[1].b")
            .expect("p")
            .apply(&mut t, json!("x"))
            .expect("applies");
        assert_eq!(t, json!({"a": [1, {"b": "x"}], "c": 3}));
        let missing = TransformPath::parse("$target.missing.deep").expect("p");
        assert_eq!(
            missing.apply(&mut t, json!(1)),
            Err(ReservedReason::TransformInvalid)
        );
        let new_key = TransformPath::parse("$target.d").expect("p");
        assert_eq!(
            new_key.apply(&mut t, json!(1)),
            Err(ReservedReason::TransformInvalid)
        );
        let type_mismatch = TransformPath::parse("$target.c[0]").expect("p");
        assert_eq!(
            type_mismatch.apply(&mut t, json!(1)),
            Err(ReservedReason::TransformInvalid)
        );
    }

    #[test]
    fn bare_root_replaces_the_whole_target() {
        let mut t = json!({"a": 1});
        TransformPath::parse("$target")
            .expect("p")
            .apply(&mut t, json!([1]))
            .expect("applies");
        assert_eq!(t, json!([1]));
    }
}
