//! The parallel profiles (§7.5): every interceptor is lent one untransformed
//! snapshot (copied only for one that needs its own); nothing folds between
//! them.

use std::sync::Arc;

use serde_json::Value;

use crate::compose::dispatch::{judge_binding, start};
use crate::compose::fold::{first_allow, Composed, ResolvedBy, Step, Summary};
use crate::compose::profile::Knob;
use crate::reason::ReservedReason;
use crate::seam::approval::Consultation;
use crate::verdict::model::{Decision, Verdict};

async fn gather(step: Step<'_>, snapshot: &Arc<Value>) -> (Vec<Verdict>, Vec<Summary>) {
    // Start every interceptor before awaiting any: each runs on its own task.
    let pending: Vec<_> = step
        .bound
        .iter()
        .map(|reg| start(reg, snapshot, step.timeout))
        .collect();
    let mut verdicts = Vec::with_capacity(pending.len());
    let mut summaries = Vec::with_capacity(pending.len());
    for (i, (p, reg)) in pending.into_iter().zip(step.bound).enumerate() {
        let j = judge_binding(reg, p.wait().await, step.version);
        summaries.push(Summary::of_judged(i, reg, &j));
        verdicts.push(j.verdict);
    }
    (verdicts, summaries)
}

fn composed(
    combined: Verdict,
    decided_by: Option<usize>,
    summaries: Vec<Summary>,
    resolved_by: Option<ResolvedBy>,
    context: Arc<Value>,
    pool: Vec<Verdict>,
) -> Composed {
    Composed {
        combined,
        decided_by,
        summaries,
        fold_truncated: None,
        resolved_by,
        context,
        pool,
    }
}

/// Consult the seam about `deny` on the snapshot and settle the emission;
/// `decided_by` is the consulted index (`None` for a synthesized deny).
async fn settle(
    step: Step<'_>,
    deny: Verdict,
    decided_by: Option<usize>,
    snapshot: Arc<Value>,
    summaries: Vec<Summary>,
    mut pool: Vec<Verdict>,
) -> Composed {
    if !step.may_consult() {
        return composed(deny, decided_by, summaries, None, snapshot, pool);
    }
    match step.seam.consult(step.point, &deny, &snapshot).await {
        Consultation::Rejected(r) => {
            pool.push(r.clone());
            composed(
                r,
                decided_by,
                summaries,
                Some(ResolvedBy::Rejection),
                snapshot,
                pool,
            )
        }
        Consultation::Approved(p) => {
            pool.push(p.clone());
            let mut work = snapshot;
            // Lower-severity transforms of the emission are not applied; only
            // the resolution's own transform is.
            if let Err(reason) = step.fold(&mut work, &p) {
                return composed(
                    Verdict::host_deny(reason),
                    None,
                    summaries,
                    Some(ResolvedBy::Approval),
                    work,
                    pool,
                );
            }
            composed(
                p,
                decided_by,
                summaries,
                Some(ResolvedBy::Approval),
                work,
                pool,
            )
        }
    }
}

/// Settle what the profile's knob governs (§7.5): `deny` is the reserved
/// deny for `reason`; `approval` synthesizes its liftable form and puts it
/// to the seam.
async fn by_knob(
    step: Step<'_>,
    knob: Knob,
    reason: ReservedReason,
    snapshot: Arc<Value>,
    summaries: Vec<Summary>,
    pool: Vec<Verdict>,
) -> Composed {
    match knob {
        Knob::Deny => composed(
            Verdict::host_deny(reason),
            None,
            summaries,
            None,
            snapshot,
            pool,
        ),
        Knob::Approval => {
            let synth = Verdict::host_liftable(reason);
            settle(step, synth, None, snapshot, summaries, pool).await
        }
    }
}

/// `parallel/strictest`: the most severe verdict wins.
pub async fn strictest(step: Step<'_>, on_conflict: Knob, snapshot: Arc<Value>) -> Composed {
    let (verdicts, summaries) = gather(step, &snapshot).await;
    let pool = verdicts.clone();
    if let Some(i) = verdicts.iter().position(|v| v.severity() == 3) {
        return composed(
            verdicts[i].clone(),
            Some(i),
            summaries,
            None,
            snapshot,
            pool,
        );
    }
    if let Some(i) = verdicts.iter().position(Verdict::is_liftable) {
        return settle(
            step,
            verdicts[i].clone(),
            Some(i),
            snapshot,
            summaries,
            pool,
        )
        .await;
    }
    let transforms: Vec<usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.decision == Decision::Transform)
        .map(|(i, _)| i)
        .collect();
    match transforms.as_slice() {
        [] => composed(
            first_allow(&verdicts),
            None,
            summaries,
            None,
            snapshot,
            pool,
        ),
        [only] => {
            let mut work = snapshot;
            if let Err(reason) = step.fold(&mut work, &verdicts[*only]) {
                return composed(
                    Verdict::host_deny(reason),
                    None,
                    summaries,
                    None,
                    work,
                    pool,
                );
            }
            composed(
                verdicts[*only].clone(),
                Some(*only),
                summaries,
                None,
                work,
                pool,
            )
        }
        _ => {
            let conflict = ReservedReason::TransformConflict;
            by_knob(step, on_conflict, conflict, snapshot, summaries, pool).await
        }
    }
}

/// `parallel/unanimous`: allow only if every verdict allows.
pub async fn unanimous(step: Step<'_>, on_disagreement: Knob, snapshot: Arc<Value>) -> Composed {
    let (verdicts, summaries) = gather(step, &snapshot).await;
    let pool = verdicts.clone();
    if verdicts.iter().all(|v| v.decision == Decision::Allow) {
        return composed(
            first_allow(&verdicts),
            None,
            summaries,
            None,
            snapshot,
            pool,
        );
    }
    // Any deny (a failed interceptor's substituted deny included) or
    // transform is a disagreement.
    let disagreement = ReservedReason::CompositionDisagreement;
    by_knob(
        step,
        on_disagreement,
        disagreement,
        snapshot,
        summaries,
        pool,
    )
    .await
}
