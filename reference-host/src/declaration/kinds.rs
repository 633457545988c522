//! Binding kinds the reference host ships (§7.7.5: the spec defines none).
//!
//! | kind | config | interceptor |
//! | --- | --- | --- |
//! | `reference.allow-all` | `{}` (or absent) | allows every emission: the explicit passthrough §7 asks for |
//! | `reference.tool-deny-list` | `{"<tool name>": "<deny reason>", ...}` | at `pre_tool_call`, denies a call to a listed tool with its reason; allows everything else |
//!
//! Resolvers validate `config` at load and never echo it in an error.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::compose::dispatch::{BoxFuture, Interceptor, InterceptorAnswer};
use crate::declaration::error::HostRegistryError;
use crate::declaration::registry::{BindingContext, HostRegistry};
use crate::reason::is_reserved_under;

/// Kind name of the allow-all interceptor.
pub const ALLOW_ALL: &str = "reference.allow-all";
/// Kind name of the tool deny-list interceptor.
pub const TOOL_DENY_LIST: &str = "reference.tool-deny-list";

/// Allows every emission.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl Interceptor for AllowAll {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

/// Denies calls to listed tools at `pre_tool_call`, each with its reason.
#[derive(Debug, Clone, Default)]
pub struct ToolDenyList {
    deny: BTreeMap<String, String>,
}

impl ToolDenyList {
    /// A deny list: tool name → deny reason.
    pub fn new(deny: BTreeMap<String, String>) -> ToolDenyList {
        ToolDenyList { deny }
    }
}

impl Interceptor for ToolDenyList {
    fn intercept(&self, context: Value) -> BoxFuture<InterceptorAnswer> {
        let reason = (context.get("interception_point").and_then(Value::as_str)
            == Some("pre_tool_call"))
        .then(|| {
            context
                .pointer("/tool_call/name")
                .and_then(Value::as_str)
                .and_then(|name| self.deny.get(name))
                .cloned()
        })
        .flatten();
        Box::pin(async move {
            InterceptorAnswer::Returned(match reason {
                Some(r) => json!({"decision": "deny", "reason": r}),
                None => json!({"decision": "allow"}),
            })
        })
    }
}

/// Resolve an `reference.allow-all` binding: `config` must be `{}`.
pub fn resolve_allow_all(
    config: &Value,
    _binding: &BindingContext,
) -> Result<Arc<dyn Interceptor>, String> {
    match config.as_object() {
        Some(m) if m.is_empty() => Ok(Arc::new(AllowAll)),
        _ => Err("config must be an empty object".into()),
    }
}

/// Resolve a `reference.tool-deny-list` binding: `config` maps tool names to
/// deny reasons (non-empty strings outside the reserved namespaces).
pub fn resolve_tool_deny_list(
    config: &Value,
    binding: &BindingContext,
) -> Result<Arc<dyn Interceptor>, String> {
    let map = config
        .as_object()
        .ok_or("config must be an object of tool name to deny reason")?;
    let mut deny = BTreeMap::new();
    for (tool, reason) in map {
        match reason.as_str() {
            Some(r) if !r.is_empty() && !is_reserved_under(r, binding.spec) => {
                deny.insert(tool.clone(), r.to_owned());
            }
            _ => {
                return Err(
                    "every deny reason must be a non-empty string outside the reserved namespaces"
                        .into(),
                )
            }
        }
    }
    Ok(Arc::new(ToolDenyList::new(deny)))
}

/// `registry` with the reference host's two kinds registered.
pub fn with_reference_kinds(registry: HostRegistry) -> Result<HostRegistry, HostRegistryError> {
    registry
        .kind(ALLOW_ALL, Arc::new(resolve_allow_all))?
        .kind(TOOL_DENY_LIST, Arc::new(resolve_tool_deny_list))
}
