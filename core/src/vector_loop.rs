//! The one vector loop every suite runs on: `jobs` workers share the
//! vectors, a vector that needs the subject alone runs with nothing beside
//! it, a vector that has only waiting left gives its worker to the next one,
//! `--fail-fast` and Ctrl-C stop further starts, and the outcomes come back
//! in vector order whatever order they finished in.
//!
//! A suite says how one vector runs ([`VectorRunner`]); the loop owns
//! everything around it, so both protocols stop, interrupt, isolate panics
//! and report progress the same way.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::event::Event;
use crate::outcome::{Status, VectorOutcome, NOT_RUN_FAIL_FAST, NOT_RUN_INTERRUPTED};

/// How the loop runs.
#[derive(Debug, Clone)]
pub struct LoopOptions {
    /// Number of workers running vectors side by side (at least 1).
    pub jobs: usize,
    /// `--fail-fast`: after the first gating failure or error no further
    /// vector starts; the rest are reported as [`NOT_RUN_FAIL_FAST`] errors.
    pub fail_fast: bool,
    /// Set when the run is interrupted (Ctrl-C): no further vector starts,
    /// and every vector not yet run is reported as [`NOT_RUN_INTERRUPTED`],
    /// so an interrupted run keeps what it gathered and is never claimable.
    pub interrupted: Arc<AtomicBool>,
}

/// One vector as the loop sees it.
pub trait LoopVector: Send + Sync + 'static {
    /// The vector's id, for an outcome the runner never produced.
    fn id(&self) -> &str;
    /// Whether the vector is advisory (`--fail-fast` ignores those).
    fn is_advisory(&self) -> bool;
    /// Whether the vector must run with no other vector running beside it:
    /// it measures time, or shares a subject that vectors running together
    /// would disturb. Such a vector waits for the running ones to finish or
    /// [release](Started::release) their workers, and the next ones wait for
    /// it to do the same.
    fn alone(&self) -> bool {
        false
    }
}

/// Lets a runner say that a vector has started (a skipped vector never
/// starts, so a runner announces only the vectors it runs), and that it has
/// only waiting left.
#[derive(Debug, Clone)]
pub struct Started {
    index: usize,
    tx: tokio::sync::mpsc::UnboundedSender<Progress>,
    release: Arc<Mutex<Option<tokio::sync::oneshot::Sender<()>>>>,
}

/// How many released vectors may still be finishing per worker. A subject
/// slow to close (a harness that ignores `shutdown` waits out its grace
/// period) must not pile up processes: past this many, a worker waits for
/// one to end before it starts another vector.
pub const RELEASED_PER_JOB: usize = 8;

impl Started {
    /// The vector has started: the terminal and `events.jsonl` show it.
    pub fn announce(&self) {
        // A closed channel means nobody listens any more; the vector still
        // runs and its outcome is dropped with the rest.
        let _ = self.tx.send(Progress::Started(self.index));
    }

    /// The vector has only waiting left (a quiet window in which a stray
    /// message would still be seen, the subject's close), nothing whose
    /// verdict other vectors' load could change: with more than one job, its
    /// worker starts the next vector now, and a vector that must run alone
    /// no longer waits for it. Its outcome still comes back in its place,
    /// whenever it ends. With one job nothing changes: `--jobs 1` is how a
    /// subject that cannot run twice at once is run. Once per vector; later
    /// calls do nothing.
    pub fn release(&self) {
        let sender = match self.release.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(sender) = sender {
            // Nobody listens with one job, or once the vector has ended.
            let _ = sender.send(());
        }
    }
}

