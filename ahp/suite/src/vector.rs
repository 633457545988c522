//! Backend-role vectors: the serde model of `schemas/ahp/vector.schema.json`
//! and the loader of `vectors/ahp/0.1/*.json`.
//!
//! A vector is data: what the kit, playing the harness, sends (`send`), what
//! each step must get back (`expect`, aligned with `send`), and what must
//! hold for the whole run (`run`). Every member is named after what it means
//! on the wire, so a vector reads without the runner.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::VectorError;

pub use ctk_ahp_wire::version::AhpLine;

/// The role a vector puts under test. This suite runs `backend` vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The backend is under test; the kit plays the harness.
    Backend,
    /// The harness is under test (another suite; refused by this loader).
    Harness,
}

/// The transport binding a vector applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingSel {
    /// stdio only (framing, stdout hygiene, exit status).
    Stdio,
    /// HTTP only (status, content type, the bearer header).
    Http,
    /// Every binding.
    Any,
}

/// The stdio lifecycle a vector applies to (HTTP ignores it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LifecycleSel {
    /// One long-lived process for the whole vector.
    Persistent,
    /// One process per message, stdin closed after one frame.
    PerEvent,
    /// Both lifecycles.
    Any,
}

/// One thing the kit sends. Exactly one of `frame`, `raw`, `close_stdin`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A JSON-RPC message, written as one line (stdio) or one POST body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Value>,
    /// Text sent exactly as written (one stdio line, the newline added by
    /// the driver; or a POST body), for bytes a JSON value cannot pin down
    /// (literal U+2028, escapes, member order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// `raw` only: the text is sent this many times over, as one line, so a
    /// vector can send a line of several MiB in a few bytes of file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// Close the backend's stdin (stdio, persistent; last step only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub close_stdin: bool,
    /// The message is a JSON-RPC notification: nothing may answer it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub notification: bool,
    /// stdio: write the line (newline included) in this many byte pieces,
    /// 20 ms apart, cut anywhere (inside a UTF-8 character too); a message
    /// ends at its newline, not at the end of a read. HTTP: one body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<u8>,
    /// stdio persistent, requests only: do not wait for the reply before
    /// the next step (only notifications may follow until the reply is
    /// awaited, at the next request or at the end: one outstanding
    /// intercept at a time, 17.2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_wait: bool,
    /// Why this step is there (not interpreted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Step {
    /// The exact text put on the wire for this step (no trailing newline),
    /// or `None` for `close_stdin`.
    pub fn wire_text(&self) -> Option<String> {
        if let Some(frame) = &self.frame {
            return Some(serde_json::to_string(frame).expect("a Value always serializes"));
        }
        let times = usize::try_from(self.repeat.unwrap_or(1)).unwrap_or(usize::MAX);
        self.raw.as_ref().map(|raw| raw.repeat(times))
    }

    /// The message as JSON, for `eq_request` pointers: the frame, or the raw
    /// text parsed when it is JSON.
    pub fn message(&self) -> Option<Value> {
        if let Some(frame) = &self.frame {
            return Some(frame.clone());
        }
        self.wire_text()
            .and_then(|text| serde_json::from_str(&text).ok())
    }
}

/// How many replies a step must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyCount {
    /// No JSON-RPC response at all (a notification; spec 8.4).
    None,
    /// Exactly one JSON-RPC response (a request; JSON-RPC 2.0 §4).
    One,
    /// None or one: for a message the text leaves a backend free to answer
    /// or not (a line past its size bound, D-35). A stdio per_event step
    /// only, where the process's end bounds the wait. Whatever it writes is
    /// still held to `run`.
    AtMostOne,
}

/// What kind of response a step must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyClass {
    /// A success result with `protocolVersion` "0.1" and `effects: []`.
    NoEffect,
    /// A success result with exactly one valid `deny` effect.
    ExplicitDeny,
    /// `no_effect` or `explicit_deny` (spec 6.2, 12.1).
    AnyValidDecision,
    /// A JSON-RPC error response (`error.code` integer, `error.message`
    /// string, no `result`).
    JsonrpcError,
    /// Any JSON-RPC response: a valid decision or an error.
    Any,
}

/// One JSON-pointer predicate on a reply. `ptr` selects a member of the
/// reply; every other member present is one condition on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointerAssert {
    /// RFC 6901 pointer into the reply (`""` is the whole reply).
    pub ptr: String,
    /// The member equals this value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eq: Option<Value>,
    /// The member equals what this pointer selects in the sent message
    /// (`{"ptr": "/id", "eq_request": "/id"}`: the id is echoed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eq_request: Option<String>,
    /// The member is present (`true`) or absent (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<bool>,
    /// The member has this JSON type (`string`, `integer`, `number`,
    /// `boolean`, `array`, `object`, `null`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub json_type: Option<String>,
    /// The member is one of these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
}

