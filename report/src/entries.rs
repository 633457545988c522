//! A report's members that grow with its run: [`Entries`] (`vectors`) and
//! [`VectorTimes`] (`timing.vectors_ms`). A report read from a file holds
//! them in memory. A run writes them to a spool file as its vectors finish
//! ([`crate::build::Builder::spooled`]) and every rendering reads them back
//! from there, so a run's memory does not grow with its number of vectors
//! (issue 30). Either way a report renders, digests and compares the same.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead as _, BufReader, BufWriter, Read, Write as _};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::model::VectorEntry;

/// One line of the spool: a vector's entry and its duration.
#[derive(Serialize)]
struct LineOut<'a> {
    ms: u64,
    entry: &'a VectorEntry,
}

/// [`LineOut`] read back.
#[derive(Deserialize)]
struct LineIn {
    ms: u64,
    entry: VectorEntry,
}

/// The entries of a run, one JSON line each, in run order, in a file with
/// no name: the system removes it when the last report sharing it is
/// dropped, and when the process is killed, so no run leaves one behind.
struct Spool {
    file: File,
    /// The folder it is in (`TMPDIR`), for errors.
    dir: std::path::PathBuf,
    /// Where each line starts, and where the last one ends: a line is read
    /// alone without reading the ones before it.
    offsets: Vec<u64>,
    /// The first read that failed. A read cannot fail mid-iteration
    /// without losing entries, so it is kept here, and whoever renders a
    /// spooled report asks [`Entries::failure`] before trusting the output.
    failed: Mutex<Option<String>>,
}

impl Spool {
    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn fail(&self, what: String) {
        let mut slot = match self.failed.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        slot.get_or_insert(what);
    }

    fn failure(&self) -> Option<String> {
        match self.failed.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    fn parse(&self, index: usize, text: &[u8]) -> Option<LineIn> {
        // A failure carries the values a host sent, as deep as the kit
        // reads them (past serde_json's default of 128 levels), one level
        // further down in a line than in report.json.
        let parsed = std::str::from_utf8(text)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                ctk_support::depth::from_str_within(text, ctk_support::depth::REPORT_NESTING + 1)
                    .map_err(|e| e.to_string())
            });
        match parsed {
            Ok(line) => Some(line),
            Err(e) => {
                self.fail(format!(
                    "the report's spool file (in {}) holds a broken line {}: {e}",
                    self.dir.display(),
                    index + 1
                ));
                None
            }
        }
    }

    fn io_failed(&self, e: &io::Error) {
        self.fail(format!(
            "cannot read the report's spool file (in {}): {e}",
            self.dir.display()
        ));
    }

    /// Every line, in order; a read that fails ends the walk early and is
    /// recorded.
    fn lines(&self) -> SpoolLines<'_> {
        SpoolLines {
            spool: self,
            reader: Some(BufReader::with_capacity(
                64 * 1024,
                At {
                    file: &self.file,
                    at: 0,
                },
            )),
            index: 0,
            buf: Vec::new(),
        }
    }

    /// Line `index` alone.
    fn line(&self, index: usize) -> Option<LineIn> {
        let (start, end) = (*self.offsets.get(index)?, *self.offsets.get(index + 1)?);
        let mut text = vec![0; usize::try_from(end - start).ok()?];
        let mut reader = At {
            file: &self.file,
            at: start,
        };
        if let Err(e) = reader.read_exact(&mut text) {
            self.io_failed(&e);
            return None;
        }
        self.parse(index, &text)
    }
}

/// Reads a file from a place of its own, without moving the file's cursor:
/// any number of walks of one spool go side by side.
struct At<'a> {
    file: &'a File,
    at: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> io::Result<usize> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "reading a file at a place is not supported on this platform",
    ))
}

/// The walk of [`Spool::lines`].
struct SpoolLines<'a> {
    spool: &'a Spool,
    reader: Option<BufReader<At<'a>>>,
    index: usize,
    buf: Vec<u8>,
}

impl Iterator for SpoolLines<'_> {
    type Item = LineIn;

    fn next(&mut self) -> Option<LineIn> {
        if self.index >= self.spool.len() {
            return None;
        }
        let reader = self.reader.as_mut()?;
        self.buf.clear();
        match reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => {
                self.spool.fail(format!(
                    "the report's spool file (in {}) ends after {} of its {} lines",
                    self.spool.dir.display(),
                    self.index,
                    self.spool.len()
                ));
                self.reader = None;
                None
            }
            Ok(_) => {
                let line = self.spool.parse(self.index, &self.buf);
                if line.is_none() {
                    self.reader = None;
                }
                self.index += 1;
                line
            }
            Err(e) => {
                self.spool.io_failed(&e);
                self.reader = None;
                None
            }
        }
    }
}

