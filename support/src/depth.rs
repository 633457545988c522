//! The kit's nesting bound: how deep a JSON text it reads may nest.
//!
//! serde_json refuses, by default, any text nested deeper than 127 arrays
//! and objects. That is too shallow for the kit: a context at the §12.3
//! depth bound a host may enforce (128 levels, the spec's recommended
//! default) sits inside a `ctk-harness/1` message a few levels deeper
//! still, and a host without that bound may send one a level or two past
//! it, which the kit must read to judge. So the kit lifts serde_json's
//! limit (its `unbounded_depth` feature) and puts its own in front of it:
//! every text it reads (a line of either end of the wire, a vector file)
//! is first scanned without recursion, and one nested deeper than
//! [`MAX_NESTING`] is refused with [`TooDeep`], which names the bound and
//! the byte where it was passed, before any recursive parser sees it.
//!
//! Why 256: twice the spec's recommended context bound, so a host that
//! declares a bound well above 128 can still be read, and about twice what
//! the kit's deepest vectors put on the wire (a 129-level context inside a
//! message). The bound is also what keeps every recursive walk of a value
//! the kit holds (parsing, cloning, comparing, serialising, dropping a
//! `serde_json::Value`) within a thread's stack: a debug build's parser
//! takes about 2.7 KiB of stack a level, so 256 levels take about 0.7 MiB
//! of the 2 MiB a test thread or a tokio worker has, where 512 would take
//! about 1.4 MiB before the caller's own frames, and 1024 overflows.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The deepest nesting the kit reads or writes: arrays and objects open at
/// once, the outermost one counted (`[[1]]` nests 2, a scalar 0).
pub const MAX_NESTING: usize = 256;

/// A text nested deeper than [`MAX_NESTING`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "JSON nested deeper than {limit} levels (arrays and objects open at once; the kit reads at most {limit}), passed at byte {offset}"
)]
pub struct TooDeep {
    /// The bound that was passed.
    pub limit: usize,
    /// The byte offset of the bracket that opened level `limit + 1`.
    pub offset: usize,
}

