//! The reference host as a stdio host: serves `ReferenceHost` on stdin and
//! stdout (`agent-hooks/adapter/PROTOCOL.md`); stderr is its log.
//!
//! `--freedoms all|none|ID,...` makes it take, at each place the text leaves
//! open (`spec/0.1/freedoms.json`), the other allowed choice
//! (`ctk_agent_hooks_reference_host::freedoms`). An id the catalog does not know ends it
//! with exit status 2 before it reads anything.
//!
//! `--declaration FILE` makes it run as the host that document declares
//! (`ReferenceHost::with_declaration`): a floor host, a tool router or a host
//! with a model and no tools (`agent-hooks/reference-host/surfaces/`). A document it
//! cannot run as ends it with exit status 2 before it reads anything.

use ctk_agent_hooks_reference_host::freedoms::{Freedom, FreedomHost, Freedoms, Spacing};
use ctk_agent_hooks_reference_host::ReferenceHost;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const USAGE: &str =
    "usage: ctk-reference-host [--freedoms all|none|ID[,ID...]] [--declaration FILE]";

/// The host the arguments ask for: its freedoms and, with `--declaration`,
/// the surface it runs as.
fn from_args() -> Result<(Freedoms, ReferenceHost), String> {
    let mut args = std::env::args().skip(1);
    let mut freedoms = Freedoms::default();
    let mut host = ReferenceHost::new();
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            return Err(USAGE.to_owned());
        }
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), value.to_owned()),
            _ if arg == "--freedoms" || arg == "--declaration" => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))?;
                (arg.clone(), value)
            }
            _ => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
        };
        match flag.as_str() {
            "--freedoms" => freedoms = Freedoms::parse(&value).map_err(|e| e.to_string())?,
            "--declaration" => {
                let text = std::fs::read_to_string(&value).map_err(|e| format!("{value}: {e}"))?;
                let document = serde_json::from_str(&text).map_err(|e| format!("{value}: {e}"))?;
                host = ReferenceHost::with_declaration(document)
                    .map_err(|e| format!("{value}: {e}"))?;
            }
            _ => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
        }
    }
    Ok((freedoms, host))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (freedoms, host) = match from_args() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ctk-reference-host: {e}");
            std::process::exit(2);
        }
    };
    // Behavioural readings live in the emitter: set once, before anything runs.
    ctk_agent_hooks_reference_host::readings::set(freedoms.readings());
    let served = if freedoms.is_empty() {
        ctk_agent_hooks_adapter::serve_stdio(host).await
    } else {
        let spaced = freedoms.has(Freedom::Whitespace);
        let host = FreedomHost::new(host, freedoms);
        if spaced {
            serve_spaced(host).await
        } else {
            ctk_agent_hooks_adapter::serve_stdio(host).await
        }
    };
    let code = match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("ctk-reference-host: {e}");
            1
        }
    };
    // Exit at once: tokio's stdin reader may still be blocked in a read.
    std::process::exit(code);
}

/// Serve `host` with every line it writes re-spelled by [`Spacing`]: the
/// link writes into a pipe, and a second task copies each line to stdout.
async fn serve_spaced<H: ctk_agent_hooks_adapter::HostAdapter>(
    host: H,
) -> Result<(), ctk_agent_hooks_adapter::ServeError> {
    let (link_end, copy_end) = tokio::io::duplex(1 << 16);
    let copier = async move {
        let mut lines = BufReader::new(copy_end).lines();
        let mut out = tokio::io::stdout();
        while let Some(line) = lines.next_line().await? {
            out.write_all(Spacing::respace(&line).as_bytes()).await?;
            out.write_all(b"\n").await?;
            out.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    };
    let serving = async move {
        let served = ctk_agent_hooks_adapter::serve(host, tokio::io::stdin(), link_end).await;
        // `link_end` is dropped with serve's writer: the copier sees the end.
        served
    };
    let (served, copied) = tokio::join!(serving, copier);
    served?;
    copied.map_err(ctk_agent_hooks_adapter::ServeError::Write)
}
