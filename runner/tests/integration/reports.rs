//! Report building, rendering (whole strings), verify and claim.
