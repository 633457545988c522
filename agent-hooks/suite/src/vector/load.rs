//! Read vectors from a folder or the embedded set: schema-check each file
//! against `schemas/vector.schema.json`, parse it, digest it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::errors::{LoadError, Location};
use crate::json_path::pointer_token;
use crate::vector::embedded;
use crate::vector::generate;
use crate::vector::model::{SpecVersion, Vector};
use crate::vector::rules;
use ctk_agent_hooks_adapter::wire::depth;
use ctk_core::catalog::Catalogs;
use ctk_core::digest;

/// The vector schema, compiled into the binary.
pub const VECTOR_SCHEMA: &str = include_str!("../../../../schemas/vector.schema.json");

/// Parts a vector may name; `ctk validate vector` refuses any other. The
/// draft line uses `draft/*` (and the `declaration/draft`,
/// `fail_closed/best_effort` spellings are accepted too).
pub const KNOWN_PARTS: &[&str] = &[
    "approval_seam",
    "verdict/warnings",
    "composition/sequential_first_deny",
    "composition/sequential_run_all",
    "composition/parallel_strictest",
    "composition/parallel_unanimous",
    "identity_provider",
    "fail_closed/verdict_gate",
    "fail_closed/timeouts",
    "record/projection",
    "record/decided_by",
    "enforcement/post_action_deny",
    "enforcement/evaluate_only",
    "enforcement/isolation",
    "enforcement/tool_seam_posture",
    "streaming/incremental",
    "streaming/buffered",
    "concurrency/parallel_tool_calls",
    "session/multi_turn",
    "declaration/load",
    "declaration/bindings",
    "declaration/refusal",
    "context/points",
    "verdict/gate",
    "transform/targets",
    "fail_closed/reserved_reasons",
    "fail_closed/interceptor_failure",
    "identity/canonical",
    "record/fields",
    "enforcement/points",
    "approval_seam/redaction",
    "loop/multi_turn",
    "loop/parallel_tool_calls",
    "adapter/loop",
    "declaration/draft",
    "fail_closed/best_effort",
    "draft/best_effort",
    "draft/declaration",
    "draft/reserved_namespace",
];

/// Where vectors come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorSource {
    /// `*.json` in a folder, sorted by file name.
    Dir(PathBuf),
    /// The project's vectors for a spec, compiled into the binary.
    Embedded(SpecVersion),
}

impl std::fmt::Display for VectorSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VectorSource::Dir(dir) => write!(f, "{}", dir.display()),
            VectorSource::Embedded(spec) => write!(f, "embedded:{}", spec.as_str()),
        }
    }
}

/// A vector with where it came from and its digest.
#[derive(Debug, Clone)]
pub struct LoadedVector {
    /// File name, e.g. `AH-CTK-001-basic-loop.json`.
    pub file_name: String,
    /// Display path of the file.
    pub file: PathBuf,
    /// The parsed vector.
    pub vector: Vector,
    /// `sha256:` digest of the file's RFC 8785 form.
    pub sha256: String,
    /// The file's text as read: the lint's consistency rules look at what
    /// was written (an empty list, an integer literal no double holds).
    pub text: String,
}

impl LoadedVector {
    /// The core's view of this vector (reports, claims, the terminal).
    pub fn meta(&self) -> ctk_core::set::VectorMeta {
        ctk_core::set::VectorMeta {
            id: self.vector.id.clone(),
            title: self.vector.title.clone(),
            part: self.vector.part().to_owned(),
            file_name: self.file_name.clone(),
            sha256: self.sha256.clone(),
            advisory: self.vector.advisory.clone(),
            covers: self.vector.covers.clone(),
            role: None,
        }
    }
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(VECTOR_SCHEMA).expect("the vector schema is JSON");
        jsonschema::validator_for(&schema).expect("the vector schema compiles")
    })
}

/// Parse, check the generated values of ([`generate::find`]), schema-check,
/// expand ([`generate`]) and digest one vector's text. The digest and
/// [`LoadedVector::text`] are those of the file as written.
pub fn parse_vector(file: &Path, text: &str) -> Result<LoadedVector, LoadError> {
    parse_checked(file, text, true)
}

/// What [`parse_vector`] would give, checked the same way but with its
/// generated values (`$ctk.generate`) left unexpanded: enough for the
/// vector's [`LoadedVector::meta`], whose digest is of the text as written,
/// without the megabytes some generated contexts take.
pub fn parse_unexpanded(file: &Path, text: &str) -> Result<LoadedVector, LoadError> {
    parse_checked(file, text, false)
}

fn parse_checked(file: &Path, text: &str, expanded: bool) -> Result<LoadedVector, LoadError> {
    let loc = |pointer: &str| Location {
        file: file.to_path_buf(),
        pointer: pointer.to_owned(),
    };
    // Up to the kit's nesting bound, past serde_json's default of 127.
    depth::check(text).map_err(|source| LoadError::TooDeep {
        location: loc(""),
        source,
    })?;
    let value: Value = depth::parse_checked(text).map_err(|e| LoadError::Json {
        location: loc(""),
        detail: e.to_string(),
    })?;
    let id = value
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    let generated = generate::find(&value).map_err(|(pointer, detail)| LoadError::Schema {
        location: loc(&pointer),
        vector: id.clone(),
        detail,
    })?;
    // The quick yes first: most vectors are valid, and only a refusal needs
    // the error's location.
    let refused = if validator().is_valid(&value) {
        None
    } else {
        validator().iter_errors(&value).next()
    };
    if let Some(error) = refused {
        return Err(LoadError::Schema {
            location: loc(error.instance_path().as_str()),
            vector: id,
            detail: error.to_string(),
        });
    }
    let mut vector: Vector = depth::parse_checked(text).map_err(|e| LoadError::Schema {
        location: loc(""),
        vector: id.clone(),
        detail: e.to_string(),
    })?;
    if expanded && !generated.is_empty() {
        expand(&mut vector, &generated).map_err(|(pointer, detail)| LoadError::Schema {
            location: loc(&pointer),
            vector: id.clone(),
            detail,
        })?;
    }
    let sha256 = digest::digest_value(&value).map_err(|e| LoadError::Schema {
        location: loc(""),
        vector: id,
        detail: e.to_string(),
    })?;
    let file_name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(LoadedVector {
        file_name,
        file: file.to_path_buf(),
        vector,
        sha256,
        text: text.to_owned(),
    })
}

