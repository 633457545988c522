//! One message per line, UTF-8, with the maximum line length enforced while
//! reading: a peer can never make this end buffer more than the limit.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

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
/// one line.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: BufReader<R>,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of lines of at most `limit` bytes (newline excluded).
    pub fn new(reader: R, limit: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 * 1024, reader),
            limit,
        }
    }

    /// The next line without its line ending; `None` at end of stream. A final
    /// line without newline is returned as a line. After an error the stream
    /// position is unspecified; callers drop the link.
    pub async fn next_line(&mut self) -> Result<Option<String>, CodecError> {
        let mut line = Vec::new();
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if line.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (chunk, consumed, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..i], i + 1, true),
                None => (buf, buf.len(), false),
            };
            if line.len() + chunk.len() > self.limit.saturating_add(1) {
                return Err(CodecError::Oversized { limit: self.limit });
            }
            line.extend_from_slice(chunk);
            self.inner.consume(consumed);
            if done {
                break;
            }
        }
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
    /// is replaced.
    pub async fn next_line_truncated(
        &mut self,
        keep: usize,
    ) -> Result<Option<(String, bool)>, CodecError> {
        let mut line = Vec::new();
        let mut cut = false;
        let mut any = false;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (chunk, consumed, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..i], i + 1, true),
                None => (buf, buf.len(), false),
            };
            let room = keep.saturating_sub(line.len());
            if chunk.len() > room {
                cut = true;
            }
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.inner.consume(consumed);
            if done {
                break;
            }
        }
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
    async fn invalid_utf8_is_an_error() {
        assert_eq!(
            lines(b"\xff\n", 10).await,
            vec![Err("line is not UTF-8".into())]
        );
    }

    #[tokio::test]
    async fn truncating_reader_keeps_a_prefix() {
        let mut r = LineReader::new(&b"hello world\nok\n"[..], 1);
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
