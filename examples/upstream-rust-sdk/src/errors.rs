//! Why this host refuses a vector setup.

use agent_hooks::DeclarationError;

/// A `vector/setup` this host cannot honour; the kit reports it as a host
/// error (-32000, phase `setup`) for that one vector.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The setup asks for a wire version the crate does not emit.
    #[error("spec version `{0}` is not emitted by agent-hooks-sdk 0.1.0-beta.3 (it emits {emitted})", emitted = agent_hooks::SPEC_VERSION)]
    UnsupportedSpec(String),
    /// The scenario is not the JSON the kit's scenario grammar describes.
    #[error("the scenario cannot be read: {0}")]
    Scenario(String),
    /// The scenario holds an integer literal beyond 64 bits, which this
    /// host's JSON parser would round (PROTOCOL.md §2.2: refuse, never round).
    #[error("the scenario holds the integer literal {0}, beyond 64 bits: this host cannot represent it exactly and refuses rather than round it")]
    IntegerBeyond64Bits(String),
    /// The crate's loader refused the document this host wrote for a
    /// field-configured setup (a profile, knob or provider it cannot honour).
    #[error("agent-hooks-sdk refused the configuration of this setup: {0}")]
    Configuration(DeclarationError),
}
