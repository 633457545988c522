//! The entry point: run vectors against a target and get one outcome each.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::assert::{check, AssertionFailure};
use crate::driver;
use crate::error::LinkError;
use crate::record::RunRecord;
use crate::vector::{BindingSel, LifecycleSel, Vector};

/// A stdio lifecycle (spec 17.2, 17.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// One process for a whole vector, many messages.
    Persistent,
    /// One process per message, stdin closed after it.
    PerEvent,
}

/// A stdio backend command, run directly (no shell).
#[derive(Debug, Clone)]
pub struct StdioCommand {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its lifecycle.
    pub lifecycle: Lifecycle,
    /// Its working directory (the kit's own when `None`).
    pub cwd: Option<PathBuf>,
    /// Extra environment (the kit's environment is inherited).
    pub env: Vec<(OsString, OsString)>,
}

/// What the suite runs against.
#[derive(Debug, Clone)]
pub enum Target {
    /// A stdio command.
    Stdio(StdioCommand),
    /// An HTTP endpoint (every message is one POST to `url`).
    Http {
        /// The endpoint URL.
        url: String,
    },
}

impl Target {
    /// Whether every vector reaches the same backend process: a URL is one
    /// server all of a run's vectors share, where a stdio command is started
    /// for each vector. Under `--jobs`, vectors against a shared backend run
    /// one at a time.
    pub fn shared_by_every_vector(&self) -> bool {
        matches!(self, Target::Http { .. })
    }

    /// `stdio` or `http`, for reports.
    pub fn binding(&self) -> &'static str {
        match self {
            Target::Stdio(_) => "stdio",
            Target::Http { .. } => "http",
        }
    }

    /// `persistent`, `per_event`, or `None` for HTTP, for reports.
    pub fn lifecycle(&self) -> Option<Lifecycle> {
        match self {
            Target::Stdio(c) => Some(c.lifecycle),
            Target::Http { .. } => None,
        }
    }

    fn applies(&self, v: &Vector) -> Result<(), String> {
        let (binding_ok, lifecycle_ok) = match self {
            Target::Stdio(c) => (
                v.binding != BindingSel::Http,
                matches!(
                    (v.lifecycle, c.lifecycle),
                    (LifecycleSel::Any, _)
                        | (LifecycleSel::Persistent, Lifecycle::Persistent)
                        | (LifecycleSel::PerEvent, Lifecycle::PerEvent)
                ),
            ),
            Target::Http { .. } => (v.binding != BindingSel::Stdio, true),
        };
        if !binding_ok {
            return Err(format!(
                "the vector is for binding {:?}, the target is {}",
                v.binding,
                self.binding()
            ));
        }
        if !lifecycle_ok {
            return Err(format!(
                "the vector is for lifecycle {:?}, the target is {:?}",
                v.lifecycle,
                self.lifecycle()
            ));
        }
        Ok(())
    }
}

/// Bounds and inputs of a suite run. Every wait the driver makes derives
/// from `step_deadline`: a reply may take up to twice that.
#[derive(Debug, Clone)]
pub struct SuiteConfig {
    /// The deadline of one step (default 5 s); a reply later than twice
    /// this is late, and a per_event process gets this long to exit.
    pub step_deadline: Duration,
    /// The bound on a whole vector (default 120 s); past it the backend is
    /// killed and the outcome is `error`.
    pub vector_timeout: Duration,
    /// How long silence is watched after a notification before the next
    /// step (default 250 ms). Never decisive: every vector ends with a
    /// request whose reply proves the backend read past the notification.
    pub quiet_window: Duration,
    /// The secret the kit hands the backend: HTTP `Authorization: Bearer`,
    /// stdio the environment variable `canary_env`. It must never come back.
    pub canary: String,
    /// The environment variable that carries the canary to stdio backends.
    pub canary_env: String,
    /// The policies the backend's declaration states (see [`crate::policy`]);
    /// vectors naming another policy are skipped.
    pub policies: BTreeSet<String>,
    /// The longest stdout line or HTTP body read (default 1 MiB).
    pub max_line_bytes: usize,
    /// The stdout budget of one process (default 8 MiB); past it reading
    /// stops and the vector fails.
    pub max_stdout_bytes: u64,
    /// How much stderr is kept, from the end (default 8 KiB).
    pub stderr_tail_bytes: usize,
}

