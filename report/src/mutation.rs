//! The mutation report of the reference host as one HTML page: what
//! `reports/mutation/render.py --results` wrote (every cargo-mutants mutant
//! of `agent-hooks/reference-host/src`, judged by the project suite and the upstream
//! suite), scored with render.py's definitions.
//!
//! The definitions, which must stay those of render.py (so the page and
//! `reports/mutation.md` never disagree): a timeout counts as caught (the
//! suite did not pass the mutant) and is shown apart; a missed mutant with an
//! `equivalent` reason counts as equivalent, not missed; an unviable mutant
//! (it did not build) is not scored; the score is killed (caught plus
//! timeouts) over killed plus missed. A module is the mutant's file under
//! `agent-hooks/reference-host/src/` without `.rs` (and without `/mod`).
//!
//! A suite may be `null` for every mutant (a sample run judged only by the
//! project suite): the page says "not run" for it rather than scoring it 0.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::html::{document, scroll};
use maud::{html, Markup};

/// What one suite did with one mutant, as render.py words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A vector failed on the mutant.
    Caught,
    /// Every vector still passed.
    Missed,
    /// The suite ran out of time (counted as caught, shown apart).
    Timeout,
    /// The mutant did not build (not scored).
    Unviable,
}

impl Outcome {
    /// The word in the results file and on the page.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Caught => "caught",
            Outcome::Missed => "missed",
            Outcome::Timeout => "timeout",
            Outcome::Unviable => "unviable",
        }
    }

    fn parse(word: &str) -> Option<Outcome> {
        Some(match word {
            "caught" => Outcome::Caught,
            "missed" => Outcome::Missed,
            "timeout" => Outcome::Timeout,
            "unviable" => Outcome::Unviable,
            _ => return None,
        })
    }
}

/// The two suites a mutant is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// The project's vectors (0.1 and draft).
    Project,
    /// Upstream's vectors (AH-CTK-001..113).
    Upstream,
}

impl Suite {
    /// The field of a results entry.
    pub fn field(self) -> &'static str {
        match self {
            Suite::Project => "project",
            Suite::Upstream => "upstream",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Suite::Project => "project (0.1 and draft)",
            Suite::Upstream => "upstream (AH-CTK-001..113)",
        }
    }
}

/// One mutant's line of the results file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The project suite's outcome; `None` when that suite was not run.
    pub project: Option<Outcome>,
    /// The upstream suite's outcome; `None` when that suite was not run.
    pub upstream: Option<Outcome>,
    /// Why the mutant is equivalent (equivalents.txt), if it is listed.
    pub equivalent: Option<String>,
}

impl Entry {
    /// The outcome under `suite`.
    pub fn outcome(&self, suite: Suite) -> Option<Outcome> {
        match suite {
            Suite::Project => self.project,
            Suite::Upstream => self.upstream,
        }
    }
}

/// A results file: mutant key (`<file>: <description>[ #k]`) to its entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Results {
    /// The mutants, in key order.
    pub mutants: BTreeMap<String, Entry>,
}

/// A results or survivors file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MutationError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{path}: not JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The JSON is not a results file (render.py `--results`).
    #[error("{path}: at {pointer:?}: {detail} (a mutation results file is an object of \"<file>: <mutant>\" to {{\"project\", \"upstream\": caught|missed|timeout|unviable|null, \"equivalent\": reason or null}}, as reports/mutation/render.py --results writes it)")]
    Shape {
        /// The file.
        path: PathBuf,
        /// JSON pointer to the offending value.
        pointer: String,
        /// What is wrong there.
        detail: String,
    },
    /// A survivors.txt line is not `<file>: <mutant>  # <reason>`.
    #[error("{path}:{line}: a known survivor needs `<file>: <mutant>  # <reason>`")]
    Survivors {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
    },
}

// A JSON pointer token: keys hold `/` (file paths), which RFC 6901 escapes.
use ctk_support::pointer::token;

