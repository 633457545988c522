//! Identity (§10.1, §10.2): the provider registry and the `jcs-sha256`
//! canonicaliser.

pub mod jcs;
pub mod provider;
