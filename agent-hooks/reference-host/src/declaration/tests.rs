//! Loader tests: one per pipeline step, the step order, the resolved form
//! (the golden D-01 text), the four construction paths, sealing and kinds.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::kinds::{with_reference_kinds, ALLOW_ALL, TOOL_DENY_LIST};
use super::*;
use crate::compose::dispatch::{BoxFuture, Interceptor, InterceptorAnswer};
use crate::context::build::{build_context, AgentIdentity};
use crate::identity::provider::CustomIdentityProvider;
use crate::point::Point;
use crate::seam::approval::{ApprovalResolver, ResolverAnswer};
use crate::seam::redaction::{Redactor, RedactorAnswer};
use crate::spec_version::SpecVersion;

struct Allow;
impl Interceptor for Allow {
    fn intercept(&self, _c: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}
struct NoResolver;
impl ApprovalResolver for NoResolver {
    fn resolve(&self, _r: Value) -> BoxFuture<ResolverAnswer> {
        Box::pin(async { ResolverAnswer::Raised })
    }
}
struct Same;
impl Redactor for Same {
    fn redact(&self, c: Value) -> BoxFuture<RedactorAnswer> {
        Box::pin(async move { RedactorAnswer::Redacted(c) })
    }
}
struct Hmac;
impl CustomIdentityProvider for Hmac {
    fn compute(&self, _c: &Value) -> Result<String, String> {
        Ok("hmac:1".into())
    }
}

fn allow_kind() -> Arc<dyn KindResolver> {
    Arc::new(
        |_c: &Value, _b: &BindingContext| -> Result<Arc<dyn Interceptor>, String> {
            Ok(Arc::new(Allow))
        },
    )
}

/// The registry of the upstream golden file (facts A11.7): its code
/// surface and its registered names.
fn golden_registry() -> HostRegistry {
    HostRegistry::new(HostSurface::full(&[
        "model_calls",
        "tool_calls",
        "int64_json",
        "host_declaration",
    ]))
    .kind("com.example.allow", allow_kind())
    .and_then(|r| r.kind("com.example.audit-log", allow_kind()))
    .and_then(|r| r.kind("com.example.egress", allow_kind()))
    .and_then(|r| r.approval_resolver("operator-queue", Arc::new(NoResolver)))
    .and_then(|r| r.approval_redactor("strip-secrets", Arc::new(Same)))
    .and_then(|r| r.identity_provider("hmac-sha256-k1", Arc::new(Hmac)))
    .expect("registry")
}

fn reference_registry() -> HostRegistry {
    with_reference_kinds(HostRegistry::new(HostSurface::reference()))
        .and_then(|r| {
            r.kind(
                "com.example.panics",
                Arc::new(
                    |_c: &Value, _b: &BindingContext| -> Result<Arc<dyn Interceptor>, String> {
                        panic!("resolver bug")
                    },
                ),
            )
        })
        .expect("registry")
}

fn minimal() -> Value {
    json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
           "bindings": [{"id": "allow", "kind": ALLOW_ALL}]})
}

fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer");
    let mut at = &mut doc;
    for part in parent.split('/').skip(1) {
        at = match at {
            Value::Array(a) => &mut a[part.parse::<usize>().expect("index")],
            other => {
                let m = other.as_object_mut().expect("object");
                m.entry(part.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()))
            }
        };
    }
    match at {
        Value::Array(a) => {
            let i: usize = key.parse().expect("index");
            if i == a.len() {
                a.push(value);
            } else {
                a[i] = value;
            }
        }
        other => {
            other
                .as_object_mut()
                .expect("object")
                .insert(key.to_owned(), value);
        }
    }
    doc
}

fn without(mut doc: Value, key: &str) -> Value {
    doc.as_object_mut().expect("object").remove(key);
    doc
}

fn class_of(r: &HostRegistry, doc: &Value) -> Option<RefusalClass> {
    Loader::new(r).load_value(doc).err().map(|e| e.class)
}

fn refused(r: &HostRegistry, doc: &Value) -> DeclarationError {
    Loader::new(r).load_value(doc).expect_err("refused")
}

// ---- step 1: unreadable ----

#[test]
fn unreadable_path_refused() {
    let r = reference_registry();
    let l = Loader::new(&r);
    let dir = std::env::temp_dir().join(format!("ctk-decl-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    assert_eq!(
        l.load_path(dir.join("missing.json"))
            .expect_err("missing")
            .class,
        RefusalClass::Unreadable
    );
    assert_eq!(
        l.load_path(&dir).expect_err("a directory").class,
        RefusalClass::Unreadable
    );
    let bom = dir.join("bom.json");
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend(minimal().to_string().into_bytes());
    std::fs::write(&bom, bytes).expect("write");
    assert_eq!(
        l.load_path(&bom).expect_err("bom").class,
        RefusalClass::Unreadable
    );
    let latin1 = dir.join("latin1.json");
    std::fs::write(&latin1, b"{\"id\": \"caf\xe9\"}").expect("write");
    assert_eq!(
        l.load_path(&latin1).expect_err("utf-8").class,
        RefusalClass::Unreadable
    );
    let big = dir.join("big.json");
    std::fs::write(&big, vec![b' '; text::MAX_DOCUMENT_BYTES + 1]).expect("write");
    assert_eq!(
        l.load_path(&big).expect_err("size").class,
        RefusalClass::Unreadable
    );
    let good = dir.join("good.json");
    std::fs::write(&good, minimal().to_string()).expect("write");
    assert!(l.load_path(&good).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- step 2: malformed ----

#[test]
fn duplicate_key_text_refused_malformed() {
    let r = reference_registry();
    let l = Loader::new(&r);
    let text = r#"{"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
        "bindings": [], "bindings": [{"id": "a", "kind": "reference.allow-all"}]}"#;
    let e = l.load_text(text).expect_err("duplicate");
    assert_eq!(e.class, RefusalClass::Malformed);
    // A nested duplicate too, and the finding never echoes the key's value.
    let text = r#"{"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
        "configuration": {"mode": "enforce", "mode": "evaluate_only"}, "bindings": []}"#;
    let e = l.load_text(text).expect_err("nested duplicate");
    assert_eq!(e.class, RefusalClass::Malformed);
    assert!(!e.detail().contains("evaluate_only"));
}

#[test]
fn text_that_is_not_one_object_is_malformed() {
    let r = reference_registry();
    let l = Loader::new(&r);
    for text in ["", "[]", "42", "{", "{} {}", "{\"a\": NaN}", "\u{feff}{}"] {
        assert_eq!(
            l.load_text(text).expect_err(text).class,
            RefusalClass::Malformed,
            "{text:?}"
        );
    }
    assert_eq!(
        l.load_value(&json!([1])).expect_err("array").class,
        RefusalClass::Malformed
    );
}

#[test]
fn oversized_document_refused_not_truncated() {
    let r = reference_registry();
    let l = Loader::new(&r);
    let big = with(
        minimal(),
        "/extensions/pad",
        json!({"x": "y".repeat(text::MAX_DOCUMENT_BYTES)}),
    );
    assert_eq!(
        l.load_value(&big).expect_err("value").class,
        RefusalClass::Malformed
    );
    let text = serde_json::to_string(&big).expect("text");
    assert_eq!(
        l.load_text(&text).expect_err("text").class,
        RefusalClass::Malformed
    );
    // Depth: 32 levels load, 33 are refused on both paths.
    let nest = |levels: usize| {
        let mut v = json!({});
        for _ in 0..levels - 3 {
            v = json!({"n": v});
        }
        with(minimal(), "/extensions/deep", v)
    };
    assert!(l.load_value(&nest(32)).is_ok());
    assert_eq!(
        l.load_value(&nest(33)).expect_err("deep").class,
        RefusalClass::Malformed
    );
    let deep_text = serde_json::to_string(&nest(33)).expect("text");
    assert_eq!(
        l.load_text(&deep_text).expect_err("deep").class,
        RefusalClass::Malformed
    );
    // A long exposure bound is refused, never cut to fit.
    let doc = with(minimal(), "/surface/buffered_output", json!(false));
    let doc = with(doc, "/surface/exposure_bound", json!("b".repeat(513)));
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::InvalidField));
}