/// Writes a run's entries to a spool as they come ([`crate::build::Builder`]).
pub(crate) struct SpoolWriter {
    out: BufWriter<File>,
    dir: std::path::PathBuf,
    offsets: Vec<u64>,
    at: u64,
    line: Vec<u8>,
}

impl SpoolWriter {
    /// A new spool in the temporary folder (`TMPDIR`).
    pub(crate) fn new() -> io::Result<Self> {
        Self::new_in(std::env::temp_dir())
    }

    /// A new spool in `dir`.
    fn new_in(dir: std::path::PathBuf) -> io::Result<Self> {
        let file = tempfile::tempfile_in(&dir)?;
        Ok(Self {
            out: BufWriter::with_capacity(64 * 1024, file),
            dir,
            offsets: vec![0],
            at: 0,
            line: Vec::new(),
        })
    }

    /// The folder the spool is in, for an error that names it.
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Append one vector's entry and duration.
    pub(crate) fn push(&mut self, entry: &VectorEntry, ms: u64) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &LineOut { ms, entry })?;
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.at += self.line.len() as u64;
        self.offsets.push(self.at);
        Ok(())
    }

    /// The entries and durations written, readable as often as needed.
    pub(crate) fn finish(self) -> io::Result<(Entries, VectorTimes)> {
        let file = self
            .out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        let spool = Arc::new(Spool {
            file,
            dir: self.dir,
            offsets: self.offsets,
            failed: Mutex::new(None),
        });
        Ok((
            Entries {
                held: Vec::new(),
                spool: Some(Arc::clone(&spool)),
                failed: None,
            },
            VectorTimes {
                held: BTreeMap::new(),
                spool: Some(spool),
            },
        ))
    }
}

/// Every vector's entry of a report, in run order: `vectors` in
/// report.json.
#[derive(Clone, Default)]
pub struct Entries {
    /// The entries, when they are in memory (no spool).
    held: Vec<VectorEntry>,
    /// The spool they are read back from, when a run wrote one.
    spool: Option<Arc<Spool>>,
    /// Why a spool made held could not be read back whole, kept for
    /// whoever renders.
    failed: Option<String>,
}

impl Entries {
    /// How many vectors the report names.
    pub fn len(&self) -> usize {
        self.spool.as_ref().map_or(self.held.len(), |s| s.len())
    }

    /// Whether the report names no vector.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry, in run order. A spooled entry is read back as it is
    /// reached; a read that fails ends the walk early, and
    /// [`Entries::failure`] then says why.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.spool {
            None => IterRepr::Held(self.held.iter()),
            Some(s) => IterRepr::Spooled(s.lines()),
        })
    }

    /// Entry `index`, read alone.
    pub fn get(&self, index: usize) -> Option<Cow<'_, VectorEntry>> {
        match &self.spool {
            None => self.held.get(index).map(Cow::Borrowed),
            Some(s) => s.line(index).map(|l| Cow::Owned(l.entry)),
        }
    }

    /// The entries in memory, to change them (a baseline, a merge); a
    /// spooled report is read back whole first, so it is no longer flat.
    /// A spool that cannot be read back leaves the entries it could read,
    /// and [`Entries::failure`] says why.
    pub fn held_mut(&mut self) -> &mut Vec<VectorEntry> {
        if let Some(s) = self.spool.take() {
            self.held = s.lines().map(|l| l.entry).collect();
            self.failed = s.failure();
        }
        &mut self.held
    }

    /// Cut the spool short, for a test of what a spool that cannot be
    /// read back does.
    #[cfg(test)]
    pub(crate) fn truncate_spool(&self) -> io::Result<()> {
        match &self.spool {
            Some(s) => s.file.set_len(s.offsets.get(1).copied().unwrap_or(0)),
            None => Ok(()),
        }
    }

    /// Why a spooled report could not be read back whole, if it could not:
    /// a rendering made while this is `Some` is missing entries and must
    /// not be written.
    pub fn failure(&self) -> Option<String> {
        self.spool
            .as_ref()
            .and_then(|s| s.failure())
            .or_else(|| self.failed.clone())
    }
}

