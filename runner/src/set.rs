//! The released vector sets, as the core sees them ([`VectorMeta`], from
//! `ctk-core`): what `ctk claim` compares a report's vectors with. Each
//! suite's own loader says what its vectors are; this module only asks it.

use std::sync::OnceLock;

pub use ctk_core::set::*;
use ctk_core::suite::Suite;

/// The released suite's vectors as the core sees them, loaded once per
/// process. `Err` carries why the set does not load, which only a broken
/// build can cause.
pub fn released(suite: Suite) -> Result<&'static [VectorMeta], String> {
    static SETS: [OnceLock<Result<Vec<VectorMeta>, String>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let slot = Suite::ALL
        .iter()
        .position(|s| *s == suite)
        .map(|i| &SETS[i])
        .ok_or_else(|| format!("no released set for {}", suite.wire()))?;
    slot.get_or_init(|| match suite {
        Suite::AgentHooks(spec) => ctk_agent_hooks_suite::vector::embedded::released_metas(spec),
        Suite::Ahp(_) => embedded_files(suite)
            .map(|(name, text)| meta_of_json(name, text))
            .collect(),
    })
    .as_deref()
    .map_err(Clone::clone)
}
