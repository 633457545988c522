//! Capped line framing, once for every reader of a line-based peer: bytes in,
//! frames out, never holding more than the cap of one line, whatever the peer
//! writes. It does no I/O (an async reader and a blocking one feed it alike)
//! and decides nothing: a caller that must refuse a line past the cap looks
//! at [`Frame::cut`], one that records what a peer wrote keeps the frame.

/// One line as a peer wrote it, up to the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The line's bytes without its newline, at most the cap of them.
    pub bytes: Vec<u8>,
    /// The line's whole length in bytes (newline excluded), kept or not.
    pub len: usize,
    /// Whether a newline ended it (`false`: the stream ended first).
    pub terminated: bool,
}

impl Frame {
    /// Whether the line was longer than the cap, so only its first bytes
    /// were kept.
    pub fn cut(&self) -> bool {
        self.len > self.bytes.len()
    }
}

/// Splits a byte stream into [`Frame`]s, keeping at most `cap` bytes of any
/// line.
#[derive(Debug)]
pub struct Framer {
    cap: usize,
    line: Vec<u8>,
    len: usize,
}

impl Framer {
    /// A framer keeping at most `cap` bytes of each line.
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            line: Vec::new(),
            len: 0,
        }
    }

    /// Feed the next bytes of the stream; every line they end is handed to
    /// `emit`, in order.
    pub fn push(&mut self, mut data: &[u8], mut emit: impl FnMut(Frame)) {
        while let Some(i) = memchr::memchr(b'\n', data) {
            self.keep(&data[..i]);
            emit(self.take(true));
            data = &data[i + 1..];
        }
        self.keep(data);
    }

    /// The stream ended: the last line, if it had any byte and no newline.
    pub fn finish(&mut self) -> Option<Frame> {
        (self.len > 0).then(|| self.take(false))
    }

    /// The length of the line being read so far (bytes seen, kept or not).
    pub fn pending(&self) -> usize {
        self.len
    }

    fn keep(&mut self, part: &[u8]) {
        let room = self.cap.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
        self.len += part.len();
    }

    fn take(&mut self, terminated: bool) -> Frame {
        let frame = Frame {
            bytes: std::mem::take(&mut self.line),
            len: self.len,
            terminated,
        };
        self.len = 0;
        frame
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(cap: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut framer = Framer::new(cap);
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, |f| out.push(f));
        }
        out.extend(framer.finish());
        out
    }

    fn frame(bytes: &[u8], len: usize, terminated: bool) -> Frame {
        Frame {
            bytes: bytes.to_vec(),
            len,
            terminated,
        }
    }

    #[test]
    fn lines_split_anywhere_come_out_whole_and_in_order() {
        let got = frames(64, &[b"ab", b"c\nde", b"\n\nf"]);
        assert_eq!(
            got,
            [
                frame(b"abc", 3, true),
                frame(b"de", 2, true),
                frame(b"", 0, true),
                frame(b"f", 1, false),
            ]
        );
    }

    #[test]
    fn a_line_past_the_cap_keeps_its_first_bytes_and_its_length() {
        let got = frames(4, &[b"abcdef", b"gh\nxy\n"]);
        assert_eq!(got, [frame(b"abcd", 8, true), frame(b"xy", 2, true)]);
        assert!(got[0].cut() && !got[1].cut());
        // Exactly the cap is not cut.
        assert!(!frames(4, &[b"abcd\n"])[0].cut());
    }

    #[test]
    fn nothing_after_the_last_newline_is_no_frame() {
        assert_eq!(frames(8, &[b"a\n"]), [frame(b"a", 1, true)]);
        assert!(frames(8, &[]).is_empty());
    }

    #[test]
    fn a_carriage_return_is_the_callers_to_strip() {
        assert_eq!(frames(8, &[b"a\r\n"]), [frame(b"a\r", 2, true)]);
    }
}
