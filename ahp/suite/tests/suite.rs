//! The suite against backends whose behaviour is known: a correct python
//! backend and broken variants of it (tests/backends/fake_backend.py), and
//! the reference backend `ctk-ahp-backend` in all three bindings.
//!
//! Every broken backend must fail the vectors it breaks, within bounds, and
//! leave no process behind; the correct ones must pass everything.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ctk_ahp_suite::{
    load_dir, policy, run_suite_blocking, vector, Lifecycle, Outcome, StdioCommand, SuiteConfig,
    Target, Vector, Verdict,
};

fn vectors() -> Vec<Vector> {
    load_dir(&vector::default_dir())
        .expect("the released vectors load")
        .into_iter()
        .map(|l| l.vector)
        .collect()
}

fn only(ids: &[&str]) -> Vec<Vector> {
    let all = vectors();
    let picked: Vec<Vector> = all
        .into_iter()
        .filter(|v| ids.contains(&v.id.as_str()))
        .collect();
    assert_eq!(picked.len(), ids.len(), "every named vector exists");
    picked
}

fn fake() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/backends/fake_backend.py")
}

fn fake_stdio(mode: &str, lifecycle: Lifecycle) -> Target {
    let mut args: Vec<OsString> = vec![fake().into(), "--mode".into(), mode.into()];
    if lifecycle == Lifecycle::PerEvent {
        args.push("--per-event".into());
    }
    Target::Stdio(StdioCommand {
        program: "python3".into(),
        args,
        lifecycle,
        cwd: None,
        env: Vec::new(),
    })
}

fn both_policies() -> BTreeSet<String> {
    [policy::DENY_FORCE_PUSH, policy::NO_EFFECT_FILE_READ]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

fn cfg(deadline_ms: u64) -> SuiteConfig {
    SuiteConfig {
        step_deadline: Duration::from_millis(deadline_ms),
        vector_timeout: Duration::from_secs(60),
        policies: both_policies(),
        ..SuiteConfig::default()
    }
}

fn summary(outcomes: &[Outcome]) -> String {
    outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Pass && o.verdict != Verdict::Skip)
        .map(|o| {
            format!(
                "{} {:?}{}: {}{}",
                o.id,
                o.verdict,
                o.advisory
                    .as_deref()
                    .map(|a| format!(" (advisory {a})"))
                    .unwrap_or_default(),
                o.reason.clone().unwrap_or_default(),
                o.failures
                    .iter()
                    .map(|f| format!("\n    {}: {}", f.key, f.message))
                    .collect::<String>()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_all_pass(outcomes: &[Outcome], what: &str) {
    let ran = outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Skip)
        .count();
    assert!(ran >= 40, "{what}: only {ran} vectors ran");
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o.verdict, Verdict::Pass | Verdict::Skip)),
        "{what}: not everything passed:\n{}",
        summary(outcomes)
    );
}

fn verdict_of<'a>(outcomes: &'a [Outcome], id: &str) -> &'a Outcome {
    outcomes
        .iter()
        .find(|o| o.id == id)
        .expect("outcome exists")
}

/// A loopback HTTP server child, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(program: &Path, args: &[&str], parse: fn(&str) -> Option<String>) -> Server {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let stdout = child.stdout.take().expect("piped");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("server prints its address");
    let url = parse(line.trim()).unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    Server { child, url }
}

fn fake_http(mode: &str) -> Server {
    start_server(
        Path::new("python3"),
        &[
            fake().to_str().expect("utf-8 path"),
            "--mode",
            mode,
            "--http",
        ],
        |l| {
            l.strip_prefix("PORT ")
                .map(|p| format!("http://127.0.0.1:{p}/"))
        },
    )
}

// --- the vectors themselves ---------------------------------------------