/// Expand the generated values (`$ctk.generate`, [`generate`]) found at
/// `targets` in a parsed vector: in the scenario's raw text and in the
/// scripted interceptors' return values.
fn expand(vector: &mut Vector, targets: &[String]) -> Result<(), generate::Refusal> {
    if targets.iter().any(|t| t.starts_with("/scenario/")) {
        let text = generate::expand_raw(&vector.scenario, "/scenario", targets)?;
        // Within the bound: `generate::find` bounded every expansion.
        vector.scenario =
            depth::raw_value(&text).map_err(|e| ("/scenario".to_owned(), e.to_string()))?;
    }
    let rules = vector
        .interceptor_script
        .iter_mut()
        .chain(vector.interceptor_scripts.iter_mut().flatten());
    for rule in rules.flatten() {
        if let Some(value) = rule.return_.as_mut() {
            generate::expand_value(value);
        }
    }
    Ok(())
}

/// Read one vector file.
pub fn load_file(path: &Path) -> Result<LoadedVector, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_vector(path, &text)
}

/// The `*.json` files of a folder, sorted by name.
pub fn vector_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| LoadError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// One vector file of a source and what loading it gave.
pub type FileResult = (PathBuf, Result<LoadedVector, LoadError>);

/// One result per vector file of a source, in file order: a file that
/// cannot be read, parsed or schema-checked, or that reuses an earlier
/// file's id, is an `Err` of its own and never hides the others. `Err` as a
/// whole only when the folder itself cannot be listed.
pub fn load_each(source: &VectorSource) -> Result<Vec<FileResult>, LoadError> {
    let mut results: Vec<FileResult> = match source {
        VectorSource::Dir(dir) => vector_files(dir)?
            .into_iter()
            .map(|p| {
                let loaded = load_file(&p);
                (p, loaded)
            })
            .collect(),
        VectorSource::Embedded(spec) => embedded::files(*spec)
            .map(|(name, text)| {
                let path = PathBuf::from(format!("embedded:{}/{name}", spec.as_str()));
                let loaded = parse_vector(&path, text);
                (path, loaded)
            })
            .collect(),
    };
    let loaded = results
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| Some((i, r.as_ref().ok()?)));
    for (i, duplicate) in duplicate_ids(loaded) {
        results[i].1 = Err(duplicate);
    }
    Ok(results)
}

/// Load every vector of a source, refusing an empty set and duplicate ids;
/// the first problem in file order is the error.
pub fn load(source: &VectorSource) -> Result<Vec<LoadedVector>, LoadError> {
    let vectors = load_each(source)?
        .into_iter()
        .map(|(_, r)| r)
        .collect::<Result<Vec<_>, _>>()?;
    if vectors.is_empty() {
        return Err(LoadError::NoVectors {
            source_name: source.to_string(),
        });
    }
    Ok(vectors)
}

/// The error of each vector that reuses the id of an earlier one, with the
/// position it came with.
fn duplicate_ids<'a>(
    vectors: impl IntoIterator<Item = (usize, &'a LoadedVector)>,
) -> Vec<(usize, LoadError)> {
    let mut first_files: BTreeMap<&str, &Path> = BTreeMap::new();
    let mut errors = Vec::new();
    for (i, v) in vectors {
        match first_files.get(v.vector.id.as_str()) {
            Some(first) => errors.push((
                i,
                LoadError::Lint {
                    location: Location {
                        file: v.file.clone(),
                        pointer: "/id".into(),
                    },
                    vector: v.vector.id.clone(),
                    detail: format!("duplicate vector id, first used in {}", first.display()),
                },
            )),
            None => {
                first_files.insert(&v.vector.id, &v.file);
            }
        }
    }
    errors
}

