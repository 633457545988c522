//! Just enough of an `agent-hooks-declaration/1.0` document to decide which
//! vectors apply: schema-checked against
//! `schemas/host-declaration-1.0.schema.json`, then reduced to a [`Surface`].
//! Full declaration loading (consistency rules, refusal classes) is the
//! reference host's job, not the runner's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

use crate::errors::{DeclarationError, Location};

/// The declaration schema, compiled into the binary.
pub const DECLARATION_SCHEMA: &str = include_str!("../../schemas/host-declaration-1.0.schema.json");

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
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(DECLARATION_SCHEMA).expect("the declaration schema is JSON");
        jsonschema::validator_for(&schema).expect("the declaration schema compiles")
    })
}

/// Schema-check a declaration document; `file` names it in errors.
pub fn check(file: &Path, document: &Value) -> Result<(), DeclarationError> {
    match validator().iter_errors(document).next() {
        None => Ok(()),
        Some(error) => Err(DeclarationError::Schema {
            location: Location {
                file: file.to_path_buf(),
                pointer: error.instance_path().as_str().to_owned(),
            },
            detail: error.to_string(),
        }),
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
        None => Some(ctk_harness_protocol::JCS_SHA256_PROVIDER.to_owned()),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_declaration_is_valid_and_full() {
        let doc: Value = serde_json::from_str(ctk_reference_host::HOST_DECLARATION).expect("json");
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
