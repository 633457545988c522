//! The reference Agent Hooks host (skeleton: the emitter replaces this).

use std::sync::Arc;

use ctk_harness_protocol::{
    Callbacks, Harness, HarnessError, HarnessErrorKind, HostInfo, Phase, RunRecord, VectorSetup,
};

/// The reference host's own declaration document.
pub const HOST_DECLARATION: &str = include_str!("../host.json");

/// The reference host as a [`Harness`].
#[derive(Debug, Default)]
pub struct ReferenceHost {
    setup: Option<VectorSetup>,
}

impl ReferenceHost {
    /// A reference host with nothing set up.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Harness for ReferenceHost {
    async fn info(&mut self) -> Result<HostInfo, HarnessError> {
        let declaration = serde_json::from_str(HOST_DECLARATION).expect("host.json is valid JSON");
        Ok(HostInfo::new("ctk-reference-host", env!("CARGO_PKG_VERSION"), vec!["agent-hooks/0.1".into()])
            .with_declaration(declaration))
    }
    async fn setup(&mut self, setup: VectorSetup) -> Result<(), HarnessError> {
        self.setup = Some(setup);
        Ok(())
    }
    async fn run(&mut self, _callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, HarnessError> {
        Err(HarnessError::new(Phase::Run, HarnessErrorKind::Host("the reference emitter is not built yet".into())))
    }
    async fn teardown(&mut self) -> Result<(), HarnessError> {
        self.setup = None;
        Ok(())
    }
}
