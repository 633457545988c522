//! One project-authored registration fixture per rule
//! (`tests/data/registration/`): each invalid document breaks exactly the
//! rules listed here, at exactly these pointers, and each valid one loads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctk_ahp_wire::registration::{self, LoadOptions, Subscription, Transport};
use ctk_ahp_wire::validate::Rule;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/registration")
}

/// (file, expected (rule, pointer) set). Valid files expect nothing.
fn expectations() -> Vec<(&'static str, Vec<(Rule, &'static str)>)> {
    use Rule::*;
    vec![
        ("minimal-stdio.valid.json", vec![]),
        ("chain.valid.json", vec![]),
        ("loopback-http.valid.json", vec![]),
        (
            "duplicate-backend-id.invalid.json",
            vec![(UniqueBackendId, "/hooks/1/id")],
        ),
        (
            "duplicate-subscription.invalid.json",
            vec![(DuplicateSubscription, "/hooks/0/subscriptions/1/events/1")],
        ),
        (
            "duplicate-intercept.invalid.json",
            vec![(DuplicateSubscription, "/hooks/0/subscriptions/1/events/0")],
        ),
        (
            "intercept-tool-after.invalid.json",
            vec![(InterceptToolBeforeOnly, "/hooks/0/subscriptions/0/events/0")],
        ),
        (
            "intercept-two-events.invalid.json",
            vec![
                (InterceptToolBeforeOnly, "/hooks/0/subscriptions/0/events"),
                (InterceptToolBeforeOnly, "/hooks/0/subscriptions/0/events/1"),
            ],
        ),
        (
            "intercept-missing-policy.invalid.json",
            vec![(InterceptDeadlineAndPolicy, "/hooks/0/subscriptions/0")],
        ),
        (
            "intercept-zero-timeout.invalid.json",
            vec![(
                InterceptDeadlineAndPolicy,
                "/hooks/0/subscriptions/0/timeoutMs",
            )],
        ),
        (
            "observe-timeout.invalid.json",
            vec![(
                ObserveNoDeadlineOrPolicy,
                "/hooks/0/subscriptions/0/timeoutMs",
            )],
        ),
        (
            "observe-failure-policy.invalid.json",
            vec![(
                ObserveNoDeadlineOrPolicy,
                "/hooks/0/subscriptions/0/failurePolicy",
            )],
        ),
        (
            "relative-url.invalid.json",
            vec![(AbsoluteUrl, "/hooks/0/transport/url")],
        ),
        (
            "url-no-host.invalid.json",
            vec![(AbsoluteUrl, "/hooks/0/transport/url")],
        ),
        (
            "remote-http.invalid.json",
            vec![(HttpsForRemote, "/hooks/0/transport/url")],
        ),
        (
            "literal-token.invalid.json",
            vec![(NoLiteralCredential, "/hooks/0/authentication/token")],
        ),
        (
            "bearer-token-key.invalid.json",
            vec![(NoLiteralCredential, "/hooks/0/authentication/bearerToken")],
        ),
        (
            "url-password.invalid.json",
            vec![(NoLiteralCredential, "/hooks/0/transport/url")],
        ),
        (
            "auth-without-token-env.invalid.json",
            vec![(BearerTokenEnv, "/hooks/0/authentication")],
        ),
        (
            "auth-bad-token-env.invalid.json",
            vec![(BearerTokenEnv, "/hooks/0/authentication/tokenEnv")],
        ),
        (
            "auth-on-stdio.invalid.json",
            vec![(AuthenticationHttpOnly, "/hooks/0/authentication")],
        ),
        (
            "wrong-version.invalid.json",
            vec![(WireVersion, "/protocolVersion")],
        ),
        ("no-hooks.invalid.json", vec![(RegistrationRoot, "/hooks")]),
        (
            "backend-id-single-label.invalid.json",
            vec![(BackendId, "/hooks/0/id")],
        ),
        (
            "duplicate-member.invalid.json",
            vec![(UniqueMembers, "/protocolVersion")],
        ),
    ]
}

