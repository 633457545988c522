//! Property tests: the streaming canonicaliser against `serde_jcs` as an
//! oracle, and identity invariants (key order, projection).

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use ctk_agent_hooks_reference_host::context::domain::raw_text_has_unsafe_integer;
use ctk_agent_hooks_reference_host::identity::jcs::to_canonical_string;
use ctk_agent_hooks_reference_host::identity::provider::jcs_sha256;
use ctk_agent_hooks_reference_host::SpecVersion;

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        // serde_jcs routes integers through f64, so the oracle only agrees
        // inside the I-JSON domain; beyond it jcs-sha256 refuses anyway.
        (-9_007_199_254_740_991_i64..=9_007_199_254_740_991).prop_map(Value::from),
        (0_u64..=9_007_199_254_740_991).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop_oneof![
            Just(1e21),
            Just(1e-7),
            Just(1e-6),
            Just(-0.0),
            Just(5e-324),
            Just(0.1),
            Just(1e300)
        ]
        .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[\\x00-\\x1f\"\\\\/\\u{7f}\\u{e000}\\u{10000}é]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_json_full_integers() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[0-9]{15,25}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z0-9]{0,3}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

fn context(target: Value) -> Value {
    json!({"spec": "agent-hooks/0.1", "interception_point": "pre_tool_call", "timestamp": "2026-01-01T00:00:00.000Z",
        "sequence": 4, "agent": {"id": "a", "framework": "f"}, "session": {"id": "s"},
        "target": target.clone(), "tool_call": {"id": "tc", "name": "n", "args": target},
        "extensions": {"x": {"ignored": true}}})
}

fn safe_integers(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.as_u64().is_none_or(|u| u <= 9_007_199_254_740_991)
                && n.as_i64()
                    .is_none_or(|i| i.unsigned_abs() <= 9_007_199_254_740_991)
        }
        Value::Array(a) => a.iter().all(safe_integers),
        Value::Object(m) => m.values().all(safe_integers),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonical_form_matches_serde_jcs(v in arb_json()) {
        let oracle = serde_jcs::to_string(&v).expect("serde_jcs serializes");
        prop_assert_eq!(to_canonical_string(&v), oracle);
    }

    #[test]
    fn canonical_form_ignores_key_order(v in arb_json()) {
        prop_assert_eq!(to_canonical_string(&v), to_canonical_string(&reversed(&v)));
    }

    #[test]
    fn canonical_text_round_trips_to_the_same_value(v in arb_json()) {
        let text = to_canonical_string(&v);
        let back: Value = serde_json::from_str(&text).expect("canonical text is JSON");
        prop_assert_eq!(to_canonical_string(&back), text);
    }

    #[test]
    fn integers_beyond_the_domain_are_refused_by_identity(n in 9_007_199_254_740_992_u64..) {
        let ctx = context(json!({"id": n}));
        prop_assert!(jcs_sha256(&ctx, SpecVersion::V0_1, false).is_err());
        prop_assert_eq!(to_canonical_string(&json!(n)), n.to_string());
    }

    #[test]
    fn identity_is_sha256_of_the_canonical_projection(target in arb_json()) {
        let ctx = context(target.clone());
        let ours = jcs_sha256(&ctx, SpecVersion::V0_1, false);
        if !safe_integers(&target) {
            prop_assert!(ours.is_err());
        } else if let Ok(id) = ours {
            let mut projection = ctx.clone();
            projection.as_object_mut().expect("object").remove("extensions");
            let digest = Sha256::digest(serde_jcs::to_string(&projection).expect("jcs").as_bytes());
            prop_assert_eq!(id, format!("sha256:{}", hex::encode(digest)));
        }
    }

    #[test]
    fn identity_ignores_key_order(target in arb_json()) {
        let a = jcs_sha256(&context(target.clone()), SpecVersion::V0_1, false);
        let b = jcs_sha256(&reversed(&context(target)), SpecVersion::V0_1, false);
        prop_assert_eq!(a.ok(), b.ok());
    }

    #[test]
    fn raw_scan_agrees_with_the_parsed_integers(v in arb_json_full_integers()) {
        let text = serde_json::to_string(&v).expect("serializes");
        prop_assert_eq!(raw_text_has_unsafe_integer(&text), !safe_integers(&v));
    }
}