// ---- step 3: version ----

#[test]
fn higher_minor_refused() {
    let r = reference_registry();
    let doc = with(
        minimal(),
        "/declaration",
        json!("agent-hooks-declaration/1.2"),
    );
    let e = refused(&r, &doc);
    assert_eq!(e.class, RefusalClass::VersionUnsupported);
    assert_eq!(
        e.accepted,
        Some(vec![
            DECLARATION_VERSION.into(),
            DECLARATION_VERSION_DRAFT.into()
        ])
    );
    // A 0.1 loader accepts 1.0 only, and names it.
    let e = Loader::new(&r)
        .for_spec(SpecVersion::V0_1)
        .load_value(&with(
            minimal(),
            "/declaration",
            json!(DECLARATION_VERSION_DRAFT),
        ))
        .expect_err("1.1 under 0.1");
    assert_eq!(e.class, RefusalClass::VersionUnsupported);
    assert_eq!(e.accepted, Some(vec![DECLARATION_VERSION.into()]));
    assert!(e.detail().contains(DECLARATION_VERSION));
}

#[test]
fn missing_or_foreign_versions_are_version_unsupported() {
    let r = reference_registry();
    for v in [
        json!(1),
        json!("1.0"),
        json!("agent-hooks-declaration/0.9"),
        json!("agent-hooks-declaration/2.0"),
    ] {
        assert_eq!(
            class_of(&r, &with(minimal(), "/declaration", v)),
            Some(RefusalClass::VersionUnsupported)
        );
    }
    assert_eq!(
        class_of(&r, &without(minimal(), "declaration")),
        Some(RefusalClass::VersionUnsupported)
    );
}

// ---- step 4: spec ----

#[test]
fn spec_is_required_and_must_be_implemented() {
    let r = reference_registry();
    assert_eq!(
        class_of(&r, &without(minimal(), "spec")),
        Some(RefusalClass::SpecUnsupported)
    );
    for s in [
        json!(0.1),
        json!("agent-hooks/2.1"),
        json!("agent-hooks/0.9"),
        json!("agent-hooks/x"),
        json!("hooks/0.1"),
    ] {
        assert_eq!(
            class_of(&r, &with(minimal(), "/spec", s.clone())),
            Some(RefusalClass::SpecUnsupported),
            "{s}"
        );
    }
    // 1.1 is defined under the draft only, even for a loader that has both.
    let d = with(minimal(), "/declaration", json!(DECLARATION_VERSION_DRAFT));
    assert_eq!(class_of(&r, &d), Some(RefusalClass::SpecUnsupported));
    assert!(Loader::new(&r)
        .load_value(&with(d, "/spec", json!("agent-hooks/draft")))
        .is_ok());
    // A loader for 0.1 refuses a draft document, and the other way round.
    let draft_doc = with(minimal(), "/spec", json!("agent-hooks/draft"));
    let e = Loader::new(&r)
        .for_spec(SpecVersion::V0_1)
        .load_value(&draft_doc)
        .expect_err("draft under 0.1");
    assert_eq!(e.class, RefusalClass::SpecUnsupported);
    let e = Loader::new(&r)
        .for_spec(SpecVersion::Draft)
        .load_value(&minimal())
        .expect_err("0.1 under draft");
    assert_eq!(e.class, RefusalClass::SpecUnsupported);
}

/// §7.7.6 step 4 as written: the loader's major, and a minor no greater
/// than the loader's. A 0.1 loader takes a document written for 0.0 (and
/// emits 0.1); another major or a newer minor is refused, whatever its
/// spelling.
#[test]
fn spec_step_four_takes_the_loaders_major_and_no_newer_minor() {
    let r = reference_registry();
    for loader in [Loader::new(&r), Loader::new(&r).for_spec(SpecVersion::V0_1)] {
        for s in ["agent-hooks/0.0", "agent-hooks/0.1", "agent-hooks/00.01"] {
            let d = loader
                .load_value(&with(minimal(), "/spec", json!(s)))
                .unwrap_or_else(|e| panic!("{s} refused: {e}"));
            assert_eq!(d.spec(), SpecVersion::V0_1, "{s}");
            assert_eq!(d.resolved().to_value()["spec"], json!("agent-hooks/0.1"));
        }
        for s in [
            "agent-hooks/0.2",
            "agent-hooks/0.10",
            "agent-hooks/0.18446744073709551617",
            "agent-hooks/1.0",
            "agent-hooks/1.1",
            "agent-hooks/18446744073709551616.0",
        ] {
            let e = loader
                .load_value(&with(minimal(), "/spec", json!(s)))
                .expect_err(s);
            assert_eq!(e.class, RefusalClass::SpecUnsupported, "{s}");
            assert_eq!(e.findings[0].pointer, "/spec");
        }
    }
    // The draft has no major or minor: a draft-only loader takes the draft
    // string alone, so an older numeric minor is no way in.
    let e = Loader::new(&r)
        .for_spec(SpecVersion::Draft)
        .load_value(&with(minimal(), "/spec", json!("agent-hooks/0.0")))
        .expect_err("0.0 under a draft-only loader");
    assert_eq!(e.class, RefusalClass::SpecUnsupported);
}