impl From<Vec<VectorEntry>> for Entries {
    fn from(held: Vec<VectorEntry>) -> Self {
        Entries {
            held,
            spool: None,
            failed: None,
        }
    }
}

impl FromIterator<VectorEntry> for Entries {
    fn from_iter<I: IntoIterator<Item = VectorEntry>>(iter: I) -> Self {
        Entries::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = Cow<'a, VectorEntry>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The walk of [`Entries::iter`].
pub struct Iter<'a>(IterRepr<'a>);

enum IterRepr<'a> {
    Held(std::slice::Iter<'a, VectorEntry>),
    Spooled(SpoolLines<'a>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, VectorEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::Held(it) => it.next().map(Cow::Borrowed),
            IterRepr::Spooled(it) => it.next().map(|l| Cow::Owned(l.entry)),
        }
    }
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.spool {
            None => self.held.fmt(f),
            Some(s) => write!(f, "Entries(spooled: {} in {})", s.len(), s.dir.display()),
        }
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let done = serializer.collect_seq(self.iter())?;
        match self.failure() {
            Some(why) => Err(serde::ser::Error::custom(why)),
            None => Ok(done),
        }
    }
}

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<VectorEntry>::deserialize(deserializer).map(Entries::from)
    }
}

/// Every vector's duration in milliseconds by id: `timing.vectors_ms` in
/// report.json, in id order (byte order, as a map of the model's).
#[derive(Clone, Default)]
pub struct VectorTimes {
    /// The durations, when they are in memory (no spool).
    held: BTreeMap<String, u64>,
    /// The spool they are read back from, when a run wrote one.
    spool: Option<Arc<Spool>>,
}

/// [`VectorTimes::sorted`]: the durations in id order.
pub enum Sorted<'a> {
    /// A report read from a file, already in order.
    Held(&'a BTreeMap<String, u64>),
    /// Sorted once, every id in one string: a spooled run's, or any
    /// report's in another order than its map's.
    Spooled {
        /// The ids, end to end.
        ids: String,
        /// Each id's `(start, end)` in `ids`, and its duration, in order.
        at: Vec<(u32, u32, u64)>,
    },
}

impl Sorted<'_> {
    /// `(id, milliseconds)` in id order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&str, u64)> + '_> {
        match self {
            Sorted::Held(map) => Box::new(map.iter().map(|(id, ms)| (id.as_str(), *ms))),
            Sorted::Spooled { ids, at } => Box::new(at.iter().map(move |&(start, end, ms)| {
                (
                    ids.get(start as usize..end as usize).unwrap_or_default(),
                    ms,
                )
            })),
        }
    }
}

impl VectorTimes {
    /// The duration of vector `id`. A spooled report finds it by reading
    /// its entries: a caller walking every vector takes the durations from
    /// [`VectorTimes::sorted`] or [`crate::model::Report::timed`] instead.
    pub fn get(&self, id: &str) -> Option<u64> {
        match &self.spool {
            None => self.held.get(id).copied(),
            Some(s) => s.lines().find(|l| l.entry.id == id).map(|l| l.ms),
        }
    }

    /// How many durations there are.
    pub fn len(&self) -> usize {
        self.spool.as_ref().map_or(self.held.len(), |s| s.len())
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every duration in id order. A spooled run's ids are gathered into
    /// one string and sorted there, for as long as the caller holds the
    /// result: one string and three numbers a vector, not a map.
    pub fn sorted(&self) -> Sorted<'_> {
        match &self.spool {
            None => Sorted::Held(&self.held),
            Some(_) => self.arena(str::cmp),
        }
    }