/// Read a results file; every problem names the file and the JSON pointer.
pub fn read_results(path: &Path) -> Result<Results, MutationError> {
    let text = std::fs::read_to_string(path).map_err(|source| MutationError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_results(path, &text)
}

/// Parse a results file's text (`path` names it in errors).
pub fn parse_results(path: &Path, text: &str) -> Result<Results, MutationError> {
    let value: Value = serde_json::from_str(text).map_err(|source| MutationError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let shape = |pointer: String, detail: String| MutationError::Shape {
        path: path.to_path_buf(),
        pointer,
        detail,
    };
    let Value::Object(map) = value else {
        return Err(shape(String::new(), "not an object".into()));
    };
    if map.is_empty() {
        return Err(shape(String::new(), "no mutant".into()));
    }
    let mut mutants = BTreeMap::new();
    // Whether each suite ran, from the first mutant: a suite runs for every
    // mutant or for none, else its score would silently cover a subset.
    let mut ran: Option<(bool, bool)> = None;
    for (key, v) in &map {
        let at = format!("/{}", token(key));
        if !key.contains(": ") {
            return Err(shape(at, "a key is \"<file>: <mutant>\"".into()));
        }
        let Value::Object(fields) = v else {
            return Err(shape(at, "not an object".into()));
        };
        for name in fields.keys() {
            if !matches!(name.as_str(), "project" | "upstream" | "equivalent") {
                return Err(shape(
                    format!("{at}/{}", token(name)),
                    "unknown field".into(),
                ));
            }
        }
        let outcome = |suite: Suite| -> Result<Option<Outcome>, MutationError> {
            let field = suite.field();
            match fields.get(field) {
                None => Err(shape(at.clone(), format!("no \"{field}\" field"))),
                Some(Value::Null) => Ok(None),
                Some(Value::String(w)) => Outcome::parse(w).map(Some).ok_or_else(|| {
                    shape(
                        format!("{at}/{field}"),
                        format!("{w:?} is not caught, missed, timeout or unviable"),
                    )
                }),
                Some(_) => Err(shape(
                    format!("{at}/{field}"),
                    "not a string or null".into(),
                )),
            }
        };
        let project = outcome(Suite::Project)?;
        let upstream = outcome(Suite::Upstream)?;
        let equivalent = match fields.get("equivalent") {
            None => return Err(shape(at, "no \"equivalent\" field".into())),
            Some(Value::Null) => None,
            Some(Value::String(r)) if !r.trim().is_empty() => Some(r.clone()),
            Some(_) => {
                return Err(shape(
                    format!("{at}/equivalent"),
                    "not a reason (a non-empty string) or null".into(),
                ))
            }
        };
        let this = (project.is_some(), upstream.is_some());
        match ran {
            None => ran = Some(this),
            Some(first) if first != this => {
                let suite = if first.0 != this.0 {
                    "project"
                } else {
                    "upstream"
                };
                return Err(shape(
                    format!("{at}/{suite}"),
                    format!("the {suite} suite is null for some mutants and not for others"),
                ));
            }
            Some(_) => {}
        }
        mutants.insert(
            key.clone(),
            Entry {
                project,
                upstream,
                equivalent,
            },
        );
    }
    if ran == Some((false, false)) {
        return Err(shape(
            String::new(),
            "neither suite was run (both are null everywhere)".into(),
        ));
    }
    Ok(Results { mutants })
}

/// Read survivors.txt (equivalents.txt's format): key to reason.
pub fn read_survivors(path: &Path) -> Result<BTreeMap<String, String>, MutationError> {
    let text = std::fs::read_to_string(path).map_err(|source| MutationError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_survivors(path, &text)
}

/// Parse survivors.txt's text the way render.py's `read_equivalents` does.
pub fn parse_survivors(path: &Path, text: &str) -> Result<BTreeMap<String, String>, MutationError> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once("  # ") {
            Some((key, reason)) if !reason.trim().is_empty() => {
                out.insert(key.trim().to_string(), reason.trim().to_string());
            }
            _ => {
                return Err(MutationError::Survivors {
                    path: path.to_path_buf(),
                    line: n + 1,
                })
            }
        }
    }
    Ok(out)
}

/// A mutant's module, as render.py's `module_of` names it.
pub fn module_of(key: &str) -> &str {
    let file = key.split_once(": ").map_or(key, |(f, _)| f);
    let m = file
        .strip_prefix("agent-hooks/reference-host/src/")
        .unwrap_or(file);
    let m = m.strip_suffix(".rs").unwrap_or(m);
    m.strip_suffix("/mod").unwrap_or(m)
}

/// One suite's counts over some mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Caught, timeouts not included.
    pub caught: usize,
    /// Timed out (killed, shown apart).
    pub timeout: usize,
    /// Missed and not equivalent.
    pub missed: usize,
    /// Missed and listed as equivalent.
    pub equivalent: usize,
    /// Did not build.
    pub unviable: usize,
}

impl Counts {
    fn add(&mut self, outcome: Outcome, equivalent: bool) {
        match outcome {
            Outcome::Caught => self.caught += 1,
            Outcome::Timeout => self.timeout += 1,
            Outcome::Missed if equivalent => self.equivalent += 1,
            Outcome::Missed => self.missed += 1,
            Outcome::Unviable => self.unviable += 1,
        }
    }

