//! The scripted stdio backend: a process the harness under test starts
//! from the registration the kit wrote. It answers each message as its
//! [`Script`] says and appends one JSON line per event to its log file, so
//! the kit sees exactly what the harness sent, when, and to which process.
//!
//! Log lines (`kind`): `start` (argv, cwd, environment variable names),
//! `frame` (one line read from stdin: bytes, UTF-8 or not, parsed JSON),
//! `sent` (what was written for which request), `plan_end`, `eof` (stdin
//! closed, with the number of frames read), `exit`. Every line has `t`
//! ([`super::clock::now_ms`], shared with the kit) and `pid`. Several
//! per_event processes append to one log; each line is one `write`.
//!
//! Each message's plan runs on a thread of its own, so a new request is
//! read (and logged) while an earlier one is still being answered (D-17).

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ctk_support::lines::{Frame, Framer};
use serde_json::{json, Value};

use super::clock::now_ms;
use super::script::{Action, Script};

/// The longest stdin line kept whole in the log (longer lines are cut).
const MAX_LINE: usize = 1 << 20;

/// Why the scripted backend could not run.
#[derive(Debug, thiserror::Error)]
pub enum ScriptedError {
    /// The script file is missing or malformed.
    #[error("{0}")]
    Script(String),
    /// The log file cannot be opened.
    #[error("cannot open log {path}: {source}")]
    Log {
        /// The log path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

type Out = Arc<Mutex<Option<Box<dyn Write + Send>>>>;

struct Log {
    file: Mutex<File>,
}

impl Log {
    fn write(&self, mut v: Value) {
        if let Value::Object(m) = &mut v {
            m.insert("t".into(), json!(now_ms()));
            m.insert("pid".into(), json!(std::process::id()));
        }
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        // One write per line: O_APPEND keeps lines of concurrent processes whole.
        let _ = f.write_all(&line);
    }
}

/// Serve `script` on `stdin`/`stdout` until stdin ends and every started
/// plan has finished; returns the exit status the process should end with
/// (0). An `exit` action ends the whole process at once, and `close` drops
/// `stdout` and then calls `on_close` (for the real stdout, which must be
/// closed at the descriptor level).
pub fn serve_stdio<R, W>(
    script: &Path,
    log: &Path,
    stdin: R,
    stdout: W,
) -> Result<i32, ScriptedError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    serve_with(script, log, stdin, Box::new(stdout), Arc::new(|| {}), false)
}

/// [`serve_stdio`] on this process's own stdin and stdout: `close` points
/// descriptor 1 at `/dev/null` (the harness sees end of file), and the
/// script's `max_life_ms` (default 120 s) ends the process in any case.
/// This is what `ctk ahp-backend script --script FILE --log FILE` runs.
pub fn serve_process_stdio(script: &Path, log: &Path) -> Result<i32, ScriptedError> {
    serve_with(
        script,
        log,
        std::io::stdin(),
        Box::new(std::io::stdout()),
        Arc::new(close_real_stdout),
        true,
    )
}

fn close_real_stdout() {
    #[cfg(target_os = "linux")]
    if let Ok(null) = File::options().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
}

fn serve_with<R: Read + Send + 'static>(
    script_path: &Path,
    log_path: &Path,
    stdin: R,
    stdout: Box<dyn Write + Send>,
    on_close: Arc<dyn Fn() + Send + Sync>,
    watchdog: bool,
) -> Result<i32, ScriptedError> {
    let script = Script::load(script_path).map_err(ScriptedError::Script)?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path)
        .map_err(|source| ScriptedError::Log {
            path: log_path.display().to_string(),
            source,
        })?;
    let log = Arc::new(Log {
        file: Mutex::new(file),
    });
    let env_names: Vec<String> = std::env::vars_os()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    log.write(json!({
        "kind": "start",
        "argv": std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        "cwd": std::env::current_dir().ok().map(|d| d.display().to_string()),
        "env_names": env_names,
    }));
    if watchdog {
        let life = Duration::from_millis(script.max_life_ms.unwrap_or(120_000));
        let log = log.clone();
        std::thread::spawn(move || {
            std::thread::sleep(life);
            log.write(json!({"kind": "exit", "code": 0, "why": "max_life_ms"}));
            std::process::exit(0);
        });
    }
    let out: Out = Arc::new(Mutex::new(Some(stdout)));
    let mut reader = BufReader::new(stdin);
    let mut frames = 0usize;
    let (mut n_intercept, mut n_observe) = (0usize, 0usize);
    let mut prev_id = Value::Null;
    let mut workers = Vec::new();
    // Lines as the harness wrote them, capped (the kit's one framer); each
    // is answered as soon as its newline arrives.
    let mut framer = Framer::new(MAX_LINE);
    let mut pending: VecDeque<Frame> = VecDeque::new();
    let mut ended = false;
    loop {
        let Some(frame) = pending.pop_front() else {
            if ended {
                break;
            }
            match reader.fill_buf() {
                Ok(buf) if !buf.is_empty() => {
                    let n = buf.len();
                    framer.push(buf, |f| pending.push_back(f));
                    reader.consume(n);
                }
                _ => {
                    ended = true;
                    pending.extend(framer.finish());
                }
            }
            continue;
        };
        let (line, terminated) = (frame.bytes, frame.terminated);
        frames += 1;
        let utf8 = std::str::from_utf8(&line).is_ok();
        let parsed: Option<Value> = serde_json::from_slice(&line).ok();
        log.write(json!({
            "kind": "frame",
            "n": frames - 1,
            "len": frame.len,
            "utf8": utf8,
            "terminated": terminated,
            "text": String::from_utf8_lossy(&line),
            "json": parsed,
        }));
        let method = parsed
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let (plan, id) = match method {
            "hooks/intercept" => {
                let plan = script.tool_plan(parsed.as_ref()).unwrap_or_else(|| {
                    n_intercept += 1;
                    script.intercept_plan(n_intercept - 1)
                });
                let id = parsed
                    .as_ref()
                    .and_then(|v| v.get("id"))
                    .cloned()
                    .unwrap_or(Value::Null);
                (plan, id)
            }
            "hooks/observe" => {
                let plan = script.observe_plan(n_observe);
                n_observe += 1;
                (plan, Value::Null)
            }
            _ => continue,
        };
        // `{{prev_id}}` is the id of the intercept request before this one
        // (for a notification: the last intercept request's).
        let prev = if method == "hooks/intercept" {
            std::mem::replace(&mut prev_id, id.clone())
        } else {
            prev_id.clone()
        };
        let (log, out, on_close) = (log.clone(), out.clone(), on_close.clone());
        let method = method.to_owned();
        workers.push(std::thread::spawn(move || {
            run_plan(&plan, &id, &prev, &method, &log, &out, &*on_close);
        }));
    }
    log.write(json!({"kind": "eof", "frames": frames}));
    for w in workers {
        let _ = w.join();
    }
    if let Some(w) = out.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
        let _ = w.flush();
    }
    log.write(json!({"kind": "exit", "code": 0}));
    Ok(0)
}

