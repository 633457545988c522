//! A run's vectors as it holds them between loading and running: where to
//! read each again, its id, part, digest and advisory decision, and nothing
//! else. Every vector is parsed and checked when the run is planned, then
//! dropped; the worker that runs it parses it again. Its meta (title,
//! clauses) is held only from that moment until the report has taken it,
//! so a run's memory does not grow with its number of vectors beyond a few
//! dozen bytes each (issue 30): every file name, id and decision of a plan
//! sits in one string.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ctk_core::set::{VectorMeta, VectorView};
pub use ctk_core::vector_loop::LoopVector;

use crate::errors::{LoadError, Location};
use crate::vector::embedded;
use crate::vector::load::{parse_unexpanded, parse_vector, LoadedVector, VectorSource};
use crate::vector::model::SpecVersion;

/// Where a plan's vectors are read from.
#[derive(Debug)]
enum Root {
    /// A folder: each vector's file name is joined to it.
    Dir(PathBuf),
    /// Compiled into the binary: the text costs no memory to keep.
    Embedded(SpecVersion),
}

/// A piece of [`Shared::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u16,
}

/// [`Span::len`] of a file name kept in [`Shared::odd_names`] (its
/// [`Span::start`] is the place there), and of an advisory decision a
/// vector does not have.
const ELSEWHERE: u16 = u16::MAX;

/// What the vectors of one plan share.
#[derive(Debug)]
struct Shared {
    root: Root,
    /// Every vector's file name, id and advisory decision, end to end.
    text: String,
    /// File names that are not UTF-8 (a folder may hold them), by their
    /// place here; such a vector's file span has [`Span::len`] [`ELSEWHERE`].
    odd_names: Vec<OsString>,
    /// The parts, each once.
    parts: Vec<String>,
    /// The metas of the vectors read for their run whose results the
    /// report has not yet taken, by their place in the plan: only the ones
    /// in flight.
    loaded: Mutex<HashMap<u32, Arc<VectorMeta>>>,
}

impl Span {
    /// This piece of `text` (a plan's one string).
    fn of(self, text: &str) -> &str {
        let end = self.start as usize + usize::from(self.len);
        text.get(self.start as usize..end).unwrap_or_default()
    }
}

impl Shared {
    fn text(&self, span: Span) -> &str {
        span.of(&self.text)
    }

