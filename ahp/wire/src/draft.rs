//! The upstream mutable `draft` line as data: its differences from 0.1 are
//! the schemas under `schemas/ahp/draft/` ([`DraftSchema`]) and the tables
//! read from them ([`tables`]), so the suite, the reference backend and the
//! reference harness all read one definition instead of each writing the
//! draft's member lists down again.
//!
//! The draft followed is the revision PyPI `agenthooksprotocol` 0.10.1
//! bundles (repository commit `1d98c19`), as `spec/ahp/draft/DIFFERENCES.md`
//! describes it. The schemas state what every reading requires; where the
//! draft's texts disagree (DD-01: its schemas close `harness`, `call` and
//! `tool`, its prose says receivers ignore unknown fields) the stricter
//! reading is a separate schema ([`DraftSchema::ClosedHarness`] and its
//! siblings) that a receiver may apply and the kit never requires.

use std::fmt;
use std::sync::OnceLock;

use serde_json::Value;

use crate::schema::{compile, file_value, keyword_location, DRAFT_FILES, DRAFT_ID_BASE};
use crate::validate::clip;

/// What a draft document, or one part of it, is checked as: each is one
/// schema (a file's root or one of its `$defs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DraftSchema {
    /// A `hooks/intercept` request for `tool.before` as a harness sends it.
    InterceptRequest,
    /// A `hooks/intercept` success response.
    InterceptResponse,
    /// A `tool.before` event on its own.
    ToolBeforeEvent,
    /// A `deny` effect on its own (closed).
    DenyEffect,
    /// `event.harness` under DD-01 reading (a): no member the draft does
    /// not define.
    ClosedHarness,
    /// `event.call` under DD-01 reading (a).
    ClosedCall,
    /// `event.tool` under DD-01 reading (a) (0.1's `callId` refused).
    ClosedTool,
    /// A subscription's `content` selection.
    ContentSelection,
}

impl DraftSchema {
    /// Every kind, in a fixed order.
    pub const ALL: [DraftSchema; 8] = [
        DraftSchema::InterceptRequest,
        DraftSchema::InterceptResponse,
        DraftSchema::ToolBeforeEvent,
        DraftSchema::DenyEffect,
        DraftSchema::ClosedHarness,
        DraftSchema::ClosedCall,
        DraftSchema::ClosedTool,
        DraftSchema::ContentSelection,
    ];

    /// The schema this kind is checked against, as `<file>` or
    /// `<file>#/$defs/<name>` (relative to [`DRAFT_ID_BASE`]); printed in
    /// problems so a user can look the rule up.
    pub fn schema_ref(self) -> &'static str {
        match self {
            DraftSchema::InterceptRequest => "intercept-request",
            DraftSchema::InterceptResponse => "intercept-response",
            DraftSchema::ToolBeforeEvent => "tool-before",
            DraftSchema::DenyEffect => "definitions#/$defs/denyEffect",
            DraftSchema::ClosedHarness => "definitions#/$defs/closedHarness",
            DraftSchema::ClosedCall => "definitions#/$defs/closedCall",
            DraftSchema::ClosedTool => "definitions#/$defs/closedTool",
            DraftSchema::ContentSelection => "definitions#/$defs/contentSelection",
        }
    }

    fn validator(self) -> &'static jsonschema::Validator {
        static VALIDATORS: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
        let all = VALIDATORS.get_or_init(|| {
            compile(
                DraftSchema::ALL
                    .iter()
                    .map(|k| format!("{DRAFT_ID_BASE}{}", k.schema_ref())),
            )
        });
        let index = DraftSchema::ALL
            .iter()
            .position(|k| *k == self)
            .expect("ALL lists every kind");
        &all[index]
    }

    /// Whether `value` is a valid document of this kind.
    pub fn is_valid(self, value: &Value) -> bool {
        self.validator().is_valid(value)
    }

    /// Every way `value` breaks this kind's schema; empty means valid.
    pub fn problems(self, value: &Value) -> Vec<DraftProblem> {
        self.validator()
            .iter_errors(value)
            .map(|e| {
                let pointer = e.instance_path().as_str().to_owned();
                let message = match e.kind() {
                    jsonschema::error::ValidationErrorKind::FalseSchema => {
                        "is not allowed here".to_owned()
                    }
                    _ => clip(&e.to_string()),
                };
                let rule = keyword_location(&e, DRAFT_ID_BASE)
                    .unwrap_or_else(|| self.schema_ref().to_owned());
                DraftProblem {
                    pointer,
                    message,
                    rule,
                }
            })
            .collect()
    }
}