fn run_plan(
    plan: &[Action],
    id: &Value,
    prev: &Value,
    method: &str,
    log: &Log,
    out: &Out,
    on_close: &(dyn Fn() + Send + Sync),
) {
    for action in plan {
        match action {
            Action::Sleep { ms } => std::thread::sleep(Duration::from_millis(*ms)),
            Action::Close => {
                // Logged first: a harness may kill this process the moment
                // it sees end of file, and the record must still show that
                // the request was answered (by the close) at this time.
                let t_write = now_ms();
                log.write(json!({"kind": "sent", "to": id, "method": method, "action": "close", "t_write": t_write}));
                out.lock().unwrap_or_else(|p| p.into_inner()).take();
                on_close();
            }
            Action::Exit { code } => {
                if let Some(w) = out.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
                    let _ = w.flush();
                }
                log.write(json!({"kind": "exit", "code": code, "to": id}));
                std::process::exit(*code);
            }
            Action::Reply { .. } | Action::Error { .. } | Action::Raw { .. } => {
                let Some(mut bytes) = action.body(id, prev) else {
                    continue;
                };
                let newline = !matches!(action, Action::Raw { newline: false, .. });
                if newline {
                    bytes.push(b'\n');
                }
                // Logged, and stamped, before the write: the harness may act
                // on the bytes at once, and a harness that kills a per_event
                // process as soon as it has read the reply would otherwise
                // leave no trace of it, so the reply would count as never
                // sent (and B's request as sent while A was still busy).
                let what = match action {
                    Action::Reply { .. } => "reply",
                    Action::Error { .. } => "error",
                    _ => "raw",
                };
                log.write(json!({
                    "kind": "sent", "to": id, "method": method, "action": what,
                    "bytes": bytes.len(), "t_write": now_ms(),
                }));
                let wrote = {
                    let mut guard = out.lock().unwrap_or_else(|p| p.into_inner());
                    match guard.as_mut() {
                        Some(w) => w.write_all(&bytes).and_then(|()| w.flush()).is_ok(),
                        None => false,
                    }
                };
                if !wrote {
                    log.write(json!({"kind": "unwritten", "to": id, "method": method}));
                }
            }
            Action::Status { .. } | Action::ContentType { .. } | Action::Redirect { .. } => {}
        }
    }
    log.write(json!({"kind": "plan_end", "to": id, "method": method}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A stdout that, at each write, notes whether the log already holds
    /// a `sent` line: a harness may kill the process the moment it reads.
    struct Witness {
        log: std::path::PathBuf,
        seen: Arc<Mutex<Vec<bool>>>,
    }
    impl Write for Witness {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let logged = std::fs::read_to_string(&self.log)
                .unwrap_or_default()
                .contains(r#""kind":"sent""#);
            self.seen.lock().unwrap().push(logged);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_reply_is_logged_before_its_bytes_leave() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.json");
        let log = dir.path().join("l.jsonl");
        std::fs::write(&script, r#"{"intercept": [[{"do":"reply"}]]}"#).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":"e1","method":"hooks/intercept","params":{}}"#,
            "\n"
        );
        serve_stdio(
            &script,
            &log,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            Witness {
                log: log.clone(),
                seen: seen.clone(),
            },
        )
        .unwrap();
        let seen = seen.lock().unwrap().clone();
        assert!(!seen.is_empty() && seen.iter().all(|s| *s), "{seen:?}");
    }

    #[test]
    fn answers_by_plan_and_logs_every_frame() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.json");
        let log = dir.path().join("l.jsonl");
        std::fs::write(
            &script,
            r#"{"intercept": [[{"do":"raw","text":"banner"},{"do":"reply","result":{"protocolVersion":"0.1","effects":[{"type":"deny","reason":"no"}]}}], [{"do":"error","code":-32004}]],
                "observe": [[{"do":"raw","text":"{\"jsonrpc\":\"2.0\",\"id\":{{prev_id}},\"result\":{}}"}]]}"#,
        )
        .unwrap();
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":"e1","method":"hooks/intercept","params":{}}"#,
            "\n",
            "\u{0}garbage\n",
            r#"{"jsonrpc":"2.0","method":"hooks/observe","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"e2","method":"hooks/intercept","params":{}}"#,
            "\n",
        );
        let out = Buf::default();
        let code = serve_stdio(
            &script,
            &log,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            out.clone(),
        )
        .unwrap();
        assert_eq!(code, 0);
        let written = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert!(lines.contains(&"banner"), "{written}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains(r#""id":"e1""#) && l.contains("deny")),
            "{written}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains(r#""id":"e2""#) && l.contains("-32004")),
            "{written}"
        );
        assert!(
            lines.iter().any(|l| l.contains(r#""id":"e1","result":{}"#)),
            "{written}"
        );
        let log_text = std::fs::read_to_string(&log).unwrap();
        let kinds: Vec<String> = log_text
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            kinds.iter().filter(|k| *k == "frame").count(),
            4,
            "{log_text}"
        );
        assert_eq!(kinds.first().map(String::as_str), Some("start"));
        assert_eq!(kinds.last().map(String::as_str), Some("exit"));
        assert!(kinds.iter().any(|k| k == "eof"));
    }
}
