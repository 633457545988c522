//! `ctk run --transcript DIR`: every vector's full stdio exchange with the
//! host, one JSONL file per vector, for `ctk repro` and for a vendor's bug
//! report.
//!
//! Lines are taken from [`WireTap`], at the one place the link frames them,
//! so a transcript holds what the host really received and wrote, never a
//! second encoding of it. Each line of `DIR/<vector id>.jsonl` is one message:
//!
//! ```json
//! {"seq":3,"direction":"from_host","t_ms":12,"message":{"jsonrpc":"2.0","id":3,"result":{}}}
//! ```
//!
//! - `seq` counts from 0 within the file; `direction` is `to_host` or
//!   `from_host`; `message` is the line exactly as on the wire (its JSON
//!   tokens unchanged); `t_ms` is the time since the vector began.
//! - A persistent host shakes hands once, before its first vector: every
//!   later vector's file starts with a copy of that handshake, marked
//!   `"before_vector":true` (and without `t_ms`), so that each file replays on
//!   a fresh host process on its own.
//! - A host line that is not JSON is kept as `"raw"` text; stdout that could
//!   not be read as a line (too long, not UTF-8) is an `"unreadable"` entry
//!   saying why. Nothing the host wrote is left out silently.
//! - A file is written as `<name>.partial` and renamed when complete: a file
//!   under its final name is never partial. A file that cannot be written
//!   is named on stderr and makes the run exit 3.
//!
//! `DIR/index.json` lists the files with each vector's status and reason in
//! the run, the host command and the `ctk` version. With `--jobs N` each host
//! process has a tap of its own; a vector's lines come from the one process
//! that ran it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use ctk_agent_hooks_adapter::{
    AdapterError, Callbacks, HostAdapter, HostInfo, RunRecord, StdioHost, VectorSetup, WireEvent,
    WireTap,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::cli::terminal;
use crate::errors::UsageError;
use crate::exit_code;
use crate::report::model::Report;

/// The format name `index.json` carries.
pub const FORMAT: &str = "ctk-transcript/1";

/// The file in a transcript directory that lists the vectors' files.
pub const INDEX_FILE: &str = "index.json";

/// Why a transcript could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// The file could not be read.
    #[error("cannot read transcript {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not a transcript entry.
    #[error("{path}: line {line}: not a transcript entry ({why}); was it written by `ctk run --transcript`?")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A vector has no transcript in the directory.
    #[error(
        "{dir} holds no transcript of {id} (expected {file}); vectors transcribed there: {known}"
    )]
    Missing {
        /// The directory.
        dir: PathBuf,
        /// The vector id asked for.
        id: String,
        /// The file looked for.
        file: String,
        /// The ids of the files present.
        known: String,
    },
}

/// Which side wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The runner wrote it to the host's stdin.
    ToHost,
    /// The host wrote it to its stdout.
    FromHost,
}

/// One line of a transcript file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Position in the file, from 0.
    pub seq: usize,
    /// Who wrote the line.
    pub direction: Direction,
    /// Part of the host process's handshake, which ran before this vector.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_vector: bool,
    /// Milliseconds since the vector began (absent for `before_vector`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_ms: Option<u64>,
    /// The message, its JSON text exactly as on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<RawValue>>,
    /// A host line that is not JSON, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// Why the host's stdout could not be read as a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// What happened on the wire, before it is numbered.
#[derive(Debug, Clone)]
struct Seen {
    direction: Direction,
    line: Result<String, String>,
    at: Instant,
}

/// The file name of `id`'s transcript: characters a file name cannot safely
/// hold become `_`.
pub fn file_name(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.jsonl")
}

