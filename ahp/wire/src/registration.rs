//! The portable registration document (spec 19): which backends a harness
//! calls, in which order, for which events, over which transport, and what
//! it does when one fails.
//!
//! [`load_file`] and [`parse`] validate before they build the typed model:
//! a harness must reject an invalid or ambiguous registration at load time
//! rather than skip part of it (spec 6.1, 13.3), so a document with any
//! finding yields [`RegistrationError::Invalid`] listing all of them.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::json;
use crate::validate::{self, Finding};

/// A portable registration document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    /// Wire version, `"0.1"`.
    pub protocol_version: String,
    /// Backends in evaluation order (interceptors run serially in this
    /// order, spec 13.1).
    pub hooks: Vec<Backend>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One backend entry of `hooks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backend {
    /// Reverse-DNS id, unique within the document.
    pub id: String,
    /// How the harness reaches the backend.
    pub transport: Transport,
    /// Credential reference (http only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<Authentication>,
    /// What the backend receives, and how.
    pub subscriptions: Vec<Subscription>,
    /// Members 0.1 does not define, kept verbatim.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// How a stdio backend process lives (spec 17.2, 17.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lifecycle {
    /// One long-lived process handles many messages.
    #[serde(rename = "persistent")]
    Persistent,
    /// One process per message: one frame on stdin, then EOF.
    #[serde(rename = "per_event")]
    PerEvent,
}

/// A backend transport (spec 19.4, 19.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Transport {
    /// A local process, run directly without a shell.
    #[serde(rename = "stdio")]
    Stdio {
        /// Executable path or name.
        command: String,
        /// Arguments, passed as they are.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Process lifecycle.
        lifecycle: Lifecycle,
        /// Working directory of the backend.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// An HTTP endpoint, one POST per message.
    #[serde(rename = "http")]
    Http {
        /// Absolute endpoint URL (https unless loopback).
        url: String,
    },
}

/// Backend authentication: 0.1 has one portable form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Authentication {
    /// `Authorization: Bearer <token>`, the token read at send time from
    /// an environment variable; the document holds only its name.
    #[serde(rename = "bearer")]
    Bearer {
        /// Name of the environment variable holding the token.
        #[serde(rename = "tokenEnv")]
        token_env: String,
    },
}

/// What a harness does with an intercept backend's operational failure
/// (spec 14.2). There is no default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailurePolicy {
    /// Record the failure and go on to the next interceptor.
    #[serde(rename = "fail-open")]
    FailOpen,
    /// Stop and deny the operation (a synthetic denial).
    #[serde(rename = "fail-closed")]
    FailClosed,
}

/// One subscription of a backend (spec 19.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode")]
pub enum Subscription {
    /// A blocking decision step (`hooks/intercept`), `tool.before` only.
    #[serde(rename = "intercept", rename_all = "camelCase")]
    Intercept {
        /// Exactly `["tool.before"]`.
        events: Vec<String>,
        /// Deadline in milliseconds (at least 1). 0.1 sets no maximum; a
        /// value beyond `u64` (which JSON reads as a float) saturates.
        #[serde(deserialize_with = "saturating_ms")]
        timeout_ms: u64,
        /// What an operational failure does.
        failure_policy: FailurePolicy,
        /// Whether `native` is sent (default false).
        #[serde(default)]
        include_native: bool,
    },
    /// Non-blocking delivery (`hooks/observe`); always fails open.
    #[serde(rename = "observe", rename_all = "camelCase")]
    Observe {
        /// Event types delivered.
        events: Vec<String>,
        /// Whether `native` is sent (default false).
        #[serde(default)]
        include_native: bool,
    },
}

/// Read a positive JSON integer as `u64`, saturating: the schema already
/// required an integer of at least 1, and 0.1 defines no upper bound
/// (open question 5), so a huge deadline is valid and means "no practical
/// limit".
fn saturating_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    // A positive value that is not a u64 is an integer beyond u64 that
    // JSON reading turned into a float.
    n.as_u64()
        .or_else(|| n.as_f64().filter(|f| *f >= 1.0).map(|_| u64::MAX))
        .ok_or_else(|| serde::de::Error::custom("timeoutMs must be a positive integer"))
}

impl Subscription {
    /// The event names this subscription covers (exact names; 0.1 has no
    /// patterns).
    pub fn events(&self) -> &[String] {
        match self {
            Subscription::Intercept { events, .. } | Subscription::Observe { events, .. } => events,
        }
    }

    /// Whether it covers `event` (exact match, spec 6.2).
    pub fn covers(&self, event: &str) -> bool {
        self.events().iter().any(|e| e == event)
    }
}

impl Registration {
    /// The intercept subscriptions covering `tool.before`, in evaluation
    /// order, with their backend: the interceptor chain of spec 13.1.
    pub fn interceptors(&self) -> Vec<(&Backend, &Subscription)> {
        self.hooks
            .iter()
            .flat_map(|b| b.subscriptions.iter().map(move |s| (b, s)))
            .filter(|(_, s)| matches!(s, Subscription::Intercept { .. }) && s.covers("tool.before"))
            .collect()
    }
}

/// Why a registration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// The file could not be read.
    #[error("{}: cannot read the registration document: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The document breaks one or more rules; every finding is listed.
    #[error("{}", Summary { file, findings })]
    Invalid {
        /// The file (or the label the caller gave [`parse`]).
        file: PathBuf,
        /// Every problem, in document order of discovery.
        findings: Vec<Finding>,
    },
}

impl RegistrationError {
    /// The findings (empty for a read error).
    pub fn findings(&self) -> &[Finding] {
        match self {
            RegistrationError::Invalid { findings, .. } => findings,
            RegistrationError::Read { .. } => &[],
        }
    }
}

/// Display of [`RegistrationError::Invalid`]: the first finding with the
/// file, and how many more there are.
struct Summary<'a> {
    file: &'a Path,
    findings: &'a [Finding],
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display().to_string();
        match self.findings.split_first() {
            Some((first, rest)) => {
                write!(f, "{}", first.render(&file))?;
                if !rest.is_empty() {
                    write!(f, " (and {} more problem(s))", rest.len())?;
                }
                Ok(())
            }
            None => write!(f, "{file}: invalid registration document"),
        }
    }
}

/// Options for loading a registration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Hosts the operator declares an explicitly controlled local
    /// development environment, where plain http is allowed besides
    /// loopback (spec 18.2). Empty by default: then only loopback may use
    /// plain http.
    pub local_http_hosts: Vec<String>,
}

/// Read, validate and build the registration in `file`.
pub fn load_file(file: &Path) -> Result<Registration, RegistrationError> {
    load_file_with(file, &LoadOptions::default())
}

/// [`load_file`] with options.
pub fn load_file_with(
    file: &Path,
    options: &LoadOptions,
) -> Result<Registration, RegistrationError> {
    let bytes = std::fs::read(file).map_err(|source| RegistrationError::Read {
        file: file.to_path_buf(),
        source,
    })?;
    parse(&bytes, file, options)
}

/// Validate and build a registration from `bytes`; `label` names the
/// document in errors.
pub fn parse(
    bytes: &[u8],
    label: &Path,
    options: &LoadOptions,
) -> Result<Registration, RegistrationError> {
    let invalid = |findings| RegistrationError::Invalid {
        file: label.to_path_buf(),
        findings,
    };
    let value = json::parse_bytes(bytes).map_err(|e| invalid(vec![validate::json_finding(&e)]))?;
    let findings = validate::check_registration(&value, &options.local_http_hosts);
    if !findings.is_empty() {
        return Err(invalid(findings));
    }
    serde_json::from_value(value).map_err(|e| {
        // The schema and rules accepted it, so this is a gap between the
        // schema and the model: say so rather than blame the document.
        invalid(vec![Finding::new(
            validate::Rule::Schema,
            "",
            format!("valid document the typed model cannot hold (a ctk-ahp-wire defect): {e}"),
        )])
    })
}
