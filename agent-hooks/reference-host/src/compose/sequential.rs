//! The sequential profiles (§7.4): registration order, transforms folded
//! into the context the next interceptor sees.

use std::sync::Arc;

use serde_json::Value;

use crate::compose::dispatch::{judge_binding, start, Registration};
use crate::compose::fold::{first_allow, Composed, ResolvedBy, Step, Summary};
use crate::compose::profile::OnApproval;
use crate::seam::approval::Consultation;
use crate::verdict::model::{Decision, Verdict};

#[derive(Default)]
struct Run {
    summaries: Vec<Summary>,
    pool: Vec<Verdict>,
    resolved_by: Option<ResolvedBy>,
}

impl Run {
    /// Call interceptor `i` on the context as folded so far; its summary and
    /// verdict join the run.
    async fn call(
        &mut self,
        step: Step<'_>,
        i: usize,
        reg: &Registration,
        work: &Arc<Value>,
    ) -> Verdict {
        let j = judge_binding(
            reg,
            start(reg, work, step.timeout).wait().await,
            step.version,
        );
        self.summaries.push(Summary::of_judged(i, reg, &j));
        self.pool.push(j.verdict.clone());
        j.verdict
    }

    /// Consult the seam about interceptor `i`'s liftable `deny` on `work`
    /// (§9). A rejection, or an approval whose transform cannot fold, ends
    /// the run as `Err((combined, decided_by))`; an approval that folded is
    /// returned for the profile to place.
    async fn consult(
        &mut self,
        step: Step<'_>,
        i: usize,
        deny: &Verdict,
        work: &mut Arc<Value>,
    ) -> Result<Verdict, (Verdict, Option<usize>)> {
        match step.seam.consult(step.point, deny, work).await {
            Consultation::Rejected(r) => {
                self.pool.push(r.clone());
                self.resolved_by = Some(ResolvedBy::Rejection);
                Err((r, Some(i)))
            }
            Consultation::Approved(p) => {
                self.pool.push(p.clone());
                self.resolved_by = Some(ResolvedBy::Approval);
                match step.fold(work, &p) {
                    Ok(()) => Ok(p),
                    Err(reason) => Err((Verdict::host_deny(reason), None)),
                }
            }
        }
    }

    fn done(
        self,
        combined: Verdict,
        decided_by: Option<usize>,
        truncated: bool,
        context: Arc<Value>,
    ) -> Composed {
        Composed {
            combined,
            decided_by,
            summaries: self.summaries,
            fold_truncated: Some(truncated),
            resolved_by: self.resolved_by,
            context,
            pool: self.pool,
        }
    }
}

/// `sequential/first_deny`: stop at the first deny that stands.
pub async fn first_deny(step: Step<'_>, on_approval: OnApproval, context: Arc<Value>) -> Composed {
    let n = step.bound.len();
    let mut work = context;
    let mut run = Run::default();
    let mut last_transform: Option<(usize, Verdict)> = None;
    let mut resumed: Option<(usize, Verdict)> = None;
    let mut first_allow: Option<Verdict> = None;
    for (i, reg) in step.bound.iter().enumerate() {
        let v = run.call(step, i, reg, &work).await;
        let truncated = i + 1 < n;
        match v.decision {
            Decision::Allow => {
                first_allow.get_or_insert(v);
            }
            Decision::Transform => {
                if let Err(reason) = step.fold(&mut work, &v) {
                    return run.done(Verdict::host_deny(reason), None, truncated, work);
                }
                last_transform = Some((i, v));
            }
            Decision::Deny => {
                if !v.is_liftable() || !step.may_consult() {
                    return run.done(v, Some(i), truncated, work);
                }
                let p = match run.consult(step, i, &v, &mut work).await {
                    Ok(p) => p,
                    Err((combined, by)) => return run.done(combined, by, truncated, work),
                };
                match on_approval {
                    OnApproval::Stop => return run.done(p, Some(i), truncated, work),
                    OnApproval::Resume if p.decision == Decision::Transform => {
                        last_transform = Some((i, p))
                    }
                    OnApproval::Resume => resumed = Some((i, p)),
                }
            }
        }
    }
    let (combined, decided_by) = match (last_transform, resumed) {
        (Some((i, t)), _) => (t, Some(i)),
        (None, Some((i, p))) => (p, Some(i)),
        (None, None) => (first_allow.unwrap_or_else(Verdict::allow), None),
    };
    run.done(combined, decided_by, false, work)
}

/// `sequential/run_all`: every interceptor runs; severity decides; the seam
/// is consulted at most once, and only when every deny is liftable.
pub async fn run_all(step: Step<'_>, context: Arc<Value>) -> Composed {
    let n = step.bound.len();
    let mut work = context;
    let mut run = Run::default();
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(n);
    for (i, reg) in step.bound.iter().enumerate() {
        let v = run.call(step, i, reg, &work).await;
        if v.decision == Decision::Transform {
            if let Err(reason) = step.fold(&mut work, &v) {
                return run.done(Verdict::host_deny(reason), None, i + 1 < n, work);
            }
        }
        verdicts.push(v);
    }
    let top = verdicts.iter().map(Verdict::severity).max().unwrap_or(0);
    let winner = match top {
        0 => None,
        // Transform ties: the last one returned wins in sequential profiles.
        1 => verdicts.iter().rposition(|v| v.severity() == 1),
        // Block ties: the lowest registration index wins.
        _ => verdicts.iter().position(|v| v.severity() == top),
    };
    let Some(w) = winner else {
        return run.done(first_allow(&verdicts), None, false, work);
    };
    let v = verdicts[w].clone();
    let all_liftable = verdicts
        .iter()
        .filter(|x| x.decision == Decision::Deny)
        .all(Verdict::is_liftable);
    if v.is_liftable() && all_liftable && step.may_consult() {
        let (combined, by) = match run.consult(step, w, &v, &mut work).await {
            Ok(p) => (p, Some(w)),
            Err(ended) => ended,
        };
        return run.done(combined, by, false, work);
    }
    run.done(v, Some(w), false, work)
}
