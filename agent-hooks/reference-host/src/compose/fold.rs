//! What every profile shares: the emission's inputs, the composed outcome,
//! transform folding with write-back, and the §7.3 unions.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::compose::dispatch::{Judged, Registration};
use crate::compose::profile::Mode;
use crate::context::build::write_back;
use crate::point::Point;
use crate::reason::ReservedReason;
use crate::seam::approval::Seam;
use crate::spec_version::SpecVersion;
use crate::verdict::model::{Decision, Verdict, Warning};

/// The inputs of one composition.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// The emitted point.
    pub point: Point,
    /// Enforcement mode.
    pub mode: Mode,
    /// Interceptors bound at the point, in dispatch order.
    pub bound: &'a [Registration],
    /// Default interceptor timeout.
    pub timeout: Option<Duration>,
    /// The approval seam.
    pub seam: &'a Seam,
    /// The spec version whose rules apply.
    pub version: SpecVersion,
}

impl Step<'_> {
    /// Whether the approval seam may be consulted at all (§9): enforce mode,
    /// a registered resolver, and never at `agent_shutdown`.
    pub fn may_consult(&self) -> bool {
        self.mode == Mode::Enforce
            && self.seam.resolver.is_some()
            && self.point != Point::AgentShutdown
    }

    /// Fold a transform verdict into `context`: applied with write-back in
    /// enforce mode, only validated (on a scratch copy) in evaluate_only.
    /// The context is copied first only while something else still holds
    /// it (the emitter's own input, or a lent snapshot), so what an
    /// interceptor was lent never changes under it.
    pub fn fold(&self, context: &mut Arc<Value>, verdict: &Verdict) -> Result<(), ReservedReason> {
        if verdict.transform.is_none() {
            return Ok(());
        }
        match self.mode {
            Mode::Enforce => apply_transform(Arc::make_mut(context), self.point, verdict),
            Mode::EvaluateOnly => apply_transform(&mut (**context).clone(), self.point, verdict),
        }
    }
}

/// Apply a transform verdict to a context's target and write it back.
pub fn apply_transform(
    context: &mut Value,
    point: Point,
    verdict: &Verdict,
) -> Result<(), ReservedReason> {
    let Some(t) = &verdict.transform else {
        return Ok(());
    };
    if !point.transformable() {
        return Err(ReservedReason::TransformTargetForbidden);
    }
    let target = context
        .get_mut("target")
        .ok_or(ReservedReason::TransformInvalid)?;
    t.path.apply(target, t.value.clone())?;
    write_back(context, point);
    Ok(())
}

/// How the seam ended, when it was consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolvedBy {
    /// A permit resolution substituted for a verdict.
    Approval,
    /// The seam was consulted and did not lift the deny.
    Rejection,
}

impl ResolvedBy {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ResolvedBy::Approval => "approval",
            ResolvedBy::Rejection => "rejection",
        }
    }
}

/// One entry of a record's `verdicts[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Index in the list bound at the point.
    pub index: usize,
    /// The interceptor's decision (or its substituted deny's).
    pub decision: Decision,
    /// Its reason.
    pub reason: Option<String>,
    /// Its registration name.
    pub name: Option<String>,
    /// Draft, best effort: the reserved reason the substituted allow
    /// stands for.
    pub substituted_for: Option<ReservedReason>,
}

impl Summary {
    /// Summarize interceptor `index`'s verdict.
    pub fn of(index: usize, reg: &Registration, v: &Verdict) -> Summary {
        Summary {
            index,
            decision: v.decision,
            reason: v.reason.clone(),
            name: reg.name.clone(),
            substituted_for: None,
        }
    }

    /// Summarize interceptor `index`'s judged call.
    pub fn of_judged(index: usize, reg: &Registration, j: &Judged) -> Summary {
        Summary {
            substituted_for: j.substituted_for,
            ..Summary::of(index, reg, &j.verdict)
        }
    }
}

