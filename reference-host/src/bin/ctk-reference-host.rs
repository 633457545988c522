//! The reference host as a stdio host: serves `ReferenceHost` on stdin and
//! stdout (`harness-protocol/PROTOCOL.md`); stderr is its log.

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let served = ctk_harness_protocol::serve_stdio(ctk_reference_host::ReferenceHost::new()).await;
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
