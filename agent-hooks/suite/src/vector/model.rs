//! Serde types of a parsed vector. The scenario stays raw JSON text so that a
//! host sees integer literals exactly as written (AH-CTK-091).

use std::collections::BTreeMap;

use ctk_agent_hooks_adapter::{Composition, DeclarationFileFault, Mode, Profile};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Deserialize a member whose presence matters even when it holds `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A string, or a generated one the loader has checked.
fn text_or_generated<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => crate::vector::generate::expand_text(&other)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom("host_declaration_text is not a string")),
    }
}

/// Section → part, for vectors that name no part: the part the project's
/// own vectors use for that section (the one place this mapping lives). A
/// section matches its own number and every subsection of it; the longest
/// match wins. `7` (composition) is refined by the vector's profile.
const SECTION_PARTS: &[(&str, &str)] = &[
    ("3", "context/points"),
    ("4.1", "context/points"),
    ("4.2", "context/points"),
    ("4.3", "transform/targets"),
    ("4.4", "identity/canonical"),
    ("5", "verdict/gate"),
    ("5.2", "transform/targets"),
    ("5.4", "record/fields"),
    ("6", "enforcement/points"),
    ("6.3", "fail_closed/interceptor_failure"),
    ("7", "composition"),
    ("7.7", "declaration/load"),
    ("8", "enforcement/evaluate_only"),
    ("9", "approval_seam"),
    ("10.1", "identity_provider"),
    ("10.2", "identity/canonical"),
    ("10.3", "record/fields"),
    ("11", "fail_closed/reserved_reasons"),
    ("12", "streaming/incremental"),
    ("12.2", "loop/parallel_tool_calls"),
];

/// The part of a vector that names none, from the first section its
/// `spec_clause` cites (`"6.1a, 11"` → `6.1a` → section `6` →
/// `enforcement/points`); `None` when no section matches. A composition
/// section (§7 but not §7.7) names the part of the vector's profile, the
/// default `sequential/first_deny` when it states none.
pub fn derived_part(spec_clause: &str, composition: Composition) -> Option<&'static str> {
    let first = spec_clause.split(',').next()?.trim();
    let first: Vec<&str> = first.split('.').collect();
    let part = SECTION_PARTS
        .iter()
        .filter(|(section, _)| {
            let section: Vec<&str> = section.split('.').collect();
            section.len() <= first.len()
                && section.iter().zip(&first).all(|(a, b)| {
                    // `6.1a` is a subsection of `6.1`: compare the numbers.
                    *a == b.trim_end_matches(|c: char| c.is_ascii_lowercase())
                })
        })
        .max_by_key(|(section, _)| section.split('.').count())
        .map(|(_, part)| *part)?;
    Some(match (part, composition.profile) {
        ("composition", Profile::SequentialFirstDeny) => "composition/sequential_first_deny",
        ("composition", Profile::SequentialRunAll) => "composition/sequential_run_all",
        ("composition", Profile::ParallelStrictest) => "composition/parallel_strictest",
        ("composition", Profile::ParallelUnanimous) => "composition/parallel_unanimous",
        (part, _) => part,
    })
}

pub use ctk_core::suite::SpecVersion;

/// Fault of a scripted interceptor rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterceptorFault {
    /// The interceptor fails.
    Raise,
    /// It answers `{"decision":"transform"}`.
    MalformedVerdict,
    /// It writes into its context and allows with `ctk:mutated`.
    Mutate,
    /// It never answers (project extension).
    Timeout,
}

/// One rule of a scripted interceptor.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterceptorRule {
    /// The point the rule applies at.
    pub at: String,
    /// Dotted path → expected value; all must hold.
    #[serde(default, rename = "match")]
    pub match_: Map<String, Value>,
    /// Verdict to return.
    #[serde(default, rename = "return", deserialize_with = "present")]
    pub return_: Option<Value>,
    /// Any JSON to return verbatim (project extension).
    #[serde(default, deserialize_with = "present")]
    pub return_raw: Option<Value>,
    /// Fault to inject.
    #[serde(default)]
    pub fault: Option<InterceptorFault>,
}

/// What an approval rule answers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolve {
    /// `approve`, `reject` or `unresolved`.
    #[serde(default)]
    pub outcome: Option<String>,
    /// The carried verdict.
    #[serde(default, deserialize_with = "present")]
    pub verdict: Option<Value>,
    /// The carried verdict, verbatim and unchecked (project extension), so a
    /// vector can script a resolution the host must refuse.
    #[serde(default, deserialize_with = "present")]
    pub verdict_raw: Option<Value>,
    /// `raise`: the resolver fails.
    #[serde(default)]
    pub fault: Option<String>,
    /// Echo this identity instead.
    #[serde(default)]
    pub identity_override: Option<String>,
    /// Echo a recomputed `jcs-sha256` identity.
    #[serde(default)]
    pub echo_recomputed: bool,
}

/// One rule of the scripted approval resolver.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRule {
    /// Dotted path → expected value, over the request context.
    #[serde(default, rename = "match")]
    pub match_: Map<String, Value>,
    /// The answer.
    pub resolve: Resolve,
}

/// `expect.load`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectLoad {
    /// `accepted` (default) or `refused`.
    #[serde(default = "accepted")]
    pub outcome: String,
    /// Expected refusal class.
    #[serde(default)]
    pub class: Option<String>,
    /// Expected path equivalence.
    #[serde(default)]
    pub paths_equivalent: Option<bool>,
    /// Strings the refusal's `detail` (the loader's error text) must each
    /// contain: what a refusal class's catalog entry says its error names,
    /// such as `version_unsupported`'s accepted set.
    #[serde(default)]
    pub detail_contains: Vec<String>,
}

fn accepted() -> String {
    "accepted".to_owned()
}

fn yes() -> bool {
    true
}

/// One entry of `expect.interceptions`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedInterception {
    /// The point.
    pub interception_point: String,
    /// Dotted path → expected value.
    #[serde(default)]
    pub context: Map<String, Value>,
    /// Check the §4 envelope of the recorded context.
    #[serde(default = "yes")]
    pub context_must_validate: bool,
    /// Substrings the serialized context must contain.
    #[serde(default)]
    pub context_must_contain: Vec<String>,
    /// Substrings it must not contain.
    #[serde(default)]
    pub context_must_not_contain: Vec<String>,
}

/// `expect.run_outcome_by_posture`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByPosture {
    /// The posture name (only `tool_seam_host_error`).
    pub posture: String,
    /// Posture value → expected outcome.
    pub outcomes: Map<String, Value>,
}

/// One entry of `expect.tool_invocations`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExpectedInvocation {
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub args: Value,
}

/// One entry of `expect.records`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedRecord {
    /// The point.
    pub interception_point: String,
    /// Dotted path → expected value.
    #[serde(default)]
    pub assert: Map<String, Value>,
    /// Paths that must not resolve.
    #[serde(default)]
    pub absent: Vec<String>,
    /// Paths that must resolve.
    #[serde(default)]
    pub present: Vec<String>,
    /// Paths that must not resolve or resolve to `null`: for members the
    /// text lets a host write as `null` or leave out (vector grammar 1.1).
    #[serde(default)]
    pub absent_or_null: Vec<String>,
    /// Paths that must not resolve or resolve to an empty array: for lists
    /// the text only says have no entries (vector grammar 1.1).
    #[serde(default)]
    pub no_entries: Vec<String>,
    /// Dotted path → the array expected there as a multiset: the same
    /// elements in any order, for lists whose order the text leaves open
    /// (vector grammar 1.1).
    #[serde(default)]
    pub same_members: Map<String, Value>,
    /// Dotted path → substrings the string there must each contain, for
    /// text of which the spec fixes only part (vector grammar 1.1).
    #[serde(default)]
    pub contains: BTreeMap<String, Vec<String>>,
    /// Dotted path → the values the text allows there (numbers by value); a
    /// `null` among them also accepts a path that does not resolve (vector
    /// grammar 1.3).
    #[serde(default)]
    pub one_of: BTreeMap<String, Vec<Value>>,
    /// Dotted path → the JSON types the text allows there (`absent`, `null`,
    /// `boolean`, `number`, `string`, `array`, `object`), for members whose
    /// type the text fixes and whose value it leaves to the host (vector
    /// grammar 1.3).
    #[serde(default)]
    pub types: BTreeMap<String, Vec<String>>,
}

/// The `expect` block: what the runner checks, never sent to a host.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Declaration load outcome.
    #[serde(default)]
    pub load: Option<ExpectLoad>,
    /// Recorded contexts.
    #[serde(default)]
    pub interceptions: Option<Vec<ExpectedInterception>>,
    /// Strict or subsequence matching of `interceptions`.
    #[serde(default = "yes")]
    pub sequence_strict: bool,
    /// Points interceptor 0 must never see.
    #[serde(default)]
    pub interceptions_absent: Vec<String>,
    /// Run outcome for the default posture.
    #[serde(default)]
    pub run_outcome: Option<String>,
    /// Run outcome per posture.
    #[serde(default)]
    pub run_outcome_by_posture: Option<ByPosture>,
    /// Exact final output (presence matters).
    #[serde(default, deserialize_with = "present")]
    pub final_output: Option<Value>,
    /// Exact released output (presence matters); `null` asks that the host
    /// report none, as for a run that streamed nothing (D-19).
    #[serde(default, deserialize_with = "present")]
    pub released_output: Option<Value>,
    /// Substrings the persisted state must not contain.
    #[serde(default)]
    pub persisted_must_not_contain: Vec<String>,
    /// Substrings the persisted state must contain (labels kept with
    /// permitted data, §5.4).
    #[serde(default)]
    pub persisted_must_contain: Vec<String>,
    /// The exact ordered tool invocations.
    #[serde(default)]
    pub tool_invocations: Option<Vec<ExpectedInvocation>>,
    /// Tools that must not run.
    #[serde(default)]
    pub tool_not_invoked: Vec<String>,
    /// Record assertions.
    #[serde(default)]
    pub records: Option<Vec<ExpectedRecord>>,
    /// Identity pair equality.
    #[serde(default)]
    pub identities_equal: Option<bool>,
    /// Notices to the principal, in order (project extension, draft line).
    #[serde(default)]
    pub principal_notices: Option<Vec<Map<String, Value>>>,
}

/// A parsed vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Vector id.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// Spec sections checked.
    pub spec_clause: String,
    /// Report grouping tag.
    #[serde(default)]
    pub part: Option<String>,
    /// Clause ids covered (project extension).
    #[serde(default)]
    pub covers: Vec<String>,
    /// The decision (`D-nn` in the spec's DECISIONS.md) whose preferred
    /// reading this vector pins, where the text allows others (project
    /// extension). An advisory vector is reported apart and never changes
    /// the exit code or blocks a claim.
    #[serde(default)]
    pub advisory: Option<String>,
    /// The section of the kit's host contract (`HOSTS.md §4.3`, in
    /// `agent-hooks/adapter/HOSTS.md`) this vector checks, where the spec leaves
    /// the behaviour to the host's own loop (project extension, vector grammar
    /// 1.3). Such a vector keeps a host's adapter to the loop every other
    /// vector relies on; when it fails, the fault is the adapter's, so the
    /// runner reports a harness error naming the section, never a
    /// conformance failure.
    #[serde(default)]
    pub adapter_contract: Option<String>,
    /// The tool-seam posture (`continue` or `terminate`) a host must declare
    /// for this vector to apply (project extension, vector grammar 1.3).
    /// §7.7.3 fixes one posture per host's code ("MUST equal the posture the
    /// code implements"), so a declaration configuring the other one is
    /// refused at step 8 exactly on the hosts declaring this one.
    #[serde(default)]
    pub host_posture: Option<String>,
    /// The vector applies only to a host whose own declaration (the one it
    /// sends in `initialize`) states, or defaults to, `buffered_output: true`
    /// (project extension, vector grammar 1.3): by §7.7.4 such a host's code
    /// cannot mediate incrementally, so a document asking for unbuffered
    /// output exceeds it (step 8).
    #[serde(default)]
    pub host_buffers_only: bool,
    /// The adapter features (`agent-hooks/adapter/features.json`) the
    /// vector needs of the host's adapter (project extension, vector grammar
    /// 1.4): a host that does not announce one skips the vector with a
    /// reason naming it, and its run cannot back a claim.
    #[serde(default)]
    pub adapter_features: Vec<String>,
    /// Spec versions (project extension; default `["0.1"]`).
    #[serde(default)]
    pub spec_versions: Option<Vec<SpecVersion>>,
    /// Required capabilities.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Enforcement mode.
    #[serde(default)]
    pub mode: Mode,
    /// Composition.
    #[serde(default)]
    pub composition: Option<Composition>,
    /// Identity provider: absent, `null` or a name.
    #[serde(default, deserialize_with = "present")]
    pub identity_provider: Option<Value>,
    /// Interceptor timeout (project extension).
    #[serde(default)]
    pub interceptor_timeout_ms: Option<u64>,
    /// Approval timeout (project extension).
    #[serde(default)]
    pub approval_timeout_ms: Option<u64>,
    /// The scenario, as raw JSON text.
    pub scenario: Box<RawValue>,
    /// Single-interceptor form.
    #[serde(default)]
    pub interceptor_script: Option<Vec<InterceptorRule>>,
    /// Multi-interceptor form.
    #[serde(default)]
    pub interceptor_scripts: Option<Vec<Vec<InterceptorRule>>>,
    /// Approval rules.
    #[serde(default)]
    pub approval_script: Vec<ApprovalRule>,
    /// Redactor paths.
    #[serde(default)]
    pub redact_for_approval: Vec<String>,
    /// Declaration document under test: any JSON value (a root that is not
    /// an object must be refused as `declaration_error:malformed`).
    #[serde(default)]
    pub host_declaration: Option<Value>,
    /// Declaration document under test as raw text (project extension), for
    /// documents a parsed value cannot carry: duplicate keys, trailing
    /// content, text that is not JSON. Never with `host_declaration`. A
    /// generated text (`$ctk.generate`, [`crate::vector::generate`]) is
    /// expanded here, checked by the loader before.
    #[serde(default, deserialize_with = "text_or_generated")]
    pub host_declaration_text: Option<String>,
    /// A file fault the host loads through its file path only (project
    /// extension); the file's bytes, where the fault has some, come from
    /// `host_declaration` or `host_declaration_text`.
    #[serde(default)]
    pub host_declaration_file: Option<DeclarationFileFault>,
    /// The document breaks its schema (or is no JSON at all) on purpose.
    #[serde(default)]
    pub host_declaration_invalid: bool,
    /// The expectations.
    pub expect: Expect,
}

impl Vector {
    /// The report part: the vector's `part`, else the part derived from
    /// what it cites ([`derived_part`]; the upstream vectors AH-CTK-001 to
    /// 074 carry none), else `unspecified`.
    pub fn part(&self) -> &str {
        self.part
            .as_deref()
            .or_else(|| derived_part(&self.spec_clause, self.composition()))
            .unwrap_or("unspecified")
    }

    /// The spec versions the vector belongs to.
    pub fn spec_versions(&self) -> Vec<SpecVersion> {
        self.spec_versions
            .clone()
            .unwrap_or_else(|| vec![SpecVersion::V0_1])
    }

    /// The interceptor scripts, one per registered interceptor.
    pub fn scripts(&self) -> Vec<Vec<InterceptorRule>> {
        match (&self.interceptor_scripts, &self.interceptor_script) {
            (Some(many), _) => many.clone(),
            (None, Some(one)) => vec![one.clone()],
            (None, None) => Vec::new(),
        }
    }

    /// The identity provider the host registers: `None` for identity-unbound.
    pub fn identity_provider(&self) -> Option<String> {
        match &self.identity_provider {
            None => Some(ctk_agent_hooks_adapter::JCS_SHA256_PROVIDER.to_owned()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
        }
    }

    /// Whether the vector builds its host from a declaration document (any
    /// of `host_declaration`, `host_declaration_text`,
    /// `host_declaration_file`).
    pub fn is_declaration(&self) -> bool {
        self.host_declaration.is_some()
            || self.host_declaration_text.is_some()
            || self.host_declaration_file.is_some()
    }

    /// The composition, with the default when absent.
    pub fn composition(&self) -> Composition {
        self.composition.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(p: Profile) -> Composition {
        Composition {
            profile: p,
            ..Composition::default()
        }
    }

    /// The first cited section picks the part; subsections and lettered
    /// sections fall under their section; composition follows the profile.
    #[test]
    fn a_vector_without_a_part_gets_the_part_of_its_first_section() {
        let none = Composition::default();
        for (clause, want) in [
            ("3.1, 4.1, 4.2", Some("context/points")),
            ("3.1.6, 4.1", Some("context/points")),
            ("4.3, 11", Some("transform/targets")),
            ("5, 6.3, 11", Some("verdict/gate")),
            ("5.2, 6", Some("transform/targets")),
            ("6, 6.2", Some("enforcement/points")),
            ("6.1a", Some("enforcement/points")),
            ("6.3, 11", Some("fail_closed/interceptor_failure")),
            ("7.1", Some("composition/sequential_first_deny")),
            ("7.7.6", Some("declaration/load")),
            ("8", Some("enforcement/evaluate_only")),
            ("10.2, 10.3", Some("identity/canonical")),
            ("12.1a", Some("streaming/incremental")),
            ("12.2", Some("loop/parallel_tool_calls")),
            ("2", None),
            ("", None),
        ] {
            assert_eq!(derived_part(clause, none), want, "{clause:?}");
        }
        assert_eq!(
            derived_part("7.4", profile(Profile::SequentialRunAll)),
            Some("composition/sequential_run_all")
        );
        assert_eq!(
            derived_part("7.5", profile(Profile::ParallelUnanimous)),
            Some("composition/parallel_unanimous")
        );
        assert_eq!(
            derived_part("9", profile(Profile::ParallelStrictest)),
            Some("approval_seam")
        );
    }
}
