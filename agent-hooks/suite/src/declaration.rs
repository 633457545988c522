//! Just enough of a host declaration document to decide which vectors apply:
//! schema-checked against `schemas/host-declaration-1.0.schema.json` (or
//! `-1.1.schema.json` for an `agent-hooks-declaration/1.1` document, when that
//! schema was present at build time), then reduced to a [`Surface`].
//! Full declaration loading (consistency rules, refusal classes) is the
//! reference host's job, not the runner's; the runner only refuses a
//! `--declaration` that asks for more than the host's own surface offers
//! ([`unsupported`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

use crate::errors::{DeclarationError, Location};
use crate::json_path::pointer_token;
use crate::vector::model::SpecVersion;

/// The 1.0 declaration schema, compiled into the binary.
pub const DECLARATION_SCHEMA: &str =
    include_str!("../../../schemas/host-declaration-1.0.schema.json");

/// The 1.1 (draft) declaration schema, when
/// `schemas/host-declaration-1.1.schema.json` existed at build time.
pub const DECLARATION_SCHEMA_1_1: Option<&str> =
    include!(concat!(env!("OUT_DIR"), "/declaration_schema_1_1.rs"));

/// The released declaration version.
pub const VERSION_1_0: &str = "agent-hooks-declaration/1.0";

/// The draft declaration version (only under `agent-hooks/draft`).
pub const VERSION_1_1: &str = "agent-hooks-declaration/1.1";

/// The four interception points every host emits (§3.2).
pub const FLOOR_POINTS: [&str; 4] = ["agent_startup", "input", "output", "agent_shutdown"];

/// The tool-seam host-error posture (§6.2, §13.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Posture {
    /// The spec default: surface a tool error and keep the loop going.
    Continue,
    /// The host's own semantics end the turn.
    Terminate,
}

impl Posture {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Posture::Continue => "continue",
            Posture::Terminate => "terminate",
        }
    }
}

/// A host's declared surface: what decides whether a vector applies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Surface {
    /// Wire spec version the declaration names (`agent-hooks/0.1` by default).
    pub spec: String,
    /// Interception points emitted.
    pub interception_points: BTreeSet<String>,
    /// Capabilities.
    pub capabilities: BTreeSet<String>,
    /// Profile → consulted knob → supported values.
    pub profiles: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    /// Configured identity provider; `None` is identity-unbound.
    pub identity_provider: Option<String>,
    /// Configured tool-seam posture.
    pub posture: Posture,
    /// Whether caller output is buffered (default true).
    pub buffered_output: bool,
    /// Whether the document stated its `surface` explicitly (claims require it).
    pub explicit: bool,
    /// Declaration contract versions the host loads (its stated
    /// `surface.declaration_versions`, else its own document's version).
    /// Kept out of reports, which carry the document itself.
    #[serde(skip)]
    pub declaration_versions: BTreeSet<String>,
    /// `buffered_output` of the host's own declaration (the one it sends in
    /// `initialize`), where it sends one: §7.7.4 resolves the own surface of
    /// "a host that mediates incrementally" to `buffered_output: false`, so
    /// `Some(true)` says the host's code cannot release output unbuffered,
    /// which the declared surface alone never says. Kept out of reports.
    #[serde(skip)]
    pub own_buffered_output: Option<bool>,
    /// The adapter features the host announced in `initialize`
    /// (`agent-hooks/adapter/features.json`); `None` before a handshake
    /// (coverage, `ctk list`), where every feature counts as present. Kept
    /// out of reports, which name the host's features beside its identity.
    #[serde(skip)]
    pub adapter_features: Option<BTreeSet<String>>,
}

impl Surface {
    /// Whether `profile` is declared with `value` for `knob`; a knob member
    /// the declaration leaves out supports the default value only.
    pub fn supports_knob(&self, profile: &str, knob: &str, value: &str) -> bool {
        self.profiles
            .get(profile)
            .is_some_and(|knobs| match knobs.get(knob) {
                Some(values) => values.contains(value),
                None => default_knob(knob) == Some(value),
            })
    }
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(DECLARATION_SCHEMA).expect("the declaration schema is JSON");
        jsonschema::validator_for(&schema).expect("the declaration schema compiles")
    })
}

