//! The specification versions an emitter can be built for.
//!
//! There is no default: whoever builds an emitter names the version it
//! emits, and the emitter refuses a context stamped with any other version.

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_strings_are_the_released_and_draft_lines() {
        assert_eq!(SpecVersion::V0_1.wire(), SPEC_VERSION_0_1);
        assert_eq!(SpecVersion::Draft.wire(), SPEC_VERSION_DRAFT);
        assert_eq!(SpecVersion::V0_1.wire(), "agent-hooks/0.1");
        // The supported set the draft's clause d-2-a names, released first.
        assert_eq!(SUPPORTED_SPEC_VERSIONS, ["0.1", "draft"]);
        assert_eq!(SpecVersion::Draft.wire(), "agent-hooks/draft");
    }
}
