//! RFC 8785 canonical JSON, written straight into a byte sink (a hasher, a
//! counter, a buffer) so no canonical string is ever built just to be hashed.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

use crate::context::domain::{MAX_DEPTH, MAX_SAFE_INTEGER};
use crate::errors::DomainError;
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

/// The escape each byte takes inside a canonical string (RFC 8785 §3.2.2.2):
/// 0 for none, a letter for a two-byte `\\x` escape, `u` for `\\u00XX`.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Whether any of the eight bytes of `word` needs an escape: a control
/// byte, `"` or `\\` (the classic "has a byte less than n" and "has a zero
/// byte" tests: exact as to whether one exists, which is all the caller asks;
/// a byte of 0x80 or more never trips them).
#[inline]
fn word_may_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    control | has_zero(word ^ (ONES * u64::from(b'"'))) | has_zero(word ^ (ONES * u64::from(b'\\')))
        != 0
}

/// The bytes [`next_escape`] judges at once while none needs an escape.
const CHUNK: usize = 64;

/// Whether any byte of `chunk` needs an escape. Written as a branch-free
/// fold so the compiler turns it into vector compares (16 bytes an
/// instruction on baseline x86-64, no `unsafe`): about 15 GB/s against the
/// word-at-a-time test's 5, which is what brings the identity of a
/// megabyte-sized context near its SHA-256 floor (issue 30). The fold keeps
/// the largest mark rather than or-ing the marks in: as fast, and no
/// mutation of it (`^=`) can make two escapes cancel.
#[inline]
fn chunk_may_escape(chunk: &[u8]) -> bool {
    let mut hit = 0u8;
    for &b in chunk {
        hit = hit.max(u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\'));
    }
    hit != 0
}

/// The index of the first byte at or after `from` that may need an escape
/// (`bytes.len()` if none): [`CHUNK`] bytes a step while no chunk may need
/// one, then a word at a time ([`word_may_escape`]), then byte by byte
/// through the table.
#[inline]
fn next_escape(bytes: &[u8], mut from: usize) -> usize {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    while from + CHUNK <= bytes.len() && !chunk_may_escape(&bytes[from..from + CHUNK]) {
        from += CHUNK;
    }
    while from + 8 <= bytes.len() && !word_may_escape(word(from)) {
        from += 8;
    }
    while from < bytes.len() && ESCAPE[bytes[from] as usize] == 0 {
        from += 1;
    }
    from
}

/// The longest run of a string scanned before it is handed to the sink: short
/// enough that the bytes are still in cache when the hash reads them again.
const RUN: usize = 16 * 1024;

/// Write `s` as a canonical JSON string. Runs that need no escape (nearly
/// all of any real string) are found a word at a time and handed to the
/// sink whole, at most [`RUN`] bytes at a time.
fn write_string<S: CanonicalSink + ?Sized>(s: &str, sink: &mut S) {
    sink.put(b"\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    loop {
        let end = bytes.len().min(start + RUN);
        let i = next_escape(&bytes[..end], start);
        sink.put(&bytes[start..i]);
        if i == end {
            if end == bytes.len() {
                break;
            }
            start = end;
            continue;
        }
        let b = bytes[i];
        let escape = ESCAPE[b as usize];
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            sink.put(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ]);
        } else {
            sink.put(&[b'\\', escape]);
        }
        start = i + 1;
    }
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

/// What one pass over a context measured: the §12.3 size of the whole
/// context and, when asked for, the §10.2 identity of its projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextScan {
    /// Canonical (RFC 8785) byte count of the whole context.
    pub bytes: usize,
    /// `sha256:<hex>` of the projection's canonical bytes, when a point was given.
    pub identity: Option<String>,
    /// Whether the projection holds an integer beyond ±(2^53 − 1) (§4.4).
    pub unsafe_integer: bool,
}

/// The sink of [`scan_context`]: it counts the bytes that belong to the
/// whole context and hashes those that belong to the projection, so a member
/// in both is written once for both.
struct Scanner {
    bytes: usize,
    hasher: Sha256,
    count: bool,
    hash: bool,
    unsafe_integer: bool,
}

impl CanonicalSink for Scanner {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.count {
            self.bytes += bytes.len();
        }
        if self.hash {
            self.hasher.update(bytes);
        }
    }
}

