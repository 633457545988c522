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
