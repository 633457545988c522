//! Other readings of the reference backend (issue 26): `ctk-ahp-backend
//! --freedoms all|none|ID,...` takes, at the places the AHP text leaves open
//! (`spec/ahp/0.1/freedoms.json`, role `backend`, and for `--spec draft`
//! the changes of `spec/ahp/draft/freedoms.json`), the choice it does not
//! take by default, so that the suite can show that a backend taking it
//! still passes every gating vector.
//!
//! Every choice is made at the edge, around an unchanged [`crate::Backend`]:
//! - [`spelling`]: how each reply is written (member order, whitespace,
//!   numbers, escapes, added members; stdio line ends, blank lines and
//!   chunked writes), by [`FreedomWriter`] on stdout and by the HTTP hook;
//! - [`edge`]: what a message is answered with and how an HTTP reply is
//!   framed, by [`FreedomBackend`], which the bindings ask through
//!   [`crate::backend::Respond`];
//! - [`stdio`]: the two stdio lifecycles' other choices (reading what waits
//!   before answering; when a per_event process exits, and with which
//!   status).

pub mod edge;
mod http;
pub mod spelling;
pub mod stdio;

use std::collections::BTreeSet;

use ctk_ahp_wire::version::AhpLine;
use serde_json::Value;

pub use edge::FreedomBackend;
pub use spelling::FreedomWriter;

/// The released line's catalog, compiled in so that an id it does not know
/// is refused with the list it does.
const CATALOG: &str = include_str!("../../../../spec/ahp/0.1/freedoms.json");

/// The draft line's changes to it.
const DRAFT_CATALOG: &str = include_str!("../../../../spec/ahp/draft/freedoms.json");

/// A backend freedom the reference backend can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Freedom {
    /// Every object's members in reverse order.
    JsonMemberOrder,
    /// A space after every `:` and `,`.
    JsonInsignificantWhitespace,
    /// Integral numbers written with a fraction (`-32001.0`).
    JsonNumberSpelling,
    /// Every non-ASCII character and `/` written as an escape.
    JsonStringEscapes,
    /// Every frame ended by CR LF.
    StdioCarriageReturn,
    /// An empty line after every frame.
    StdioBlankLines,
    /// Every frame written in three pieces, a few milliseconds apart.
    StdioWriteChunking,
    /// `"extensions": {}` on every result, and a namespaced member on a
    /// deny.
    ReplyExtensions,
    /// An extra `x-ctk-freedom` member in the response, its result and each
    /// effect.
    ReplyUnknownMembers,
    /// HTTP bodies pretty-printed, with a final newline.
    HttpBodyLayout,
    /// `Content-Type: application/json; charset=utf-8`.
    HttpContentTypeParameters,
    /// Chunked bodies, `Connection: close`, title-case header names, an
    /// extra header.
    HttpMessageFraming,
    /// No `data` on any error.
    ErrorData,
    /// Denies without `code`.
    DenyCode,
    /// Other error messages.
    ErrorMessageWording,
    /// Another sentence as every deny's reason.
    DenyReasonWording,
    /// A persistent backend reads every line already waiting before it
    /// answers.
    PersistentReplyAfterNotifications,
    /// Every reply after [`edge::ANSWER_LATENCY`].
    BackendAnswerLatency,
    /// One deny for every request no declared policy covers.
    DecisionPolicy,
    /// No effect and one deny by turns for requests no declared policy
    /// covers.
    DecisionState,
    /// -32600 for an unknown method.
    UnknownMethodErrorCode,
    /// -32600, no `data`, for an unknown event type, an unknown kind or a
    /// missing protocolVersion; no `data` on -32001.
    UnsupportedRequestErrorCode,
    /// A request whose id differs from `params.event.id` is decided.
    IdMismatchHandling,
    /// A stdio line that is not JSON is ignored.
    NonJsonLine,
    /// An advertised extension effect is refused with a JSON-RPC error.
    ExtensionEffectAdvertised,
    /// 200 with an empty body for a notification.
    HttpNotificationStatus,
    /// 500 for every JSON-RPC error.
    HttpErrorStatus,
    /// A per_event process reads to end of file after its reply, and exits
    /// 1 after a notification.
    PerEventExit,
    /// Nothing on stderr.
    StderrDiagnostics,
    /// Draft: unknown members inside `event.harness`, `call` and `tool`
    /// are ignored.
    ClosedObjectMembers,
    /// Draft: the deny effect written twice.
    SeveralEffects,
    /// Draft: a `"0.1"` request answered as a 0.1 backend.
    ReleasedVersionAtDraftBackend,
    /// Draft: an advertised extension effect is ignored and the request
    /// decided.
    ExtensionEffectsToolBefore,
}