impl Scanner {
    /// Write `value`, which sits at nesting level `depth`, refusing a level
    /// beyond [`MAX_DEPTH`] before writing it. Numbers written into the
    /// hash are judged against the I-JSON domain on the way.
    fn value(&mut self, value: &Value, depth: usize) -> Result<(), DomainError> {
        if depth > MAX_DEPTH {
            return Err(DomainError::TooDeep);
        }
        match value {
            Value::Null => self.put(b"null"),
            Value::Bool(true) => self.put(b"true"),
            Value::Bool(false) => self.put(b"false"),
            Value::Number(n) => {
                if self.hash && !number_is_safe(n) {
                    self.unsafe_integer = true;
                }
                write_number(n, self);
            }
            Value::String(s) => write_string(s, self),
            Value::Array(items) => {
                self.put(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.put(b",");
                    }
                    self.value(item, depth + 1)?;
                }
                self.put(b"]");
            }
            Value::Object(map) if self.hash => self.members(map.iter().collect(), depth)?,
            Value::Object(map) => {
                // Counting only: the size does not depend on member order.
                self.put(b"{");
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        self.put(b",");
                    }
                    write_string(k, self);
                    self.put(b":");
                    self.value(v, depth + 1)?;
                }
                self.put(b"}");
            }
        }
        Ok(())
    }

    /// Write an object of `members` (at level `depth`) in RFC 8785 order.
    fn members(
        &mut self,
        mut members: Vec<(&String, &Value)>,
        depth: usize,
    ) -> Result<(), DomainError> {
        members.sort_by(|a, b| utf16_cmp(a.0, b.0));
        self.put(b"{");
        for (i, (k, v)) in members.into_iter().enumerate() {
            if i > 0 {
                self.put(b",");
            }
            write_string(k, self);
            self.put(b":");
            self.value(v, depth + 1)?;
        }
        self.put(b"}");
        Ok(())
    }

    /// Write one member's `"key":value` with the given sinks on.
    fn member(
        &mut self,
        key: &str,
        value: &Value,
        count: bool,
        hash: bool,
    ) -> Result<(), DomainError> {
        (self.count, self.hash) = (count, hash);
        write_string(key, self);
        self.put(b":");
        self.value(value, 2)
    }
}

/// Whether an integer-typed number lies within ±(2^53 − 1); floats are
/// doubles and always canonicalize (golden G-03).
fn number_is_safe(n: &Number) -> bool {
    if let Some(u) = n.as_u64() {
        u <= MAX_SAFE_INTEGER
    } else if let Some(i) = n.as_i64() {
        i.unsigned_abs() <= MAX_SAFE_INTEGER
    } else {
        true
    }
}

