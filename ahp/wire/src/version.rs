//! The version strings AHP uses, and which protocol line each one names.
//!
//! AHP carries two identifiers: the wire `protocolVersion` every params
//! object and every success result holds (`"0.1"`, matched exactly, spec
//! 7.2), and the revision of the published artifacts a conformance claim
//! must name (`0.1.0-draft.1`). The upstream `draft` line uses the wire
//! literal `"draft"` and is not wire-compatible with 0.1.

pub use ctk_core::suite::AhpLine;

/// The wire `protocolVersion` of the released line (spec 7.2).
pub const WIRE_VERSION: &str = AhpLine::V0_1.wire_version();

/// The revision of the released schemas, fixtures and requirements that a
/// conformance report must name (spec 7.2: "the exact schema revision").
pub const REVISION: &str = AhpLine::V0_1.revision();

/// The wire `protocolVersion` of the upstream mutable `draft` line. A 0.1
/// backend answers it with `-32001`; the kit never certifies against it.
pub const DRAFT_WIRE_VERSION: &str = AhpLine::Draft.wire_version();
