//! The project's vectors (`vectors/0.1/`, `vectors/draft/`), compiled into the
//! binary by `build.rs`. An empty set loads as the "no vectors" error.
//!
//! The embedded set of a spec is its released suite: `ctk claim` accepts a
//! report only when its vectors are exactly these ([`released`]).

use std::sync::OnceLock;

use crate::vector::load::{self, LoadedVector, VectorSource};
use crate::vector::model::SpecVersion;

/// The embedded vector files of one spec version, as `(file name, text)`.
pub fn files(spec: SpecVersion) -> impl Iterator<Item = (&'static str, &'static str)> {
    ctk_core::set::embedded_files(ctk_core::suite::Suite::AgentHooks(spec))
}

/// What the core knows of each vector of a spec's released suite, in file
/// order. Each vector is parsed, checked and dropped in turn, its generated
/// values unexpanded, so asking (every claim check and `report.md` does)
/// never holds the expanded suite: some vectors generate megabytes.
pub fn released_metas(spec: SpecVersion) -> Result<Vec<ctk_core::set::VectorMeta>, String> {
    let metas = files(spec)
        .map(|(name, text)| {
            let path = std::path::PathBuf::from(format!("embedded:{}/{name}", spec.as_str()));
            load::parse_unexpanded(&path, text)
                .map(|v| v.meta())
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    if metas.is_empty() {
        return Err(format!("no vectors embedded for {}", spec.as_str()));
    }
    Ok(metas)
}

/// The released suite of a spec: its embedded vectors, loaded once per
/// process (every `report.md` rendering asks for it). `Err` carries why the
/// set does not load, which only a broken build can cause.
pub fn released(spec: SpecVersion) -> Result<&'static [LoadedVector], String> {
    static SETS: [OnceLock<Result<Vec<LoadedVector>, String>>; 2] =
        [OnceLock::new(), OnceLock::new()];
    let slot = match spec {
        SpecVersion::V0_1 => &SETS[0],
        SpecVersion::Draft => &SETS[1],
    };
    slot.get_or_init(|| load::load(&VectorSource::Embedded(spec)).map_err(|e| e.to_string()))
        .as_deref()
        .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_released_metas_are_those_of_the_loaded_suite() {
        for spec in [SpecVersion::V0_1, SpecVersion::Draft] {
            let loaded: Vec<_> = released(spec)
                .expect("the embedded suite loads")
                .iter()
                .map(LoadedVector::meta)
                .collect();
            assert!(!loaded.is_empty());
            assert_eq!(released_metas(spec).expect("the metas load"), loaded);
        }
    }
}
