//! Harness-role vectors (`vectors/ahp/0.1/AHP-H-*.json`, and the draft
//! line's `vectors/ahp/draft/AHP-DH-*.json`, role `harness`): the serde
//! model of `schemas/ahp/harness-vector.schema.json` and its loader. A vector is a registration template whose `"{{backend:X}}"`
//! transports the kit expands to its scripted backends, the scripts of
//! those backends, the tool calls (and session events) the adapter makes
//! the harness perform, and what must be observed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::adapter::ToolOutcome;
use super::script::{Action, Script, MAX_RAW_BYTES};
use crate::error::VectorError;
use crate::vector::{AhpLine, BindingSel, LifecycleSel, Role};

/// A scripted backend's transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendBinding {
    /// A process the harness starts (the kit's scripted backend command).
    Stdio,
    /// A path of the kit's loopback HTTP server.
    Http,
}

/// A stdio lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdioLifecycle {
    /// One process for many messages.
    Persistent,
    /// One process per message.
    PerEvent,
}

/// A backend that cannot be reached on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Launch {
    /// stdio: the command does not exist (launch failure).
    Missing,
    /// HTTP: nothing listens on the port (connection refused).
    Refused,
}

/// One scripted backend of a vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendSpec {
    /// stdio or HTTP.
    pub binding: BackendBinding,
    /// stdio: the lifecycle written into the registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<StdioLifecycle>,
    /// How it answers.
    #[serde(default)]
    pub script: Script,
    /// stdio: extra arguments appended after `--` (they must arrive
    /// verbatim: no shell).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// stdio: give the transport a `cwd` (a fresh folder of the run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cwd: bool,
    /// Make the backend unreachable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<Launch>,
    /// HTTP: require `Authorization: Bearer <canary>` (401 otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bearer: bool,
}

/// The host's own permission setting for a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HostPermission {
    /// The host would run the tool without asking.
    #[default]
    Allow,
    /// The host asks the user first.
    Prompt,
}

/// The tool the harness is asked to call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// The tool name.
    pub name: String,
    /// One of the 0.1 kinds.
    pub kind: String,
    /// The input object.
    pub input: Value,
}

/// What a harness denial must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Denial {
    /// A backend's deny (`synthetic: false`).
    Explicit,
    /// A fail-closed failure (`synthetic: true`).
    Synthetic,
}

/// What one tool call must produce.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallExpect {
    /// The outcome is one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outcome: Vec<ToolOutcome>,
    /// With `denied`: explicit or synthetic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denial: Option<Denial>,
    /// The backends that received `hooks/intercept` for this call, in
    /// arrival order (a retry to the same backend counts once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<String>>,
    /// Backends that must receive a `hooks/intercept` for this call (in
    /// any order, with others): for vectors where [`CallExpect::calls`]
    /// would say too much (a harness may spend a short deadline before the
    /// request reaches the backend).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<String>,
    /// Backends that must receive no `hooks/intercept` for this call (a
    /// notification is allowed: the draft tells uncalled interceptors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_asked: Vec<String>,
    /// The adapter's answer comes within this many ms of the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_answer_ms: Option<u64>,
    /// The answer comes before these backends' plans for this call end
    /// (a late reply was not waited for; a sleeping observer blocked
    /// nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered_before_plan_end: Vec<String>,
    /// The reported reason contains none of these strings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reason_excludes: Vec<String>,
}

/// One thing the adapter is asked to do. Exactly one of `tool_call`,
/// `session`, `parallel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    /// A tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<ToolSpec>,
    /// The call id handed to the harness (`null`: the harness picks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The host's own permission for the tool.
    #[serde(default)]
    pub host_permission: HostPermission,
    /// A lifecycle event: `session.start` or `session.end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// What the tool call must produce.
    #[serde(default)]
    pub expect: CallExpect,
    /// Tool calls made as the parallel calls of one model turn
    /// (`harness/tool_calls`, the adapter feature `parallel-tool-calls`):
    /// each entry a `tool_call` trigger with its own `call_id` and
    /// expectations. The backends' messages are told apart by the call id
    /// their events carry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel: Vec<Trigger>,
}

