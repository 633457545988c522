//! `ctk run --transcript` and `ctk repro`: a failing vector's exchange with
//! the Python example host, recorded, turned into a standalone script, and
//! replayed against that host (the failure reproduces) and against a host
//! that behaves differently (the divergence is named). Needs `python3`,
//! which every machine of this project has: a missing one fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{ctk, text};
use serde_json::Value;

fn python(args: &[&str]) -> Output {
    Command::new("python3")
        .args(args)
        .output()
        .expect("python3 is needed by the repro tests (it is on every machine of this project)")
}

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
        .display()
        .to_string()
}

/// A vector folder: CTK-0001 as released, and CTK-9001, a copy whose
/// expected final output is wrong, so that the Python host (which is right)
/// fails it.
fn vectors(dir: &Path) -> PathBuf {
    let folder = dir.join("vectors");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let original = repo("vectors/0.1/CTK-0001-allow-warning-startup.json");
    let text = std::fs::read_to_string(&original).expect("CTK-0001");
    std::fs::write(folder.join("CTK-0001.json"), &text).expect("write");
    let mut wrong: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(wrong["expect"]["final_output"], "done", "CTK-0001 changed");
    wrong["id"] = "CTK-9001".into();
    wrong["expect"]["final_output"] = "not done".into();
    std::fs::write(
        folder.join("CTK-9001.json"),
        serde_json::to_string_pretty(&wrong).expect("JSON"),
    )
    .expect("write");
    folder
}

fn host() -> Vec<String> {
    vec!["python3".into(), repo("examples/python-host/host.py")]
}

