//! The suites the kit certifies against: a protocol and one of its lines.
//!
//! The kit's core (vector sets and their digests, reports, claims,
//! coverage, the CLI frame, the terminal) works on any suite; each suite
//! owns its vector model, its engine and its assertions: Agent Hooks in the
//! `ctk-agent-hooks-suite` crate, AHP in the `ctk-ahp-*` crates.

use serde::Deserialize;

/// The lines of Agent Hooks a vector can belong to (its `spec_versions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
pub enum SpecVersion {
    /// `agent-hooks/0.1`.
    #[serde(rename = "0.1")]
    V0_1,
    /// The project's draft; never claimable.
    #[serde(rename = "draft")]
    Draft,
}

impl SpecVersion {
    /// The short name used on the command line and in folders.
    pub fn as_str(self) -> &'static str {
        match self {
            SpecVersion::V0_1 => "0.1",
            SpecVersion::Draft => "draft",
        }
    }

    /// The wire string, e.g. `agent-hooks/0.1`.
    pub fn wire(self) -> &'static str {
        match self {
            SpecVersion::V0_1 => "agent-hooks/0.1",
            SpecVersion::Draft => "agent-hooks/draft",
        }
    }

    /// Parse the short or wire form.
    pub fn parse(text: &str) -> Option<Self> {
        match text.strip_prefix("agent-hooks/").unwrap_or(text) {
            "0.1" => Some(SpecVersion::V0_1),
            "draft" => Some(SpecVersion::Draft),
            _ => None,
        }
    }
}

/// The protocols the kit certifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// Agent Hooks: the in-process interception contract (`agent-hooks/*`).
    AgentHooks,
    /// AHP, the Agent Hooks Protocol: JSON-RPC between an agent harness and
    /// control backends (`agent-hooks-protocol/*`).
    Ahp,
}

impl Protocol {
    /// The name reports carry in `protocol`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::AgentHooks => "agent-hooks",
            Protocol::Ahp => "agent-hooks-protocol",
        }
    }

    /// Parse [`Protocol::as_str`].
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "agent-hooks" => Some(Protocol::AgentHooks),
            "agent-hooks-protocol" => Some(Protocol::Ahp),
            _ => None,
        }
    }
}

/// A line of AHP: the one type that names it everywhere (the suite, both
/// reference implementations, the reports and the CLI). The wire crate
/// re-exports it with the line's constants, and the draft's differences
/// are data (`schemas/ahp/draft/`), not a second model of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AhpLine {
    /// Wire `protocolVersion` `"0.1"`, revision `0.1.0-draft.1`: released.
    V0_1,
    /// Wire `"draft"`: mutable; known so it can be run for information and
    /// refused by a 0.1 backend, never claimable.
    Draft,
}

impl AhpLine {
    /// Both lines, released first.
    pub const ALL: [AhpLine; 2] = [AhpLine::V0_1, AhpLine::Draft];

    /// The wire `protocolVersion` every params object and success result
    /// of this line holds (matched exactly, AHP spec 7.2).
    pub const fn wire_version(self) -> &'static str {
        match self {
            AhpLine::V0_1 => "0.1",
            AhpLine::Draft => "draft",
        }
    }

    /// The artifact revision a report and a vector's `ahp` name for this
    /// line (spec 7.2: "the exact schema revision"); the draft has no
    /// frozen revision, so it is named by its wire literal.
    pub const fn revision(self) -> &'static str {
        match self {
            AhpLine::V0_1 => "0.1.0-draft.1",
            AhpLine::Draft => "draft",
        }
    }

    /// The line whose wire `protocolVersion` is exactly `wire`, if any
    /// (`"0.1.0"` is not `"0.1"`).
    pub fn from_wire(wire: &str) -> Option<AhpLine> {
        AhpLine::ALL.into_iter().find(|l| l.wire_version() == wire)
    }

    /// The line whose [`AhpLine::revision`] is exactly `revision` (what a
    /// vector names in `ahp`), if any.
    pub fn from_revision(revision: &str) -> Option<AhpLine> {
        AhpLine::ALL.into_iter().find(|l| l.revision() == revision)
    }

    /// Whether a conformance claim may name this line: only a released
    /// one.
    pub const fn is_claimable(self) -> bool {
        matches!(self, AhpLine::V0_1)
    }
}

