//! Vector sets as the core sees them, whatever the suite: each vector's id,
//! title, part, file, digest, advisory marking and covered clauses. Reports,
//! claims, `verify`, the terminal and `events.jsonl` read only this; each
//! suite turns its own parsed vectors into [`VectorMeta`].

use serde_json::Value;

use crate::digest;
use crate::suite::Suite;

/// `(folder, file name, text)` of every embedded vector, sorted by file
/// name; the folder is a [`Suite::folder`].
const FILES: &[(&str, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/embedded_vectors.rs"));

/// What the core knows of one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorMeta {
    /// Stable id.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// Report grouping.
    pub part: String,
    /// File name.
    pub file_name: String,
    /// `sha256:` digest of the vector's RFC 8785 form.
    pub sha256: String,
    /// The decision an advisory vector pins; `None` for a gating one.
    pub advisory: Option<String>,
    /// Clause ids the vector covers.
    pub covers: Vec<String>,
    /// The role under test, for suites with roles (AHP: `backend` or
    /// `harness`); a claim names one role's vectors. `None` for Agent Hooks.
    pub role: Option<String>,
}

// Lets views over a run's vectors take the run's own items (which lend
// their meta) or bare metas alike.
impl AsRef<VectorMeta> for VectorMeta {
    fn as_ref(&self) -> &VectorMeta {
        self
    }
}

/// A vector of a run as the views of the run (the terminal, `events.jsonl`)
/// see it: its meta, while the run has it. A run that keeps only where each
/// vector is (a plan of a hundred thousand vectors) has a vector's meta from
/// the moment it is read for its run until its result is reported.
pub trait VectorView {
    /// The vector's meta, or `None` when the run does not have it now.
    fn view(&self) -> Option<std::borrow::Cow<'_, VectorMeta>>;
}

impl VectorView for VectorMeta {
    fn view(&self) -> Option<std::borrow::Cow<'_, VectorMeta>> {
        Some(std::borrow::Cow::Borrowed(self))
    }
}

/// The embedded vector files of a suite, as `(file name, text)`.
pub fn embedded_files(suite: Suite) -> impl Iterator<Item = (&'static str, &'static str)> {
    FILES
        .iter()
        .filter(move |(folder, _, _)| *folder == suite.folder())
        .map(|(_, name, text)| (*name, *text))
}

/// The core's view of a vector file by the members every suite's vectors
/// share: `id`, `title`, `advisory`, `covers`, and `part`, or, for a suite
/// whose vectors carry no part (AHP), the first of their `requirements`
/// (`unassigned` when there is none).
/// `Err` names what is missing.
pub fn meta_of_json(file_name: &str, text: &str) -> Result<VectorMeta, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("{file_name}: not JSON: {e}"))?;
    let string = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(VectorMeta {
        id: string("id").ok_or_else(|| format!("{file_name}: no string `id`"))?,
        title: string("title").ok_or_else(|| format!("{file_name}: no string `title`"))?,
        part: string("part")
            .or_else(|| {
                value
                    .pointer("/requirements/0")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            // Grouping only: a vector naming neither is the suite lint's
            // finding, never a reason to lose the set.
            .unwrap_or_else(|| "unassigned".to_owned()),
        file_name: file_name.to_owned(),
        sha256: digest::digest_value(&value)
            .map_err(|e| format!("{file_name}: cannot be digested: {e}"))?,
        advisory: string("advisory"),
        role: string("role"),
        covers: value
            .get("covers")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
    })
}
