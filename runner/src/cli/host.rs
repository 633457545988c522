//! The only file that names concrete hosts.

use crate::cli::run::{drive, Job, RunResult};
use crate::cli::CliError;
use crate::errors::UsageError;
use crate::event::Event;

/// Which host a run drives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostChoice {
    /// The bundled reference host, in process.
    Reference,
    /// A host process speaking the stdio protocol.
    Stdio {
        /// Program and arguments.
        command: Vec<String>,
        /// One process per vector.
        isolate: bool,
    },
}

/// Drive `job` on the chosen host.
pub async fn run(
    choice: &HostChoice,
    job: Job,
    on_event: impl FnMut(&Event) + Send,
) -> Result<RunResult, CliError> {
    match choice {
        HostChoice::Reference => drive(ctk_reference_host::ReferenceHost::new, job, on_event).await,
        HostChoice::Stdio { command, .. } => Err(CliError::Usage(UsageError(format!(
            "stdio hosts are not available yet in this build (asked to run {:?}); run without `-- CMD` to use the bundled reference host",
            command.join(" ")
        )))),
    }
}