impl Trigger {
    /// The entry `part` of a parallel trigger, or the trigger itself.
    pub fn part(&self, part: Option<usize>) -> &Trigger {
        part.and_then(|j| self.parallel.get(j)).unwrap_or(self)
    }

    /// Whether it makes tool calls (one, or several in parallel).
    pub fn calls_tools(&self) -> bool {
        self.tool_call.is_some() || !self.parallel.is_empty()
    }
}

/// The most calls one parallel trigger makes.
pub const MAX_PARALLEL: usize = 8;

/// Whether the registration must load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LoadExpect {
    /// It loads.
    #[default]
    Loaded,
    /// The harness refuses it.
    Refused,
    /// Either (the triggers' expectations apply when it loads).
    Either,
}

/// One JSON-pointer predicate on the messages a backend received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestAssert {
    /// The backend.
    pub backend: String,
    /// Only messages of this method (`hooks/intercept`, `hooks/observe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Pointer into the message (absent with `header`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptr: Option<String>,
    /// HTTP: the request header (lowercase) instead of a pointer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Equals this value (`"{{canary}}"` inside a string is the canary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eq: Option<Value>,
    /// With `header: authorization`: the credentials are the scheme
    /// `Bearer` in any case (HTTP schemes are case-insensitive) and then
    /// exactly this token (`{{canary}}` is the canary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer: Option<String>,
    /// Equals what this pointer selects in the same message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eq_ptr: Option<String>,
    /// Present or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<bool>,
    /// JSON type name.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub json_type: Option<String>,
    /// An array containing this value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<Value>,
    /// The backend must have received at least one matching message.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// What must hold for the whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunExpect {
    /// Whether the registration loads.
    #[serde(default)]
    pub load: LoadExpect,
    /// Backends that receive nothing at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub silent: Vec<String>,
    /// Backend → event types it receives as `hooks/observe` (each at
    /// least once, waited for within the observation bound).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub observed: BTreeMap<String, Vec<String>>,
    /// Pointer predicates on what backends received.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub request_assert: Vec<RequestAssert>,
    /// stdio per_event backends whose every process got exactly one frame
    /// and then end of file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_event_one_frame: Vec<String>,
    /// stdio backends whose extra `args` arrived verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args_verbatim: Vec<String>,
    /// stdio backends that started in their `cwd`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cwd_honoured: Vec<String>,
    /// stdio backend → environment variables it must not have.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env_absent: BTreeMap<String, Vec<String>>,
    /// The value of the environment canary (a credential-like variable of
    /// the harness's environment) appears in no message.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub env_canary_absent: bool,
    /// Backends that never have two `hooks/intercept` requests outstanding
    /// at once, across events (the limit reading of §17.2's "MAY have only
    /// one outstanding", D-17: advisory vectors only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_outstanding: Vec<String>,
    /// stdio persistent backends whose every message reached one process:
    /// the harness neither ended nor restarted a backend that answered
    /// each message in time with a well-formed response (§17.2 "A
    /// persistent backend remains alive for multiple messages", read as a
    /// rule by D-39: advisory vectors only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_process: Vec<String>,
}

