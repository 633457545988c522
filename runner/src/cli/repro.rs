//! `ctk repro ID`: one vector's recorded stdio exchange as a standalone
//! Python script (standard library only) that replays the runner's side
//! against a host command and prints where the host diverged.
//!
//! The transcript comes from `ctk run --transcript DIR` (`--transcript DIR`),
//! or is recorded now by running that one vector against the host command
//! after `--` (`--vectors`/`--spec`). The script carries it inline, with the
//! verdict ctk gave on it, so that it is one file a vendor attaches to a bug
//! report; what the script compares, and what it compares only for presence
//! and type, is written in its header (`repro_template.py`).

use std::path::{Path, PathBuf};

use clap::{Parser as _, ValueEnum as _};
use serde_json::{json, Value};

use crate::cli::args::{Cli, Command, ReproArgs};
use crate::cli::transcript::{self, Direction, Entry};
use crate::cli::{run, terminal, CliError};
use crate::errors::{ReportError, UsageError};
use crate::exit_code;

/// The script, with `__CTK_REPRO_DATA__` and `__CTK_SUMMARY__` to fill in.
const TEMPLATE: &str = include_str!("repro_template.py");

/// What the script needs of the recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The vector's id.
    pub vector_id: String,
    /// The transcript's entries, in order.
    pub entries: Vec<Entry>,
    /// The host command the transcript was recorded against.
    pub command: Option<Vec<String>>,
    /// ctk's status and reason for the recorded exchange.
    pub verdict: Option<(String, String)>,
}

/// The script replaying `recording`.
pub fn script(recording: &Recording) -> String {
    let entries: Vec<Value> = recording
        .entries
        .iter()
        .map(|e| {
            let mut v = json!({
                "seq": e.seq,
                "direction": match e.direction {
                    Direction::ToHost => "to_host",
                    Direction::FromHost => "from_host",
                },
            });
            if let Some(t) = e.t_ms {
                v["t_ms"] = json!(t);
            }
            // The wire text itself, not a re-encoding: the script sends the
            // runner's lines byte for byte (number tokens included).
            if let Some(m) = &e.message {
                v["wire"] = json!(m.get());
            }
            if let Some(r) = &e.raw {
                v["raw"] = json!(r);
            }
            if let Some(u) = &e.unreadable {
                v["unreadable"] = json!(u);
            }
            v
        })
        .collect();
    let data = json!({
        "vector_id": recording.vector_id,
        "ctk": env!("CARGO_PKG_VERSION"),
        "recorded_command": recording.command,
        "recorded_verdict": recording.verdict.as_ref().map(|(status, reason)| json!({
            "status": status, "reason": reason,
        })),
        "entries": entries,
    });
    let text = serde_json::to_string(&data).expect("the recording serialises");
    // A JSON string literal is a Python string literal too (serde_json
    // writes only the escapes both share, and non-ASCII as UTF-8).
    let literal = serde_json::to_string(&text).expect("a string serialises");
    TEMPLATE
        .replacen("__CTK_SUMMARY__", &summary(recording), 1)
        .replacen("__CTK_REPRO_DATA__", &literal, 1)
}

