//! clap types: the flags as typed, no I/O.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit_code;

/// Certify an Agent Hooks host: run the conformance vectors against it, and
/// write the report a conformance claim cites.
///
/// Start with `ctk run` (the bundled reference host) or
/// `ctk run --declaration host.json -- <your host command>`; then
/// `ctk claim REPORT` prints the CLAIMS.md row.
#[derive(Debug, Parser)]
#[command(
    name = "ctk",
    version,
    about = "Certify an Agent Hooks host: run the conformance vectors against it and write the report a claim cites",
    after_help = exit_code::HELP
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
// One is parsed per process and moved once: the size of `Run` costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run vectors against a host and write reports.
    #[command(after_help = exit_code::HELP)]
    Run(RunArgs),
    /// List the vectors a run would load.
    #[command(after_help = exit_code::LIST_HELP)]
    List(ListArgs),
    /// Check vector, declaration, report or AHP files (a folder stands for its `*.json` files;
    /// for `ahp-message` also its `*.jsonl` transcripts).
    #[command(after_help = exit_code::VALIDATE_HELP)]
    Validate {
        /// What the files are.
        kind: ValidateKind,
        /// The files, or folders of `*.json` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Clause catalog replacing the embedded one for the spec it names
        /// (vectors only; repeatable).
        #[arg(long)]
        clauses: Vec<PathBuf>,
    },
    /// Print the clause × vector matrix; fails on uncovered MUST clauses.
    #[command(after_help = COVERAGE_HELP)]
    Coverage(CoverageArgs),
    /// Print the CLAIMS.md row of a report, or refuse.
    #[command(after_help = exit_code::CLAIM_HELP)]
    Claim {
        /// The report.json to claim from.
        report: PathBuf,
    },
    /// The bundled reference AHP backend on this process's stdio: what
    /// `ctk run --protocol ahp --role backend` runs when given no backend.
    #[command(name = "ahp-backend")]
    AhpBackend {
        /// The binding.
        #[command(subcommand)]
        binding: AhpBackendBinding,
    },
    /// The bundled reference AHP harness, speaking the `ctk-ahp-adapter/1`
    /// contract on this process's stdio: what `ctk run --protocol ahp
    /// --role harness` runs when given no adapter command.
    #[command(name = "ahp-harness")]
    AhpHarness {
        /// The AHP line to speak: "0.1" (default) or "draft" (the upstream
        /// mutable draft; what `ctk run --protocol ahp --role harness
        /// --spec draft` runs).
        #[arg(long, value_enum, default_value = "0.1")]
        spec: SpecArg,
    },
    /// Build the interoperability matrix from reports (one column per
    /// implementation) and a triage file classifying every failure.
    #[command(after_help = exit_code::MATRIX_HELP)]
    Matrix {
        /// The report.json files, one per implementation and suite.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// The triage file (`ctk-triage/1`) classifying every failure.
        #[arg(long)]
        triage: PathBuf,
        /// Compare with this published matrix instead of printing.
        #[arg(long)]
        check: Option<PathBuf>,
        /// Also write the matrix as a self-contained HTML page to this file.
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// Render a report as one self-contained HTML page (no network, no
    /// external assets): the per-part matrix, every failure with its diff,
    /// every error with the host's stderr, the surface, the claim row or why
    /// none, and the digests.
    #[command(after_help = RENDER_HELP)]
    Report {
        /// The report.json to render.
        report: PathBuf,
        /// Render HTML (the one format so far; required so that another can follow).
        #[arg(long, required = true)]
        html: bool,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Render the mutation report of the reference host (the results file
    /// `reports/mutation/render.py --results` writes) as one self-contained
    /// HTML page: both suites' scores, the per-module table, the missed
    /// mutants (known survivors marked) and the equivalents with reasons.
    #[command(after_help = MUTATION_HELP)]
    Mutation {
        /// The results.json to render.
        results: PathBuf,
        /// Render HTML (the one format so far; required so that another can follow).
        #[arg(long, required = true)]
        html: bool,
        /// The known survivors (reports/mutation/survivors.txt), to mark them.
        #[arg(long)]
        survivors: Option<PathBuf>,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Render a report's shields-style SVG badge: pass/applicable and the
    /// spec line; a failing, draft or unclaimable report says so in words.
    #[command(after_help = RENDER_HELP)]
    Badge {
        /// The report.json to render.
        report: PathBuf,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Write a standalone Python script (standard library only) that
    /// replays one vector's recorded stdio exchange against a host command
    /// and prints where the host diverged: `python3 repro.py -- <host command>`.
    Repro(ReproArgs),
    /// Merge the reports of `ctk run --partition` shards into the report of
    /// the whole run (report.json on stdout, or the reports in --report-dir).
    #[command(after_help = MERGE_HELP)]
    Merge {
        /// The shards' report.json files.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Write report.json, report.md and junit.xml here instead.
        #[arg(long)]
        report_dir: Option<PathBuf>,
    },
    /// Expected-failure baselines for `ctk run --baseline`.
    Baseline {
        /// What to do.
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// Recompute every digest of a report.
    #[command(after_help = exit_code::VERIFY_HELP)]
    Verify {
        /// The report.json to verify.
        report: PathBuf,
        /// Check vector digests against this folder (default: the embedded
        /// set, when the report was run from it).
        #[arg(long)]
        vectors: Option<PathBuf>,
    },
}

/// Exit codes of `ctk report` and `ctk badge`.
pub const RENDER_HELP: &str = "Exit codes:\n  0  rendered (a report that does not verify is rendered too, and says so)\n  2  the report cannot be read, is not a report, or the output cannot be written";

/// Exit codes of `ctk mutation`.
pub const MUTATION_HELP: &str = "Exit codes:\n  0  rendered\n  2  the results or survivors file cannot be read or is not one (the error names the file and the JSON pointer or line), or the output cannot be written";

/// Exit codes of `ctk merge`.
pub const MERGE_HELP: &str = "Exit codes:\n  0  merged, and the merged run passes (as ctk run's exit code would say)\n  1  merged, and a gating vector failed or a baseline entry is stale or expired\n  2  a report cannot be read, does not verify, or the shards are not of one run (mismatched or overlapping)\n  3  merged, and a vector ended in a host or harness error";

/// Exit codes of `ctk baseline update`.
pub const BASELINE_HELP: &str = "Exit codes:\n  0  the baseline was written\n  2  the report cannot be read, or new failures need --owner and --expires";

/// `ctk baseline`.
#[derive(Debug, Clone, Subcommand)]
pub enum BaselineCommand {
    /// Write a baseline of a report's current gating failures (entries that
    /// already excused a failure are kept as they were).
    #[command(after_help = BASELINE_HELP)]
    Update {
        /// The report.json whose failures to write.
        #[arg(long)]
        report: PathBuf,
        /// Owner of the new entries.
        #[arg(long)]
        owner: Option<String>,
        /// Expiry date of the new entries (YYYY-MM-DD, the last day they hold).
        #[arg(long)]
        expires: Option<String>,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// Exit codes of `ctk coverage`.
pub const COVERAGE_HELP: &str = "Exit codes:\n  0  every MUST clause is covered by a vector, or marked not vector-testable with a unit test that pins it; no finding is an error\n  1  at least one error finding (printed with the matrix)\n  2  usage or input error (unreadable catalog or vectors, zero vectors)";

/// Output of `ctk coverage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CoverageFormat {
    /// A Markdown table.
    Markdown,
    /// JSON.
    Json,
}

/// `ctk coverage`.
#[derive(Debug, Clone, Args)]
pub struct CoverageArgs {
    /// The protocol whose catalog and vectors are matched.
    #[arg(long, value_enum, default_value = "agent-hooks")]
    pub protocol: ProtocolArg,
    /// Spec version.
    #[arg(long, value_enum, default_value = "0.1")]
    pub spec: SpecArg,
    /// Vector folder (default: the project's embedded vectors for the spec).
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Clause catalog (default: the embedded `spec/<spec>/clauses.json`).
    #[arg(long)]
    pub clauses: Option<PathBuf>,
    /// Checkout to look unit tests up in (default: the current directory
    /// when it holds `Cargo.toml` and `runner/`; otherwise none).
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: CoverageFormat,
    /// Also check a minimal surface §3.2 allows (repeatable; `all` is the
    /// three): every MUST clause that applies to it (the catalog's `needs`)
    /// must be covered by a vector that applies to it. Agent Hooks 0.1 only.
    #[arg(long = "surface", value_enum)]
    pub surfaces: Vec<SurfaceArg>,
}

/// A minimal surface of `ctk coverage --surface`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SurfaceArg {
    /// agent_startup, input, output, agent_shutdown; no capability.
    Floor,
    /// The floor and the tool points; `tool_calls`.
    #[value(name = "tool-router")]
    ToolRouter,
    /// The floor and the model points; `model_calls`.
    Model,
    /// All three.
    All,
}

/// What `ctk validate` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateKind {
    /// Vector files (schema plus lint).
    Vector,
    /// Host declaration documents.
    Declaration,
    /// report.json files.
    Report,
    /// `--baseline` files (`schemas/baseline.schema.json`, real dates, one
    /// entry per vector).
    Baseline,
    /// AHP 0.1 portable registration documents (schema plus the
    /// registration rules: unique ids, no duplicate subscription, https).
    #[value(name = "ahp-registration")]
    AhpRegistration,
    /// AHP 0.1 messages: a `.json` message, or a `.jsonl` stdio transcript
    /// checked line by line (framing, id echo between request and reply).
    #[value(name = "ahp-message")]
    AhpMessage,
}

/// Spec version on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpecArg {
    /// agent-hooks/0.1.
    #[value(name = "0.1")]
    V0_1,
    /// The project's draft (never claimable).
    Draft,
}

impl SpecArg {
    /// The AHP line this `--spec` selects (its values are the lines' wire
    /// `protocolVersion`s).
    pub fn ahp_line(self) -> crate::suite::AhpLine {
        match self {
            SpecArg::V0_1 => crate::suite::AhpLine::V0_1,
            SpecArg::Draft => crate::suite::AhpLine::Draft,
        }
    }
}

/// What `--no-tests` does with a run in which no vector runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NoTests {
    /// Exit 4: a green result must mean something was checked.
    Fail,
    /// Print a warning and exit 0.
    Warn,
    /// Exit 0 silently.
    Pass,
}

/// How `ctk ahp-backend` serves.
#[derive(Debug, Clone, Subcommand)]
pub enum AhpBackendBinding {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// Answer exactly one message, then exit (default: persistent).
        #[arg(long)]
        per_event: bool,
        /// The AHP line to speak: "0.1" (default) or "draft" (the upstream
        /// mutable draft; what `ctk run --protocol ahp --role backend
        /// --spec draft` runs).
        #[arg(long, value_enum, default_value = "0.1")]
        spec: SpecArg,
    },
    /// A scripted backend of the harness-role suite (the kit writes these
    /// into registrations): answers as the script says, logs what it got.
    Script {
        /// The script.
        #[arg(long)]
        script: PathBuf,
        /// Where every received frame is logged.
        #[arg(long)]
        log: PathBuf,
        /// Arguments after `--`, accepted and ignored: the no-shell vectors
        /// check them in the logged argv.
        #[arg(last = true)]
        rest: Vec<String>,
    },
}

/// The protocol a run certifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Agent Hooks: a host over the stdio harness protocol, or the bundled reference host.
    AgentHooks,
    /// AHP, the Agent Hooks Protocol (`--role backend`: a control backend;
    /// `--role harness`: an agent harness).
    Ahp,
}

