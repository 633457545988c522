//! `ctk-ahp-backend`: the reference AHP 0.1 policy backend of
//! agent-hooks-ctk, over stdio (persistent or per event) or HTTP.
//! `--spec draft` makes it a backend of the upstream mutable draft line
//! instead (wire `protocolVersion` `"draft"`; `ctk_ahp_reference_backend::draft`).
//!
//! Exit status: 0 after a normal end (EOF on stdin, one answered message in
//! per-event mode, SIGTERM/SIGINT or EOF on stdin for HTTP); 1 when the
//! exchange failed (I/O error, no message in per-event mode); 2 for a usage
//! or configuration error (bad flags, unreadable policy, missing token
//! variable, non-loopback address).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::builder::TypedValueParser as _;
use clap::{Parser, Subcommand};
use ctk_ahp_reference_backend::backend::Respond;
use ctk_ahp_reference_backend::freedoms::{self, Freedom, FreedomBackend, FreedomWriter, Freedoms};
use ctk_ahp_reference_backend::http::{self, HttpOptions};
use ctk_ahp_reference_backend::log::Logger;
use ctk_ahp_reference_backend::policy::{Policy, DEFAULT_POLICY_JSON};
use ctk_ahp_reference_backend::stdio::{self, DEFAULT_MAX_FRAME_BYTES};
use ctk_ahp_reference_backend::{AhpLine, Backend};

/// `--spec`: a line named by its wire protocolVersion ("0.1" or "draft";
/// a draft backend gives every other version -32001).
fn spec_parser() -> impl clap::builder::TypedValueParser<Value = AhpLine> {
    // clap lists these values in --help and refuses any other.
    clap::builder::PossibleValuesParser::new(AhpLine::ALL.map(AhpLine::wire_version)).map(
        |wire: String| {
            AhpLine::from_wire(&wire).expect("the possible values are the lines' wire versions")
        },
    )
}

/// The reference AHP 0.1 backend: denies tool calls by a small rule set
/// and otherwise answers with no effect. With --spec draft it speaks the
/// upstream draft line instead of 0.1.
#[derive(Debug, Parser)]
#[command(name = "ctk-ahp-backend", version)]
struct Cli {
    /// The protocol line to speak: "0.1" (the released line) or "draft"
    /// (the upstream mutable draft, wire protocolVersion "draft"). One
    /// process serves one line.
    #[arg(
        long,
        global = true,
        value_parser = spec_parser(),
        default_value = "0.1",
        value_name = "LINE"
    )]
    spec: AhpLine,
    /// A policy file (JSON, format in ahp/reference-backend/README.md); the
    /// built-in default policy when absent.
    #[arg(long, global = true, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Write no diagnostics to stderr.
    #[arg(long, global = true)]
    quiet: bool,
    /// Take the other allowed choice at these places the text leaves open
    /// (`all`, `none`, or backend ids of spec/ahp/0.1/freedoms.json, and
    /// with --spec draft of spec/ahp/draft/freedoms.json too, comma
    /// separated; issue 26).
    #[arg(
        long,
        global = true,
        value_name = "all|none|ID,...",
        default_value = "none"
    )]
    freedoms: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the stdio binding: newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// Process-per-event lifecycle: answer exactly one message, then
        /// exit 0 (default: persistent, answer lines until EOF).
        #[arg(long)]
        per_event: bool,
        /// The longest accepted line, in bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_FRAME_BYTES, value_name = "BYTES")]
        max_frame_bytes: usize,
    },
    /// Serve the HTTP binding on a loopback address; prints the URL to
    /// register as one line on stdout, then serves until SIGTERM, SIGINT
    /// or EOF on stdin.
    Http {
        /// The loopback address to bind (port 0 picks a free port).
        #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
        listen: SocketAddr,
        /// Require `Authorization: Bearer <token>`, the token read from
        /// this environment variable at start.
        #[arg(long, value_name = "NAME")]
        token_env: Option<String>,
        /// The largest accepted request body, in bytes.
        #[arg(long, default_value_t = http::DEFAULT_MAX_BODY_BYTES, value_name = "BYTES")]
        max_body_bytes: usize,
        /// Keep serving when stdin reaches EOF (for a server started with
        /// stdin on /dev/null); SIGTERM and SIGINT still stop it.
        #[arg(long)]
        ignore_stdin: bool,
    },
    /// Print the built-in default policy (a starting point for --policy).
    DefaultPolicy,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut log = Logger { quiet: cli.quiet };
    let policy = match &cli.policy {
        Some(path) => match Policy::from_file(path) {
            Ok(p) => p,
            Err(e) => {
                log.line(&e.to_string());
                return ExitCode::from(2);
            }
        },
        None => Policy::builtin(),
    };
    let line = cli.spec;
    let freedoms = match Freedoms::parse(&cli.freedoms, line) {
        Ok(f) => f,
        Err(e) => {
            log.line(&format!("--freedoms: {e}"));
            return ExitCode::from(2);
        }
    };
    if freedoms.has(Freedom::StderrDiagnostics) {
        log.quiet = true;
    }
    let backend = Backend::with_line(policy, line);
    let stdio_binding = matches!(cli.command, Command::Stdio { .. });
    // The plain backend unless a freedom is taken: the edge reads every
    // message once more, which the default path has no need to pay for.
    let edge = (!freedoms.is_empty()).then(|| {
        Arc::new(FreedomBackend::new(
            backend.clone(),
            freedoms.clone(),
            stdio_binding,
        ))
    });
    match cli.command {
        Command::DefaultPolicy => {
            print!("{DEFAULT_POLICY_JSON}");
            ExitCode::SUCCESS
        }
        Command::Stdio {
            per_event,
            max_frame_bytes,
        } => {
            let output = FreedomWriter::new(std::io::stdout().lock(), freedoms.clone());
            let responder: &dyn Respond = match &edge {
                Some(e) => &**e,
                None => &backend,
            };
            let result = match (per_event, &edge) {
                (true, Some(edge)) => freedoms::stdio::serve_per_event(
                    edge,
                    std::io::stdin().lock(),
                    output,
                    max_frame_bytes,
                    &log,
                ),
                (true, None) => stdio::serve_per_event(
                    responder,
                    std::io::stdin().lock(),
                    output,
                    max_frame_bytes,
                    &log,
                )
                .map(|()| 0),
                (false, _) if freedoms.has(Freedom::PersistentReplyAfterNotifications) => {
                    freedoms::stdio::serve_persistent_batched(
                        responder,
                        std::io::BufReader::new(std::io::stdin()),
                        output,
                        max_frame_bytes,
                        &log,
                    )
                    .map(|()| 0)
                }
                (false, _) => stdio::serve_persistent(
                    responder,
                    std::io::stdin().lock(),
                    output,
                    max_frame_bytes,
                    &log,
                )
                .map(|()| 0),
            };
            match result {
                Ok(status) => ExitCode::from(status),
                Err(e) => {
                    log.line(&e.to_string());
                    ExitCode::from(1)
                }
            }
        }
        Command::Http {
            listen,
            token_env,
            max_body_bytes,
            ignore_stdin,
        } => {
            let bearer_token = match token_env {
                None => None,
                Some(name) => match std::env::var(&name) {
                    Ok(t) if !t.is_empty() => Some(t),
                    _ => {
                        log.line(&format!(
                            "--token-env {name}: the variable is unset or empty; set it to the bearer token clients must send"
                        ));
                        return ExitCode::from(2);
                    }
                },
            };
            let options = HttpOptions {
                max_body_bytes,
                bearer_token,
                finish: edge.as_ref().map(FreedomBackend::http_finish),
                title_case_headers: freedoms.has(Freedom::HttpMessageFraming),
            };
            let responder: Arc<dyn Respond> = match edge {
                Some(e) => e,
                None => Arc::new(backend),
            };
            let code = run_http(responder, listen, options, ignore_stdin, log);
            // Exit at once: a thread may still be blocked reading stdin.
            std::process::exit(code);
        }
    }
}

