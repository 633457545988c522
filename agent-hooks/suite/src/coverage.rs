//! `ctk coverage`: the clause × vector matrix of one spec version, and the
//! findings that make it fail.
//!
//! Rules (every finding names a file and a JSON pointer):
//!
//! * **error**: a MUST clause no vector covers, unless it is marked
//!   `not_vector_testable` and names at least one unit test that pins it
//!   (well formed and, when a checkout is known, present);
//! * **error**: a unit-test reference that is not `<file>::<fn name>`
//!   ([`catalog::unit_test_ref`]), or, inside a checkout, whose file is
//!   missing or defines no `fn <name>(`;
//! * **error**: a vector naming a clause id the catalog lacks (for the
//!   draft, a clause of the 0.1 catalog it extends is no error);
//! * **error**: a project vector covering nothing (an upstream vector, id
//!   `AH-CTK-NNN` with no `covers`, is counted apart and is not an error);
//! * **warning**: a clause marked `not_vector_testable` that a vector covers
//!   (the mark is stale);
//! * **error**, for each minimal surface asked for (`--surface`,
//!   [`MINIMAL_SURFACES`]): a MUST clause that applies to the surface (its
//!   `needs` are among the surface's capabilities; not `not_vector_testable`)
//!   that no vector applying to the surface covers. Applicability is the
//!   runner's own ([`crate::surface`]), so a host declaring
//!   exactly that surface can be certified on every clause that binds it.
//!
//! SHOULD and MAY clauses nobody covers are listed as `uncovered`, never an
//! error. Vectors not for the spec are left out and counted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::declaration::{self, Surface};
use crate::surface::{applicability, Applicability};
use crate::vector::load::LoadedVector;
use ctk_core::catalog::{self, Catalog, Keyword};
use ctk_core::suite::Suite;

/// A smallest surface §3.2 allows a host to declare: the four floor points,
/// plus the pair its one capability brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinimalSurface {
    /// Its name on the command line and in the report.
    pub name: &'static str,
    /// `surface.capabilities`.
    pub capabilities: &'static [&'static str],
    /// `surface.interception_points`.
    pub points: &'static [&'static str],
}

const FLOOR: [&str; 4] = ["agent_startup", "input", "output", "agent_shutdown"];

/// The floor surface, a tool router and a host with a model but no tools.
pub const MINIMAL_SURFACES: [MinimalSurface; 3] = [
    MinimalSurface {
        name: "floor",
        capabilities: &[],
        points: &FLOOR,
    },
    MinimalSurface {
        name: "tool-router",
        capabilities: &["tool_calls"],
        points: &[
            "agent_startup",
            "input",
            "pre_tool_call",
            "post_tool_call",
            "output",
            "agent_shutdown",
        ],
    },
    MinimalSurface {
        name: "model",
        capabilities: &["model_calls"],
        points: &[
            "agent_startup",
            "input",
            "pre_model_call",
            "post_model_call",
            "output",
            "agent_shutdown",
        ],
    },
];

impl MinimalSurface {
    /// The declaration document of a host with exactly this surface: every
    /// profile and knob value, `jcs-sha256`, the default posture, buffered
    /// output (what a host declares beyond its points and capabilities never
    /// narrows which clauses bind it).
    pub fn document(&self) -> serde_json::Value {
        serde_json::json!({
            "declaration": "agent-hooks-declaration/1.0",
            "spec": "agent-hooks/0.1",
            "bindings": [],
            "surface": {
                "interception_points": self.points,
                "capabilities": self.capabilities,
                "profiles": {
                    "sequential/first_deny": {"on_approval": ["stop", "resume"]},
                    "sequential/run_all": {},
                    "parallel/strictest": {"on_transform_conflict": ["deny", "approval"]},
                    "parallel/unanimous": {"on_disagreement": ["deny", "approval"]}
                },
                "buffered_output": true
            }
        })
    }

    /// The surface the runner reads from [`MinimalSurface::document`].
    pub fn surface(&self) -> Surface {
        declaration::surface(&self.document())
    }

    /// Whether a clause needing `needs` binds a host of this surface.
    pub fn binds(&self, needs: &[String]) -> bool {
        needs
            .iter()
            .all(|n| self.capabilities.contains(&n.as_str()))
    }
}

