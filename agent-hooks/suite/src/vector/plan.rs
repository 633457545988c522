//! A run's vectors as it holds them between loading and running: the core's
//! view of each ([`VectorMeta`]) and where to read it again, never the parsed
//! form. Memory then stays flat however many vectors a run has: a vector is
//! parsed when it is checked, dropped, and parsed again when its turn comes,
//! by the worker that runs it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use ctk_core::set::VectorMeta;
pub use ctk_core::vector_loop::LoopVector;

use crate::errors::{LoadError, Location};
use crate::vector::embedded;
use crate::vector::load::{load_file, parse_vector, vector_files, LoadedVector, VectorSource};

/// Where a planned vector's text is read from when it runs.
#[derive(Debug, Clone)]
enum Origin {
    /// Compiled into the binary: the text costs no memory to keep.
    Embedded(PathBuf, &'static str),
    /// A file, read again when the vector runs.
    File(PathBuf),
}

impl Origin {
    fn parse(&self) -> Result<LoadedVector, LoadError> {
        match self {
            Origin::Embedded(path, text) => parse_vector(path, text),
            Origin::File(path) => load_file(path),
        }
    }
}

/// One vector of a run, checked and digested, held as its [`VectorMeta`].
#[derive(Debug, Clone)]
pub struct PlannedVector {
    /// The core's view of the vector, from the load that checked it.
    pub meta: VectorMeta,
    origin: Origin,
}

impl AsRef<VectorMeta> for PlannedVector {
    fn as_ref(&self) -> &VectorMeta {
        &self.meta
    }
}

impl PlannedVector {
    /// Parse the vector again for its run. A file that changed since it was
    /// planned (another digest), vanished or no longer parses is `Err`, with
    /// the file named: the run must judge the vector its report names.
    pub fn load(&self) -> Result<LoadedVector, String> {
        let loaded = self
            .origin
            .parse()
            .map_err(|e| format!("the vector could not be read again for its run: {e}"))?;
        if loaded.sha256 != self.meta.sha256 || loaded.vector.id != self.meta.id {
            return Err(format!(
                "{} changed after the run loaded it (digest {} when planned, {} now); rerun",
                loaded.file.display(),
                self.meta.sha256,
                loaded.sha256
            ));
        }
        Ok(loaded)
    }
}

/// Check every vector of a source as [`crate::vector::load::load`] does
/// (the first problem in file order is the error; duplicate ids and an empty
/// set are refused) and keep only what a run needs of each until it runs.
pub fn plan(source: &VectorSource) -> Result<Vec<PlannedVector>, LoadError> {
    let origins: Vec<Origin> = match source {
        VectorSource::Dir(dir) => vector_files(dir)?.into_iter().map(Origin::File).collect(),
        VectorSource::Embedded(spec) => embedded::files(*spec)
            .map(|(name, text)| {
                Origin::Embedded(
                    PathBuf::from(format!("embedded:{}/{name}", spec.as_str())),
                    text,
                )
            })
            .collect(),
    };
    let mut first_files: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut planned = Vec::with_capacity(origins.len());
    for origin in origins {
        let loaded = origin.parse()?;
        if let Some(first) = first_files.get(&loaded.vector.id) {
            return Err(LoadError::Lint {
                location: Location {
                    file: loaded.file.clone(),
                    pointer: "/id".into(),
                },
                vector: loaded.vector.id.clone(),
                detail: format!("duplicate vector id, first used in {}", first.display()),
            });
        }
        first_files.insert(loaded.vector.id.clone(), loaded.file.clone());
        planned.push(PlannedVector {
            meta: loaded.meta(),
            origin,
        });
    }
    if planned.is_empty() {
        return Err(LoadError::NoVectors {
            source_name: source.to_string(),
        });
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
        &self.meta.id
    }
    fn is_advisory(&self) -> bool {
        self.meta.advisory.is_some()
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
            assert_eq!(p.meta, l.meta());
            let again = p.load().expect("reloads");
            assert_eq!(again.sha256, l.sha256);
            assert_eq!(again.vector.id, l.vector.id);
        }
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