/// What one step must get back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepExpect {
    /// None or exactly one JSON-RPC response.
    pub reply: ReplyCount,
    /// The kind of response (with `reply: one`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ReplyClass>,
    /// The `error.code` a `jsonrpc_error` carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
    /// The decision (no effect or deny) equals that of the step with this
    /// index (an earlier step expecting a decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_decision_as: Option<usize>,
    /// Pointer predicates on the reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assert: Vec<PointerAssert>,
    /// HTTP only: the status is one of these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<Vec<u16>>,
    /// HTTP only: the media type of a non-empty response body (parameters
    /// such as `charset` are ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// HTTP only: the response body is empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub http_empty_body: bool,
}

/// Where the canary secret must never appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CanaryScope {
    /// `error.data` of every error response (spec 16).
    ErrorData,
    /// Every deny `reason` and every `error.data` (spec 18.3).
    ReasonAndErrorData,
    /// Anywhere in anything the backend wrote to stdout or an HTTP body.
    Anywhere,
}

/// What must hold for the whole run of a vector.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunExpect {
    /// stdio: every stdout line is one complete UTF-8 JSON-RPC response
    /// object ended by a newline, and nothing else ever reaches stdout
    /// (spec 17.1): no banner, log or stray response. Blank lines are left
    /// to `stdout_strict_lines` (D-24).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stdout_protocol_only: bool,
    /// stdio: no line holds a carriage return and no line is blank (the
    /// preferred reading of 17.1, DECISIONS.md D-24; advisory vectors only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stdout_strict_lines: bool,
    /// stdio per_event: every process that got a request exits with status
    /// 0 once stdin is closed (spec 17.3, D-14), and every process that got
    /// a notification exits, whatever its status (D-25).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_event_exit_zero: bool,
    /// The canary never comes back in this scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<CanaryScope>,
}

/// The lint rules every AHP vector's head shares: `ahp` names a line, and
/// the id is the role's prefix for that line (`prefixes`: released, draft)
/// and four digits, so a draft vector can never be mistaken for (or filed
/// among) the released ones.
pub(crate) fn id_and_line_problems(id: &str, ahp: &str, prefixes: [&str; 2]) -> Vec<String> {
    let mut problems = Vec::new();
    let line = AhpLine::from_revision(ahp);
    let prefix = if line == Some(AhpLine::Draft) {
        prefixes[1]
    } else {
        prefixes[0]
    };
    let id_ok = id
        .strip_prefix(prefix)
        .is_some_and(|n| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()));
    if !id_ok {
        problems.push(format!("id {id:?} is not {prefix}nnnn"));
    }
    if line.is_none() {
        problems.push(format!(
            "ahp is {ahp:?}, not {:?} (or {:?})",
            AhpLine::V0_1.revision(),
            AhpLine::Draft.revision()
        ));
    }
    problems
}

/// One backend-role vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Optional `$schema` pointer for editors.
    #[serde(default, rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Stable id `AHP-B-nnnn` (0.1) or `AHP-DB-nnnn` (draft line).
    pub id: String,
    /// One sentence: what a passing backend does.
    pub title: String,
    /// The [`AhpLine::revision`] of the line the vector tests:
    /// `0.1.0-draft.1`, or `draft` (such vectors are `AHP-DB-nnnn`, never
    /// claimable).
    pub ahp: String,
    /// Always `backend` here.
    pub role: Role,
    /// Requirement ids of `spec/requirements.json` (`AHP-*`).
    pub requirements: Vec<String>,
    /// Clause ids of `spec/ahp/0.1/clauses.json`.
    pub covers: Vec<String>,
    /// Spec sections the vector rests on.
    pub sections: Vec<String>,
    /// Which binding it applies to.
    pub binding: BindingSel,
    /// Which stdio lifecycle it applies to.
    pub lifecycle: LifecycleSel,
    /// Conformance profiles (`base`, `tool-interception`,
    /// `lifecycle-observation`, `stdio`, `http`).
    pub profiles: Vec<String>,
    /// Decision id in `spec/ahp/0.1/DECISIONS.md` when the vector checks a
    /// SHOULD or a preferred reading: run and reported, never gating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    /// A policy the backend must declare for the vector to run (see
    /// [`crate::policy`]); skipped otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Free text for readers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// What the kit sends, in order.
    pub send: Vec<Step>,
    /// What each step must get, aligned with `send`.
    pub expect: Vec<StepExpect>,
    /// What must hold for the whole run.
    #[serde(default)]
    pub run: RunExpect,
}

