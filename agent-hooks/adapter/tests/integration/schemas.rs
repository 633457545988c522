//! Schema round trips: every message the Rust types serialise validates, and
//! so does every example in `PROTOCOL.md`.

use std::collections::HashMap;

use ctk_agent_hooks_adapter::wire::jsonrpc::{encode_request, encode_result, Id};
use ctk_agent_hooks_adapter::wire::methods::{self, *};
use ctk_agent_hooks_adapter::wire::{Message, Schemas};
use ctk_agent_hooks_adapter::{
    Composition, DeclarationFileFault, HostInfo, InterceptorBinding, InterceptorReply, Knob,
    LoadOutcome, LoadRecord, Mode, OnApproval, Profile, RedactorReply, ResolverReply, RunOutcome,
    RunRecord, ToolInvocation, VectorSetup,
};
use libtest_mimic::Trial;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::ensure;

fn check<P: Serialize, R: Serialize>(method: &str, params: &P, result: &R) -> Result<(), String> {
    let schemas = Schemas::get();
    let id = Id::Int(7);
    for line in [
        encode_request(&id, method, params),
        encode_result(&id, result),
    ] {
        let value: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        schemas
            .check_envelope(&value)
            .map_err(|e| format!("{method}: {e}"))?;
    }
    let p = serde_json::to_value(params).map_err(|e| e.to_string())?;
    let r = serde_json::to_value(result).map_err(|e| e.to_string())?;
    schemas
        .check_params(method, &p)
        .map_err(|e| e.to_string())?;
    schemas.check_result(method, &r).map_err(|e| e.to_string())
}

