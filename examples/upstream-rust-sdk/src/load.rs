//! Building emitters through the crate's declaration loader: the document a
//! field-configured setup becomes, and the construction paths of a
//! declaration vector (PROTOCOL.md §2.2) with their comparison (§7.7.7).
//!
//! Every step of the load (§7.7.6 steps 1 to 11) is the crate's
//! (`HostDeclaration::from_path`, `from_json`, `from_value`,
//! `ctk::builder_from_value`, `InterceptionEmitter::from_declaration`);
//! this module only decides which paths apply and compares what they give.

use std::sync::atomic::{AtomicU64, Ordering};

use agent_hooks::ctk::builder_from_value;
use agent_hooks::{
    DeclarationError, HostDeclaration, HostRegistry, InterceptionEmitter, DECLARATION_VERSION,
    SPEC_VERSION,
};
use ctk_agent_hooks_adapter::{DeclarationFileFault, VectorSetup};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Value};

use crate::plumbing::{CTK_REDACTOR, CTK_SCRIPTED_KIND, CTK_SCRIPTED_RESOLVER};

/// The interceptor timeout a setup without one runs under (HOSTS.md §6).
pub const DEFAULT_INTERCEPTOR_TIMEOUT_MS: u64 = 5000;

/// The document a field-configured setup becomes: its mode, composition,
/// identity provider, resolver, redactor and timeouts, and one `ctk.scripted`
/// binding per interceptor, bound at every point of the surface. The
/// approval timeout, when the setup leaves it out, is the interceptor
/// timeout in force (HOSTS.md §6).
pub fn field_document(setup: &VectorSetup) -> Value {
    let interceptor_ms = setup
        .interceptor_timeout_ms
        .unwrap_or(DEFAULT_INTERCEPTOR_TIMEOUT_MS);
    let approval_ms = setup.approval_timeout_ms.unwrap_or(interceptor_ms);
    let bindings: Vec<Value> = (0..setup.interceptors.len())
        .map(|i| json!({"id": format!("interceptor-{i}"), "kind": CTK_SCRIPTED_KIND, "config": {"script": i}}))
        .collect();
    json!({
        "declaration": DECLARATION_VERSION,
        "spec": SPEC_VERSION,
        "configuration": {
            "mode": setup.mode.as_str(),
            "composition": serde_json::to_value(setup.composition).unwrap_or(Value::Null),
            "identity_provider": match setup.identity_provider.as_deref() {
                None => Value::Null,
                Some(name) => Value::String(name.to_owned()),
            },
            "approval": {
                "resolver": if setup.approval_resolver { json!(CTK_SCRIPTED_RESOLVER) } else { Value::Null },
                "redactor": if setup.redactor { json!(CTK_REDACTOR) } else { Value::Null },
            },
            "timeouts": { "interceptor_ms": interceptor_ms, "approval_resolver_ms": approval_ms },
        },
        "bindings": bindings,
    })
}

/// Where a declaration vector's document comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentSource {
    /// A parsed value: value, text, file, and builder for an object root.
    Value(Value),
    /// Raw text: text and file; value and builder only when it parses as one
    /// JSON value with no member name repeated within an object.
    Text(String),
    /// A file fault, loaded through the file path only; its bytes come from
    /// the document text, when the fault has any.
    File(DeclarationFileFault, Option<String>),
}

impl DocumentSource {
    /// The source a setup names, if it is a declaration vector's.
    pub fn of(setup: &VectorSetup) -> Option<DocumentSource> {
        let text = || {
            setup.declaration_text.clone().or_else(|| {
                setup
                    .declaration
                    .as_ref()
                    .and_then(|d| serde_json::to_string(d).ok())
            })
        };
        match (
            setup.declaration_file,
            &setup.declaration_text,
            &setup.declaration,
        ) {
            (Some(fault), _, _) => Some(DocumentSource::File(fault, text())),
            (None, Some(t), _) => Some(DocumentSource::Text(t.clone())),
            (None, None, Some(d)) => Some(DocumentSource::Value(d.clone())),
            (None, None, None) => None,
        }
    }
}

/// What loading a document came to on every path that applies.
pub struct Loaded {
    /// The emitter of the path the run uses (value for a value, text for
    /// text, file for a file fault), or its refusal.
    pub emitter: Result<InterceptionEmitter, DeclarationError>,
    /// Whether every path reached the same canonical resolved form, or
    /// refused with the same class.
    pub equivalent: bool,
    /// Where the paths differ, when they do.
    pub detail: Option<String>,
}

