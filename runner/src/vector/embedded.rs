//! The project's vectors (`vectors/0.1/`, `vectors/draft/`), compiled into the
//! binary by `build.rs`. An empty set loads as the "no vectors" error.

use crate::vector::model::SpecVersion;

/// `(spec, file name, text)` of every embedded vector, sorted by file name.
const FILES: &[(&str, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/embedded_vectors.rs"));

/// The embedded vector files of one spec version, as `(file name, text)`.
pub fn files(spec: SpecVersion) -> impl Iterator<Item = (&'static str, &'static str)> {
    FILES
        .iter()
        .filter(move |(s, _, _)| *s == spec.as_str())
        .map(|(_, name, text)| (*name, *text))
}
