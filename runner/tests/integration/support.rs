//! What the integration tests share: running the `ctk` binary the way every
//! test expects, and reading its output.

use std::path::Path;
use std::process::{Command, Output};

/// Run the `ctk` binary with `args`. `NO_COLOR` is removed, so a test sees
/// the same output whatever the developer's shell sets: stdout is a pipe,
/// which already turns colour off unless a test asks with `--color always`.
pub(crate) fn ctk(args: &[&str]) -> Output {
    command().args(args).output().expect("the ctk binary runs")
}

/// [`ctk`] from the folder `dir`, for the commands that read a checkout
/// from the current folder when none is given.
pub(crate) fn ctk_in(dir: &Path, args: &[&str]) -> Output {
    command()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the ctk binary runs")
}

/// The `ctk` binary as a command, with the environment [`ctk`] gives it.
pub(crate) fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctk"));
    c.env_remove("NO_COLOR");
    c
}

/// Output bytes as text (lossy: a test prints what it got).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
