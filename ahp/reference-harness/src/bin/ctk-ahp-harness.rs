//! `ctk-ahp-harness`: the reference AHP 0.1 harness, speaking the
//! `ctk-ahp-adapter/1` contract on stdin/stdout (diagnostics on stderr).
//! `--spec draft` makes it a harness of the upstream mutable draft line
//! instead (`ctk_ahp_reference_harness::draft`).
//!
//! `--freedoms all|none|ID,...` takes other allowed choices (issue 26;
//! `ctk_ahp_reference_harness::freedoms`).
//!
//! Exit status: 0 after `shutdown` or EOF on stdin; 2 for a usage error
//! (an unknown or untaken freedom included).
//! SIGTERM and SIGINT kill every backend process and exit 143 / 130.

use std::process::ExitCode;

use ctk_ahp_reference_harness::freedoms::{self, Freedoms};
use ctk_ahp_reference_harness::{adapter, process, ADAPTER};
use ctk_ahp_wire::version::AhpLine;

// A current-thread runtime: backend processes are started from the main
// thread, so the kernel's parent-death signal (see `process`) fires exactly
// when this process dies.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let usage = format!(
        "usage: ctk-ahp-harness [--spec 0.1|draft] [--freedoms all|none|ID,...]\n\nThe reference AHP 0.1 harness. Speaks {ADAPTER} (JSON-RPC 2.0, one message per \
         line) on stdin/stdout; see ahp/reference-harness/README.md.\n\n  --spec LINE  the protocol line to speak: \"0.1\" (the released line, the \
         default) or \"draft\" (the upstream mutable draft: protocolVersions [\"draft\"], only \"draft\" registrations, \
         the draft tool.before shape; never claimable)\n  --freedoms all|none|ID,...  take the other allowed choice at these places \
         the text leaves open (harness-role ids of spec/ahp/0.1/freedoms.json; with --spec draft also of \
         spec/ahp/draft/freedoms.json, less the 0.1 ids it supersedes; issue 26)"
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut line = AhpLine::V0_1;
    let mut freedoms = None;
    let mut rest = args.iter().map(String::as_str);
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        match flag {
            "--help" | "-h" if args.len() == 1 => {
                println!("{usage}");
                return ExitCode::SUCCESS;
            }
            "--version" | "-V" if args.len() == 1 => {
                println!("ctk-ahp-harness {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            "--spec" | "--freedoms" => {
                let Some(value) = inline.or_else(|| rest.next()) else {
                    eprintln!("ctk-ahp-harness: {flag} needs a value\n{usage}");
                    return ExitCode::from(2);
                };
                if flag == "--freedoms" {
                    freedoms = Some(value.to_owned());
                    continue;
                }
                // A line is named by its wire protocolVersion.
                let Some(named) = AhpLine::from_wire(value) else {
                    eprintln!("ctk-ahp-harness: --spec {value:?}: \"0.1\" or \"draft\"\n{usage}");
                    return ExitCode::from(2);
                };
                line = named;
            }
            _ => {
                eprintln!("ctk-ahp-harness: unexpected arguments {args:?}\n{usage}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(text) = freedoms {
        let taken = match Freedoms::parse(&text, line) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("ctk-ahp-harness: --freedoms: {e}");
                return ExitCode::from(2);
            }
        };
        freedoms::install(taken);
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
    adapter::serve_line(tokio::io::stdin(), tokio::io::stdout(), line).await;
    process::kill_all();
    ExitCode::SUCCESS
}
