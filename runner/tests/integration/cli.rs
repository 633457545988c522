//! The real `ctk` binary.