/// The AHP role under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// A control backend: the kit plays the harness.
    Backend,
    /// An agent harness: the kit plays the backends.
    Harness,
}

/// The lifecycle of an AHP stdio backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LifecycleArg {
    /// One process for a whole vector.
    Persistent,
    /// One process per message, stdin closed after it.
    PerEvent,
}

/// When to colour terminal output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Terminal output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines and a summary.
    Human,
    /// report.json on stdout.
    Json,
}

/// Which vectors.
#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    /// Spec version.
    #[arg(long, value_enum, default_value = "0.1")]
    pub spec: SpecArg,
    /// Vector folder (default: the project's embedded vectors for the spec).
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Only vectors of this part (repeatable).
    #[arg(long)]
    pub part: Vec<String>,
    /// Only the vector with this id (repeatable).
    #[arg(long)]
    pub id: Vec<String>,
}

/// `ctk list`.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Which vectors.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show whether each vector applies to this declaration's surface
    /// (Agent Hooks only).
    #[arg(long)]
    pub declaration: Option<PathBuf>,
    /// The protocol whose vectors are listed.
    #[arg(long, value_enum, default_value = "agent-hooks")]
    pub protocol: ProtocolArg,
    /// AHP: only the vectors of this role (default: both roles').
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
}

/// `ctk repro`.
#[derive(Debug, Clone, Args)]
pub struct ReproArgs {
    /// The vector's id.
    pub id: String,
    /// The transcript directory of an earlier `ctk run --transcript DIR`.
    #[arg(long, conflicts_with_all = ["vectors", "declaration"])]
    pub transcript: Option<PathBuf>,
    /// Without --transcript: record the vector now, from this folder
    /// (default: the embedded vectors of --spec), against the host after `--`.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Without --transcript: the spec version of the vector.
    #[arg(long, value_enum, default_value = "0.1")]
    pub spec: SpecArg,
    /// Without --transcript: the host declaration (default: the host's own).
    #[arg(long)]
    pub declaration: Option<PathBuf>,
    /// Where to write the script.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Without --transcript: the host command to record the vector against.
    #[arg(last = true)]
    pub host: Vec<String>,
}