/// Record the two vectors against the Python host, with `extra` flags.
fn record(dir: &Path, extra: &[&str]) -> (PathBuf, Output) {
    let vectors = vectors(dir);
    let transcripts = dir.join("transcripts");
    let (v, t, d) = (
        vectors.display().to_string(),
        transcripts.display().to_string(),
        repo("examples/python-host/host.json"),
    );
    let mut args = vec![
        "run",
        "--quiet",
        "--vectors",
        &v,
        "--declaration",
        &d,
        "--transcript",
        &t,
    ];
    args.extend_from_slice(extra);
    args.push("--");
    let host = host();
    args.extend(host.iter().map(String::as_str));
    (transcripts, ctk(&args))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_recorded_failure_replays_against_the_python_host_and_a_different_host_diverges() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (transcripts, run) = record(tmp.path(), &["--jobs", "1"]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));

    // The second vector on the persistent host starts with a copy of the
    // handshake, then its own exchange, in wire order.
    let entries = lines(&transcripts.join("CTK-9001.jsonl"));
    assert_eq!(entries[0]["message"]["method"], "initialize");
    assert_eq!(entries[0]["before_vector"], true);
    assert_eq!(entries[1]["direction"], "from_host");
    assert!(entries.iter().enumerate().all(|(i, e)| e["seq"] == i));
    let methods: Vec<&str> = entries
        .iter()
        .filter(|e| e["direction"] == "to_host")
        .filter_map(|e| e["message"]["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "vector/setup",
            "vector/run",
            "vector/teardown"
        ]
    );
    // The Python host announces recorded-contexts: interceptor 0's calls,
    // whose answers the runner sends with vector/run, come as notifications,
    // which the replay must match too.
    let count = |method: &str| {
        entries
            .iter()
            .filter(|e| e["message"]["method"] == method)
            .count()
    };
    let reported = count("callback/record");
    let callbacks = count("callback/intercept") + reported;
    assert!(callbacks >= 8, "{callbacks} calls recorded");
    assert!(reported >= 8, "{reported} callback/record notifications");
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(transcripts.join("index.json")).expect("index.json"),
    )
    .expect("JSON");
    let row = index["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .find(|v| v["id"] == "CTK-9001")
        .expect("CTK-9001 in the index");
    assert_eq!(row["status"], "fail");

    let script = tmp.path().join("repro.py");
    let s = script.display().to_string();
    let t = transcripts.display().to_string();
    let made = ctk(&["repro", "CTK-9001", "--transcript", &t, "-o", &s]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let body = std::fs::read_to_string(&script).expect("script");
    let header: Vec<&str> = body
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect();
    let header = header.join(" ");
    assert!(
        header.contains("ctk's verdict on that exchange: fail: final_output"),
        "the header names the verdict: {header}"
    );
    for module in body
        .lines()
        .filter_map(|l| l.strip_prefix("import "))
        .map(str::trim)
    {
        assert!(
            [
                "argparse",
                "json",
                "os",
                "queue",
                "signal",
                "subprocess",
                "sys",
                "threading",
                "time"
            ]
            .contains(&module),
            "the script imports {module}, not in the standard library list"
        );
    }

    // The host that was recorded behaves as recorded: the failure stands.
    let host = host();
    let mut args = vec![s.as_str(), "--"];
    args.extend(host.iter().map(String::as_str));
    let same = python(&args);
    let out = text(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{out}{}", text(&same.stderr));
    assert!(out.contains("AS RECORDED"), "{out}");
    assert!(
        out.contains("ctk's verdict on the recorded exchange: fail: final_output"),
        "{out}"
    );

    // A host whose final output differs: the Python host behind a filter.
    let filter = tmp.path().join("changed_host.py");
    std::fs::write(
        &filter,
        format!(
            "import subprocess, sys\n\
             p = subprocess.Popen(['python3', {host:?}], stdin=sys.stdin, stdout=subprocess.PIPE)\n\
             for line in p.stdout:\n\
             \x20   sys.stdout.buffer.write(line.replace(b'\"final_output\":\"done\"', b'\"final_output\":\"DONE\"'))\n\
             \x20   sys.stdout.buffer.flush()\n",
            host = repo("examples/python-host/host.py")
        ),
    )
    .expect("write");
    let f = filter.display().to_string();
    let other = python(&[&s, "--", "python3", &f]);
    let out = text(&other.stdout);
    assert_eq!(other.status.code(), Some(1), "{out}{}", text(&other.stderr));
    let answer = entries
        .iter()
        .find(|e| e["direction"] == "from_host" && e["message"]["result"]["final_output"] == "done")
        .expect("the run record in the transcript");
    let at = format!("transcript message #{} (from_host", answer["seq"]);
    assert!(out.contains(&at), "{out}");
    assert!(out.contains("at /result/final_output"), "{out}");
    assert!(out.contains("recorded: \"done\""), "{out}");
    assert!(out.contains("actual:   \"DONE\""), "{out}");
}

#[test]
fn repro_without_a_transcript_records_the_vector_against_the_host() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let vectors = vectors(tmp.path()).display().to_string();
    let script = tmp.path().join("repro.py").display().to_string();
    let host = host();
    let declaration = repo("examples/python-host/host.json");
    let mut args = vec![
        "repro",
        "CTK-9001",
        "--vectors",
        &vectors,
        "--declaration",
        &declaration,
        "-o",
        &script,
        "--",
    ];
    args.extend(host.iter().map(String::as_str));
    let made = ctk(&args);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let mut replay = vec![script.as_str(), "--"];
    replay.extend(host.iter().map(String::as_str));
    let same = python(&replay);
    let out = text(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{out}{}", text(&same.stderr));
    assert!(out.contains("so the fail reproduces on this host"), "{out}");

    let missing = ctk(&["repro", "CTK-9001", "--vectors", &vectors, "-o", &script]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("give the host command after `--`"));
}

#[test]
fn isolated_parallel_hosts_give_each_vector_its_own_whole_exchange() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (transcripts, run) = record(tmp.path(), &["--isolate", "--jobs", "2"]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    for id in ["CTK-0001", "CTK-9001"] {
        let entries = lines(&transcripts.join(format!("{id}.jsonl")));
        // A process of its own: the handshake is live, and shutdown ends it.
        assert_eq!(entries[0]["message"]["method"], "initialize", "{id}");
        assert!(entries[0].get("before_vector").is_none(), "{id}");
        assert_eq!(entries[2]["message"]["params"]["vector_id"], id);
        let last_request = entries
            .iter()
            .rev()
            .find_map(|e| e["message"]["method"].as_str())
            .expect("a request");
        assert_eq!(last_request, "shutdown", "{id}");
        assert!(
            entries.iter().all(|e| e["t_ms"].is_u64()),
            "{id}: every live line has its time"
        );
    }
}

#[test]
fn transcripts_need_a_host_process_and_a_readable_recording() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path().join("t").display().to_string();
    let inproc = ctk(&["run", "--part", "verdict/warnings", "--transcript", &t]);
    assert_eq!(inproc.status.code(), Some(2), "{}", text(&inproc.stderr));
    assert!(text(&inproc.stderr).contains("host command after `--`"));

    std::fs::create_dir_all(tmp.path().join("t")).expect("mkdir");
    std::fs::write(
        tmp.path().join("t/CTK-0001.jsonl"),
        "{\"seq\":0,\"direction\":\"to_host\",\"message\":{}}\n{\"seq\":5,\"direction\":\"from_host\",\"message\":{}}\n",
    )
    .expect("write");
    let out = tmp.path().join("r.py").display().to_string();
    let cut = ctk(&["repro", "CTK-0001", "--transcript", &t, "-o", &out]);
    assert_eq!(cut.status.code(), Some(2));
    assert!(
        text(&cut.stderr).contains("line 2") && text(&cut.stderr).contains("seq is 5"),
        "{}",
        text(&cut.stderr)
    );
    let none = ctk(&["repro", "CTK-0404", "--transcript", &t, "-o", &out]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        text(&none.stderr).contains("transcribed there: CTK-0001"),
        "{}",
        text(&none.stderr)
    );
}