/// One way a document breaks a draft schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftProblem {
    /// JSON pointer to the offending value (empty for the document root).
    pub pointer: String,
    /// What is wrong, in the validator's words (values clipped).
    pub message: String,
    /// The schema keyword that refused it, relative to [`DRAFT_ID_BASE`]
    /// when it is one of the draft's own files.
    pub rule: String,
}

impl fmt::Display for DraftProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {} (draft schema {})", self.message, self.rule)
    }
}

/// The draft's tables, each read from `schemas/ahp/draft/definitions.json`
/// (the enum or member list named beside it), so code that needs a list
/// (a receiver's pointer-precise refusals, a harness's reply checks) uses
/// the schema's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    /// `coreEffect`: the effect names the draft defines.
    pub core_effects: Vec<String>,
    /// `permission`: the values of `params.state.permission`.
    pub permissions: Vec<String>,
    /// `contentValue`: the values of a content selection.
    pub content_values: Vec<String>,
    /// `denyEffect`'s properties: the members of the closed deny.
    pub deny_members: Vec<String>,
    /// `toolAfterMember`: event-level members only `tool.after` holds.
    pub after_only: Vec<String>,
    /// The objects DD-01 reading (a) closes, as (event member, members):
    /// `closedHarness`, `closedCall`, `closedTool`.
    pub closed: Vec<(String, Vec<String>)>,
}

impl Tables {
    /// The members the draft defines for the closed `event.<name>`, if it
    /// is one of the closed objects.
    pub fn closed_members(&self, name: &str) -> Option<&[String]> {
        self.closed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.as_slice())
    }
}

/// Whether `list` holds `name` (tables are short; a linear scan is clear).
pub fn holds(list: &[String], name: &str) -> bool {
    list.iter().any(|m| m == name)
}

/// The draft's tables, read once per process.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let (_, text) = DRAFT_FILES
            .iter()
            .find(|(name, _)| *name == "definitions")
            .expect("the draft definitions are embedded");
        read_tables(&file_value(text))
    })
}