// ---- step 5: unknown members ----

#[test]
fn unknown_members_at_every_closed_level() {
    let r = reference_registry();
    for (pointer, value) in [
        ("/colour", json!("red")),
        ("/host/owner", json!("x")),
        ("/configuration/retries", json!(1)),
        ("/configuration/timeouts/retry_ms", json!(1)),
        ("/configuration/approval/queue", json!("q")),
        ("/configuration/posture/model_seam", json!("continue")),
        ("/configuration/records/sink", json!("stdout")),
        ("/configuration/composition/quorum", json!(2)),
        ("/surface/colour", json!("red")),
        ("/surface/profiles/sequential~1majority", json!({})),
        ("/bindings/0/priority", json!(1)),
        ("/bindings/0/on_error", json!("continue")),
    ] {
        let mut doc = minimal();
        if pointer.starts_with("/host") {
            doc = with(doc, "/host/name", json!("h"));
        }
        if pointer.starts_with("/configuration/composition") {
            doc = with(
                doc,
                "/configuration/composition/profile",
                json!("sequential/run_all"),
            );
        }
        let doc = if pointer.contains("~1") {
            with(doc, "/surface/profiles", json!({"sequential/majority": {}}))
        } else {
            with(doc, pointer, value)
        };
        let e = refused(&r, &doc);
        assert_eq!(e.class, RefusalClass::UnknownField, "{pointer}");
        assert_eq!(e.findings[0].pointer, pointer, "{pointer}");
    }
    // A knob a profile never consults is unknown inside surface.profiles.
    let doc = with(
        minimal(),
        "/surface/profiles",
        json!({"sequential/run_all": {"on_approval": ["stop"]}}),
    );
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::UnknownField));
    // on_error is a member of 1.1 bindings.
    let d11 = with(
        with(minimal(), "/declaration", json!(DECLARATION_VERSION_DRAFT)),
        "/spec",
        json!("agent-hooks/draft"),
    );
    assert!(Loader::new(&r)
        .load_value(&with(d11, "/bindings/0/on_error", json!("continue")))
        .is_ok());
}

// ---- step 6: member values ----

#[test]
fn wrong_values_are_invalid_fields() {
    let r = reference_registry();
    for (pointer, value) in [
        ("/id", json!("Not An Id")),
        ("/configuration/mode", json!("shadow")),
        (
            "/configuration/composition",
            json!({"profile": "sequential/majority"}),
        ),
        ("/configuration/composition", json!({"on_approval": "stop"})),
        (
            "/configuration/composition",
            json!({"profile": "sequential/first_deny", "on_approval": "later"}),
        ),
        ("/configuration/identity_provider", json!("jcs-other")),
        ("/configuration/identity_provider", json!(7)),
        ("/configuration/approval/resolver", json!("Queue")),
        (
            "/configuration/posture/tool_seam_host_error",
            json!("retry"),
        ),
        ("/configuration/timeouts/interceptor_ms", json!(0)),
        ("/configuration/timeouts/interceptor_ms", json!(5000.0)),
        ("/configuration/timeouts/interceptor_ms", json!(3_600_001)),
        ("/configuration/records/max_buffered", json!(0)),
        (
            "/surface/interception_points",
            json!(["input", "output", "agent_startup"]),
        ),
        (
            "/surface/interception_points",
            json!([
                "input",
                "input",
                "output",
                "agent_startup",
                "agent_shutdown"
            ]),
        ),
        ("/surface/capabilities", json!(["buffered_output"])),
        ("/surface/buffered_output", json!(false)),
        ("/surface/exposure_bound", json!("bound")),
        ("/surface/declaration_versions", json!([])),
        ("/bindings/0/id", json!("Guard")),
        ("/bindings/0/kind", json!("nodot")),
        ("/bindings/0/at", json!([])),
        ("/bindings/0/timeout_ms", json!("50")),
        ("/extensions", json!({"Bad-NS": {}})),
        ("/bindings", json!({})),
        ("/host", json!({"version": "1"})),
    ] {
        let e = refused(&r, &with(minimal(), pointer, value.clone()));
        assert_eq!(e.class, RefusalClass::InvalidField, "{pointer} = {value}");
    }
    assert_eq!(
        class_of(&r, &without(minimal(), "bindings")),
        Some(RefusalClass::InvalidField)
    );
    let mut many = minimal();
    many["bindings"] = Value::Array(
        (0..257)
            .map(|i| json!({"id": format!("b{i}"), "kind": ALLOW_ALL}))
            .collect(),
    );
    assert_eq!(class_of(&r, &many), Some(RefusalClass::InvalidField));
    // Findings never echo a binding's config.
    let doc = with(
        minimal(),
        "/bindings/0",
        json!({"id": "Bad", "kind": ALLOW_ALL, "config": {"secret": "hunter2"}}),
    );
    assert!(!refused(&r, &doc).detail().contains("hunter2"));
    // on_error takes deny or continue only.
    let d11 = with(
        with(minimal(), "/declaration", json!(DECLARATION_VERSION_DRAFT)),
        "/spec",
        json!("agent-hooks/draft"),
    );
    assert_eq!(
        class_of(&r, &with(d11, "/bindings/0/on_error", json!("ignore"))),
        Some(RefusalClass::InvalidField)
    );
}

