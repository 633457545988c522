//! Loopback: the runner's client against `serve` in a real child process,
//! compared with the same fake host linked in process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ctk_agent_hooks_adapter::{
    AdapterErrorKind, BoxFuture, Callbacks, HostAdapter, InterceptorBinding, InterceptorReply,
    KnownAnswers, Phase, RedactorReply, ResolverReply, RunOutcome, RunRecord, VectorSetup,
    KNOWN_ANSWERS, RECORDED_CONTEXTS,
};
use libtest_mimic::Trial;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::hosts::{stdio_host, FakeHost, ScriptedCallbacks};
use crate::{async_trial, ensure};

const SCENARIO: &str = "{\"input\": \"hi\",\n  \"big\": 123456789012345678901234567890,\r\n  \"neg\": -0, \"f\": 1.0e400}";

fn setup(id: &str) -> VectorSetup {
    let scenario = RawValue::from_string(SCENARIO.to_owned()).expect("valid JSON text");
    let mut setup = VectorSetup::new(id, "agent-hooks/0.1", scenario);
    setup.interceptors = (0..4).map(|_| InterceptorBinding::everywhere()).collect();
    setup.approval_resolver = true;
    setup.redactor = true;
    setup.interceptor_timeout_ms = Some(50);
    setup
}

/// The loopback script, counting the calls that reach it, with answers
/// known in advance by interceptor index.
struct Counting {
    known: Vec<Option<KnownAnswers>>,
    calls: Vec<AtomicUsize>,
    /// The contexts of the interceptors whose known answers say `record`,
    /// called back or reported.
    recorded: Mutex<Vec<(usize, Value)>>,
}

impl Counting {
    fn new(known: Vec<Option<KnownAnswers>>) -> Self {
        let calls = known.iter().map(|_| AtomicUsize::new(0)).collect();
        Self {
            known,
            calls,
            recorded: Mutex::new(Vec::new()),
        }
    }

    fn recorded(&self) -> Vec<(usize, Value)> {
        self.recorded.lock().expect("lock").clone()
    }

    fn records(&self, index: usize) -> bool {
        self.known
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|k| k.record)
    }

    fn calls(&self) -> Vec<usize> {
        self.calls
            .iter()
            .map(|c| c.load(Ordering::SeqCst))
            .collect()
    }
}

impl Callbacks for Counting {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        if let Some(calls) = self.calls.get(index) {
            calls.fetch_add(1, Ordering::SeqCst);
        }
        if self.records(index) {
            self.record(index, Arc::new(context.clone()));
        }
        // The known answer is the one a call would get.
        match self.known.get(index).cloned().flatten() {
            Some(known) => {
                let reply = known.elsewhere.expect("known everywhere");
                Box::pin(async move { reply })
            }
            None => ScriptedCallbacks.intercept(index, context),
        }
    }

    fn known_answers(&self, index: usize) -> Option<KnownAnswers> {
        self.known.get(index).cloned().flatten()
    }

    fn record(&self, index: usize, context: Arc<Value>) {
        self.recorded
            .lock()
            .expect("lock")
            .push((index, Value::clone(&context)));
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        ScriptedCallbacks.resolve_approval(request)
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        ScriptedCallbacks.redact(context)
    }
}

async fn run_with<H: HostAdapter>(
    host: &mut H,
    id: &str,
    callbacks: Arc<Counting>,
) -> Result<RunRecord, String> {
    host.setup(setup(id)).await.map_err(|e| e.to_string())?;
    let record = host.run(callbacks).await.map_err(|e| e.to_string())?;
    host.teardown().await.map_err(|e| e.to_string())?;
    Ok(record)
}

async fn one_vector<H: HostAdapter>(host: &mut H, id: &str) -> Result<RunRecord, String> {
    host.setup(setup(id)).await.map_err(|e| e.to_string())?;
    let callbacks: Arc<dyn Callbacks> = Arc::new(ScriptedCallbacks);
    let record = host.run(callbacks).await.map_err(|e| e.to_string())?;
    host.teardown().await.map_err(|e| e.to_string())?;
    Ok(record)
}

