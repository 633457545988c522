//! `ctk mutation --html`: the mutation page of a results file, its scores
//! checked against reports/mutation/render.py's own tally of the same file,
//! hostile keys shown as text, a null suite shown as not run, and a file of
//! the wrong shape refused with its path and JSON pointer.

use crate::support::ctk;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mutation")
        .join(name)
        .display()
        .to_string()
}

fn page(args: &[&str]) -> String {
    let out = ctk(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the page is UTF-8")
}

/// The scores row of each suite as render.py computes it for the same file
/// (its `tally`, `score` and `pct`), in the page's column order: so the page
/// and reports/mutation.md cannot drift apart.
fn render_py_rows(results: &str) -> Vec<String> {
    let script = r#"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("render", sys.argv[1])
render = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render)
data = json.load(open(sys.argv[2]))
equivalents = {k: v["equivalent"] for k, v in data.items() if v["equivalent"] is not None}
for suite in ("project", "upstream"):
    total = render.collections.Counter()
    for c in render.tally({k: v[suite] for k, v in data.items()}, equivalents).values():
        total.update(c)
    killed, scored = render.score(total)
    print(" ".join(str(n) for n in (sum(total.values()), killed, total["timeout"], total["missed"],
                                    total["equivalent"], total["unviable"])) + " " + render.pct(killed, scored))
"#;
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(root.join("reports/mutation/render.py"))
        .arg(results)
        .output()
        .expect("python3 runs (render.py is the reference for the scores)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split(' ').collect();
            cells
                .iter()
                .map(|c| format!("<td class=\"n\">{c}</td>"))
                .collect::<String>()
        })
        .collect()
}

#[test]
fn the_page_scores_both_suites_as_render_py_does() {
    let results = data("results.json");
    let html = page(&["mutation", "--html", &results]);
    let rows = render_py_rows(&results);
    assert_eq!(rows.len(), 2);
    // The fixture's numbers, worked by hand: render.py must agree with them
    // too, or the fixture no longer tests what it says.
    assert_eq!(
        rows[0],
        "<td class=\"n\">8</td><td class=\"n\">4</td><td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">66.7%</td>"
    );
    assert_eq!(
        rows[1],
        "<td class=\"n\">8</td><td class=\"n\">3</td><td class=\"n\">1</td><td class=\"n\">3</td><td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">50.0%</td>"
    );
    assert!(
        html.contains(&format!(
            "<tr><th scope=\"row\">project (0.1 and draft)</th>{}</tr>",
            rows[0]
        )),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            "<tr><th scope=\"row\">upstream (AH-CTK-001..113)</th>{}</tr>",
            rows[1]
        )),
        "{html}"
    );
    // Per module: engine has 4 mutants, project 2 killed / 1 missed (one
    // missed is equivalent), upstream 2 / 1; wire/mod.rs is module `wire`.
    assert!(html.contains("<tr><th scope=\"row\"><code>engine</code></th><td class=\"n\">4</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">1</td><td class=\"n\">0</td></tr>"), "{html}");
    assert!(
        html.contains("<code>wire</code></th><td class=\"n\">1</td>"),
        "{html}"
    );
    assert!(
        html.contains("<code>wire/frame</code></th><td class=\"n\">2</td>"),
        "{html}"
    );
    assert!(
        html.contains("<th scope=\"col\">mutant</th><th scope=\"col\">why it is equivalent</th>")
    );
    assert!(
        html.contains(
            "<td>only changes a log line &amp; &lt;b&gt;nothing&lt;/b&gt; a host can show</td>"
        ),
        "{html}"
    );
}