#[test]
fn findings_never_echo_config() {
    let r = reference_registry();
    let secret = json!({"token": "s3cr3t-value", "nested": ["s3cr3t-value"]});
    let docs = [
        // invalid_field on the binding that holds the config
        with(
            minimal(),
            "/bindings/0",
            json!({"id": "Bad", "kind": ALLOW_ALL, "config": secret}),
        ),
        // unknown_field beside it
        with(
            minimal(),
            "/bindings/0",
            json!({"id": "b", "kind": ALLOW_ALL, "config": secret, "x": 1}),
        ),
        // kind_unknown
        with(
            minimal(),
            "/bindings/0",
            json!({"id": "b", "kind": "com.example.none", "config": secret}),
        ),
        // binding_rejected by each shipped kind
        with(
            minimal(),
            "/bindings/0",
            json!({"id": "b", "kind": ALLOW_ALL, "config": secret}),
        ),
        with(
            minimal(),
            "/bindings/0",
            json!({"id": "b", "kind": TOOL_DENY_LIST, "config": secret}),
        ),
    ];
    for doc in docs {
        let e = refused(&r, &doc);
        assert!(!e.detail().contains("s3cr3t"), "{}", e.detail());
        for f in &e.findings {
            assert!(!f.detail.contains("s3cr3t") && !f.pointer.contains("s3cr3t"));
        }
    }
    // A malformed text never quotes the document either.
    let text = r#"{"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
        "bindings": [{"id": "b", "kind": "reference.allow-all", "config": {"k": "s3cr3t", "k": "s3cr3t"}}]}"#;
    let e = Loader::new(&r).load_text(text).expect_err("duplicate");
    assert!(!e.detail().contains("s3cr3t"));
}

/// The document-wide integer bound: an integer beyond ±(2^53 − 1)
/// anywhere (a configuration member, a binding's `config`, `extensions`)
/// is `invalid_field` at its pointer, at step 6; the bound itself loads and
/// floats are never judged as integers.
#[test]
fn integers_beyond_the_safe_bound_are_invalid_fields_anywhere() {
    let r = golden_registry();
    let base = json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
                      "bindings": [{"id": "allow", "kind": "com.example.allow"}]});
    let beyond = 9_007_199_254_740_992_u64;
    for (pointer, value, at) in [
        (
            "/configuration/records/max_buffered",
            json!(beyond),
            "/configuration/records/max_buffered",
        ),
        (
            "/bindings/0/config",
            json!({"limit": beyond}),
            "/bindings/0/config/limit",
        ),
        (
            "/bindings/0/config",
            json!({"ids": [1, -9_007_199_254_740_992_i64]}),
            "/bindings/0/config/ids/1",
        ),
        ("/bindings/0/config", json!(u64::MAX), "/bindings/0/config"),
        (
            "/extensions",
            json!({"acme": {"a/b": i64::MIN}}),
            "/extensions/acme/a~1b",
        ),
    ] {
        let e = refused(&r, &with(base.clone(), pointer, value));
        assert_eq!(e.class, RefusalClass::InvalidField, "{at}");
        let pointers: Vec<&str> = e.findings.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(pointers, [at]);
    }
    // The bound itself, and floats of any size, load.
    let d = Loader::new(&r)
        .load_value(&with(
            with(
                with(base.clone(), "/configuration/records/max_buffered", json!(9_007_199_254_740_991_u64)),
                "/bindings/0/config",
                json!({"hi": 9_007_199_254_740_991_u64, "lo": -9_007_199_254_740_991_i64, "f": 1e300}),
            ),
            "/extensions",
            json!({"acme": {"n": -9_007_199_254_740_991_i64}}),
        ))
        .expect("the bound loads");
    assert_eq!(d.resolved().max_buffered, Some(9_007_199_254_740_991));
    // On text, a literal beyond 64 bits (a float to the parser) is seen too,
    // and such a text has no exact value form.
    let text = r#"{"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
        "bindings": [{"id": "allow", "kind": "com.example.allow", "config": {"n": 18446744073709551616, "f": 1.0e30}}]}"#;
    let e = Loader::new(&r).load_text(text).expect_err("beyond 64 bits");
    assert_eq!(e.class, RefusalClass::InvalidField);
    assert_eq!(e.findings.len(), 1);
    assert_eq!(e.findings[0].pointer, "/bindings/0/config/n");
    assert!(text::parse_exact(text).is_none());
    assert!(text::parse_exact(&text.replace("18446744073709551616", "9007199254740992")).is_some());
    // Step order: an unknown member (step 5) decides before it; it decides
    // before a contradiction (step 7).
    let big = with(base.clone(), "/bindings/0/config", json!({"n": beyond}));
    assert_eq!(
        class_of(&r, &with(big.clone(), "/colour", json!("red"))),
        Some(RefusalClass::UnknownField)
    );
    let twice = with(
        big,
        "/bindings/1",
        json!({"id": "allow", "kind": "com.example.allow"}),
    );
    assert_eq!(class_of(&r, &twice), Some(RefusalClass::InvalidField));
}

/// The kit's `ctk.scripted` reads `config.script` and ignores every other
/// member, as the kit defines the kind; the index must still be an unsigned
/// integer naming one of the vector's scripts.
#[test]
fn ctk_scripted_reads_config_script_and_tolerates_other_members() {
    use super::kinds::{ctk_script_index, ctk_scripted_kind, CTK_SCRIPTED};
    let r = HostRegistry::for_conformance(HostSurface::reference())
        .kind(CTK_SCRIPTED, ctk_scripted_kind(2, |_| Arc::new(Allow)))
        .expect("registry");
    let doc = |config: Value| {
        json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
               "bindings": [{"id": "guard", "kind": CTK_SCRIPTED, "config": config}]})
    };
    for config in [
        json!({"script": 1}),
        json!({"script": 0, "note": "from another kit", "weight": 3, "nested": {"x": [1]}}),
    ] {
        assert!(
            Loader::new(&r).load_value(&doc(config.clone())).is_ok(),
            "{config}"
        );
    }
    assert_eq!(
        ctk_script_index(&json!({"label": "x", "script": 1}), 2),
        Ok(1)
    );
    for config in [
        json!({}),
        json!({"note": "no script"}),
        json!({"script": "0"}),
        json!({"script": -1}),
        json!({"script": 0.0}),
        json!({"script": 2}),
        json!(0),
    ] {
        assert_eq!(
            class_of(&r, &doc(config.clone())),
            Some(RefusalClass::BindingRejected),
            "{config}"
        );
    }
}

// ---- step 7: consistency ----

