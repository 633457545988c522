//! The embedded schemas of `schemas/harness-protocol/`: both ends check every
//! message they receive against the envelope and the method's schema.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::jsonrpc::WireError;
use super::methods;

/// The schema files, by file name, as embedded in the binary.
pub const FILES: [(&str, &str); 10] = [
    (
        "envelope.json",
        include_str!("../../../../schemas/harness-protocol/envelope.json"),
    ),
    (
        "initialize.json",
        include_str!("../../../../schemas/harness-protocol/initialize.json"),
    ),
    (
        "vector-setup.json",
        include_str!("../../../../schemas/harness-protocol/vector-setup.json"),
    ),
    (
        "vector-run.json",
        include_str!("../../../../schemas/harness-protocol/vector-run.json"),
    ),
    (
        "vector-teardown.json",
        include_str!("../../../../schemas/harness-protocol/vector-teardown.json"),
    ),
    (
        "shutdown.json",
        include_str!("../../../../schemas/harness-protocol/shutdown.json"),
    ),
    (
        "callback-intercept.json",
        include_str!("../../../../schemas/harness-protocol/callback-intercept.json"),
    ),
    (
        "callback-resolve-approval.json",
        include_str!("../../../../schemas/harness-protocol/callback-resolve-approval.json"),
    ),
    (
        "callback-redact.json",
        include_str!("../../../../schemas/harness-protocol/callback-redact.json"),
    ),
    (
        "callback-record.json",
        include_str!("../../../../schemas/harness-protocol/callback-record.json"),
    ),
];

/// The schema file of `method`: its name with `/` and `_` spelled `-`.
pub fn file_of(method: &str) -> String {
    format!("{}.json", method.replace(['/', '_'], "-"))
}

struct MethodValidators {
    params: jsonschema::Validator,
    result: jsonschema::Validator,
}

/// Compiled validators for the envelope and every method.
pub struct Schemas {
    envelope: jsonschema::Validator,
    methods: HashMap<&'static str, MethodValidators>,
    /// Params only: a notification has no result.
    notifications: HashMap<&'static str, jsonschema::Validator>,
}

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas")
            .field("methods", &self.methods.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn file(name: &str) -> Value {
    let text = FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .expect("every method has a schema file");
    serde_json::from_str(text).expect("embedded schemas are valid JSON")
}

/// A validator for `#/$defs/<def>` of a method file: the file's `$defs`
/// wrapped around a `$ref`, so internal references keep resolving.
fn def_validator(schema: &Value, def: &str) -> jsonschema::Validator {
    let wrapper = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": schema["$defs"],
        "$ref": format!("#/$defs/{def}"),
    });
    jsonschema::validator_for(&wrapper).expect("embedded schemas compile")
}

fn first_error(
    validator: &jsonschema::Validator,
    instance: &Value,
    what: impl FnOnce() -> String,
) -> Result<(), WireError> {
    match validator.iter_errors(instance).next() {
        None => Ok(()),
        Some(error) => {
            let pointer = error.instance_path().to_string();
            let detail = if pointer.is_empty() {
                error.to_string()
            } else {
                format!("at {pointer}: {error}")
            };
            let mut detail = detail;
            if detail.len() > 512 {
                let mut cut = 512;
                while !detail.is_char_boundary(cut) {
                    cut -= 1;
                }
                detail.truncate(cut);
                detail.push_str("...");
            }
            Err(WireError::Schema {
                what: what(),
                detail,
            })
        }
    }
}

impl Schemas {
    /// The compiled schemas, built once per process.
    pub fn get() -> &'static Schemas {
        static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
        SCHEMAS.get_or_init(Schemas::compile)
    }

    fn compile() -> Schemas {
        let envelope =
            jsonschema::validator_for(&file("envelope.json")).expect("envelope schema compiles");
        let methods = methods::ALL
            .iter()
            .map(|m| {
                let schema = file(&file_of(m));
                (
                    *m,
                    MethodValidators {
                        params: def_validator(&schema, "params"),
                        result: def_validator(&schema, "result"),
                    },
                )
            })
            .collect();
        let notifications = methods::NOTIFICATIONS
            .iter()
            .map(|n| (*n, def_validator(&file(&file_of(n)), "params")))
            .collect();
        Schemas {
            envelope,
            methods,
            notifications,
        }
    }

    /// Check a whole message against the envelope schema.
    pub fn check_envelope(&self, message: &Value) -> Result<(), WireError> {
        first_error(&self.envelope, message, || "message envelope".to_owned())
    }

    /// Check the params of `method`; an unknown method is an error.
    pub fn check_params(&self, method: &str, params: &Value) -> Result<(), WireError> {
        let v = self.method(method)?;
        first_error(&v.params, params, || format!("params of {method}"))
    }

    /// Check the result of `method`; an unknown method is an error.
    pub fn check_result(&self, method: &str, result: &Value) -> Result<(), WireError> {
        let v = self.method(method)?;
        first_error(&v.result, result, || format!("result of {method}"))
    }

    /// Check the params of notification `method`; an unknown notification
    /// is an error.
    pub fn check_notification(&self, method: &str, params: &Value) -> Result<(), WireError> {
        let v = self.notifications.get(method).ok_or_else(|| {
            WireError::InvalidEnvelope(format!("unknown notification `{method}`"))
        })?;
        first_error(v, params, || format!("params of {method}"))
    }

    fn method(&self, method: &str) -> Result<&MethodValidators, WireError> {
        self.methods
            .get(method)
            .ok_or_else(|| WireError::InvalidEnvelope(format!("unknown method `{method}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_a_file_and_compiles() {
        let s = Schemas::get();
        for m in methods::ALL {
            assert!(FILES.iter().any(|(n, _)| *n == file_of(m)), "{m}");
            assert!(
                s.check_params(m, &json!({"bogus": 1})).is_err() || m.starts_with("callback"),
                "{m}"
            );
        }
        for n in methods::NOTIFICATIONS {
            assert!(FILES.iter().any(|(f, _)| *f == file_of(n)), "{n}");
        }
        assert_eq!(
            FILES.len(),
            methods::ALL.len() + methods::NOTIFICATIONS.len() + 1
        );
    }

    #[test]
    fn envelope_rejects_batches_and_accepts_requests() {
        let s = Schemas::get();
        assert!(s.check_envelope(&json!([])).is_err());
        assert!(s
            .check_envelope(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown", "params": {}}))
            .is_ok());
        assert!(s
            .check_envelope(&json!({"jsonrpc": "2.0", "id": 1, "result": {}, "x": 1}))
            .is_err());
    }

    #[test]
    fn schema_errors_name_the_pointer() {
        let err = Schemas::get()
            .check_result(methods::VECTOR_RUN, &json!({"outcome": "won"}))
            .unwrap_err();
        assert!(err.to_string().contains("/outcome"), "{err}");
    }
}
