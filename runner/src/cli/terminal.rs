//! What `ctk run` shows while it runs: an indicatif progress display on
//! stderr (when stderr is a terminal), one line per finished vector on
//! stdout, and output that never panics on a closed pipe
//! (`ctk run | head -1` must still write its reports).

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::args::ColorChoice;
use crate::event::Event;
use crate::outcome::Status;
use crate::report::human::{self, Style};
use crate::set::{VectorMeta, VectorView};

/// Print `text` on stdout, ignoring a closed or failing stdout: output is a
/// courtesy, and losing it must never cost a result.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Print `text` and a newline on stdout, as [`out`] does: a reader that has
/// gone (`ctk list | head`) ends the output, not the command.
pub fn out_line(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// Print `text` and a newline on stderr, ignoring a failing stderr.
pub fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
}

/// Whether to colour, by `--color` and the `NO_COLOR` convention
/// (no-color.org: a non-empty `NO_COLOR` turns off automatic colour, an
/// explicit `--color always` still wins).
pub fn use_color(choice: ColorChoice, is_terminal: bool, no_color: Option<&str>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_terminal && no_color.is_none_or(str::is_empty),
    }
}

/// How the run's progress is shown.
#[derive(Debug, Clone, Copy)]
pub struct Display {
    /// Per-vector lines and the summary on stdout (`--format human`).
    pub human: bool,
    /// `--quiet`: only failures, errors and the summary.
    pub quiet: bool,
    /// Terminal style.
    pub style: Style,
}

/// The live view of one run, over the run's vectors as the run holds them
/// (anything that shows a [`VectorMeta`] while it runs, so no copy of them
/// is made).
pub struct Terminal<'a, T = VectorMeta> {
    display: Display,
    vectors: &'a [T],
    bar: Option<ProgressBar>,
    /// The running vectors' ids and titles, by position.
    running: BTreeMap<usize, (String, String)>,
    counts: [usize; 4],
}

impl<'a, T: VectorView> Terminal<'a, T> {
    /// A view over `vectors`. The progress display appears at once (before
    /// the host's handshake), when stderr is a terminal and the run is
    /// neither quiet nor JSON.
    pub fn new(vectors: &'a [T], display: Display) -> Self {
        let bar = (display.human && !display.quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(vectors.len() as u64),
                ProgressDrawTarget::stderr(),
            );
            let template = if display.style.color {
                "{spinner:.cyan} {elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} {wide_msg}"
            } else {
                "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} {wide_msg}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message("starting the host");
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Self {
            display,
            vectors,
            bar,
            running: BTreeMap::new(),
            counts: [0; 4],
        }
    }

    fn meta(&self, index: usize) -> Option<std::borrow::Cow<'a, VectorMeta>> {
        self.vectors.get(index).and_then(VectorView::view)
    }

    fn message(&self) -> String {
        let [pass, fail, skip, error] = self.counts;
        let mut msg = format!("{pass} passed, {fail} failed, {skip} skipped, {error} errors");
        if let Some((_, (id, title))) = self.running.iter().next_back() {
            msg.push_str(&format!(" | running {id} {title}"));
            if self.running.len() > 1 {
                msg.push_str(&format!(" (+{} more)", self.running.len() - 1));
            }
        }
        msg
    }

    fn print_line(&self, line: &str) {
        let text = format!("{line}\n");
        match &self.bar {
            Some(bar) => bar.suspend(|| out(&text)),
            None => out(&text),
        }
    }

    /// Show one engine event.
    pub fn on_event(&mut self, event: &Event) {
        match event {
            Event::RunStarted { .. } => {}
            Event::VectorStarted { index } => {
                if let Some(v) = self.meta(*index) {
                    self.running.insert(*index, (v.id.clone(), v.title.clone()));
                }
            }
            Event::VectorFinished { index, outcome } => {
                self.running.remove(index);
                let slot = match outcome.status {
                    Status::Pass => 0,
                    Status::Fail => 1,
                    Status::Skip => 2,
                    Status::Error => 3,
                    // The engine never yields it; counted with the failures.
                    Status::ExpectedFail => 1,
                };
                self.counts[slot] += 1;
                let shown =
                    !self.display.quiet || matches!(outcome.status, Status::Fail | Status::Error);
                if self.display.human && shown {
                    let meta = self.meta(*index);
                    let title = meta.as_ref().map_or("", |v| v.title.as_str());
                    let title = match meta.as_ref().and_then(|v| v.advisory.as_deref()) {
                        Some(decision) => format!("{title} [advisory {decision}]"),
                        None => title.to_owned(),
                    };
                    self.print_line(&human::vector_line(outcome, &title, self.display.style));
                }
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            Event::RunFinished => {}
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.message());
        }
    }
}

impl<T> Terminal<'_, T> {
    /// Clear the progress display; the summary follows on stdout.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl<T> Drop for Terminal<'_, T> {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_flag_the_terminal_and_no_color() {
        assert!(use_color(ColorChoice::Auto, true, None));
        assert!(use_color(ColorChoice::Auto, true, Some("")));
        assert!(!use_color(ColorChoice::Auto, true, Some("1")));
        assert!(!use_color(ColorChoice::Auto, false, None));
        assert!(use_color(ColorChoice::Always, false, Some("1")));
        assert!(!use_color(ColorChoice::Never, true, None));
    }
}