/// Lint loaded vectors beyond the schema: unique ids, non-blank titles,
/// known parts, clause ids of the form `<section>-<letter>` that exist in the
/// catalog of each of the vector's spec versions, a `host_declaration` that
/// passes the declaration schema unless the vector marks it
/// `host_declaration_invalid`, adapter features the contract knows, no
/// dependence on wall-clock time or
/// randomness ([`nondeterminism`]), and the consistency rules of
/// [`rules::check`].
pub fn lint(vectors: &[LoadedVector], catalogs: &Catalogs) -> Vec<LoadError> {
    let mut errors: Vec<LoadError> = duplicate_ids(vectors.iter().enumerate())
        .into_iter()
        .map(|(_, e)| e)
        .collect();
    for v in vectors {
        let at = |pointer: &str, detail: String| LoadError::Lint {
            location: Location {
                file: v.file.clone(),
                pointer: pointer.into(),
            },
            vector: v.vector.id.clone(),
            detail,
        };
        if v.vector.title.trim().is_empty() {
            errors.push(at("/title", "title is blank".into()));
        }
        if let Some(part) = &v.vector.part {
            if !KNOWN_PARTS.contains(&part.as_str()) {
                errors.push(at("/part", format!("unknown part {part:?}")));
            }
        }
        // A check of the kit's own loop rests on HOSTS.md, not on a clause:
        // counting it toward a clause would let coverage claim what it
        // cannot fail on.
        if v.vector.adapter_contract.is_some() && !v.vector.covers.is_empty() {
            errors.push(at(
                "/covers",
                "a vector with adapter_contract checks the kit's host contract, not the spec, \
                 and covers no clause"
                    .into(),
            ));
        }
        // A feature the contract does not know could never be announced, so
        // the vector would be skipped for every host.
        let catalog = ctk_agent_hooks_adapter::features();
        for (i, name) in v.vector.adapter_features.iter().enumerate() {
            if catalog.get(name).is_none() {
                errors.push(at(
                    &format!("/adapter_features/{i}"),
                    format!(
                        "unknown adapter feature {name:?}: {} has {} (agent-hooks/adapter/features.json)",
                        catalog.contract,
                        catalog.names().join(", ")
                    ),
                ));
            }
        }
        // A draft vector may say which text it cites: "draft 6.3.1, 7.7.5".
        let sections = match v.vector.spec_clause.strip_prefix("draft ") {
            Some(rest) if v.vector.spec_versions().contains(&SpecVersion::Draft) => rest,
            _ => v.vector.spec_clause.as_str(),
        };
        if !sections.split(',').all(|s| valid_section(s.trim())) {
            errors.push(at(
                "/spec_clause",
                format!(
                    "spec_clause {:?} is not a comma-separated list of section numbers",
                    v.vector.spec_clause
                ),
            ));
        }
        if let (Some(doc), false) = (
            &v.vector.host_declaration,
            v.vector.host_declaration_invalid,
        ) {
            if let Err(e) = crate::declaration::check(&v.file, doc) {
                errors.push(at(
                    "/host_declaration",
                    format!("host_declaration breaks the declaration schema: {e}"),
                ));
            }
        }
        if let (Some(text), false) = (
            &v.vector.host_declaration_text,
            v.vector.host_declaration_invalid,
        ) {
            match serde_json::from_str::<Value>(text) {
                Err(e) => errors.push(at(
                    "/host_declaration_text",
                    format!("host_declaration_text is not JSON ({e}); mark the vector host_declaration_invalid"),
                )),
                Ok(doc) => {
                    if let Err(e) = crate::declaration::check(&v.file, &doc) {
                        errors.push(at(
                            "/host_declaration_text",
                            format!("host_declaration_text breaks the declaration schema: {e}"),
                        ));
                    }
                }
            }
        }
        if let Some(fault) = v.vector.host_declaration_file {
            let text = match (&v.vector.host_declaration_text, &v.vector.host_declaration) {
                (Some(text), _) => Some(text.clone()),
                (None, Some(doc)) => serde_json::to_string(doc).ok(),
                (None, None) => None,
            };
            if fault.has_contents() && text.as_deref().and_then(|t| fault.contents(t)).is_none() {
                errors.push(at(
                    "/host_declaration_file",
                    format!(
                        "file fault {} builds the file from the document's text, and this vector's document has none it can use",
                        fault.as_str()
                    ),
                ));
            }
        }
        for (i, clause) in v.vector.covers.iter().enumerate() {
            if !valid_clause(clause) {
                errors.push(at(
                    &format!("/covers/{i}"),
                    format!("clause id {clause:?} is not [d-]<section>-<letter>"),
                ));
            }
        }
        if !v.vector.covers.is_empty() {
            for spec in v.vector.spec_versions() {
                let Some(catalog) = catalogs.get(spec) else {
                    errors.push(at(
                        "/covers",
                        format!(
                            "no clause catalog for spec {} to check covers against (pass --clauses FILE)",
                            spec.as_str()
                        ),
                    ));
                    continue;
                };
                for (i, clause) in v.vector.covers.iter().enumerate() {
                    if valid_clause(clause) && !catalogs.knows(spec, clause) {
                        errors.push(at(
                            &format!("/covers/{i}"),
                            format!(
                                "clause {clause:?} is not in the {} catalog{}",
                                catalog.spec,
                                if spec == SpecVersion::Draft {
                                    " nor in the agent-hooks/0.1 catalog it extends"
                                } else {
                                    ""
                                }
                            ),
                        ));
                    }
                }
            }
        }
        for (pointer, detail) in nondeterminism(&v.vector) {
            errors.push(at(&pointer, detail));
        }
        if let Ok(doc) = depth::parse_checked::<Value>(&v.text) {
            for (pointer, detail) in rules::check(&doc, &v.text) {
                errors.push(at(&pointer, detail));
            }
        }
    }
    errors
}

/// The last member name of a dotted path (`a.b[2].timestamp` → `timestamp`).
fn last_segment(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split('[').next().unwrap_or(last)
}

/// Why `path = value` would pin something a host derives from the clock or
/// from chance, if it does.
fn clock_or_chance(path: &str, value: &Value) -> Option<String> {
    let last = last_segment(path);
    if last == "timestamp" {
        return Some(format!(
            "{path:?} pins a timestamp, which a host takes from the wall clock"
        ));
    }
    if (last == "identity" || last.ends_with("_identity")) && !value.is_null() {
        return Some(format!(
            "{path:?} pins an identity value; identities hash the context's timestamp, so only null may be pinned (compare identities with identities_equal)"
        ));
    }
    None
}