/// The projection's members in RFC 8785 order, each with its subfield
/// whitelist: the required core plus `point`'s conditional members.
fn projection_keys(point: Point) -> Vec<(&'static str, Option<&'static [&'static str]>)> {
    let mut keys: Vec<(&str, Option<&[&str]>)> = CORE_MEMBERS.to_vec();
    keys.extend_from_slice(point.conditional());
    keys.sort_by(|a, b| utf16_cmp(a.0, b.0));
    keys.dedup_by(|a, b| a.0 == b.0);
    keys
}

/// One pass over `context` (an object at nesting level 1): its canonical
/// byte count and, with `point`, the identity of its projection, the depth
/// bound checked on the way. Each member's canonical bytes are produced once
/// and go to the counter, to the hash, or to both; only the two whitelisted
/// members (`agent`, `session`), whose projected form differs from the whole
/// one, are written twice.
///
/// The result is exactly what [`check_bounds`](crate::context::domain::check_bounds)'s
/// walk, [`hash_projection`] and the domain check of the projection's members
/// would each find: a level beyond [`MAX_DEPTH`] anywhere is
/// [`DomainError::TooDeep`] (which they would report first), and the
/// caller judges the size and the integer domain, in that order.
pub fn scan_context(
    context: &Map<String, Value>,
    point: Option<Point>,
) -> Result<ContextScan, DomainError> {
    let mut sc = Scanner {
        // The braces and the commas between members.
        bytes: 2 + context.len().saturating_sub(1),
        hasher: Sha256::new(),
        count: true,
        hash: false,
        unsafe_integer: false,
    };
    let keys = point.map(projection_keys).unwrap_or_default();
    if point.is_some() {
        (sc.count, sc.hash) = (false, true);
        sc.put(b"{");
        let mut first = true;
        for &(key, subfields) in &keys {
            let Some((key, value)) = context.get_key_value(key) else {
                continue;
            };
            if !first {
                (sc.count, sc.hash) = (false, true);
                sc.put(b",");
            }
            first = false;
            match (subfields, value) {
                (Some(fields), Value::Object(inner)) => {
                    sc.member(key, value, true, false)?;
                    (sc.count, sc.hash) = (false, true);
                    write_string(key, &mut sc);
                    sc.put(b":");
                    let kept = inner
                        .iter()
                        .filter(|(k, _)| fields.contains(&k.as_str()))
                        .collect();
                    sc.members(kept, 2)?;
                }
                _ => sc.member(key, value, true, true)?,
            }
        }
        (sc.count, sc.hash) = (false, true);
        sc.put(b"}");
    }
    for (key, value) in context {
        if !keys.iter().any(|(k, _)| *k == key.as_str()) {
            sc.member(key, value, true, false)?;
        }
    }
    let identity = point.map(|_| format!("sha256:{}", hex::encode(sc.hasher.finalize())));
    Ok(ContextScan {
        bytes: sc.bytes,
        identity,
        unsafe_integer: sc.unsafe_integer,
    })
}

/// The canonical byte count of `value` (at nesting level `depth`), refusing
/// a level beyond [`MAX_DEPTH`] on the way: the §12.3 walk in one pass.
pub fn bounded_size(value: &Value, depth: usize) -> Result<usize, DomainError> {
    let mut sc = Scanner {
        bytes: 0,
        hasher: Sha256::new(),
        count: true,
        hash: false,
        unsafe_integer: false,
    };
    sc.value(value, depth)?;
    Ok(sc.bytes)
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
    fn escapes_are_found_at_every_offset_of_a_word() {
        // The chunk and word scans must see an escape wherever it falls in
        // (or after) a 64-byte chunk or an eight-byte word, next to
        // multi-byte characters too.
        for len in (1..20).chain([63, 64, 65, 71, 72, 73, 127, 128, 129, 140]) {
            for pos in 0..len {
                for c in [
                    '"',
                    '\\',
                    '\n',
                    '\u{1}',
                    '\u{1f}',
                    '\u{7f}',
                    'é',
                    '\u{10000}',
                ] {
                    let s: String = (0..len).map(|i| if i == pos { c } else { 'a' }).collect();
                    let v = Value::String(s);
                    assert_eq!(
                        to_canonical_string(&v),
                        serde_jcs::to_string(&v).expect("jcs"),
                        "{c:?} at {pos} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_escape_of_a_chunk_is_written() {
        // Two or three escapes in one 64-byte chunk: a scan that let a
        // second hit cancel the first would skip both.
        for (i, j) in [(0, 1), (0, 63), (5, 40), (62, 63), (10, 74)] {
            for extra in [None, Some(30)] {
                let mut s: Vec<char> = "a".repeat(130).chars().collect();
                s[i] = '"';
                s[j] = '\n';
                if let Some(k) = extra {
                    s[k] = '\\';
                }
                let v = Value::String(s.into_iter().collect());
                assert_eq!(
                    to_canonical_string(&v),
                    serde_jcs::to_string(&v).expect("jcs"),
                    "escapes at {i}, {j}, {extra:?}"
                );
            }
        }
    }

    #[test]
    fn long_strings_are_written_whole_across_runs() {
        for pos in [RUN - 1, RUN, RUN + 1, 2 * RUN + 7] {
            let mut s = "x".repeat(3 * RUN);
            s.replace_range(pos..pos + 1, "\n");
            let v = Value::String(s);
            assert_eq!(
                to_canonical_string(&v),
                serde_jcs::to_string(&v).expect("jcs"),
                "escape at {pos}"
            );
        }
    }

    #[test]
    fn one_pass_matches_the_size_walk_and_the_projection_hash() {
        let ctx = json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call",
            "timestamp": "t", "sequence": 3, "é": [true, null, -1.5e-7],
            "agent": {"id": "a", "framework": "f", "name": "dropped \"quoted\""},
            "session": {"id": "s", "turn": 3}, "trace": {"trace_id": "x\ny"},
            "tool_call": {"id": "tc", "name": "t", "args": {"q": "\u{1}\u{10000}", "n": [1, 2]}},
            "target": {"id": "tc", "name": "t", "args": {"q": "\u{1}\u{10000}", "n": [1, 2]}},
            "extensions": {"x": {"big": 9_007_199_254_740_993_u64}}});
        let obj = ctx.as_object().expect("object");
        let whole = to_canonical_string(&ctx).len();
        let scan = scan_context(obj, Some(Point::PreToolCall)).expect("within bounds");
        assert_eq!(scan.bytes, whole);
        assert_eq!(
            scan.identity,
            Some(hash_projection(obj, Point::PreToolCall))
        );
        // The unsafe integer lies outside the projection.
        assert!(!scan.unsafe_integer);
        let sized = scan_context(obj, None).expect("within bounds");
        assert_eq!((sized.bytes, sized.identity), (whole, None));
        assert_eq!(bounded_size(&ctx, 1), Ok(whole));

        let mut inside = ctx.clone();
        inside["target"]["args"]["n"] = json!([9_007_199_254_740_992_u64]);
        let scan = scan_context(
            inside.as_object().expect("object"),
            Some(Point::PreToolCall),
        );
        assert!(scan.expect("within bounds").unsafe_integer);

        let mut deep = json!("x");
        for _ in 0..127 {
            deep = json!([deep]);
        }
        let mut c = ctx.clone();
        c["extensions"] = json!({"x": deep});
        // extensions (2) > x (3): the innermost of 127 arrays sits at 129.
        assert_eq!(
            scan_context(c.as_object().expect("object"), Some(Point::PreToolCall)),
            Err(DomainError::TooDeep)
        );
        assert_eq!(bounded_size(&c, 1), Err(DomainError::TooDeep));
    }

    #[test]
    fn identity_has_the_prefixed_hex_form() {
        let ctx = json!({"interception_point": "output"});
        let id = hash_projection(ctx.as_object().expect("object"), Point::Output);
        assert_eq!(id.len(), 71);
        assert!(id.starts_with("sha256:"));
    }
}