    /// Caught plus timeouts.
    pub fn killed(&self) -> usize {
        self.caught + self.timeout
    }

    /// Every mutant counted.
    pub fn total(&self) -> usize {
        self.killed() + self.missed + self.equivalent + self.unviable
    }

    /// killed / (killed + missed), or `None` when nothing was scored.
    pub fn score(&self) -> Option<f64> {
        let scored = self.killed() + self.missed;
        (scored > 0).then(|| self.killed() as f64 / scored as f64)
    }

    /// The score as render.py prints it: `87.5%` or `n/a`.
    pub fn score_text(&self) -> String {
        self.score()
            .map_or_else(|| "n/a".to_string(), |s| format!("{:.1}%", 100.0 * s))
    }
}

/// A suite's counts over every mutant, or `None` when it was not run.
pub fn totals(results: &Results, suite: Suite) -> Option<Counts> {
    by_module(results, suite).map(|m| {
        m.values().fold(Counts::default(), |mut acc, c| {
            acc.caught += c.caught;
            acc.timeout += c.timeout;
            acc.missed += c.missed;
            acc.equivalent += c.equivalent;
            acc.unviable += c.unviable;
            acc
        })
    })
}

/// A suite's counts per module, or `None` when it was not run.
pub fn by_module(results: &Results, suite: Suite) -> Option<BTreeMap<String, Counts>> {
    let mut rows: BTreeMap<String, Counts> = BTreeMap::new();
    let mut ran = false;
    for (key, e) in &results.mutants {
        if let Some(o) = e.outcome(suite) {
            ran = true;
            rows.entry(module_of(key).to_string())
                .or_default()
                .add(o, e.equivalent.is_some());
        }
    }
    ran.then_some(rows)
}

/// A wide table in the report page's scrolling region.
fn table(label: &str, inner: Markup) -> Markup {
    scroll(label, html! { table { (inner) } })
}

fn scores(results: &Results) -> Markup {
    let t = html! {
        caption { "Mutation score per suite" }
        thead {
            tr {
                th scope="col" { "suite" }
                th scope="col" class="n" { "mutants" }
                th scope="col" class="n" { "caught (timeouts included)" }
                th scope="col" class="n" { "of which timeout" }
                th scope="col" class="n" { "missed" }
                th scope="col" class="n" { "equivalent" }
                th scope="col" class="n" { "unviable" }
                th scope="col" class="n" { "score" }
            }
        }
        tbody {
            @for suite in [Suite::Project, Suite::Upstream] {
                tr {
                    th scope="row" { (suite.label()) }
                    @match totals(results, suite) {
                        Some(c) => {
                            @for n in [c.total(), c.killed(), c.timeout, c.missed, c.equivalent, c.unviable] {
                                td.n { (n) }
                            }
                            td.n { (c.score_text()) }
                        }
                        None => {
                            td colspan="7" class="not-run" {
                                "not run (this results file has no outcome for this suite)"
                            }
                        }
                    }
                }
            }
        }
    };
    html! {
        section aria-labelledby="scores" {
            h2 #scores { "Scores" }
            (table("Mutation score per suite", t))
            p.note {
                "The score is killed (caught, timeouts included) over killed plus missed: \
                 equivalent and unviable mutants are left out of both."
            }
        }
    }
}

fn modules(results: &Results) -> Markup {
    let p = by_module(results, Suite::Project);
    let u = by_module(results, Suite::Upstream);
    let mut names: Vec<&str> = results.mutants.keys().map(|k| module_of(k)).collect();
    names.sort_unstable();
    names.dedup();
    let t = html! {
        caption { "Mutants per module of agent-hooks/reference-host/src" }
        thead {
            tr {
                th scope="col" { "module" }
                th scope="col" class="n" { "mutants" }
                th scope="col" class="n" { "project: caught" }
                th scope="col" class="n" { "project: missed" }
                th scope="col" class="n" { "upstream: caught" }
                th scope="col" class="n" { "upstream: missed" }
                th scope="col" class="n" { "equivalent" }
                th scope="col" class="n" { "unviable" }
            }
        }
        tbody {
            @for m in names {
                tr {
                    th scope="row" { code { (m) } }
                    td.n { (results.mutants.keys().filter(|k| module_of(k) == m).count()) }
                    @for rows in [&p, &u] {
                        @match rows {
                            Some(rows) => {
                                @let c = rows.get(m).copied().unwrap_or_default();
                                td.n { (c.killed()) }
                                td.n { (c.missed) }
                            }
                            None => { td { "not run" } td { "not run" } }
                        }
                    }
                    // Equivalent and unviable as render.py counts them:
                    // from the project run (or the upstream one when only
                    // it ran).
                    @let c = p
                        .as_ref()
                        .or(u.as_ref())
                        .and_then(|rows| rows.get(m).copied())
                        .unwrap_or_default();
                    td.n { (c.equivalent) }
                    td.n { (c.unviable) }
                }
            }
        }
    };
    html! {
        section aria-labelledby="modules" {
            h2 #modules { "By module" }
            (table("Mutants per module", t))
            p.note {
                "Caught includes timeouts; a missed mutant listed as equivalent is counted \
                 as equivalent, not missed."
            }
        }
    }
}

