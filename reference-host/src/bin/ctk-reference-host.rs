//! The reference host as a stdio host: serves `ReferenceHost` on stdin and
//! stdout (`harness-protocol/PROTOCOL.md`); stderr is its log.
//!
//! `--freedoms all|none|ID,...` makes it take, at each place the text leaves
//! open (`spec/0.1/freedoms.json`), the other allowed choice
//! (`ctk_reference_host::freedoms`). An id the catalog does not know ends it
//! with exit status 2 before it reads anything.

use ctk_reference_host::freedoms::{Freedom, FreedomHost, Freedoms, Spacing};
use ctk_reference_host::ReferenceHost;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const USAGE: &str = "usage: ctk-reference-host [--freedoms all|none|ID[,ID...]]";

fn freedoms_from_args() -> Result<Freedoms, String> {
    let mut args = std::env::args().skip(1);
    let mut freedoms = Freedoms::default();
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--freedoms" => args
                .next()
                .ok_or_else(|| format!("--freedoms needs a value\n{USAGE}"))?,
            _ => match arg.strip_prefix("--freedoms=") {
                Some(v) => v.to_owned(),
                None if arg == "--help" || arg == "-h" => return Err(USAGE.to_owned()),
                None => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
            },
        };
        freedoms = Freedoms::parse(&value).map_err(|e| e.to_string())?;
    }
    Ok(freedoms)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let freedoms = match freedoms_from_args() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ctk-reference-host: {e}");
            std::process::exit(2);
        }
    };
    // Behavioural readings live in the emitter: set once, before anything runs.
    ctk_reference_host::readings::set(freedoms.readings());
    let served = if freedoms.is_empty() {
        ctk_harness_protocol::serve_stdio(ReferenceHost::new()).await
    } else {
        let spaced = freedoms.has(Freedom::Whitespace);
        let host = FreedomHost::new(ReferenceHost::new(), freedoms);
        if spaced {
            serve_spaced(host).await
        } else {
            ctk_harness_protocol::serve_stdio(host).await
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
async fn serve_spaced<H: ctk_harness_protocol::Harness>(
    host: H,
) -> Result<(), ctk_harness_protocol::ServeError> {
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
        let served = ctk_harness_protocol::serve(host, tokio::io::stdin(), link_end).await;
        // `link_end` is dropped with serve's writer: the copier sees the end.
        served
    };
    let (served, copied) = tokio::join!(serving, copier);
    served?;
    copied.map_err(ctk_harness_protocol::ServeError::Write)
}