/// Runs one vector at a time against the subject; the loop makes one per
/// worker with the factory given to [`run_all`], and a fresh one after a
/// run that panicked.
pub trait VectorRunner: Send + 'static {
    /// The vectors this runner runs.
    type Vector: LoopVector;
    /// Run `vectors[index]`, announcing its start through `started` if it
    /// runs, and hand the runner back with the outcome. The runner moves
    /// into the vector's own task, so a panic costs that vector (an error)
    /// and a fresh runner, never the results already gathered.
    fn run(
        self,
        vectors: Arc<Vec<Self::Vector>>,
        index: usize,
        started: Started,
    ) -> impl Future<Output = (Self, VectorOutcome)> + Send
    where
        Self: Sized;
}

/// What a worker tells the collector.
#[derive(Debug)]
enum Progress {
    Started(usize),
    Finished(usize, VectorOutcome),
}

/// Run every vector on `options.jobs` runners made by `factory`; `on_event`
/// sees progress in completion order. The outcomes come back in vector
/// order, the same for any number of jobs when the runs are.
pub async fn run_all<R, F>(
    factory: F,
    vectors: Arc<Vec<R::Vector>>,
    options: LoopOptions,
    on_event: impl FnMut(&Event),
) -> Vec<VectorOutcome>
where
    R: VectorRunner,
    F: Fn() -> R + Send + Sync + 'static,
{
    let mut outcomes = Vec::with_capacity(vectors.len());
    run_each(factory, vectors, options, on_event, |_, outcome| {
        outcomes.push(outcome);
    })
    .await;
    outcomes
}

