//! Dotted paths into JSON (`a.b[0].c`, the vector grammar's lookup), `$target`
//! paths (the §5.2 grammar, for the redactor), JSON pointer tokens and value
//! equality.
//!
//! Numbers compare by mathematical value: `1` equals `1.0`, because a host
//! written in JavaScript cannot tell them apart. Everything else compares
//! structurally; object member order never matters.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// An object member.
    Key(String),
    /// An array item.
    Index(usize),
}

/// Parse a dotted path: members joined by `.`, array items as `[n]`. `None`
/// when the text is not a path.
pub fn parse_dotted(path: &str) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() && out.is_empty() {
            return None;
        }
        if !key.is_empty() {
            out.push(Segment::Key(key.to_owned()));
        } else if rest.is_empty() {
            return None;
        }
        while !rest.is_empty() {
            let close = rest.find(']')?;
            let index = rest.get(1..close)?.parse().ok()?;
            out.push(Segment::Index(index));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return None;
            }
        }
    }
    Some(out)
}

/// Parse a `$target` path (§5.2: `$target` then `.name`, `[n]` or `["name"]`).
/// The returned segments are relative to the target.
pub fn parse_target(path: &str) -> Option<Vec<Segment>> {
    let mut rest = path.strip_prefix("$target")?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[\"") {
            let end = r.find("\"]")?;
            out.push(Segment::Key(r[..end].to_owned()));
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Segment::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return None;
            }
            out.push(Segment::Key(name.to_owned()));
            rest = &r[end..];
        } else {
            return None;
        }
    }
    Some(out)
}

/// Follow `segments` from `value`.
pub fn get<'v>(value: &'v Value, segments: &[Segment]) -> Option<&'v Value> {
    segments.iter().try_fold(value, |v, seg| match seg {
        Segment::Key(k) => v.as_object()?.get(k),
        Segment::Index(i) => v.as_array()?.get(*i),
    })
}

/// Follow `segments` from `value`, mutably.
pub fn get_mut<'v>(value: &'v mut Value, segments: &[Segment]) -> Option<&'v mut Value> {
    segments.iter().try_fold(value, |v, seg| match seg {
        Segment::Key(k) => v.as_object_mut()?.get_mut(k),
        Segment::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

/// Resolve a dotted path; `None` when it does not resolve (or is not a path).
pub fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    get(value, &parse_dotted(path)?)
}

/// RFC 6901 escaping of one reference token (for the JSON pointers that
/// name where an input problem sits).
pub use ctk_support::pointer::token as pointer_token;

/// JSON equality with numbers compared by mathematical value (one reading
/// for both suites: [`ctk_core::number::json_eq`]).
pub use ctk_core::number::json_eq;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_paths_resolve_members_and_items() {
        let v = json!({"a": {"b": [1, {"c": "x"}]}});
        assert_eq!(lookup(&v, "a.b[1].c"), Some(&json!("x")));
        assert_eq!(lookup(&v, "a.b[0]"), Some(&json!(1)));
        assert_eq!(lookup(&v, "a.b[2]"), None);
        assert_eq!(lookup(&v, "a.z"), None);
        assert_eq!(lookup(&json!({"m": [[1, 2]]}), "m[0][1]"), Some(&json!(2)));
        assert!(parse_dotted("").is_none());
        assert!(parse_dotted("a[x]").is_none());
    }

    #[test]
    fn target_paths_follow_the_transform_grammar() {
        assert_eq!(parse_target("$target"), Some(vec![]));
        assert_eq!(
            parse_target("$target.a[2][\"b c\"]"),
            Some(vec![
                Segment::Key("a".into()),
                Segment::Index(2),
                Segment::Key("b c".into())
            ])
        );
        assert!(parse_target("$policy.a").is_none());
        assert!(parse_target("$target..a").is_none());
    }
}