#[test]
fn contradictions_are_inconsistent() {
    let r = reference_registry();
    let all = [
        "agent_startup",
        "input",
        "pre_model_call",
        "post_model_call",
        "pre_tool_call",
        "post_tool_call",
        "output",
        "agent_shutdown",
    ];
    let points =
        |drop: &[&str]| json!(all.iter().filter(|p| !drop.contains(p)).collect::<Vec<_>>());
    for (doc, why) in [
        (
            with(
                minimal(),
                "/configuration/composition",
                json!({"profile": "sequential/first_deny", "on_disagreement": "deny"}),
            ),
            "unconsulted knob",
        ),
        (
            with(
                minimal(),
                "/configuration/composition",
                json!({"profile": "sequential/run_all", "on_transform_conflict": "approval"}),
            ),
            "run_all knob",
        ),
        (
            with(
                minimal(),
                "/surface/interception_points",
                points(&["output"]),
            ),
            "floor",
        ),
        (
            with(
                minimal(),
                "/surface/interception_points",
                points(&["post_tool_call"]),
            ),
            "pair",
        ),
        (
            with(
                with(
                    minimal(),
                    "/surface/interception_points",
                    points(&["pre_tool_call", "post_tool_call"]),
                ),
                "/surface/capabilities",
                json!(["model_calls", "tool_calls"]),
            ),
            "caps vs points",
        ),
        (
            with(
                with(
                    minimal(),
                    "/surface/capabilities",
                    json!(["model_calls", "tool_calls", "incremental_output"]),
                ),
                "/surface/buffered_output",
                json!(true),
            ),
            "incremental buffered",
        ),
        (
            with(
                with(
                    minimal(),
                    "/configuration/composition",
                    json!({"profile": "parallel/unanimous"}),
                ),
                "/surface/profiles",
                json!({"sequential/run_all": {}}),
            ),
            "profile outside",
        ),
        (
            with(
                with(
                    minimal(),
                    "/configuration/composition",
                    json!({"profile": "sequential/first_deny", "on_approval": "resume"}),
                ),
                "/surface/profiles",
                json!({"sequential/first_deny": {}}),
            ),
            "knob value outside (absent member = default only)",
        ),
        (
            with(
                minimal(),
                "/surface/declaration_versions",
                json!(["agent-hooks-declaration/5.0"]),
            ),
            "own version",
        ),
        (
            with(
                minimal(),
                "/bindings/1",
                json!({"id": "allow", "kind": ALLOW_ALL}),
            ),
            "duplicate id",
        ),
        (
            with(
                with(
                    minimal(),
                    "/surface/interception_points",
                    points(&["pre_tool_call", "post_tool_call"]),
                ),
                "/bindings/0/at",
                json!(["pre_tool_call"]),
            ),
            "at outside",
        ),
    ] {
        let mut doc = doc;
        if why == "duplicate id" {
            doc["bindings"] =
                json!([{"id": "allow", "kind": ALLOW_ALL}, {"id": "allow", "kind": ALLOW_ALL}]);
        }
        assert_eq!(
            class_of(&r, &doc),
            Some(RefusalClass::Inconsistent),
            "{why}"
        );
    }
    // A finding on a member the document left to the host says so.
    let doc = with(
        minimal(),
        "/surface/interception_points",
        points(&["pre_tool_call", "post_tool_call"]),
    );
    let e = refused(&r, &doc);
    assert!(e.detail().contains("does not state"), "{}", e.detail());
}

/// §7.7.4: a stated surface that omits `buffered_output` takes the table
/// default `true`, never the host's own (incremental) output mode; §13.1:
/// `false` must be declared explicitly. Only an absent surface carries the
/// host's streaming posture.
#[test]
fn a_partial_surface_defaults_buffered_output_to_true() {
    let r = reference_registry();
    let own_version = json!(["agent-hooks-declaration/1.0"]);
    // The reference code surface lists incremental_output; filled into a
    // partial surface beside the default `true`, that is a step 7 contradiction,
    // and the finding says the document did not state buffered_output.
    let partial = with(
        minimal(),
        "/surface/declaration_versions",
        own_version.clone(),
    );
    let e = refused(&r, &partial);
    assert_eq!(e.class, RefusalClass::Inconsistent, "{}", e.detail());
    assert!(
        e.detail()
            .contains("does not state buffered_output: it takes its default true"),
        "{}",
        e.detail()
    );
    // Stating capabilities without incremental_output, the partial surface
    // loads buffered, with no exposure bound.
    let buffered = with(
        partial.clone(),
        "/surface/capabilities",
        json!(["model_calls", "tool_calls", "host_declaration"]),
    );
    let d = Loader::new(&r).load_value(&buffered).expect("loads");
    assert!(d.resolved().surface.buffered_output);
    assert_eq!(d.resolved().surface.exposure_bound, None);
    assert_eq!(
        d.resolved().to_value()["surface"]["buffered_output"],
        json!(true)
    );
    assert!(d.resolved().to_value()["surface"]
        .get("exposure_bound")
        .is_none());
    // Without a surface the host's own output mode and bound are carried.
    let d = Loader::new(&r).load_value(&minimal()).expect("loads");
    assert!(!d.resolved().surface.buffered_output);
    assert_eq!(
        d.resolved().surface.exposure_bound.as_deref(),
        Some(registry::REFERENCE_EXPOSURE_BOUND)
    );
}

// ---- step 8: beyond the host code ----

#[test]
fn more_than_the_code_has_is_surface_unsupported() {
    let narrow = HostRegistry::new(HostSurface {
        interception_points: [
            Point::AgentStartup,
            Point::Input,
            Point::Output,
            Point::AgentShutdown,
            Point::PreModelCall,
            Point::PostModelCall,
        ]
        .into_iter()
        .collect(),
        ..HostSurface::full(&["model_calls"])
    })
    .kind(ALLOW_ALL, allow_kind())
    .expect("registry");
    let caps = json!(["model_calls"]);
    let base = with(
        with(minimal(), "/surface/capabilities", caps),
        "/configuration/timeouts/interceptor_ms",
        json!(null),
    );
    assert!(
        Loader::new(&narrow).load_value(&base).is_ok(),
        "{:?}",
        Loader::new(&narrow).load_value(&base).err()
    );
    for (doc, why) in [
        (
            with(
                with(
                    base.clone(),
                    "/surface/interception_points",
                    json!([
                        "agent_startup",
                        "input",
                        "pre_model_call",
                        "post_model_call",
                        "pre_tool_call",
                        "post_tool_call",
                        "output",
                        "agent_shutdown"
                    ]),
                ),
                "/surface/capabilities",
                json!(["model_calls", "tool_calls"]),
            ),
            "points and capabilities",
        ),
        (
            with(
                base.clone(),
                "/surface/declaration_versions",
                json!(["agent-hooks-declaration/1.0", "agent-hooks-declaration/7.0"]),
            ),
            "versions",
        ),
        (
            with(
                base.clone(),
                "/configuration/posture/tool_seam_host_error",
                json!("terminate"),
            ),
            "posture",
        ),
        (
            with(
                with(base.clone(), "/surface/buffered_output", json!(false)),
                "/surface/exposure_bound",
                json!("a segment is released once a verdict covering it permits"),
            ),
            "unbuffered output on a code that only buffers (HostSurface::full buffers)",
        ),
    ] {
        let e = Loader::new(&narrow).load_value(&doc).expect_err(why);
        assert_eq!(
            e.class,
            RefusalClass::SurfaceUnsupported,
            "{why}: {}",
            e.detail()
        );
    }
}

