//! How each reply is written under the representation freedoms: the
//! JSON value's members and spelling, and on stdio the frame's line end,
//! blank lines and writes. The value itself never changes, except for the
//! members `reply-extensions` and `reply-unknown-members` add.

use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Map, Number, Value};

use ctk_ahp_wire::version::AhpLine;

use super::{Freedom, Freedoms};

impl Freedoms {
    /// `line` (a reply, no line end) as these freedoms write it; a line
    /// that is not JSON is passed on unchanged.
    pub fn respell(&self, line: &str) -> String {
        let Ok(mut value) = serde_json::from_str::<Value>(line) else {
            return line.to_owned();
        };
        if self.has(Freedom::ReplyUnknownMembers) || self.has(Freedom::ReplyExtensions) {
            self.add_members(&mut value);
        }
        respell(
            &mut value,
            self.has(Freedom::JsonNumberSpelling),
            self.has(Freedom::JsonMemberOrder),
        );
        let spaced = self.has(Freedom::JsonInsignificantWhitespace);
        let escaped = self.has(Freedom::JsonStringEscapes);
        let mut out = Vec::with_capacity(line.len() * 2);
        let written = {
            let mut ser =
                serde_json::Serializer::with_formatter(&mut out, Spelled { spaced, escaped });
            serde::Serialize::serialize(&value, &mut ser)
        };
        match written {
            Ok(()) => String::from_utf8(out).unwrap_or_else(|_| line.to_owned()),
            Err(_) => line.to_owned(),
        }
    }

    fn add_members(&self, reply: &mut Value) {
        let unknown = self.has(Freedom::ReplyUnknownMembers);
        let extensions = self.has(Freedom::ReplyExtensions);
        let Some(obj) = reply.as_object_mut() else {
            return;
        };
        if unknown {
            obj.insert("x-ctk-freedom".into(), Value::Bool(true));
        }
        let Some(Value::Object(result)) = obj.get_mut("result") else {
            return;
        };
        if unknown {
            result.insert("x-ctk-freedom".into(), Value::Bool(true));
        }
        if extensions {
            result
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        if let Some(Value::Array(effects)) = result.get_mut("effects") {
            // The draft closes a deny effect (type, reason, code,
            // extensions): an unknown member there is not the draft's.
            let open_effects = self.line() != AhpLine::Draft;
            for effect in effects.iter_mut().filter_map(Value::as_object_mut) {
                if unknown && open_effects {
                    effect.insert("x-ctk-freedom".into(), Value::Bool(true));
                }
                if extensions && effect.get("type").and_then(Value::as_str) == Some("deny") {
                    if let Value::Object(ext) = effect
                        .entry("extensions")
                        .or_insert_with(|| Value::Object(Map::new()))
                    {
                        ext.insert("dev.agent-hooks-ctk.freedom".into(), Value::Bool(true));
                    }
                }
            }
        }
    }
}

/// The largest integer a double holds exactly.
const EXACT: u64 = (1 << 53) - 1;

fn respell(value: &mut Value, numbers: bool, order: bool) {
    match value {
        Value::Number(n) if numbers => {
            let exact = n
                .as_u64()
                .filter(|u| *u <= EXACT)
                .map(|u| u as f64)
                .or_else(|| {
                    n.as_i64()
                        .filter(|i| i.unsigned_abs() <= EXACT)
                        .map(|i| i as f64)
                });
            if let Some(f) = exact.and_then(Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| respell(v, numbers, order)),
        Value::Object(map) => {
            map.values_mut().for_each(|v| respell(v, numbers, order));
            if order {
                let members = std::mem::take(map);
                *map = members.into_iter().rev().collect();
            }
        }
        _ => {}
    }
}

/// serde_json's compact form with the spacing and escaping the freedoms ask.
struct Spelled {
    spaced: bool,
    escaped: bool,
}

impl Spelled {
    fn separator<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        match (first, self.spaced) {
            (true, _) => Ok(()),
            (false, true) => w.write_all(b", "),
            (false, false) => w.write_all(b","),
        }
    }
}

impl serde_json::ser::Formatter for Spelled {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.spaced { b": " } else { b":" })
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.escaped {
            return w.write_all(fragment.as_bytes());
        }
        for c in fragment.chars() {
            if c == '/' {
                w.write_all(b"\\/")?;
            } else if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

/// A writer that passes each complete line through [`Freedoms::respell`]
/// and writes it with the line end, blank lines and chunking the freedoms
/// ask. Bytes after the last newline wait for the rest of their line.
#[derive(Debug)]
pub struct FreedomWriter<W: Write> {
    inner: W,
    freedoms: Freedoms,
    pending: Vec<u8>,
}

impl<W: Write> FreedomWriter<W> {
    /// Wrap `inner`.
    pub fn new(inner: W, freedoms: Freedoms) -> Self {
        Self {
            inner,
            freedoms,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, line: &[u8]) -> io::Result<()> {
        let text = String::from_utf8_lossy(line);
        let mut frame = self.freedoms.respell(&text).into_bytes();
        frame.extend_from_slice(if self.freedoms.has(Freedom::StdioCarriageReturn) {
            b"\r\n"
        } else {
            b"\n"
        });
        if self.freedoms.has(Freedom::StdioBlankLines) {
            frame.push(b'\n');
        }
        if self.freedoms.has(Freedom::StdioWriteChunking) && frame.len() >= 3 {
            let third = frame.len() / 3;
            for piece in [
                &frame[..third],
                &frame[third..2 * third],
                &frame[2 * third..],
            ] {
                self.inner.write_all(piece)?;
                self.inner.flush()?;
                std::thread::sleep(Duration::from_millis(3));
            }
            Ok(())
        } else {
            self.inner.write_all(&frame)
        }
    }
}

impl<W: Write> Write for FreedomWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.emit(&line[..line.len() - 1])?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all() -> Freedoms {
        Freedoms::parse("all", AhpLine::V0_1).expect("all")
    }

    #[test]
    fn a_reply_is_respelled_and_keeps_its_value_but_for_the_added_members() {
        let line = r#"{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"0.1","effects":[{"type":"deny","reason":"no /tmp é"}]}}"#;
        let out = all().respell(line);
        assert!(
            out.starts_with("{\"x-ctk-freedom\": true, \"result\": {"),
            "{out}"
        );
        assert!(
            out.contains("\"id\": 7.0") && out.contains("\\/tmp \\u00e9"),
            "{out}"
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["result"]["effects"][0]["reason"], "no /tmp é");
        assert_eq!(
            v["result"]["effects"][0]["extensions"],
            json!({"dev.agent-hooks-ctk.freedom": true})
        );
        assert_eq!(v["result"]["extensions"], json!({}));
        assert_eq!(Freedoms::default().respell(line), line);
        assert_eq!(all().respell("not json"), "not json");
    }

    #[test]
    fn the_writer_frames_by_line_with_the_line_end_and_blank_lines_asked() {
        let f = Freedoms::parse(
            "stdio-carriage-return,stdio-blank-lines,stdio-write-chunking",
            AhpLine::V0_1,
        )
        .unwrap();
        let mut w = FreedomWriter::new(Vec::new(), f);
        w.write_all(b"{\"a\":1}\n{\"b\"").unwrap();
        w.write_all(b":2}\n").unwrap();
        assert_eq!(
            String::from_utf8(w.inner).unwrap(),
            "{\"a\":1}\r\n\n{\"b\":2}\r\n\n"
        );
    }
}
