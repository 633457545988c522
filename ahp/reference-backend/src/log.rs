//! Diagnostics on stderr, one line per message handled.
//!
//! stdout carries protocol frames only (spec 17.1), so every log line goes
//! to stderr. A line names the method, the disposition and the JSON-RPC
//! error code; it never holds message content, tokens or reasons.

use crate::backend::{Disposition, Handled};

/// Where the backend's diagnostics go: stderr, or nowhere with `quiet`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Logger {
    /// Drop every line (the `--quiet` flag).
    pub quiet: bool,
}

impl Logger {
    /// Write one diagnostic line to stderr, prefixed with the binary name.
    pub fn line(&self, text: &str) {
        if !self.quiet {
            eprintln!("ctk-ahp-backend: {text}");
        }
    }

    /// Log what happened to one message (`via` names the binding).
    pub fn handled(&self, via: &str, h: &Handled) {
        if self.quiet {
            return;
        }
        let method = h.method.as_deref().unwrap_or("-");
        let what = match &h.disposition {
            Disposition::NoEffect => "no effect".to_owned(),
            Disposition::Denied(Some(rule)) => format!("deny (rule {rule})"),
            Disposition::Denied(None) => "deny".to_owned(),
            Disposition::Error(code) => format!("error {code}"),
            Disposition::Notification => "notification, not answered".to_owned(),
            Disposition::Ignored => "ignored, not answered".to_owned(),
        };
        self.line(&format!("{via}: {method}: {what}"));
    }
}