// ---- step 9: references ----

#[test]
fn unregistered_names_are_reference_unresolved() {
    let r = reference_registry();
    for (pointer, value) in [
        ("/configuration/identity_provider", json!("hmac-sha256-zz")),
        ("/configuration/approval/resolver", json!("nobody-home")),
        (
            "/configuration/approval/redactor",
            json!("no-such-redactor"),
        ),
    ] {
        let e = refused(&r, &with(minimal(), pointer, value));
        assert_eq!(e.class, RefusalClass::ReferenceUnresolved);
        assert_eq!(e.findings[0].pointer, pointer);
    }
}

// ---- step 10: kinds ----

#[test]
fn every_kind_is_checked_before_any_resolver_runs() {
    let r = reference_registry();
    let doc = with(
        minimal(),
        "/bindings",
        json!([
            {"id": "boom", "kind": "com.example.panics"},
            {"id": "ghost", "kind": "org.example.ghost"}
        ]),
    );
    let e = refused(&r, &doc);
    assert_eq!(e.class, RefusalClass::KindUnknown);
    assert_eq!(e.findings[0].pointer, "/bindings/1/kind");
}

// ---- step 11: resolvers ----

#[test]
fn resolver_errors_and_panics_are_binding_rejected() {
    let r = reference_registry();
    let panics = with(
        minimal(),
        "/bindings/0",
        json!({"id": "boom", "kind": "com.example.panics"}),
    );
    assert_eq!(class_of(&r, &panics), Some(RefusalClass::BindingRejected));
    let bad = with(
        minimal(),
        "/bindings/0",
        json!({"id": "deny", "kind": TOOL_DENY_LIST, "config": {"rm": "host_error:nope"}}),
    );
    let e = refused(&r, &bad);
    assert_eq!(e.class, RefusalClass::BindingRejected);
    assert!(!e.detail().contains("nope"));
    let bad = with(
        minimal(),
        "/bindings/0",
        json!({"id": "a", "kind": ALLOW_ALL, "config": {"x": 1}}),
    );
    assert_eq!(class_of(&r, &bad), Some(RefusalClass::BindingRejected));
}

// ---- the order ----

#[test]
fn the_first_failing_step_decides() {
    let r = reference_registry();
    let doc = with(
        with(
            minimal(),
            "/declaration",
            json!("agent-hooks-declaration/3.0"),
        ),
        "/colour",
        json!("red"),
    );
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::VersionUnsupported));
    let doc = with(
        with(minimal(), "/configuration/mode", json!("shadow")),
        "/colour",
        json!("red"),
    );
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::UnknownField));
    let mut doc = with(minimal(), "/configuration/mode", json!("shadow"));
    doc["bindings"] = json!([{"id": "same", "kind": ALLOW_ALL}, {"id": "same", "kind": ALLOW_ALL}]);
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::InvalidField));
    let doc = with(
        with(
            minimal(),
            "/configuration/approval/resolver",
            json!("nobody-home"),
        ),
        "/bindings/0/kind",
        json!("com.example.missing"),
    );
    assert_eq!(class_of(&r, &doc), Some(RefusalClass::ReferenceUnresolved));
    let e = refused(
        &r,
        &with(with(minimal(), "/colour", json!(1)), "/shade", json!(2)),
    );
    assert_eq!(e.findings.len(), 2, "every finding of the failing step");
    assert_eq!(
        RefusalClass::ALL
            .iter()
            .map(|c| c.step())
            .collect::<Vec<_>>(),
        (1..=11).collect::<Vec<_>>()
    );
}

// ---- step 12 and the resolved form ----

/// The golden D-01 resolution (facts A11.7). The seed makes `spec`
/// required, so the document gains `"spec": "agent-hooks/0.1"`, the value
/// the golden resolution already shows; nothing else changes.
const D01: &str = r#"{"bindings":[{"at":["agent_startup","input","pre_model_call","post_model_call","pre_tool_call","post_tool_call","output","agent_shutdown"],"config":{},"id":"allow","kind":"com.example.allow","timeout_ms":5000}],"configuration":{"approval":{"redactor":null,"resolver":null},"composition":{"on_approval":"stop","profile":"sequential/first_deny"},"identity_provider":"jcs-sha256","mode":"enforce","posture":{"tool_seam_host_error":"continue"},"records":{"max_buffered":null},"timeouts":{"approval_resolver_ms":5000,"interceptor_ms":5000}},"declaration":"agent-hooks-declaration/1.0","extensions":{},"spec":"agent-hooks/0.1","surface":{"buffered_output":true,"capabilities":["host_declaration","int64_json","model_calls","tool_calls"],"declaration_versions":["agent-hooks-declaration/1.0"],"interception_points":["agent_startup","input","pre_model_call","post_model_call","pre_tool_call","post_tool_call","output","agent_shutdown"],"profiles":{"parallel/strictest":{"on_transform_conflict":["approval","deny"]},"parallel/unanimous":{"on_disagreement":["approval","deny"]},"sequential/first_deny":{"on_approval":["resume","stop"]},"sequential/run_all":{}}}}"#;

#[test]
fn golden_d01_resolves_to_the_golden_text() {
    let r = golden_registry();
    let doc = json!({"bindings":[{"id":"allow","kind":"com.example.allow"}],"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1"});
    let d = Loader::new(&r)
        .for_spec(SpecVersion::V0_1)
        .load_value(&doc)
        .expect("loads");
    assert_eq!(d.canonical_json(), D01);
}

