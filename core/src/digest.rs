//! RFC 8785 canonical JSON and SHA-256 digests: what every suite's vector
//! sets, reports and claims are pinned by, and what the Agent Hooks suite
//! checks a host's identities against. Independent of any implementation
//! under test, so none is its own oracle: numbers are formatted by `ryu-js`
//! and strings escaped by `serde_json`, and a property test holds the bytes
//! to `serde_jcs`'s for any value.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// Why a value has no RFC 8785 form (a number JSON cannot carry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("canonicalisation failed: {0}")]
pub struct CanonicalError(pub String);

/// RFC 8785 canonical text of `value`.
pub fn canonical(value: &Value) -> Result<String, CanonicalError> {
    let mut out = Vec::with_capacity(256);
    write_canonical(value, &mut out)?;
    // Strings come from `str`s and everything else written is ASCII.
    String::from_utf8(out).map_err(|e| CanonicalError(e.to_string()))
}

/// Append the RFC 8785 form of `value` to `out`. Written here rather than
/// through `serde_jcs`, whose formatter buffers every object and allocates
/// each key twice to sort it: a run checks every record's identities, and
/// that was the largest share of an in-process run's allocations (issue 30).
fn write_canonical(value: &Value, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // §3.2.2.3: every number is serialized as the ECMAScript form of
        // its double, integers included (as serde_jcs does).
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.is_finite() => {
                out.extend_from_slice(ryu_js::Buffer::new().format_finite(f).as_bytes())
            }
            _ => {
                return Err(CanonicalError(format!(
                    "the number {n} has no finite double"
                )))
            }
        },
        // §3.2.2.2: serde_json escapes exactly what RFC 8785 does (`"`,
        // `\`, and the controls, as \b \t \n \f \r or lowercase \u00xx).
        Value::String(s) => write_string(s, out)?,
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(members) => {
            // §3.2.3: members sorted by the UTF-16 code units of their names.
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_unstable_by(|a, b| member_order(a.0, b.0));
            out.push(b'{');
            for (i, (name, member)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(name, out)?;
                out.push(b':');
                write_canonical(member, out)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

fn write_string(s: &str, out: &mut Vec<u8>) -> Result<(), CanonicalError> {
    serde_json::to_writer(&mut *out, s).map_err(|e| CanonicalError(e.to_string()))
}

/// `sha256:` followed by the lowercase hex SHA-256 of `bytes`.
pub fn sha256_prefixed(bytes: &[u8]) -> String {
    prefixed(Sha256::digest(bytes))
}

/// The `sha256:<lowercase hex>` spelling of a finished hash.
fn prefixed(hash: impl AsRef<[u8]>) -> String {
    format!("sha256:{}", hex::encode(hash))
}

/// `sha256:` digest of the RFC 8785 form of `value`.
pub fn digest_value(value: &Value) -> Result<String, CanonicalError> {
    Ok(sha256_prefixed(canonical(value)?.as_bytes()))
}

/// An RFC 8785 text hashed as it is written, for a digest over more than
/// should be held at once (a report of 100,000 vectors, a vector set's
/// list of digests): the caller writes the punctuation and each piece in
/// canonical order, and only one piece's text is held at a time.
pub struct DigestWriter {
    hasher: Sha256,
    piece: Vec<u8>,
}

impl Default for DigestWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl DigestWriter {
    /// An empty text.
    pub fn new() -> Self {
        Self {
            hasher: Sha256::new(),
            piece: Vec::with_capacity(256),
        }
    }

    /// Append structural text (`[`, `,`, `:`, `{`...) as it is.
    pub fn punct(&mut self, text: &str) {
        self.hasher.update(text.as_bytes());
    }

    /// Append `s` as a canonical string (an object member's name, or a
    /// string value).
    pub fn string(&mut self, s: &str) -> Result<(), CanonicalError> {
        self.piece.clear();
        write_string(s, &mut self.piece)?;
        self.hasher.update(&self.piece);
        Ok(())
    }

    /// Append the canonical form of `value`.
    pub fn value(&mut self, value: &Value) -> Result<(), CanonicalError> {
        self.piece.clear();
        write_canonical(value, &mut self.piece)?;
        self.hasher.update(&self.piece);
        Ok(())
    }

    /// Append an object of `members`, sorted here into RFC 8785 order,
    /// each value written by `value` (which may write it a piece at a time).
    pub fn object<V, E: From<CanonicalError>>(
        &mut self,
        mut members: Vec<(&str, V)>,
        value: impl FnMut(&mut Self, &str, V) -> Result<(), E>,
    ) -> Result<(), E> {
        members.sort_unstable_by(|a, b| member_order(a.0, b.0));
        self.object_in_order(members, value)
    }

    /// [`DigestWriter::object`] of members the caller has already put in
    /// [`member_order`]: an object of a hundred thousand members is then
    /// never gathered into one list to be sorted here.
    pub fn object_in_order<'m, V, E: From<CanonicalError>>(
        &mut self,
        members: impl IntoIterator<Item = (&'m str, V)>,
        mut value: impl FnMut(&mut Self, &str, V) -> Result<(), E>,
    ) -> Result<(), E> {
        self.punct("{");
        for (i, (name, member)) in members.into_iter().enumerate() {
            if i > 0 {
                self.punct(",");
            }
            self.string(name)?;
            self.punct(":");
            value(self, name, member)?;
        }
        self.punct("}");
        Ok(())
    }

    /// The `sha256:` digest of everything written.
    pub fn finish(self) -> String {
        prefixed(self.hasher.finalize())
    }
}

/// Whether `a` sorts before `b` as RFC 8785 §3.2.3 orders member names
/// (by their UTF-16 code units), for callers that write an object's members
/// themselves through a [`DigestWriter`].
pub fn member_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn digest_ignores_member_order(entries in proptest::collection::btree_map("[a-z]{1,6}", -1000i64..1000, 0..8)) {
            let forward: serde_json::Map<String, Value> = entries.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect();
            let backward: serde_json::Map<String, Value> = entries.iter().rev().map(|(k, v)| (k.clone(), Value::from(*v))).collect();
            proptest::prop_assert_eq!(digest_value(&Value::Object(forward)).ok(), digest_value(&Value::Object(backward)).ok());
        }
    }

    #[test]
    fn a_text_written_in_pieces_has_the_digest_of_the_whole() {
        let items = [
            serde_json::json!({"b": 1, "a": [true, null, "x\u{1}"]}),
            Value::from(1.5),
        ];
        let mut w = DigestWriter::new();
        w.object(
            vec![
                ("k\"", &items[..]),
                ("\u{ff61}", &[]),
                ("\u{1f600}", &items[1..]),
            ],
            |w, _, list| {
                w.punct("[");
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        w.punct(",");
                    }
                    w.value(item)?;
                }
                w.punct("]");
                Ok::<(), CanonicalError>(())
            },
        )
        .expect("written");
        let whole = serde_json::json!({"k\"": items, "\u{ff61}": [], "\u{1f600}": [items[1]]});
        assert_eq!(w.finish(), digest_value(&whole).expect("digest"));
    }

    /// Any JSON value: keys and strings from every plane (surrogate pairs
    /// sort differently in UTF-16 than in UTF-8) with the controls, numbers
    /// of every kind.
    fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let text =
            "[a-c\\u{0}-\\u{1f}\"\\\\/\\u{7f}\\u{e9}\\u{ff61}\\u{fffd}\\u{1f600}\\u{10000}]{0,4}";
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            (-1.0e-7f64..1.0e-5).prop_map(Value::from),
            (1.0e20f64..1.0e22).prop_map(Value::from),
            text.prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((text, inner), 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn canonical_form_is_serde_jcs_byte_for_byte(v in arb_json()) {
            let oracle = serde_jcs::to_string(&v).expect("serde_jcs serializes any value");
            proptest::prop_assert_eq!(canonical(&v).expect("canonical"), oracle);
        }
    }

    #[test]
    fn canonical_form_of_the_rfc_examples() {
        // RFC 8785 §3.2.3's sorting example, and §3.2.2.3's number forms.
        let v = serde_json::json!({
            "\u{20ac}": "Euro Sign", "\r": "Carriage Return", "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One", "\u{1f600}": "Emoji: Grinning Face", "\u{0080}": "Control", "\u{00f6}": "Latin Small Letter O With Diaeresis"
        });
        assert_eq!(
            canonical(&v).expect("canonical"),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{0080}\":\"Control\",\"\u{00f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        );
        let n = serde_json::json!([
            1e30,
            4.5,
            0.002,
            1e-27,
            333333333.3333333,
            9007199254740993u64,
            -0.0
        ]);
        assert_eq!(
            canonical(&n).expect("canonical"),
            "[1e+30,4.5,0.002,1e-27,333333333.3333333,9007199254740992,0]"
        );
    }

    #[test]
    fn digest_is_over_canonical_form() {
        let a = digest_value(&serde_json::json!({"b": 1.0, "a": [1]})).expect("digest");
        let b = digest_value(&serde_json::json!({"a": [1], "b": 1})).expect("digest");
        assert_eq!(a, b);
        assert_eq!(a.len(), 71);
    }
}