/// The 1.1 validator: `Err` says why there is none.
fn validator_1_1() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let text = DECLARATION_SCHEMA_1_1.ok_or_else(|| {
                format!("{VERSION_1_1} is not supported by this build (schemas/host-declaration-1.1.schema.json was absent when ctk was built)")
            })?;
            let schema: Value = serde_json::from_str(text)
                .map_err(|e| format!("the embedded 1.1 declaration schema is not JSON: {e}"))?;
            jsonschema::validator_for(&schema)
                .map_err(|e| format!("the embedded 1.1 declaration schema does not compile: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Schema-check a declaration document against the schema of the version it
/// names (1.0 unless it names 1.1); `file` names it in errors.
pub fn check(file: &Path, document: &Value) -> Result<(), DeclarationError> {
    let at = |pointer: &str, detail: String| DeclarationError::Schema {
        location: Location {
            file: file.to_path_buf(),
            pointer: pointer.to_owned(),
        },
        detail,
    };
    let validator = if document.get("declaration").and_then(Value::as_str) == Some(VERSION_1_1) {
        validator_1_1().map_err(|detail| at("/declaration", detail))?
    } else {
        validator()
    };
    match validator.iter_errors(document).next() {
        None => Ok(()),
        Some(error) => Err(at(error.instance_path().as_str(), error.to_string())),
    }
}

/// Read, parse and schema-check a declaration file.
pub fn load_file(path: &Path) -> Result<Value, DeclarationError> {
    let text = std::fs::read_to_string(path).map_err(|source| DeclarationError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let document: Value = serde_json::from_str(&text).map_err(|e| DeclarationError::Json {
        location: Location {
            file: path.to_path_buf(),
            pointer: String::new(),
        },
        detail: e.to_string(),
    })?;
    check(path, &document)?;
    Ok(document)
}

/// The rules a `--declaration` document meets for a run of `spec`: the
/// `spec` member is required; a 1.1 document only with `--spec draft`; its `spec` member names the run's spec
/// (a draft run also takes an `agent-hooks/0.1` document, since the draft
/// extends 0.1).
pub fn check_for_run(
    file: &Path,
    document: &Value,
    spec: SpecVersion,
) -> Result<(), DeclarationError> {
    let at = |pointer: &str, detail: String| DeclarationError::Schema {
        location: Location {
            file: file.to_path_buf(),
            pointer: pointer.to_owned(),
        },
        detail,
    };
    if document.get("spec").is_none() {
        return Err(at(
            "/spec",
            "the spec member is required (e.g. \"spec\": \"agent-hooks/0.1\")".into(),
        ));
    }
    let version = document.get("declaration").and_then(Value::as_str);
    if version == Some(VERSION_1_1) && spec != SpecVersion::Draft {
        return Err(at(
            "/declaration",
            format!(
                "{VERSION_1_1} belongs to the draft line; it is accepted only with --spec draft"
            ),
        ));
    }
    let named = document.get("spec").and_then(Value::as_str).unwrap_or("");
    let fits =
        named == spec.wire() || (spec == SpecVersion::Draft && named == SpecVersion::V0_1.wire());
    if !fits {
        return Err(at(
            "/spec",
            format!(
                "the declaration is for {named:?}, the run targets {}; choose another --spec",
                spec.wire()
            ),
        ));
    }
    Ok(())
}

/// Default knob values, which every host supports for a profile it declares.
fn default_knob(knob: &str) -> Option<&'static str> {
    match knob {
        "on_approval" => Some("stop"),
        "on_transform_conflict" | "on_disagreement" => Some("deny"),
        _ => None,
    }
}

/// The declaration versions a document's host accepts: its
/// `surface.declaration_versions`, else its own `declaration`.
fn declaration_versions(document: &Value) -> BTreeSet<String> {
    strings(document.pointer("/surface/declaration_versions")).unwrap_or_else(|| {
        document
            .get("declaration")
            .and_then(Value::as_str)
            .map(|v| BTreeSet::from([v.to_owned()]))
            .unwrap_or_default()
    })
}

/// What `document` asks for that the host's own declaration `host` does not
/// offer, as `(pointer into document, detail)`: interception points,
/// capabilities, profiles (stated or configured), knob values (stated or
/// configured; a knob the host leaves out supports its default value only),
/// declaration versions (the document's own and those it lists), and
/// unbuffered output. Empty: the host can serve the document.
pub fn unsupported(document: &Value, host: &Value) -> Vec<(String, String)> {
    beyond(document, &surface(host))
}

/// [`unsupported`] against a surface already derived: what `document` asks
/// for that `offered` does not declare, plus a stated tool-seam posture
/// other than the host's.
pub fn beyond(document: &Value, offered: &Surface) -> Vec<(String, String)> {
    let mut out = beyond_the_code(document, offered);
    out.extend(versions_beyond(document, offered));
    out
}

/// The strings of the array at `pointer` in `document`, with their indexes
/// (for the finding's pointer); empty when there is no such array.
fn indexed_strings(document: &Value, pointer: &str) -> Vec<(usize, String)> {
    document
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.as_str().map(|s| (i, s.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// [`beyond`] without the declaration versions: what the document asks of
/// the host's code (points, capabilities, profiles, knobs, posture,
/// unbuffered output). Which declaration versions a host loads depends on
/// the line a run targets (a draft run loads `agent-hooks-declaration/1.1`),
/// which the surface does not record.
pub fn beyond_the_code(document: &Value, offered: &Surface) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let list = |pointer: &str| indexed_strings(document, pointer);
    for (i, point) in list("/surface/interception_points") {
        if !offered.interception_points.contains(&point) {
            out.push((
                format!("/surface/interception_points/{i}"),
                format!("the host does not emit interception point {point:?}"),
            ));
        }
    }
    for (i, capability) in list("/surface/capabilities") {
        if !offered.capabilities.contains(&capability) {
            out.push((
                format!("/surface/capabilities/{i}"),
                format!("the host lacks capability {capability:?}"),
            ));
        }
    }
    if let Some(profiles) = document
        .pointer("/surface/profiles")
        .and_then(Value::as_object)
    {
        for (profile, knobs) in profiles {
            let base = format!("/surface/profiles/{}", pointer_token(profile));
            if !offered.profiles.contains_key(profile) {
                out.push((base, format!("the host lacks profile {profile:?}")));
                continue;
            }
            for (knob, values) in knobs.as_object().into_iter().flatten() {
                for (j, value) in values.as_array().into_iter().flatten().enumerate() {
                    let Some(value) = value.as_str() else {
                        continue;
                    };
                    if !offered.supports_knob(profile, knob, value) {
                        out.push((
                            format!("{base}/{}/{j}", pointer_token(knob)),
                            format!("the host lacks {profile} {knob}: {value}"),
                        ));
                    }
                }
            }
        }
    }
    if let Some(composition) = document
        .pointer("/configuration/composition")
        .and_then(Value::as_object)
    {
        if let Some(profile) = composition.get("profile").and_then(Value::as_str) {
            if !offered.profiles.contains_key(profile) {
                out.push((
                    "/configuration/composition/profile".into(),
                    format!("the host lacks profile {profile:?}"),
                ));
            } else {
                for (knob, value) in composition {
                    let Some(value) = value.as_str() else {
                        continue;
                    };
                    if knob != "profile" && !offered.supports_knob(profile, knob, value) {
                        out.push((
                            format!("/configuration/composition/{}", pointer_token(knob)),
                            format!("the host lacks {profile} {knob}: {value}"),
                        ));
                    }
                }
            }
        }
    }
    if let Some(posture) = document
        .pointer("/configuration/posture/tool_seam_host_error")
        .and_then(Value::as_str)
    {
        if posture != offered.posture.as_str() {
            out.push((
                "/configuration/posture/tool_seam_host_error".into(),
                format!(
                    "the host implements posture {}, not {posture}",
                    offered.posture.as_str()
                ),
            ));
        }
    }
    if document.pointer("/surface/buffered_output") == Some(&Value::Bool(false))
        && offered.buffered_output
    {
        out.push((
            "/surface/buffered_output".into(),
            "the host buffers output; it cannot release output incrementally".into(),
        ));
    }
    out
}

/// The declaration versions `document` names (its own and those it lists)
/// that `offered` does not load.
fn versions_beyond(document: &Value, offered: &Surface) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let list = |pointer: &str| indexed_strings(document, pointer);
    let versions = &offered.declaration_versions;
    if let Some(version) = document.get("declaration").and_then(Value::as_str) {
        if !versions.contains(version) {
            out.push((
                "/declaration".into(),
                format!("the host does not load {version} documents (it loads {versions:?})"),
            ));
        }
    }
    for (i, version) in list("/surface/declaration_versions") {
        if !versions.contains(&version) {
            out.push((
                format!("/surface/declaration_versions/{i}"),
                format!("the host does not load {version} documents (it loads {versions:?})"),
            ));
        }
    }
    out
}

/// [`unsupported`] as the error a run refuses with: the first finding's
/// pointer, every finding in the detail.
pub fn check_supported(
    file: &Path,
    document: &Value,
    host: &Value,
) -> Result<(), DeclarationError> {
    let findings = unsupported(document, host);
    let Some((pointer, _)) = findings.first() else {
        return Ok(());
    };
    let detail = findings
        .iter()
        .map(|(p, d)| format!("{d} (at {p})"))
        .collect::<Vec<_>>()
        .join("; ");
    Err(DeclarationError::SurfaceUnsupported {
        location: Location {
            file: file.to_path_buf(),
            pointer: pointer.clone(),
        },
        detail,
    })
}

fn strings(value: Option<&Value>) -> Option<BTreeSet<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
    )
}

/// Reduce a schema-checked document to its surface.
///
/// Members the document leaves out take conservative values (they never
/// make more vectors apply): the four floor points, no capabilities, only the
/// configured profile with its default knob value, buffered output.
pub fn surface(document: &Value) -> Surface {
    let configuration = document.get("configuration");
    let stated = document.get("surface");
    let composition = configuration.and_then(|c| c.get("composition"));
    let configured_profile = composition
        .and_then(|c| c.get("profile"))
        .and_then(Value::as_str)
        .unwrap_or("sequential/first_deny");
    let profiles = match stated
        .and_then(|s| s.get("profiles"))
        .and_then(Value::as_object)
    {
        Some(map) => map
            .iter()
            .map(|(profile, knobs)| {
                let knobs = knobs
                    .as_object()
                    .map(|k| {
                        k.iter()
                            .map(|(name, values)| {
                                (name.clone(), strings(Some(values)).unwrap_or_default())
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                (profile.clone(), knobs)
            })
            .collect(),
        None => BTreeMap::from([(configured_profile.to_owned(), BTreeMap::new())]),
    };
    let identity_provider = match configuration.and_then(|c| c.get("identity_provider")) {
        None => Some(ctk_agent_hooks_adapter::JCS_SHA256_PROVIDER.to_owned()),
        Some(Value::String(name)) => Some(name.clone()),
        Some(_) => None,
    };
    let posture = match configuration
        .and_then(|c| c.pointer("/posture/tool_seam_host_error"))
        .and_then(Value::as_str)
    {
        Some("terminate") => Posture::Terminate,
        _ => Posture::Continue,
    };
    Surface {
        spec: document
            .get("spec")
            .and_then(Value::as_str)
            .unwrap_or("agent-hooks/0.1")
            .to_owned(),
        interception_points: strings(stated.and_then(|s| s.get("interception_points")))
            .unwrap_or_else(|| FLOOR_POINTS.iter().map(|p| (*p).to_owned()).collect()),
        capabilities: strings(stated.and_then(|s| s.get("capabilities"))).unwrap_or_default(),
        profiles,
        identity_provider,
        posture,
        buffered_output: stated
            .and_then(|s| s.get("buffered_output"))
            .and_then(Value::as_bool)
            .unwrap_or(true),
        explicit: stated.is_some(),
        declaration_versions: declaration_versions(document),
        own_buffered_output: None,
        adapter_features: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_declaration_is_valid_and_full() {
        let doc: Value =
            serde_json::from_str(ctk_agent_hooks_reference_host::HOST_DECLARATION).expect("json");
        check(Path::new("host.json"), &doc).expect("valid");
        let s = surface(&doc);
        assert_eq!(s.interception_points.len(), 8);
        assert!(s.capabilities.contains("incremental_output"));
        assert!(!s.buffered_output);
        assert_eq!(s.posture, Posture::Continue);
        assert_eq!(s.identity_provider.as_deref(), Some("jcs-sha256"));
        assert_eq!(s.profiles["parallel/unanimous"]["on_disagreement"].len(), 2);
    }

    #[test]
    fn schema_errors_name_the_pointer() {
        let doc = serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "bindings": [],
            "configuration": {"posture": {"tool_seam_host_error": "explode"}}});
        let err = check(Path::new("d.json"), &doc).expect_err("invalid");
        assert!(
            err.to_string()
                .contains("d.json at /configuration/posture/tool_seam_host_error"),
            "{err}"
        );
    }

    #[test]
    fn custom_provider_names_may_not_start_with_jcs() {
        let doc = |p: &str| {
            serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "bindings": [],
            "configuration": {"identity_provider": p}})
        };
        assert!(check(Path::new("d.json"), &doc("hmac-sha256-k1")).is_ok());
        assert!(check(Path::new("d.json"), &doc("jcs-sha256")).is_ok());
        assert!(check(Path::new("d.json"), &doc("jcs-other")).is_err());
        let wrong_version =
            serde_json::json!({"declaration": "agent-hooks-declaration/0.1", "bindings": []});
        assert!(check(Path::new("d.json"), &wrong_version).is_err());
    }

    fn minimal_host() -> Value {
        serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1", "bindings": [],
            "surface": {"interception_points": ["agent_startup", "input", "output", "agent_shutdown"],
                "capabilities": ["model_calls"],
                "profiles": {"sequential/first_deny": {}, "parallel/strictest": {"on_transform_conflict": ["deny"]}}}})
    }

    #[test]
    fn a_document_asking_more_than_the_host_offers_is_unsupported() {
        let doc = serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1", "bindings": [],
            "configuration": {"composition": {"profile": "sequential/first_deny", "on_approval": "resume"}},
            "surface": {"interception_points": ["agent_startup", "input", "pre_tool_call", "post_tool_call", "output", "agent_shutdown"],
                "capabilities": ["model_calls", "tool_calls"],
                "profiles": {"sequential/first_deny": {"on_approval": ["stop", "resume"]}, "sequential/run_all": {},
                    "parallel/strictest": {"on_transform_conflict": ["deny", "approval"]}},
                "buffered_output": false, "exposure_bound": "x",
                "declaration_versions": ["agent-hooks-declaration/1.0", "agent-hooks-declaration/1.1"]}});
        check(Path::new("d.json"), &doc).expect("schema-valid");
        let pointers: Vec<String> = unsupported(&doc, &minimal_host())
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            pointers,
            [
                "/surface/interception_points/2",
                "/surface/interception_points/3",
                "/surface/capabilities/1",
                "/surface/profiles/sequential~1first_deny/on_approval/1",
                "/surface/profiles/sequential~1run_all",
                "/surface/profiles/parallel~1strictest/on_transform_conflict/1",
                "/configuration/composition/on_approval",
                "/surface/buffered_output",
                "/surface/declaration_versions/1",
            ]
        );
        let err = check_supported(Path::new("d.json"), &doc, &minimal_host()).expect_err("refused");
        let text = err.to_string();
        assert!(
            text.starts_with("d.json at /surface/interception_points/2: declaration_error:surface_unsupported: the host does not emit interception point \"pre_tool_call\""),
            "{text}"
        );
        // Asking for no more than the host offers passes, and so does the
        // host's own document.
        assert!(unsupported(&minimal_host(), &minimal_host()).is_empty());
        let full: Value = serde_json::from_str(include_str!(
            "../../../runner/tests/data/declarations/host-full.json"
        ))
        .expect("json");
        assert!(unsupported(&full, &full).is_empty());
        let mut less = full.clone();
        less["surface"]["capabilities"]
            .as_array_mut()
            .expect("capabilities")
            .retain(|c| c != "bigint_json");
        assert_eq!(
            unsupported(&full, &less),
            [(
                "/surface/capabilities/6".to_owned(),
                "the host lacks capability \"bigint_json\"".to_owned()
            )]
        );
    }

    #[test]
    fn a_declaration_version_the_host_does_not_load_is_unsupported() {
        let doc = serde_json::json!({"declaration": "agent-hooks-declaration/1.1", "spec": "agent-hooks/draft", "bindings": []});
        assert_eq!(unsupported(&doc, &minimal_host())[0].0, "/declaration");
    }

    #[test]
    fn run_rules_for_spec_and_version() {
        let doc = |decl: &str, spec: &str| serde_json::json!({"declaration": decl, "spec": spec, "bindings": []});
        let p = Path::new("d.json");
        assert!(check_for_run(p, &doc(VERSION_1_0, "agent-hooks/0.1"), SpecVersion::V0_1).is_ok());
        assert!(check_for_run(p, &doc(VERSION_1_0, "agent-hooks/0.1"), SpecVersion::Draft).is_ok());
        assert!(check_for_run(
            p,
            &doc(VERSION_1_0, "agent-hooks/draft"),
            SpecVersion::Draft
        )
        .is_ok());
        let e = check_for_run(p, &doc(VERSION_1_0, "agent-hooks/draft"), SpecVersion::V0_1)
            .expect_err("spec mismatch");
        assert!(e.to_string().starts_with("d.json at /spec:"), "{e}");
        let e = check_for_run(p, &doc(VERSION_1_1, "agent-hooks/draft"), SpecVersion::V0_1)
            .expect_err("1.1 is draft only");
        assert!(e.to_string().contains("d.json at /declaration: declaration: agent-hooks-declaration/1.1 belongs to the draft line"), "{e}");
        assert!(check_for_run(
            p,
            &doc(VERSION_1_1, "agent-hooks/draft"),
            SpecVersion::Draft
        )
        .is_ok());
    }

    #[test]
    fn a_1_1_document_is_checked_against_the_1_1_schema_when_built_in() {
        let doc = serde_json::json!({"declaration": VERSION_1_1, "spec": "agent-hooks/draft", "bindings": []});
        match DECLARATION_SCHEMA_1_1 {
            None => {
                let e = check(Path::new("d.json"), &doc).expect_err("no 1.1 schema");
                assert!(e.to_string().contains("d.json at /declaration: declaration: agent-hooks-declaration/1.1 is not supported by this build"), "{e}");
            }
            Some(_) => {
                // The 1.1 schema decides; a 1.0 schema error would name /declaration.
                if let Err(e) = check(Path::new("d.json"), &doc) {
                    assert!(
                        !e.to_string().contains("is not supported by this build"),
                        "{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn minimal_document_takes_conservative_defaults() {
        let doc = serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "bindings": [],
            "configuration": {"identity_provider": null, "posture": {"tool_seam_host_error": "terminate"}}});
        check(Path::new("d.json"), &doc).expect("valid");
        let s = surface(&doc);
        assert_eq!(s.interception_points.len(), 4);
        assert!(s.capabilities.is_empty());
        assert_eq!(s.identity_provider, None);
        assert_eq!(s.posture, Posture::Terminate);
        assert!(s.buffered_output && !s.explicit);
        assert_eq!(
            s.profiles.keys().collect::<Vec<_>>(),
            ["sequential/first_deny"]
        );
    }
}