#[test]
fn d01_on_the_reference_surface_differs_only_where_the_code_does() {
    let r = with_reference_kinds(HostRegistry::new(HostSurface::reference()))
        .and_then(|r| r.kind("com.example.allow", allow_kind()))
        .expect("registry");
    let doc = json!({"bindings":[{"id":"allow","kind":"com.example.allow"}],"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1"});
    let d = Loader::new(&r)
        .for_spec(SpecVersion::V0_1)
        .load_value(&doc)
        .expect("loads");
    let mut golden: Value = serde_json::from_str(D01).expect("json");
    golden["surface"]["buffered_output"] = json!(false);
    golden["surface"]["exposure_bound"] = json!(registry::REFERENCE_EXPOSURE_BOUND);
    golden["surface"]["capabilities"] = json!([
        "bigint_json",
        "host_declaration",
        "incremental_output",
        "int64_json",
        "model_calls",
        "multi_turn",
        "parallel_tool_calls",
        "streaming",
        "tool_calls"
    ]);
    assert_eq!(d.resolved().to_value(), golden);
    // A loader for both versions lists both contract versions by default.
    let both = Loader::new(&r).load_value(&doc).expect("loads");
    assert_eq!(
        both.resolved().to_value()["surface"]["declaration_versions"],
        json!([DECLARATION_VERSION, DECLARATION_VERSION_DRAFT])
    );
}

#[test]
fn defaults_are_spelled_out_and_sets_sorted() {
    let r = reference_registry();
    let doc = json!({"declaration": DECLARATION_VERSION_DRAFT, "spec": "agent-hooks/draft", "$schema": "x",
        "configuration": {"composition": {"profile": "sequential/run_all"}, "identity_provider": null, "timeouts": {"interceptor_ms": null}},
        "bindings": [{"id": "late", "kind": ALLOW_ALL, "at": ["output", "input"], "timeout_ms": 50}, {"id": "all", "kind": ALLOW_ALL, "on_error": "continue"}]});
    let v = Loader::new(&r)
        .load_value(&doc)
        .expect("loads")
        .resolved()
        .to_value();
    assert!(v.get("$schema").is_none());
    assert_eq!(
        v["configuration"]["composition"],
        json!({"profile": "sequential/run_all"})
    );
    assert_eq!(
        v["configuration"]["timeouts"],
        json!({"interceptor_ms": null, "approval_resolver_ms": null})
    );
    assert_eq!(v["bindings"][0]["at"], json!(["input", "output"]));
    assert_eq!(v["bindings"][0]["timeout_ms"], json!(50));
    assert_eq!(v["bindings"][0]["on_error"], json!("deny"));
    assert_eq!(v["bindings"][1]["timeout_ms"], Value::Null);
    assert_eq!(v["bindings"][1]["on_error"], json!("continue"));
    assert_eq!(v["configuration"]["identity_provider"], Value::Null);
}

// ---- the four construction paths ----

fn equivalence_document() -> Value {
    json!({"declaration": DECLARATION_VERSION, "spec": "agent-hooks/0.1", "id": "paths",
        "configuration": {"composition": {"profile": "sequential/run_all"}},
        "surface": {"capabilities": ["model_calls", "tool_calls", "host_declaration"], "buffered_output": true},
        "bindings": [{"id": "pass", "kind": ALLOW_ALL}, {"id": "no-rm", "kind": TOOL_DENY_LIST, "config": {"rm": "policy:destructive"}, "at": ["pre_tool_call"]}]})
}

fn builder() -> DeclarationBuilder {
    DeclarationBuilder::new(DECLARATION_VERSION, "agent-hooks/0.1")
        .id("paths")
        .composition(json!({"profile": "sequential/run_all"}))
        .surface(json!({"capabilities": ["model_calls", "tool_calls", "host_declaration"], "buffered_output": true}))
        .binding(BindingBuilder::new("pass", ALLOW_ALL))
        .binding(BindingBuilder::new("no-rm", TOOL_DENY_LIST).config(json!({"rm": "policy:destructive"})).at(&["pre_tool_call"]))
}

async fn records_of(d: &Declaration) -> Vec<String> {
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "f".into(),
        session_id: "s".into(),
    };
    let e = d.emitter(who.clone());
    let fields = |v: Value| v.as_object().cloned().expect("object");
    let contexts = [
        (
            Point::Input,
            fields(json!({"input": {"content": "hi", "role": "user"}})),
        ),
        (
            Point::PreToolCall,
            fields(json!({"tool_call": {"id": "1", "name": "rm", "args": {"path": "/"}}})),
        ),
        (
            Point::PreToolCall,
            fields(json!({"tool_call": {"id": "2", "name": "ls", "args": {}}})),
        ),
        (Point::Output, fields(json!({"output": {"content": "bye"}}))),
    ];
    for (seq, (point, f)) in contexts.into_iter().enumerate() {
        let ctx = build_context(
            d.spec(),
            &who,
            point,
            seq as u64,
            "2026-01-01T00:00:00.000Z".into(),
            f,
        );
        e.emit(ctx).await;
    }
    e.take_records()
        .iter()
        .map(|r| serde_json::to_string(r).expect("json"))
        .collect()
}

