//! The sequential profiles (§7.4): registration order, transforms folded
//! into the context the next interceptor sees.

use serde_json::Value;

use crate::compose::dispatch::{judge_binding, start};
use crate::compose::fold::{first_allow, Composed, ResolvedBy, Step, Summary};
use crate::compose::profile::OnApproval;
use crate::seam::approval::Consultation;
use crate::verdict::model::{Decision, Verdict};

struct Run {
    summaries: Vec<Summary>,
    pool: Vec<Verdict>,
    resolved_by: Option<ResolvedBy>,
}

impl Run {
    fn done(
        self,
        combined: Verdict,
        decided_by: Option<usize>,
        truncated: bool,
        context: Value,
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
pub async fn first_deny(step: Step<'_>, on_approval: OnApproval, context: Value) -> Composed {
    let n = step.bound.len();
    let mut work = context;
    let mut run = Run {
        summaries: Vec::new(),
        pool: Vec::new(),
        resolved_by: None,
    };
    let mut last_transform: Option<(usize, Verdict)> = None;
    let mut resumed: Option<(usize, Verdict)> = None;
    let mut first_allow: Option<Verdict> = None;
    for (i, reg) in step.bound.iter().enumerate() {
        let j = judge_binding(
            reg,
            start(reg, &work, step.timeout).wait().await,
            step.version,
        );
        run.summaries.push(Summary::of_judged(i, reg, &j));
        let v = j.verdict;
        run.pool.push(v.clone());
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
                match step.seam.consult(step.point, &v, &work).await {
                    Consultation::Rejected(r) => {
                        run.pool.push(r.clone());
                        run.resolved_by = Some(ResolvedBy::Rejection);
                        return run.done(r, Some(i), truncated, work);
                    }
                    Consultation::Approved(p) => {
                        run.pool.push(p.clone());
                        run.resolved_by = Some(ResolvedBy::Approval);
                        if let Err(reason) = step.fold(&mut work, &p) {
                            return run.done(Verdict::host_deny(reason), None, truncated, work);
                        }
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
pub async fn run_all(step: Step<'_>, context: Value) -> Composed {
    let n = step.bound.len();
    let mut work = context;
    let mut run = Run {
        summaries: Vec::new(),
        pool: Vec::new(),
        resolved_by: None,
    };
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(n);
    for (i, reg) in step.bound.iter().enumerate() {
        let j = judge_binding(
            reg,
            start(reg, &work, step.timeout).wait().await,
            step.version,
        );
        run.summaries.push(Summary::of_judged(i, reg, &j));
        let v = j.verdict;
        run.pool.push(v.clone());
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
        match step.seam.consult(step.point, &v, &work).await {
            Consultation::Rejected(r) => {
                run.pool.push(r.clone());
                run.resolved_by = Some(ResolvedBy::Rejection);
                return run.done(r, Some(w), false, work);
            }
            Consultation::Approved(p) => {
                run.pool.push(p.clone());
                run.resolved_by = Some(ResolvedBy::Approval);
                if let Err(reason) = step.fold(&mut work, &p) {
                    return run.done(Verdict::host_deny(reason), None, false, work);
                }
                return run.done(p, Some(w), false, work);
            }
        }
    }
    run.done(v, Some(w), false, work)
}
