//! One message per line, UTF-8, with the maximum line length enforced while
//! reading: a peer can never make this end buffer more than the limit.

use std::collections::VecDeque;

use ctk_support::lines::{Frame, Framer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// How many bytes one read asks for.
const READ_CHUNK: usize = 64 * 1024;

/// The default line limit of both ends: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Reading a line failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The line grew past the limit before its newline.
    #[error("line longer than {limit} bytes")]
    Oversized {
        /// The limit in bytes.
        limit: usize,
    },
    /// The line is not UTF-8.
    #[error("line is not UTF-8")]
    NotUtf8,
    /// The stream failed.
    #[error("read failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads newline-terminated lines, never holding more than `limit` bytes of
/// one line, on the kit's one line framer ([`ctk_support::lines`]).
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    limit: usize,
    framer: Framer,
    /// Lines already framed from the last read, oldest first: at most one
    /// read's worth of bytes.
    ready: VecDeque<Frame>,
    buf: Box<[u8]>,
    eof: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of lines of at most `limit` bytes (newline excluded).
    pub fn new(reader: R, limit: usize) -> Self {
        Self {
            inner: reader,
            limit,
            // One byte more than the limit: a `\r` before the newline is not
            // part of the line.
            framer: Framer::new(limit.saturating_add(1)),
            ready: VecDeque::new(),
            buf: vec![0; READ_CHUNK].into_boxed_slice(),
            eof: false,
        }
    }

    /// The next frame; `None` at end of stream. Refuses a line as soon as it
    /// grows past the limit, without waiting for its newline.
    async fn next_frame(&mut self, refuse_long: bool) -> Result<Option<Frame>, CodecError> {
        loop {
            if let Some(frame) = self.ready.pop_front() {
                return Ok(Some(frame));
            }
            if refuse_long && self.framer.pending() > self.limit.saturating_add(1) {
                return Err(CodecError::Oversized { limit: self.limit });
            }
            if self.eof {
                return Ok(self.framer.finish());
            }
            let n = self.inner.read(&mut self.buf).await?;
            if n == 0 {
                self.eof = true;
                continue;
            }
            let ready = &mut self.ready;
            self.framer.push(&self.buf[..n], |f| ready.push_back(f));
        }
    }

    /// The next line without its line ending; `None` at end of stream. A final
    /// line without newline is returned as a line. After an error the stream
    /// position is unspecified; callers drop the link.
    pub async fn next_line(&mut self) -> Result<Option<String>, CodecError> {
        let Some(frame) = self.next_frame(true).await? else {
            return Ok(None);
        };
        if frame.cut() {
            return Err(CodecError::Oversized { limit: self.limit });
        }
        let mut line = frame.bytes;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.limit {
            return Err(CodecError::Oversized { limit: self.limit });
        }
        String::from_utf8(line)
            .map(Some)
            .map_err(|_| CodecError::NotUtf8)
    }

    /// The next line, keeping at most `keep` bytes of it and discarding the
    /// rest (for logs); the flag says whether anything was cut. Invalid UTF-8
    /// is replaced. The reader holds at most its `limit` (plus one) of a
    /// line, so a log reader is made with `limit` no smaller than `keep`.
    pub async fn next_line_truncated(
        &mut self,
        keep: usize,
    ) -> Result<Option<(String, bool)>, CodecError> {
        let Some(frame) = self.next_frame(false).await? else {
            return Ok(None);
        };
        let cut = frame.len > keep;
        let mut line = frame.bytes;
        line.truncate(keep);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some((String::from_utf8_lossy(&line).into_owned(), cut)))
    }
}

/// Write `line` and a newline, then flush.
pub async fn write_line<W: AsyncWrite + Unpin>(writer: &mut W, line: &str) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
    writer.write_all(&buf).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> Vec<Result<String, String>> {
        let mut r = LineReader::new(input, limit);
        let mut out = Vec::new();
        loop {
            match r.next_line().await {
                Ok(Some(l)) => out.push(Ok(l)),
                Ok(None) => break,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    break;
                }
            }
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_strips_crlf() {
        assert_eq!(
            lines(b"a\r\nbc\nd", 10).await,
            vec![Ok("a".into()), Ok("bc".into()), Ok("d".into())]
        );
    }

    #[tokio::test]
    async fn limit_is_exact() {
        assert_eq!(lines(b"abcd\n", 4).await, vec![Ok("abcd".into())]);
        assert_eq!(
            lines(b"abcde\n", 4).await,
            vec![Err("line longer than 4 bytes".into())]
        );
    }

    #[tokio::test]
    async fn oversized_line_is_refused_before_it_ends() {
        // A reader that never ends: the limit must fire without reaching EOF.
        let endless = tokio::io::repeat(b'x');
        let mut r = LineReader::new(endless, 1000);
        assert!(matches!(
            r.next_line().await,
            Err(CodecError::Oversized { limit: 1000 })
        ));
    }

    #[tokio::test]
    async fn the_lines_before_an_oversized_one_come_first() {
        // One read holds both: the short line is not lost to the long one.
        let mut input = b"ok\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 2000));
        assert_eq!(
            lines(&input, 1000).await,
            vec![Ok("ok".into()), Err("line longer than 1000 bytes".into())]
        );
    }

    #[tokio::test]
    async fn invalid_utf8_is_an_error() {
        assert_eq!(
            lines(b"\xff\n", 10).await,
            vec![Err("line is not UTF-8".into())]
        );
    }

    #[tokio::test]
    async fn truncating_reader_keeps_a_prefix() {
        let mut r = LineReader::new(&b"hello world\nok\n"[..], 5);
        assert_eq!(
            r.next_line_truncated(5).await.unwrap(),
            Some(("hello".into(), true))
        );
        assert_eq!(
            r.next_line_truncated(5).await.unwrap(),
            Some(("ok".into(), false))
        );
        assert_eq!(r.next_line_truncated(5).await.unwrap(), None);
    }
}
