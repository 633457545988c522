//! `ctk-ahp-harness`: the reference AHP 0.1 harness, speaking the
//! `ctk-ahp-adapter/1` contract on stdin/stdout (diagnostics on stderr).
//! `--spec draft` makes it a harness of the upstream mutable draft line
//! instead (`ctk_ahp_harness::draft`).
//!
//! Exit status: 0 after `shutdown` or EOF on stdin; 2 for a usage error.
//! SIGTERM and SIGINT kill every backend process and exit 143 / 130.

use std::process::ExitCode;

use ctk_ahp_harness::{adapter, process, ADAPTER};
use ctk_ahp_protocol::version::ProtocolLine;

// A current-thread runtime: backend processes are started from the main
// thread, so the kernel's parent-death signal (see `process`) fires exactly
// when this process dies.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let usage = format!(
        "usage: ctk-ahp-harness [--spec 0.1|draft]\n\nThe reference AHP 0.1 harness. Speaks {ADAPTER} (JSON-RPC 2.0, one message per \
         line) on stdin/stdout; see ahp-harness/README.md.\n\n  --spec LINE  the protocol line to speak: \"0.1\" (the released line, the \
         default) or \"draft\" (the upstream mutable draft: protocolVersions [\"draft\"], only \"draft\" registrations, \
         the draft tool.before shape; never claimable)"
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    let line = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => ProtocolLine::V0_1,
        ["--help" | "-h"] => {
            println!("{usage}");
            return ExitCode::SUCCESS;
        }
        ["--version" | "-V"] => {
            println!("ctk-ahp-harness {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        ["--spec", "0.1"] | ["--spec=0.1"] => ProtocolLine::V0_1,
        ["--spec", "draft"] | ["--spec=draft"] => ProtocolLine::Draft,
        _ => {
            eprintln!("ctk-ahp-harness: unexpected arguments {args:?}\n{usage}");
            return ExitCode::from(2);
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        for (kind, code) in [
            (SignalKind::terminate(), 143),
            (SignalKind::interrupt(), 130),
        ] {
            if let Ok(mut s) = signal(kind) {
                tokio::spawn(async move {
                    s.recv().await;
                    process::kill_all();
                    std::process::exit(code);
                });
            }
        }
    }
    adapter::serve_line(tokio::io::stdin(), tokio::io::stdout(), line).await;
    process::kill_all();
    ExitCode::SUCCESS
}