/// `ctk run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Which vectors.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Host declaration stating the surface (default: the host's own).
    #[arg(long)]
    pub declaration: Option<PathBuf>,
    /// Write report.json, report.md and junit.xml here.
    #[arg(long)]
    pub report_dir: Option<PathBuf>,
    /// Terminal output.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Vectors running side by side (default: the available parallelism,
    /// as nextest does; the report keeps vector order whatever the number).
    /// Agent Hooks: one host instance each. AHP: a vector that needs the
    /// subject alone (a backend behind one URL, a short registered
    /// deadline) still runs with nothing beside it. With more than one job,
    /// a harness-role vector that has only its settle window and its
    /// adapter's close left gives its job to the next vector. `--jobs 1`
    /// runs one vector at a time, waits included.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// One host process per vector (stdio hosts).
    #[arg(long)]
    pub isolate: bool,
    /// Record each vector's stdio exchange with the host here, one
    /// `<vector id>.jsonl` per vector (for `ctk repro`).
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// Limit on each of a vector's setup, run and teardown, in milliseconds
    /// (at least 1).
    #[arg(long, default_value_t = 30_000)]
    pub vector_timeout_ms: u64,
    /// What a run in which no vector runs (the filters match nothing, or no
    /// vector applies to the declared surface) does.
    #[arg(long, value_enum, default_value = "fail")]
    pub no_tests: NoTests,
    /// Stop starting vectors after the first gating failure or error; the
    /// vectors not run are reported as errors ("not run").
    #[arg(long, overrides_with = "no_fail_fast")]
    pub fail_fast: bool,
    /// Run every vector whatever fails (the default).
    #[arg(long, overrides_with = "fail_fast")]
    pub no_fail_fast: bool,
    /// Expected-failure baseline (`schemas/baseline.schema.json`): a failure
    /// it names is `expected-fail` and does not fail the run, but the report
    /// is never claimable; a stale or expired entry fails the run.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Run one shard of the selection: `hash:K/N` (by a stable hash of the
    /// vector id) or `count:K/N` (round robin), K from 1; `ctk merge` joins
    /// the shards' reports.
    #[arg(long, value_name = "SCHEME:K/N")]
    pub partition: Option<String>,
    /// Colour the terminal output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Print only failures, errors and the summary (no progress, no passing lines).
    #[arg(long, short)]
    pub quiet: bool,
    /// The protocol to certify.
    #[arg(long, value_enum, default_value = "agent-hooks")]
    pub protocol: ProtocolArg,
    /// AHP: the role under test (required with `--protocol ahp`).
    #[arg(long, value_enum, help_heading = "AHP")]
    pub role: Option<RoleArg>,
    /// AHP: the backend's HTTP endpoint, instead of a command after `--`.
    #[arg(long, help_heading = "AHP")]
    pub url: Option<String>,
    /// AHP: the stdio backend's lifecycle.
    #[arg(long, value_enum, default_value = "persistent", help_heading = "AHP")]
    pub lifecycle: LifecycleArg,
    /// AHP: the implementation's name in the report (default: the command or URL).
    #[arg(long, help_heading = "AHP")]
    pub subject_name: Option<String>,
    /// AHP: the implementation's version in the report (default: `unknown`).
    #[arg(long, help_heading = "AHP")]
    pub subject_version: Option<String>,
    /// AHP: a decision policy the backend states it applies (repeatable);
    /// vectors that expect a policy's decision run only when it is named.
    #[arg(long, help_heading = "AHP")]
    pub policy: Vec<String>,
    /// Host or backend command (stdio); absent: the bundled reference host,
    /// in process (Agent Hooks) or the bundled reference backend (AHP).
    #[arg(last = true)]
    pub host: Vec<String>,
}