fn full_setup() -> VectorSetup {
    let scenario =
        RawValue::from_string(r#"{"model": [{"text": "hi"}], "n": 18446744073709551616}"#.into())
            .unwrap();
    let mut s = VectorSetup::new("AH-CTK-001", "agent-hooks/0.1", scenario);
    s.interceptors = vec![
        InterceptorBinding::everywhere(),
        InterceptorBinding::everywhere(),
    ];
    s.approval_resolver = true;
    s.redactor = true;
    s.mode = Mode::EvaluateOnly;
    s.composition = Composition {
        profile: Profile::SequentialFirstDeny,
        on_approval: Some(OnApproval::Resume),
        on_disagreement: Some(Knob::Approval),
        on_transform_conflict: Some(Knob::Deny),
    };
    s.identity_provider = None;
    s.interceptor_timeout_ms = Some(5);
    s.approval_timeout_ms = Some(6);
    s.declaration = Some(json!({"declaration": "agent-hooks-declaration/1.0"}));
    s
}

fn full_record() -> RunRecord {
    let mut r = RunRecord::new(RunOutcome::Blocked);
    r.final_output = json!("out");
    r.tool_invocations = vec![ToolInvocation {
        name: "search".into(),
        args: json!({"q": 1}),
    }];
    r.records = vec![json!({"point": "input"}), json!("malformed")];
    r.released_output = Some(json!("released so far"));
    r.persisted =
        Some(json!({"messages": [{"role": "user", "content": "hi"}], "labels": [], "memory": {}}));
    r.principal_notices = vec![
        json!({"interception_point": "pre_tool_call", "binding": "audit",
        "warning": "host_warning:control_failed", "substituted_for": "host_error:interceptor_failed"}),
    ];
    r.error = Some("boom".into());
    r.load = Some(serde_json::from_value(json!({"outcome": "refused", "class": "declaration_error:x", "paths_equivalent": true, "detail": "d"})).unwrap());
    let _: Option<LoadRecord> = None;
    let _ = LoadOutcome::Accepted;
    r
}

fn round_trips() -> Result<(), String> {
    let empty = Empty {};
    let host = HostInfo::new("h", "1", vec!["agent-hooks/0.1".into()]);
    check(
        methods::INITIALIZE,
        &InitializeParams::current(),
        &InitializeResult::new(host.clone()),
    )?;
    let declared = host.with_declaration(json!({"spec": "agent-hooks/0.1"}));
    check(
        methods::INITIALIZE,
        &InitializeParams::current(),
        &InitializeResult::new(declared),
    )?;
    check(methods::VECTOR_SETUP, &full_setup(), &empty)?;
    let minimal = VectorSetup::new(
        "v",
        "agent-hooks/0.1",
        RawValue::from_string("{}".into()).unwrap(),
    );
    check(methods::VECTOR_SETUP, &minimal, &empty)?;
    // Declaration vectors: a document of any root, raw text, file faults.
    for document in [json!([{"declaration": "x"}]), json!("text"), json!(7)] {
        let mut s = full_setup();
        s.declaration = Some(document);
        check(methods::VECTOR_SETUP, &s, &empty)?;
    }
    let mut text = full_setup();
    text.declaration = None;
    text.declaration_text = Some(r#"{"a": 1, "a": 2} trailing"#.into());
    check(methods::VECTOR_SETUP, &text, &empty)?;
    let back: VectorSetup =
        serde_json::from_value(serde_json::to_value(&text).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    ensure(back.declaration_text == text.declaration_text, || {
        "declaration_text does not round-trip".into()
    })?;
    for fault in DeclarationFileFault::ALL {
        for with_text in [false, true] {
            let mut s = if with_text {
                text.clone()
            } else {
                full_setup()
            };
            s.declaration_file = Some(fault);
            check(methods::VECTOR_SETUP, &s, &empty)?;
            let wire = serde_json::to_value(&s).map_err(|e| e.to_string())?;
            ensure(wire["declaration_file"] == fault.as_str(), || {
                format!("declaration_file is {}", wire["declaration_file"])
            })?;
            let back: VectorSetup = serde_json::from_value(wire).map_err(|e| e.to_string())?;
            ensure(back.declaration_file == Some(fault), || {
                "declaration_file does not round-trip".into()
            })?;
        }
    }
    for profile in Profile::ALL {
        let mut s = full_setup();
        s.composition = Composition {
            profile,
            ..Composition::default()
        };
        check(methods::VECTOR_SETUP, &s, &empty)?;
    }
    check(methods::VECTOR_RUN, &empty, &full_record())?;
    check(
        methods::VECTOR_RUN,
        &empty,
        &RunRecord::new(RunOutcome::Completed),
    )?;
    check(methods::VECTOR_TEARDOWN, &empty, &empty)?;
    check(methods::SHUTDOWN, &empty, &empty)?;
    let ctx = json!({"point": "pre_tool"});
    for (reply, changed) in [
        (
            InterceptorReply::Response(json!({"decision": "allow"})),
            None,
        ),
        (
            InterceptorReply::Response(Value::Null),
            Some(json!({"x": 1})),
        ),
        (
            InterceptorReply::Raised {
                message: "m".into(),
            },
            None,
        ),
        (
            InterceptorReply::Raised {
                message: "m".into(),
            },
            Some(json!(null)),
        ),
    ] {
        let result = InterceptResult::from_reply(reply.clone(), changed.clone());
        check(
            methods::CALLBACK_INTERCEPT,
            &InterceptParams::new(3, ctx.clone()),
            &result,
        )?;
        let back: InterceptResult =
            serde_json::from_value(serde_json::to_value(&result).unwrap()).unwrap();
        ensure(back.into_reply() == (reply, changed), || {
            "intercept result does not round-trip".into()
        })?;
    }
    for reply in [
        ResolverReply::Resolution(json!({"decision": "approve"})),
        ResolverReply::Raised {
            message: "m".into(),
        },
    ] {
        check(
            methods::CALLBACK_RESOLVE_APPROVAL,
            &ResolveApprovalParams::new(ctx.clone()),
            &ResolveApprovalResult::from(reply),
        )?;
    }
    for reply in [
        RedactorReply::Redacted(json!({})),
        RedactorReply::Raised {
            message: "m".into(),
        },
    ] {
        check(
            methods::CALLBACK_REDACT,
            &RedactParams::new(ctx.clone()),
            &RedactResult::from(reply),
        )?;
    }
    Ok(())
}

fn schema_rejects() -> Result<(), String> {
    let s = Schemas::get();
    let bad = [
        (methods::INITIALIZE, json!({"protocol": "lsp/3"}), true),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null, "expect": {}}),
            true,
        ),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null, "declaration": null}),
            true,
        ),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null, "declaration": {}, "declaration_text": "{}"}),
            true,
        ),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null, "declaration_file": "unplugged"}),
            true,
        ),
        (methods::VECTOR_RUN, json!({"outcome": "passed"}), false),
        (
            methods::VECTOR_RUN,
            json!({"outcome": "completed", "released_output": ["a"]}),
            false,
        ),
        (
            methods::VECTOR_RUN,
            json!({"outcome": "completed", "principal_notices": [{"notice": 1}]}),
            false,
        ),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [{"name": "audit"}], "identity_provider": null}),
            true,
        ),
        (
            methods::VECTOR_SETUP,
            json!({"vector_id": "v", "spec": "s", "scenario": {}, "interceptors": [], "identity_provider": null, "interceptor_timeout_ms": 0}),
            true,
        ),
        (
            methods::CALLBACK_INTERCEPT,
            json!({"index": -1, "context": {}}),
            true,
        ),
        (
            methods::CALLBACK_INTERCEPT,
            json!({"outcome": "timeout"}),
            false,
        ),
        (
            methods::CALLBACK_REDACT,
            json!({"outcome": "redacted"}),
            false,
        ),
    ];
    for (method, value, is_params) in bad {
        let checked = if is_params {
            s.check_params(method, &value)
        } else {
            s.check_result(method, &value)
        };
        ensure(checked.is_err(), || format!("{method} accepted {value}"))?;
    }
    Ok(())
}