/// The header's lines about this recording, each a `#` comment.
fn summary(recording: &Recording) -> String {
    let mut text = format!(
        "Vector {}: {} messages recorded by ctk {}",
        recording.vector_id,
        recording.entries.len(),
        env!("CARGO_PKG_VERSION")
    );
    if let Some(command) = &recording.command {
        text.push_str(&format!(" against `{}`", command.join(" ")));
    }
    text.push_str(". ");
    match &recording.verdict {
        Some((status, reason)) if reason.is_empty() => {
            text.push_str(&format!("ctk's verdict on that exchange: {status}."));
        }
        Some((status, reason)) => {
            text.push_str(&format!(
                "ctk's verdict on that exchange: {status}: {reason}."
            ));
        }
        None => text.push_str("ctk's verdict on that exchange was not recorded."),
    }
    wrap(&text.replace(['\n', '\r'], " "), 76).join("\n# ")
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.len() + 1 + word.len() > width {
            lines.push(word.to_owned());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// Read `id`'s recording from a transcript directory.
pub fn from_dir(dir: &Path, id: &str) -> Result<Recording, CliError> {
    let entries = transcript::read(dir, id).map_err(|e| UsageError(crate::cli::error_chain(&e)))?;
    Ok(Recording {
        vector_id: id.to_owned(),
        entries,
        command: transcript::recorded_command(dir),
        verdict: transcript::recorded_outcome(dir, id),
    })
}

/// Record `id` now: `ctk run --id ID --transcript TMP ... -- HOST`.
fn record(args: &ReproArgs, dir: &Path) -> Result<Recording, CliError> {
    if args.host.is_empty() {
        return Err(UsageError(
            "ctk repro without --transcript records the vector now: give the host command after \
             `--` (or pass --transcript DIR from an earlier `ctk run --transcript DIR`)"
                .into(),
        )
        .into());
    }
    let spec = args
        .spec
        .to_possible_value()
        .expect("every spec has a name")
        .get_name()
        .to_owned();
    let mut argv: Vec<String> = ["ctk", "run", "--quiet", "--id", &args.id, "--spec", &spec]
        .map(str::to_owned)
        .to_vec();
    if let Some(v) = &args.vectors {
        argv.extend(["--vectors".to_owned(), v.display().to_string()]);
    }
    if let Some(d) = &args.declaration {
        argv.extend(["--declaration".to_owned(), d.display().to_string()]);
    }
    argv.extend(["--transcript".to_owned(), dir.display().to_string()]);
    argv.push("--".to_owned());
    argv.extend(args.host.iter().cloned());
    let cli = Cli::try_parse_from(&argv).map_err(|e| UsageError(e.to_string()))?;
    let Command::Run(run_args) = cli.command else {
        unreachable!("the argv starts with `run`")
    };
    let code = run::command(run_args)?;
    if code == exit_code::USAGE || code == exit_code::NO_TESTS {
        return Err(UsageError(format!(
            "vector {} did not run against the host (exit {code}): nothing to replay",
            args.id
        ))
        .into());
    }
    from_dir(dir, &args.id)
}

/// `ctk repro`.
pub fn command(args: &ReproArgs) -> Result<u8, CliError> {
    let recording = match &args.transcript {
        Some(dir) => {
            if !args.host.is_empty() {
                return Err(UsageError(
                    "--transcript replays a recording: the host command goes to the script \
                     (`python3 repro.py -- <host command>`), not to ctk repro"
                        .into(),
                )
                .into());
            }
            from_dir(dir, &args.id)?
        }
        None => {
            // No new dependency for one directory: this process's own name
            // under the system's temporary directory, removed afterwards.
            let tmp = std::env::temp_dir().join(format!(
                "ctk-repro-{}-{}",
                std::process::id(),
                transcript::file_name(&args.id).trim_end_matches(".jsonl")
            ));
            let recorded = record(args, &tmp);
            let _ = std::fs::remove_dir_all(&tmp);
            recorded?
        }
    };
    let text = script(&recording);
    write_script(&args.output, &text)?;
    terminal::err(&format!(
        "wrote {} ({} messages of {}); run it with: python3 {} -- <host command>",
        args.output.display(),
        recording.entries.len(),
        recording.vector_id,
        args.output.display()
    ));
    Ok(exit_code::SUCCESS)
}

fn write_script(path: &PathBuf, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|source| ReportError::Io {
        path: path.clone(),
        source,
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn entry(seq: usize, direction: Direction, wire: &str) -> Entry {
        Entry {
            seq,
            direction,
            before_vector: false,
            t_ms: Some(0),
            message: Some(RawValue::from_string(wire.to_owned()).expect("JSON")),
            raw: None,
            unreadable: None,
        }
    }

    #[test]
    fn the_script_carries_the_wire_text_and_a_one_line_summary() {
        let recording = Recording {
            vector_id: "X-1".into(),
            entries: vec![entry(
                0,
                Direction::ToHost,
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"n":1.50e3}}"#,
            )],
            command: Some(vec!["host".into()]),
            verdict: Some(("fail".into(), "line one\nline \"two\"".into())),
        };
        let text = script(&recording);
        assert!(!text.contains("__CTK_"), "a placeholder is left");
        // The number token survives as written, inside the string literal.
        assert!(text.contains(r#"1.50e3"#), "{text}");
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
        assert!(header.iter().any(|l| l.contains("fail: line one line")));
        assert!(header.len() > 5);
    }
}