#[tokio::test]
async fn every_path_builds_the_same_emitter_and_byte_identical_records() {
    let r = reference_registry();
    let l = Loader::new(&r);
    let doc = equivalence_document();
    let dir = std::env::temp_dir().join(format!("ctk-decl-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("host.declaration.json");
    std::fs::write(&file, serde_json::to_string_pretty(&doc).expect("text")).expect("write");
    let loaded = [
        l.load_path(&file).expect("file"),
        l.load_text(&doc.to_string()).expect("text"),
        l.load_value(&doc).expect("value"),
        l.load_builder(&builder()).expect("builder"),
        l.load_builder(&DeclarationBuilder::from_document(&doc))
            .expect("builder from document"),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    let canonical = loaded[0].canonical_json();
    let records = records_of(&loaded[0]).await;
    assert_eq!(records.len(), 4);
    assert!(records[1].contains("policy:destructive"));
    assert!(records
        .iter()
        .all(|r| r.contains("\"declaration\":\"agent-hooks-declaration/1.0\"")));
    for d in &loaded[1..] {
        assert_eq!(d.canonical_json(), canonical);
        assert_eq!(records_of(d).await, records, "records byte for byte");
    }
}

#[test]
fn every_path_refuses_with_the_same_class() {
    let r = reference_registry();
    let l = Loader::new(&r);
    let doc = with(
        equivalence_document(),
        "/configuration/mode",
        json!("shadow"),
    );
    let classes = [
        l.load_text(&doc.to_string()).expect_err("text").class,
        l.load_value(&doc).expect_err("value").class,
        l.load_builder(&builder().mode("shadow"))
            .expect_err("builder")
            .class,
        l.load_builder(&DeclarationBuilder::from_document(&doc))
            .expect_err("from document")
            .class,
    ];
    assert!(classes.iter().all(|c| *c == RefusalClass::InvalidField));
    // A builder that never adds a binding writes no bindings member.
    let none = DeclarationBuilder::new(DECLARATION_VERSION, "agent-hooks/0.1");
    assert_eq!(
        l.load_builder(&none).expect_err("no bindings").class,
        RefusalClass::InvalidField
    );
    assert!(l.load_builder(&none.no_bindings()).is_ok());
}

// ---- sealing ----

#[test]
fn declared_emitters_carry_the_declaration_and_code_built_ones_do_not() {
    // Sealing (§7.7.7) holds by construction: an emitter has no method that
    // registers or reconfigures after it is built, so there is nothing to
    // refuse; what tells the two kinds apart is the declaration stamp.
    let r = reference_registry();
    let d = Loader::new(&r).load_value(&minimal()).expect("loads");
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "f".into(),
        session_id: "s".into(),
    };
    let e = d.emitter(who.clone());
    assert_eq!(e.declaration(), Some(DECLARATION_VERSION));
    let code = crate::emitter::Emitter::builder(SpecVersion::V0_1, who).build();
    assert!(code.declaration().is_none());
}

#[tokio::test]
async fn the_record_bound_drops_the_oldest() {
    let r = reference_registry();
    let d = Loader::new(&r)
        .load_value(&with(
            minimal(),
            "/configuration/records/max_buffered",
            json!(2),
        ))
        .expect("loads");
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "f".into(),
        session_id: "s".into(),
    };
    let e = d.emitter(who);
    for _ in 0..3 {
        e.emit_point(
            Point::Input,
            json!({"input": {"content": "x", "role": "user"}})
                .as_object()
                .cloned()
                .expect("o"),
            false,
        )
        .await;
    }
    let records = e.take_records();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["sequence"], 1);
}

// ---- registries and kinds ----

#[test]
fn registries_reserve_kit_and_contract_kinds() {
    let plain = HostRegistry::new(HostSurface::reference());
    assert!(matches!(
        plain.clone().kind("ctk.scripted", allow_kind()),
        Err(HostRegistryError::ReservedKind(_))
    ));
    assert!(matches!(
        plain.clone().kind("agent_hooks.x", allow_kind()),
        Err(HostRegistryError::ReservedKind(_))
    ));
    assert!(matches!(
        plain.clone().kind("nodot", allow_kind()),
        Err(HostRegistryError::BadKind(_))
    ));
    let twice = plain
        .clone()
        .kind("com.example.a", allow_kind())
        .expect("once");
    assert!(matches!(
        twice.kind("com.example.a", allow_kind()),
        Err(HostRegistryError::Duplicate(_))
    ));
    assert!(plain
        .clone()
        .approval_resolver("Bad Name", Arc::new(NoResolver))
        .is_err());
    let kit = HostRegistry::for_conformance(HostSurface::reference());
    assert!(kit.clone().kind("ctk.scripted", allow_kind()).is_ok());
    assert!(kit.kind("agent_hooks.x", allow_kind()).is_err());
}

#[tokio::test]
async fn the_deny_list_kind_denies_listed_tools_only() {
    let r = reference_registry();
    let doc = with(
        minimal(),
        "/bindings/0",
        json!({"id": "no-rm", "kind": TOOL_DENY_LIST, "config": {"rm": "policy:destructive"}}),
    );
    let d = Loader::new(&r).load_value(&doc).expect("loads");
    let who = AgentIdentity {
        agent_id: "a".into(),
        framework: "f".into(),
        session_id: "s".into(),
    };
    let e = d.emitter(who);
    let call = |name: &str| {
        json!({"tool_call": {"id": "1", "name": name, "args": {}}})
            .as_object()
            .cloned()
            .expect("o")
    };
    let out = e.emit_point(Point::PreToolCall, call("rm"), false).await;
    assert!(!out.proceed);
    assert_eq!(out.verdict.reason.as_deref(), Some("policy:destructive"));
    assert!(
        e.emit_point(Point::PreToolCall, call("ls"), false)
            .await
            .proceed
    );
    assert!(
        e.emit_point(
            Point::Input,
            json!({"input": {"content": "rm", "role": "user"}})
                .as_object()
                .cloned()
                .expect("o"),
            false
        )
        .await
        .proceed
    );
}

#[test]
fn the_load_is_logged_once_with_version_id_and_digest() {
    let r = reference_registry();
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let doc = with(minimal(), "/id", json!("edge-1"));
    Loader::new(&r)
        .log_to(Arc::new(move |l: &str| {
            sink.lock().expect("lock").push(l.to_owned())
        }))
        .load_value(&doc)
        .expect("loads");
    let lines = lines.lock().expect("lock").clone();
    assert_eq!(lines.len(), 1);
    let digest = crate::identity::jcs::hash_canonical(&doc);
    assert!(digest.starts_with("sha256:"));
    assert!(
        lines[0].contains(DECLARATION_VERSION)
            && lines[0].contains("edge-1")
            && lines[0].contains(&digest)
    );
}

#[test]
fn host_json_loads_against_the_reference_code_surface() {
    let r = reference_registry();
    let doc: Value = serde_json::from_str(crate::HOST_DECLARATION).expect("host.json is JSON");
    let d = Loader::new(&r)
        .for_spec(SpecVersion::V0_1)
        .load_value(&doc)
        .expect("host.json loads");
    let surface = &d.resolved().surface;
    assert!(surface.capabilities.contains("host_declaration"));
    assert!(!surface.buffered_output);
    assert_eq!(
        surface.exposure_bound.as_deref(),
        Some(registry::REFERENCE_EXPOSURE_BOUND)
    );
    assert_eq!(surface.interception_points, Point::ALL.to_vec());
    assert_eq!(d.output_mode(), crate::output::OutputMode::Incremental);
    assert!(d.resolved().bindings.is_empty());
}