/// Every ```jsonl block of PROTOCOL.md is a transcript: `-> ` lines go from
/// the runner to the host, `<- ` lines back. Each line must validate, each
/// response against the method of the request it answers, and a notification
/// (host to runner only) against its own.
fn protocol_examples() -> Result<(), String> {
    let text = include_str!("../../PROTOCOL.md");
    let schemas = Schemas::get();
    let mut blocks = 0;
    let mut lines_checked = 0;
    let mut in_block = false;
    let mut open: HashMap<(bool, String), String> = HashMap::new();
    for (n, raw) in text.lines().enumerate() {
        let n = n + 1;
        if raw.trim_start().starts_with("```") {
            in_block = !in_block && raw.trim() == "```jsonl";
            if in_block {
                blocks += 1;
                open.clear();
            }
            continue;
        }
        if !in_block || raw.trim().is_empty() {
            continue;
        }
        let (to_host, body) = if let Some(b) = raw.strip_prefix("-> ") {
            (true, b)
        } else if let Some(b) = raw.strip_prefix("<- ") {
            (false, b)
        } else {
            return Err(format!(
                "PROTOCOL.md:{n}: a transcript line starts with `-> ` or `<- `"
            ));
        };
        let value: Value =
            serde_json::from_str(body).map_err(|e| format!("PROTOCOL.md:{n}: {e}"))?;
        schemas
            .check_envelope(&value)
            .map_err(|e| format!("PROTOCOL.md:{n}: {e}"))?;
        match Message::from_value(value).map_err(|e| format!("PROTOCOL.md:{n}: {e}"))? {
            Message::Request { id, method, params } => {
                schemas
                    .check_params(&method, &params)
                    .map_err(|e| format!("PROTOCOL.md:{n}: {e}"))?;
                open.insert((to_host, id.to_string()), method);
            }
            Message::Response { id, result } => {
                let method = open
                    .remove(&(!to_host, id.to_string()))
                    .ok_or_else(|| format!("PROTOCOL.md:{n}: answers no open request"))?;
                schemas
                    .check_result(&method, &result)
                    .map_err(|e| format!("PROTOCOL.md:{n}: {e}"))?;
            }
            Message::Error { .. } => {}
            Message::Notification { method, params } if !to_host => {
                schemas
                    .check_notification(&method, &params)
                    .map_err(|e| format!("PROTOCOL.md:{n}: {e}"))?;
            }
            other => return Err(format!("PROTOCOL.md:{n}: unexpected {other:?}")),
        }
        lines_checked += 1;
    }
    ensure(blocks >= 3 && lines_checked >= 15, || {
        format!("only {blocks} transcripts, {lines_checked} lines")
    })
}

/// `scenario.json` is the grammar HOSTS.md promises: every scenario of the
/// kit's own vectors validates against it, and one breaking it does not.
fn scenario_schema_covers_the_vectors() -> Result<(), String> {
    let schema: Value = serde_json::from_str(include_str!(
        "../../../../schemas/harness-protocol/scenario.json"
    ))
    .map_err(|e| e.to_string())?;
    let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors");
    let mut checked = 0;
    for line in ["0.1", "draft"] {
        let dir = std::path::Path::new(root).join(line);
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let vector: Value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let scenario = vector.get("scenario").cloned().unwrap_or(Value::Null);
            if let Some(e) = validator.iter_errors(&scenario).next() {
                return Err(format!(
                    "{}: the scenario breaks scenario.json at {}: {e}",
                    path.display(),
                    e.instance_path()
                ));
            }
            checked += 1;
        }
    }
    ensure(checked >= 100, || format!("only {checked} vectors checked"))?;
    let broken = json!({"input": {"content": "hi", "role": "moderator"}});
    ensure(!validator.is_valid(&broken), || {
        "scenario.json accepted an unknown input role".into()
    })
}

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        Trial::test("schemas::rust_types_validate", || {
            round_trips().map_err(Into::into)
        }),
        Trial::test("schemas::violations_are_rejected", || {
            schema_rejects().map_err(Into::into)
        }),
        Trial::test("schemas::scenario_schema_covers_the_vectors", || {
            scenario_schema_covers_the_vectors().map_err(Into::into)
        }),
        Trial::test("schemas::protocol_md_examples_validate", || {
            protocol_examples().map_err(Into::into)
        }),
    ]
}