fn outcome_cell(o: Option<Outcome>) -> Markup {
    html! {
        td {
            @match o {
                None => { "not run" }
                Some(Outcome::Missed) => { span.fail { span aria-hidden="true" { "✗" } " missed" } }
                Some(o) => { (o.as_str()) }
            }
        }
    }
}

fn missed(results: &Results, survivors: &BTreeMap<String, String>) -> Markup {
    let rows: Vec<(&String, &Entry)> = results
        .mutants
        .iter()
        .filter(|(_, e)| {
            e.equivalent.is_none()
                && (e.project == Some(Outcome::Missed) || e.upstream == Some(Outcome::Missed))
        })
        .collect();
    let caught: Vec<&String> = survivors
        .keys()
        .filter(|k| {
            results
                .mutants
                .get(k.as_str())
                .is_some_and(|e| matches!(e.project, Some(Outcome::Caught | Outcome::Timeout)))
        })
        .collect();
    let t = html! {
        caption { "Mutants a suite missed that are not equivalent" }
        thead {
            tr {
                th scope="col" { "mutant" }
                th scope="col" { "project" }
                th scope="col" { "upstream" }
                th scope="col" { "survivors.txt" }
            }
        }
        tbody {
            @for (key, e) in &rows {
                tr {
                    th scope="row" { code { (key) } }
                    (outcome_cell(e.project))
                    (outcome_cell(e.upstream))
                    @match survivors.get(key.as_str()) {
                        Some(reason) => {
                            td.survivor { strong { "known survivor" } ": " (reason) }
                        }
                        None if e.project == Some(Outcome::Missed) => {
                            td.new-gap {
                                span.fail { span aria-hidden="true" { "!" } " not listed" }
                                ": a gap in neither equivalents.txt nor survivors.txt"
                            }
                        }
                        None => { td { "not listed (only the upstream suite missed it)" } }
                    }
                }
            }
        }
    };
    html! {
        section aria-labelledby="missed" {
            h2 #missed { "Missed mutants" }
            @if rows.is_empty() {
                p { "None: every mutant that is not equivalent was caught." }
            } @else {
                (table("Missed mutants", t))
            }
            @if !caught.is_empty() {
                p {
                    "Listed in survivors.txt but caught by the project suite (remove them from the list):"
                }
                ul.stale-survivors { @for k in caught { li { code { (k) } } } }
            }
        }
    }
}

fn equivalents(results: &Results) -> Markup {
    let rows: Vec<(&String, &String)> = results
        .mutants
        .iter()
        .filter_map(|(k, e)| e.equivalent.as_ref().map(|r| (k, r)))
        .collect();
    let t = html! {
        caption { "Mutants that change no observable behaviour (equivalents.txt)" }
        thead { tr { th scope="col" { "mutant" } th scope="col" { "why it is equivalent" } } }
        tbody {
            @for (k, r) in &rows { tr { th scope="row" { code { (k) } } td { (r) } } }
        }
    };
    html! {
        section aria-labelledby="equivalents" {
            h2 #equivalents { "Equivalent mutants" }
            @if rows.is_empty() {
                p { "None listed." }
            } @else {
                (table("Equivalent mutants", t))
            }
        }
    }
}