/// The Python example host through the stdio client: every message it
/// sends passes the schemas, and a simple vector runs to completion.
fn python_example_host() -> Trial {
    let available = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let trial = async_trial("loopback::python_example_host", || async {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/python-host/host.py"
        );
        let mut host = ctk_agent_hooks_adapter::StdioHost::builder("python3")
            .arg(script)
            .build();
        let info = host.info().await.map_err(|e| e.to_string())?;
        ensure(
            info.name == "python-example-host" && info.declaration.is_some(),
            || format!("{info:?}"),
        )?;
        let scenario = RawValue::from_string(
            r#"{"input":{"content":"hi","role":"user"},"tools":[{"name":"echo","behavior":[{"return":"ok"}]}],
               "model_script":[{"respond":{"content":null,"tool_calls":[{"id":"t1","name":"echo","args":{"x":1}}],"finish_reason":"tool_calls"}},
                               {"respond":{"content":"done","tool_calls":[],"finish_reason":"stop"}}]}"#
                .to_owned(),
        )
        .map_err(|e| e.to_string())?;
        let mut setup = VectorSetup::new("py", "agent-hooks/0.1", scenario);
        setup.interceptors = vec![InterceptorBinding::everywhere()];
        host.setup(setup).await.map_err(|e| e.to_string())?;
        let record = host
            .run(Arc::new(AllowAll))
            .await
            .map_err(|e| e.to_string())?;
        host.teardown().await.map_err(|e| e.to_string())?;
        host.shutdown().await;
        ensure(record.outcome == RunOutcome::Completed, || {
            format!("{record:?}")
        })?;
        ensure(record.final_output == json!("done"), || {
            format!("{record:?}")
        })?;
        ensure(record.records.len() == 10, || {
            format!("{} records", record.records.len())
        })?;
        ensure(record.tool_invocations.len() == 1, || format!("{record:?}"))
    });
    trial.with_ignored_flag(!available)
}

/// Allows everything, changes nothing.
struct AllowAll;

