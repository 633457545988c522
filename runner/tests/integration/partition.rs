//! Sharding (`ctk run --partition`, `ctk merge`) against the bundled
//! reference host in process: four shards merge into the unsharded run's
//! report; a shard, or a merge missing one, is never claimable; shards of
//! different runs, or the same shard twice, are refused.

use std::path::Path;

use crate::support::{ctk, text};
use serde_json::Value;

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("JSON")
}

/// `ctk run --quiet --report-dir DIR` plus `extra`, which must pass.
fn run(dir: &Path, extra: &[&str]) -> String {
    let d = dir.display().to_string();
    let out = ctk(&[&["run", "--quiet", "--report-dir", &d][..], extra].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{extra:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    dir.join("report.json").display().to_string()
}

#[test]
fn four_hash_shards_merge_into_the_unsharded_report() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let whole = run(&tmp.path().join("whole"), &[]);
    let whole_report = report(&tmp.path().join("whole"));
    let shards: Vec<String> = (1..=4)
        .map(|k| {
            run(
                &tmp.path().join(format!("shard-{k}")),
                &["--partition", &format!("hash:{k}/4")],
            )
        })
        .collect();
    let mut seen = 0;
    for (k, shard) in shards.iter().enumerate() {
        let r: Value =
            serde_json::from_str(&std::fs::read_to_string(shard).expect("read")).expect("JSON");
        let n = r["vectors"].as_array().map_or(0, Vec::len);
        assert!(n > 0, "shard {} is empty", k + 1);
        seen += n;
        assert_eq!(r["partition"]["shards"], serde_json::json!([k + 1]));
        assert_eq!(r["complete"], false);
        let verified = ctk(&["verify", shard]);
        assert_eq!(
            verified.status.code(),
            Some(0),
            "{}",
            text(&verified.stderr)
        );
        let claimed = ctk(&["claim", shard]);
        assert_eq!(claimed.status.code(), Some(1), "a shard was claimable");
        assert!(
            text(&claimed.stderr).contains(&format!(
                "the report holds shard(s) {} of 4 (hash partition) only",
                k + 1
            )),
            "{}",
            text(&claimed.stderr)
        );
    }
    assert_eq!(
        seen,
        whole_report["vectors"].as_array().map_or(0, Vec::len),
        "the shards together hold the set once"
    );
    let merged_dir = tmp.path().join("merged");
    let md = merged_dir.display().to_string();
    let mut args = vec!["merge", "--report-dir", md.as_str()];
    // Any order: the merge restores the run's.
    args.extend(shards.iter().rev().map(String::as_str));
    let merged = ctk(&args);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    let merged_report = report(&merged_dir);
    assert_eq!(
        merged_report["results_digest"], whole_report["results_digest"],
        "the merge of every shard is the unsharded run"
    );
    assert!(merged_report.get("partition").is_none());
    let path = merged_dir.join("report.json").display().to_string();
    let verified = ctk(&["verify", &path]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        text(&verified.stderr)
    );
    let claimed = ctk(&["claim", &path]);
    let whole_claim = ctk(&["claim", &whole]);
    assert_eq!(
        claimed.status.code(),
        whole_claim.status.code(),
        "{}",
        text(&claimed.stderr)
    );
    assert_eq!(claimed.status.code(), Some(0), "{}", text(&claimed.stderr));

    // Three of four: merged, but it says which shards it holds, and no claim.
    let partial_dir = tmp.path().join("partial");
    let pd = partial_dir.display().to_string();
    let partial = ctk(&[
        "merge",
        "--report-dir",
        &pd,
        &shards[0],
        &shards[1],
        &shards[2],
    ]);
    assert_eq!(partial.status.code(), Some(0), "{}", text(&partial.stderr));
    let partial_report = report(&partial_dir);
    assert_eq!(
        partial_report["partition"]["shards"],
        serde_json::json!([1, 2, 3])
    );
    assert_ne!(
        partial_report["results_digest"],
        whole_report["results_digest"]
    );
    let p = partial_dir.join("report.json").display().to_string();
    assert_eq!(ctk(&["verify", &p]).status.code(), Some(0));
    let claimed = ctk(&["claim", &p]);
    assert_eq!(
        claimed.status.code(),
        Some(1),
        "an incomplete merge was claimable"
    );
    assert!(
        text(&claimed.stderr)
            .contains("the report holds shard(s) 1, 2, 3 of 4 (hash partition) only"),
        "{}",
        text(&claimed.stderr)
    );

    // The same shard twice, or with a report that is not a shard: refused.
    let twice = ctk(&["merge", &shards[0], &shards[1], &shards[0]]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        text(&twice.stderr).contains("both hold shard 1/4; merge each shard once"),
        "{}",
        text(&twice.stderr)
    );
    let unsharded = ctk(&["merge", &shards[0], &whole]);
    assert_eq!(unsharded.status.code(), Some(2));
    assert!(
        text(&unsharded.stderr).contains("not a shard report"),
        "{}",
        text(&unsharded.stderr)
    );
}

#[test]
fn shards_of_different_runs_are_refused_and_count_shards_merge_too() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let part = ["--part", "verdict/warnings"];
    let whole = run(&tmp.path().join("whole"), &part);
    let a = run(
        &tmp.path().join("a"),
        &[&part[..], &["--partition", "count:1/2"]].concat(),
    );
    let b = run(
        &tmp.path().join("b"),
        &[&part[..], &["--partition", "count:2/2"]].concat(),
    );
    let merged = ctk(&["merge", &a, &b]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    let merged: Value = serde_json::from_slice(&merged.stdout).expect("report.json on stdout");
    let whole: Value =
        serde_json::from_str(&std::fs::read_to_string(&whole).expect("read")).expect("JSON");
    assert_eq!(merged["results_digest"], whole["results_digest"]);
    // Narrowed with --part: the merge is whole, yet as unclaimable as the
    // narrowed run.
    assert_eq!(merged["vector_set"]["filtered"], true);
    // A shard of a three-way cut of another selection is another run.
    let other = run(&tmp.path().join("other"), &["--partition", "hash:2/3"]);
    let mixed = ctk(&["merge", &a, &other]);
    assert_eq!(mixed.status.code(), Some(2));
    let err = text(&mixed.stderr);
    assert!(
        err.contains("differs from") && err.contains("so the shards are not of one run"),
        "{err}"
    );
    let bad = ctk(&["run", "--partition", "hash:5/4"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--partition hash:5/4: K must be from 1 to N"),
        "{}",
        text(&bad.stderr)
    );
}

/// AHP too: eight shards of the backend suite against the bundled
/// reference backend (a shard's subject lists fewer profiles than the
/// whole run's) merge into the unsharded report.
#[test]
fn ahp_shards_merge_into_the_unsharded_report() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let ahp = ["--protocol", "ahp", "--role", "backend"];
    let whole = run(&tmp.path().join("whole"), &ahp);
    let shards: Vec<String> = (1..=8)
        .map(|k| {
            let partition = format!("hash:{k}/8");
            run(
                &tmp.path().join(format!("shard-{k}")),
                &[&ahp[..], &["--partition", &partition]].concat(),
            )
        })
        .collect();
    let merged_dir = tmp.path().join("merged");
    let md = merged_dir.display().to_string();
    let mut args = vec!["merge", "--report-dir", md.as_str()];
    args.extend(shards.iter().map(String::as_str));
    let merged = ctk(&args);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    let whole: Value =
        serde_json::from_str(&std::fs::read_to_string(&whole).expect("read")).expect("JSON");
    let merged = report(&merged_dir);
    assert_eq!(merged["declaration"], whole["declaration"]);
    assert_eq!(merged["results_digest"], whole["results_digest"]);
    let path = merged_dir.join("report.json").display().to_string();
    assert_eq!(ctk(&["verify", &path]).status.code(), Some(0));
    let claimed = ctk(&["claim", &path]);
    assert_eq!(claimed.status.code(), Some(0), "{}", text(&claimed.stderr));
}