/// One harness-role vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessVector {
    /// Optional `$schema` pointer for editors.
    #[serde(default, rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Stable id `AHP-H-nnnn` (0.1) or `AHP-DH-nnnn` (draft line).
    pub id: String,
    /// One sentence: what a passing harness does.
    pub title: String,
    /// The [`AhpLine::revision`] of the line the vector tests:
    /// `0.1.0-draft.1`, or `draft`.
    pub ahp: String,
    /// Always `harness`.
    pub role: Role,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Clause ids of `spec/ahp/0.1/clauses.json`.
    pub covers: Vec<String>,
    /// Spec sections.
    pub sections: Vec<String>,
    /// The binding the vector exercises (`any`: none in particular).
    pub binding: BindingSel,
    /// The stdio lifecycle it exercises.
    pub lifecycle: LifecycleSel,
    /// Profiles the harness must claim for the vector to run.
    pub profiles: Vec<String>,
    /// Decision id when the vector checks a SHOULD or a preferred reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    /// The §14.1 failure class exercised, for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    /// The failure policy under test, for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<String>,
    /// The failure class an observer of the vector exhibits (the observe
    /// half of the failure matrix, where no failure policy applies: the
    /// interceptor's decision, whichever it is, must stand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observer_failure: Option<String>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The registration template.
    pub registration: Value,
    /// Environment handed over in `harness/load` (`{{canary}}` expands).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub load_env: BTreeMap<String, String>,
    /// The adapter features (`ahp/adapter/features.json`) the vector needs:
    /// an adapter that does not announce one skips it with a reason naming
    /// it, and the run cannot back a claim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adapter_features: Vec<String>,
    /// The scripted backends by name.
    pub backends: BTreeMap<String, BackendSpec>,
    /// What the adapter is asked to do, in order.
    pub triggers: Vec<Trigger>,
    /// What must hold for the whole run.
    #[serde(default)]
    pub expect: RunExpect,
}

/// The placeholder the kit replaces by backend `name`'s transport.
pub fn placeholder(name: &str) -> String {
    format!("{{{{backend:{name}}}}}")
}

fn collect_placeholders(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            if let Some(n) = s
                .strip_prefix("{{backend:")
                .and_then(|r| r.strip_suffix("}}"))
            {
                out.insert(n.to_owned());
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_placeholders(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_placeholders(x, out)),
        _ => {}
    }
}

/// A registered deadline under this many ms is one a busy machine could
/// make a prompt backend miss ([`HarnessVector::has_short_deadline`]).
pub const SHORT_DEADLINE_MS: u64 = 2000;

impl HarnessVector {
    /// Whether the registration sets a `timeoutMs` under
    /// [`SHORT_DEADLINE_MS`] anywhere: a vector whose verdict a second
    /// vector's load beside it could decide (whether a prompt answer makes
    /// the deadline), so a run with `--jobs` runs it alone. A slow backend
    /// misses a deadline either way, and the suite's own bounds on answers
    /// are generous multiples, so no other vector needs that.
    pub fn has_short_deadline(&self) -> bool {
        fn short(value: &Value) -> bool {
            match value {
                Value::Object(members) => members.iter().any(|(k, v)| {
                    (k == "timeoutMs" && v.as_u64().is_some_and(|ms| ms < SHORT_DEADLINE_MS))
                        || short(v)
                }),
                Value::Array(items) => items.iter().any(short),
                _ => false,
            }
        }
        short(&self.registration)
    }

    /// Whether it is advisory.
    pub fn is_advisory(&self) -> bool {
        self.advisory.is_some()
    }

    /// The line the vector names in `ahp` ([`Self::lint`] refuses any
    /// other text, so a loaded vector always has one).
    pub fn line(&self) -> Option<AhpLine> {
        AhpLine::from_revision(&self.ahp)
    }

    /// Whether the vector belongs to the mutable draft line: its requests
    /// are held to the draft shape, its replies judged by the draft's rules
    /// ([`crate::draft`]), and its reports are never claimable.
    pub fn is_draft(&self) -> bool {
        self.line() == Some(AhpLine::Draft)
    }

