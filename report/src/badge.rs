//! `ctk badge`: a shields-style SVG of a report, `agent-hooks 0.1 | 392/392`.
//!
//! The badge must never say more than the report does: a failing or erring
//! run (or one with a stale or expired baseline entry) says `failing` in words (red only repeats it), a draft report says
//! `draft, not claimable`, and a passing report that still cannot back a
//! claim (a folder of vectors that is not the released suite, a narrowed
//! run, a report that does not verify) says `not claimable`. Only a report
//! [`claim::refusals`] accepts gets the plain green count.

use std::fmt::Write as _;

use crate::claim;
use crate::html::escape;
use crate::model::Report;
use ctk_core::suite::Suite;

/// What a badge says about its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadgeState {
    /// Every applicable gating vector passed and a claim can be made.
    Claimable,
    /// A gating vector failed or errored, or a baseline entry is stale or expired.
    Failing,
    /// A draft report: never claimable, however it went.
    Draft,
    /// Passed, yet no claim can be made (see [`claim::refusals`]).
    NotClaimable,
    /// No vector passed: nothing was checked.
    NothingChecked,
}

/// A badge's content before rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Badge {
    /// The left half: the protocol and spec line, `agent-hooks 0.1`.
    pub label: String,
    /// The right half: the counts and, unless claimable, why not.
    pub message: String,
    /// The state the colour is picked by.
    pub state: BadgeState,
}

impl BadgeState {
    /// The right half's fill: shields' hues, darkened so the white text keeps a 4.5:1 contrast.
    pub fn color(self) -> &'static str {
        match self {
            BadgeState::Claimable => "#2e7d32",
            BadgeState::Failing => "#c62828",
            BadgeState::Draft => "#6d4c9f",
            BadgeState::NotClaimable => "#8a6d00",
            BadgeState::NothingChecked => "#616161",
        }
    }
}

/// The badge of `report`; `verify_problems` are what `ctk verify` found
/// (they make a report unclaimable).
pub fn badge(report: &Report, verify_problems: &[String], released: claim::ReleasedSets) -> Badge {
    let t = report.totals;
    let suite = Suite::parse(&report.spec);
    // `agent-hooks/0.1` reads `agent-hooks 0.1`, as shields labels do.
    let label = report.spec.replacen('/', " ", 1);
    let draft = !suite.is_some_and(Suite::claimable);
    // As the exit code has it: a stale or expired baseline entry fails the run.
    let failing =
        t.fail > 0 || t.error > 0 || report.baseline.as_ref().is_some_and(|b| b.fails_run());
    let mut counts = format!("{}/{}", t.pass, t.applicable());
    let mut detail = Vec::new();
    if t.fail > 0 {
        detail.push(format!("{} failed", t.fail));
    }
    if t.error > 0 {
        detail.push(format!("{} errors", t.error));
    }
    if t.expected_fail > 0 {
        detail.push(format!("{} expected-fail", t.expected_fail));
    }
    let stale = report
        .baseline
        .as_ref()
        .map_or(0, |b| b.stale.len() + b.expired.len());
    if stale > 0 {
        detail.push(format!("{stale} stale baseline entries"));
    }
    if !detail.is_empty() {
        let _ = write!(counts, " ({})", detail.join(", "));
    }
    let refused = !claim::refusals(report, verify_problems, released).is_empty();
    let (state, message) = if failing {
        let prefix = if draft {
            "draft, not claimable · "
        } else {
            ""
        };
        (BadgeState::Failing, format!("{prefix}failing {counts}"))
    } else if draft {
        (
            BadgeState::Draft,
            format!("draft, not claimable · {counts}"),
        )
    } else if t.pass == 0 {
        (
            BadgeState::NothingChecked,
            format!("nothing checked · {counts}"),
        )
    } else if refused {
        (
            BadgeState::NotClaimable,
            format!("{counts} · not claimable"),
        )
    } else {
        (BadgeState::Claimable, counts)
    };
    Badge {
        label,
        message,
        state,
    }
}

/// Width in pixels of `text` in 11px Verdana (shields' font), from a
/// per-character table close enough that `textLength` only nudges it.
fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '|' | '\'' | '.' | ',' | ':' | ';' | '!' => 3.4,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' | '·' => 4.6,
            'm' | 'w' | 'M' | 'W' => 10.0,
            'A'..='Z' => 7.6,
            '0'..='9' => 7.0,
            _ => 6.6,
        })
        .sum()
}

/// The badge as an SVG document; both halves' text is escaped.
pub fn render(badge: &Badge) -> String {
    let pad = 10.0;
    let lw = (text_width(&badge.label) + pad).round();
    let mw = (text_width(&badge.message) + pad).round();
    let width = lw + mw;
    let title = escape(&format!("{}: {}", badge.label, badge.message));
    let label = escape(&badge.label);
    let message = escape(&badge.message);
    // Text is drawn at ten times the size and scaled down, as shields does,
    // so glyph positions are not rounded to whole pixels.
    let text = |x: f64, w: f64, body: &str| {
        format!(
            "<text aria-hidden=\"true\" x=\"{sx}\" y=\"150\" fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\" textLength=\"{tl}\">{body}</text>\
             <text x=\"{sx}\" y=\"140\" transform=\"scale(.1)\" fill=\"#fff\" textLength=\"{tl}\">{body}</text>",
            sx = (x + w / 2.0) * 10.0,
            tl = (w - pad) * 10.0,
        )
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"20\" role=\"img\" aria-label=\"{title}\">\
         <title>{title}</title>\
         <linearGradient id=\"s\" x2=\"0\" y2=\"100%\"><stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/><stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>\
         <clipPath id=\"r\"><rect width=\"{width}\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>\
         <g clip-path=\"url(#r)\"><rect width=\"{lw}\" height=\"20\" fill=\"#555\"/><rect x=\"{lw}\" width=\"{mw}\" height=\"20\" fill=\"{color}\"/><rect width=\"{width}\" height=\"20\" fill=\"url(#s)\"/></g>\
         <g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" text-rendering=\"geometricPrecision\" font-size=\"110\">{l}{m}</g>\
         </svg>\n",
        color = badge.state.color(),
        l = text(0.0, lw, &label),
        m = text(lw, mw, &message),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_escaped() {
        let svg = render(&Badge {
            label: "<script>alert(1)</script>".into(),
            message: "a&b\"".into(),
            state: BadgeState::Failing,
        });
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(
            svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{svg}"
        );
        assert!(svg.contains("a&amp;b&quot;"), "{svg}");
    }

    #[test]
    fn a_longer_message_makes_a_wider_badge() {
        let b = |m: &str| Badge {
            label: "agent-hooks 0.1".into(),
            message: m.into(),
            state: BadgeState::Claimable,
        };
        let width = |svg: String| -> f64 {
            let rest = svg.split_once("width=\"").expect("width").1;
            rest.split_once('"')
                .expect("quote")
                .0
                .parse()
                .expect("number")
        };
        assert!(width(render(&b("1/1"))) < width(render(&b("draft, not claimable · 1/1"))));
    }
}
