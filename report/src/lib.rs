//! Reports of agent-hooks-ctk, whatever the protocol: the model, building
//! it from the core's outcomes, pure renderers (terminal text, Markdown,
//! HTML, JUnit, JSON, the badge), and the `verify`, `claim`, `merge` and
//! baseline rules that read a report back.
//!
//! It depends on `ctk-core` alone, never on a suite: what a claim needs of
//! a suite (its released vectors) the caller hands in
//! ([`claim::ReleasedSets`]), so cargo itself keeps the report code
//! protocol-neutral. Nothing here prints.

mod errors;

pub use errors::ReportError;

pub mod badge;
pub mod baseline;
pub mod build;
pub mod claim;
pub mod entries;
pub mod events;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod merge;
pub mod model;
pub mod mutation;
pub mod rules;
pub mod verify;