/// One minimal surface's clause coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SurfaceCoverage {
    /// The surface's name.
    pub name: String,
    /// Its capabilities.
    pub capabilities: Vec<String>,
    /// MUST clauses (vector-testable) that bind it.
    pub clauses: usize,
    /// Vectors for the spec that apply to it.
    pub vectors: usize,
    /// Gating vectors among them.
    pub gating_vectors: usize,
    /// Binding clauses no applicable vector covers (each is an error).
    pub uncovered: Vec<String>,
}

/// How a clause is accounted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseStatus {
    /// At least one vector covers it.
    Covered,
    /// Not vector-testable, pinned by unit tests.
    UnitTested,
    /// Neither.
    Uncovered,
}

impl ClauseStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ClauseStatus::Covered => "covered",
            ClauseStatus::UnitTested => "unit_tested",
            ClauseStatus::Uncovered => "uncovered",
        }
    }
}

/// What became of one unit-test reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitTestStatus {
    /// Well formed and found in the checkout.
    Found,
    /// Well formed; no checkout to look in.
    Unchecked,
    /// Not `<file>::<fn name>`.
    Malformed,
    /// The file is missing or defines no such function.
    Missing,
}

/// One unit-test reference of a clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnitTestRow {
    /// The reference as the catalog spells it.
    pub reference: String,
    /// What became of it.
    pub status: UnitTestStatus,
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClauseRow {
    /// Clause id.
    pub id: String,
    /// MUST, SHOULD or MAY.
    pub keyword: Keyword,
    /// Section.
    pub section: String,
    /// Ids of the vectors covering it, in vector order.
    pub vectors: Vec<String>,
    /// Why no vector can test it, when marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_vector_testable: Option<String>,
    /// Its unit tests.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unit_tests: Vec<UnitTestRow>,
    /// How it is accounted for.
    pub status: ClauseStatus,
}

/// One finding: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file (catalog or vector).
    pub file: String,
    /// RFC 6901 pointer into it.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {}: {}",
            self.file,
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            },
            self.message
        )
    }
}

/// Counts over the matrix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CoverageTotals {
    /// Clauses in the catalog.
    pub clauses: usize,
    /// MUST clauses.
    pub must: usize,
    /// Clauses some vector covers.
    pub covered: usize,
    /// Clauses pinned by unit tests only.
    pub unit_tested: usize,
    /// Clauses neither covers.
    pub uncovered: usize,
    /// MUST clauses neither covers.
    pub uncovered_must: usize,
    /// Project vectors for the spec.
    pub project_vectors: usize,
    /// Upstream vectors for the spec (no `covers`).
    pub upstream_vectors: usize,
    /// Vectors left out because they are for another spec.
    pub other_spec_vectors: usize,
    /// Distinct clauses of the inherited (0.1) catalog that draft vectors
    /// cover; they hold under the draft but are not rows of its matrix.
    pub inherited_clauses_covered: usize,
}

/// The matrix and its findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Wire spec version.
    pub spec: String,
    /// Where the catalog came from.
    pub catalog: String,
    /// The catalog's revision.
    pub catalog_version: u64,
    /// Where the vectors came from.
    pub vector_source: String,
    /// The checkout unit tests were looked up in, if any.
    pub repo: Option<String>,
    /// Counts.
    pub totals: CoverageTotals,
    /// One row per clause, in catalog order.
    pub clauses: Vec<ClauseRow>,
    /// Upstream vector ids, counted apart.
    pub upstream_vectors: Vec<String>,
    /// Findings that fail the command.
    pub errors: Vec<Finding>,
    /// Findings that do not.
    pub warnings: Vec<Finding>,
    /// Per minimal surface (`--surface`), in the order asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub surfaces: Vec<SurfaceCoverage>,
}

impl Coverage {
    /// Whether the command passes.
    pub fn passed(&self) -> bool {
        self.errors.is_empty()
    }
}

/// What [`compute`] looks at.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The suite the matrix is for.
    pub spec: Suite,
    /// The catalog.
    pub catalog: &'a Catalog,
    /// A catalog whose clauses also hold (the 0.1 catalog under the draft):
    /// vectors may name them without an error.
    pub inherited: Option<&'a Catalog>,
    /// Display name of the catalog file.
    pub catalog_source: &'a str,
    /// Every loaded vector (other specs are left out).
    pub vectors: &'a [CoverageVector],
    /// Display name of the vector source.
    pub vector_source: &'a str,
    /// The checkout to look unit tests up in.
    pub repo: Option<&'a Path>,
    /// The minimal surfaces to check clause coverage for.
    pub surfaces: &'a [MinimalSurface],
}