    /// The wire `protocolVersion` of the vector's line: `"0.1"`, or
    /// `"draft"`.
    pub fn wire(&self) -> &'static str {
        self.line().unwrap_or(AhpLine::V0_1).wire_version()
    }

    /// Backend names the registration refers to.
    pub fn referenced(&self) -> BTreeSet<String> {
        let mut s = BTreeSet::new();
        collect_placeholders(&self.registration, &mut s);
        s
    }

    /// Rules the schema cannot state.
    pub fn lint(&self) -> Vec<String> {
        let mut p = crate::vector::id_and_line_problems(&self.id, &self.ahp, ["AHP-H-", "AHP-DH-"]);
        if let Some(pv) = self.registration.get("protocolVersion") {
            if self.expect.load != LoadExpect::Refused && pv != self.wire() {
                p.push(format!(
                    "registration.protocolVersion is {pv}, not {:?} (the vector's line)",
                    self.wire()
                ));
            }
        }
        if self.role != Role::Harness {
            p.push("role is not harness".into());
        }
        let catalog = ctk_ahp_adapter::features();
        for (i, name) in self.adapter_features.iter().enumerate() {
            if catalog.get(name).is_none() {
                p.push(format!(
                    "adapter_features[{i}]: {name:?} is no feature of {} (ahp/adapter/features.json)",
                    catalog.contract
                ));
            }
        }
        // The kit can send parallel calls only through the feature's method,
        // so a vector making them must say it needs it.
        if self.triggers.iter().any(|t| !t.parallel.is_empty())
            && !self
                .adapter_features
                .iter()
                .any(|f| f == ctk_ahp_adapter::FEATURE_PARALLEL_TOOL_CALLS)
        {
            p.push(format!(
                "a parallel trigger needs adapter_features [\"{}\"]",
                ctk_ahp_adapter::FEATURE_PARALLEL_TOOL_CALLS
            ));
        }
        // Reports group AHP vectors by their first requirement.
        if self.requirements.is_empty() {
            p.push("requirements is empty".into());
        }
        if self.covers.is_empty() {
            p.push("covers is empty".into());
        }
        if self.sections.is_empty() {
            p.push("sections is empty".into());
        }
        if self.triggers.is_empty() {
            p.push("triggers is empty".into());
        }
        for name in self.referenced() {
            if !self.backends.contains_key(&name) {
                p.push(format!(
                    "registration names backend {name:?}, which backends lacks"
                ));
            }
        }
        let mentioned = |n: &String| self.backends.contains_key(n);
        for (name, b) in &self.backends {
            if b.binding == BackendBinding::Stdio && b.lifecycle.is_none() {
                p.push(format!("backend {name}: stdio needs a lifecycle"));
            }
            if b.binding == BackendBinding::Http
                && (b.lifecycle.is_some() || !b.args.is_empty() || b.cwd)
            {
                p.push(format!(
                    "backend {name}: lifecycle, args and cwd are stdio members"
                ));
            }
            if b.bearer && b.binding != BackendBinding::Http {
                p.push(format!("backend {name}: bearer is for HTTP"));
            }
            match (b.launch, b.binding) {
                (Some(Launch::Missing), BackendBinding::Http)
                | (Some(Launch::Refused), BackendBinding::Stdio) => {
                    p.push(format!(
                        "backend {name}: launch missing is stdio, refused is HTTP"
                    ));
                }
                _ => {}
            }
        }
        for (i, t) in self.triggers.iter().enumerate() {
            let kinds = usize::from(t.tool_call.is_some())
                + usize::from(t.session.is_some())
                + usize::from(!t.parallel.is_empty());
            if kinds != 1 {
                p.push(format!(
                    "triggers[{i}]: exactly one of tool_call, session, parallel"
                ));
            }
            if !t.parallel.is_empty() {
                lint_parallel(i, t, &mut p);
            }
            if let Some(s) = &t.session {
                if s != "session.start" && s != "session.end" {
                    p.push(format!(
                        "triggers[{i}]: session is session.start or session.end"
                    ));
                }
            }
            if t.tool_call.is_some()
                && t.expect.outcome.is_empty()
                && self.expect.load != LoadExpect::Refused
            {
                p.push(format!(
                    "triggers[{i}]: a tool call states its expected outcome"
                ));
            }
            if t.expect.denial.is_some() && t.expect.outcome != vec![ToolOutcome::Denied] {
                p.push(format!("triggers[{i}]: denial needs outcome [denied]"));
            }
            for e in std::iter::once(&t.expect).chain(t.parallel.iter().map(|x| &x.expect)) {
                for n in e
                    .calls
                    .iter()
                    .flatten()
                    .chain(&e.answered_before_plan_end)
                    .chain(&e.asked)
                    .chain(&e.not_asked)
                {
                    if !mentioned(n) {
                        p.push(format!("triggers[{i}]: unknown backend {n:?}"));
                    }
                }
            }
        }
        let e = &self.expect;
        for n in e
            .silent
            .iter()
            .chain(e.observed.keys())
            .chain(e.per_event_one_frame.iter())
            .chain(e.args_verbatim.iter())
            .chain(e.cwd_honoured.iter())
            .chain(e.env_absent.keys())
            .chain(e.one_outstanding.iter())
            .chain(e.one_process.iter())
            .chain(e.request_assert.iter().map(|r| &r.backend))
        {
            if !mentioned(n) {
                p.push(format!("expect names unknown backend {n:?}"));
            }
        }
        for n in &e.one_process {
            if self.backends.get(n).is_some_and(|b| {
                b.binding != BackendBinding::Stdio
                    || b.lifecycle != Some(StdioLifecycle::Persistent)
            }) {
                p.push(format!(
                    "expect.one_process names {n:?}, which is not a stdio persistent backend"
                ));
            }
        }
        if self.observer_failure.is_some() && self.failure_policy.is_some() {
            p.push(
                "observer_failure goes without failure_policy: an observer's failure has no policy"
                    .into(),
            );
        }
        for (name, b) in &self.backends {
            let plans = b.script.intercept.iter().chain(&b.script.observe);
            for action in plans.chain(b.script.by_tool.values()).flatten() {
                if let Action::Raw {
                    text, hex, repeat, ..
                } = action
                {
                    let one = text.as_ref().map_or(0, String::len)
                        + hex.as_ref().map_or(0, |h| h.len() / 2);
                    if one.saturating_mul(*repeat) > MAX_RAW_BYTES {
                        p.push(format!(
                            "backend {name}: a raw action writes more than {MAX_RAW_BYTES} bytes"
                        ));
                    }
                }
            }
        }
        for (i, r) in e.request_assert.iter().enumerate() {
            if r.ptr.is_some() == r.header.is_some() {
                p.push(format!("request_assert[{i}]: exactly one of ptr, header"));
            }
            let n = usize::from(r.eq.is_some())
                + usize::from(r.bearer.is_some())
                + usize::from(r.eq_ptr.is_some())
                + usize::from(r.present.is_some())
                + usize::from(r.json_type.is_some())
                + usize::from(r.contains.is_some());
            if r.bearer.is_some() && r.header.as_deref() != Some("authorization") {
                p.push(format!(
                    "request_assert[{i}]: bearer goes with header authorization"
                ));
            }
            if n == 0 {
                p.push(format!("request_assert[{i}] states nothing"));
            }
        }
        p
    }
}

