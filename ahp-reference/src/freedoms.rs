//! Other readings of the reference backend (issue 26): `ctk-ahp-backend
//! --freedoms all|none|ID,...` takes, at the places the AHP text leaves open
//! (`spec/ahp/0.1/freedoms.json`, role `backend`), the choice it does not
//! take by default, so that the suite can show that a backend taking it
//! still passes every gating vector.
//!
//! Every choice here is made at the edge: [`FreedomWriter`] rewrites each
//! reply line on its way to stdout, around an unchanged [`crate::Backend`].
//! Only the stdio binding is covered so far; the catalog's other backend
//! freedoms (HTTP framing, behaviour) are refused by name as not realised
//! yet, never ignored.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Map, Number, Value};

/// The catalog the ids come from, compiled in so that an id it does not
/// know is refused with the list it does.
const CATALOG: &str = include_str!("../../spec/ahp/0.1/freedoms.json");

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
}

impl Freedom {
    /// Every freedom the reference backend takes, in catalog order.
    pub const ALL: [Freedom; 9] = [
        Freedom::JsonMemberOrder,
        Freedom::JsonInsignificantWhitespace,
        Freedom::JsonNumberSpelling,
        Freedom::JsonStringEscapes,
        Freedom::StdioCarriageReturn,
        Freedom::StdioBlankLines,
        Freedom::StdioWriteChunking,
        Freedom::ReplyExtensions,
        Freedom::ReplyUnknownMembers,
    ];

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
        }
    }
}

/// The backend-role ids of the catalog.
fn catalog_ids() -> Vec<String> {
    let doc: Value = serde_json::from_str(CATALOG).unwrap_or(Value::Null);
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

/// The freedoms a backend process takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Freedoms(BTreeSet<Freedom>);

impl Freedoms {
    /// `all` (every freedom the reference backend takes), `none`, or ids
    /// separated by commas. An id the catalog does not know, or knows but
    /// the reference backend does not take yet, is an error naming it.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "all" => return Ok(Self(Freedom::ALL.into_iter().collect())),
            "none" | "" => return Ok(Self::default()),
            _ => {}
        }
        let known = catalog_ids();
        let mut set = BTreeSet::new();
        for id in text.split(',').map(str::trim) {
            match Freedom::ALL.into_iter().find(|f| f.id() == id) {
                Some(f) => {
                    set.insert(f);
                }
                None if known.iter().any(|k| k == id) => {
                    return Err(format!(
                        "freedom {id:?} is in spec/ahp/0.1/freedoms.json but the reference backend does not take it yet; it takes: {}",
                        Freedom::ALL.map(Freedom::id).join(", ")
                    ))
                }
                None => {
                    return Err(format!(
                        "unknown freedom {id:?}: spec/ahp/0.1/freedoms.json knows, for the backend role: {}",
                        known.join(", ")
                    ))
                }
            }
        }
        Ok(Self(set))
    }

    /// Whether `freedom` is taken.
    pub fn has(&self, freedom: Freedom) -> bool {
        self.0.contains(&freedom)
    }

    /// Whether none is taken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

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
            for effect in effects.iter_mut().filter_map(Value::as_object_mut) {
                if unknown {
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
        Freedoms::parse("all").expect("all")
    }

    #[test]
    fn ids_are_the_catalogs_and_unknown_or_unrealised_ones_are_named() {
        let known = catalog_ids();
        for f in Freedom::ALL {
            assert!(
                known.iter().any(|k| k == f.id()),
                "{} is not in the catalog",
                f.id()
            );
        }
        let e = Freedoms::parse("json-member-order,nope").unwrap_err();
        assert!(
            e.contains("unknown freedom \"nope\"") && e.contains("decision-policy"),
            "{e}"
        );
        let e = Freedoms::parse("decision-policy").unwrap_err();
        assert!(e.contains("does not take it yet"), "{e}");
        assert!(Freedoms::parse("none").unwrap().is_empty());
        assert!(Freedoms::parse("stdio-blank-lines")
            .unwrap()
            .has(Freedom::StdioBlankLines));
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
        let f = Freedoms::parse("stdio-carriage-return,stdio-blank-lines,stdio-write-chunking")
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
