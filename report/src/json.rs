//! `report.json`: pretty JSON, members in model order, one final newline.
//! `ctk verify` requires a report file to be byte-identical to this
//! rendering of its own content, so even a whitespace edit is detected.

use crate::model::Report;

/// Render a report.
pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// Write `report`'s rendering to `out` as it is produced, byte for byte
/// [`render`], without holding the whole text (a report of 100,000 vectors
/// is tens of megabytes).
pub fn write(report: &Report, out: impl std::io::Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, report)?;
    std::io::Write::write_all(&mut out, b"\n")?;
    std::io::Write::flush(&mut out)
}

/// Render any JSON value the same way (used by `verify`).
pub fn render_value(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
