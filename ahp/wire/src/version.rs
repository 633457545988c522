//! The version strings AHP uses, and which protocol line each one names.
//!
//! AHP carries two identifiers: the wire `protocolVersion` every params
//! object and every success result holds (`"0.1"`, matched exactly, spec
//! 7.2), and the revision of the published artifacts a conformance claim
//! must name (`0.1.0-draft.1`). The upstream `draft` line uses the wire
//! literal `"draft"` and is not wire-compatible with 0.1.

/// The wire `protocolVersion` of the released line (spec 7.2).
pub const WIRE_VERSION: &str = "0.1";

/// The revision of the released schemas, fixtures and requirements that a
/// conformance report must name (spec 7.2: "the exact schema revision").
pub const REVISION: &str = "0.1.0-draft.1";

/// The wire `protocolVersion` of the upstream mutable `draft` line. A 0.1
/// backend answers it with `-32001`; the kit never certifies against it.
pub const DRAFT_WIRE_VERSION: &str = "draft";

/// A protocol line the kit knows by its wire `protocolVersion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProtocolLine {
    /// The released Working Draft: wire `"0.1"`, revision `0.1.0-draft.1`.
    V0_1,
    /// The upstream mutable draft: wire `"draft"`; known so it can be named
    /// and refused, never certified.
    Draft,
}

impl ProtocolLine {
    /// The line whose wire `protocolVersion` is exactly `wire`, if any
    /// (matching is exact: `"0.1.0"` is not `"0.1"`).
    pub fn from_wire(wire: &str) -> Option<ProtocolLine> {
        match wire {
            WIRE_VERSION => Some(ProtocolLine::V0_1),
            DRAFT_WIRE_VERSION => Some(ProtocolLine::Draft),
            _ => None,
        }
    }

    /// The wire `protocolVersion` string of this line.
    pub fn wire(self) -> &'static str {
        match self {
            ProtocolLine::V0_1 => WIRE_VERSION,
            ProtocolLine::Draft => DRAFT_WIRE_VERSION,
        }
    }

    /// The artifact revision a report names for this line (`draft` has no
    /// frozen revision, so it is named by its wire literal).
    pub fn revision(self) -> &'static str {
        match self {
            ProtocolLine::V0_1 => REVISION,
            ProtocolLine::Draft => DRAFT_WIRE_VERSION,
        }
    }

    /// Whether a conformance claim may be made against this line: only a
    /// released line can be claimed.
    pub fn is_claimable(self) -> bool {
        matches!(self, ProtocolLine::V0_1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_matching_is_exact() {
        assert_eq!(ProtocolLine::from_wire("0.1"), Some(ProtocolLine::V0_1));
        assert_eq!(ProtocolLine::from_wire("draft"), Some(ProtocolLine::Draft));
        assert_eq!(ProtocolLine::from_wire("0.1.0"), None);
        assert_eq!(ProtocolLine::from_wire("0.2"), None);
        assert_eq!(ProtocolLine::V0_1.revision(), "0.1.0-draft.1");
        assert!(ProtocolLine::V0_1.is_claimable());
        assert!(!ProtocolLine::Draft.is_claimable());
    }
}