fn read_tables(definitions: &Value) -> Tables {
    let def = |name: &str| {
        definitions
            .pointer(&format!("/$defs/{name}"))
            .unwrap_or_else(|| panic!("draft definitions lack $defs/{name}"))
    };
    let strings = |v: &Value, what: &str| -> Vec<String> {
        v.as_array()
            .unwrap_or_else(|| panic!("draft {what} is not an array"))
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap_or_else(|| panic!("draft {what} holds a non-string"))
                    .to_owned()
            })
            .collect()
    };
    let names = |name: &str| strings(&def(name)["enum"], name);
    let closed = [
        ("harness", "closedHarness"),
        ("call", "closedCall"),
        ("tool", "closedTool"),
    ]
    .into_iter()
    .map(|(member, name)| {
        (
            member.to_owned(),
            strings(&def(name)["propertyNames"]["enum"], name),
        )
    })
    .collect();
    Tables {
        core_effects: names("coreEffect"),
        permissions: names("permission"),
        content_values: names("contentValue"),
        deny_members: def("denyEffect")["properties"]
            .as_object()
            .expect("the draft deny effect lists its properties")
            .keys()
            .cloned()
            .collect(),
        after_only: names("toolAfterMember"),
        closed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A draft `tool.before` request as the PyPI SDK 0.10.1 sends it.
    fn sdk_request() -> Value {
        json!({"jsonrpc": "2.0", "id": "evt-1", "method": "hooks/intercept", "params": {
            "protocolVersion": "draft",
            "event": {"path": "native", "call": {"id": "call-1"},
                      "tool": {"input": {"command": "ls"}, "kind": "shell", "name": "Bash", "origin": "native"},
                      "id": "evt-1", "source": "urn:uuid:1", "harness": {"name": "h", "version": "1"},
                      "type": "tool.before", "time": "2026-12-01T11:37:31.063119+00:00"},
            "capabilities": {"effects": ["deny"]},
            "state": {"candidate": null, "permission": "none"}}})
    }

    #[test]
    fn every_kind_compiles() {
        for kind in DraftSchema::ALL {
            let _ = kind.validator();
        }
    }

    #[test]
    fn the_tables_are_the_schemas_lists() {
        let t = tables();
        assert_eq!(t.core_effects.len(), 8);
        assert!(holds(&t.core_effects, "deny") && !holds(&t.core_effects, "org.example.x"));
        assert_eq!(t.permissions, ["none", "allow", "ask", "deny"]);
        assert_eq!(t.content_values, ["body", "metadata", "omit"]);
        let mut deny = t.deny_members.clone();
        deny.sort();
        assert_eq!(deny, ["code", "extensions", "reason", "type"]);
        assert_eq!(
            t.after_only,
            ["outcome", "execution", "durationMs", "fileChanges"]
        );
        assert_eq!(t.closed_members("call").unwrap(), ["id", "synthesized"]);
        assert_eq!(t.closed_members("harness").unwrap(), ["name", "version"]);
        assert!(holds(t.closed_members("tool").unwrap(), "mcp"));
        assert!(t.closed_members("session").is_none());
    }

    #[test]
    fn the_sdk_request_is_valid_and_each_break_is_found_where_it_is() {
        let k = DraftSchema::InterceptRequest;
        assert_eq!(k.problems(&sdk_request()), []);
        let mut no_kind = sdk_request();
        no_kind["params"]["event"]["tool"]
            .as_object_mut()
            .unwrap()
            .remove("kind");
        assert!(k.is_valid(&no_kind), "kind is optional");
        for (ptr, bad) in [
            ("/params/protocolVersion", json!("0.1")),
            ("/params/state", json!(null)),
            ("/params/state", json!({"permission": "maybe"})),
            ("/params/capabilities", json!({"effects": [1]})),
            ("/params/event/path", json!("")),
            ("/params/event/time", json!("yesterday")),
            ("/params/event/time", json!("2026-08-24 08:51:14Z")),
            ("/params/event/source", json!("not a uri")),
            ("/params/event/tool/origin", json!("plugin")),
            ("/params/event/tool/kind", json!("")),
            ("/params/event/harness", json!({"name": "h"})),
            ("/params/event/call", json!({"x": 1})),
            ("/params/event/session", json!({"id": ""})),
            ("/id", json!("")),
        ] {
            let mut r = sdk_request();
            let (parent, member) = ptr.rsplit_once('/').unwrap();
            r.pointer_mut(parent).unwrap()[member] = bad;
            let p = k.problems(&r);
            assert!(p.iter().any(|p| p.pointer.starts_with(ptr)), "{ptr}: {p:?}");
        }
        let mut mcp = sdk_request();
        mcp["params"]["event"]["tool"]["origin"] = json!("mcp");
        assert!(!k.is_valid(&mcp), "origin mcp needs an mcp object");
        mcp["params"]["event"]["tool"]["mcp"] = json!({"server": "s"});
        assert!(k.is_valid(&mcp));
        let mut after = sdk_request();
        after["params"]["event"]["outcome"] = json!("ok");
        assert!(
            !k.is_valid(&after),
            "tool.before holds no tool.after member"
        );
        let mut nocall = sdk_request();
        nocall["params"]["event"]
            .as_object_mut()
            .unwrap()
            .remove("call");
        assert!(!k.is_valid(&nocall));
    }

    #[test]
    fn rfc_3339_times_are_read_as_the_rfc_writes_them() {
        for ok in [
            "2026-08-24T08:51:14Z",
            "2026-08-24t08:51:14z",
            "2026-08-24T08:51:14.123456+02:00",
            "2026-08-24T08:51:14-05:30",
        ] {
            let mut r = sdk_request();
            r["params"]["event"]["time"] = json!(ok);
            assert!(DraftSchema::InterceptRequest.is_valid(&r), "{ok}");
        }
        for bad in [
            "2026-13-24T08:51:14Z",
            "2026-02-30T08:51:14Z",
            "2026-08-24T08:51Z",
            "2026-08-24T08:51:14",
            "2026-08-24T08:51:14.Z",
            "",
        ] {
            let mut r = sdk_request();
            r["params"]["event"]["time"] = json!(bad);
            assert!(!DraftSchema::InterceptRequest.is_valid(&r), "{bad}");
        }
    }

    #[test]
    fn the_open_objects_take_a_member_of_the_harnesss_own_and_the_closed_reading_refuses_it() {
        // DD-01: the event's objects are open for the kit (the freedom
        // closed-object-members); reading (a) closes them.
        let mut r = sdk_request();
        r["params"]["event"]["tool"]["callId"] = json!("call-1");
        r["params"]["event"]["call"]["x-extra"] = json!(1);
        assert!(DraftSchema::InterceptRequest.is_valid(&r));
        let tool = &r["params"]["event"]["tool"];
        assert!(!DraftSchema::ClosedTool.is_valid(tool));
        assert!(!DraftSchema::ClosedCall.is_valid(&r["params"]["event"]["call"]));
        assert!(DraftSchema::ClosedHarness.is_valid(&r["params"]["event"]["harness"]));
    }

    #[test]
    fn a_response_follows_the_drafts_validity() {
        let ok = |result: Value| json!({"jsonrpc": "2.0", "id": "e", "result": result});
        let k = DraftSchema::InterceptResponse;
        for good in [
            json!({"protocolVersion": "draft"}),
            json!({"protocolVersion": "draft", "effects": []}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "a"}, {"type": "deny", "reason": "b"}]}),
            json!({"protocolVersion": "draft", "effects": [{"type": "allow", "x": 1}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r", "code": "org.example.x",
                 "extensions": {"org.example.y": 1}}]}),
        ] {
            assert_eq!(k.problems(&ok(good.clone())), [], "{good}");
        }
        for bad in [
            json!({"protocolVersion": "0.1", "effects": []}),
            json!({"effects": []}),
            json!({"protocolVersion": "draft", "effects": {}}),
            json!({"protocolVersion": "draft", "effects": [{"type": "deny", "reason": ""}]}),
            json!({"protocolVersion": "draft", "effects": [{"type": "deny"}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "a", "severity": "high"}]}),
            json!({"protocolVersion": "draft", "effects": [
                {"type": "deny", "reason": "r", "code": "force_push"}]}),
            json!({"protocolVersion": "draft", "effects": [{"reason": "r"}]}),
            json!({"protocolVersion": "draft", "effects": [1]}),
            json!({"protocolVersion": "draft", "effects": [], "manifest": {}}),
            json!({"protocolVersion": "draft", "effects": [], "extensions": {"bare": 1}}),
        ] {
            assert!(!k.is_valid(&ok(bad.clone())), "{bad}");
        }
    }

    #[test]
    fn a_content_selection_needs_a_default_and_known_values() {
        let k = DraftSchema::ContentSelection;
        assert!(k.is_valid(&json!({"default": "body", "tool": "omit"})));
        assert!(!k.is_valid(&json!({"tool": "body"})));
        assert!(!k.is_valid(&json!({"default": "all"})));
        assert!(!k.is_valid(&json!("body")));
    }

    #[test]
    fn a_problem_names_where_and_which_rule() {
        let mut r = sdk_request();
        r["params"]["event"]["path"] = json!("");
        let p = DraftSchema::InterceptRequest.problems(&r);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].pointer, "/params/event/path");
        let shown = p[0].to_string();
        assert!(shown.starts_with("/params/event/path: "), "{shown}");
        assert!(
            shown.contains("draft schema definitions#/$defs/nonEmptyString"),
            "{shown}"
        );
    }
}
