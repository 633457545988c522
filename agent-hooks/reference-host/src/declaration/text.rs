//! Steps 1 and 2 of the pipeline: reading a file and parsing JSON text
//! strictly (one object, no duplicate keys, depth and size bounds, nothing
//! after the document), and the same bounds on a value built in code.

use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::declaration::error::{DeclarationError, RefusalClass};

/// Largest document, in bytes of text (the value path measures its
/// serialization).
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// Deepest nesting a document may have; the root object is level 1.
pub const MAX_DOCUMENT_DEPTH: usize = 32;

fn unreadable(detail: impl Into<String>) -> DeclarationError {
    DeclarationError::one(RefusalClass::Unreadable, "", detail)
}

fn malformed(detail: impl Into<String>) -> DeclarationError {
    DeclarationError::one(RefusalClass::Malformed, "", detail)
}

/// Step 1: read `path` as the text of a document.
pub fn read_file(path: &Path) -> Result<String, DeclarationError> {
    let meta =
        std::fs::metadata(path).map_err(|e| unreadable(format!("cannot stat: {}", e.kind())))?;
    if !meta.is_file() {
        return Err(unreadable("not a regular file"));
    }
    if meta.len() > MAX_DOCUMENT_BYTES as u64 {
        return Err(unreadable("larger than 1 MiB"));
    }
    let file =
        std::fs::File::open(path).map_err(|e| unreadable(format!("cannot open: {}", e.kind())))?;
    let mut bytes = Vec::new();
    // Read one byte past the bound so that a file growing under us is caught.
    file.take(MAX_DOCUMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(format!("cannot read: {}", e.kind())))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(unreadable("larger than 1 MiB"));
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(unreadable("starts with a byte-order mark"));
    }
    String::from_utf8(bytes).map_err(|_| unreadable("not valid UTF-8"))
}

/// Step 2 on text: parse exactly one JSON object.
pub fn parse_text(text: &str) -> Result<Value, DeclarationError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(malformed("text larger than 1 MiB"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict {
        depth: 1,
        limit: MAX_DOCUMENT_DEPTH,
    }
    .deserialize(&mut de)
    .map_err(|e| malformed(format!("not a JSON document: {}", e_text(&e))))?;
    de.end()
        .map_err(|_| malformed("content follows the document"))?;
    if !value.is_object() {
        return Err(malformed("the root is not an object"));
    }
    Ok(value)
}

/// Parse `text` as one JSON value of any root and depth, with no member
/// name repeated within an object, no integer literal beyond 64 bits and
/// nothing after it: `None` when it is not (the value a JSON parser builds
/// would not represent the text exactly). Host adapters use it to decide whether a document given as text
/// can also go through the value path; the loader's own step 2 is
/// [`parse_text`].
pub fn parse_exact(text: &str) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict {
        depth: 1,
        limit: usize::MAX,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    // An integer literal beyond 64 bits became a float: the value no longer
    // writes what the text wrote.
    let coerced = unsafe_integer_pointers(text)
        .iter()
        .any(|p| value.pointer(p).is_some_and(|n| n.is_f64()));
    (!coerced).then_some(value)
}

/// RFC 6901 pointers of the integer literals in `text` whose magnitude
/// passes 2^53 − 1 (`9007199254740991`), in document order. A literal with
/// a fraction or an exponent is not an integer literal. `text` is a
/// document [`parse_text`] accepted; the scan reads the tokens themselves,
/// so it also sees literals beyond 64 bits that a parser turns into floats.
pub fn unsafe_integer_pointers(text: &str) -> Vec<String> {
    let mut scan = Scan {
        text,
        at: 0,
        out: Vec::new(),
    };
    // A text the parser accepted always scans to its end; on anything
    // unexpected the scan stops with what it found so far.
    let _ = scan.value("");
    scan.out
}

/// Whether an integer literal's digits (no sign) write a number beyond
/// 2^53 − 1.
fn digits_beyond_safe(digits: &str) -> bool {
    const LIMIT: &str = "9007199254740991";
    let d = digits.trim_start_matches('0');
    d.len() > LIMIT.len() || (d.len() == LIMIT.len() && d > LIMIT)
}

/// The token scanner behind [`unsafe_integer_pointers`].
struct Scan<'t> {
    text: &'t str,
    at: usize,
    out: Vec<String>,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    /// One string token, decoded.
    fn string(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.at;
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        serde_json::from_str(self.text.get(start..self.at)?).ok()
    }

    fn value(&mut self, pointer: &str) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                self.skip_ws();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    let key = self.string()?;
                    self.expect(b':')?;
                    self.value(&format!(
                        "{pointer}/{}",
                        crate::declaration::check::token(&key)
                    ))?;
                    self.skip_ws();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Some(());
                }
                let mut index = 0usize;
                loop {
                    self.value(&format!("{pointer}/{index}"))?;
                    index += 1;
                    self.skip_ws();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.at += 1;
                }
                let token = self.text.get(start..self.at)?;
                let digits = token.strip_prefix('-').unwrap_or(token);
                if digits.bytes().all(|b| b.is_ascii_digit()) && digits_beyond_safe(digits) {
                    self.out.push(pointer.to_owned());
                }
                Some(())
            }
            _ => {
                // true, false, null
                while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                    self.at += 1;
                }
                Some(())
            }
        }
    }
}

/// An error's text without the value that caused it (serde_json names
/// positions and the rule, never document values, except for duplicate keys,
/// which [`Strict`] reports itself).
fn e_text(e: &serde_json::Error) -> String {
    e.to_string()
}

/// Step 2 on a value built in code: root object, depth, and the size of its
/// serialization. A `serde_json::Value` cannot hold a non-finite number or
/// a duplicate key, so those checks have nothing to find here.
pub fn check_value(value: &Value) -> Result<(), DeclarationError> {
    if !value.is_object() {
        return Err(malformed("the root is not an object"));
    }
    if depth(value) > MAX_DOCUMENT_DEPTH {
        return Err(malformed(format!(
            "nesting exceeds {MAX_DOCUMENT_DEPTH} levels"
        )));
    }
    let size = serde_json::to_string(value).map_or(usize::MAX, |s| s.len());
    if size > MAX_DOCUMENT_BYTES {
        return Err(malformed("serialization larger than 1 MiB"));
    }
    Ok(())
}

/// Nesting depth: a scalar is 0, an empty or scalar-only container 1.
pub fn depth(value: &Value) -> usize {
    match value {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A `Value` deserializer that refuses duplicate keys and nesting beyond
/// `limit` levels ([`MAX_DOCUMENT_DEPTH`] for the loader).
#[derive(Clone, Copy)]
struct Strict {
    depth: usize,
    limit: usize,
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor {
            depth: self.depth,
            limit: self.limit,
        })
    }
}

struct StrictVisitor {
    depth: usize,
    limit: usize,
}

impl StrictVisitor {
    fn nested<E: serde::de::Error>(&self) -> Result<Strict, E> {
        if self.depth > self.limit {
            return Err(E::custom(format!("nesting exceeds {} levels", self.limit)));
        }
        Ok(Strict {
            depth: self.depth + 1,
            limit: self.limit,
        })
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let nested = self.nested()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(nested)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let nested = self.nested()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(A::Error::custom("a key repeats within one object"));
            }
            let v = map.next_value_seed(nested)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}
