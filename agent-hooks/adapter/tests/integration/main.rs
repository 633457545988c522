//! Integration tests of the stdio link: loopback through a real host process,
//! schema round trips, and misbehaving hosts as real processes.
//!
//! The binary is its own host: with `CTK_TEST_HOST` set it serves (or
//! misbehaves) on stdin/stdout instead of running the tests.

mod faults;
mod hosts;
mod lifecycle;
mod loopback;
mod schemas;

use libtest_mimic::{Arguments, Trial};

fn main() {
    if let Ok(host) = std::env::var(hosts::HOST_ENV) {
        hosts::run_host(&host);
    }
    if let Ok(scenario) = std::env::var(faults::SCENARIO_ENV) {
        faults::run_scenario(&scenario);
    }
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = Vec::new();
    trials.extend(loopback::trials());
    trials.extend(schemas::trials());
    trials.extend(faults::trials());
    trials.extend(lifecycle::trials());
    libtest_mimic::run(&args, trials).exit();
}

/// A trial running `body` on its own tokio runtime.
fn async_trial<F, Fut>(name: &str, body: F) -> Trial
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    Trial::test(name, move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(body()).map_err(Into::into)
    })
}

/// `Err` with `message` unless `cond`.
fn ensure(cond: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(message())
    }
}