/// The rules of a parallel trigger (`triggers[i]`): two to
/// [`MAX_PARALLEL`] tool calls, each with a call id of its own (the kit
/// tells their messages apart by it) and an expected outcome, none nested.
fn lint_parallel(i: usize, t: &Trigger, p: &mut Vec<String>) {
    let n = t.parallel.len();
    if !(2..=MAX_PARALLEL).contains(&n) {
        p.push(format!(
            "triggers[{i}].parallel: {n} calls; a parallel trigger makes 2 to {MAX_PARALLEL}"
        ));
    }
    if t.call_id.is_some() || t.expect != CallExpect::default() {
        p.push(format!(
            "triggers[{i}]: call_id and expect go on each entry of parallel"
        ));
    }
    let mut ids = BTreeSet::new();
    for (j, x) in t.parallel.iter().enumerate() {
        let at = format!("triggers[{i}].parallel[{j}]");
        if x.tool_call.is_none() || x.session.is_some() || !x.parallel.is_empty() {
            p.push(format!("{at}: each entry is one tool_call"));
        }
        match &x.call_id {
            None => p.push(format!(
                "{at}: needs a call_id (the kit tells parallel calls apart by it)"
            )),
            Some(id) if !ids.insert(id.as_str()) => {
                p.push(format!("{at}: call_id {id:?} repeats"));
            }
            Some(_) => {}
        }
        if x.expect.outcome.is_empty() {
            p.push(format!("{at}: a tool call states its expected outcome"));
        }
        if x.expect.denial.is_some() && x.expect.outcome != vec![ToolOutcome::Denied] {
            p.push(format!("{at}: denial needs outcome [denied]"));
        }
    }
}

