//! RFC 8785 canonical JSON and SHA-256 digests: what every suite's vector
//! sets, reports and claims are pinned by. Computed with `serde_jcs` and
//! `sha2`, independent of any implementation under test, so none is its own
//! oracle.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// Why a value has no RFC 8785 form (a number JSON cannot carry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("canonicalisation failed: {0}")]
pub struct CanonicalError(pub String);

/// RFC 8785 canonical text of `value`.
pub fn canonical(value: &Value) -> Result<String, CanonicalError> {
    serde_jcs::to_string(value).map_err(|e| CanonicalError(e.to_string()))
}

/// `sha256:` followed by the lowercase hex SHA-256 of `bytes`.
pub fn sha256_prefixed(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// `sha256:` digest of the RFC 8785 form of `value`.
pub fn digest_value(value: &Value) -> Result<String, CanonicalError> {
    Ok(sha256_prefixed(canonical(value)?.as_bytes()))
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
    fn digest_is_over_canonical_form() {
        let a = digest_value(&serde_json::json!({"b": 1.0, "a": [1]})).expect("digest");
        let b = digest_value(&serde_json::json!({"a": [1], "b": 1})).expect("digest");
        assert_eq!(a, b);
        assert_eq!(a.len(), 71);
    }
}