fn run_http(
    backend: Arc<dyn Respond>,
    listen: SocketAddr,
    options: HttpOptions,
    ignore_stdin: bool,
    log: Logger,
) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            log.line(&format!("cannot start the async runtime: {e}"));
            return 1;
        }
    };
    runtime.block_on(async move {
        let listener = match http::bind_loopback(listen).await {
            Ok(l) => l,
            Err(e) => {
                log.line(&e.to_string());
                return 2;
            }
        };
        let url = match http::url_of(&listener) {
            Ok(u) => u,
            Err(e) => {
                log.line(&format!("cannot read the bound address: {e}"));
                return 1;
            }
        };
        // Before the URL goes out: a client that read it may signal at once.
        let stop = stop_signal(ignore_stdin, log);
        {
            // The URL is the only stdout output of the HTTP mode.
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{url}").and_then(|()| out.flush()).is_err() {
                log.line("cannot write the URL to stdout");
                return 1;
            }
        }
        log.line(&format!("http: serving {url}"));
        http::serve(backend, listener, options, log, stop).await;
        0
    })
}

/// A future that completes on SIGTERM, SIGINT, or (unless `ignore_stdin`)
/// EOF on stdin. The signal handlers are installed by this call, not when the
/// future is first polled: until then a SIGTERM takes the default action and
/// kills the process instead of stopping the server.
fn stop_signal(ignore_stdin: bool, log: Logger) -> impl std::future::Future<Output = ()> {
    let (eof_tx, eof_rx) = tokio::sync::oneshot::channel::<()>();
    if !ignore_stdin {
        // A plain thread, not tokio's stdin: a blocking read must not hold
        // up the runtime's shutdown.
        std::thread::spawn(move || {
            let mut sink = [0u8; 4096];
            let mut stdin = std::io::stdin().lock();
            while matches!(std::io::Read::read(&mut stdin, &mut sink), Ok(n) if n > 0) {}
            let _ = eof_tx.send(());
        });
    }
    let eof = async move {
        if ignore_stdin || eof_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, Signal, SignalKind};
        async fn received(s: Option<Signal>) {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        let term = received(signal(SignalKind::terminate()).ok());
        let int = received(signal(SignalKind::interrupt()).ok());
        async move {
            tokio::select! {
                () = term => log.line("http: SIGTERM"),
                () = int => log.line("http: SIGINT"),
                () = eof => log.line("http: EOF on stdin"),
            }
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => log.line("http: SIGINT"),
                () = eof => log.line("http: EOF on stdin"),
            }
        }
    }
}