/// A protocol and one of its lines: what a run, a report and a claim are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suite {
    /// An Agent Hooks line.
    AgentHooks(SpecVersion),
    /// An AHP line.
    Ahp(AhpLine),
}

impl Suite {
    /// Every suite, in a stable order.
    pub const ALL: [Suite; 4] = [
        Suite::AgentHooks(SpecVersion::V0_1),
        Suite::AgentHooks(SpecVersion::Draft),
        Suite::Ahp(AhpLine::V0_1),
        Suite::Ahp(AhpLine::Draft),
    ];

    /// The protocol.
    pub fn protocol(self) -> Protocol {
        match self {
            Suite::AgentHooks(_) => Protocol::AgentHooks,
            Suite::Ahp(_) => Protocol::Ahp,
        }
    }

    /// The string a report carries in `spec`, e.g. `agent-hooks/0.1` or
    /// `agent-hooks-protocol/0.1`.
    pub fn wire(self) -> &'static str {
        match self {
            Suite::AgentHooks(v) => v.wire(),
            Suite::Ahp(AhpLine::V0_1) => "agent-hooks-protocol/0.1",
            Suite::Ahp(AhpLine::Draft) => "agent-hooks-protocol/draft",
        }
    }

    /// Parse [`Suite::wire`].
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "agent-hooks-protocol/0.1" => Some(Suite::Ahp(AhpLine::V0_1)),
            "agent-hooks-protocol/draft" => Some(Suite::Ahp(AhpLine::Draft)),
            _ if text.starts_with("agent-hooks/") => {
                SpecVersion::parse(text).map(Suite::AgentHooks)
            }
            _ => None,
        }
    }

    /// Whether a report of this suite can ever back a claim: released lines
    /// only, never a draft.
    pub fn claimable(self) -> bool {
        match self {
            Suite::AgentHooks(v) => v == SpecVersion::V0_1,
            Suite::Ahp(line) => line.is_claimable(),
        }
    }

    /// The folder under `vectors/` (and `spec/`) holding the suite's
    /// project data, e.g. `0.1` or `ahp/0.1`.
    pub fn folder(self) -> &'static str {
        match self {
            Suite::AgentHooks(v) => v.as_str(),
            Suite::Ahp(AhpLine::V0_1) => "ahp/0.1",
            Suite::Ahp(AhpLine::Draft) => "ahp/draft",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suite_round_trips_and_only_released_lines_are_claimable() {
        for suite in Suite::ALL {
            assert_eq!(Suite::parse(suite.wire()), Some(suite), "{}", suite.wire());
            assert_eq!(
                Protocol::parse(suite.protocol().as_str()),
                Some(suite.protocol())
            );
        }
        let claimable: Vec<&str> = Suite::ALL
            .iter()
            .filter(|s| s.claimable())
            .map(|s| s.wire())
            .collect();
        assert_eq!(claimable, ["agent-hooks/0.1", "agent-hooks-protocol/0.1"]);
        assert_eq!(Suite::parse("0.1"), None, "a bare line names no protocol");
        assert_eq!(Suite::parse("agent-hooks-protocol/0.2"), None);
    }

    #[test]
    fn an_ahp_line_is_found_by_its_exact_wire_version_or_revision() {
        assert_eq!(AhpLine::from_wire("0.1"), Some(AhpLine::V0_1));
        assert_eq!(AhpLine::from_wire("draft"), Some(AhpLine::Draft));
        assert_eq!(AhpLine::from_wire("0.1.0"), None);
        assert_eq!(AhpLine::from_wire("0.2"), None);
        assert_eq!(AhpLine::from_revision("0.1.0-draft.1"), Some(AhpLine::V0_1));
        assert_eq!(AhpLine::from_revision("draft"), Some(AhpLine::Draft));
        assert_eq!(AhpLine::from_revision("0.1"), None);
        assert!(AhpLine::V0_1.is_claimable());
        assert!(!AhpLine::Draft.is_claimable());
    }
}
