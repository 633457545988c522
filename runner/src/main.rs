//! The `ctk` binary: parse, run, exit.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(ctk::cli::main(ctk::cli::args::Cli::parse()))
}
