//! RFC 8785 canonical JSON, written straight into a byte sink (a hasher, a
//! counter, a buffer) so no canonical string is ever built just to be hashed.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

use crate::point::Point;

/// Where canonical bytes go.
pub trait CanonicalSink {
    /// Accept the next run of canonical bytes.
    fn put(&mut self, bytes: &[u8]);
}

impl CanonicalSink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl CanonicalSink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// A sink that only counts, for size caps measured in canonical bytes.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteCounter(pub usize);

impl CanonicalSink for ByteCounter {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

/// Write `value` as RFC 8785 canonical JSON.
///
/// serde_json values cannot hold NaN or infinities, so every value has a
/// canonical form and this cannot fail.
pub fn write_canonical<S: CanonicalSink + ?Sized>(value: &Value, sink: &mut S) {
    match value {
        Value::Null => sink.put(b"null"),
        Value::Bool(true) => sink.put(b"true"),
        Value::Bool(false) => sink.put(b"false"),
        Value::Number(n) => write_number(n, sink),
        Value::String(s) => write_string(s, sink),
        Value::Array(items) => {
            sink.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink.put(b",");
                }
                write_canonical(item, sink);
            }
            sink.put(b"]");
        }
        Value::Object(map) => write_object(map.iter(), sink),
    }
}

/// Write the members of an object in RFC 8785 order (UTF-16 code units).
fn write_object<'a, S, I>(members: I, sink: &mut S)
where
    S: CanonicalSink + ?Sized,
    I: Iterator<Item = (&'a String, &'a Value)>,
{
    let mut sorted: Vec<(&String, &Value)> = members.collect();
    sorted.sort_by(|a, b| utf16_cmp(a.0, b.0));
    sink.put(b"{");
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            sink.put(b",");
        }
        write_string(k, sink);
        sink.put(b":");
        write_canonical(v, sink);
    }
    sink.put(b"}");
}

/// Compare two strings by their UTF-16 code units, as RFC 8785 §3.2.3 sorts keys.
pub fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn write_string<S: CanonicalSink + ?Sized>(s: &str, sink: &mut S) {
    sink.put(b"\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0a => Some(b"\\n"),
            0x0c => Some(b"\\f"),
            0x0d => Some(b"\\r"),
            _ => None,
        };
        if escape.is_none() && b >= 0x20 {
            continue;
        }
        sink.put(&bytes[start..i]);
        match escape {
            Some(e) => sink.put(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                sink.put(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(b >> 4) as usize],
                    HEX[(b & 0xf) as usize],
                ]);
            }
        }
        start = i + 1;
    }
    sink.put(&bytes[start..]);
    sink.put(b"\"");
}

/// A fixed stack buffer for formatting one number without allocating.
struct NumBuf {
    buf: [u8; 64],
    len: usize,
}

impl NumBuf {
    fn new() -> Self {
        Self {
            buf: [0; 64],
            len: 0,
        }
    }
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    fn push(&mut self, bytes: &[u8]) {
        // A shortest-round-trip f64 never needs more than ~25 bytes.
        let end = (self.len + bytes.len()).min(self.buf.len());
        let take = end - self.len;
        self.buf[self.len..end].copy_from_slice(&bytes[..take]);
        self.len = end;
    }
}

impl std::fmt::Write for NumBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

fn write_number<S: CanonicalSink + ?Sized>(n: &Number, sink: &mut S) {
    use std::fmt::Write as _;
    let mut out = NumBuf::new();
    if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(f) = n.as_f64() {
        write_f64(f, &mut out);
    }
    sink.put(out.as_bytes());
}

/// ECMA-262 Number::toString for a finite double (RFC 8785 §3.2.2.3).
///
/// ryu-js implements exactly that algorithm, including the choice between two
/// equally short digit strings equally close to the double (ties go to the
/// even digit, as ECMA-262 recommends and the RFC 8785 test corpus expects).
/// Rust's own shortest formatting breaks such ties the other way, so it
/// cannot be used here.
fn write_f64(f: f64, out: &mut NumBuf) {
    if f == 0.0 || !f.is_finite() {
        // -0 serializes as 0; non-finite values cannot reach here from serde_json.
        out.push(b"0");
        return;
    }
    let mut buffer = ryu_js::Buffer::new();
    out.push(buffer.format_finite(f).as_bytes());
}

/// The canonical JSON of `value` as a string (tests and diagnostics).
pub fn to_canonical_string(value: &Value) -> String {
    let mut buf = Vec::new();
    write_canonical(value, &mut buf);
    // The writer emits only valid UTF-8: input strings are UTF-8 and every
    // inserted byte is ASCII.
    String::from_utf8(buf).unwrap_or_default()
}

/// The required core of the identity projection (§10.2 step 2), each member
/// with its subfield whitelist (`None` keeps it whole); the point's
/// conditional members follow it.
const CORE_MEMBERS: [(&str, Option<&[&str]>); 7] = [
    ("spec", None),
    ("interception_point", None),
    ("timestamp", None),
    ("sequence", None),
    ("agent", Some(&["id", "framework"])),
    ("session", Some(&["id"])),
    ("target", None),
];