impl Freedom {
    /// Every freedom the reference backend takes on the released line, in
    /// catalog order.
    pub const RELEASED: [Freedom; 29] = [
        Freedom::JsonMemberOrder,
        Freedom::JsonInsignificantWhitespace,
        Freedom::HttpBodyLayout,
        Freedom::StdioCarriageReturn,
        Freedom::StdioBlankLines,
        Freedom::JsonNumberSpelling,
        Freedom::JsonStringEscapes,
        Freedom::HttpContentTypeParameters,
        Freedom::HttpMessageFraming,
        Freedom::StdioWriteChunking,
        Freedom::ErrorData,
        Freedom::DenyCode,
        Freedom::ReplyExtensions,
        Freedom::ReplyUnknownMembers,
        Freedom::ErrorMessageWording,
        Freedom::DenyReasonWording,
        Freedom::PersistentReplyAfterNotifications,
        Freedom::BackendAnswerLatency,
        Freedom::DecisionPolicy,
        Freedom::DecisionState,
        Freedom::UnknownMethodErrorCode,
        Freedom::UnsupportedRequestErrorCode,
        Freedom::IdMismatchHandling,
        Freedom::NonJsonLine,
        Freedom::ExtensionEffectAdvertised,
        Freedom::HttpNotificationStatus,
        Freedom::HttpErrorStatus,
        Freedom::PerEventExit,
        Freedom::StderrDiagnostics,
    ];

    /// The draft line's own backend freedoms.
    pub const DRAFT_ONLY: [Freedom; 4] = [
        Freedom::ClosedObjectMembers,
        Freedom::SeveralEffects,
        Freedom::ReleasedVersionAtDraftBackend,
        Freedom::ExtensionEffectsToolBefore,
    ];

    /// The released freedoms the draft catalog supersedes (for the
    /// reference draft backend the 0.1 other choice is its own choice).
    pub const SUPERSEDED_BY_DRAFT: [Freedom; 1] = [Freedom::ExtensionEffectAdvertised];

    /// The catalog id.
    pub fn id(self) -> &'static str {
        match self {
            Freedom::JsonMemberOrder => "json-member-order",
            Freedom::JsonInsignificantWhitespace => "json-insignificant-whitespace",
            Freedom::JsonNumberSpelling => "json-number-spelling",
            Freedom::JsonStringEscapes => "json-string-escapes",
            Freedom::StdioCarriageReturn => "stdio-carriage-return",
            Freedom::StdioBlankLines => "stdio-blank-lines",
            Freedom::StdioWriteChunking => "stdio-write-chunking",
            Freedom::ReplyExtensions => "reply-extensions",
            Freedom::ReplyUnknownMembers => "reply-unknown-members",
            Freedom::HttpBodyLayout => "http-body-layout",
            Freedom::HttpContentTypeParameters => "http-content-type-parameters",
            Freedom::HttpMessageFraming => "http-message-framing",
            Freedom::ErrorData => "error-data",
            Freedom::DenyCode => "deny-code",
            Freedom::ErrorMessageWording => "error-message-wording",
            Freedom::DenyReasonWording => "deny-reason-wording",
            Freedom::PersistentReplyAfterNotifications => "persistent-reply-after-notifications",
            Freedom::BackendAnswerLatency => "backend-answer-latency",
            Freedom::DecisionPolicy => "decision-policy",
            Freedom::DecisionState => "decision-state",
            Freedom::UnknownMethodErrorCode => "unknown-method-error-code",
            Freedom::UnsupportedRequestErrorCode => "unsupported-request-error-code",
            Freedom::IdMismatchHandling => "id-mismatch-handling",
            Freedom::NonJsonLine => "non-json-line",
            Freedom::ExtensionEffectAdvertised => "extension-effect-advertised",
            Freedom::HttpNotificationStatus => "http-notification-status",
            Freedom::HttpErrorStatus => "http-error-status",
            Freedom::PerEventExit => "per-event-exit",
            Freedom::StderrDiagnostics => "stderr-diagnostics",
            Freedom::ClosedObjectMembers => "closed-object-members",
            Freedom::SeveralEffects => "several-effects",
            Freedom::ReleasedVersionAtDraftBackend => "released-version-at-draft-backend",
            Freedom::ExtensionEffectsToolBefore => "extension-effects-tool-before",
        }
    }

    /// The freedoms a backend of `line` takes under `all`.
    pub fn of_line(line: AhpLine) -> Vec<Freedom> {
        match line {
            AhpLine::V0_1 => Freedom::RELEASED.to_vec(),
            AhpLine::Draft => Freedom::RELEASED
                .into_iter()
                .filter(|f| !Freedom::SUPERSEDED_BY_DRAFT.contains(f))
                .chain(Freedom::DRAFT_ONLY)
                .collect(),
        }
    }
}