#[test]
fn the_released_vectors_load_lint_and_match_the_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("schemas/ahp/vector.schema.json")).expect("schema"),
    )
    .expect("schema is JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    let all = load_dir(&vector::default_dir()).expect("vectors load");
    assert!(all.len() >= 40, "{} vectors", all.len());
    for l in &all {
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&l.path).expect("read")).expect("json");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", l.path.display());
        assert_eq!(
            l.path.file_stem().and_then(|s| s.to_str()),
            Some(l.vector.id.as_str()),
            "file name is the id"
        );
        if let Some(p) = &l.vector.policy {
            assert!(policy::is_known(p), "{}: unknown policy {p}", l.vector.id);
        }
    }
}

#[test]
fn the_lint_refuses_a_vector_that_silence_alone_would_pass() {
    let mut v = vectors()
        .into_iter()
        .find(|v| v.send.iter().any(|s| s.notification))
        .expect("a notification vector");
    v.send.pop();
    v.expect.pop();
    let problems = v.lint();
    assert!(
        problems.iter().any(|p| p.contains("probe")),
        "lint: {problems:?}"
    );
}

/// "None or one reply" is decidable only where the process's end bounds
/// the wait, and `repeat` belongs to raw text.
#[test]
fn the_lint_keeps_at_most_one_to_stdio_per_event_and_repeat_to_raw() {
    let oversize = vectors()
        .into_iter()
        .find(|v| v.id == "AHP-B-0070")
        .expect("AHP-B-0070");
    assert!(oversize.lint().is_empty(), "{:?}", oversize.lint());
    let mut persistent = oversize.clone();
    persistent.lifecycle = ctk_ahp_suite::vector::LifecycleSel::Persistent;
    assert!(
        persistent.lint().iter().any(|p| p.contains("at_most_one")),
        "{:?}",
        persistent.lint()
    );
    let mut framed = oversize.clone();
    framed.send[1].repeat = Some(2);
    assert!(
        framed
            .lint()
            .iter()
            .any(|p| p.contains("repeat is for a raw step")),
        "{:?}",
        framed.lint()
    );
    assert_eq!(
        oversize.send[0].wire_text().map(|t| t.len()),
        Some(2_200_000)
    );
}

#[test]
fn covers_name_catalog_clauses_and_advisories_name_recorded_decisions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let catalog: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("spec/ahp/0.1/clauses.json")).expect("catalog"),
    )
    .expect("catalog is JSON");
    let clauses: BTreeSet<&str> = catalog["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    let decisions =
        std::fs::read_to_string(root.join("spec/ahp/0.1/DECISIONS.md")).expect("DECISIONS.md");
    for v in vectors() {
        for c in &v.covers {
            assert!(clauses.contains(c.as_str()), "{}: unknown clause {c}", v.id);
        }
        if let Some(d) = &v.advisory {
            let heading = format!("### {d}.");
            assert!(
                decisions.contains(&heading),
                "{}: advisory {d} is recorded nowhere",
                v.id
            );
        }
    }
}

#[test]
fn requirement_ids_exist_upstream() {
    // CTK_UPSTREAM_DIR names the upstream folder, as in every crate's tests.
    let upstream = std::env::var_os("CTK_UPSTREAM_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream"));
    let path = upstream.join("agent-hooks-protocol/spec/requirements.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            std::env::var("CTK_REQUIRE_UPSTREAM").as_deref() != Ok("1"),
            "upstream data missing: {}",
            path.display()
        );
        eprintln!("SKIPPED (upstream data missing: {})", path.display());
        return;
    };
    let req: serde_json::Value = serde_json::from_str(&text).expect("json");
    let ids: BTreeSet<&str> = req["requirements"]
        .as_array()
        .expect("requirements")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 20);
    for v in vectors() {
        for r in &v.requirements {
            assert!(
                ids.contains(r.as_str()),
                "{}: unknown requirement {r}",
                v.id
            );
        }
    }
}

#[test]
fn the_generator_reproduces_the_committed_vectors() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ahp/gen/generate.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "regenerate with `python3 vectors/ahp/gen/generate.py`: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// --- a correct backend passes, in every binding ------------------------