/// A text the kit could not read as JSON within its bound.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nested deeper than [`MAX_NESTING`]; never parsed.
    #[error(transparent)]
    TooDeep(#[from] TooDeep),
    /// Within the bound, but not JSON of the expected shape.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Refuse `text` if it nests deeper than [`MAX_NESTING`]. A scan of the
/// brackets outside strings, in constant stack: malformed text is the
/// parser's business, this only measures what it sees.
pub fn check(text: &str) -> Result<(), TooDeep> {
    check_within(text, MAX_NESTING)
}

/// [`check`] against another `limit`.
fn check_within(text: &str, limit: usize) -> Result<(), TooDeep> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut offset = 0;
    while let Some(&b) = bytes.get(offset) {
        match b {
            b'"' => {
                // Jump through the string, escapes and all: a payload is
                // mostly strings, and a line can be megabytes.
                offset += 1;
                loop {
                    let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[offset..]) else {
                        return Ok(());
                    };
                    offset += i;
                    if bytes[offset] == b'"' {
                        break;
                    }
                    offset += 2;
                    if offset >= bytes.len() {
                        return Ok(());
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Err(TooDeep { limit, offset });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        offset += 1;
    }
    Ok(())
}

/// The deepest a ctk report may nest: a host's value (a line nests at most
/// [`MAX_NESTING`] levels, its envelope included) is kept a few levels down
/// in a failure (`vectors[i].failures[j].actual`), so a report of a host
/// that sent a context at the kit's bound is still read.
pub const REPORT_NESTING: usize = MAX_NESTING + 16;

/// [`from_str`] against another bound, for texts the kit writes around
/// values a host sent ([`REPORT_NESTING`]).
pub fn from_str_within<'a, T: Deserialize<'a>>(
    text: &'a str,
    limit: usize,
) -> Result<T, ReadError> {
    check_within(text, limit)?;
    Ok(parse_checked(text)?)
}

/// Parse `text` as a `T` after [`check`]: serde_json's own limit is
/// lifted, the kit's bound stands in for it.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, ReadError> {
    check(text)?;
    Ok(parse_checked(text)?)
}

/// Parse `text`, a part of a text [`check`] accepted (so no deeper than
/// it), as a `T` without serde_json's recursion limit.
pub fn parse_checked<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// `RawValue::from_string` for a text [`check`] accepted (that function
/// validates under serde_json's default limit). Whitespace around the
/// value is not kept.
pub fn raw_value(text: &str) -> Result<Box<RawValue>, serde_json::Error> {
    parse_checked(text)
}

/// The nesting of `value` as [`MAX_NESTING`] counts it, in constant stack.
pub fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => {
                deepest = deepest.max(above);
                continue;
            }
        };
        deepest = deepest.max(above + 1);
        stack.extend(children.map(|c| (c, above + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` nested arrays (`open`) or objects around `0`.
    fn nested(levels: usize, object: bool) -> String {
        let (open, close) = if object { ("{\"n\":", "}") } else { ("[", "]") };
        format!("{}0{}", open.repeat(levels), close.repeat(levels))
    }

    /// The scan byte by byte, as it was before strings were skipped with
    /// `memchr`: the fast scan must refuse exactly what this refuses, at the
    /// same offset.
    fn byte_by_byte(text: &str, limit: usize) -> Result<(), TooDeep> {
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (offset, &b) in text.as_bytes().iter().enumerate() {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > limit {
                        return Err(TooDeep { limit, offset });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        #[test]
        fn the_string_skipping_scan_agrees_with_the_byte_scan(
            text in "[\\[\\]{}\"\\\\a\u{e9}]{0,40}",
            limit in 0usize..6,
        ) {
            proptest::prop_assert_eq!(check_within(&text, limit), byte_by_byte(&text, limit));
        }
    }

    #[test]
    fn nesting_counts_open_containers() {
        for (text, n) in [
            ("0", 0),
            ("[]", 1),
            ("[[1],{\"a\":[2]}]", 3),
            (r#"{"s":"[[[{{{\"[["}"#, 1),
            (r#"["\\",[[]]]"#, 3),
        ] {
            assert_eq!(check_within(text, n), Ok(()), "{text}");
            assert!(check_within(text, n.saturating_sub(1)).is_err() || n == 0);
            let value: Value = parse_checked(text).expect("json");
            assert_eq!(nesting(&value), n, "{text}");
        }
        // What serde_json reads on its own, as PROTOCOL.md §1 says.
        assert!(serde_json::from_str::<Value>(&nested(127, false)).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(128, false)).is_err());
        assert_eq!(
            check_within("[[[1]]]", 2),
            Err(TooDeep {
                limit: 2,
                offset: 2
            })
        );
    }

    /// At the bound a text parses past serde_json's own limit of 127; one
    /// past it is refused by the scan, naming the bound; so is a text
    /// 100,000 levels deep, without a recursive descent into it. Run on a
    /// thread with libtest's default 2 MiB stack whatever RUST_MIN_STACK
    /// says, with every recursive walk a kit's value meets: clone,
    /// compare, serialise, drop.
    #[test]
    fn the_bound_is_read_past_it_refused() {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                for object in [false, true] {
                    let at = nested(MAX_NESTING, object);
                    assert!(serde_json::from_str::<Value>(&at).is_err());
                    let value: Value = from_str(&at).expect("read at the bound");
                    assert_eq!(nesting(&value), MAX_NESTING);
                    let copy = value.clone();
                    assert_eq!(copy, value);
                    assert_eq!(serde_json::to_string(&copy).expect("text"), at);
                    assert!(serde_json::to_string_pretty(&copy).is_ok());
                    drop((copy, value));
                    let raw = raw_value(&at).expect("raw at the bound");
                    assert_eq!(raw.get(), at);
                    let past = nested(MAX_NESTING + 1, object);
                    let Err(ReadError::TooDeep(e)) = from_str::<Value>(&past) else {
                        panic!("one past the bound must be refused as too deep");
                    };
                    assert_eq!(e.limit, MAX_NESTING);
                    assert!(
                        e.to_string().contains("nested deeper than 256 levels"),
                        "{e}"
                    );
                }
                let flood = nested(100_000, false);
                let Err(ReadError::TooDeep(e)) = from_str::<Value>(&flood) else {
                    panic!("100,000 levels must be refused as too deep");
                };
                assert_eq!(e.offset, MAX_NESTING);
            })
            .expect("a thread")
            .join()
            .expect("no stack overflow");
    }

    #[test]
    fn malformed_text_within_the_bound_is_the_parsers_error() {
        assert!(matches!(from_str::<Value>("[1,"), Err(ReadError::Json(_))));
        assert!(matches!(
            from_str::<Value>("[1] x"),
            Err(ReadError::Json(_))
        ));
        assert!(matches!(from_str::<Value>("]]]]"), Err(ReadError::Json(_))));
    }
}