/// A run's transcript directory, shared by the taps of every host process.
#[derive(Debug)]
pub struct TranscriptDir {
    dir: PathBuf,
    command: Vec<String>,
    /// Files written: vector id, file name, message count.
    written: Mutex<Vec<(String, String, usize)>>,
    /// Files that could not be written, and why.
    problems: Mutex<Vec<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `--transcript` records the Agent Hooks stdio wire only.
pub fn refuse_for_ahp(dir: Option<&Path>) -> Result<(), UsageError> {
    match dir {
        Some(_) => Err(UsageError(
            "--transcript records the Agent Hooks stdio harness protocol; it is not available \
             with --protocol ahp"
                .into(),
        )),
        None => Ok(()),
    }
}

impl TranscriptDir {
    /// The run's transcript directory, when `--transcript DIR` was given.
    pub fn for_run(
        dir: Option<&Path>,
        choice: &crate::cli::host::HostChoice,
    ) -> Result<Option<Arc<Self>>, UsageError> {
        let Some(dir) = dir else { return Ok(None) };
        let command = match choice {
            crate::cli::host::HostChoice::Stdio { command, .. } => Some(command.as_slice()),
            crate::cli::host::HostChoice::Reference => None,
        };
        Self::create(dir, command).map(Some)
    }

    /// Make `dir` for a run of the stdio host `command`. Refused when there
    /// is no wire to record (the bundled host runs in process) or the
    /// directory cannot be made.
    pub fn create(dir: &Path, command: Option<&[String]>) -> Result<Arc<Self>, UsageError> {
        let Some(command) = command else {
            return Err(UsageError(
                "--transcript records the stdio exchange with a host process: give the host \
                 command after `--` (the bundled reference host runs in process, with no wire)"
                    .into(),
            ));
        };
        std::fs::create_dir_all(dir).map_err(|e| {
            UsageError(format!(
                "--transcript {}: cannot make the directory: {e}",
                dir.display()
            ))
        })?;
        Ok(Arc::new(Self {
            dir: dir.to_path_buf(),
            command: command.to_vec(),
            written: Mutex::default(),
            problems: Mutex::default(),
        }))
    }

    /// A stdio harness from `builder` whose every line is transcribed here.
    pub fn harness(
        self: &Arc<Self>,
        builder: ctk_agent_hooks_adapter::StdioHostBuilder,
    ) -> Transcribed {
        let tap = Arc::new(Tap {
            dir: Arc::clone(self),
            state: Mutex::default(),
        });
        Transcribed {
            inner: builder.tap(tap.clone()).build(),
            tap,
        }
    }