/// The wall-clock and randomness rule: a vector must give the same verdict
/// on every run, so nothing it expects or matches on may be a value a host
/// derives from the clock or from chance. Refused, each with its pointer:
///
/// * an `expect.interceptions[].context` or `expect.records[].assert` path
///   whose last member is `timestamp`;
/// * such a path whose last member is `identity` or ends in `_identity`
///   (`input_identity`, `enforced_identity`, `context_identity`) with a
///   non-null value: every `jcs-sha256` identity hashes the timestamp;
/// * the same two rules over the `match` paths of every interceptor rule and
///   approval rule (a script that matches on them would answer differently
///   from run to run).
///
/// `null` identities (the null provider, refused emissions), `present` and
/// `absent` checks, `identities_equal` and scripted `identity_override`
/// values stay allowed: they do not depend on the clock.
pub fn nondeterminism(vector: &crate::vector::model::Vector) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut check = |base: String, map: &serde_json::Map<String, Value>| {
        for (path, value) in map {
            if let Some(why) = clock_or_chance(path, value) {
                out.push((format!("{base}/{}", pointer_token(path)), why));
            }
        }
    };
    for (i, e) in vector.expect.interceptions.iter().flatten().enumerate() {
        check(format!("/expect/interceptions/{i}/context"), &e.context);
    }
    for (i, r) in vector.expect.records.iter().flatten().enumerate() {
        check(format!("/expect/records/{i}/assert"), &r.assert);
    }
    if let Some(rules) = &vector.interceptor_script {
        for (j, rule) in rules.iter().enumerate() {
            check(format!("/interceptor_script/{j}/match"), &rule.match_);
        }
    }
    for (k, rules) in vector.interceptor_scripts.iter().flatten().enumerate() {
        for (j, rule) in rules.iter().enumerate() {
            check(format!("/interceptor_scripts/{k}/{j}/match"), &rule.match_);
        }
    }
    for (j, rule) in vector.approval_script.iter().enumerate() {
        check(format!("/approval_script/{j}/match"), &rule.match_);
    }
    out
}

/// Whether `text` is a section number: dot-separated numbers, each
/// optionally followed by one lower-case letter (`12.1a`).
pub fn valid_section(text: &str) -> bool {
    !text.is_empty()
        && text.split('.').all(|s| {
            let digits = s.trim_end_matches(|c: char| c.is_ascii_lowercase());
            !digits.is_empty()
                && digits.chars().all(|c| c.is_ascii_digit())
                && s.len() - digits.len() <= 1
        })
}