/// Read one harness vector strictly and lint it.
pub fn load_harness_file(path: &Path) -> Result<HarnessVector, VectorError> {
    let bytes = std::fs::read(path).map_err(|source| VectorError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_harness(path, &bytes)
}

/// Parse one harness vector from `bytes` (strict JSON: no duplicate
/// members) and lint it; `path` names it in errors. A member of the wrong
/// shape is reported with its JSON pointer.
pub fn parse_harness(path: &Path, bytes: &[u8]) -> Result<HarnessVector, VectorError> {
    let value = ctk_ahp_wire::json::parse_bytes(bytes).map_err(|source| VectorError::Json {
        path: path.to_owned(),
        source,
    })?;
    let v: HarnessVector = match serde_json::from_value(value.clone()) {
        Ok(v) => v,
        Err(source) => {
            return Err(VectorError::HarnessShape {
                path: path.to_owned(),
                pointer: shape_pointer(&value),
                source,
            })
        }
    };
    let problems = v.lint();
    if !problems.is_empty() {
        return Err(VectorError::Lint {
            path: path.to_owned(),
            problems,
        });
    }
    Ok(v)
}

/// Whether a vector file's name marks it as a harness-role vector
/// (`AHP-H-*.json`, or the draft line's `AHP-DH-*.json`).
pub fn is_harness_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        (n.starts_with("AHP-H-") || n.starts_with("AHP-DH-")) && n.ends_with(".json")
    })
}

use ctk_support::pointer::token as escape;

/// Whether `v` has the shape of `T`.
fn fits<T: serde::de::DeserializeOwned>(v: &Value) -> bool {
    serde_json::from_value::<T>(v.clone()).is_ok()
}

/// The members of [`HarnessVector`], for locating an unknown one.
const MEMBERS: &[&str] = &[
    "$schema",
    "id",
    "title",
    "ahp",
    "role",
    "requirements",
    "covers",
    "sections",
    "binding",
    "lifecycle",
    "profiles",
    "advisory",
    "failure_class",
    "failure_policy",
    "observer_failure",
    "notes",
    "registration",
    "load_env",
    "adapter_features",
    "backends",
    "triggers",
    "expect",
];