impl Vector {
    /// Whether the vector is advisory (never gating).
    pub fn is_advisory(&self) -> bool {
        self.advisory.is_some()
    }

    /// The line the vector names in `ahp` ([`Self::lint`] refuses any
    /// other text, so a loaded vector always has one).
    pub fn line(&self) -> Option<AhpLine> {
        AhpLine::from_revision(&self.ahp)
    }

    /// Whether the vector belongs to the draft line: its replies are judged
    /// by the draft's rules ([`crate::draft`]).
    pub fn is_draft(&self) -> bool {
        self.line() == Some(AhpLine::Draft)
    }

    /// The wire `protocolVersion` a valid result must carry: `"0.1"`, or
    /// `"draft"` for a draft-line vector.
    pub fn wire_version(&self) -> &'static str {
        self.line().unwrap_or(AhpLine::V0_1).wire_version()
    }

    /// The rules the schema cannot state; each broken rule is one message.
    pub fn lint(&self) -> Vec<String> {
        let mut problems = id_and_line_problems(&self.id, &self.ahp, ["AHP-B-", "AHP-DB-"]);
        if self.role != Role::Backend {
            problems.push("role is not backend".to_owned());
        }
        if self.requirements.is_empty() {
            problems.push("requirements is empty".to_owned());
        }
        if self.sections.is_empty() {
            problems.push("sections is empty".to_owned());
        }
        if self.send.is_empty() {
            problems.push("send is empty".to_owned());
        }
        if self.send.len() != self.expect.len() {
            problems.push(format!(
                "send has {} steps but expect has {}",
                self.send.len(),
                self.expect.len()
            ));
        }
        let mut probed = false;
        for (i, (step, exp)) in self.send.iter().zip(&self.expect).enumerate() {
            let kinds = usize::from(step.frame.is_some())
                + usize::from(step.raw.is_some())
                + usize::from(step.close_stdin);
            if kinds != 1 {
                problems.push(format!(
                    "send[{i}] holds {kinds} of frame, raw, close_stdin (exactly one)"
                ));
            }
            if step.close_stdin {
                if i + 1 != self.send.len() {
                    problems.push(format!("send[{i}]: close_stdin is not the last step"));
                }
                if self.binding != BindingSel::Stdio || self.lifecycle != LifecycleSel::Persistent {
                    problems.push(format!(
                        "send[{i}]: close_stdin needs binding stdio and lifecycle persistent"
                    ));
                }
            }
            if step.pieces.is_some_and(|n| !(2..=64).contains(&n)) {
                problems.push(format!("send[{i}]: pieces must be 2 to 64"));
            }
            if step.no_wait {
                if step.notification
                    || step.close_stdin
                    || self.binding != BindingSel::Stdio
                    || self.lifecycle != LifecycleSel::Persistent
                {
                    problems.push(format!(
                        "send[{i}]: no_wait is for a request of a stdio persistent vector"
                    ));
                }
                let next_request = self.send[i + 1..].iter().position(|s| !s.notification);
                if next_request.is_none() {
                    problems.push(format!(
                        "send[{i}]: a no_wait request must be followed by a later request"
                    ));
                }
            }
            if let Some(frame) = &step.frame {
                let has_id = frame.get("id").is_some();
                if has_id == step.notification {
                    problems.push(format!(
                        "send[{i}]: a frame {} an id but notification is {}",
                        if has_id { "with" } else { "without" },
                        step.notification
                    ));
                }
            }
            match exp.reply {
                ReplyCount::None => {
                    if exp.class.is_some() || exp.error_code.is_some() || !exp.assert.is_empty() {
                        problems.push(format!(
                            "expect[{i}]: reply none cannot carry class, error_code or assert"
                        ));
                    }
                    if !step.notification && !step.close_stdin {
                        problems.push(format!("expect[{i}]: reply none for a request"));
                    }
                }
                ReplyCount::One => {
                    if step.notification || step.close_stdin {
                        problems.push(format!(
                            "expect[{i}]: reply one for a notification or close_stdin"
                        ));
                    }
                    if exp.class.is_none() {
                        problems.push(format!("expect[{i}]: reply one without a class"));
                    }
                    probed = true;
                }
                ReplyCount::AtMostOne => {
                    // Only a process that ends after its one message tells
                    // "no answer" apart from "not yet".
                    if self.binding != BindingSel::Stdio
                        || self.lifecycle != LifecycleSel::PerEvent
                        || step.notification
                        || step.close_stdin
                    {
                        problems.push(format!(
                            "expect[{i}]: reply at_most_one is for a message of a stdio per_event vector"
                        ));
                    }
                    if exp.class.is_none() {
                        problems.push(format!("expect[{i}]: reply at_most_one without a class"));
                    }
                }
            }
            if step.repeat.is_some() && step.raw.is_none() {
                problems.push(format!("send[{i}]: repeat is for a raw step"));
            }
            if exp.error_code.is_some() && exp.class != Some(ReplyClass::JsonrpcError) {
                problems.push(format!(
                    "expect[{i}]: error_code without class jsonrpc_error"
                ));
            }
            if let Some(j) = exp.same_decision_as {
                let decision = |k: usize| {
                    self.expect.get(k).and_then(|e| e.class).is_some_and(|c| {
                        matches!(
                            c,
                            ReplyClass::NoEffect
                                | ReplyClass::ExplicitDeny
                                | ReplyClass::AnyValidDecision
                        )
                    })
                };
                if j >= i || !decision(j) || !decision(i) {
                    problems.push(format!(
                        "expect[{i}]: same_decision_as {j} must name an earlier decision step, \
                         and this step must expect a decision"
                    ));
                }
            }
            for a in &exp.assert {
                let conditions = usize::from(a.eq.is_some())
                    + usize::from(a.eq_request.is_some())
                    + usize::from(a.present.is_some())
                    + usize::from(a.json_type.is_some())
                    + usize::from(a.one_of.is_some());
                if conditions == 0 {
                    problems.push(format!("expect[{i}]: assert on {:?} states nothing", a.ptr));
                }
            }
            if self.binding == BindingSel::Stdio
                && (exp.http_status.is_some() || exp.content_type.is_some() || exp.http_empty_body)
            {
                problems.push(format!("expect[{i}]: HTTP expectations on a stdio vector"));
            }
        }
        // A vector whose every step expects silence would pass against a
        // dead backend: the last step is a request answered, which proves
        // the backend read everything before it.
        let last_is_probe = self
            .expect
            .iter()
            .zip(&self.send)
            .rev()
            .find(|(_, s)| !s.close_stdin)
            .is_some_and(|(e, _)| e.reply == ReplyCount::One);
        if !probed || !last_is_probe {
            problems.push(
                "the last message step must be a request expecting one reply (a probe that \
                 proves the backend read every earlier message)"
                    .to_owned(),
            );
        }
        if self.run.per_event_exit_zero && self.binding == BindingSel::Http {
            problems.push("run.per_event_exit_zero on an HTTP vector".to_owned());
        }
        problems
    }
}