    fn loaded(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Arc<VectorMeta>>> {
        match self.loaded.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

/// Builds a plan's [`Shared::text`] and parts.
struct Arena {
    text: String,
    odd_names: Vec<OsString>,
    parts: Vec<String>,
}

impl Arena {
    fn push(&mut self, s: &str) -> Result<Span, LoadError> {
        let start = u32::try_from(self.text.len()).map_err(|_| too_many())?;
        let len = u16::try_from(s.len())
            .ok()
            .filter(|&len| len != ELSEWHERE)
            .ok_or_else(too_many)?;
        self.text.push_str(s);
        Ok(Span { start, len })
    }

    fn part(&mut self, part: &str) -> Result<u16, LoadError> {
        let at = match self.parts.iter().position(|p| p == part) {
            Some(at) => at,
            None => {
                self.parts.push(part.to_owned());
                self.parts.len() - 1
            }
        };
        u16::try_from(at).map_err(|_| too_many())
    }
}

fn too_many() -> LoadError {
    LoadError::NoVectors {
        source_name: "a vector set of more than 4 GiB of file names and ids, with a file name \
                      or id of 65,535 bytes or more, or with more than 65,536 parts"
            .to_owned(),
    }
}

/// One vector of a run, checked and digested when the run was planned:
/// 64 bytes, with its file name and id in the plan's one string.
#[derive(Debug, Clone)]
pub struct PlannedVector {
    shared: Arc<Shared>,
    /// Its place in the plan, whatever filters came after.
    index: u32,
    // Each piece of text as a start and a length, not a [`Span`], whose
    // padding would cost six bytes a vector.
    file_start: u32,
    id_start: u32,
    advisory_start: u32,
    file_len: u16,
    id_len: u16,
    /// [`ELSEWHERE`] when the vector is not advisory.
    advisory_len: u16,
    part: u16,
    sha256: [u8; 32],
}

impl PlannedVector {
    fn file(&self) -> Span {
        Span {
            start: self.file_start,
            len: self.file_len,
        }
    }

    fn advisory(&self) -> Option<Span> {
        (self.advisory_len != ELSEWHERE).then_some(Span {
            start: self.advisory_start,
            len: self.advisory_len,
        })
    }

    /// The vector's id.
    pub fn id(&self) -> &str {
        self.shared.text(self.id_span())
    }

    fn id_span(&self) -> Span {
        Span {
            start: self.id_start,
            len: self.id_len,
        }
    }

    /// The vector's part.
    pub fn part(&self) -> &str {
        self.shared
            .parts
            .get(usize::from(self.part))
            .map_or("", String::as_str)
    }

    /// The `sha256:` digest of the vector as planned.
    pub fn sha256(&self) -> String {
        let mut out = String::with_capacity(71);
        out.push_str("sha256:");
        for b in self.sha256 {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }

    /// The vector's file name.
    pub fn file_name(&self) -> Cow<'_, str> {
        match self.odd_name() {
            Some(name) => name.to_string_lossy(),
            None => Cow::Borrowed(self.shared.text(self.file())),
        }
    }

    fn odd_name(&self) -> Option<&OsString> {
        (self.file_len == ELSEWHERE)
            .then(|| self.shared.odd_names.get(self.file_start as usize))
            .flatten()
    }

    fn parse(&self, expanded: bool) -> Result<LoadedVector, LoadError> {
        let s = &self.shared;
        parse_at(&s.root, &s.text, &s.odd_names, self.file(), expanded)
    }

    /// Parse the vector again for its run, and hold its meta for the views
    /// and the report until [`PlannedVector::take_meta`]. A file that
    /// changed since it was planned (another digest), vanished or no longer
    /// parses is `Err`, with the file named: the run must judge the vector
    /// its report names.
    pub fn load(&self) -> Result<LoadedVector, String> {
        let loaded = self
            .parse(true)
            .map_err(|e| format!("the vector could not be read again for its run: {e}"))?;
        let planned = self.sha256();
        if loaded.sha256 != planned || loaded.vector.id != self.id() {
            return Err(format!(
                "{} changed after the run loaded it (digest {planned} when planned, {} now); rerun",
                loaded.file.display(),
                loaded.sha256
            ));
        }
        self.shared
            .loaded()
            .insert(self.index, Arc::new(loaded.meta()));
        Ok(loaded)
    }

    /// The vector's meta for its report entry, no longer held once taken:
    /// the one its run read; for a vector that never ran, read again now;
    /// and when even that fails (the file vanished), what the plan knows,
    /// with an empty title.
    pub fn take_meta(&self) -> VectorMeta {
        if let Some(meta) = self.shared.loaded().remove(&self.index) {
            return Arc::unwrap_or_clone(meta);
        }
        match self.parse(false) {
            Ok(loaded) if loaded.sha256 == self.sha256() => loaded.meta(),
            _ => VectorMeta {
                id: self.id().to_owned(),
                title: String::new(),
                part: self.part().to_owned(),
                file_name: self.file_name().into_owned(),
                sha256: self.sha256(),
                advisory: self.advisory().map(|s| self.shared.text(s).to_owned()),
                covers: Vec::new(),
                role: None,
            },
        }
    }
}

impl VectorView for PlannedVector {
    fn view(&self) -> Option<Cow<'_, VectorMeta>> {
        let meta = self.shared.loaded().get(&self.index).cloned()?;
        Some(Cow::Owned(Arc::unwrap_or_clone(meta)))
    }
}

/// Where the vector whose file name is `file` is read from, as errors name
/// it.
fn path_of(root: &Root, text: &str, odd: &[OsString], file: Span) -> PathBuf {
    match root {
        Root::Dir(dir) if file.len == ELSEWHERE => match odd.get(file.start as usize) {
            Some(n) => dir.join(n),
            None => dir.clone(),
        },
        Root::Dir(dir) => dir.join(file.of(text)),
        Root::Embedded(spec) => {
            PathBuf::from(format!("embedded:{}/{}", spec.as_str(), file.of(text)))
        }
    }
}

/// Read and parse the vector whose file name is `file`.
fn parse_at(
    root: &Root,
    text: &str,
    odd: &[OsString],
    file: Span,
    expanded: bool,
) -> Result<LoadedVector, LoadError> {
    let path = path_of(root, text, odd, file);
    let body: Cow<'_, str> = match root {
        Root::Dir(_) => {
            Cow::Owned(
                std::fs::read_to_string(&path).map_err(|source| LoadError::Io {
                    path: path.clone(),
                    source,
                })?,
            )
        }
        Root::Embedded(spec) => {
            let name = file.of(text);
            let found = embedded::files(*spec).find(|(n, _)| *n == name);
            let (_, body) = found.ok_or_else(|| LoadError::NoVectors {
                source_name: path.display().to_string(),
            })?;
            Cow::Borrowed(body)
        }
    };
    if expanded {
        parse_vector(&path, &body)
    } else {
        parse_unexpanded(&path, &body)
    }
}

/// The first vector, in file order, whose id an earlier one has, as the
/// load reports it: the ids are sorted by reference (four bytes a vector),
/// not gathered into a set.
fn duplicate(root: &Root, arena: &Arena, planned: &[PlannedVector]) -> Option<LoadError> {
    let id = |v: &PlannedVector| v.id_span().of(&arena.text);
    let mut order: Vec<u32> = (0..u32::try_from(planned.len()).ok()?).collect();
    order.sort_by(|&a, &b| {
        id(&planned[a as usize])
            .cmp(id(&planned[b as usize]))
            .then(a.cmp(&b))
    });
    // Equal ids sort together, each run in file order: of each pair of
    // neighbours (first, repeat), the earliest repeat is the one a load
    // would have stopped at, and its run's head is the id's first use.
    let (first, repeat) = order
        .windows(2)
        .filter(|w| id(&planned[w[0] as usize]) == id(&planned[w[1] as usize]))
        .map(|w| (w[0], w[1]))
        .fold(
            None,
            |best: Option<(u32, u32)>, (first, repeat)| match best {
                Some((_, r)) if r <= repeat => best,
                _ => Some((first, repeat)),
            },
        )?;
    let (first, repeat) = (&planned[first as usize], &planned[repeat as usize]);
    Some(LoadError::Lint {
        location: Location {
            file: path_of(root, &arena.text, &arena.odd_names, repeat.file()),
            pointer: "/id".into(),
        },
        vector: id(repeat).to_owned(),
        detail: format!(
            "duplicate vector id, first used in {}",
            path_of(root, &arena.text, &arena.odd_names, first.file()).display()
        ),
    })
}

/// `sha256:<hex>` as its 32 bytes.
fn digest_bytes(text: &str) -> Option<[u8; 32]> {
    let hex = text.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The `*.json` files of a folder, sorted by name, into `arena`: a folder
/// of a hundred thousand files is listed without a path per file.
fn list(dir: &Path, arena: &mut Arena) -> Result<Vec<Span>, LoadError> {
    let io = |source| LoadError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        // `is_file` follows links, as the loader does.
        let wanted =
            Path::new(&name).extension().is_some_and(|e| e == "json") && dir.join(&name).is_file();
        if !wanted {
            continue;
        }
        let span = match name.to_str() {
            Some(text) => arena.push(text)?,
            None => {
                arena.odd_names.push(name);
                Span {
                    start: u32::try_from(arena.odd_names.len() - 1).map_err(|_| too_many())?,
                    len: ELSEWHERE,
                }
            }
        };
        files.push(span);
    }
    let name = |s: &Span| -> &[u8] {
        if s.len == ELSEWHERE {
            arena
                .odd_names
                .get(s.start as usize)
                .map_or(&[][..], |n| n.as_encoded_bytes())
        } else {
            s.of(&arena.text).as_bytes()
        }
    };
    files.sort_by(|a, b| name(a).cmp(name(b)));
    Ok(files)
}

/// Check every vector of a source as [`crate::vector::load::load`] does
/// (the first problem in file order is the error; duplicate ids and an empty
/// set are refused) and keep only what a run needs of each until it runs.
pub fn plan(source: &VectorSource) -> Result<Vec<PlannedVector>, LoadError> {
    let mut arena = Arena {
        text: String::new(),
        odd_names: Vec::new(),
        parts: Vec::new(),
    };
    let (root, files) = match source {
        VectorSource::Dir(dir) => {
            let files = list(dir, &mut arena)?;
            (Root::Dir(dir.clone()), files)
        }
        VectorSource::Embedded(spec) => {
            let mut files = Vec::new();
            for (name, _) in embedded::files(*spec) {
                files.push(arena.push(name)?);
            }
            (Root::Embedded(*spec), files)
        }
    };
    // Every vector holds a stand-in until the plan's string is whole: the
    // vectors are never held twice over to give them the real one.
    let stand_in = Arc::new(Shared {
        root: Root::Embedded(SpecVersion::V0_1),
        text: String::new(),
        odd_names: Vec::new(),
        parts: Vec::new(),
        loaded: Mutex::new(HashMap::new()),
    });
    let mut planned: Vec<PlannedVector> = Vec::with_capacity(files.len());
    for (index, file) in files.into_iter().enumerate() {
        let index = u32::try_from(index).map_err(|_| too_many())?;
        let loaded = match parse_at(&root, &arena.text, &arena.odd_names, file, true) {
            Ok(loaded) => loaded,
            // A duplicate id in an earlier file is the earlier problem.
            Err(e) => return Err(duplicate(&root, &arena, &planned).unwrap_or(e)),
        };
        let id = arena.push(&loaded.vector.id)?;
        let advisory = match &loaded.vector.advisory {
            Some(decision) => arena.push(decision)?,
            None => Span {
                start: 0,
                len: ELSEWHERE,
            },
        };
        planned.push(PlannedVector {
            shared: Arc::clone(&stand_in),
            index,
            file_start: file.start,
            file_len: file.len,
            id_start: id.start,
            id_len: id.len,
            advisory_start: advisory.start,
            advisory_len: advisory.len,
            part: arena.part(loaded.vector.part())?,
            sha256: digest_bytes(&loaded.sha256).ok_or_else(|| LoadError::Lint {
                location: Location {
                    file: loaded.file.clone(),
                    pointer: String::new(),
                },
                vector: loaded.vector.id.clone(),
                detail: format!("the vector's digest {} is not sha256:<hex>", loaded.sha256),
            })?,
        });
    }
    if let Some(e) = duplicate(&root, &arena, &planned) {
        return Err(e);
    }
    if planned.is_empty() {
        return Err(LoadError::NoVectors {
            source_name: source.to_string(),
        });
    }
    let shared = Arc::new(Shared {
        root,
        text: arena.text,
        odd_names: arena.odd_names,
        parts: arena.parts,
        loaded: Mutex::new(HashMap::new()),
    });
    for v in &mut planned {
        v.shared = Arc::clone(&shared);
    }
    Ok(planned)
}

/// What the engine runs: a vector already in memory, or a planned one it
/// reads again when its turn comes.
pub trait RunnableVector: LoopVector {
    /// The parsed vector, for its run.
    fn runnable(&self) -> Result<Cow<'_, LoadedVector>, String>;
}

impl LoopVector for LoadedVector {
    fn id(&self) -> &str {
        &self.vector.id
    }
    fn is_advisory(&self) -> bool {
        self.vector.advisory.is_some()
    }
}

impl RunnableVector for LoadedVector {
    fn runnable(&self) -> Result<Cow<'_, LoadedVector>, String> {
        Ok(Cow::Borrowed(self))
    }
}