#[test]
fn a_correct_persistent_backend_passes_every_vector() {
    let o = run_suite_blocking(
        &vectors(),
        &fake_stdio("correct", Lifecycle::Persistent),
        &cfg(3000),
    )
    .expect("runtime");
    assert_all_pass(&o, "persistent");
}

#[test]
fn a_correct_per_event_backend_passes_every_vector() {
    let o = run_suite_blocking(
        &vectors(),
        &fake_stdio("correct", Lifecycle::PerEvent),
        &cfg(3000),
    )
    .expect("runtime");
    assert_all_pass(&o, "per_event");
}

#[test]
fn a_correct_http_backend_passes_every_vector() {
    let server = fake_http("correct");
    let target = Target::Http {
        url: server.url.clone(),
    };
    let o = run_suite_blocking(&vectors(), &target, &cfg(3000)).expect("runtime");
    assert_all_pass(&o, "http");
}

#[test]
fn policy_vectors_are_skipped_unless_the_backend_declares_the_policy() {
    let c = SuiteConfig {
        policies: BTreeSet::new(),
        ..cfg(3000)
    };
    let policy_bound: Vec<Vector> = vectors()
        .into_iter()
        .filter(|v| v.policy.is_some())
        .collect();
    assert!(!policy_bound.is_empty());
    let o = run_suite_blocking(
        &policy_bound,
        &fake_stdio("correct", Lifecycle::Persistent),
        &c,
    )
    .expect("runtime");
    assert!(
        o.iter().all(|o| o.verdict == Verdict::Skip),
        "{}",
        summary(&o)
    );
}

// --- broken backends fail, bounded, leaving nothing behind -------------

/// Run `ids` against a broken mode and require each to fail (gating ones
/// included), within `bound`.
fn must_fail(mode: &str, lifecycle: Lifecycle, ids: &[&str], deadline_ms: u64, bound: Duration) {
    let started = Instant::now();
    let o = run_suite_blocking(&only(ids), &fake_stdio(mode, lifecycle), &cfg(deadline_ms))
        .expect("runtime");
    let took = started.elapsed();
    for id in ids {
        let out = verdict_of(&o, id);
        assert_eq!(
            out.verdict,
            Verdict::Fail,
            "{mode}: {id} must fail: {:?} {}",
            out.reason,
            summary(&o)
        );
        assert!(!out.failures.is_empty());
    }
    assert!(took < bound, "{mode}: took {took:?}, bound {bound:?}");
}

const BASIC: &str = "AHP-B-0001";

fn first_gating_with(pred: impl Fn(&Vector) -> bool) -> String {
    vectors()
        .into_iter()
        .find(|v| v.advisory.is_none() && pred(v))
        .map(|v| v.id)
        .expect("such a vector")
}

