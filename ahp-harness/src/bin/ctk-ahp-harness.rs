//! `ctk-ahp-harness`: the reference AHP 0.1 harness, speaking the
//! `ctk-ahp-adapter/1` contract on stdin/stdout (diagnostics on stderr).
//!
//! Exit status: 0 after `shutdown` or EOF on stdin; 2 for a usage error.
//! SIGTERM and SIGINT kill every backend process and exit 143 / 130.

use std::process::ExitCode;

use ctk_ahp_harness::{adapter, process, ADAPTER};

// A current-thread runtime: backend processes are started from the main
// thread, so the kernel's parent-death signal (see `process`) fires exactly
// when this process dies.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    if let Some(arg) = std::env::args().nth(1) {
        let usage = format!(
            "usage: ctk-ahp-harness\n\nThe reference AHP 0.1 harness. Speaks {ADAPTER} (JSON-RPC 2.0, one message per \
             line) on stdin/stdout; see ahp-harness/README.md."
        );
        return if arg == "--help" || arg == "-h" {
            println!("{usage}");
            ExitCode::SUCCESS
        } else if arg == "--version" || arg == "-V" {
            println!("ctk-ahp-harness {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        } else {
            eprintln!("ctk-ahp-harness: unexpected argument {arg:?}\n{usage}");
            ExitCode::from(2)
        };
    }
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
    adapter::serve(tokio::io::stdin(), tokio::io::stdout()).await;
    process::kill_all();
    ExitCode::SUCCESS
}