impl LoopVector for PlannedVector {
    fn id(&self) -> &str {
        PlannedVector::id(self)
    }
    fn is_advisory(&self) -> bool {
        self.advisory_len != ELSEWHERE
    }
}

impl RunnableVector for PlannedVector {
    fn runnable(&self) -> Result<Cow<'_, LoadedVector>, String> {
        self.load().map(Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::load::load;
    use ctk_core::suite::SpecVersion;

    #[test]
    fn a_plan_holds_what_a_load_would_give() {
        let source = VectorSource::Embedded(SpecVersion::V0_1);
        let planned = plan(&source).expect("the embedded set plans");
        let loaded = load(&source).expect("the embedded set loads");
        assert_eq!(planned.len(), loaded.len());
        for (p, l) in planned.iter().zip(&loaded) {
            let meta = l.meta();
            assert_eq!(
                (p.id(), p.part(), p.sha256(), p.file_name()),
                (
                    meta.id.as_str(),
                    meta.part.as_str(),
                    meta.sha256.clone(),
                    Cow::Borrowed(meta.file_name.as_str())
                )
            );
            assert_eq!(LoopVector::is_advisory(p), meta.advisory.is_some());
            // Not held until it is read for its run, then until taken.
            assert_eq!(p.view(), None);
            let again = p.load().expect("reloads");
            assert_eq!(again.sha256, l.sha256);
            assert_eq!(again.vector.id, l.vector.id);
            assert_eq!(p.view().as_deref(), Some(&meta));
            assert_eq!(p.take_meta(), meta);
            assert_eq!(p.view(), None);
            // A vector that never ran is read again for its entry.
            assert_eq!(p.take_meta(), meta);
        }
        assert!(planned[0].shared.loaded().is_empty());
    }

    fn write(dir: &std::path::Path, name: &str, id: &str, title: &str) {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vectors/0.1/CTK-0001-allow-warning-startup.json"
        ))
        .expect("CTK-0001");
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
        v["id"] = id.into();
        v["title"] = title.into();
        std::fs::write(dir.join(name), v.to_string()).expect("write");
    }

    #[test]
    fn a_file_that_changes_or_vanishes_after_planning_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "a.json", "CTK-9001", "first");
        write(dir.path(), "b.json", "CTK-9002", "second");
        let planned = plan(&VectorSource::Dir(dir.path().to_path_buf())).expect("plans");
        assert_eq!(planned.len(), 2);
        write(dir.path(), "a.json", "CTK-9001", "edited");
        let err = planned[0].load().expect_err("changed");
        assert!(
            err.contains("a.json changed after the run loaded it"),
            "{err}"
        );
        std::fs::remove_file(dir.path().join("b.json")).expect("rm");
        let err = planned[1].load().expect_err("vanished");
        assert!(
            err.contains("could not be read again") && err.contains("b.json"),
            "{err}"
        );
    }

    /// The first problem in file order is the error, as a load reports it:
    /// a repeated id before a broken file, the broken file before a later
    /// repeat; the repeat names the first use, of three.
    #[test]
    fn the_first_problem_in_file_order_is_the_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let source = VectorSource::Dir(dir.path().to_path_buf());
        write(dir.path(), "a.json", "CTK-9001", "first");
        write(dir.path(), "b.json", "CTK-9002", "other");
        write(dir.path(), "c.json", "CTK-9001", "again");
        write(dir.path(), "d.json", "CTK-9001", "and again");
        std::fs::write(dir.path().join("e.json"), "{").expect("write");
        let err = plan(&source).expect_err("duplicate").to_string();
        assert!(
            err.contains("c.json at /id")
                && err.contains("duplicate vector id, first used in")
                && err.contains("a.json"),
            "{err}"
        );
        std::fs::write(dir.path().join("b.json"), "{").expect("write");
        let err = plan(&source).expect_err("broken").to_string();
        assert!(
            err.contains("b.json") && !err.contains("duplicate"),
            "{err}"
        );
        // Loading every vector whole says the same.
        let loaded = crate::vector::load::load(&source).expect_err("broken");
        assert_eq!(loaded.to_string(), err);
    }

    /// What a plan keeps of a vector between its check and its run is a
    /// handful of numbers: its texts live in the plan's one string.
    #[test]
    fn a_planned_vector_is_sixty_four_bytes() {
        assert!(std::mem::size_of::<PlannedVector>() <= 64);
    }

    #[test]
    fn a_plan_refuses_duplicates_and_empty_sources_like_a_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let source = VectorSource::Dir(dir.path().to_path_buf());
        assert!(matches!(plan(&source), Err(LoadError::NoVectors { .. })));
        write(dir.path(), "a.json", "CTK-9001", "first");
        write(dir.path(), "b.json", "CTK-9001", "again");
        let err = plan(&source).expect_err("duplicate").to_string();
        assert!(
            err.contains("b.json at /id") && err.contains("duplicate vector id"),
            "{err}"
        );
    }
}