#[test]
fn a_wrong_id_fails() {
    must_fail(
        "wrong_id",
        Lifecycle::Persistent,
        &[BASIC, "AHP-B-0003"],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn two_effects_fail() {
    must_fail(
        "two_effects",
        Lifecycle::PerEvent,
        &[BASIC],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn an_empty_reason_fails() {
    must_fail(
        "empty_reason",
        Lifecycle::Persistent,
        &[BASIC],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn a_wrong_result_version_fails() {
    must_fail(
        "wrong_version",
        Lifecycle::Persistent,
        &[BASIC],
        1000,
        Duration::from_secs(20),
    );
}

/// AHP-B-0070: a line past a backend's bound may go unanswered or unread
/// (D-35), but nothing but protocol messages may reach stdout (17.1).
#[test]
fn an_oversize_line_may_go_unanswered_but_never_answered_with_text() {
    const OVERSIZE: &str = "AHP-B-0070";
    for mode in ["garbage_silent", "stop_reading_long"] {
        let o = run_suite_blocking(
            &only(&[OVERSIZE]),
            &fake_stdio(mode, Lifecycle::PerEvent),
            &cfg(1000),
        )
        .expect("runtime");
        assert_eq!(
            verdict_of(&o, OVERSIZE).verdict,
            Verdict::Pass,
            "{mode}: {}",
            summary(&o)
        );
    }
    must_fail(
        "garbage_text",
        Lifecycle::PerEvent,
        &[OVERSIZE],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn a_banner_on_stdout_fails_even_where_replies_are_right() {
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &fake_stdio("banner", Lifecycle::Persistent),
        &cfg(1000),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail, "{}", summary(&o));
    assert!(out
        .failures
        .iter()
        .all(|f| f.key == "run.stdout_protocol_only"));
    assert!(out.failures[0].message.contains("fake backend ready"));
}

#[test]
fn pretty_printed_replies_fail() {
    must_fail(
        "pretty",
        Lifecycle::Persistent,
        &[BASIC],
        500,
        Duration::from_secs(20),
    );
}

#[test]
fn exiting_1_after_answering_fails_per_event() {
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &fake_stdio("exit1", Lifecycle::PerEvent),
        &cfg(1000),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail);
    assert!(
        out.failures
            .iter()
            .any(|f| f.key == "run.per_event_exit_zero" && f.message.contains("status 1")),
        "{}",
        summary(&o)
    );
}

#[test]
fn a_per_event_process_that_answers_but_never_exits_fails_and_is_killed() {
    let started = Instant::now();
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &fake_stdio("linger", Lifecycle::PerEvent),
        &cfg(300),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail, "{}", summary(&o));
    assert!(
        out.failures
            .iter()
            .any(|f| f.key == "run.per_event_exit_zero" && f.message.contains("killed")),
        "{}",
        summary(&o)
    );
    let record = out.record.as_ref().expect("record");
    assert!(record.processes.iter().all(|p| p.killed));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_vector_past_its_timeout_is_an_error_and_the_backend_is_killed() {
    let c = SuiteConfig {
        vector_timeout: Duration::from_millis(500),
        ..cfg(5000)
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("backend.pid");
    let mut target = fake_stdio("hang", Lifecycle::Persistent);
    if let Target::Stdio(cmd) = &mut target {
        cmd.env
            .push(("FAKE_PIDFILE".into(), pidfile.clone().into()));
    }
    let started = Instant::now();
    let o = run_suite_blocking(&only(&[BASIC]), &target, &c).expect("runtime");
    assert_eq!(o[0].verdict, Verdict::Error, "{}", summary(&o));
    assert!(o[0].reason.as_deref().unwrap_or("").contains("timeout"));
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid = std::fs::read_to_string(&pidfile).expect("the backend wrote its pid");
    wait_dead(pid.trim().parse().expect("pid"));
}

/// Wait up to 3 s for `pid` to be gone (or a zombie); fail otherwise.
fn wait_dead(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, r)| !r.trim_start().starts_with(['Z', 'X']))
            })
            .unwrap_or(false);
        if !alive {
            return;
        }
        assert!(Instant::now() < deadline, "process {pid} outlived the run");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn echoing_the_secret_fails_over_stdio_and_http() {
    let secret = first_gating_with(|v| v.run.canary.is_some() && v.title.contains("error data"));
    must_fail(
        "echo_token",
        Lifecycle::Persistent,
        &[secret.as_str()],
        1000,
        Duration::from_secs(20),
    );
    let server = fake_http("echo_token");
    let http_secret = first_gating_with(|v| {
        v.binding == vector::BindingSel::Http && v.run.canary == Some(vector::CanaryScope::Anywhere)
    });
    let o = run_suite_blocking(
        &only(&[secret.as_str(), http_secret.as_str()]),
        &Target::Http {
            url: server.url.clone(),
        },
        &cfg(1000),
    )
    .expect("runtime");
    for id in [&secret, &http_secret] {
        let out = verdict_of(&o, id);
        assert_eq!(out.verdict, Verdict::Fail, "{id}: {}", summary(&o));
        assert!(out.failures.iter().any(|f| f.key == "run.canary"));
        // The failure names where, never the secret itself.
        assert!(out
            .failures
            .iter()
            .all(|f| !f.message.contains(&cfg(1).canary[..12]) || f.key != "run.canary"));
    }
}

#[test]
fn answering_notifications_fails() {
    let id = first_gating_with(|v| {
        v.send.iter().any(|s| s.notification) && v.binding == vector::BindingSel::Any
    });
    must_fail(
        "answer_notifications",
        Lifecycle::Persistent,
        &[id.as_str()],
        1000,
        Duration::from_secs(20),
    );
    must_fail(
        "answer_notifications",
        Lifecycle::PerEvent,
        &[id.as_str()],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn a_backend_crashing_on_unknown_members_fails_those_vectors() {
    let id = first_gating_with(|v| v.title.contains("request's root object"));
    must_fail(
        "crash_on_unknown",
        Lifecycle::Persistent,
        &[id.as_str()],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn a_hanging_backend_fails_within_the_bound() {
    // Deadline 300 ms: the reply is awaited 600 ms, the process gets
    // another 300 ms to exit, then it is killed.
    must_fail(
        "hang",
        Lifecycle::Persistent,
        &[BASIC],
        300,
        Duration::from_secs(10),
    );
    must_fail(
        "hang",
        Lifecycle::PerEvent,
        &[BASIC],
        300,
        Duration::from_secs(10),
    );
}

#[test]
fn a_flooding_backend_fails_within_the_bound() {
    must_fail(
        "flood",
        Lifecycle::Persistent,
        &[BASIC],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn a_huge_line_fails_without_being_kept_whole() {
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &fake_stdio("huge_line", Lifecycle::Persistent),
        &cfg(1000),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail);
    let record = out.record.as_ref().expect("record");
    assert!(record.lines.iter().all(|l| l.text.len() <= (1 << 20)));
}

#[test]
fn a_wrong_content_type_fails_over_http() {
    let server = fake_http("wrong_content_type");
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &Target::Http {
            url: server.url.clone(),
        },
        &cfg(1000),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail);
    assert!(out
        .failures
        .iter()
        .any(|f| f.message.contains("Content-Type")));
}

#[test]
fn a_backend_that_takes_each_read_for_a_message_fails_the_pieces_vector() {
    let id = first_gating_with(|v| v.send.iter().any(|s| s.pieces.is_some()));
    must_fail(
        "read_chunk",
        Lifecycle::Persistent,
        &[id.as_str()],
        1000,
        Duration::from_secs(20),
    );
    // The same backend passes when frames arrive whole: the vector, not
    // the mode, makes the difference.
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &fake_stdio("read_chunk", Lifecycle::Persistent),
        &cfg(1000),
    )
    .expect("runtime");
    assert_eq!(
        verdict_of(&o, BASIC).verdict,
        Verdict::Pass,
        "{}",
        summary(&o)
    );
}

#[test]
fn answering_a_notification_while_a_request_is_outstanding_fails() {
    let id = first_gating_with(|v| v.send.iter().any(|s| s.no_wait));
    must_fail(
        "answer_notifications",
        Lifecycle::Persistent,
        &[id.as_str()],
        1000,
        Duration::from_secs(20),
    );
}

#[test]
fn redirects_are_not_followed() {
    let server = fake_http("redirect");
    let o = run_suite_blocking(
        &only(&[BASIC]),
        &Target::Http {
            url: server.url.clone(),
        },
        &cfg(1000),
    )
    .expect("runtime");
    let out = verdict_of(&o, BASIC);
    assert_eq!(out.verdict, Verdict::Fail, "{}", summary(&o));
    assert!(
        out.failures
            .iter()
            .any(|f| f.message.contains("307") && f.message.contains("/elsewhere")),
        "{}",
        summary(&o)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_forked_setsid_child_is_killed_with_the_backend() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("child.pid");
    let mut target = fake_stdio("fork", Lifecycle::Persistent);
    if let Target::Stdio(c) = &mut target {
        c.env
            .push(("FAKE_CHILD_PIDFILE".into(), pidfile.clone().into()));
    }
    let o = run_suite_blocking(&only(&[BASIC]), &target, &cfg(2000)).expect("runtime");
    // The backend itself answers correctly; its daemon must not survive.
    assert_eq!(
        verdict_of(&o, BASIC).verdict,
        Verdict::Pass,
        "{}",
        summary(&o)
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .expect("the child wrote its pid")
        .trim()
        .parse()
        .expect("pid");
    wait_dead(pid);
}

#[test]
fn a_command_that_cannot_start_is_an_error_not_a_verdict() {
    let target = Target::Stdio(StdioCommand {
        program: "/nonexistent/ctk-ahp-backend".into(),
        args: Vec::new(),
        lifecycle: Lifecycle::Persistent,
        cwd: None,
        env: Vec::new(),
    });
    let o = run_suite_blocking(&only(&[BASIC]), &target, &cfg(500)).expect("runtime");
    assert_eq!(o[0].verdict, Verdict::Error);
    assert!(o[0]
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("cannot start"));
}

#[test]
fn an_unreachable_url_is_an_error_not_a_verdict() {
    // Bind and drop a listener: the port is (very likely) closed now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let target = Target::Http {
        url: format!("http://127.0.0.1:{port}/"),
    };
    let o = run_suite_blocking(&only(&[BASIC]), &target, &cfg(500)).expect("runtime");
    assert_eq!(o[0].verdict, Verdict::Error, "{}", summary(&o));
}

// --- the reference backend -------------------------------------------------

/// `target/debug/ctk-ahp-backend`, built by `cargo build -p
/// ctk-ahp-reference-backend`; `None` (with a visible line) when it is not built,
/// a failure when `CTK_REQUIRE_AHP_REFERENCE` is set.
fn reference() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/ctk-ahp-backend");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CTK_REQUIRE_AHP_REFERENCE").is_none(),
        "{} is not built (cargo build -p ctk-ahp-reference-backend)",
        path.display()
    );
    eprintln!(
        "SKIPPED (reference backend not built: {}; run `cargo build -p ctk-ahp-reference-backend`)",
        path.display()
    );
    None
}

fn reference_cfg() -> SuiteConfig {
    // The built-in policy denies `git push --force` in a shell call and
    // gives no effect to everything else it has no rule for.
    cfg(3000)
}

#[test]
fn the_reference_backend_passes_every_gating_vector_in_all_three_bindings() {
    let Some(bin) = reference() else { return };
    let stdio = |lifecycle: Lifecycle| {
        let mut args: Vec<OsString> = vec!["--quiet".into(), "stdio".into()];
        if lifecycle == Lifecycle::PerEvent {
            args.push("--per-event".into());
        }
        Target::Stdio(StdioCommand {
            program: bin.clone().into(),
            args,
            lifecycle,
            cwd: None,
            env: Vec::new(),
        })
    };
    let server = start_server(&bin, &["--quiet", "http"], |l| {
        l.starts_with("http://").then(|| l.to_owned())
    });
    let http = Target::Http {
        url: server.url.clone(),
    };
    let mut report = String::new();
    for (name, target) in [
        ("persistent", stdio(Lifecycle::Persistent)),
        ("per_event", stdio(Lifecycle::PerEvent)),
        ("http", http),
    ] {
        let o = run_suite_blocking(&vectors(), &target, &reference_cfg()).expect("runtime");
        let gating_bad: Vec<&Outcome> = o
            .iter()
            .filter(|o| o.advisory.is_none() && !matches!(o.verdict, Verdict::Pass | Verdict::Skip))
            .collect();
        assert!(
            gating_bad.is_empty(),
            "reference backend, {name}: gating vectors did not pass:\n{}",
            summary(&o)
        );
        let ran = o.iter().filter(|o| o.verdict != Verdict::Skip).count();
        assert!(ran >= 40, "{name}: {ran} ran");
        report.push_str(&format!(
            "{name}: {} ran, advisory not passing: {}\n",
            ran,
            o.iter()
                .filter(|o| o.advisory.is_some()
                    && o.verdict != Verdict::Pass
                    && o.verdict != Verdict::Skip)
                .map(|o| o.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    eprintln!("{report}");
}