    fn write(&self, id: &str, seen: Vec<(bool, Seen)>, start: Instant) {
        let name = file_name(id);
        let mut text = String::new();
        for (seq, (before_vector, s)) in seen.into_iter().enumerate() {
            let mut entry = Entry {
                seq,
                direction: s.direction,
                before_vector,
                t_ms: (!before_vector).then(|| {
                    u64::try_from(s.at.saturating_duration_since(start).as_millis())
                        .unwrap_or(u64::MAX)
                }),
                message: None,
                raw: None,
                unreadable: None,
            };
            match s.line {
                Ok(line) => match RawValue::from_string(line.clone()) {
                    Ok(raw) => entry.message = Some(raw),
                    Err(_) => entry.raw = Some(line),
                },
                Err(why) => entry.unreadable = Some(why),
            }
            text.push_str(&serde_json::to_string(&entry).expect("entries serialise"));
            text.push('\n');
        }
        let count = text.lines().count();
        let path = self.dir.join(&name);
        let partial = self.dir.join(format!("{name}.partial"));
        let done = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, &path));
        match done {
            Ok(()) => lock(&self.written).push((id.to_owned(), name, count)),
            Err(e) => lock(&self.problems).push(format!(
                "the transcript of {id} could not be written to {}: {e}",
                path.display()
            )),
        }
    }

    /// Write `index.json` for `report`, then say on stderr what could not
    /// be transcribed; the exit code, raised to 3 when anything was lost: a
    /// run asked for transcripts must not look complete without them.
    pub fn finish(&self, report: Option<&Report>, code: u8) -> u8 {
        let written = lock(&self.written).clone();
        // One walk of the report (a run's entries are read back from its
        // spool), keeping only the transcribed vectors' results.
        let wanted: std::collections::BTreeSet<&str> =
            written.iter().map(|(id, _, _)| id.as_str()).collect();
        let mut outcomes: std::collections::BTreeMap<String, (&'static str, String)> =
            std::collections::BTreeMap::new();
        for v in report.iter().flat_map(|r| r.vectors.iter()) {
            if wanted.contains(v.id.as_str()) && !outcomes.contains_key(&v.id) {
                outcomes.insert(v.id.clone(), (v.status.as_str(), v.reason.clone()));
            }
        }
        let vectors: Vec<serde_json::Value> = written
            .iter()
            .map(|(id, file, messages)| {
                let outcome = outcomes.get(id);
                serde_json::json!({
                    "id": id,
                    "file": file,
                    "messages": messages,
                    "status": outcome.map(|(status, _)| *status),
                    "reason": outcome.map(|(_, reason)| reason.clone()),
                })
            })
            .collect();
        let index = serde_json::json!({
            "format": FORMAT,
            "ctk": env!("CARGO_PKG_VERSION"),
            "host_command": self.command,
            "vectors": vectors,
        });
        let path = self.dir.join(INDEX_FILE);
        let text = serde_json::to_string_pretty(&index).expect("the index serialises") + "\n";
        if let Err(e) = std::fs::write(&path, text) {
            lock(&self.problems).push(format!("{} could not be written: {e}", path.display()));
        }
        let problems = lock(&self.problems).clone();
        if problems.is_empty() {
            terminal::err(&format!(
                "transcripts of {} vectors written to {}",
                written.len(),
                self.dir.display()
            ));
            return code;
        }
        for p in &problems {
            terminal::err(&format!("error: transcript incomplete: {p}"));
        }
        code.max(exit_code::HARNESS)
    }
}

/// The lines of one host link, sorted into vectors.
#[derive(Debug, Default)]
struct TapState {
    /// The handshake of the live process: its first line each way.
    handshake: Vec<Seen>,
    /// Lines of the handshake still to come (each way).
    handshake_due: (bool, bool),
    /// The vector in progress.
    current: Option<Current>,
    /// Lines seen between vectors; they belong to the next one, whose first
    /// call reads them.
    between: Vec<Seen>,
}

/// The vector a tap is transcribing.
#[derive(Debug)]
struct Current {
    id: String,
    start: Instant,
    /// Each line, and whether it is a `before_vector` copy.
    lines: Vec<(bool, Seen)>,
}

/// The [`WireTap`] of one [`StdioHost`].
#[derive(Debug)]
struct Tap {
    dir: Arc<TranscriptDir>,
    state: Mutex<TapState>,
}

impl Tap {
    fn begin(&self, id: &str) {
        self.end();
        let mut state = lock(&self.state);
        let mut lines: Vec<(bool, Seen)> =
            state.handshake.iter().cloned().map(|s| (true, s)).collect();
        let between = std::mem::take(&mut state.between);
        lines.extend(between.into_iter().map(|s| (false, s)));
        state.current = Some(Current {
            id: id.to_owned(),
            start: Instant::now(),
            lines,
        });
    }

    fn end(&self) {
        let current = lock(&self.state).current.take();
        if let Some(c) = current {
            self.dir.write(&c.id, c.lines, c.start);
        }
    }
}