/// What coverage reads of a vector, whatever its suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverageVector {
    /// The vector id.
    pub id: String,
    /// Its file, as findings name it.
    pub file: String,
    /// The clause ids it covers.
    pub covers: Vec<String>,
    /// Whether it is for the matrix's spec (others are counted apart).
    pub in_spec: bool,
    /// Whether it is an upstream vector, which names no clause.
    pub upstream: bool,
    /// Whether it is advisory (never gates).
    pub advisory: bool,
    /// Whether it checks the kit's host contract (`adapter_contract`)
    /// rather than the spec: such a vector covers no clause by design.
    pub checks_adapter: bool,
    /// The names of the [`MINIMAL_SURFACES`] it applies to.
    pub surfaces: Vec<&'static str>,
}

impl CoverageVector {
    /// An Agent Hooks vector, for a matrix of `spec`.
    pub fn agent_hooks(v: &LoadedVector, spec: crate::vector::model::SpecVersion) -> Self {
        Self {
            id: v.vector.id.clone(),
            file: v.file.display().to_string(),
            covers: v.vector.covers.clone(),
            in_spec: v.vector.spec_versions().contains(&spec),
            upstream: is_upstream(v),
            advisory: v.vector.advisory.is_some(),
            checks_adapter: v.vector.adapter_contract.is_some(),
            surfaces: MINIMAL_SURFACES
                .iter()
                .filter(|m| applicability(&v.vector, &m.surface(), spec) == Applicability::Applies)
                .map(|m| m.name)
                .collect(),
        }
    }
}

/// Whether a vector is an upstream one: `AH-CTK-NNN[-slug]` naming no clause.
pub fn is_upstream(v: &LoadedVector) -> bool {
    v.vector.id.starts_with("AH-CTK-") && v.vector.covers.is_empty()
}

