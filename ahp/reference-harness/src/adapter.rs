//! The `ctk-ahp-adapter/1` contract on the harness's own stdio: this
//! harness is a [`HarnessAdapter`], and `ctk_ahp_adapter::server::serve`
//! answers the kit for it (`initialize`, `harness/load`,
//! `harness/tool_call`, `harness/tool_calls`, `harness/session`,
//! `shutdown`).

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;

use ctk_ahp_adapter::messages::{AdapterInfo, Refusal, ADAPTER_CONTRACT};
use ctk_ahp_adapter::server::{self, HarnessAdapter};
use ctk_ahp_wire::version::AhpLine;
use ctk_ahp_wire::wire::EventType;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::harness::{Harness, Outcome, ToolCall};

pub use ctk_ahp_adapter::server::MAX_LINE_BYTES;

/// The optional adapter features this harness offers (`initialize`
/// `features`): `parallel-tool-calls` is `harness/tool_calls`.
pub const FEATURES: [&str; 1] = ["parallel-tool-calls"];

impl HarnessAdapter for Harness {
    fn info(&self) -> AdapterInfo {
        AdapterInfo {
            adapter: ADAPTER_CONTRACT.to_owned(),
            name: "ctk-ahp-harness".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol_versions: vec![Harness::line(self).wire_version().to_owned()],
            bindings: vec!["stdio".into(), "http".into()],
            lifecycles: vec!["persistent".into(), "per_event".into()],
            profiles: [
                "base",
                "tool-interception",
                "lifecycle-observation",
                "stdio",
                "http",
            ]
            .map(str::to_owned)
            .to_vec(),
            features: FEATURES.map(str::to_owned).to_vec(),
        }
    }

    fn line(&self) -> AhpLine {
        Harness::line(self)
    }

    async fn load(
        &mut self,
        registration: &[u8],
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    ) -> Result<(), Vec<Refusal>> {
        Harness::load(self, registration, env, cwd)
            .await
            .map_err(|refused| {
                refused
                    .into_iter()
                    .map(|r| Refusal {
                        pointer: r.pointer,
                        reason: r.reason,
                    })
                    .collect()
            })
    }

    fn is_loaded(&self) -> bool {
        Harness::is_loaded(self)
    }

    fn tool_call(&self, call: ToolCall) -> impl Future<Output = Option<Outcome>> {
        Harness::tool_call(self, call)
    }

    fn session_event(&mut self, event: EventType) -> bool {
        Harness::session_event(self, event)
    }

    fn shutdown(&mut self) -> impl Future<Output = ()> {
        Harness::shutdown(self)
    }
}

/// Serve the adapter contract on `input`/`output` until `shutdown` or EOF;
/// every backend is ended before this returns. The released line (0.1).
pub async fn serve(input: impl AsyncRead + Unpin, output: impl AsyncWrite + Unpin) {
    serve_line(input, output, AhpLine::V0_1).await;
}

/// [`serve`] for a harness of `line`: `initialize` declares
/// `protocolVersions` `[line's wire version]`, and `harness/load` accepts
/// only registrations of that line (`ctk-ahp-harness --spec draft` serves
/// [`AhpLine::Draft`]).
pub async fn serve_line(
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin,
    line: AhpLine,
) {
    server::serve(Harness::with_line(line), input, output).await;
}
