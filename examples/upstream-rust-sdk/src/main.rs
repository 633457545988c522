//! `upstream-rust-sdk-host`: the host over stdio (`ctk-harness/1`), for
//! `ctk run --declaration examples/upstream-rust-sdk/host.json -- <this binary>`.

use upstream_rust_sdk_host::UpstreamSdkHost;

fn main() {
    // The crate's isolation turns a panicking interceptor, resolver or
    // redactor into its failure deny; this host panics on purpose for a
    // raised callback, so keep the log to one line each.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("upstream-rust-sdk-host: isolated panic: {info}");
    }));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("upstream-rust-sdk-host: cannot start the tokio runtime: {e}");
            std::process::exit(3);
        }
    };
    let served = runtime.block_on(ctk_agent_hooks_adapter::serve_stdio(UpstreamSdkHost::new()));
    // A read of stdin may still be pending: exit rather than wait for it.
    std::process::exit(match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("upstream-rust-sdk-host: {e}");
            1
        }
    });
}