/// Load `source` through the paths it allows with `registry` (a fresh one
/// per path: the crate's kind resolvers run once per emitter).
pub fn load_source(source: &DocumentSource, registry: &dyn Fn() -> HostRegistry) -> Loaded {
    let build = |decl: Result<HostDeclaration, DeclarationError>| {
        decl.and_then(|d| InterceptionEmitter::from_declaration(d, &registry()))
    };
    let mut paths: Vec<(&'static str, Result<InterceptionEmitter, DeclarationError>)> = Vec::new();
    match source {
        DocumentSource::Value(document) => {
            let text = serde_json::to_string(document).unwrap_or_default();
            paths.push((
                "value",
                build(HostDeclaration::from_value(document.clone())),
            ));
            paths.push(("text", build(HostDeclaration::from_json(&text))));
            paths.push(("file", build(from_file_bytes(text.as_bytes()))));
            if document.is_object() {
                paths.push(("builder", build(builder_from_value(document).build())));
            }
        }
        DocumentSource::Text(text) => {
            paths.push(("text", build(HostDeclaration::from_json(text))));
            paths.push(("file", build(from_file_bytes(text.as_bytes()))));
            if let Some(document) = parse_exact(text) {
                if document.is_object() {
                    paths.push(("builder", build(builder_from_value(&document).build())));
                }
                paths.push(("value", build(HostDeclaration::from_value(document))));
            }
        }
        DocumentSource::File(fault, text) => {
            paths.push(("file", build(from_file_fault(*fault, text.as_deref()))));
        }
    }
    compare(paths)
}

/// What a path's outcome is compared by. A file path's `unreadable` counts
/// as `malformed` (the kit's decision D-78): step 1 runs on the file path
/// only, so a text over 1 MiB or starting with U+FEFF is each of them.
fn key(path: &str, outcome: &Result<InterceptionEmitter, DeclarationError>) -> String {
    match outcome {
        Ok(emitter) => format!(
            "accepted {}",
            emitter
                .declaration()
                .map(|d| d.canonical_json())
                .unwrap_or_default()
        ),
        Err(e) if path == "file" && e.code() == "declaration_error:unreadable" => {
            "refused declaration_error:malformed".to_owned()
        }
        Err(e) => format!("refused {}", e.code()),
    }
}

fn compare(
    mut paths: Vec<(&'static str, Result<InterceptionEmitter, DeclarationError>)>,
) -> Loaded {
    let keys: Vec<String> = paths.iter().map(|(name, r)| key(name, r)).collect();
    let (first, emitter) = paths.remove(0);
    let detail = paths
        .iter()
        .zip(&keys[1..])
        .find(|(_, k)| **k != keys[0])
        .map(|((name, _), k)| {
            let at = keys[0]
                .bytes()
                .zip(k.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| keys[0].len().min(k.len()));
            format!("the {name} path differs from the {first} path at byte {at}: {first}: {}; {name}: {k}", keys[0])
        });
    Loaded {
        emitter,
        equivalent: detail.is_none(),
        detail,
    }
}

static TEMP: AtomicU64 = AtomicU64::new(0);

/// A fresh, empty directory of this process.
fn fresh_dir() -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "upstream-rust-sdk-host-{}-{}",
        std::process::id(),
        TEMP.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn cannot_prepare(e: &std::io::Error) -> DeclarationError {
    DeclarationError::new(
        agent_hooks::DeclarationErrorClass::Unreadable,
        "",
        format!("this host cannot prepare the temporary file: {}", e.kind()),
    )
}

/// The crate's file path over `bytes` written to a fresh file.
fn from_file_bytes(bytes: &[u8]) -> Result<HostDeclaration, DeclarationError> {
    let dir = fresh_dir().map_err(|e| cannot_prepare(&e))?;
    let path = dir.join("declaration.json");
    let loaded = match std::fs::write(&path, bytes) {
        Ok(()) => HostDeclaration::from_path(&path),
        Err(e) => Err(cannot_prepare(&e)),
    };
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// Materialise `fault` (PROTOCOL.md §2.2) and load it through the crate's
/// file path.
fn from_file_fault(
    fault: DeclarationFileFault,
    text: Option<&str>,
) -> Result<HostDeclaration, DeclarationError> {
    if fault.has_contents() {
        let bytes = text.and_then(|t| fault.contents(t)).ok_or_else(|| {
            DeclarationError::new(
                agent_hooks::DeclarationErrorClass::Unreadable,
                "",
                format!("the {} file fault needs a document text", fault.as_str()),
            )
        })?;
        return from_file_bytes(&bytes);
    }
    let dir = fresh_dir().map_err(|e| cannot_prepare(&e))?;
    let path = dir.join("declaration.json");
    let loaded = match fault {
        DeclarationFileFault::Directory => match std::fs::create_dir(&path) {
            Ok(()) => HostDeclaration::from_path(&path),
            Err(e) => Err(cannot_prepare(&e)),
        },
        // Missing: nothing at the path.
        _ => HostDeclaration::from_path(&path),
    };
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

/// `text` as one JSON value when no object in it repeats a member name;
/// `None` otherwise (then the value and builder paths do not apply).
pub fn parse_exact(text: &str) -> Option<Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Exact.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// A `Value` visitor that refuses a repeated member name.
struct Exact;

impl<'de> DeserializeSeed<'de> for Exact {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Exact {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| de::Error::custom("non-finite number"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Exact)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom("repeated member name"));
            }
            let v = map.next_value_seed(Exact)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_parse_refuses_repeated_names_and_trailing_text() {
        assert_eq!(
            parse_exact(r#"{"a":[1,{"b":2}]}"#),
            Some(json!({"a":[1,{"b":2}]}))
        );
        assert_eq!(parse_exact(r#"{"a":1,"a":2}"#), None);
        assert_eq!(parse_exact(r#"{"a":{"b":1,"b":1}}"#), None);
        assert_eq!(parse_exact(r#"{} {}"#), None);
    }
}