#[test]
fn every_fixture_breaks_exactly_its_rules() {
    let table = expectations();
    let listed: BTreeSet<&str> = table.iter().map(|(f, _)| *f).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let on_disk: BTreeSet<&str> = on_disk.iter().map(String::as_str).collect();
    assert_eq!(
        listed, on_disk,
        "every fixture file has an expectation, and no more"
    );
    let mut failures = Vec::new();
    for (file, expected) in &table {
        assert_eq!(
            file.ends_with(".valid.json"),
            expected.is_empty(),
            "{file}: the name says whether it is valid"
        );
        let got: BTreeSet<(Rule, String)> = match registration::load_file(&dir().join(file)) {
            Ok(_) => BTreeSet::new(),
            Err(e) => {
                assert!(!e.findings().is_empty(), "{file}: {e}");
                e.findings()
                    .iter()
                    .map(|f| (f.rule, f.pointer.clone()))
                    .collect()
            }
        };
        let want: BTreeSet<(Rule, String)> = expected
            .iter()
            .map(|(r, p)| (*r, (*p).to_owned()))
            .collect();
        if got != want {
            failures.push(format!("{file}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_finding_echoes_a_literal_credential() {
    for file in [
        "literal-token.invalid.json",
        "bearer-token-key.invalid.json",
        "url-password.invalid.json",
    ] {
        let e = registration::load_file(&dir().join(file)).unwrap_err();
        let text = format!("{e} {:?}", e.findings());
        assert!(!text.contains("ctk-canary-literal"), "{file}: {text}");
    }
}

#[test]
fn the_error_display_names_the_file_and_the_pointer() {
    let path = dir().join("remote-http.invalid.json");
    let e = registration::load_file(&path).unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("{} at /hooks/0/transport/url: ", path.display())),
        "{shown}"
    );
    assert!(
        shown.ends_with("(ahp.registration.https-for-remote, §18.2)"),
        "{shown}"
    );
}

#[test]
fn an_explicitly_declared_local_host_may_use_plain_http() {
    let path = dir().join("remote-http.invalid.json");
    let options = LoadOptions {
        local_http_hosts: vec!["guard.ctk-demo.test".to_owned()],
    };
    registration::load_file_with(&path, &options).expect("declared local development host");
}

#[test]
fn a_valid_chain_loads_into_the_typed_model_in_order() {
    let reg = registration::load_file(&dir().join("chain.valid.json")).unwrap();
    let ids: Vec<&str> = reg.hooks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "test.ctk.remote_guard",
            "test.ctk.loopback-guard",
            "test.ctk.audit"
        ]
    );
    let chain: Vec<&str> = reg
        .interceptors()
        .iter()
        .map(|(b, _)| b.id.as_str())
        .collect();
    assert_eq!(
        chain, ids,
        "every backend intercepts tool.before, in array order"
    );
    match &reg.hooks[2].transport {
        Transport::Stdio { args, .. } => assert_eq!(args, &["--serve", "a b;c"]),
        other => panic!("expected stdio, got {other:?}"),
    }
    assert!(matches!(
        reg.hooks[1].subscriptions[0],
        Subscription::Intercept {
            include_native: true,
            timeout_ms: 250,
            ..
        }
    ));
    assert!(reg.unknown.contains_key("test.ctk.generator"));
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let e = registration::load_file(Path::new("/nonexistent/reg.json")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/reg.json: cannot read"),
        "{e}"
    );
}

#[test]
fn a_deadline_beyond_u64_is_valid_and_saturates() {
    let text = r#"{"protocolVersion":"0.1","hooks":[{"id":"test.ctk.slow",
        "transport":{"type":"stdio","command":"slow","lifecycle":"per_event"},
        "subscriptions":[{"events":["tool.before"],"mode":"intercept",
        "timeoutMs":100000000000000000000000,"failurePolicy":"fail-open"}]}]}"#;
    let reg = registration::parse(
        text.as_bytes(),
        Path::new("huge.json"),
        &LoadOptions::default(),
    )
    .expect("0.1 sets no maximum timeoutMs");
    assert!(matches!(
        reg.hooks[0].subscriptions[0],
        Subscription::Intercept {
            timeout_ms: u64::MAX,
            ..
        }
    ));
}