impl WireTap for Tap {
    fn record(&self, event: WireEvent<'_>) {
        let mut state = lock(&self.state);
        let (direction, line) = match event {
            WireEvent::Started { .. } => {
                // A new process: the old one's handshake and stray lines are
                // not part of what this one sees.
                state.handshake.clear();
                state.handshake_due = (true, true);
                state.between.clear();
                if let Some(c) = &mut state.current {
                    c.lines.retain(|(before, _)| !before);
                }
                return;
            }
            WireEvent::ToHost(line) => (Direction::ToHost, Ok(line.to_owned())),
            WireEvent::FromHost(line) => (Direction::FromHost, Ok(line.to_owned())),
            WireEvent::Unreadable(why) => (Direction::FromHost, Err(why.to_owned())),
            // A newer harness-protocol may report more; a transcript must
            // not silently drop it.
            _ => (Direction::FromHost, Err(format!("{event:?}"))),
        };
        let seen = Seen {
            direction,
            line,
            at: Instant::now(),
        };
        let due = match direction {
            Direction::ToHost => &mut state.handshake_due.0,
            Direction::FromHost => &mut state.handshake_due.1,
        };
        let handshake = std::mem::take(due);
        if handshake {
            state.handshake.push(seen.clone());
        }
        match &mut state.current {
            Some(c) => c.lines.push((false, seen)),
            // A handshake before any vector reaches the next one as its
            // `before_vector` copy, not twice.
            None if handshake => {}
            None => state.between.push(seen),
        }
    }
}

/// A [`StdioHost`] whose vectors are transcribed: each vector's file is
/// written when its teardown returns (or, after a failed setup, when the
/// next vector begins or the harness is dropped).
#[derive(Debug)]
pub struct Transcribed {
    inner: StdioHost,
    tap: Arc<Tap>,
}

impl HostAdapter for Transcribed {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        self.inner.info().await
    }

    async fn setup(&mut self, setup: VectorSetup) -> Result<(), AdapterError> {
        self.tap.begin(&setup.vector_id);
        self.inner.setup(setup).await
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        self.inner.run(callbacks).await
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        let result = self.inner.teardown().await;
        self.tap.end();
        result
    }
}

impl Drop for Transcribed {
    fn drop(&mut self) {
        self.tap.end();
    }
}

