//! Integration tests of the ctk binary.