#[test]
fn missed_mutants_are_marked_known_survivors_and_hostile_keys_stay_text() {
    let html = page(&[
        "mutation",
        "--html",
        &data("results.json"),
        "--survivors",
        &data("survivors.txt"),
    ]);
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<a class=\"skip\" href=\"#main\">"));
    assert!(
        !html.contains("<script>") && !html.contains("<img"),
        "{html}"
    );
    assert!(html.contains("<code>agent-hooks/reference-host/src/&lt;script&gt;alert(1)&lt;/script&gt;.rs: replace f -&gt; bool with &lt;img src=x onerror=alert(2)&gt;</code>"), "{html}");
    // One table row each: the page is not laid out in lines.
    let gate1 = html
        .split("<tr>")
        .find(|l| l.contains("delete ! in Engine::gate #1</code>"))
        .expect("the missed gate #1 row");
    assert!(
        gate1.contains(
            "<strong>known survivor</strong>: no vector pins the gate's &lt;negation&gt; yet"
        ),
        "{gate1}"
    );
    // Missed by the project suite and in neither list: said in words.
    let hostile = html
        .split("<tr>")
        .find(|l| l.contains("onerror=alert(2)&gt;</code></th>"))
        .expect("the hostile row");
    assert!(
        hostile.contains("not listed</span>: a gap in neither"),
        "{hostile}"
    );
    // Only upstream missed it: not a project gap.
    let fold = html
        .split("<tr>")
        .find(|l| l.contains("with true</code></th>"))
        .expect("the fold row");
    assert!(
        fold.contains("<td>timeout</td>") && fold.contains("only the upstream suite missed it"),
        "{fold}"
    );
    // The equivalent one is not among the missed.
    assert!(
        !html.contains("gate #2</code></th><td><span class=\"fail\">"),
        "{html}"
    );
    // A listed survivor the project suite catches is called out.
    assert!(html.contains("<ul class=\"stale-survivors\"><li><code>agent-hooks/reference-host/src/wire/frame.rs: replace == with != in frame</code></li>"), "{html}");
    // Without --survivors, nothing is a known survivor.
    let plain = page(&["mutation", "--html", &data("results.json")]);
    assert!(!plain.contains("known survivor"));
}

#[test]
fn a_suite_that_was_not_run_says_so_and_the_output_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mutation.html");
    let o = out.display().to_string();
    assert_eq!(
        page(&["mutation", "--html", &data("sample.json"), "-o", &o]),
        ""
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<th scope=\"row\">upstream (AH-CTK-001..113)</th><td colspan=\"7\" class=\"not-run\">not run"), "{html}");
    assert!(html.contains("<td>not run</td><td>not run</td>"), "{html}");
    assert!(html.contains("<td class=\"n\">50.0%</td>"), "{html}");
}

