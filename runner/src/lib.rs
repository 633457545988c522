//! The ctk runner.