impl Default for SuiteConfig {
    fn default() -> Self {
        Self {
            step_deadline: Duration::from_secs(5),
            vector_timeout: Duration::from_secs(120),
            quiet_window: Duration::from_millis(250),
            canary: format!("ctk-canary-{:x}-{:x}", std::process::id(), nanos()),
            canary_env: "CTK_AHP_TOKEN".to_owned(),
            policies: BTreeSet::new(),
            max_line_bytes: 1 << 20,
            max_stdout_bytes: 8 << 20,
            stderr_tail_bytes: 8 << 10,
        }
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// The verdict of one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every expectation was observed to hold.
    Pass,
    /// At least one expectation was observed not to hold.
    Fail,
    /// The vector does not apply (binding, lifecycle, undeclared policy).
    Skip,
    /// The backend or link broke in a way that is no verdict (it cannot
    /// start, cannot be reached, or the vector timed out).
    Error,
}

/// The outcome of one vector: what a report needs, with the evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The vector id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The decision id when the vector is advisory (never gating).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    /// Its requirement ids.
    pub requirements: Vec<String>,
    /// Its clause ids.
    pub covers: Vec<String>,
    /// Its sections.
    pub sections: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it failed (empty unless `fail`).
    pub failures: Vec<AssertionFailure>,
    /// Why it was skipped or errored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the driver observed (absent for skip and for most errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RunRecord>,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
    /// The adapter feature whose absence skipped the vector (harness role
    /// only); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter_feature: Option<String>,
}

impl Outcome {
    fn new(v: &Vector, verdict: Verdict) -> Self {
        Self {
            id: v.id.clone(),
            title: v.title.clone(),
            advisory: v.advisory.clone(),
            requirements: v.requirements.clone(),
            covers: v.covers.clone(),
            sections: v.sections.clone(),
            verdict,
            failures: Vec::new(),
            reason: None,
            record: None,
            elapsed_ms: 0,
            adapter_feature: None,
        }
    }
}

/// Run one vector against `target`.
pub async fn run_vector(vector: &Vector, target: &Target, cfg: &SuiteConfig) -> Outcome {
    let started = std::time::Instant::now();
    if let Err(why) = target.applies(vector) {
        let mut o = Outcome::new(vector, Verdict::Skip);
        o.reason = Some(why);
        return o;
    }
    if let Some(policy) = &vector.policy {
        if !cfg.policies.contains(policy) {
            let mut o = Outcome::new(vector, Verdict::Skip);
            o.reason = Some(format!(
                "the vector needs policy {policy:?}, which the backend does not declare"
            ));
            return o;
        }
    }
    let run = async {
        match target {
            Target::Stdio(cmd) => driver::run_stdio(vector, cmd, cfg).await,
            Target::Http { url } => driver::run_http(vector, url, cfg).await,
        }
    };
    // Dropping the run future on timeout drops the backend, which kills
    // its process group and every process carrying its token.
    let result = match tokio::time::timeout(cfg.vector_timeout, run).await {
        Ok(r) => r,
        Err(_) => Err(LinkError::VectorTimeout {
            ms: u64::try_from(cfg.vector_timeout.as_millis()).unwrap_or(u64::MAX),
        }),
    };
    let mut o = match result {
        Err(e) => {
            let mut o = Outcome::new(vector, Verdict::Error);
            o.reason = Some(e.to_string());
            o
        }
        Ok(record) => {
            let failures = check(vector, &record, &cfg.canary);
            let mut o = Outcome::new(
                vector,
                if failures.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
            );
            o.failures = failures;
            o.record = Some(record);
            o
        }
    };
    o.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    o
}

/// Run `vectors` one after another against `target`; one outcome per
/// vector, in order. Needs a tokio runtime with the time and process
/// drivers enabled (`#[tokio::main]` or [`run_suite_blocking`]).
pub async fn run_suite(vectors: &[Vector], target: &Target, cfg: &SuiteConfig) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(vectors.len());
    for v in vectors {
        out.push(run_vector(v, target, cfg).await);
    }
    out
}

/// [`run_suite`] on a runtime of its own, for callers without one.
pub fn run_suite_blocking(
    vectors: &[Vector],
    target: &Target,
    cfg: &SuiteConfig,
) -> std::io::Result<Vec<Outcome>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(rt.block_on(run_suite(vectors, target, cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_backend_behind_a_url_is_shared_by_every_vector() {
        let url = Target::Http {
            url: "http://127.0.0.1:1/".into(),
        };
        let stdio = Target::Stdio(StdioCommand {
            program: "backend".into(),
            args: Vec::new(),
            lifecycle: Lifecycle::Persistent,
            cwd: None,
            env: Vec::new(),
        });
        assert!(url.shared_by_every_vector());
        assert!(!stdio.shared_by_every_vector());
    }
}