#[test]
fn a_file_of_the_wrong_shape_is_refused_with_its_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"agent-hooks/reference-host/src/a.rs: x": {"project": "caught", "upstream": 3, "equivalent": null}}"#,
    )
    .unwrap();
    let out = ctk(&["mutation", "--html", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: at \"/agent-hooks~1reference-host~1src~1a.rs: x/upstream\": not a string or null",
            bad.display()
        )),
        "{err}"
    );
    let out = ctk(&["mutation", "--html", &data("missing.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
    let survivors = dir.path().join("s.txt");
    std::fs::write(&survivors, "agent-hooks/reference-host/src/a.rs: x\n").unwrap();
    let out = ctk(&[
        "mutation",
        "--html",
        &data("results.json"),
        "--survivors",
        &survivors.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("s.txt:1: a known survivor needs"));
}

/// `render.py --sample 20 --residue R`: the 20 slices of one mutant list are
/// disjoint and together name every mutant once (so slice runs add up to the
/// full run), residue 0 is the default slice, a residue out of range is
/// refused, and finer slices nest in the residues: the slices mod 40 of R and
/// R + 20 together make residue R mod 20 (CI's seeded sample is a slice mod
/// 80, nested the same way, as reports/mutation/notes.md says).
#[test]
fn the_twenty_residues_partition_the_mutants_and_two_samples_make_a_residue() {
    let dir = std::env::temp_dir().join(format!("ctk-mutation-residues-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list: Vec<serde_json::Value> = (0..200)
        .map(|i| {
            let file = format!("agent-hooks/reference-host/src/m{}.rs", i % 7);
            serde_json::json!({
                "file": file,
                "name": format!("{file}:{}:5: replace f{i} -> bool with true", i + 1),
                "span": {"start": {"line": i + 1, "column": 5}},
            })
        })
        .collect();
    let all = dir.join("all.json");
    std::fs::write(&all, serde_json::to_string(&list).unwrap()).unwrap();
    let render = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/mutation/render.py");
    let slice = |extra: &[&str]| -> Output {
        Command::new("python3")
            .arg(&render)
            .arg("--all")
            .arg(&all)
            .args(["--sample", "20"])
            .args(extra)
            .output()
            .expect("python3 runs render.py")
    };
    let lines = |out: Output| -> Vec<String> {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut total = 0;
    for r in 0..20 {
        let picks = lines(slice(&["--residue", &r.to_string()]));
        total += picks.len();
        seen.extend(picks);
    }
    assert_eq!(total, 200, "every mutant in exactly one slice");
    assert_eq!(seen.len(), 200);
    assert_eq!(lines(slice(&[])), lines(slice(&["--residue", "0"])));
    for r in [0u32, 7, 19] {
        let forty = |residue: u32| -> Vec<String> {
            lines(
                Command::new("python3")
                    .arg(&render)
                    .arg("--all")
                    .arg(&all)
                    .args(["--sample", "40", "--residue", &residue.to_string()])
                    .output()
                    .expect("python3 runs render.py"),
            )
        };
        let mut halves = forty(r);
        assert!(
            !halves.is_empty(),
            "200 mutants leave no slice of 40 empty here"
        );
        halves.extend(forty(r + 20));
        halves.sort();
        let mut whole = lines(slice(&["--residue", &r.to_string()]));
        whole.sort();
        assert_eq!(
            halves,
            whole,
            "samples {r} and {} make residue {r} mod 20",
            r + 20
        );
    }
    let refused = slice(&["--residue", "20"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--residue 20 is not in 0..19"));
    std::fs::remove_dir_all(&dir).ok();
}

/// One run of both suites: render.py pairs the `both` oracle's ledger with
/// cargo-mutants' tested mutants in run order (an unviable mutant has no
/// ledger group), reads a group without upstream's verdict as a timeout,
/// and refuses a ledger whose mutation is not the mutant it pairs with.
#[test]
fn the_ledger_gives_upstreams_verdicts_and_a_ledger_of_another_run_is_refused() {
    let dir = std::env::temp_dir().join(format!("ctk-mutation-ledger-{}", std::process::id()));
    let out = dir.join("mutants.out");
    std::fs::create_dir_all(&out).unwrap();
    let mutant = |line: u64, what: &str| {
        let file = "agent-hooks/reference-host/src/m.rs";
        serde_json::json!({
            "file": file,
            "name": format!("{file}:{line}:9: {what}"),
            "span": {"start": {"line": line, "column": 9}, "end": {"line": line, "column": 20}},
        })
    };
    let list = [
        mutant(3, "replace f -> bool with true"),
        mutant(7, "replace g -> bool with false"),
        mutant(9, "replace h -> u64 with 0"),
        mutant(12, "replace k -> u64 with 1"),
    ];
    std::fs::write(dir.join("all.json"), serde_json::to_string(&list).unwrap()).unwrap();
    let outcome = |m: &serde_json::Value, summary: &str| serde_json::json!({"scenario": {"Mutant": m}, "summary": summary});
    let outcomes = serde_json::json!({"outcomes": [
        outcome(&list[0], "Unviable"),
        outcome(&list[1], "CaughtMutant"),
        outcome(&list[2], "MissedMutant"),
        outcome(&list[3], "Timeout"),
    ]});
    std::fs::write(out.join("outcomes.json"), outcomes.to_string()).unwrap();
    let group = |line: u64, verdicts: &[(&str, bool)]| {
        let diff = format!(
            "diff --git a/agent-hooks/reference-host/src/m.rs b/agent-hooks/reference-host/src/m.rs\n--- a/agent-hooks/reference-host/src/m.rs\n\
             +++ b/agent-hooks/reference-host/src/m.rs\n@@ -{line} +{line} @@\n-old\n+new\n"
        );
        let mut lines = vec![serde_json::json!({ "mutation": diff }).to_string()];
        for (suite, caught) in verdicts {
            lines.push(serde_json::json!({"suite": suite, "caught": caught}).to_string());
        }
        lines.join("\n")
    };
    let ledger = dir.join("ledger.jsonl");
    let render = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/mutation/render.py");
    let equivalents = dir.join("equivalents.txt");
    std::fs::write(&equivalents, "").unwrap();
    let compare = |groups: &[String]| -> Output {
        std::fs::write(&ledger, groups.join("\n") + "\n").unwrap();
        Command::new("python3")
            .arg(&render)
            .arg("--all")
            .arg(dir.join("all.json"))
            .arg("--compare")
            .arg("--project")
            .arg(&out)
            .arg("--ledger")
            .arg(&ledger)
            .arg("--equivalents")
            .arg(&equivalents)
            .output()
            .expect("python3 runs render.py")
    };
    let good = [
        group(7, &[("upstream", false), ("project", true)]),
        group(9, &[("upstream", true), ("project", false)]),
        // Killed for time while upstream's suite ran.
        group(12, &[]),
    ];
    let shown = compare(&good);
    let stdout = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(
        stdout.contains("| project (0.1 and draft) | 4 | 1 | 1 | 1 | 0 | 1 | 66.7% |"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| upstream (AH-CTK-001..113) | 4 | 1 | 1 | 1 | 0 | 1 | 66.7% |"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "missed by upstream's: 1\n- agent-hooks/reference-host/src/m.rs: replace g -> bool with false"
        ),
        "{stdout}"
    );
    // The same verdicts, the first two groups swapped: another run's order.
    let swapped = [good[1].clone(), good[0].clone(), good[2].clone()];
    let refused = compare(&swapped);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("ledger.jsonl:1: this mutation is not 'agent-hooks/reference-host/src/m.rs:7:9: replace g -> bool with false'"),
        "{stderr}"
    );
    // A ledger one group short, and one with a group too many.
    let short = compare(&good[..2]);
    assert!(String::from_utf8_lossy(&short.stderr).contains("the ledger ends before"));
    let long = compare(&[
        good[0].clone(),
        good[1].clone(),
        good[2].clone(),
        group(12, &[]),
    ]);
    assert!(String::from_utf8_lossy(&long.stderr)
        .contains("a mutation past the run's last tested mutant"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `render.py --from-results`: a published run's verdicts re-read with the
/// lists as they are now. A miss listed equivalent since counts as
/// equivalent, a miss in code deleted since is marked so, and an
/// equivalents entry for a mutant neither the run nor the tree makes is
/// refused as stale.
#[test]
fn a_published_run_rerenders_with_todays_lists_and_refuses_a_stale_entry() {
    let dir = std::env::temp_dir().join(format!("ctk-mutation-rerender-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = "agent-hooks/reference-host/src/m.rs";
    let results = serde_json::json!({
        format!("{file}: replace f -> bool with true"): {"project": "caught", "upstream": "missed", "equivalent": null},
        format!("{file}: replace g -> bool with false"): {"project": "missed", "upstream": "missed", "equivalent": null},
        format!("{file}: replace h -> u64 with 0"): {"project": "missed", "upstream": "caught", "equivalent": null},
    });
    std::fs::write(dir.join("results.json"), results.to_string()).unwrap();
    // Today's tree: f and g are still made, h's code is gone.
    let mutant = |line: u64, what: &str| {
        serde_json::json!({"file": file, "name": format!("{file}:{line}:9: {what}"),
            "span": {"start": {"line": line, "column": 9}, "end": {"line": line, "column": 20}}})
    };
    let now = [
        mutant(3, "replace f -> bool with true"),
        mutant(7, "replace g -> bool with false"),
    ];
    std::fs::write(dir.join("now.json"), serde_json::to_string(&now).unwrap()).unwrap();
    let render = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/mutation/render.py");
    let rerender = |equivalents: &str| -> Output {
        std::fs::write(dir.join("equivalents.txt"), equivalents).unwrap();
        Command::new("python3")
            .arg(&render)
            .args([
                "--all",
                "now.json",
                "--now",
                "now.json",
                "--from-results",
                "results.json",
            ])
            .args([
                "--meta",
                "a run of the past",
                "--equivalents",
                "equivalents.txt",
            ])
            .args(["--results", "out.json", "--markdown", "page.md"])
            .current_dir(&dir)
            .output()
            .expect("python3 runs render.py")
    };
    let shown = rerender(&format!(
        "{file}: replace g -> bool with false  # changes nothing\n"
    ));
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let page = std::fs::read_to_string(dir.join("page.md")).unwrap();
    assert!(page.contains("Run: a run of the past"), "{page}");
    assert!(
        page.contains("| project (0.1 and draft) | 3 | 1 | 0 | 1 | 1 | 0 | 50.0% |"),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "- `{file}: replace h -> u64 with 0` (code deleted since)"
        )),
        "{page}"
    );
    let out: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    assert_eq!(
        out[format!("{file}: replace g -> bool with false")]["equivalent"],
        "changes nothing"
    );
    let stale = rerender(&format!("{file}: replace k -> u64 with 1  # gone\n"));
    assert!(!stale.status.success());
    assert!(String::from_utf8_lossy(&stale.stderr).contains("no longer makes"));
    std::fs::remove_dir_all(&dir).ok();
}