/// [`run_all`], handing each outcome to `on_outcome` with its index in
/// vector order as soon as every vector before it has one, instead of
/// collecting them: a report can then be written as the run goes, and only
/// the outcomes that finished ahead of an earlier vector are held (issue
/// 30). Every vector gets exactly one outcome, the ones that never ran
/// (`--fail-fast`, Ctrl-C, a panicked worker) at the end.
pub async fn run_each<R, F>(
    factory: F,
    vectors: Arc<Vec<R::Vector>>,
    options: LoopOptions,
    mut on_event: impl FnMut(&Event),
    mut on_outcome: impl FnMut(usize, VectorOutcome),
) where
    R: VectorRunner,
    F: Fn() -> R + Send + Sync + 'static,
{
    on_event(&Event::RunStarted {
        total: vectors.len(),
    });
    let next = Arc::new(Mutex::new(0usize));
    let stop = Arc::new(AtomicBool::new(false));
    // Every vector holds the gate while it runs: shared for most, whole for
    // one that must run alone. Tokio's lock is fair, so a vector waiting
    // to run alone is not starved by the ones queued after it.
    let gate = Arc::new(tokio::sync::RwLock::new(()));
    let jobs = options.jobs.clamp(1, vectors.len().max(1));
    let released = Arc::new(tokio::sync::Semaphore::new(jobs * RELEASED_PER_JOB));
    let options = Arc::new(options);
    let factory = Arc::new(factory);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let mut workers = Vec::new();
    for _ in 0..jobs {
        let (vectors, options, next, tx, factory, stop, gate, released) = (
            vectors.clone(),
            options.clone(),
            next.clone(),
            tx.clone(),
            factory.clone(),
            stop.clone(),
            gate.clone(),
            released.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut runner = Some(factory());
            loop {
                if options.interrupted.load(Ordering::SeqCst) || stop.load(Ordering::SeqCst) {
                    break;
                }
                let index = {
                    let mut guard = match next.lock() {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                    let i = *guard;
                    *guard += 1;
                    i
                };
                let Some(item) = vectors.get(index) else {
                    break;
                };
                let alone = item.alone();
                let (_shared, _whole) = if alone {
                    (None, Some(gate.write().await))
                } else {
                    (Some(gate.read().await), None)
                };
                // A stop that came while this vector waited for the gate
                // leaves it unstarted, like the ones after it.
                if options.interrupted.load(Ordering::SeqCst) || stop.load(Ordering::SeqCst) {
                    break;
                }
                let r = runner.take().unwrap_or_else(|| factory());
                let (release, mut released_rx) = tokio::sync::oneshot::channel();
                if jobs == 1 {
                    // One job is one vector at a time, waits included.
                    released_rx.close();
                }
                let started = Started {
                    index,
                    tx: tx.clone(),
                    release: Arc::new(Mutex::new(Some(release))),
                };
                let mut task = tokio::spawn(r.run(vectors.clone(), index, started));
                let joined = tokio::select! {
                    joined = &mut task => joined,
                    // A sender dropped unused (the run ended without
                    // releasing) fails the pattern, and the task decides.
                    Ok(()) = released_rx => {
                        // The semaphore is never closed; `Err` cannot come.
                        let Ok(permit) = released.clone().acquire_owned().await else {
                            break;
                        };
                        let (vectors, options, stop, tx) =
                            (vectors.clone(), options.clone(), stop.clone(), tx.clone());
                        // The vector finishes on its own; this worker's gate
                        // guard goes with the loop iteration, and the next
                        // vector gets a fresh runner.
                        tokio::spawn(async move {
                            let (_, outcome) = judged(&vectors[index], task.await);
                            finished(&vectors[index], index, outcome, &options, &stop, &tx);
                            drop(permit);
                        });
                        continue;
                    }
                };
                let (r, outcome) = judged(item, joined);
                runner = r;
                if !finished(item, index, outcome, &options, &stop, &tx) {
                    break;
                }
            }
        }));
    }
    drop(tx);
    // The outcomes that finished before an earlier vector did, until it has.
    let mut ahead: std::collections::BTreeMap<usize, VectorOutcome> =
        std::collections::BTreeMap::new();
    let mut due = 0usize;
    while let Some(progress) = rx.recv().await {
        match progress {
            Progress::Started(index) => on_event(&Event::VectorStarted { index }),
            Progress::Finished(index, outcome) => {
                // The event lends the outcome to the listeners and then
                // gives it back: no copy of a result's failure detail.
                let event = Event::VectorFinished { index, outcome };
                on_event(&event);
                if let Event::VectorFinished { outcome, .. } = event {
                    ahead.insert(index, outcome);
                }
                while let Some(outcome) = ahead.remove(&due) {
                    on_outcome(due, outcome);
                    due += 1;
                }
            }
        }
    }
    for w in workers {
        let _ = w.await;
    }
    on_event(&Event::RunFinished);
    for (index, v) in vectors.iter().enumerate().skip(due) {
        let outcome = ahead.remove(&index).unwrap_or_else(|| {
            let reason = if options.interrupted.load(Ordering::SeqCst) {
                NOT_RUN_INTERRUPTED
            } else if stop.load(Ordering::SeqCst) {
                NOT_RUN_FAIL_FAST
            } else {
                "the worker running this vector panicked"
            };
            VectorOutcome::error(v.id(), reason.into(), Duration::ZERO)
        });
        on_outcome(index, outcome);
    }
}

/// The outcome of a vector's task, and the runner it handed back: a panic
/// costs the vector (an error) and the runner.
fn judged<R, V: LoopVector>(
    item: &V,
    joined: Result<(R, VectorOutcome), tokio::task::JoinError>,
) -> (Option<R>, VectorOutcome) {
    match joined {
        Ok((r, outcome)) => (Some(r), outcome),
        Err(e) => (
            None,
            VectorOutcome::error(
                item.id(),
                // In process, only a linked host's code or the kit's own can
                // panic: a subject in another process cannot, so the message
                // blames neither.
                format!("this vector's run panicked (a linked host's code or the kit's): {e}"),
                Duration::ZERO,
            ),
        ),
    }
}