/// A vector with the file it came from.
#[derive(Debug, Clone)]
pub struct LoadedVector {
    /// Where it was read from.
    pub path: PathBuf,
    /// The vector.
    pub vector: Vector,
}

/// Read one vector file strictly (UTF-8, no repeated member names, no
/// unknown members) and lint it.
pub fn load_file(path: &Path) -> Result<Vector, VectorError> {
    let bytes = std::fs::read(path).map_err(|source| VectorError::Read {
        path: path.to_owned(),
        source,
    })?;
    let value = ctk_ahp_wire::json::parse_bytes(&bytes).map_err(|source| VectorError::Json {
        path: path.to_owned(),
        source,
    })?;
    let vector: Vector = serde_json::from_value(value).map_err(|source| VectorError::Shape {
        path: path.to_owned(),
        source,
    })?;
    let problems = vector.lint();
    if !problems.is_empty() {
        return Err(VectorError::Lint {
            path: path.to_owned(),
            problems,
        });
    }
    Ok(vector)
}

/// Read every `*.json` vector of `dir`, sorted by id; ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<LoadedVector>, VectorError> {
    let entries = std::fs::read_dir(dir).map_err(|source| VectorError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        // The folder also holds the harness-role vectors (AHP-H-*).
        .filter(|p| !crate::harness::vector::is_harness_file(p))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for path in paths {
        let vector = load_file(&path)?;
        if !seen.insert(vector.id.clone()) {
            return Err(VectorError::DuplicateId {
                id: vector.id,
                path,
            });
        }
        out.push(LoadedVector { path, vector });
    }
    out.sort_by(|a, b| a.vector.id.cmp(&b.vector.id));
    Ok(out)
}

/// The folder of the released backend-role vectors in this checkout.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ahp/0.1")
}