/// The outcome of a composition, before finalization.
#[derive(Debug, Clone)]
pub struct Composed {
    /// The combined verdict, unions not yet applied.
    pub combined: Verdict,
    /// The winning or consulted index.
    pub decided_by: Option<usize>,
    /// Every invoked interceptor's summary.
    pub summaries: Vec<Summary>,
    /// Sequential profiles: whether a bound interceptor was never invoked.
    pub fold_truncated: Option<bool>,
    /// How the seam ended, if consulted.
    pub resolved_by: Option<ResolvedBy>,
    /// The context as composition left it (folded and/or transformed); the
    /// very snapshot composition started from when nothing folded.
    pub context: Arc<Value>,
    /// Every verdict of the emission, resolutions included, for the unions.
    pub pool: Vec<Verdict>,
}

/// The combined verdict of a pure-allow emission: the lowest-index allow, so
/// its reason, message and evidence reach the record (decided_by stays null).
pub fn first_allow(verdicts: &[Verdict]) -> Verdict {
    verdicts
        .iter()
        .find(|v| v.decision == Decision::Allow)
        .cloned()
        .unwrap_or_else(Verdict::allow)
}

/// Apply the §7.3 unions to the combined verdict: warnings over every
/// verdict (first seen, equal iff reason and message are equal), result
/// labels over permit verdicts only and dropped when the combined verdict
/// is a deny.
pub fn with_unions(mut combined: Verdict, pool: &[Verdict]) -> Verdict {
    let mut warnings: Vec<Warning> = Vec::new();
    for w in pool
        .iter()
        .chain(std::iter::once(&combined))
        .flat_map(|v| v.warnings.iter())
    {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let mut labels: Vec<String> = Vec::new();
    if combined.is_permit() {
        for l in pool
            .iter()
            .chain(std::iter::once(&combined))
            .filter(|v| v.is_permit())
            .flat_map(|v| v.result_labels.iter())
        {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    combined.warnings = warnings;
    combined.result_labels = labels;
    combined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::gate::gate;
    use serde_json::json;

    #[test]
    fn warnings_union_keeps_first_seen_order_without_duplicates() {
        let a = gate(&json!({"decision": "allow", "warnings": [{"reason": "x"}, {"reason": "y", "message": "m"}]})).expect("v");
        let b = gate(&json!({"decision": "deny", "reason": "r", "warnings": [{"reason": "y", "message": "m"}, {"reason": "z"}]})).expect("v");
        let combined = with_unions(b.clone(), &[a, b]);
        let reasons: Vec<_> = combined
            .warnings
            .iter()
            .map(|w| w.reason.clone().unwrap_or_default())
            .collect();
        assert_eq!(reasons, vec!["x", "y", "z"]);
    }

    #[test]
    fn labels_come_from_permits_and_vanish_on_deny() {
        let a = gate(&json!({"decision": "allow", "result_labels": ["a", "b"]})).expect("v");
        let t = gate(&json!({"decision": "transform", "transform": {"path": "$target"}, "result_labels": ["b", "c"]})).expect("v");
        let d = gate(&json!({"decision": "deny", "result_labels": ["d"]})).expect("v");
        assert_eq!(
            with_unions(t.clone(), &[a.clone(), t.clone(), d.clone()]).result_labels,
            vec!["a", "b", "c"]
        );
        assert!(with_unions(d.clone(), &[a, t, d]).result_labels.is_empty());
    }

    #[test]
    fn transforms_are_forbidden_at_session_boundaries() {
        let t = gate(&json!({"decision": "transform", "transform": {"path": "$target.tools_registered", "value": []}})).expect("v");
        let mut ctx = json!({"target": {"tools_registered": ["a"]}, "agent_init": {"tools_registered": ["a"]}});
        assert_eq!(
            apply_transform(&mut ctx, Point::AgentStartup, &t),
            Err(ReservedReason::TransformTargetForbidden)
        );
    }

    #[test]
    fn applied_transforms_are_written_back() {
        let t = gate(&json!({"decision": "transform", "transform": {"path": "$target.url", "value": "safe"}})).expect("v");
        let mut ctx = json!({"target": {"url": "evil"}, "tool_call": {"id": "1", "name": "n", "args": {"url": "evil"}}});
        apply_transform(&mut ctx, Point::PreToolCall, &t).expect("applies");
        assert_eq!(ctx["tool_call"]["args"]["url"], json!("safe"));
    }
}
