//! The knowledge base of known DataLoader failures, and the matcher that finds them in crash
//! output (`explain`).
//!
//! - [`schema`]: the entry format (one JSON file per entry, English and Chinese fields).
//! - [`validate`]: the checks of `dldoctor kb validate` (schema, patterns, links).
//! - [`clean`]: terminal text to plain lines (ANSI codes, `\r` progress bars, tqdm, log prefixes).
//! - [`traceback`]: frames and whether a frame is the user's.
//! - [`prefilter`]: the fixed text every pattern needs, so lines without it are skipped cheaply.
//! - [`matcher`]: all patterns at once ([`regex::RegexSet`]), streaming, ranking, [`Finding`]s.
//!
//! Entries are embedded at build time (`kb/*.json`); extra folders add entries or replace
//! embedded ones of the same id.

pub mod clean;
pub mod matcher;
pub mod prefilter;
pub mod render;
pub mod schema;
pub mod traceback;
pub mod validate;

use std::path::{Path, PathBuf};

pub use matcher::{
    EvidenceKind, ExplainOptions, Explainer, Finding, FindingDeadEnd, FindingWorkaround, explain,
    explain_reader,
};
pub use schema::{Entry, Lang};
pub use traceback::Frame;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/kb_embedded.rs"));
}

/// An entry that could not be read or that breaks the schema. The message names the file and
/// the field.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}: `{field}`: {message}")]
    Invalid {
        file: String,
        field: String,
        message: String,
    },
}

impl KbError {
    pub(crate) fn invalid(
        file: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        KbError::Invalid {
            file: file.into(),
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The entries and their compiled patterns.
#[derive(Debug, Clone)]
pub struct KnowledgeBase {
    entries: Vec<Entry>,
    /// Where each entry was read from (a file name or path), parallel to `entries`.
    origins: Vec<String>,
    matcher: matcher::Matcher,
}

impl KnowledgeBase {
    /// The entries built into the binary.
    pub fn embedded() -> Self {
        let (entries, errors) = embedded_entries();
        for err in &errors {
            tracing::error!("embedded knowledge base: {err}");
        }
        Self::from_entries(entries)
    }

    /// The embedded entries plus those of `dirs`; an entry of a folder replaces the embedded
    /// entry with the same id. Any unreadable or invalid file is an error naming the file and
    /// the field; use [`KnowledgeBase::with_dirs_lenient`] to keep the good entries anyway.
    pub fn with_dirs(dirs: &[PathBuf]) -> Result<Self, KbError> {
        let (kb, mut errors) = Self::with_dirs_lenient(dirs);
        match errors.is_empty() {
            true => Ok(kb),
            false => Err(errors.swap_remove(0)),
        }
    }

    /// Like [`KnowledgeBase::with_dirs`], but skips broken files and returns their errors.
    pub fn with_dirs_lenient(dirs: &[PathBuf]) -> (Self, Vec<KbError>) {
        let (mut entries, mut errors) = embedded_entries();
        for dir in dirs {
            match load_dir(dir) {
                Ok((loaded, errs)) => {
                    errors.extend(errs);
                    for (origin, entry) in loaded {
                        match entries.iter_mut().find(|(_, e)| e.id == entry.id) {
                            Some(slot) => *slot = (origin, entry),
                            None => entries.push((origin, entry)),
                        }
                    }
                }
                Err(err) => errors.push(err),
            }
        }
        let problems = validate::validate(&entries, &[]);
        let broken: Vec<String> = problems
            .iter()
            .filter_map(|p| match p {
                KbError::Invalid { file, .. } => Some(file.clone()),
                KbError::Io { .. } => None,
            })
            .collect();
        entries.retain(|(origin, _)| !broken.contains(origin));
        errors.extend(problems);
        (Self::from_entries(entries), errors)
    }

    pub(crate) fn from_entries(entries: Vec<(String, Entry)>) -> Self {
        let (origins, entries): (Vec<_>, Vec<_>) = entries.into_iter().unzip();
        let matcher = matcher::Matcher::new(&entries);
        KnowledgeBase {
            entries,
            origins,
            matcher,
        }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Where the entry was read from: the embedded file name or the path of an extra file.
    pub fn origin(&self, id: &str) -> Option<&str> {
        let index = self.entries.iter().position(|e| e.id == id)?;
        self.origins.get(index).map(String::as_str)
    }

    pub(crate) fn matcher(&self) -> &matcher::Matcher {
        &self.matcher
    }
}

/// Parses one entry; a schema error names the file and the field path (`workarounds[1].how`).
pub fn parse_entry(file: &str, text: &str) -> Result<Entry, KbError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let field = err.path().to_string();
        let field = if field.is_empty() || field == "." {
            "(document)".to_string()
        } else {
            field
        };
        KbError::invalid(file, field, err.into_inner().to_string())
    })
}

/// The embedded entries with their file names; errors only if a shipped file is broken.
pub fn embedded_entries() -> Loaded {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for (name, text) in embedded::EMBEDDED {
        match parse_entry(name, text) {
            Ok(entry) => entries.push((format!("kb/{name}"), entry)),
            Err(err) => errors.push(err),
        }
    }
    (entries, errors)
}

/// Entries with where each was read from, and the files that could not be read.
pub type Loaded = (Vec<(String, Entry)>, Vec<KbError>);

/// Reads every `*.json` of `dir` (not recursive), sorted by name.
pub fn load_dir(dir: &Path) -> Result<Loaded, KbError> {
    let read = std::fs::read_dir(dir).map_err(|source| KbError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        let origin = path.display().to_string();
        match std::fs::read_to_string(&path) {
            Ok(text) => match parse_entry(&origin, &text) {
                Ok(entry) => entries.push((origin, entry)),
                Err(err) => errors.push(err),
            },
            Err(source) => errors.push(KbError::Io { path, source }),
        }
    }
    Ok((entries, errors))
}
