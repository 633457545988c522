//! `ctk validate ahp-registration|ahp-message` on the binary, over
//! ctk-ahp-wire's own fixtures (`ahp/wire/tests/data/`).

use crate::support::{ctk, text};
use std::path::{Path, PathBuf};

/// A folder of ctk-ahp-wire's test data.
fn ahp_data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ahp/wire/tests/data")
        .join(rel)
}

/// The fixtures of `folder` whose name contains `marker`, as strings.
fn fixtures(folder: &str, marker: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(ahp_data(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().contains(marker))
        .map(|p| p.display().to_string())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{folder} has {marker} fixtures");
    out
}

#[test]
fn valid_registrations_pass_with_exit_0() {
    let files = fixtures("registration", ".valid.");
    let mut args = vec!["validate", "ahp-registration"];
    args.extend(files.iter().map(String::as_str));
    let out = ctk(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with(&format!("{} file(s) valid", files.len())),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn each_invalid_registration_fails_with_exit_2_and_located_errors() {
    for file in fixtures("registration", ".invalid.") {
        let out = ctk(&["validate", "ahp-registration", &file]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(!err.trim().is_empty(), "{file}: no problem printed");
        for line in err.lines() {
            assert!(
                line.starts_with(&format!("error: {file} at ")) && line.ends_with(')'),
                "{file}: {line}"
            );
            assert!(line.contains("(ahp."), "{file}: names the rule: {line}");
            assert!(
                !line.contains("ctk-canary-literal"),
                "{file}: echoes a credential: {line}"
            );
        }
    }
}

#[test]
fn a_remote_plain_http_endpoint_is_named_with_pointer_and_rule() {
    let file = ahp_data("registration/remote-http.invalid.json")
        .display()
        .to_string();
    let out = ctk(&["validate", "ahp-registration", &file]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "error: {file} at /hooks/0/transport/url: plain http"
        )),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("(ahp.registration.https-for-remote, §18.2)"),
        "{err}"
    );
}

#[test]
fn valid_messages_and_transcripts_pass() {
    let files = fixtures("message", ".valid.");
    assert!(
        files.iter().any(|f| f.ends_with(".jsonl")),
        "a transcript is among them"
    );
    let mut args = vec!["validate", "ahp-message"];
    args.extend(files.iter().map(String::as_str));
    let out = ctk(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn each_invalid_message_fails_with_exit_2() {
    for file in fixtures("message", ".invalid.") {
        let out = ctk(&["validate", "ahp-message", &file]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        for line in err.lines() {
            assert!(
                line.starts_with(&format!("error: {file}")),
                "{file}: {line}"
            );
            assert!(
                line.contains(" at ") && line.contains("(ahp."),
                "{file}: {line}"
            );
        }
    }
}

#[test]
fn a_transcript_problem_names_the_line() {
    let file = ahp_data("message/transcript-reply-id.invalid.jsonl")
        .display()
        .to_string();
    let out = ctk(&["validate", "ahp-message", &file]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("error: {file}:2 at /id: ")),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with("(ahp.reply.id-echo, §14.1)"),
        "{err}"
    );
}

#[test]
fn a_message_folder_includes_its_transcripts() {
    let folder = ahp_data("message").display().to_string();
    let out = ctk(&["validate", "ahp-message", &folder]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("transcript-banner.invalid.jsonl:1 at (root)"),
        "{err}"
    );
    assert!(
        err.contains("intercept-id-mismatch.invalid.json at /id"),
        "{err}"
    );
    assert!(
        !err.contains(".valid."),
        "valid fixtures print nothing: {err}"
    );
}
