//! A read-only view of the wire: [`WireTap`] sees every line at the one
//! place lines are framed, so that a runner can keep a transcript of the
//! exchange (`ctk run --transcript`) without a second encoder that could
//! drift from what the host really received.

use std::fmt::Debug;

/// One thing that happened on the link, as the tap sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireEvent<'a> {
    /// A host process was started; the lines after it belong to it.
    Started {
        /// Its process id, when the OS gave one.
        pid: Option<u32>,
    },
    /// A line handed to the host's stdin, without its `\n`. Seen just before
    /// it is written, so that it always precedes the host's answer to it.
    /// A callback answer the runner abandons (its run is over) is never
    /// written and never seen.
    ToHost(&'a str),
    /// A complete line the host wrote to stdout, without its line end. Seen
    /// as it is read, before the runner decodes or checks it.
    FromHost(&'a str),
    /// The host's stdout could not be read as a line (longer than the limit,
    /// not UTF-8, an I/O error); nothing more is read from this process.
    Unreadable(&'a str),
}

/// Sees every line of a stdio host link, in wire order per direction.
///
/// Called from the link's reader and writer tasks: it must be cheap and must
/// never block on the host. It cannot change what is sent.
pub trait WireTap: Send + Sync + Debug {
    /// One event of the link.
    fn record(&self, event: WireEvent<'_>);
}
