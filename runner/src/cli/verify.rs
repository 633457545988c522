//! `ctk verify REPORT [--vectors DIR]`.

use std::path::Path;

use crate::cli::CliError;
use crate::errors::ReportError;
use crate::exit_code;
use crate::report::verify;
use crate::vector::load::{self, VectorSource};
use crate::vector::model::SpecVersion;

/// Read a report file.
pub fn read(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// `ctk verify`.
pub fn command(report: &Path, vectors: Option<&Path>) -> Result<u8, CliError> {
    let text = read(report)?;
    let source = match vectors {
        Some(dir) => Some(VectorSource::Dir(dir.to_path_buf())),
        None => verify::parse(&text)
            .ok()
            .and_then(|(_, r)| {
                r.vector_set
                    .source
                    .strip_prefix("embedded:")
                    .and_then(SpecVersion::parse)
            })
            .map(VectorSource::Embedded),
    };
    let loaded = match source {
        Some(s) => Some(load::load(&s)?),
        None => None,
    };
    let problems = verify::verify(&text, loaded.as_deref());
    if problems.is_empty() {
        if loaded.is_none() {
            println!(
                "{}: vector digests not checked against files (pass --vectors DIR)",
                report.display()
            );
        }
        println!("{}: verified", report.display());
        Ok(exit_code::SUCCESS)
    } else {
        for p in &problems {
            eprintln!("{}: {p}", report.display());
        }
        Ok(exit_code::FAILURES)
    }
}
