//! The project's AHP JSON Schemas, compiled into the crate: the 0.1 line's
//! (`schemas/ahp/0.1/`, one validator per [`SchemaKind`]) and the draft
//! line's differences (`schemas/ahp/draft/`, read by [`crate::draft`]).

use std::sync::OnceLock;

use serde_json::Value;

/// Base of every project AHP schema `$id`.
pub const ID_BASE: &str = "tag:agent-hooks-ctk,2026:ahp/0.1/";

/// The schema files: (name, text). `name` is the file stem and the last
/// segment of the `$id`.
pub const FILES: &[(&str, &str)] = &[
    (
        "definitions",
        include_str!("../../../schemas/ahp/0.1/definitions.json"),
    ),
    (
        "message",
        include_str!("../../../schemas/ahp/0.1/message.json"),
    ),
    (
        "tool-before",
        include_str!("../../../schemas/ahp/0.1/tool-before.json"),
    ),
    (
        "intercept-request",
        include_str!("../../../schemas/ahp/0.1/intercept-request.json"),
    ),
    (
        "intercept-response",
        include_str!("../../../schemas/ahp/0.1/intercept-response.json"),
    ),
    (
        "error-response",
        include_str!("../../../schemas/ahp/0.1/error-response.json"),
    ),
    (
        "observe-notification",
        include_str!("../../../schemas/ahp/0.1/observe-notification.json"),
    ),
    (
        "registration",
        include_str!("../../../schemas/ahp/0.1/registration.json"),
    ),
];

/// Base of every project schema `$id` of the draft line.
pub const DRAFT_ID_BASE: &str = "tag:agent-hooks-ctk,2026:ahp/draft/";

/// The draft line's schema files: (name, text), as [`FILES`]. They refer
/// to the 0.1 definitions for what the draft leaves unchanged.
pub const DRAFT_FILES: &[(&str, &str)] = &[
    (
        "definitions",
        include_str!("../../../schemas/ahp/draft/definitions.json"),
    ),
    (
        "tool-before",
        include_str!("../../../schemas/ahp/draft/tool-before.json"),
    ),
    (
        "intercept-request",
        include_str!("../../../schemas/ahp/draft/intercept-request.json"),
    ),
    (
        "intercept-response",
        include_str!("../../../schemas/ahp/draft/intercept-response.json"),
    ),
];

/// What a document is checked as: each kind is one schema (a file's root
/// or one of its `$defs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    /// Any of the four JSON-RPC 2.0 message shapes.
    Message,
    /// A `hooks/intercept` request carrying `tool.before`.
    InterceptRequest,
    /// A `hooks/intercept` success response: no effect or one deny.
    InterceptResponse,
    /// A success response whose `effects` is empty.
    NoEffectResponse,
    /// A success response holding exactly one deny.
    DenyResponse,
    /// A JSON-RPC error response.
    ErrorResponse,
    /// A `hooks/observe` notification.
    ObserveNotification,
    /// A `tool.before` event on its own.
    ToolBeforeEvent,
    /// An interception `capabilities` object on its own.
    Capabilities,
    /// An `extensions` object on its own.
    Extensions,
    /// A deny effect on its own.
    DenyEffect,
    /// A portable registration document.
    Registration,
}

impl SchemaKind {
    /// Every kind, in a fixed order.
    pub const ALL: [SchemaKind; 12] = [
        SchemaKind::Message,
        SchemaKind::InterceptRequest,
        SchemaKind::InterceptResponse,
        SchemaKind::NoEffectResponse,
        SchemaKind::DenyResponse,
        SchemaKind::ErrorResponse,
        SchemaKind::ObserveNotification,
        SchemaKind::ToolBeforeEvent,
        SchemaKind::Capabilities,
        SchemaKind::Extensions,
        SchemaKind::DenyEffect,
        SchemaKind::Registration,
    ];

