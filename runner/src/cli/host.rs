//! The only file that names concrete hosts.

use std::sync::Arc;

use ctk_agent_hooks_adapter::StdioHost;

use crate::cli::run::{drive, Job, RunResult};
use crate::cli::transcript::TranscriptDir;
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

/// Drive `job` on the chosen host; with `transcripts`, every vector's stdio
/// exchange is recorded there (`--transcript`).
pub async fn run(
    choice: &HostChoice,
    job: Job,
    transcripts: Option<&Arc<TranscriptDir>>,
    on_event: impl FnMut(&Event) + Send,
) -> Result<RunResult, CliError> {
    match choice {
        #[cfg(feature = "reference-host")]
        HostChoice::Reference => {
            drive(
                ctk_agent_hooks_reference_host::ReferenceHost::new,
                job,
                on_event,
            )
            .await
        }
        // Only the mutation oracle builds the library without the feature,
        // and it never runs the CLI.
        #[cfg(not(feature = "reference-host"))]
        HostChoice::Reference => Err(CliError::Usage(UsageError(
            "this ctk was built without the bundled reference host: give a host command after `--`"
                .into(),
        ))),
        HostChoice::Stdio { command, isolate } => {
            let Some((program, args)) = command.split_first() else {
                return Err(CliError::Usage(UsageError(
                    "the host command after `--` is empty".into(),
                )));
            };
            let builder = StdioHost::builder(program)
                .args(args)
                .vector_timeout(job.vector_timeout)
                .isolate(*isolate);
            match transcripts {
                Some(dir) => {
                    let dir = Arc::clone(dir);
                    drive(move || dir.harness(builder.clone()), job, on_event).await
                }
                None => drive(move || builder.clone().build(), job, on_event).await,
            }
        }
    }
}