/// Write the identity projection of a context (§10.2 step 2): the required
/// core plus the point's conditional members, each cut to its subfield
/// whitelist; everything else is dropped.
///
/// The caller has validated the envelope, so `context` is an object with a
/// known `interception_point`.
pub fn write_projection<S: CanonicalSink + ?Sized>(
    context: &Map<String, Value>,
    point: Point,
    sink: &mut S,
) {
    let mut keys: Vec<(&str, Option<&[&str]>)> = CORE_MEMBERS.to_vec();
    keys.extend_from_slice(point.conditional());
    keys.sort_by(|a, b| utf16_cmp(a.0, b.0));
    keys.dedup_by(|a, b| a.0 == b.0);
    sink.put(b"{");
    let mut first = true;
    for (key, subfields) in keys {
        let Some(value) = context.get(key) else {
            continue;
        };
        if !first {
            sink.put(b",");
        }
        first = false;
        write_string(key, sink);
        sink.put(b":");
        match (subfields, value) {
            (Some(fields), Value::Object(inner)) => write_object(
                inner.iter().filter(|(k, _)| fields.contains(&k.as_str())),
                sink,
            ),
            _ => write_canonical(value, sink),
        }
    }
    sink.put(b"}");
}

/// The values of the projection, for the domain checks that walk it, each
/// with the nesting level it sits at in the projection: a member at 2, a
/// whitelisted subfield of a member at 3.
pub fn projection_members(context: &Map<String, Value>, point: Point) -> Vec<(&Value, usize)> {
    let mut out = Vec::new();
    for (key, subfields) in CORE_MEMBERS
        .iter()
        .copied()
        .chain(point.conditional().iter().copied())
    {
        match (context.get(key), subfields) {
            (Some(Value::Object(inner)), Some(fields)) => {
                out.extend(
                    inner
                        .iter()
                        .filter(|(k, _)| fields.contains(&k.as_str()))
                        .map(|(_, v)| (v, 3)),
                );
            }
            (Some(v), _) => out.push((v, 2)),
            (None, _) => {}
        }
    }
    out
}

/// `sha256:` plus the lowercase hex SHA-256 of the projection's canonical bytes.
pub fn hash_projection(context: &Map<String, Value>, point: Point) -> String {
    let mut hasher = Sha256::new();
    write_projection(context, point, &mut hasher);
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// `sha256:<hex>` of the RFC 8785 canonical bytes of `value`.
pub fn hash_canonical(value: &Value) -> String {
    let mut hasher = Sha256::new();
    write_canonical(value, &mut hasher);
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(text: &str) -> String {
        to_canonical_string(&serde_json::from_str(text).expect("json"))
    }

    #[test]
    fn spelling_ties_break_to_the_even_digit() {
        // 161838657819348.625 lies halfway between two 17-digit spellings
        // that both round-trip; ECMA-262 (and so RFC 8785) picks the even one.
        let v = serde_json::json!([161_838_657_819_348.62_f64]);
        assert_eq!(to_canonical_string(&v), "[161838657819348.62]");
        assert_eq!(
            to_canonical_string(&serde_json::json!([0.1, 1.5, 2.5e-7])),
            "[0.1,1.5,2.5e-7]"
        );
    }

    #[test]
    fn numbers_take_the_ecma_form() {
        assert_eq!(
            canon("[1.0,-0.0,1e+21,1e-07,1e-06,3.141592653589793,100,1e21,123456789012345680000]"),
            "[1,0,1e+21,1e-7,0.000001,3.141592653589793,100,1e+21,123456789012345680000]"
        );
        assert_eq!(
            canon("[0.1,-1.5e-10,5e-324,1.7976931348623157e308]"),
            "[0.1,-1.5e-10,5e-324,1.7976931348623157e+308]"
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        let v = json!({"\u{e000}": 1, "\u{10000}": 2, "z": 3, "": 4, "é": 5});
        assert_eq!(
            to_canonical_string(&v),
            "{\"\":4,\"z\":3,\"é\":5,\"\u{10000}\":2,\"\u{e000}\":1}"
        );
    }

    #[test]
    fn strings_use_minimal_escapes() {
        let v = json!("a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}é/");
        assert_eq!(
            to_canonical_string(&v),
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}é/\""
        );
    }

    #[test]
    fn projection_drops_optional_members_and_subfields() {
        let ctx = json!({"spec": "agent-hooks/0.1", "interception_point": "input", "timestamp": "t", "sequence": 1,
            "agent": {"id": "a", "framework": "f", "name": "dropped"}, "session": {"id": "s", "turn": 3},
            "target": {"content": "hi", "role": "user"}, "input": {"content": "hi", "role": "user"},
            "extensions": {"x": {}}, "trace": {"trace_id": "t"}});
        let mut buf = Vec::new();
        write_projection(ctx.as_object().expect("object"), Point::Input, &mut buf);
        assert_eq!(String::from_utf8(buf).expect("utf8"),
            "{\"agent\":{\"framework\":\"f\",\"id\":\"a\"},\"input\":{\"content\":\"hi\",\"role\":\"user\"},\"interception_point\":\"input\",\"sequence\":1,\"session\":{\"id\":\"s\"},\"spec\":\"agent-hooks/0.1\",\"target\":{\"content\":\"hi\",\"role\":\"user\"},\"timestamp\":\"t\"}");
    }

    #[test]
    fn identity_has_the_prefixed_hex_form() {
        let ctx = json!({"interception_point": "output"});
        let id = hash_projection(ctx.as_object().expect("object"), Point::Output);
        assert_eq!(id.len(), 71);
        assert!(id.starts_with("sha256:"));
    }
}