/// Read the transcript of `id` from `dir`.
pub fn read(dir: &Path, id: &str) -> Result<Vec<Entry>, TranscriptError> {
    let file = file_name(id);
    let path = dir.join(&file);
    if !path.is_file() {
        let mut known: Vec<String> = std::fs::read_dir(dir)
            .map_err(|source| TranscriptError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".jsonl").map(str::to_owned)
            })
            .collect();
        known.sort();
        return Err(TranscriptError::Missing {
            dir: dir.to_path_buf(),
            id: id.to_owned(),
            file,
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|source| TranscriptError::Io {
        path: path.clone(),
        source,
    })?;
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let malformed = |why: String| TranscriptError::Malformed {
            path: path.clone(),
            line: n + 1,
            why,
        };
        let entry: Entry = serde_json::from_str(line).map_err(|e| malformed(e.to_string()))?;
        if entry.seq != n {
            return Err(malformed(format!(
                "seq is {}, expected {n}: lines are missing or out of order",
                entry.seq
            )));
        }
        let kinds = [
            entry.message.is_some(),
            entry.raw.is_some(),
            entry.unreadable.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(malformed(
                "an entry holds exactly one of message, raw, unreadable".into(),
            ));
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// The run's status and reason for `id`, from `dir/index.json`, when present.
pub fn recorded_outcome(dir: &Path, id: &str) -> Option<(String, String)> {
    let text = std::fs::read_to_string(dir.join(INDEX_FILE)).ok()?;
    let index: serde_json::Value = serde_json::from_str(&text).ok()?;
    let v = index["vectors"]
        .as_array()?
        .iter()
        .find(|v| v["id"] == id)?;
    Some((
        v["status"].as_str()?.to_owned(),
        v["reason"].as_str().unwrap_or("").to_owned(),
    ))
}

/// The host command the transcripts of `dir` were recorded against.
pub fn recorded_command(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(INDEX_FILE)).ok()?;
    let index: serde_json::Value = serde_json::from_str(&text).ok()?;
    serde_json::from_value(index["host_command"].clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(direction: Direction, line: &str) -> WireEvent<'_> {
        match direction {
            Direction::ToHost => WireEvent::ToHost(line),
            Direction::FromHost => WireEvent::FromHost(line),
        }
    }

    #[test]
    fn a_later_vector_starts_with_the_handshake_and_the_shutdown_belongs_to_none() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = TranscriptDir::create(tmp.path(), Some(&["host".to_owned()])).expect("dir");
        let tap = Tap {
            dir: Arc::clone(&dir),
            state: Mutex::default(),
        };
        tap.record(WireEvent::Started { pid: Some(1) });
        tap.begin("A");
        tap.record(seen(Direction::ToHost, r#"{"id":1,"method":"initialize"}"#));
        tap.record(seen(Direction::FromHost, r#"{"id":1,"result":{}}"#));
        tap.record(seen(
            Direction::ToHost,
            r#"{"id":2,"method":"vector/setup"}"#,
        ));
        tap.record(seen(Direction::FromHost, "not json"));
        tap.end();
        tap.begin("B/1");
        tap.record(seen(
            Direction::ToHost,
            r#"{"id":3,"method":"vector/setup"}"#,
        ));
        tap.record(WireEvent::Unreadable("line longer than 16 bytes"));
        tap.end();
        tap.record(seen(Direction::ToHost, r#"{"id":4,"method":"shutdown"}"#));

        let a = read(tmp.path(), "A").expect("A");
        assert_eq!(a.len(), 4);
        assert!(a.iter().all(|e| !e.before_vector && e.t_ms.is_some()));
        assert_eq!(a[3].raw.as_deref(), Some("not json"));
        let b = read(tmp.path(), "B/1").expect("B");
        assert_eq!(b.len(), 4, "{b:?}");
        assert!(b[0].before_vector && b[1].before_vector && !b[2].before_vector);
        assert_eq!(
            b[0].message.as_ref().map(|m| m.get()),
            Some(r#"{"id":1,"method":"initialize"}"#)
        );
        assert_eq!(
            b[3].unreadable.as_deref(),
            Some("line longer than 16 bytes")
        );
        assert!(tmp.path().join("B_1.jsonl").is_file());
        assert_eq!(dir.finish(None, 0), 0);
        let index: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(tmp.path().join(INDEX_FILE)).expect("index"),
        )
        .expect("JSON");
        assert_eq!(index["vectors"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_restarted_host_drops_the_old_handshake() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = TranscriptDir::create(tmp.path(), Some(&["host".to_owned()])).expect("dir");
        let tap = Tap {
            dir: Arc::clone(&dir),
            state: Mutex::default(),
        };
        tap.record(WireEvent::Started { pid: None });
        tap.record(seen(Direction::ToHost, r#"{"id":1,"method":"initialize"}"#));
        tap.record(seen(
            Direction::FromHost,
            r#"{"id":1,"result":{"old":true}}"#,
        ));
        tap.begin("C");
        tap.record(WireEvent::Started { pid: None });
        tap.record(seen(Direction::ToHost, r#"{"id":1,"method":"initialize"}"#));
        tap.record(seen(
            Direction::FromHost,
            r#"{"id":1,"result":{"new":true}}"#,
        ));
        tap.end();
        let c = read(tmp.path(), "C").expect("C");
        assert_eq!(c.len(), 2);
        assert!(c[1]
            .message
            .as_ref()
            .is_some_and(|m| m.get().contains("new")));
    }

    #[test]
    fn a_file_that_cannot_be_written_fails_the_run() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = TranscriptDir::create(tmp.path(), Some(&["host".to_owned()])).expect("dir");
        // A directory where the file should go: the rename fails.
        std::fs::create_dir(tmp.path().join("D.jsonl")).expect("mkdir");
        std::fs::write(tmp.path().join("D.jsonl/x"), "").expect("fill");
        dir.write("D", Vec::new(), Instant::now());
        assert_eq!(dir.finish(None, 0), exit_code::HARNESS);
        assert!(
            !tmp.path().join("D.jsonl.partial").exists() || tmp.path().join("D.jsonl").is_dir()
        );
    }

    #[test]
    fn no_transcript_without_a_host_process() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let err = TranscriptDir::create(tmp.path(), None).expect_err("refused");
        assert!(err.0.contains("after `--`"), "{err}");
    }
}
