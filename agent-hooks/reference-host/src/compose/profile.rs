//! Enforcement mode (§8) and the four closed composition profiles with
//! their knobs (§7.2), resolved: a profile carries exactly the knob it consults.

use serde_json::{Map, Value};

/// Enforcement mode (§8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Honour combined verdicts.
    #[default]
    Enforce,
    /// Record verdicts, proceed as if allowed, never apply transforms,
    /// never consult the approval seam.
    EvaluateOnly,
}

impl Mode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::EvaluateOnly => "evaluate_only",
        }
    }
}

/// `on_approval` of `sequential/first_deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnApproval {
    /// A lifted deny ends the fold.
    #[default]
    Stop,
    /// A lifted deny is substituted and the fold goes on.
    Resume,
}

impl OnApproval {
    fn as_str(self) -> &'static str {
        match self {
            OnApproval::Stop => "stop",
            OnApproval::Resume => "resume",
        }
    }
}

/// `on_transform_conflict` / `on_disagreement` of the parallel profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Knob {
    /// Deny with the profile's reserved reason.
    #[default]
    Deny,
    /// Synthesize a liftable deny and consult the approval seam.
    Approval,
}

impl Knob {
    fn as_str(self) -> &'static str {
        match self {
            Knob::Deny => "deny",
            Knob::Approval => "approval",
        }
    }
}

/// A composition profile with its resolved knob (§7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Composition {
    /// Registration order, stop at the first deny.
    FirstDeny {
        /// What a lifted deny does.
        on_approval: OnApproval,
    },
    /// Registration order, every interceptor runs.
    RunAll,
    /// Isolated snapshots, the strictest verdict wins.
    Strictest {
        /// What two or more top-severity transforms do.
        on_transform_conflict: Knob,
    },
    /// Isolated snapshots, allow only if every verdict allows.
    Unanimous {
        /// What a disagreement does.
        on_disagreement: Knob,
    },
}

impl Default for Composition {
    /// The normative fail-closed default: `sequential/first_deny`, `stop`.
    fn default() -> Self {
        Composition::FirstDeny {
            on_approval: OnApproval::Stop,
        }
    }
}

impl Composition {
    /// The profile's wire name.
    pub fn profile_name(self) -> &'static str {
        match self {
            Composition::FirstDeny { .. } => "sequential/first_deny",
            Composition::RunAll => "sequential/run_all",
            Composition::Strictest { .. } => "parallel/strictest",
            Composition::Unanimous { .. } => "parallel/unanimous",
        }
    }

    /// Whether interceptors see a fold (sequential) or one snapshot (parallel).
    pub fn is_sequential(self) -> bool {
        matches!(self, Composition::FirstDeny { .. } | Composition::RunAll)
    }

    /// Whether records must list every verdict (§10.3).
    pub fn requires_verdicts(self) -> bool {
        !matches!(self, Composition::FirstDeny { .. })
    }

    /// The `composition` member of a record: the profile plus the knob it
    /// consults, with its resolved value; unconsulted knobs are absent.
    pub fn stamp(self) -> Value {
        let mut m = Map::new();
        m.insert("profile".into(), Value::String(self.profile_name().into()));
        match self {
            Composition::FirstDeny { on_approval } => {
                m.insert(
                    "on_approval".into(),
                    Value::String(on_approval.as_str().into()),
                );
            }
            Composition::RunAll => {}
            Composition::Strictest {
                on_transform_conflict,
            } => {
                m.insert(
                    "on_transform_conflict".into(),
                    Value::String(on_transform_conflict.as_str().into()),
                );
            }
            Composition::Unanimous { on_disagreement } => {
                m.insert(
                    "on_disagreement".into(),
                    Value::String(on_disagreement.as_str().into()),
                );
            }
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_is_first_deny_stop() {
        assert_eq!(
            Composition::default().stamp(),
            json!({"profile": "sequential/first_deny", "on_approval": "stop"})
        );
    }

    #[test]
    fn stamps_carry_only_the_consulted_knob() {
        assert_eq!(
            Composition::RunAll.stamp(),
            json!({"profile": "sequential/run_all"})
        );
        assert_eq!(
            Composition::Unanimous {
                on_disagreement: Knob::Approval
            }
            .stamp(),
            json!({"profile": "parallel/unanimous", "on_disagreement": "approval"})
        );
        assert_eq!(
            Composition::Strictest {
                on_transform_conflict: Knob::Deny
            }
            .stamp(),
            json!({"profile": "parallel/strictest", "on_transform_conflict": "deny"})
        );
    }
}
