//! Clause catalogs: `spec/<version>/clauses.json`, compiled into the binary
//! when present at build time, or read from a file (`--clauses FILE`).
//!
//! ```json
//! {"spec": "agent-hooks/0.1", "catalog_version": 1, "description": "...",
//!  "clauses": [{"id": "6.3-c", "keyword": "MUST", "section": "6.3", "text": "...",
//!               "not_vector_testable": "<why>",
//!               "unit_tests": ["agent-hooks/reference-host/src/seam.rs::gate_refuses_reserved"],
//!               "needs": ["tool_calls"]}]}
//! ```
//!
//! A unit-test reference is `<repo-relative file path>::<test fn name>`: the
//! path ends in `.rs`, is relative, has no `..` component and no `::`; the
//! name is a Rust identifier. Any other spelling (such as the module path
//! `crate::module::tests::name`) is malformed.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::errors::{CatalogError, Location};
use crate::suite::SpecVersion;
use crate::suite::Suite;

/// `(spec, text)` of every embedded catalog.
const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/embedded_catalogs.rs"));

/// The RFC 2119 keyword of a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Keyword {
    /// An absolute requirement.
    #[serde(rename = "MUST")]
    Must,
    /// A recommendation.
    #[serde(rename = "SHOULD")]
    Should,
    /// An option.
    #[serde(rename = "MAY")]
    May,
}

impl Keyword {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Must => "MUST",
            Keyword::Should => "SHOULD",
            Keyword::May => "MAY",
        }
    }
}

/// One normative clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clause {
    /// Stable id, e.g. `6.3-c`.
    pub id: String,
    /// MUST, SHOULD or MAY.
    pub keyword: Keyword,
    /// The section, e.g. `6.3`.
    pub section: String,
    /// The requirement, paraphrased.
    pub text: String,
    /// Where [`Clause::quote`] comes from, relative to the upstream data
    /// folder (`agent-hooks/spec/AGENT-HOOKS-0.1.md`), or `seed:NNN` for a
    /// seed document (`spec/tools/quotes.py` checks it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The sentence of the text the clause paraphrases, verbatim, so a
    /// failure can show the rule a vendor is said to break.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Why no JSON vector can test the clause, when none can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_vector_testable: Option<String>,
    /// Unit tests pinning the clause, as `<file>::<fn name>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit_tests: Vec<String>,
    /// The capabilities a host's declared surface must list for the clause
    /// to apply to it (§3.2, §13.1): `model_calls` for what only the model
    /// points do, `tool_calls` for the tool points, `host_declaration` for
    /// the declaration document. Empty: the clause binds every host, the
    /// floor surface included (`ctk coverage --surface`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
}

/// A clause catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Catalog {
    /// The wire spec version, e.g. `agent-hooks/0.1`.
    pub spec: String,
    /// Revision of the catalog.
    pub catalog_version: u64,
    /// What the catalog is.
    #[serde(default)]
    pub description: String,
    /// The clauses, in catalog order.
    pub clauses: Vec<Clause>,
}

impl Catalog {
    /// The spec version the catalog names, if known.
    pub fn spec_version(&self) -> Option<SpecVersion> {
        SpecVersion::parse(&self.spec)
    }

    /// Whether the catalog has a clause with this id.
    pub fn contains(&self, id: &str) -> bool {
        self.clauses.iter().any(|c| c.id == id)
    }
}

/// Parse a catalog's text; `file` names it in errors. Duplicate clause ids
/// are refused.
pub fn parse(file: &Path, text: &str) -> Result<Catalog, CatalogError> {
    let malformed = |pointer: String, detail: String| CatalogError::Malformed {
        location: Location {
            file: file.to_path_buf(),
            pointer,
        },
        detail,
    };
    let catalog: Catalog =
        serde_json::from_str(text).map_err(|e| malformed(String::new(), e.to_string()))?;
    if Suite::parse(&catalog.spec).is_none() {
        return Err(malformed(
            "/spec".into(),
            format!("unknown spec {:?}", catalog.spec),
        ));
    }
    let mut seen = BTreeMap::new();
    for (i, c) in catalog.clauses.iter().enumerate() {
        if let Some(first) = seen.insert(c.id.as_str(), i) {
            return Err(malformed(
                format!("/clauses/{i}/id"),
                format!("clause id {:?} repeats /clauses/{first}/id", c.id),
            ));
        }
    }
    Ok(catalog)
}

/// Read a catalog file.
pub fn load_file(path: &Path) -> Result<Catalog, CatalogError> {
    let text = std::fs::read_to_string(path).map_err(|source| CatalogError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, &text)
}

/// The Agent Hooks catalog compiled in for `spec`.
pub fn embedded(spec: SpecVersion) -> Result<Catalog, CatalogError> {
    embedded_for(Suite::AgentHooks(spec))
}

/// The catalog compiled in for any suite (`spec/<folder>/clauses.json`).
pub fn embedded_for(suite: Suite) -> Result<Catalog, CatalogError> {
    let folder = suite.folder();
    match FILES.iter().find(|(s, _)| *s == folder) {
        Some((s, text)) => parse(
            &PathBuf::from(format!("embedded:spec/{s}/clauses.json")),
            text,
        ),
        None => Err(CatalogError::Missing {
            spec: folder.to_owned(),
        }),
    }
}