/// The backend-role ids of a catalog's text.
fn backend_ids(catalog: &str) -> Vec<String> {
    let doc: Value = serde_json::from_str(catalog).unwrap_or(Value::Null);
    doc["freedoms"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .filter(|f| {
                    f["roles"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|x| x == "backend"))
                })
                .filter_map(|f| f["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The backend-role ids the catalogs of `line` know.
fn catalog_ids(line: AhpLine) -> Vec<String> {
    let mut ids = backend_ids(CATALOG);
    if line == AhpLine::Draft {
        ids.extend(backend_ids(DRAFT_CATALOG));
    }
    ids
}

/// The freedoms a backend process takes, and the line it speaks (a few
/// choices differ by line: the draft closes a deny effect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Freedoms {
    taken: BTreeSet<Freedom>,
    line: AhpLine,
}

impl Default for Freedoms {
    /// None taken, on the released line.
    fn default() -> Self {
        Self {
            taken: BTreeSet::new(),
            line: AhpLine::V0_1,
        }
    }
}

impl Freedoms {
    /// `all` (every freedom the reference backend takes on `line`),
    /// `none`, or ids separated by commas. An id the catalogs of `line` do
    /// not know, or one the reference backend of `line` does not take, is
    /// an error naming it.
    pub fn parse(text: &str, line: AhpLine) -> Result<Self, String> {
        let takes = Freedom::of_line(line);
        match text.trim() {
            "all" => {
                return Ok(Self {
                    taken: takes.into_iter().collect(),
                    line,
                })
            }
            "none" | "" => {
                return Ok(Self {
                    taken: BTreeSet::new(),
                    line,
                })
            }
            _ => {}
        }
        let known = catalog_ids(line);
        let catalogs = match line {
            AhpLine::V0_1 => "spec/ahp/0.1/freedoms.json",
            AhpLine::Draft => "spec/ahp/0.1/freedoms.json and spec/ahp/draft/freedoms.json",
        };
        let mut set = BTreeSet::new();
        for id in text.split(',').map(str::trim) {
            match takes.iter().find(|f| f.id() == id) {
                Some(f) => {
                    set.insert(*f);
                }
                None if known.iter().any(|k| k == id) => {
                    return Err(format!(
                        "freedom {id:?} is in {catalogs} but the reference backend of this line does not take it (the draft supersedes it, or its other choice is this backend's own); it takes: {}",
                        takes.iter().map(|f| f.id()).collect::<Vec<_>>().join(", ")
                    ))
                }
                None => {
                    return Err(format!(
                        "unknown freedom {id:?}: {catalogs} know, for the backend role: {}",
                        known.join(", ")
                    ))
                }
            }
        }
        Ok(Self { taken: set, line })
    }

    /// The line the backend speaks.
    pub fn line(&self) -> AhpLine {
        self.line
    }

    /// Whether `freedom` is taken.
    pub fn has(&self, freedom: Freedom) -> bool {
        self.taken.contains(&freedom)
    }

    /// Whether none is taken.
    pub fn is_empty(&self) -> bool {
        self.taken.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_catalogs_and_unknown_or_unrealised_ones_are_named() {
        let v01 = AhpLine::V0_1;
        let known = catalog_ids(v01);
        for f in Freedom::RELEASED {
            assert!(
                known.iter().any(|k| k == f.id()),
                "{} is not in the catalog",
                f.id()
            );
        }
        // Every backend id of the released catalog is taken: none is left
        // unrealised.
        for k in &known {
            assert!(
                Freedom::RELEASED.iter().any(|f| f.id() == k),
                "{k} is not taken"
            );
        }
        let draft_known = catalog_ids(AhpLine::Draft);
        for f in Freedom::DRAFT_ONLY {
            assert!(
                draft_known.iter().any(|k| k == f.id()),
                "{} is not in the draft catalog",
                f.id()
            );
        }
        let e = Freedoms::parse("json-member-order,nope", v01).unwrap_err();
        assert!(
            e.contains("unknown freedom \"nope\"") && e.contains("decision-policy"),
            "{e}"
        );
        // A draft freedom is unknown to the released line.
        let e = Freedoms::parse("several-effects", v01).unwrap_err();
        assert!(e.contains("unknown freedom"), "{e}");
        let e = Freedoms::parse("extension-effect-advertised", AhpLine::Draft).unwrap_err();
        assert!(e.contains("does not take it"), "{e}");
        assert!(Freedoms::parse("none", v01).unwrap().is_empty());
        assert!(Freedoms::parse("stdio-blank-lines", v01)
            .unwrap()
            .has(Freedom::StdioBlankLines));
        let draft_all = Freedoms::parse("all", AhpLine::Draft).unwrap();
        assert!(draft_all.has(Freedom::SeveralEffects));
        assert!(!draft_all.has(Freedom::ExtensionEffectAdvertised));
    }
}
