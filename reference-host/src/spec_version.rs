//! The specification versions an emitter can be built for.
//!
//! There is no default: whoever builds an emitter names the version it
//! emits, and the emitter refuses a context stamped with any other version.

use std::fmt;

/// Wire string of the released specification.
pub const SPEC_VERSION_0_1: &str = "agent-hooks/0.1";
/// Wire string of the working draft; never claimed.
pub const SPEC_VERSION_DRAFT: &str = "agent-hooks/draft";
/// Short names of every version this crate supports, released first.
pub const SUPPORTED_SPEC_VERSIONS: [&str; 2] = ["0.1", "draft"];

/// A specification version an emitter emits and validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecVersion {
    /// `agent-hooks/0.1`.
    V0_1,
    /// `agent-hooks/draft`; behaves like 0.1 until draft-only rules land.
    Draft,
}

impl SpecVersion {
    /// The wire string stamped into every context's `spec` member.
    pub fn wire(self) -> &'static str {
        match self {
            SpecVersion::V0_1 => SPEC_VERSION_0_1,
            SpecVersion::Draft => SPEC_VERSION_DRAFT,
        }
    }

    /// The short name used in [`SUPPORTED_SPEC_VERSIONS`].
    pub fn short(self) -> &'static str {
        match self {
            SpecVersion::V0_1 => "0.1",
            SpecVersion::Draft => "draft",
        }
    }

    /// Parse a wire string or a short name; `None` for anything unsupported.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            SPEC_VERSION_0_1 | "0.1" => Some(SpecVersion::V0_1),
            SPEC_VERSION_DRAFT | "draft" => Some(SpecVersion::Draft),
            _ => None,
        }
    }
}

impl fmt::Display for SpecVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wire())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_versions_parse_both_spellings() {
        for short in SUPPORTED_SPEC_VERSIONS {
            let v = SpecVersion::parse(short).expect("supported");
            assert_eq!(v.short(), short);
            assert_eq!(SpecVersion::parse(v.wire()), Some(v));
        }
    }

    #[test]
    fn unknown_versions_are_refused() {
        assert_eq!(SpecVersion::parse("agent-hooks/0.2"), None);
        assert_eq!(SpecVersion::parse(""), None);
    }
}
