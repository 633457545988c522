//! Host declarations (§7.7): one JSON document that states the host's
//! configuration, its surface and its interceptor bindings, loaded through
//! one pipeline whatever the way in.
//!
//! | way in | entry |
//! | --- | --- |
//! | a file | [`Loader::load_path`] (step 1, then the text path) |
//! | JSON text | [`Loader::load_text`] |
//! | a parsed value | [`Loader::load_value`] |
//! | code | [`DeclarationBuilder`], then [`Loader::load_builder`] (serialized, then the text path) |
//!
//! Every way yields the same [`Declaration`], whose emitters are sealed and
//! stamp the contract version on every record. A refusal names exactly one
//! of the eleven [`RefusalClass`]es: the first pipeline step that fails,
//! with all of that step's findings; nothing is narrowed or applied in part.
//!
//! Versions: `agent-hooks-declaration/1.0` under `agent-hooks/0.1`;
//! `agent-hooks-declaration/1.1` (adds the per-binding failure posture
//! `on_error`) under `agent-hooks/draft` only. The `spec` member is
//! required under both (seed 000).

pub mod builder;
pub mod check;
pub mod error;
pub mod kinds;
pub mod load;
pub mod registry;
pub mod resolved;
pub mod text;

#[cfg(test)]
mod tests;

pub use builder::{BindingBuilder, DeclarationBuilder};
pub use error::{DeclarationError, Finding, HostRegistryError, RefusalClass};
pub use load::{Declaration, Loader};
pub use registry::{BindingContext, HostRegistry, HostSurface, KindResolver};
pub use resolved::{OnError, Resolved, ResolvedBinding, ResolvedSurface};

use crate::spec_version::SpecVersion;

/// The declaration contract version of `agent-hooks/0.1`.
pub const DECLARATION_VERSION: &str = "agent-hooks-declaration/1.0";
/// The draft's declaration contract version (adds `on_error`).
pub const DECLARATION_VERSION_DRAFT: &str = "agent-hooks-declaration/1.1";
/// Every declaration version this crate accepts, under some spec version.
pub const SUPPORTED_DECLARATION_VERSIONS: [&str; 2] =
    [DECLARATION_VERSION, DECLARATION_VERSION_DRAFT];

/// A declaration contract version this crate implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclarationVersion {
    /// `agent-hooks-declaration/1.0`.
    V1_0,
    /// `agent-hooks-declaration/1.1`, draft only.
    V1_1,
}

impl DeclarationVersion {
    /// The wire id.
    pub fn as_str(self) -> &'static str {
        match self {
            DeclarationVersion::V1_0 => DECLARATION_VERSION,
            DeclarationVersion::V1_1 => DECLARATION_VERSION_DRAFT,
        }
    }

    /// The spec versions a document of this version may be written for.
    pub fn specs(self) -> &'static [SpecVersion] {
        match self {
            DeclarationVersion::V1_0 => &[SpecVersion::V0_1, SpecVersion::Draft],
            DeclarationVersion::V1_1 => &[SpecVersion::Draft],
        }
    }

    /// Whether a document of this version may be written for `spec`.
    pub fn defined_under(self, spec: SpecVersion) -> bool {
        self.specs().contains(&spec)
    }

    /// The versions a loader implementing `specs` accepts, oldest first.
    pub fn accepted_under(specs: &[SpecVersion]) -> Vec<DeclarationVersion> {
        [DeclarationVersion::V1_0, DeclarationVersion::V1_1]
            .into_iter()
            .filter(|v| specs.iter().any(|s| v.defined_under(*s)))
            .collect()
    }
}