/// Build the matrix and its findings.
pub fn compute(inputs: Inputs<'_>) -> Coverage {
    let mut totals = CoverageTotals::default();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut upstream = Vec::new();
    let known: BTreeSet<&str> = inputs
        .catalog
        .clauses
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    let inherited: BTreeSet<&str> = inputs
        .inherited
        .map(|c| c.clauses.iter().map(|c| c.id.as_str()).collect())
        .unwrap_or_default();
    let mut inherited_covered: BTreeSet<&str> = BTreeSet::new();
    let mut covering: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for v in inputs.vectors {
        if !v.in_spec {
            totals.other_spec_vectors += 1;
            continue;
        }
        let file = v.file.clone();
        if v.upstream {
            totals.upstream_vectors += 1;
            upstream.push(v.id.clone());
            continue;
        }
        totals.project_vectors += 1;
        if v.covers.is_empty() && !v.checks_adapter {
            errors.push(Finding {
                file: file.clone(),
                pointer: "/covers".into(),
                message: format!("project vector {} covers no clause", v.id),
            });
        }
        for (i, id) in v.covers.iter().enumerate() {
            if known.contains(id.as_str()) {
                let list = covering.entry(id.as_str()).or_default();
                if !list.contains(&v.id) {
                    list.push(v.id.clone());
                }
            } else if let Some(id) = inherited.get(id.as_str()) {
                inherited_covered.insert(id);
            } else {
                errors.push(Finding {
                    file: file.clone(),
                    pointer: format!("/covers/{i}"),
                    message: format!(
                        "vector {} names clause {id:?}, which the {} catalog lacks",
                        v.id, inputs.catalog.spec
                    ),
                });
            }
        }
    }
    let mut rows = Vec::new();
    for (i, clause) in inputs.catalog.clauses.iter().enumerate() {
        let at = |pointer: String, message: String| Finding {
            file: inputs.catalog_source.to_owned(),
            pointer,
            message,
        };
        let mut unit_tests = Vec::new();
        let mut pinned = false;
        for (j, reference) in clause.unit_tests.iter().enumerate() {
            let pointer = format!("/clauses/{i}/unit_tests/{j}");
            let status = match catalog::unit_test_ref(reference) {
                Err(why) => {
                    errors.push(at(
                        pointer,
                        format!("clause {}: malformed unit test reference {why}", clause.id),
                    ));
                    UnitTestStatus::Malformed
                }
                Ok(r) => match inputs.repo {
                    None => UnitTestStatus::Unchecked,
                    Some(repo) => match catalog::unit_test_exists(repo, &r) {
                        Ok(()) => UnitTestStatus::Found,
                        Err(why) => {
                            errors.push(at(
                                pointer,
                                format!("clause {}: unit test not found: {why}", clause.id),
                            ));
                            UnitTestStatus::Missing
                        }
                    },
                },
            };
            pinned |= matches!(status, UnitTestStatus::Found | UnitTestStatus::Unchecked);
            unit_tests.push(UnitTestRow {
                reference: reference.clone(),
                status,
            });
        }
        let vectors = covering.remove(clause.id.as_str()).unwrap_or_default();
        let status = if !vectors.is_empty() {
            if clause.not_vector_testable.is_some() {
                warnings.push(at(
                    format!("/clauses/{i}/not_vector_testable"),
                    format!(
                        "clause {} is marked not vector-testable, yet {} cover it",
                        clause.id,
                        vectors.join(", ")
                    ),
                ));
            }
            ClauseStatus::Covered
        } else if clause.not_vector_testable.is_some() && pinned {
            ClauseStatus::UnitTested
        } else {
            ClauseStatus::Uncovered
        };
        if clause.keyword == Keyword::Must {
            totals.must += 1;
        }
        match status {
            ClauseStatus::Covered => totals.covered += 1,
            ClauseStatus::UnitTested => totals.unit_tested += 1,
            ClauseStatus::Uncovered => {
                totals.uncovered += 1;
                if clause.keyword == Keyword::Must {
                    totals.uncovered_must += 1;
                    let why = match (&clause.not_vector_testable, clause.unit_tests.is_empty()) {
                        (None, _) => "no vector covers it and it is not marked not_vector_testable",
                        (Some(_), true) => {
                            "it is marked not_vector_testable but names no unit test"
                        }
                        (Some(_), false) => {
                            "it is marked not_vector_testable but none of its unit tests is valid"
                        }
                    };
                    errors.push(at(
                        format!("/clauses/{i}"),
                        format!("MUST clause {} is not covered: {why}", clause.id),
                    ));
                }
            }
        }
        rows.push(ClauseRow {
            id: clause.id.clone(),
            keyword: clause.keyword,
            section: clause.section.clone(),
            vectors,
            not_vector_testable: clause.not_vector_testable.clone(),
            unit_tests,
            status,
        });
    }
    totals.clauses = rows.len();
    totals.inherited_clauses_covered = inherited_covered.len();
    let surfaces = inputs
        .surfaces
        .iter()
        .map(|m| surface_coverage(&inputs, m, &mut errors))
        .collect();
    Coverage {
        spec: inputs.spec.wire().to_owned(),
        catalog: inputs.catalog_source.to_owned(),
        catalog_version: inputs.catalog.catalog_version,
        vector_source: inputs.vector_source.to_owned(),
        repo: inputs.repo.map(|r| r.display().to_string()),
        totals,
        clauses: rows,
        upstream_vectors: upstream,
        errors,
        warnings,
        surfaces,
    }
}

/// Which binding clauses of `surface` no vector applying to it covers; each
/// is an error naming the clause and the surface.
fn surface_coverage(
    inputs: &Inputs<'_>,
    surface: &MinimalSurface,
    errors: &mut Vec<Finding>,
) -> SurfaceCoverage {
    let applying: Vec<&CoverageVector> = inputs
        .vectors
        .iter()
        .filter(|v| v.in_spec && v.surfaces.contains(&surface.name))
        .collect();
    let mut clauses = 0;
    let mut uncovered = Vec::new();
    for (i, clause) in inputs.catalog.clauses.iter().enumerate() {
        if clause.keyword != Keyword::Must
            || clause.not_vector_testable.is_some()
            || !surface.binds(&clause.needs)
        {
            continue;
        }
        clauses += 1;
        if applying.iter().any(|v| v.covers.contains(&clause.id)) {
            continue;
        }
        uncovered.push(clause.id.clone());
        errors.push(Finding {
            file: inputs.catalog_source.to_owned(),
            pointer: format!("/clauses/{i}"),
            message: format!(
                "MUST clause {} binds a host of the {} surface (capabilities {:?}), but no vector that applies to that surface covers it",
                clause.id, surface.name, surface.capabilities
            ),
        });
    }
    SurfaceCoverage {
        name: surface.name.to_owned(),
        capabilities: surface
            .capabilities
            .iter()
            .map(|c| (*c).to_owned())
            .collect(),
        clauses,
        vectors: applying.len(),
        gating_vectors: applying.iter().filter(|v| !v.advisory).count(),
        uncovered,
    }
}