/// The page: scores of both suites, the per-module table, the missed mutants
/// (each marked "known survivor" when `survivors` lists it) and the
/// equivalents with their reasons.
pub fn render(results: &Results, survivors: &BTreeMap<String, String>) -> String {
    let body = html! {
        p {
            "Mutants of " code { "agent-hooks/reference-host/src" } " made by cargo-mutants, each judged \
             by a vector suite alone. A mutant is " em { "caught" } " when the suite fails on it (a \
             timeout counts as caught), " em { "missed" } " when every vector still passes; "
            em { "unviable" } " ones do not build; " em { "equivalent" } " ones change no observable \
             behaviour."
        }
        (scores(results))
        (modules(results))
        (missed(results, survivors))
        (equivalents(results))
    };
    document(
        "ctk mutation report: reference host",
        &[
            ("scores", "Scores"),
            ("modules", "By module"),
            ("missed", "Missed mutants"),
            ("equivalents", "Equivalent mutants"),
        ],
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = r#"{
      "agent-hooks/reference-host/src/a.rs: replace f -> bool with true": {"project": "caught", "upstream": "missed", "equivalent": null},
      "agent-hooks/reference-host/src/a.rs: replace f -> bool with false": {"project": "timeout", "upstream": "caught", "equivalent": null},
      "agent-hooks/reference-host/src/a.rs: delete ! #1": {"project": "missed", "upstream": "missed", "equivalent": null},
      "agent-hooks/reference-host/src/a.rs: delete ! #2": {"project": "missed", "upstream": "caught", "equivalent": "only logs"},
      "agent-hooks/reference-host/src/b/mod.rs: replace g with ()": {"project": "unviable", "upstream": "unviable", "equivalent": null},
      "agent-hooks/reference-host/src/b/c.rs: replace == with !=": {"project": "caught", "upstream": "timeout", "equivalent": null}
    }"#;

    fn fixture() -> Results {
        parse_results(Path::new("r.json"), FIXTURE).unwrap()
    }

    #[test]
    fn scores_follow_render_py() {
        let r = fixture();
        let p = totals(&r, Suite::Project).unwrap();
        assert_eq!(
            p,
            Counts {
                caught: 2,
                timeout: 1,
                missed: 1,
                equivalent: 1,
                unviable: 1
            }
        );
        assert_eq!(p.score_text(), "75.0%");
        let u = totals(&r, Suite::Upstream).unwrap();
        // Upstream missed "#2", but it is equivalent wherever it is missed;
        // here upstream caught it, so it counts as caught.
        assert_eq!(
            u,
            Counts {
                caught: 2,
                timeout: 1,
                missed: 2,
                equivalent: 0,
                unviable: 1
            }
        );
        assert_eq!(u.score_text(), "60.0%");
        let m = by_module(&r, Suite::Project).unwrap();
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["a", "b", "b/c"],
            "b/mod.rs is module b"
        );
        assert_eq!(m["a"].killed(), 2);
        assert_eq!(m["a"].missed, 1);
        assert_eq!(Counts::default().score_text(), "n/a");
    }

    #[test]
    fn a_null_suite_is_not_run_and_a_mixed_one_is_refused() {
        let r = parse_results(
            Path::new("s.json"),
            r#"{"agent-hooks/reference-host/src/a.rs: x": {"project": "caught", "upstream": null, "equivalent": null}}"#,
        )
        .unwrap();
        assert!(totals(&r, Suite::Upstream).is_none());
        let page = render(&r, &BTreeMap::new());
        assert!(page.contains("<th scope=\"row\">upstream (AH-CTK-001..113)</th><td colspan=\"7\" class=\"not-run\">not run"), "{page}");
        let e = parse_results(
            Path::new("s.json"),
            r#"{"agent-hooks/reference-host/src/a.rs: x": {"project": "caught", "upstream": null, "equivalent": null},
                "agent-hooks/reference-host/src/a.rs: y": {"project": "caught", "upstream": "missed", "equivalent": null}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("\"/agent-hooks~1reference-host~1src~1a.rs: y/upstream\""),
            "{e}"
        );
    }

    #[test]
    fn a_bad_shape_names_the_file_and_the_pointer() {
        let e = parse_results(
            Path::new("bad.json"),
            r#"{"agent-hooks/reference-host/src/a.rs: x": {"project": "killed", "upstream": null, "equivalent": null}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "bad.json: at \"/agent-hooks~1reference-host~1src~1a.rs: x/project\": \"killed\" is not"
            ),
            "{e}"
        );
        let e = parse_results(Path::new("bad.json"), "[]")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("bad.json: at \"\": not an object"), "{e}");
    }

    #[test]
    fn survivors_parse_like_equivalents() {
        let s = parse_survivors(
            Path::new("s.txt"),
            "# head\n\nagent-hooks/reference-host/src/a.rs: delete ! #1  # no vector yet\n",
        )
        .unwrap();
        assert_eq!(
            s["agent-hooks/reference-host/src/a.rs: delete ! #1"],
            "no vector yet"
        );
        let e = parse_survivors(
            Path::new("s.txt"),
            "# c\nagent-hooks/reference-host/src/a.rs: x\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("s.txt:2: "), "{e}");
    }
}