/// Hand a vector's outcome to the collector, stopping further starts on a
/// gating failure under `--fail-fast`; false once nobody listens.
fn finished<V: LoopVector>(
    item: &V,
    index: usize,
    outcome: VectorOutcome,
    options: &LoopOptions,
    stop: &AtomicBool,
    tx: &tokio::sync::mpsc::UnboundedSender<Progress>,
) -> bool {
    if options.fail_fast
        && !item.is_advisory()
        && matches!(outcome.status, Status::Fail | Status::Error)
    {
        stop.store(true, Ordering::SeqCst);
    }
    tx.send(Progress::Finished(index, outcome)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A vector of the tests: whether it fails, panics, must run alone,
    /// releases its worker for a wait at its end, or takes longer than the
    /// others.
    struct Fake {
        id: String,
        fail: bool,
        panic: bool,
        alone: bool,
        advisory: bool,
        release: bool,
        slow: bool,
    }

    impl LoopVector for Fake {
        fn id(&self) -> &str {
            &self.id
        }
        fn is_advisory(&self) -> bool {
            self.advisory
        }
        fn alone(&self) -> bool {
            self.alone
        }
    }

    fn fake(i: usize) -> Fake {
        Fake {
            id: format!("V-{i:03}"),
            fail: false,
            panic: false,
            alone: false,
            advisory: false,
            release: false,
            slow: false,
        }
    }

    /// Counts the vectors running at once (before any release), and the
    /// most it ever saw beside a vector that must run alone; and the vectors
    /// alive at once, released ones included.
    #[derive(Clone, Default)]
    struct Probe {
        running: Arc<AtomicUsize>,
        beside_alone: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
        alive: Arc<AtomicUsize>,
        most_alive: Arc<AtomicUsize>,
    }

    struct FakeRunner(Probe);

    impl VectorRunner for FakeRunner {
        type Vector = Fake;
        async fn run(
            self,
            vectors: Arc<Vec<Fake>>,
            index: usize,
            started: Started,
        ) -> (Self, VectorOutcome) {
            let v = &vectors[index];
            started.announce();
            let alive = self.0.alive.fetch_add(1, Ordering::SeqCst) + 1;
            self.0.most_alive.fetch_max(alive, Ordering::SeqCst);
            let now = self.0.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.0.most.fetch_max(now, Ordering::SeqCst);
            // Long enough for a second worker to start beside this one.
            tokio::time::sleep(Duration::from_millis(20)).await;
            if v.slow {
                // Long enough for the vectors after it to finish first.
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            if v.alone {
                let seen = self.0.running.load(Ordering::SeqCst);
                self.0.beside_alone.fetch_max(seen, Ordering::SeqCst);
            }
            self.0.running.fetch_sub(1, Ordering::SeqCst);
            if v.release {
                started.release();
                // A second release changes nothing.
                started.release();
                // Long enough for the next vector to start beside the wait.
                tokio::time::sleep(Duration::from_millis(60)).await;
            }
            self.0.alive.fetch_sub(1, Ordering::SeqCst);
            assert!(!v.panic, "the subject broke");
            let failures = if v.fail {
                vec![crate::outcome::AssertionFailure::message("k", "m")]
            } else {
                Vec::new()
            };
            let outcome = VectorOutcome::from_failures(&v.id, failures, Duration::ZERO);
            (self, outcome)
        }
    }

    fn options(jobs: usize, fail_fast: bool) -> LoopOptions {
        LoopOptions {
            jobs,
            fail_fast,
            interrupted: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Two workers, as the runner's own runtime has at least.
    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    }

    fn run(vectors: Vec<Fake>, options: LoopOptions) -> (Vec<VectorOutcome>, Probe, Vec<Event>) {
        let probe = Probe::default();
        let p = probe.clone();
        let rt = runtime();
        let mut events = Vec::new();
        let outcomes = rt.block_on(run_all(
            move || FakeRunner(p.clone()),
            Arc::new(vectors),
            options,
            |e| events.push(e.clone()),
        ));
        (outcomes, probe, events)
    }

    #[test]
    fn outcomes_come_back_in_vector_order_and_jobs_run_side_by_side() {
        let (outcomes, probe, events) = run((0..8).map(fake).collect(), options(3, false));
        let ids: Vec<&str> = outcomes.iter().map(|o| o.id.as_str()).collect();
        let want: Vec<String> = (0..8).map(|i| format!("V-{i:03}")).collect();
        assert_eq!(ids, want);
        assert!(outcomes.iter().all(|o| o.status == Status::Pass));
        assert!(
            probe.most.load(Ordering::SeqCst) > 1,
            "jobs never overlapped"
        );
        assert!(matches!(
            events.first(),
            Some(Event::RunStarted { total: 8 })
        ));
        assert!(matches!(events.last(), Some(Event::RunFinished)));
        let finished = events
            .iter()
            .filter(|e| matches!(e, Event::VectorFinished { .. }))
            .count();
        assert_eq!(finished, 8);
    }

    #[test]
    fn each_outcome_is_handed_on_in_vector_order_as_soon_as_those_before_it_are() {
        // V-000 is slow: the ones after it finish first, and are held only
        // until it does; then all of them go on at once, before any later
        // vector's finish is even seen.
        let vectors: Vec<Fake> = (0..6)
            .map(|i| Fake {
                slow: i == 0,
                ..fake(i)
            })
            .collect();
        let probe = Probe::default();
        let p = probe.clone();
        let rt = runtime();
        let log = std::cell::RefCell::new(Vec::new());
        rt.block_on(run_each(
            move || FakeRunner(p.clone()),
            Arc::new(vectors),
            options(3, false),
            |e| {
                if let Event::VectorFinished { index, .. } = e {
                    log.borrow_mut().push(format!("finished {index}"));
                }
            },
            |index, outcome| {
                assert_eq!(outcome.id, format!("V-{index:03}"));
                log.borrow_mut().push(format!("outcome {index}"));
            },
        ));
        let log = log.into_inner();
        let handed: Vec<&String> = log.iter().filter(|l| l.starts_with("outcome")).collect();
        let want: Vec<String> = (0..6).map(|i| format!("outcome {i}")).collect();
        assert_eq!(handed, want.iter().collect::<Vec<_>>(), "{log:?}");
        // Nothing is handed on before V-000 finishes, since it comes first.
        let first_finished = log
            .iter()
            .position(|l| l == "finished 0")
            .expect("V-000 finished");
        let first_outcome = log
            .iter()
            .position(|l| l == "outcome 0")
            .expect("V-000 handed on");
        assert_eq!(first_outcome, first_finished + 1, "{log:?}");
        assert!(
            first_finished > 0,
            "V-000 was meant to finish late: {log:?}"
        );
        // Whatever finished before V-000 follows it at once.
        let before = log[..first_finished].len();
        for (k, line) in log[first_outcome..=first_outcome + before]
            .iter()
            .enumerate()
        {
            assert_eq!(line, &format!("outcome {k}"), "{log:?}");
        }
        // Every outcome is handed on after its own finish is seen.
        for i in 0..6 {
            let f = log.iter().position(|l| l == &format!("finished {i}"));
            let o = log.iter().position(|l| l == &format!("outcome {i}"));
            assert!(f < o, "{log:?}");
        }
    }

    #[test]
    fn a_vector_that_must_run_alone_has_nothing_beside_it() {
        let vectors: Vec<Fake> = (0..9)
            .map(|i| Fake {
                alone: i % 3 == 1,
                ..fake(i)
            })
            .collect();
        let (outcomes, probe, _) = run(vectors, options(3, false));
        assert!(outcomes.iter().all(|o| o.status == Status::Pass));
        assert_eq!(probe.beside_alone.load(Ordering::SeqCst), 1);
        assert!(
            probe.most.load(Ordering::SeqCst) > 1,
            "jobs never overlapped"
        );
    }

    #[test]
    fn a_released_vector_gives_its_worker_to_the_next_and_still_reports() {
        let vectors: Vec<Fake> = (0..6)
            .map(|i| Fake {
                release: true,
                fail: i == 4,
                panic: i == 2,
                alone: i == 3,
                ..fake(i)
            })
            .collect();
        let (outcomes, probe, events) = run(vectors, options(2, false));
        let ids: Vec<&str> = outcomes.iter().map(|o| o.id.as_str()).collect();
        let want: Vec<String> = (0..6).map(|i| format!("V-{i:03}")).collect();
        assert_eq!(ids, want);
        let statuses: Vec<Status> = outcomes.iter().map(|o| o.status).collect();
        assert_eq!(
            statuses,
            [
                Status::Pass,
                Status::Pass,
                Status::Error,
                Status::Pass,
                Status::Fail,
                Status::Pass
            ],
            "a panic or a failure after the release is still that vector's"
        );
        assert!(
            probe.most.load(Ordering::SeqCst) <= 2,
            "two jobs run two vectors at a time up to their release"
        );
        assert_eq!(probe.beside_alone.load(Ordering::SeqCst), 1);
        assert!(
            probe.most_alive.load(Ordering::SeqCst) > 2,
            "no vector started while released ones waited"
        );
        let finished = events
            .iter()
            .filter(|e| matches!(e, Event::VectorFinished { .. }))
            .count();
        assert_eq!(finished, 6);
        assert!(matches!(events.last(), Some(Event::RunFinished)));
    }

    #[test]
    fn a_vector_that_does_not_release_keeps_its_worker() {
        let (_, probe, _) = run((0..4).map(fake).collect(), options(1, false));
        assert_eq!(probe.most_alive.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn one_job_runs_one_vector_at_a_time_even_when_it_releases() {
        let vectors = (0..4)
            .map(|i| Fake {
                release: true,
                ..fake(i)
            })
            .collect();
        let (outcomes, probe, _) = run(vectors, options(1, false));
        assert!(outcomes.iter().all(|o| o.status == Status::Pass));
        assert_eq!(probe.most_alive.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_run_costs_one_vector_and_the_rest_still_run() {
        let vectors: Vec<Fake> = (0..4)
            .map(|i| Fake {
                panic: i == 1,
                ..fake(i)
            })
            .collect();
        let (outcomes, _, _) = run(vectors, options(1, false));
        let statuses: Vec<Status> = outcomes.iter().map(|o| o.status).collect();
        assert_eq!(
            statuses,
            [Status::Pass, Status::Error, Status::Pass, Status::Pass]
        );
        assert!(
            outcomes[1].reason.contains("panicked"),
            "{}",
            outcomes[1].reason
        );
    }

    #[test]
    fn fail_fast_stops_after_a_gating_failure_and_names_the_rest() {
        let vectors: Vec<Fake> = (0..5)
            .map(|i| Fake {
                fail: i == 0 || i == 1,
                advisory: i == 0,
                ..fake(i)
            })
            .collect();
        let (outcomes, _, _) = run(vectors, options(1, true));
        let statuses: Vec<Status> = outcomes.iter().map(|o| o.status).collect();
        // The advisory failure does not stop the run; the gating one does.
        assert_eq!(
            statuses,
            [
                Status::Fail,
                Status::Fail,
                Status::Error,
                Status::Error,
                Status::Error
            ]
        );
        assert!(outcomes[2..].iter().all(|o| o.reason == NOT_RUN_FAIL_FAST));
    }

    #[test]
    fn an_interrupted_run_reports_every_unstarted_vector() {
        let o = options(2, false);
        o.interrupted.store(true, Ordering::SeqCst);
        let (outcomes, probe, _) = run((0..3).map(fake).collect(), o);
        assert_eq!(probe.most.load(Ordering::SeqCst), 0);
        assert!(outcomes
            .iter()
            .all(|o| o.status == Status::Error && o.reason == NOT_RUN_INTERRUPTED));
    }
}
