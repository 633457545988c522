//! Strict JSON reading: UTF-8 only, and no object with a repeated member
//! name.
//!
//! RFC 8259 only says names SHOULD be unique, and `serde_json` silently
//! keeps the last of two equal names. A repeated `protocolVersion` or `id`
//! makes an AHP message mean two things, and the upstream checker rejects
//! repeated names, so the kit reads every AHP document through this module
//! and reports where the repetition is.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why a text is not one strict JSON value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// The bytes are not UTF-8 (AHP messages are UTF-8, spec 7.1).
    #[error("not UTF-8: invalid byte sequence at byte {offset}")]
    NotUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The text is not JSON, or holds something after the value.
    #[error("not JSON: {detail}")]
    Syntax {
        /// What `serde_json` reported, with line and column.
        detail: String,
    },
    /// One object has the same member name twice.
    #[error("member {name:?} appears more than once in one object")]
    DuplicateKey {
        /// JSON pointer of the repeated member (the object's pointer plus
        /// the name).
        pointer: String,
        /// The repeated name.
        name: String,
    },
}

impl JsonError {
    /// The JSON pointer the problem is at (`""` for the whole text).
    pub fn pointer(&self) -> &str {
        match self {
            JsonError::DuplicateKey { pointer, .. } => pointer,
            _ => "",
        }
    }
}

/// Decode `bytes` as UTF-8, then parse one strict JSON value.
pub fn parse_bytes(bytes: &[u8]) -> Result<Value, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|e| JsonError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    parse_str(text)
}

/// Parse one strict JSON value from `text` (no repeated member names).
pub fn parse_str(text: &str) -> Result<Value, JsonError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = StrictSeed {
        pointer: String::new(),
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match parsed {
        Ok(v) => Ok(v),
        Err(e) => match duplicate.into_inner() {
            Some((pointer, name)) => Err(JsonError::DuplicateKey { pointer, name }),
            None => Err(JsonError::Syntax {
                detail: e.to_string(),
            }),
        },
    }
}

/// Escape one reference token of a JSON pointer (RFC 6901).
pub use ctk_support::pointer::token as escape_token;

struct StrictSeed<'a> {
    pointer: String,
    duplicate: &'a RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for StrictSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictSeed<'_> {
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

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
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

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let seed = StrictSeed {
                pointer: format!("{}/{}", self.pointer, out.len()),
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let pointer = format!("{}/{}", self.pointer, escape_token(&key));
            if out.contains_key(&key) {
                *self.duplicate.borrow_mut() = Some((pointer, key.clone()));
                return Err(de::Error::custom(format!("duplicate member {key:?}")));
            }
            let value = map.next_value_seed(StrictSeed {
                pointer,
                duplicate: self.duplicate,
            })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_member_is_named_with_its_pointer() {
        let e = parse_str(r#"{"a":{"b/c":1,"b/c":2}}"#).unwrap_err();
        assert_eq!(
            e,
            JsonError::DuplicateKey {
                pointer: "/a/b~1c".into(),
                name: "b/c".into()
            }
        );
    }

    #[test]
    fn equal_names_in_different_objects_are_fine() {
        let v = parse_str(r#"[{"a":1},{"a":2}]"#).unwrap();
        assert_eq!(v[1]["a"], 2);
    }

    #[test]
    fn not_utf8_and_trailing_text_are_refused() {
        assert!(matches!(
            parse_bytes(b"{\"a\":\"\xff\"}"),
            Err(JsonError::NotUtf8 { offset: 6 })
        ));
        assert!(matches!(parse_str("{} {}"), Err(JsonError::Syntax { .. })));
    }
}