    /// Every duration with the ids in RFC 8785 member order (UTF-16 code
    /// units), as a digest writes the map ([`ctk_core::digest::member_order`]).
    pub fn in_member_order(&self) -> Sorted<'_> {
        self.arena(ctk_core::digest::member_order)
    }

    fn arena(&self, order: fn(&str, &str) -> std::cmp::Ordering) -> Sorted<'static> {
        let mut ids = String::new();
        let mut at: Vec<(u32, u32, u64)> = Vec::with_capacity(self.len());
        let mut add = |id: &str, ms: u64| {
            let start = ids.len();
            ids.push_str(id);
            // Past 4 GiB of ids the durations are cut off, not misplaced.
            if let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(ids.len())) {
                at.push((start, end, ms));
            }
        };
        match &self.spool {
            None => self.held.iter().for_each(|(id, ms)| add(id, *ms)),
            Some(s) => s.lines().for_each(|l| add(&l.entry.id, l.ms)),
        }
        let text = |&(start, end, _): &(u32, u32, u64)| &ids[start as usize..end as usize];
        at.sort_by(|a, b| order(text(a), text(b)));
        Sorted::Spooled { ids, at }
    }

    /// The durations in memory, to change them (a merge).
    pub fn held_mut(&mut self) -> &mut BTreeMap<String, u64> {
        if let Some(s) = self.spool.take() {
            self.held = s.lines().map(|l| (l.entry.id, l.ms)).collect();
        }
        &mut self.held
    }

    /// Why a spooled run's durations could not be read back, if they could
    /// not (see [`Entries::failure`]).
    pub fn failure(&self) -> Option<String> {
        self.spool.as_ref().and_then(|s| s.failure())
    }

    /// The duration of entry `index`, whose id is `id`: read alone from a
    /// spool, looked up by id otherwise.
    pub(crate) fn of(&self, index: usize, id: &str) -> u64 {
        match &self.spool {
            None => self.held.get(id).copied().unwrap_or(0),
            Some(s) => s.line(index).map_or(0, |l| l.ms),
        }
    }
}

/// Every entry with its duration, in run order ([`crate::model::Report::timed`]):
/// one walk of the spool when both come from the same one.
pub(crate) fn timed<'a>(
    entries: &'a Entries,
    times: &'a VectorTimes,
) -> Box<dyn Iterator<Item = (Cow<'a, VectorEntry>, u64)> + 'a> {
    match (&entries.spool, &times.spool) {
        (Some(a), Some(b)) if Arc::ptr_eq(a, b) => {
            Box::new(a.lines().map(|l| (Cow::Owned(l.entry), l.ms)))
        }
        _ => Box::new(entries.iter().enumerate().map(|(i, v)| {
            let ms = times.of(i, &v.id);
            (v, ms)
        })),
    }
}

/// Entry `index` with its duration ([`crate::model::Report::timed_at`]): one
/// read of the line when both come from the same spool.
pub(crate) fn timed_at<'a>(
    entries: &'a Entries,
    times: &VectorTimes,
    index: usize,
) -> Option<(Cow<'a, VectorEntry>, u64)> {
    match (&entries.spool, &times.spool) {
        (Some(a), Some(b)) if Arc::ptr_eq(a, b) => {
            a.line(index).map(|l| (Cow::Owned(l.entry), l.ms))
        }
        _ => entries.get(index).map(|v| {
            let ms = times.of(index, &v.id);
            (v, ms)
        }),
    }
}

impl From<BTreeMap<String, u64>> for VectorTimes {
    fn from(held: BTreeMap<String, u64>) -> Self {
        VectorTimes { held, spool: None }
    }
}

impl std::fmt::Debug for VectorTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.spool {
            None => self.held.fmt(f),
            Some(s) => write!(f, "VectorTimes(spooled: {})", s.len()),
        }
    }
}

impl PartialEq for VectorTimes {
    fn eq(&self, other: &Self) -> bool {
        let (mine, theirs) = (self.sorted(), other.sorted());
        self.len() == other.len() && mine.iter().eq(theirs.iter())
    }
}

impl Serialize for VectorTimes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let sorted = self.sorted();
        let done = serializer.collect_map(sorted.iter())?;
        match self.failure() {
            Some(why) => Err(serde::ser::Error::custom(why)),
            None => Ok(done),
        }
    }
}

impl<'de> Deserialize<'de> for VectorTimes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, u64>::deserialize(deserializer).map(VectorTimes::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spool is in its folder without a name while a report reads it,
    /// so nothing is left there however the process ends.
    #[test]
    fn a_spool_leaves_no_file_in_its_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut spool = SpoolWriter::new_in(dir.path().to_path_buf()).expect("a spool");
        let entry: VectorEntry = serde_json::from_value(serde_json::json!({
            "id": "CTK-0001", "title": "t", "part": "p", "file": "f.json",
            "sha256": "sha256:00", "status": "pass", "reason": "", "failures": []
        }))
        .expect("an entry");
        spool.push(&entry, 3).expect("written");
        let (entries, times) = spool.finish().expect("finished");
        assert_eq!(entries.iter().next().as_deref(), Some(&entry));
        assert_eq!(times.get("CTK-0001"), Some(3));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("listed")
            .map(|e| e.map(|e| e.file_name()))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }
}