/// The JSON pointer of the innermost member that keeps `v` from being a
/// [`HarnessVector`] (serde names what is wrong, not where): an unknown
/// member, or the first member, backend, script, trigger or expectation
/// whose own shape is wrong. `""` when only the whole document can be
/// blamed (a missing required member, or not an object).
pub fn shape_pointer(v: &Value) -> String {
    let Some(m) = v.as_object() else {
        return String::new();
    };
    if let Some(k) = m.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
        return format!("/{}", escape(k));
    }
    let strings = |k: &str| m.get(k).is_some_and(|x| !fits::<Vec<String>>(x));
    let string = |k: &str| m.get(k).is_some_and(|x| !fits::<String>(x));
    for k in [
        "$schema",
        "id",
        "title",
        "ahp",
        "advisory",
        "failure_class",
        "failure_policy",
        "observer_failure",
        "notes",
    ] {
        if string(k) {
            return format!("/{}", escape(k));
        }
    }
    for k in [
        "requirements",
        "covers",
        "sections",
        "profiles",
        "adapter_features",
    ] {
        if strings(k) {
            return format!("/{k}");
        }
    }
    let bad = |k: &str, ok: fn(&Value) -> bool| m.get(k).is_some_and(|x| !ok(x));
    if bad("role", fits::<Role>) {
        return "/role".into();
    }
    if bad("binding", fits::<BindingSel>) {
        return "/binding".into();
    }
    if bad("lifecycle", fits::<LifecycleSel>) {
        return "/lifecycle".into();
    }
    if bad("load_env", fits::<BTreeMap<String, String>>) {
        return "/load_env".into();
    }
    if let Some(b) = m.get("backends") {
        let Some(b) = b.as_object() else {
            return "/backends".into();
        };
        for (name, spec) in b {
            if !fits::<BackendSpec>(spec) {
                let at = format!("/backends/{}", escape(name));
                if let Some(s) = spec.get("script").filter(|s| !fits::<Script>(s)) {
                    for part in ["intercept", "observe"] {
                        for (i, plan) in s
                            .get(part)
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .enumerate()
                        {
                            for (j, a) in plan.as_array().into_iter().flatten().enumerate() {
                                if !fits::<super::script::Action>(a) {
                                    return format!("{at}/script/{part}/{i}/{j}");
                                }
                            }
                        }
                    }
                    return format!("{at}/script");
                }
                return at;
            }
        }
    }
    if let Some(t) = m.get("triggers") {
        let Some(t) = t.as_array() else {
            return "/triggers".into();
        };
        for (i, x) in t.iter().enumerate() {
            if !fits::<Trigger>(x) {
                for (j, y) in x
                    .get("parallel")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    if !fits::<Trigger>(y) {
                        for k in ["tool_call", "expect", "host_permission"] {
                            if y.get(k).is_some_and(|z| match k {
                                "tool_call" => !fits::<ToolSpec>(z),
                                "expect" => !fits::<CallExpect>(z),
                                _ => !fits::<HostPermission>(z),
                            }) {
                                return format!("/triggers/{i}/parallel/{j}/{k}");
                            }
                        }
                        return format!("/triggers/{i}/parallel/{j}");
                    }
                }
                for (k, ok) in [
                    ("tool_call", fits::<ToolSpec> as fn(&Value) -> bool),
                    ("expect", fits::<CallExpect>),
                    ("host_permission", fits::<HostPermission>),
                ] {
                    if x.get(k).is_some_and(|y| !ok(y)) {
                        return format!("/triggers/{i}/{k}");
                    }
                }
                return format!("/triggers/{i}");
            }
        }
    }
    if let Some(e) = m.get("expect").filter(|e| !fits::<RunExpect>(e)) {
        for (i, r) in e
            .get("request_assert")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if !fits::<RequestAssert>(r) {
                return format!("/expect/request_assert/{i}");
            }
        }
        return "/expect".into();
    }
    String::new()
}

/// Read every `AHP-H-*.json` of `dir`, sorted by id; ids unique.
pub fn load_harness_dir(dir: &Path) -> Result<Vec<HarnessVector>, VectorError> {
    let entries = std::fs::read_dir(dir).map_err(|source| VectorError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_harness_file(p))
        .collect();
    paths.sort();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for path in paths {
        let v = load_harness_file(&path)?;
        if !seen.insert(v.id.clone()) {
            return Err(VectorError::DuplicateId { id: v.id, path });
        }
        out.push(v);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The first released harness vector, with `registration` in place of
    /// its own.
    fn with_registration(registration: Value) -> HarnessVector {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ahp/0.1/AHP-H-0001.json");
        let bytes = std::fs::read(&path).expect("the vector file");
        let mut v = parse_harness(&path, &bytes).expect("a harness vector");
        v.registration = registration;
        v
    }

    #[test]
    fn a_deadline_under_two_seconds_anywhere_in_the_registration_is_short() {
        let hook = |ms: u64| json!({"hooks": [{"transport": "{{backend:A}}"}, {"timeoutMs": ms}]});
        assert!(with_registration(hook(SHORT_DEADLINE_MS - 1)).has_short_deadline());
        assert!(!with_registration(hook(SHORT_DEADLINE_MS)).has_short_deadline());
        assert!(
            !with_registration(json!({"hooks": [{"transport": "{{backend:A}}"}]}))
                .has_short_deadline()
        );
        // Not a number of ms: no deadline the kit can read, so nothing short.
        assert!(!with_registration(json!({"timeoutMs": "500"})).has_short_deadline());
    }
}