impl Callbacks for AllowAll {
    fn intercept<'a>(
        &'a self,
        _index: usize,
        _context: &'a mut serde_json::Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::InterceptorReply> {
        Box::pin(async {
            ctk_agent_hooks_adapter::InterceptorReply::Response(json!({"decision": "allow"}))
        })
    }
    fn resolve_approval<'a>(
        &'a self,
        _request: &'a serde_json::Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::ResolverReply> {
        Box::pin(async {
            ctk_agent_hooks_adapter::ResolverReply::Raised {
                message: "none".into(),
            }
        })
    }
    fn redact<'a>(
        &'a self,
        _context: &'a serde_json::Value,
    ) -> ctk_agent_hooks_adapter::BoxFuture<'a, ctk_agent_hooks_adapter::RedactorReply> {
        Box::pin(async {
            ctk_agent_hooks_adapter::RedactorReply::Raised {
                message: "none".into(),
            }
        })
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        python_example_host(),
        async_trial("loopback::stdio_matches_linked", || async {
            let mut linked = FakeHost::default();
            let mut expected = one_vector(&mut linked, "v1").await?;
            // The wire turns line breaks between tokens into spaces.
            expected.final_output["scenario_text"] = json!(SCENARIO.replace(['\n', '\r'], " "));
            let mut remote = stdio_host("serve").build();
            let info = remote.info().await.map_err(|e| e.to_string())?;
            ensure(
                info.name == "fake-host" && info.declaration.is_some(),
                || format!("{info:?}"),
            )?;
            for id in ["v1", "v1"] {
                let got = one_vector(&mut remote, id).await?;
                ensure(got == expected, || {
                    format!("stdio {got:#?}\nlinked {expected:#?}")
                })?;
            }
            remote.shutdown().await;
            Ok(())
        }),
        async_trial("loopback::known_answers_save_their_callbacks", || async {
            // Interceptor 3 denies whatever the context: known before the run.
            let known = || {
                let mut deny = KnownAnswers::default();
                deny.elsewhere = Some(InterceptorReply::Response(
                    json!({"decision": "deny", "reason": "policy:test"}),
                ));
                Arc::new(Counting::new(vec![None, None, None, Some(deny)]))
            };
            let linked_calls = known();
            let mut linked = FakeHost::default();
            let expected = run_with(&mut linked, "known", linked_calls.clone()).await?;
            let mut remote = stdio_host("serve").build();
            let info = remote.info().await.map_err(|e| e.to_string())?;
            ensure(info.features.iter().any(|f| f == KNOWN_ANSWERS), || {
                format!(
                    "serve does not announce {KNOWN_ANSWERS}: {:?}",
                    info.features
                )
            })?;
            let remote_calls = known();
            let got = run_with(&mut remote, "known", remote_calls.clone()).await?;
            remote.shutdown().await;
            ensure(got.records == expected.records, || {
                format!("stdio {:#?}\nlinked {:#?}", got.records, expected.records)
            })?;
            ensure(
                got.records[3]["reply"]["response"]["reason"] == "policy:test",
                || got.records[3].to_string(),
            )?;
            ensure(linked_calls.calls() == [1, 1, 1, 1], || {
                format!("linked calls {:?}", linked_calls.calls())
            })?;
            ensure(remote_calls.calls() == [1, 1, 1, 0], || {
                format!(
                    "over stdio interceptor 3 must be answered by the host: {:?}",
                    remote_calls.calls()
                )
            })
        }),
        async_trial(
            "loopback::recorded_contexts_arrive_without_their_callbacks",
            || async {
                // Interceptor 0 allows whatever the context, and its contexts are
                // recorded; interceptor 3 denies, unrecorded.
                let known = || {
                    let mut allow = KnownAnswers::default();
                    allow.elsewhere =
                        Some(InterceptorReply::Response(json!({"decision": "allow"})));
                    allow.record = true;
                    let mut deny = KnownAnswers::default();
                    deny.elsewhere = Some(InterceptorReply::Response(
                        json!({"decision": "deny", "reason": "policy:test"}),
                    ));
                    Arc::new(Counting::new(vec![Some(allow), None, None, Some(deny)]))
                };
                let linked_calls = known();
                let mut linked = FakeHost::default();
                let expected = run_with(&mut linked, "recorded", linked_calls.clone()).await?;
                let mut remote = stdio_host("serve").build();
                let info = remote.info().await.map_err(|e| e.to_string())?;
                ensure(info.features.iter().any(|f| f == RECORDED_CONTEXTS), || {
                    format!(
                        "serve does not announce {RECORDED_CONTEXTS}: {:?}",
                        info.features
                    )
                })?;
                let remote_calls = known();
                let got = run_with(&mut remote, "recorded", remote_calls.clone()).await?;
                // A second vector on the same host: its records start afresh.
                let again = known();
                run_with(&mut remote, "recorded-again", again.clone()).await?;
                remote.shutdown().await;
                ensure(got.records == expected.records, || {
                    format!("stdio {:#?}\nlinked {:#?}", got.records, expected.records)
                })?;
                ensure(
                    got.records[0]["reply"] == json!({"response": {"decision": "allow"}})
                        && got.records[0]["context"].get("mutated_by").is_none(),
                    || got.records[0].to_string(),
                )?;
                ensure(remote_calls.calls() == [0, 1, 1, 0], || {
                    format!(
                        "over stdio interceptors 0 and 3 must be answered by the host: {:?}",
                        remote_calls.calls()
                    )
                })?;
                let want = vec![
                    (0, json!({"interception_point": "input", "index": 0})),
                    (0, json!({"interception_point": "output", "index": 0})),
                ];
                ensure(linked_calls.recorded() == want, || {
                    format!("linked recorded {:?}", linked_calls.recorded())
                })?;
                ensure(remote_calls.recorded() == want, || {
                    format!("stdio recorded {:?}", remote_calls.recorded())
                })?;
                ensure(again.recorded() == want, || {
                    format!("second vector recorded {:?}", again.recorded())
                })
            },
        ),
        async_trial("loopback::a_lent_context_crosses_the_wire", || async {
            let mut linked = FakeHost::default();
            let expected = one_vector(&mut linked, "lent").await?;
            let mut remote = stdio_host("serve").build();
            let got = one_vector(&mut remote, "lent").await?;
            remote.shutdown().await;
            let r = &got.records;
            ensure(
                r[0]["changed"] == json!({"point": "input", "mutated_by": "interceptor-0"}),
                || format!("the changed copy is lost: {}", r[0]),
            )?;
            ensure(r[1]["changed"].is_null(), || r[1].to_string())?;
            ensure(r[1]["reply"] == json!({"raised": "scripted raise"}), || {
                r[1].to_string()
            })?;
            ensure(r[2]["reply"] == "timeout", || r[2].to_string())?;
            ensure(r[4] == json!({"snapshot": {"point": "input"}}), || {
                format!("the lent snapshot was written: {}", r[4])
            })?;
            ensure(got.records == expected.records, || {
                format!("stdio {:#?}\nlinked {:#?}", got.records, expected.records)
            })
        }),
        async_trial("loopback::every_callback_crosses_the_wire", || async {
            let mut remote = stdio_host("serve").build();
            let got = one_vector(&mut remote, "v2").await?;
            remote.shutdown().await;
            ensure(got.outcome == RunOutcome::Completed, || format!("{got:?}"))?;
            let r = &got.records;
            ensure(r[0]["context"]["mutated_by"] == "interceptor-0", || {
                format!("mutation lost: {}", r[0])
            })?;
            ensure(
                r[0]["reply"] == json!({"response": {"decision": "allow"}}),
                || r[0].to_string(),
            )?;
            ensure(r[1]["reply"] == json!({"raised": "scripted raise"}), || {
                r[1].to_string()
            })?;
            ensure(r[1]["context"].get("mutated_by").is_none(), || {
                r[1].to_string()
            })?;
            ensure(r[2]["reply"] == "timeout", || r[2].to_string())?;
            ensure(r[3]["reply"]["response"]["decision"] == "deny", || {
                r[3].to_string()
            })?;
            ensure(r[4] == json!({"redacted": {"keys": 1}}), || {
                r[4].to_string()
            })?;
            ensure(
                r[5]["resolution"]["request"] == json!({"reason": "policy:ask"}),
                || r[5].to_string(),
            )?;
            let on_one_line = SCENARIO.replace(['\n', '\r'], " ");
            ensure(
                got.final_output["scenario_text"] == on_one_line.as_str(),
                || format!("scenario text changed: {}", got.final_output),
            )
        }),
        async_trial("loopback::host_error_keeps_the_host", || async {
            let mut remote = stdio_host("serve").build();
            let pid = {
                remote.info().await.map_err(|e| e.to_string())?;
                remote.host_pid()
            };
            let err = remote
                .setup(setup("refuse"))
                .await
                .err()
                .ok_or("refusal reported success")?;
            ensure(err.phase == Phase::Setup, || format!("{err:?}"))?;
            ensure(
                err.kind == AdapterErrorKind::Host("this host refuses vector refuse".into()),
                || format!("{err:?}"),
            )?;
            remote.teardown().await.map_err(|e| e.to_string())?;
            one_vector(&mut remote, "after").await?;
            ensure(remote.host_pid() == pid && remote.restarts() == 0, || {
                "the host was restarted".into()
            })?;
            remote.shutdown().await;
            Ok(())
        }),
        async_trial("loopback::isolate_starts_one_host_per_vector", || async {
            let mut remote = stdio_host("serve").isolate(true).build();
            remote.setup(setup("a")).await.map_err(|e| e.to_string())?;
            let first = remote.host_pid();
            remote.teardown().await.map_err(|e| e.to_string())?;
            remote.setup(setup("b")).await.map_err(|e| e.to_string())?;
            let second = remote.host_pid();
            let record = remote
                .run(Arc::new(ScriptedCallbacks))
                .await
                .map_err(|e| e.to_string())?;
            remote.teardown().await.map_err(|e| e.to_string())?;
            ensure(
                first.is_some() && second.is_some() && first != second,
                || format!("{first:?} {second:?}"),
            )?;
            ensure(remote.restarts() == 0, || {
                "planned starts counted as restarts".into()
            })?;
            ensure(record.final_output["vector_id"] == "b", || {
                record.final_output.to_string()
            })
        }),
    ]
}