    /// The schema this kind is checked against, as `<file>` or
    /// `<file>#/$defs/<name>` (relative to [`ID_BASE`]); printed in
    /// findings so a user can look the rule up.
    pub fn schema_ref(self) -> &'static str {
        match self {
            SchemaKind::Message => "message",
            SchemaKind::InterceptRequest => "intercept-request",
            SchemaKind::InterceptResponse => "intercept-response",
            SchemaKind::NoEffectResponse => "intercept-response#/$defs/noEffect",
            SchemaKind::DenyResponse => "intercept-response#/$defs/deny",
            SchemaKind::ErrorResponse => "error-response",
            SchemaKind::ObserveNotification => "observe-notification",
            SchemaKind::ToolBeforeEvent => "tool-before",
            SchemaKind::Capabilities => "definitions#/$defs/capabilities",
            SchemaKind::Extensions => "definitions#/$defs/extensions",
            SchemaKind::DenyEffect => "definitions#/$defs/denyEffect",
            SchemaKind::Registration => "registration",
        }
    }

    /// The compiled validator for this kind, built once per process.
    pub(crate) fn validator(self) -> &'static jsonschema::Validator {
        static VALIDATORS: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
        let all = VALIDATORS.get_or_init(compile_all);
        let index = SchemaKind::ALL
            .iter()
            .position(|k| *k == self)
            .expect("ALL lists every kind");
        &all[index]
    }
}

/// Where a schema error's keyword sits, relative to `base` when it is in
/// one of the files under it (`intercept-request#/properties/...`); the
/// absolute location otherwise, `None` when the validator gives none.
pub(crate) fn keyword_location(e: &jsonschema::ValidationError<'_>, base: &str) -> Option<String> {
    e.absolute_keyword_location().map(|u| {
        let u = u.as_str();
        u.strip_prefix(base).unwrap_or(u).to_owned()
    })
}

/// Parse one embedded file; the files are part of the crate, so a parse
/// failure is a build defect, caught by this crate's tests.
pub(crate) fn file_value(text: &str) -> Value {
    serde_json::from_str(text).expect("the embedded AHP schemas are JSON")
}

fn compile_all() -> Vec<jsonschema::Validator> {
    compile(
        SchemaKind::ALL
            .iter()
            .map(|kind| format!("{ID_BASE}{}", kind.schema_ref())),
    )
}

/// One validator per absolute schema reference, over a registry of both
/// lines' files (format assertions on, as for every AHP document).
pub(crate) fn compile(references: impl Iterator<Item = String>) -> Vec<jsonschema::Validator> {
    let mut builder = jsonschema::Registry::new();
    for (base, files) in [(ID_BASE, FILES), (DRAFT_ID_BASE, DRAFT_FILES)] {
        for (name, text) in files {
            builder = builder
                .add(format!("{base}{name}"), file_value(text))
                .expect("schema ids are valid URIs");
        }
    }
    let registry = builder.prepare().expect("the AHP schemas resolve");
    references
        .map(|reference| {
            let root = serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": reference,
            });
            jsonschema::options()
                .with_registry(&registry)
                .should_validate_formats(true)
                .build(&root)
                .unwrap_or_else(|e| panic!("AHP schema {reference} compiles: {e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_declares_its_id_and_the_2020_12_dialect() {
        let files = FILES
            .iter()
            .map(|f| (ID_BASE, f))
            .chain(DRAFT_FILES.iter().map(|f| (DRAFT_ID_BASE, f)));
        for (base, (name, text)) in files {
            let v = file_value(text);
            assert_eq!(v["$id"], format!("{base}{name}"), "{name}");
            assert_eq!(
                v["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{name}"
            );
            assert!(v["description"].is_string(), "{name} has a description");
        }
    }

    #[test]
    fn the_no_effect_and_deny_kinds_split_the_response_schema() {
        let none = serde_json::json!({"jsonrpc": "2.0", "id": "e",
            "result": {"protocolVersion": "0.1", "effects": []}});
        let deny = serde_json::json!({"jsonrpc": "2.0", "id": "e",
            "result": {"protocolVersion": "0.1", "effects": [{"type": "deny", "reason": "r"}]}});
        let v = |k: SchemaKind, x: &Value| k.validator().is_valid(x);
        assert!(v(SchemaKind::InterceptResponse, &none) && v(SchemaKind::InterceptResponse, &deny));
        assert!(v(SchemaKind::NoEffectResponse, &none) && !v(SchemaKind::NoEffectResponse, &deny));
        assert!(v(SchemaKind::DenyResponse, &deny) && !v(SchemaKind::DenyResponse, &none));
        assert!(v(SchemaKind::DenyEffect, &deny["result"]["effects"][0]));
        assert!(!v(
            SchemaKind::Capabilities,
            &serde_json::json!({"effects": []})
        ));
        assert!(!v(SchemaKind::Extensions, &serde_json::json!({"bare": 1})));
    }

    #[test]
    fn every_kind_compiles() {
        for kind in SchemaKind::ALL {
            let _ = kind.validator();
        }
    }
}