/// Pretty JSON of the matrix, newline-terminated.
pub fn render_json(coverage: &Coverage) -> String {
    let mut s = serde_json::to_string_pretty(coverage).unwrap_or_default();
    s.push('\n');
    s
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The matrix as Markdown: a summary, one row per clause, the findings.
pub fn render_markdown(coverage: &Coverage) -> String {
    let t = coverage.totals;
    let mut s = String::new();
    let _ = writeln!(s, "# Clause coverage: {}\n", coverage.spec);
    let _ = writeln!(
        s,
        "Catalog `{}` (version {}); vectors `{}`; unit tests {}.\n",
        coverage.catalog,
        coverage.catalog_version,
        coverage.vector_source,
        match &coverage.repo {
            Some(r) => format!("looked up in `{r}`"),
            None => "not looked up (no checkout)".to_owned(),
        }
    );
    let _ = writeln!(
        s,
        "{} clauses ({} MUST): {} covered by vectors, {} pinned by unit tests only, {} uncovered ({} MUST). {} project vectors, {} upstream vectors, {} for another spec.\n",
        t.clauses, t.must, t.covered, t.unit_tested, t.uncovered, t.uncovered_must,
        t.project_vectors, t.upstream_vectors, t.other_spec_vectors
    );
    if t.inherited_clauses_covered > 0 {
        let _ = writeln!(
            s,
            "Draft vectors also cover {} clauses of the agent-hooks/0.1 catalog, which hold under the draft.\n",
            t.inherited_clauses_covered
        );
    }
    let _ = writeln!(
        s,
        "| clause | keyword | section | vectors | unit tests | status |\n| --- | --- | --- | --- | --- | --- |"
    );
    for row in &coverage.clauses {
        let tests: Vec<String> = row
            .unit_tests
            .iter()
            .map(|u| match u.status {
                UnitTestStatus::Found | UnitTestStatus::Unchecked => format!("`{}`", u.reference),
                UnitTestStatus::Malformed => format!("`{}` (malformed)", u.reference),
                UnitTestStatus::Missing => format!("`{}` (missing)", u.reference),
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            row.id,
            row.keyword.as_str(),
            row.section,
            row.vectors.join(", "),
            cell(&tests.join(", ")),
            row.status.as_str()
        );
    }
    if !coverage.surfaces.is_empty() {
        let _ = writeln!(
            s,
            "\n## Minimal surfaces\n\n| surface | capabilities | MUST clauses binding it | vectors applying (gating) | uncovered |\n| --- | --- | --- | --- | --- |"
        );
        for m in &coverage.surfaces {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} ({}) | {} |",
                m.name,
                if m.capabilities.is_empty() {
                    "none".to_owned()
                } else {
                    m.capabilities.join(", ")
                },
                m.clauses,
                m.vectors,
                m.gating_vectors,
                if m.uncovered.is_empty() {
                    "none".to_owned()
                } else {
                    m.uncovered.join(", ")
                }
            );
        }
    }
    if !coverage.upstream_vectors.is_empty() {
        let _ = writeln!(
            s,
            "\nUpstream vectors (no `covers`): {}.",
            coverage.upstream_vectors.join(", ")
        );
    }
    for (title, list) in [
        ("Errors", &coverage.errors),
        ("Warnings", &coverage.warnings),
    ] {
        if !list.is_empty() {
            let _ = writeln!(s, "\n## {title} ({})\n", list.len());
            for f in list {
                let _ = writeln!(s, "- {}", cell(&f.to_string()));
            }
        }
    }
    s
}
