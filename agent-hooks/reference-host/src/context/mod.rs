//! Contexts: building (§4.1-§4.3), the envelope check (§10.2), the value
//! domain (§4.4) and the resource bounds (§12.3).

pub mod build;
pub mod domain;
pub mod envelope;
