//! Integration tests of the reference AHP backend: the library core, the
//! binary over stdio (persistent and per event) and HTTP, and its replies
//! checked against the upstream 0.1 fixtures and schemas.

mod core;
mod draft;
mod freedoms;
mod http;
mod kit_validator;
mod stdio;
mod support;
mod upstream;
