//! Agent Hooks Protocol (AHP) 0.1 for agent-hooks-ctk: the wire messages,
//! the portable registration document, and static validation.
//!
//! AHP is JSON-RPC 2.0 between an agent harness and external control
//! backends: `hooks/intercept` (a request that may return one `deny`) and
//! `hooks/observe` (a notification), over stdio or HTTP. This crate is the
//! foundation the AHP suite builds on:
//! - [`wire`]: typed messages and the reserved error codes;
//! - [`registration`]: the portable registration document and its loader;
//! - [`validate`]: the project's schemas plus the rules JSON Schema cannot
//!   express (id echo, unique backend ids, stdio framing, ...), each
//!   reported as a [`validate::Finding`] with a JSON pointer and a rule id;
//! - [`version`]: the one line type ([`version::AhpLine`]), the wire
//!   version `"0.1"` and revision `0.1.0-draft.1`;
//! - [`draft`]: the mutable draft line's differences as data (its schemas
//!   under `schemas/ahp/draft/` and the tables read from them).

pub mod draft;
pub mod json;
pub mod registration;
pub mod schema;
pub mod validate;
pub mod version;
pub mod wire;