/// The catalogs vectors are checked against, one per spec version.
#[derive(Debug, Clone, Default)]
pub struct Catalogs(pub BTreeMap<SpecVersion, Catalog>);

impl Catalogs {
    /// Every embedded catalog, then each of `overrides` (read from files)
    /// replacing the one for the spec it names.
    pub fn load(overrides: &[PathBuf]) -> Result<Self, CatalogError> {
        let mut map = BTreeMap::new();
        for spec in [SpecVersion::V0_1, SpecVersion::Draft] {
            match embedded(spec) {
                Ok(c) => {
                    map.insert(spec, c);
                }
                Err(CatalogError::Missing { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        for path in overrides {
            let c = load_file(path)?;
            if let Some(spec) = c.spec_version() {
                map.insert(spec, c);
            }
        }
        Ok(Self(map))
    }

    /// The catalog of `spec`, if any.
    pub fn get(&self, spec: SpecVersion) -> Option<&Catalog> {
        self.0.get(&spec)
    }

    /// Whether `id` is a clause of `spec`: in its catalog, or, for the
    /// draft, in the 0.1 catalog (every 0.1 clause the draft does not change
    /// holds under the draft).
    pub fn knows(&self, spec: SpecVersion, id: &str) -> bool {
        self.get(spec).is_some_and(|c| c.contains(id))
            || (spec == SpecVersion::Draft
                && self.get(SpecVersion::V0_1).is_some_and(|c| c.contains(id)))
    }
}

/// A well-formed unit-test reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitTestRef {
    /// Repository-relative file path.
    pub file: String,
    /// Test function name.
    pub name: String,
}

/// Parse `<file>::<fn name>`; `Err` says why the reference is malformed.
pub fn unit_test_ref(text: &str) -> Result<UnitTestRef, String> {
    let expected = "expected <repo-relative file path>::<test fn name>, e.g. agent-hooks/suite/src/identity.rs::matches_every_golden_identity";
    let Some((file, name)) = text.rsplit_once("::") else {
        return Err(format!("{text:?}: {expected}"));
    };
    let path = Path::new(file);
    let path_ok = file.ends_with(".rs")
        && !file.contains("::")
        && !file.contains('\\')
        && path.is_relative()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let name_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if path_ok && name_ok {
        Ok(UnitTestRef {
            file: file.to_owned(),
            name: name.to_owned(),
        })
    } else {
        Err(format!("{text:?}: {expected}"))
    }
}

/// Whether `repo/<file>` exists and defines `fn <name>(`.
pub fn unit_test_exists(repo: &Path, r: &UnitTestRef) -> Result<(), String> {
    let path = repo.join(&r.file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read {}: {e}", r.file, path.display()))?;
    let needle = format!("fn {}(", r.name);
    if text.contains(&needle) {
        Ok(())
    } else {
        Err(format!("{} defines no `{needle}`", r.file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_release_catalog_parses() {
        let c = embedded(SpecVersion::V0_1).expect("spec/0.1/clauses.json is embedded");
        assert_eq!(c.spec, "agent-hooks/0.1");
        assert!(c.clauses.iter().any(|c| c.keyword == Keyword::Must));
    }

    #[test]
    fn unit_test_references_are_file_paths() {
        assert_eq!(
            unit_test_ref("agent-hooks/suite/src/identity.rs::matches_every_golden_identity"),
            Ok(UnitTestRef {
                file: "agent-hooks/suite/src/identity.rs".into(),
                name: "matches_every_golden_identity".into()
            })
        );
        for bad in [
            "ctk_agent_hooks_reference_host::emitter::tests::concurrent_model_calls_carry_request_id",
            "crate::module::tests::name",
            "/abs/file.rs::name",
            "../up/file.rs::name",
            "runner/src/digest.rs::",
            "runner/src/digest.rs::1x",
            "runner/src/digest.rs::a-b",
            "agent-hooks/suite/src/identity.rs",
            "runner/src/digest.py::name",
        ] {
            assert!(unit_test_ref(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unit_test_existence_is_checked_in_the_file() {
        let repo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let ok = unit_test_ref("core/src/catalog.rs::unit_test_existence_is_checked_in_the_file")
            .expect("well formed");
        assert_eq!(unit_test_exists(repo, &ok), Ok(()));
        let missing_fn = unit_test_ref("core/src/lib.rs::no_such_test").expect("well formed");
        assert_eq!(
            unit_test_exists(repo, &missing_fn),
            Err("core/src/lib.rs defines no `fn no_such_test(`".to_owned())
        );
        let missing_file = unit_test_ref("core/src/nope.rs::x").expect("well formed");
        assert!(unit_test_exists(repo, &missing_file).is_err());
    }

    #[test]
    fn duplicate_clause_ids_are_refused() {
        let text = r#"{"spec":"agent-hooks/0.1","catalog_version":1,"clauses":[
            {"id":"3-a","keyword":"MUST","section":"3","text":"x"},
            {"id":"3-a","keyword":"MAY","section":"3","text":"y"}]}"#;
        let err = parse(Path::new("c.json"), text).expect_err("duplicate");
        assert!(err.to_string().contains("c.json at /clauses/1/id"), "{err}");
    }
}