/// Whether `text` is a clause id: a section number, `-`, one lower-case
/// letter; a draft clause carries the prefix `d-` (`d-6.3.1-a`).
pub fn valid_clause(text: &str) -> bool {
    let text = text.strip_prefix("d-").unwrap_or(text);
    let Some((section, letter)) = text.rsplit_once('-') else {
        return false;
    };
    let mut chars = letter.chars();
    let letter_ok =
        matches!((chars.next(), chars.next()), (Some(c), None) if c.is_ascii_lowercase());
    letter_ok && valid_section(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_file_is_its_own_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = |id: &str| {
            format!(
                r#"{{"id":"{id}","title":"t","spec_clause":"1","scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_script":[],"expect":{{"interceptions":[],"run_outcome":"completed"}}}}"#
            )
        };
        for (name, text) in [
            ("a.json", good("CTK-0001")),
            ("b.json", "{ not json".to_owned()),
            ("c.json", good("CTK-0002")),
            ("d.json", good("CTK-0001")),
            ("e.json", r#"{"id":"CTK-0003"}"#.to_owned()),
            ("f.json", good("CTK-0004")),
        ] {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let each = load_each(&VectorSource::Dir(dir.path().into())).expect("listed");
        let verdicts: Vec<(String, bool)> = each
            .iter()
            .map(|(p, r)| {
                (
                    p.file_name().expect("name").to_string_lossy().into_owned(),
                    r.is_ok(),
                )
            })
            .collect();
        assert_eq!(
            verdicts,
            [
                ("a.json".to_owned(), true),
                ("b.json".to_owned(), false),
                ("c.json".to_owned(), true),
                ("d.json".to_owned(), false),
                ("e.json".to_owned(), false),
                ("f.json".to_owned(), true),
            ]
        );
        let dup = each[3].1.as_ref().expect_err("duplicate").to_string();
        assert!(dup.contains("d.json at /id: duplicate vector id"), "{dup}");
        let first = load(&VectorSource::Dir(dir.path().into())).expect_err("load refuses");
        assert!(first.to_string().contains("b.json"), "{first}");
    }

    /// `$ctk.generate` (`vector::generate`): expanded where a host reads
    /// scenario data and in a transform's value, everything else of the
    /// scenario kept token for token, the digest that of the file as
    /// written; refused elsewhere, with bad parameters and beyond the cap,
    /// each refusal naming the file and the pointer.
    #[test]
    fn generated_values_are_expanded_refused_with_their_pointer_and_capped() {
        let vector = |content: &str, value: &str| {
            format!(
                r#"{{"id":"CTK-0001","title":"t","spec_clause":"12.3","capabilities":["model_calls","tool_calls"],
            "scenario":{{"input":{{"content":{content},"role":"user"}},"tools":[{{"name":"t","behavior":[{{"return":{{"$ctk.generate":{{"keys":"k","count":3,"value":null}}}}}}]}}],
            "model_script":[{{"respond":{{"content":null,"tool_calls":[{{"id":"c","name":"t","args":{{"n":18446744073709551616,"q":{{"$ctk.generate":{{"repeat":"xy","count":2}}}}}}}}],"finish_reason":"tool_calls"}}}}]}},
            "interceptor_script":[{{"at":"pre_tool_call","return":{{"decision":"transform","transform":{{"path":"$target.q","value":{value}}}}}}}],
            "expect":{{"interceptions":[],"run_outcome":"completed","final_output":null}}}}"#
            )
        };
        let text = vector(
            r#"{"$ctk.generate":{"repeat":"ab","count":3000000}}"#,
            r#"[{"$ctk.generate":{"repeat":"z","count":3}}]"#,
        );
        let v = parse_vector(Path::new("g.json"), &text).expect("expands");
        let scenario: Value = serde_json::from_str(v.vector.scenario.get()).expect("json");
        let content = scenario["input"]["content"].as_str().expect("a string");
        assert_eq!(content.len(), 6_000_000);
        assert!(content.starts_with("abab") && content.ends_with("ab"));
        assert_eq!(
            scenario["tools"][0]["behavior"][0]["return"],
            serde_json::json!({"k0": null, "k1": null, "k2": null})
        );
        assert_eq!(
            scenario["model_script"][0]["respond"]["tool_calls"][0]["args"]["q"],
            "xyxy"
        );
        assert!(
            v.vector.scenario.get().contains("18446744073709551616"),
            "integer literals stay as written"
        );
        let rule = &v.vector.scripts()[0][0];
        assert_eq!(
            rule.return_.as_ref().expect("return")["transform"]["value"],
            serde_json::json!(["zzz"])
        );
        assert_eq!(v.text, text, "the lint reads the file as written");
        let digest = digest::digest_value(&serde_json::from_str(&text).expect("json")).expect("d");
        assert_eq!(v.sha256, digest, "the digest is the written file's");
        // Refusals, each at its pointer.
        let plain = r#""x""#;
        for (content, value, at, says) in [
            (
                r#"{"$ctk.generate":{"repeat":"ab"}}"#,
                plain,
                "/scenario/input/content",
                "count is missing",
            ),
            (
                r#"{"$ctk.generate":{"repeat":"ab","count":-1}}"#,
                plain,
                "/scenario/input/content",
                "count must be an integer",
            ),
            (
                r#"{"$ctk.generate":{"repeat":1,"count":1}}"#,
                plain,
                "/scenario/input/content",
                "repeat must be a string",
            ),
            (
                r#"{"$ctk.generate":{"repeat":"a","count":1,"times":2}}"#,
                plain,
                "/scenario/input/content",
                "unknown parameter \"times\"",
            ),
            (
                r#"{"$ctk.generate":{"repeat":"a","count":1},"x":1}"#,
                plain,
                "/scenario/input/content",
                "only member",
            ),
            (
                r#"{"$ctk.generate":{"keys":"k","count":1,"value":{"$ctk.generate":{"repeat":"a","count":1}}}}"#,
                plain,
                "/scenario/input/content",
                "cannot hold another",
            ),
            (
                r#"{"$ctk.generate":{"repeat":"a","count":67108865}}"#,
                plain,
                "/scenario/input/content",
                "more than 67108864 bytes",
            ),
            (
                r#"{"$ctk.generate":{"repeat":"ab","count":18446744073709551615}}"#,
                plain,
                "/scenario/input/content",
                "expands beyond 67108864 bytes",
            ),
            // Two that fit the cap alone and not together: the second is named.
            (
                r#"{"$ctk.generate":{"repeat":"a","count":40000000}}"#,
                r#"{"$ctk.generate":{"repeat":"a","count":40000000}}"#,
                "/interceptor_script/0/return/transform/value",
                "more than 67108864 bytes",
            ),
        ] {
            let err = parse_vector(Path::new("g.json"), &vector(content, value))
                .expect_err(says)
                .to_string();
            assert!(err.contains(&format!("g.json at {at}: ")), "{err}");
            assert!(err.contains(says), "{err}");
            assert!(err.contains("(vector CTK-0001)"), "{err}");
        }
        parse_vector(Path::new("g.json"), &vector(plain, plain)).expect("no generated value");
        for (from, to, at) in [
            (
                r#""role":"user""#,
                r#""role":{"$ctk.generate":{"repeat":"a","count":1}}"#,
                "/scenario/input/role",
            ),
            (
                r#""final_output":null"#,
                r#""final_output":{"$ctk.generate":{"repeat":"a","count":1}}"#,
                "/expect/final_output",
            ),
            (
                r#""args":{"n""#,
                r#""args":{"$ctk.generate":{"keys":"k","count":1,"value":1}},"x":{"n""#,
                "/scenario/model_script/0/respond/tool_calls/0/args",
            ),
        ] {
            let text = vector(plain, plain).replacen(from, to, 1);
            assert_ne!(text, vector(plain, plain), "{from}");
            let err = parse_vector(Path::new("g.json"), &text)
                .expect_err(at)
                .to_string();
            assert!(
                err.contains(&format!("g.json at {at}: $ctk.generate is allowed only in")),
                "{err}"
            );
        }
    }

    /// The kit's nesting bound (`wire::depth`): a vector file nested
    /// exactly that deep loads, past serde_json's own limit, and a nest
    /// form expands to a scenario and a transform value that deep; one
    /// level more is refused naming the file and the bound, and so is a
    /// file 100,000 levels deep, on a thread with libtest's 2 MiB stack.
    #[test]
    fn vectors_nest_up_to_the_kits_bound() {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let vector = |content: &str, value: &str| {
                    format!(
                        r#"{{"id":"CTK-0001","title":"t","spec_clause":"12.3","scenario":{{"input":{{"content":{content},"role":"user"}}}},
                    "interceptor_script":[{{"at":"input","return":{{"decision":"transform","transform":{{"path":"$target.content","value":{value}}}}}}}],
                    "expect":{{"interceptions":[],"run_outcome":"completed"}}}}"#
                    )
                };
                let arrays = |n: usize| format!("{}0{}", "[".repeat(n), "]".repeat(n));
                // content sits inside 3 containers, the value inside 5.
                let text = vector(&arrays(253), &arrays(251));
                let v = parse_vector(Path::new("deep.json"), &text).expect("at the bound");
                let scenario: Value = depth::from_str(v.vector.scenario.get()).expect("json");
                assert_eq!(depth::nesting(&scenario), 255);
                for (content, value) in [(arrays(254), arrays(1)), (arrays(1), arrays(252))] {
                    let err = parse_vector(Path::new("deep.json"), &vector(&content, &value))
                        .expect_err("one past the bound");
                    assert!(matches!(err, LoadError::TooDeep { .. }), "{err}");
                    let err = err.to_string();
                    assert!(
                        err.starts_with("deep.json at /: JSON nested deeper than 256 levels"),
                        "{err}"
                    );
                }
                let flood = vector(&arrays(100_000), "0");
                let err = parse_vector(Path::new("flood.json"), &flood)
                    .expect_err("refused")
                    .to_string();
                assert!(err.contains("flood.json") && err.contains("nested deeper than 256"), "{err}");
                // Generated: 250 objects at the content (3 around it) and 250
                // arrays around a one-level leaf at the value (5 around it).
                let text = vector(
                    r#"{"$ctk.generate":{"nest":"object","key":"n","depth":250,"leaf":"x"}}"#,
                    r#"{"$ctk.generate":{"nest":"array","depth":250,"leaf":{"a":0}}}"#,
                );
                let v = parse_vector(Path::new("gen.json"), &text).expect("expands at the bound");
                let scenario: Value = depth::from_str(v.vector.scenario.get()).expect("json");
                assert_eq!(depth::nesting(&scenario), 252);
                let mut leaf = &scenario["input"]["content"];
                for _ in 0..250 {
                    leaf = &leaf["n"];
                }
                assert_eq!(leaf, "x");
                let scripts = v.vector.scripts();
                let value = &scripts[0][0].return_.as_ref().expect("return")["transform"]["value"];
                assert_eq!(depth::nesting(value), 251);
                let err = parse_vector(
                    Path::new("gen.json"),
                    &text.replace(r#""depth":250,"leaf":{"a""#, r#""depth":251,"leaf":{"a""#),
                )
                .expect_err("one past the bound")
                .to_string();
                assert!(
                    err.contains("gen.json at /interceptor_script/0/return/transform/value: ")
                        && err.contains("nests 257 levels"),
                    "{err}"
                );
            })
            .expect("a thread")
            .join()
            .expect("no stack overflow");
    }

    /// A context-sized fill passes the schema and the loader and stays in
    /// the rule, for the interceptor to size when it answers; in scenario
    /// data it is refused at its pointer.
    #[test]
    fn a_context_sized_fill_loads_unexpanded() {
        let vector = |content: &str| {
            format!(
                r#"{{"id":"CTK-0001","title":"t","spec_clause":"12.3","capabilities":["model_calls"],
            "scenario":{{"input":{{"content":{content},"role":"user"}},"model_script":[{{"respond":{{"content":"d","tool_calls":[],"finish_reason":"stop"}}}}]}},
            "interceptor_script":[{{"at":"input","return":{{"decision":"transform","transform":{{"path":"$target.content","value":{{"$ctk.generate":{{"pad_context_past":5242880}}}}}}}}}}],
            "expect":{{"interceptions":[],"run_outcome":"blocked"}}}}"#
            )
        };
        let v = parse_vector(Path::new("p.json"), &vector(r#""x""#)).expect("loads");
        assert_eq!(
            v.vector.scripts()[0][0].return_.as_ref().expect("return")["transform"]["value"],
            serde_json::json!({"$ctk.generate": {"pad_context_past": 5242880}})
        );
        let err = parse_vector(
            Path::new("p.json"),
            &vector(r#"{"$ctk.generate":{"pad_context_to":5242880}}"#),
        )
        .expect_err("refused")
        .to_string();
        assert!(
            err.contains("p.json at /scenario/input/content: $ctk.generate: pad_context_to and pad_context_past stand only in a scripted transform's value"),
            "{err}"
        );
    }

    /// A generated declaration text (the json form) reaches the vector as
    /// the text it stands for, which the lint checks like any other.
    #[test]
    fn a_generated_declaration_text_is_expanded_and_linted() {
        let text = r#"{"id":"CTK-0001","title":"t","spec_clause":"7.7.3","part":"declaration/refusal",
            "capabilities":["host_declaration"],"scenario":{"input":{"content":"x","role":"user"}},"interceptor_scripts":[[]],
            "host_declaration_text":{"$ctk.generate":{"json":{"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1","bindings":[],
              "extensions":{"pad":{"note":{"$ctk.generate":{"repeat":"ab","count":3}}}}}}},
            "expect":{"load":{"outcome":"refused"},"interceptions":[],"run_outcome":"error"}}"#;
        let v = parse_vector(Path::new("d.json"), text).expect("vector");
        assert_eq!(
            v.vector.host_declaration_text.as_deref(),
            Some(
                r#"{"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1","bindings":[],"extensions":{"pad":{"note":"ababab"}}}"#
            )
        );
        assert!(v.vector.is_declaration());
        assert_eq!(
            lint(&[v], &Catalogs::default())
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            Vec::<String>::new()
        );
        let keys = text.replace(
            r#"{"json":{"declaration""#,
            r#"{"keys":"k","count":1,"value":{"declaration""#,
        );
        let err = parse_vector(Path::new("d.json"), &keys)
            .expect_err("an object is no text")
            .to_string();
        assert!(err.contains("d.json at /host_declaration_text: "), "{err}");
    }

    #[test]
    fn empty_folder_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            load(&VectorSource::Dir(dir.path().into())),
            Err(LoadError::NoVectors { .. })
        ));
    }

    #[test]
    fn schema_error_names_file_and_pointer() {
        let text = r#"{"id":"AH-CTK-900","title":"t","spec_clause":"1","scenario":{"input":{"content":"x","role":"boss"}},"interceptor_script":[],"expect":{"interceptions":[],"run_outcome":"completed"}}"#;
        let err = parse_vector(Path::new("bad.json"), text).expect_err("schema error");
        let msg = err.to_string();
        assert!(msg.contains("bad.json at /scenario/input/role"), "{msg}");
        assert!(msg.contains("AH-CTK-900"), "{msg}");
    }

    #[test]
    fn lint_checks_host_declarations_unless_marked_invalid() {
        let text = |invalid: bool| {
            format!(
                r#"{{"id":"AH-CTK-901","title":"t","spec_clause":"7.7","part":"declaration/load",
            "capabilities":["host_declaration"],"scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_scripts":[],
            "host_declaration":{{"declaration":"agent-hooks-declaration/1.0","bindings":[],"policy":1}},
            "host_declaration_invalid":{invalid},"expect":{{"load":{{"outcome":"refused"}}}}}}"#
            )
        };
        let bad = parse_vector(Path::new("d.json"), &text(false)).expect("vector");
        let errors = lint(&[bad], &Catalogs::default());
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .contains("d.json at /host_declaration"),
            "{}",
            errors[0]
        );
        let marked = parse_vector(Path::new("d.json"), &text(true)).expect("vector");
        assert!(lint(&[marked], &Catalogs::default()).is_empty());
    }

    #[test]
    fn lint_refuses_an_adapter_feature_the_contract_does_not_know() {
        let text = |features: &str| {
            format!(
                r#"{{"id":"CTK-9993","title":"t","spec_clause":"4.2","part":"verdict/warnings",
            "adapter_features":{features},"scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_script":[],
            "expect":{{"interceptions":[],"run_outcome":"completed"}}}}"#
            )
        };
        let unknown = parse_vector(
            Path::new("f.json"),
            &text(r#"["persisted-state","telepathy"]"#),
        )
        .expect("vector");
        let errors = lint(&[unknown], &Catalogs::default());
        assert_eq!(errors.len(), 1, "{errors:?}");
        let e = errors[0].to_string();
        assert!(
            e.contains("f.json at /adapter_features/1") && e.contains("\"telepathy\""),
            "{e}"
        );
        let known =
            parse_vector(Path::new("f.json"), &text(r#"["persisted-state"]"#)).expect("vector");
        assert!(lint(&[known], &Catalogs::default()).is_empty());
    }

    #[test]
    fn a_check_of_the_host_contract_covers_no_clause() {
        let text = |covers: &str| {
            format!(
                r#"{{"id":"CTK-9992","title":"t","spec_clause":"4.2","part":"adapter/loop","covers":{covers},
            "adapter_contract":"HOSTS.md §4.1","scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_script":[],
            "expect":{{"interceptions":[],"run_outcome":"completed"}}}}"#
            )
        };
        let covering = parse_vector(Path::new("a.json"), &text(r#"["4.2-c"]"#)).expect("vector");
        let errors = lint(&[covering], &Catalogs::default());
        assert!(
            errors
                .iter()
                .any(|e| e.to_string().contains("a.json at /covers")),
            "{errors:?}"
        );
        let bare = parse_vector(Path::new("a.json"), &text("[]")).expect("vector");
        assert!(lint(&[bare], &Catalogs::default()).is_empty());
        let unnamed = text("[]").replace("HOSTS.md §4.1", "the loop");
        assert!(parse_vector(Path::new("a.json"), &unnamed).is_err());
    }

    /// The declaration grammar: any non-null document value, raw text
    /// (linted unless marked invalid), file faults (those with contents
    /// need a document with a text they can fault), never both a value and
    /// a text.
    #[test]
    fn declaration_text_and_file_faults_are_parsed_and_linted() {
        let vector = |members: &str| {
            format!(
                r#"{{"id":"AH-CTK-902","title":"t","spec_clause":"7.7.6","part":"declaration/refusal",
            "capabilities":["host_declaration"],"scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_scripts":[[]]{members},
            "expect":{{"load":{{"outcome":"refused","class":"declaration_error:malformed"}}}}}}"#
            )
        };
        let lint_of = |members: &str| -> Vec<String> {
            let v = parse_vector(Path::new("d.json"), &vector(members)).expect("vector");
            lint(&[v], &Catalogs::default())
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let doc = r#"{"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1","bindings":[]}"#;
        // Valid forms.
        for members in [
            r#","host_declaration":[1],"host_declaration_invalid":true"#.to_owned(),
            r#","host_declaration":"text","host_declaration_invalid":true"#.to_owned(),
            format!(r#","host_declaration_text":{}"#, Value::from(doc)),
            format!(
                r#","host_declaration_text":{},"host_declaration_invalid":true"#,
                Value::from(format!("{doc} trailing"))
            ),
            r#","host_declaration_file":"missing""#.to_owned(),
            r#","host_declaration_file":"directory""#.to_owned(),
            format!(r#","host_declaration":{doc},"host_declaration_file":"bom""#),
            format!(
                r#","host_declaration_text":{},"host_declaration_file":"invalid_utf8""#,
                Value::from(doc)
            ),
            format!(r#","host_declaration":{doc},"host_declaration_file":"oversized""#),
        ] {
            assert_eq!(lint_of(&members), Vec::<String>::new(), "{members}");
            let v = parse_vector(Path::new("d.json"), &vector(&members)).expect("vector");
            assert!(v.vector.is_declaration(), "{members}");
        }
        let parsed = parse_vector(
            Path::new("d.json"),
            &vector(r#","host_declaration_text":"{} {}","host_declaration_file":"bom","host_declaration_invalid":true"#),
        )
        .expect("vector")
        .vector;
        assert_eq!(parsed.host_declaration_text.as_deref(), Some("{} {}"));
        assert_eq!(
            parsed.host_declaration_file,
            Some(ctk_agent_hooks_adapter::DeclarationFileFault::Bom)
        );
        // Schema errors.
        for members in [
            r#","host_declaration":null"#.to_owned(),
            r#","host_declaration_file":"unplugged""#.to_owned(),
            r#","host_declaration_text":{}"#.to_owned(),
            r#","host_declaration_file":"bom""#.to_owned(),
            format!(r#","host_declaration":{doc},"host_declaration_text":"{{}}""#),
        ] {
            let err = parse_vector(Path::new("d.json"), &vector(&members));
            assert!(
                matches!(err, Err(LoadError::Schema { .. })),
                "{members}: {err:?}"
            );
        }
        // Lint errors.
        let errors = lint_of(r#","host_declaration_text":"{\"a\": 1} x""#);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0]
                .contains("d.json at /host_declaration_text: host_declaration_text is not JSON"),
            "{errors:?}"
        );
        let errors = lint_of(r#","host_declaration_text":"{\"policy\": 1}""#);
        assert!(
            errors[0].contains("host_declaration_text breaks the declaration schema"),
            "{errors:?}"
        );
        let errors = lint_of(
            r#","host_declaration":7,"host_declaration_invalid":true,"host_declaration_file":"invalid_utf8""#,
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("d.json at /host_declaration_file: file fault invalid_utf8"),
            "{errors:?}"
        );
    }

    #[test]
    fn covers_need_a_catalog_for_every_spec_of_the_vector() {
        let text = r#"{"id":"CTK-D900","title":"t","spec_clause":"6.3.1","spec_versions":["0.1","draft"],"covers":["d-6.3.1-a"],
            "scenario":{"input":{"content":"x","role":"user"}},"interceptor_script":[],"expect":{"interceptions":[],"run_outcome":"completed"}}"#;
        let v = parse_vector(Path::new("d.json"), text).expect("vector");
        let errors: Vec<String> = lint(&[v], &Catalogs::default())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("d.json at /covers: no clause catalog for spec 0.1"));
        assert!(errors[1].starts_with("d.json at /covers: no clause catalog for spec draft"));
    }

    #[test]
    fn draft_vectors_may_prefix_spec_clause_with_draft() {
        let text = |specs: &str| {
            format!(
                r#"{{"id":"CTK-D901","title":"t","spec_clause":"draft 6.3.1, 7.7.5","spec_versions":{specs},"part":"draft/best_effort",
            "scenario":{{"input":{{"content":"x","role":"user"}}}},"interceptor_script":[],"expect":{{"interceptions":[],"run_outcome":"completed"}}}}"#
            )
        };
        let draft = parse_vector(Path::new("d.json"), &text(r#"["draft"]"#)).expect("vector");
        assert!(lint(&[draft], &Catalogs::default()).is_empty());
        let released = parse_vector(Path::new("r.json"), &text(r#"["0.1"]"#)).expect("vector");
        let errors = lint(&[released], &Catalogs::default());
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().contains("r.json at /spec_clause"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn schemas_are_self_contained() {
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|v| refs(v, out));
                }
                Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        for text in [VECTOR_SCHEMA, crate::declaration::DECLARATION_SCHEMA]
            .into_iter()
            .chain(crate::declaration::DECLARATION_SCHEMA_1_1)
        {
            let mut out = Vec::new();
            refs(&serde_json::from_str(text).expect("json"), &mut out);
            assert!(
                !out.is_empty() && out.iter().all(|r| r.starts_with("#/")),
                "{out:?}"
            );
        }
    }

    #[test]
    fn project_extensions_are_accepted() {
        let text = r#"{"id":"AH-CTK-900","title":"t","spec_clause":"6.3","covers":["6.3-c"],"spec_versions":["0.1","draft"],
            "interceptor_timeout_ms":50,"scenario":{"input":{"content":"x","role":"user"},"turns":[{"input":{"content":"y","role":"user"}}],
            "model_script":[{"respond":{"content":null,"tool_calls":[],"finish_reason":"stop","parallel":true}}]},
            "interceptor_scripts":[[{"at":"input","fault":"timeout"}],[{"at":"input","return_raw":{"decision":"deny","reason":"host_error:x"}}]],
            "expect":{"interceptions":[],"run_outcome":"blocked"}}"#;
        let v = parse_vector(Path::new("x.json"), text).expect("extensions load");
        assert_eq!(
            v.vector.spec_versions(),
            vec![SpecVersion::V0_1, SpecVersion::Draft]
        );
        let both = r#"{"id":"AH-CTK-900","title":"t","spec_clause":"1","scenario":{"input":{"content":"x","role":"user"}},
            "interceptor_script":[{"at":"input","return":{"decision":"allow"},"fault":"raise"}],"expect":{"interceptions":[],"run_outcome":"blocked"}}"#;
        assert!(parse_vector(Path::new("x.json"), both).is_err());
        let reserved = r#"{"id":"AH-CTK-900","title":"t","spec_clause":"1","scenario":{"input":{"content":"x","role":"user"}},
            "interceptor_script":[{"at":"input","return":{"decision":"deny","reason":"host_error:x"}}],"expect":{"interceptions":[],"run_outcome":"blocked"}}"#;
        assert!(
            parse_vector(Path::new("x.json"), reserved).is_err(),
            "return must be a valid verdict; return_raw is the escape hatch"
        );
    }

    #[test]
    fn clause_ids() {
        assert!(valid_clause("6.3-c"));
        assert!(valid_clause("d-6.3.1-a") && valid_clause("d-11-c"));
        assert!(!valid_clause("d-") && !valid_clause("x-6.3-c") && !valid_clause("d-d-6.3-c"));
        assert!(valid_clause("12.1a-b"));
        assert!(!valid_clause("6.3"));
        assert!(!valid_clause("6.3-cc"));
        assert!(!valid_clause("-c"));
        assert!(
            valid_section("12.1a")
                && valid_section("9")
                && !valid_section("7.x1")
                && !valid_section("")
        );
    }
}
