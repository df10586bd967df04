//! The loader catalogue: what constructs a DataLoader besides `torch.utils.data.DataLoader`
//! itself, as tree-sitter queries in `queries/*.scm` (embedded at build time) and the user's
//! own query files (`extend-queries`).
//!
//! Each pattern captures a call as `@loader` and its called expression as `@callee`.
//! `(#dl-resolves-to? @capture "a.b.C" ...)` holds when the capture resolves through the
//! file's imports to one of the names. `#set!` properties say how the call's arguments reach
//! DataLoader (see `queries/README.md`): `dl.entry`, `dl.kind` (`class` or `factory`),
//! `dl.positional`, `dl.keywords`, `dl.rename.<keyword>`, `dl.default.<param>`,
//! `dl.capped`, `dl.opaque`, `dl.partial`, `dl.iterates`, `dl.settings` (with
//! `dl.settings.keyword` and `dl.settings.position`), `dl.overridden`, `dl.starts`, `dl.also`.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::SystemTime;

use aho_corasick::AhoCorasick;
use streaming_iterator::StreamingIterator;
use thiserror::Error;
use tree_sitter::{Node, Query, QueryCursor, QueryPredicateArg};

use crate::python::loaders::Param;
use crate::python::model::Module;
use crate::python::values::{Value, parse_float, parse_int};

/// The built-in query files, one per library family.
const BUILTIN: &[(&str, &str)] = &[
    ("queries/torch.scm", include_str!("../../queries/torch.scm")),
    ("queries/monai.scm", include_str!("../../queries/monai.scm")),
    (
        "queries/torch_geometric.scm",
        include_str!("../../queries/torch_geometric.scm"),
    ),
    (
        "queries/webdataset.scm",
        include_str!("../../queries/webdataset.scm"),
    ),
    ("queries/timm.scm", include_str!("../../queries/timm.scm")),
    (
        "queries/transformers.scm",
        include_str!("../../queries/transformers.scm"),
    ),
    (
        "queries/detectron2.scm",
        include_str!("../../queries/detectron2.scm"),
    ),
    (
        "queries/ultralytics.scm",
        include_str!("../../queries/ultralytics.scm"),
    ),
    ("queries/dgl.scm", include_str!("../../queries/dgl.scm")),
    (
        "queries/torchio.scm",
        include_str!("../../queries/torchio.scm"),
    ),
    (
        "queries/pytorch_tabular.scm",
        include_str!("../../queries/pytorch_tabular.scm"),
    ),
    ("queries/wilds.scm", include_str!("../../queries/wilds.scm")),
    (
        "queries/torchgeo.scm",
        include_str!("../../queries/torchgeo.scm"),
    ),
    (
        "queries/torchvision.scm",
        include_str!("../../queries/torchvision.scm"),
    ),
];

/// How the names of data module classes end (TorchGeo's `NonGeoDataModule`).
const DATA_MODULE: &str = "DataModule";

/// The built-in catalogue, compiled once.
static BUILTIN_CATALOGUE: LazyLock<Arc<Catalogue>> = LazyLock::new(|| {
    let sources: Vec<(&Path, &str)> = BUILTIN.iter().map(|(n, t)| (Path::new(*n), *t)).collect();
    Arc::new(Catalogue::of(&sources))
});

/// A query file that could not be read or compiled.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CatalogueError {
    #[error("{path}: cannot read the query file: {message}", path = .path.display())]
    Io { path: PathBuf, message: String },
    #[error("{path}:{line}:{column}: {message}", path = .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}

/// How a call's arguments reach DataLoader's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The parameter each positional argument binds (`None`: not one of DataLoader's).
    pub positional: Vec<Option<Param>>,
    /// Keywords that set a DataLoader parameter, with the keyword as the call spells it.
    pub keywords: Vec<(String, Param)>,
    /// The callee's own defaults where they differ from DataLoader's (`Value::Unknown` when
    /// the callee computes the value).
    pub defaults: Vec<(Param, Value)>,
    /// Parameters the callee caps (by the CPU count): a passed value above 0 is unknown.
    pub capped: Vec<Param>,
    /// Keywords of the callee that change how workers start (threads instead of processes):
    /// passing one makes the start method unknown.
    pub opaque: Vec<String>,
    /// A `functools.partial`: the later call may pass anything not given here.
    pub partial: bool,
    /// The callee iterates the loader it builds before it returns (torchvision's
    /// `VideoClips` reads every video's timestamps through one): its workers start at the
    /// call.
    pub iterates: bool,
    /// The callee builds its loaders from the fields of an object it is given
    /// (transformers' `Trainer(args=training_args)`).
    pub settings: Option<Settings>,
    /// Methods that build the callee's loaders: a project subclass that defines one builds
    /// its own, and is no loader of this entry.
    pub overridden: Vec<String>,
    /// Methods of what the call builds that iterate its loaders (`trainer.train()`).
    pub starts: Vec<String>,
    /// Words a file must also hold for a call of the entry there to be a loader (the
    /// `HfArgumentParser` that parses a Trainer's settings in the same file): `check` passes
    /// over a file that names the callee without them.
    pub also: Vec<String>,
}

/// The argument whose fields hold a loader's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The entry whose keywords name the fields (`transformers.TrainingArguments`).
    pub entry: String,
    /// The keyword that passes it (`None`: a subclass's constructor hands it on in a way
    /// that cannot be read).
    pub keyword: Option<String>,
    /// Its position among the positional arguments, if it may be passed by position.
    pub position: Option<usize>,
}

impl Default for Signature {
    /// DataLoader's own signature.
    fn default() -> Self {
        Signature {
            positional: (0..Param::POSITIONAL).map(Param::positional).collect(),
            keywords: Param::ALL
                .iter()
                .map(|p| (p.name().to_owned(), *p))
                .collect(),
            defaults: Vec::new(),
            capped: Vec::new(),
            opaque: Vec::new(),
            partial: false,
            iterates: false,
            settings: None,
            overridden: Vec::new(),
            starts: Vec::new(),
            also: Vec::new(),
        }
    }
}

impl Signature {
    pub fn keyword(&self, name: &str) -> Option<Param> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, p)| *p)
    }

    pub fn positional(&self, index: usize) -> Option<Param> {
        self.positional.get(index).copied().flatten()
    }

    /// The keyword that sets `param` in a call (for fixes that add an argument).
    pub fn keyword_for(&self, param: Param) -> Option<&str> {
        self.keywords
            .iter()
            .find(|(_, p)| *p == param)
            .map(|(k, _)| k.as_str())
    }

    /// The value `param` takes when the call does not pass it, and whether it is the callee's
    /// own default rather than DataLoader's.
    pub fn default_of(&self, param: Param) -> (Value, bool) {
        match self.defaults.iter().find(|(p, _)| *p == param) {
            Some((_, v)) => (v.clone(), true),
            None => (param.default_value(), false),
        }
    }

    pub fn is_dataloader(&self) -> bool {
        *self == Signature::default()
    }

    /// A loader that may be either of two (`cls = A if c else B`): what both agree on.
    pub fn merge(&self, other: &Signature) -> Signature {
        if self == other {
            return self.clone();
        }
        let mut merged = self.clone();
        merged.positional = self
            .positional
            .iter()
            .zip(&other.positional)
            .map(|(a, b)| if a == b { *a } else { None })
            .collect();
        merged
            .keywords
            .retain(|(k, p)| other.keyword(k) == Some(*p));
        merged.defaults = Param::ALL
            .iter()
            .filter_map(|p| {
                let (a, own_a) = self.default_of(*p);
                let (b, own_b) = other.default_of(*p);
                match (a == b, own_a || own_b) {
                    (true, true) => Some((*p, a)),
                    (true, false) => None,
                    (false, _) => Some((*p, Value::Unknown)),
                }
            })
            .collect();
        merged.capped.extend(other.capped.iter().copied());
        merged.opaque.extend(other.opaque.iter().cloned());
        merged.partial |= other.partial;
        merged.iterates &= other.iterates;
        if merged.settings != other.settings {
            merged.settings = None;
        }
        for method in &other.overridden {
            if !merged.overridden.contains(method) {
                merged.overridden.push(method.clone());
            }
        }
        merged.starts.retain(|m| other.starts.contains(m));
        merged.also.retain(|w| other.also.contains(w));
        merged
    }
}

/// Whether an entry names a class (which project classes may subclass) or a factory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Class,
    Factory,
}

/// One pattern of a query file.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The name `dldoctor loaders` shows (`timm.data.create_loader`).
    pub name: String,
    /// The query file it comes from.
    pub file: PathBuf,
    /// 1-based line of the pattern in its file.
    pub line: usize,
    pub kind: EntryKind,
    /// The qualified names `#dl-resolves-to? @callee` accepts.
    pub callees: Vec<String>,
    pub signature: Signature,
    /// Other `#dl-resolves-to?` conditions: (capture index, names).
    conditions: Vec<(u32, Vec<String>)>,
}

/// The entries of one query file.
struct QueryFile {
    entries: Vec<Entry>,
}

impl QueryFile {
    /// Compiles one file by itself: its query, the capture index of `@loader`, its entries.
    /// Used to name the line of a broken file, and when the files do not compile together.
    fn parse(path: &Path, text: &str) -> Result<(Query, u32, QueryFile), CatalogueError> {
        let query = Query::new(&crate::python::language(), &cheaper(text))
            .map_err(|e| invalid(path, e.row + 1, e.column + 1, e.message.trim().to_owned()))?;
        let loader = query.capture_index_for_name("loader").ok_or_else(|| {
            invalid(
                path,
                1,
                1,
                "no pattern captures the loader call as @loader".to_owned(),
            )
        })?;
        let file = QueryFile::of(&query, path, text, 0, 0..query.pattern_count())?;
        Ok((query, loader, file))
    }

    /// The entries of the patterns `patterns` of `query`, which come from `text`, a query
    /// file that starts at byte `offset` of the query's source.
    fn of(
        query: &Query,
        path: &Path,
        text: &str,
        offset: usize,
        patterns: Range<usize>,
    ) -> Result<QueryFile, CatalogueError> {
        let position = |pattern: usize| {
            let at = query.start_byte_for_pattern(pattern).saturating_sub(offset);
            let before = text.get(..at).unwrap_or("");
            let line = before.matches('\n').count() + 1;
            let column = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            (line, column)
        };
        let callee = query.capture_index_for_name("callee");
        let mut entries = Vec::new();
        for pattern in patterns {
            let (line, column) = position(pattern);
            let bad = |message: String| invalid(path, line, column, message);
            let mut callees = Vec::new();
            let mut conditions = Vec::new();
            for predicate in query.general_predicates(pattern) {
                if &*predicate.operator != "dl-resolves-to?" {
                    return Err(bad(format!(
                        "unknown predicate #{}; dldoctor understands #dl-resolves-to?",
                        predicate.operator
                    )));
                }
                let mut args = predicate.args.iter();
                let Some(QueryPredicateArg::Capture(capture)) = args.next() else {
                    return Err(bad(
                        "#dl-resolves-to? takes a capture, then qualified names".to_owned(),
                    ));
                };
                let names: Vec<String> = args
                    .filter_map(|a| match a {
                        QueryPredicateArg::String(s) => Some(s.to_string()),
                        QueryPredicateArg::Capture(_) => None,
                    })
                    .collect();
                if names.is_empty() {
                    return Err(bad("#dl-resolves-to? names no qualified name".to_owned()));
                }
                if Some(*capture) == callee && callees.is_empty() {
                    callees = names;
                } else {
                    conditions.push((*capture, names));
                }
            }
            let mut entry = Entry {
                name: String::new(),
                file: path.to_owned(),
                line,
                kind: EntryKind::Factory,
                callees,
                signature: Signature::default(),
                conditions,
            };
            let mut positional = None;
            for property in query.property_settings(pattern) {
                let value = property.value.as_deref().unwrap_or("");
                apply_property(&mut entry, &property.key, value).map_err(&bad)?;
                if &*property.key == "dl.positional" {
                    positional = Some(value);
                }
            }
            if entry
                .signature
                .settings
                .as_ref()
                .is_some_and(|s| s.entry.is_empty())
            {
                return Err(bad(
                    "dl.settings.keyword and dl.settings.position need dl.settings".to_owned(),
                ));
            }
            // Positional names bind what their keyword binds (`workers` renamed to
            // `num_workers`), else the DataLoader parameter of that name, else nothing.
            if let Some(names) = positional {
                let sig = &mut entry.signature;
                sig.positional = names
                    .split_whitespace()
                    .map(|n| sig.keyword(n).or_else(|| Param::from_name(n)))
                    .collect();
            }
            if entry.name.is_empty() {
                entry.name = entry
                    .callees
                    .first()
                    .cloned()
                    .unwrap_or_else(|| format!("{}:{line}", path.display()));
            }
            entries.push(entry);
        }
        Ok(QueryFile { entries })
    }
}

/// The usual head of an entry: any call, its callee captured.
const CALL_HEAD: &str = "(call function: (_) @callee) @loader";
/// The same matches for a fraction of the compilation: tree-sitter's analysis of a field's
/// wildcard child costs about 10 M instructions a pattern (the catalogue's compilation was
/// nearly all of a small `check`), a bare node almost nothing. Every call has a named callee,
/// and `@callee` only names the callee `#dl-resolves-to?` checks, which dldoctor reads from
/// the call itself. Padded to the same length, so patterns keep their offsets (and entries
/// and errors their lines and columns).
const CHEAP_CALL_HEAD: &str = "(call)               @callee @loader";

/// A query's text with each [`CALL_HEAD`] written as [`CHEAP_CALL_HEAD`].
fn cheaper(text: &str) -> std::borrow::Cow<'_, str> {
    match text.contains(CALL_HEAD) {
        true => std::borrow::Cow::Owned(text.replace(CALL_HEAD, CHEAP_CALL_HEAD)),
        false => std::borrow::Cow::Borrowed(text),
    }
}

fn invalid(path: &Path, line: usize, column: usize, message: String) -> CatalogueError {
    CatalogueError::Invalid {
        path: path.to_owned(),
        line,
        column,
        message,
    }
}

fn param(name: &str) -> Result<Param, String> {
    Param::from_name(name).ok_or_else(|| format!("`{name}` is not a parameter of DataLoader"))
}

fn apply_property(entry: &mut Entry, key: &str, value: &str) -> Result<(), String> {
    let sig = &mut entry.signature;
    let words = || value.split_whitespace();
    match key {
        "dl.entry" => entry.name = value.to_owned(),
        "dl.kind" => {
            entry.kind = match value {
                "class" => EntryKind::Class,
                "factory" => EntryKind::Factory,
                _ => {
                    return Err(format!(
                        "dl.kind is \"class\" or \"factory\", not {value:?}"
                    ));
                }
            }
        }
        // Resolved once every property is read (a positional name may be renamed).
        "dl.positional" => {}
        "dl.keywords" if value == "all" => {}
        "dl.keywords" => {
            sig.keywords = words()
                .map(|w| param(w).map(|p| (w.to_owned(), p)))
                .collect::<Result<_, _>>()?;
        }
        "dl.capped" => sig.capped = words().map(param).collect::<Result<_, _>>()?,
        "dl.opaque" => sig.opaque = words().map(str::to_owned).collect(),
        "dl.partial" => sig.partial = value == "true",
        "dl.iterates" => sig.iterates = value == "true",
        "dl.overridden" => sig.overridden = words().map(str::to_owned).collect(),
        "dl.starts" => sig.starts = words().map(str::to_owned).collect(),
        "dl.also" => sig.also = words().map(str::to_owned).collect(),
        "dl.settings" => settings(sig).entry = value.to_owned(),
        "dl.settings.keyword" => settings(sig).keyword = Some(value.to_owned()),
        "dl.settings.position" => {
            let position = value
                .parse()
                .map_err(|_| format!("dl.settings.position: {value:?} is not a position"))?;
            settings(sig).position = Some(position);
        }
        _ => {
            if let Some(keyword) = key.strip_prefix("dl.rename.") {
                let p = param(value)?;
                sig.keywords.retain(|(k, _)| k != keyword);
                sig.keywords.push((keyword.to_owned(), p));
            } else if let Some(name) = key.strip_prefix("dl.default.") {
                let p = param(name)?;
                let v = parse_literal(value)
                    .ok_or_else(|| format!("dl.default.{name}: {value:?} is not a literal"))?;
                sig.defaults.retain(|(q, _)| *q != p);
                sig.defaults.push((p, v));
            } else if !key.starts_with("dl.") {
                // Properties of other hosts (nvim-treesitter's `priority`, ...) are not ours.
            } else {
                return Err(format!("unknown property {key}"));
            }
        }
    }
    Ok(())
}

/// The entry's settings argument, made on its first property.
fn settings(sig: &mut Signature) -> &mut Settings {
    sig.settings.get_or_insert_with(|| Settings {
        entry: String::new(),
        keyword: None,
        position: None,
    })
}

/// A Python literal as a query property writes it: `1`, `0.5`, `True`, `None`, `"spawn"`;
/// `?` for a value the callee computes.
pub fn parse_literal(text: &str) -> Option<Value> {
    let text = text.trim();
    Some(match text {
        "?" => Value::Unknown,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        "None" => Value::None,
        _ => {
            if let Some(i) = parse_int(text) {
                Value::Int(i)
            } else if let Some(f) = parse_float(text) {
                Value::Float(f)
            } else {
                let inner = text
                    .strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .or_else(|| text.strip_prefix('"').and_then(|t| t.strip_suffix('"')))?;
                Value::Str(inner.to_owned())
            }
        }
    })
}

/// A `...Loader` word that is not a mixin's name (`StableDiffusionLoraLoaderMixin`, hundreds of
/// files of diffusers, build no loader by themselves).
fn names_a_loader_class(source: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"Loader";
    memchr::memmem::find_iter(source, NEEDLE).any(|at| {
        let rest = source.get(at + NEEDLE.len()..).unwrap_or_default();
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(rest.len());
        memchr::memmem::find(&rest[..end], b"Mixin").is_none()
    })
}

/// `DataLoader` of `torch.utils.data.DataLoader`.
fn last_name(qualified: &str) -> &str {
    qualified.rsplit('.').next().unwrap_or(qualified)
}

/// The words a file naming a callee of `entries` holds: each callee's last name (and
/// `DataModule` for a data module class); `None` when an entry names no callee (a user
/// pattern that may match anything).
fn needles_of<'e>(entries: impl Iterator<Item = &'e Entry>) -> Option<Vec<String>> {
    let mut needles: Vec<String> = Vec::new();
    for entry in entries.filter(|e| !e.signature.partial) {
        if entry.callees.is_empty() {
            return None;
        }
        for name in &entry.callees {
            let last = last_name(name).to_owned();
            // A project's subclass of a data module class (`class
            // WHUCDDataModule(NonGeoDataModule)`) is named after what it is, as one of a
            // loader class is `...Loader`.
            let family = (entry.kind == EntryKind::Class && last.ends_with(DATA_MODULE))
                .then(|| DATA_MODULE.to_owned());
            for needle in [Some(last), family].into_iter().flatten() {
                if !needles.contains(&needle) {
                    needles.push(needle);
                }
            }
        }
    }
    // A file that holds `EuroSATDataModule` holds `DataModule`: one search for both.
    let all = needles.clone();
    needles.retain(|n| !all.iter().any(|o| o != n && n.contains(o.as_str())));
    Some(needles)
}

/// The needles of the entries that need no other word, and for each entry that does, its
/// callees' last names and those words.
type BuildNeedles = (Vec<String>, Vec<(Vec<String>, Vec<String>)>);

/// The built-in entries and the user's.
#[derive(Default)]
pub struct Catalogue {
    /// User files first: their entries win over the built-in ones for the same call.
    files: Vec<QueryFile>,
    /// The compiled queries that find the entries' calls.
    walks: Walks,
    /// [`Catalogue::needles`], made once: the byte test asks for every file.
    needles: OnceLock<Option<Vec<String>>>,
    /// [`Catalogue::build_needles`], made once.
    build_needles: OnceLock<Option<BuildNeedles>>,
}

/// The queries a tree is walked with.
enum Walks {
    /// Every file's patterns compiled as one query, in file order, so that pattern `i` of file
    /// `f` is pattern `starts[f] + i`: one walk of a tree instead of one per file. The
    /// entries' capture indices are the combined query's.
    Combined {
        query: Query,
        loader: u32,
        starts: Vec<usize>,
    },
    /// Each file's own query and its `@loader` capture, when the files, each valid alone, do
    /// not compile together; the entries' capture indices are their own file's.
    Separate(Vec<(Query, u32)>),
}

impl Default for Walks {
    fn default() -> Self {
        Walks::Separate(Vec::new())
    }
}

impl std::fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries().map(|e| &e.name))
            .finish()
    }
}

impl Catalogue {
    /// The built-in catalogue (`queries/*.scm`).
    pub fn builtin() -> Arc<Catalogue> {
        BUILTIN_CATALOGUE.clone()
    }

    /// The built-in catalogue, borrowed for the life of the program.
    pub fn builtin_ref() -> &'static Catalogue {
        &BUILTIN_CATALOGUE
    }

    /// The built-in catalogue extended with the user's query files. A file that cannot be
    /// read or compiled is left out and reported; the rest keeps working.
    pub fn with_files(paths: &[PathBuf]) -> (Arc<Catalogue>, Vec<CatalogueError>) {
        if paths.is_empty() {
            return (Catalogue::builtin(), Vec::new());
        }
        // Compiled once per set of files and their modification times: the server asks for
        // every analysis.
        type Compiled = (Arc<Catalogue>, Vec<CatalogueError>);
        type Key = Vec<(PathBuf, Option<SystemTime>)>;
        static CACHE: LazyLock<Mutex<HashMap<Key, Compiled>>> = LazyLock::new(Default::default);
        let key: Vec<(PathBuf, Option<SystemTime>)> = paths
            .iter()
            .map(|p| {
                let modified = std::fs::metadata(p).and_then(|m| m.modified()).ok();
                (p.clone(), modified)
            })
            .collect();
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = cache.get(&key) {
            return found.clone();
        }
        let compiled = Self::compile(paths);
        cache.insert(key, compiled.clone());
        compiled
    }

    fn compile(paths: &[PathBuf]) -> (Arc<Catalogue>, Vec<CatalogueError>) {
        let mut user = Vec::new();
        let mut errors = Vec::new();
        for path in paths {
            let read = std::fs::read_to_string(path).map_err(|e| CatalogueError::Io {
                path: path.clone(),
                message: e.to_string(),
            });
            // Each user file alone first, to name the line of a broken one and keep the rest.
            match read.and_then(|text| QueryFile::parse(path, &text).map(|_| text)) {
                Ok(text) => user.push((path.as_path(), text)),
                Err(e) => errors.push(e),
            }
        }
        let sources: Vec<(&Path, &str)> = user
            .iter()
            .map(|(p, t)| (*p, t.as_str()))
            .chain(BUILTIN.iter().map(|(n, t)| (Path::new(*n), *t)))
            .collect();
        (Arc::new(Catalogue::of(&sources)), errors)
    }

    /// The catalogue of these query files, in order, compiled as one query when they compile
    /// together (the query is compiled once), else each by itself; a file that does not
    /// compile by itself is left out.
    fn of(sources: &[(&Path, &str)]) -> Catalogue {
        if let Some(catalogue) = Catalogue::combined(sources) {
            return catalogue;
        }
        let (files, queries) = sources
            .iter()
            .filter_map(|(path, text)| QueryFile::parse(path, text).ok())
            .map(|(query, loader, file)| (file, (query, loader)))
            .unzip();
        Catalogue {
            files,
            walks: Walks::Separate(queries),
            needles: OnceLock::new(),
            build_needles: OnceLock::new(),
        }
    }

    /// The files compiled as one query, their entries read from it; `None` unless each
    /// pattern lies within one file and each file is a valid catalogue file by itself (the
    /// checks of [`QueryFile::parse`], made on the combined query).
    fn combined(sources: &[(&Path, &str)]) -> Option<Catalogue> {
        let mut text = String::new();
        let mut spans = Vec::with_capacity(sources.len());
        for (_, file) in sources {
            let start = text.len();
            text.push_str(file);
            text.push('\n');
            spans.push(start..text.len());
        }
        let query = Query::new(&crate::python::language(), &cheaper(&text)).ok()?;
        let loader = query.capture_index_for_name("loader")?;
        let captures = |pattern: usize, capture: u32| {
            query
                .capture_quantifiers(pattern)
                .get(capture as usize)
                .is_some_and(|q| *q != tree_sitter::CaptureQuantifier::Zero)
        };
        let mut files = Vec::with_capacity(sources.len());
        let mut starts = Vec::with_capacity(sources.len());
        let mut next = 0;
        for ((path, file), span) in sources.iter().zip(&spans) {
            let first = next;
            while next < query.pattern_count() && span.contains(&query.start_byte_for_pattern(next))
            {
                // A pattern running into the next file, or naming a capture only another
                // file's patterns make, would not compile alone.
                let own_captures = query.general_predicates(next).iter().all(|p| {
                    p.args.iter().all(|a| match a {
                        QueryPredicateArg::Capture(c) => captures(next, *c),
                        QueryPredicateArg::String(_) => true,
                    })
                });
                // Its end counts the blank lines and comments after it, which may be the
                // next file's.
                let end = query.end_byte_for_pattern(next);
                let beyond = text.get(span.end.min(end)..end).unwrap_or_default();
                let spills = beyond.lines().any(|line| {
                    let line = line.trim_start();
                    !line.is_empty() && !line.starts_with(';')
                });
                if spills || !own_captures {
                    return None;
                }
                next += 1;
            }
            if !(first..next).any(|p| captures(p, loader)) {
                return None;
            }
            files.push(QueryFile::of(&query, path, file, span.start, first..next).ok()?);
            starts.push(first);
        }
        if next != query.pattern_count() {
            return None;
        }
        Some(Catalogue {
            files,
            walks: Walks::Combined {
                query,
                loader,
                starts,
            },
            needles: OnceLock::new(),
            build_needles: OnceLock::new(),
        })
    }

    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.files.iter().flat_map(|f| f.entries.iter())
    }

    /// The class entry a qualified name stands for (a base class of a project's loader).
    pub fn class(&self, qualified: &str) -> Option<&Entry> {
        self.entries()
            .find(|e| e.kind == EntryKind::Class && e.callees.iter().any(|c| c == qualified))
    }

    /// The entry named `name` (`dl.entry`).
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries().find(|e| e.name == name)
    }

    /// The entry of a settings class (`transformers.TrainingArguments`): a factory among
    /// whose callees is `qualified` and whose fields another entry builds its loaders from
    /// (`dl.settings`).
    pub fn settings_class(&self, qualified: &str) -> Option<&Entry> {
        self.entries().find(|e| {
            e.kind == EntryKind::Factory
                && e.callees.iter().any(|c| c == qualified)
                && self.entries().any(|t| {
                    t.signature
                        .settings
                        .as_ref()
                        .is_some_and(|s| s.entry == e.name)
                })
        })
    }

    /// Whether an entry names `qualified` among its callees.
    pub fn names_callee(&self, qualified: &str) -> bool {
        self.entries()
            .any(|e| e.callees.iter().any(|c| c == qualified))
    }

    /// A cheap byte test: whether `source` may name a loader, however it is imported or
    /// aliased (the import names it): `DataLoader`, a project class named `...Loader`, or a
    /// callee of the catalogue. A name that holds `Loader` and then `Mixin`
    /// (`StableDiffusionLoraLoaderMixin`, hundreds of files of diffusers, and their tests'
    /// `PeftLoraLoaderMixinTests`) names a mixin, which builds no loader by itself.
    pub fn may_name_a_loader(&self, source: &[u8]) -> bool {
        names_a_loader_class(source)
            || match self.needles() {
                Some(needles) => needles
                    .iter()
                    .any(|n| memchr::memmem::find(source, n.as_bytes()).is_some()),
                // A user pattern that names no callee may match anything.
                None => true,
            }
    }

    /// [`Catalogue::may_name_a_loader`] for a file whose own calls may build a loader: a
    /// callee named only by entries that need other words too (`dl.also`) counts when the
    /// file holds them.
    pub fn may_build_a_loader(&self, source: &[u8]) -> bool {
        let found = |word: &str| memchr::memmem::find(source, word.as_bytes()).is_some();
        let Some((plain, conditional)) = self.build_needles() else {
            return true;
        };
        names_a_loader_class(source)
            || plain.iter().any(|n| found(n))
            || conditional.iter().any(|(names, also)| {
                names.iter().any(|n| found(n)) && also.iter().all(|w| found(w))
            })
    }

    /// The classes `source` defines whose bases name a loader ([`Catalogue::may_name_a_loader`])
    /// or a word of `known`, and whose own name that byte test does not pass. A project's
    /// `class FastGCNSampler(LayerWiseSampler)`, `LayerWiseSampler` a `DataLoader` subclass of
    /// another file, is built in files that name only `FastGCNSampler`: `check` analyses the
    /// files that hold such a word ([`Words`]) too. A byte scan of `class NAME(...)`
    /// headers: a word too many only costs a file analysed for nothing.
    pub fn loader_subclass_words(&self, source: &[u8], known: &Words) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for at in memchr::memmem::find_iter(source, b"class ") {
            let line_start = source[..at]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |p| p + 1);
            if !source[line_start..at]
                .iter()
                .all(|b| matches!(b, b' ' | b'\t'))
            {
                continue;
            }
            let rest = &source[at + b"class ".len()..];
            let name_len = rest
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .unwrap_or(rest.len());
            let after = &rest[name_len..];
            let open = after.iter().position(|b| *b != b' ');
            let (Some(open), Ok(name)) = (open, std::str::from_utf8(&rest[..name_len])) else {
                continue;
            };
            if name.is_empty() || after[open] != b'(' {
                continue;
            }
            let bases = &after[open + 1..];
            let bases = &bases[..bases.iter().position(|b| *b == b')').unwrap_or(bases.len())];
            let names_one = self.may_name_a_loader(bases)
                || known.found_in(bases)
                || found.iter().any(|w| word_at(bases, w.as_bytes()));
            if names_one && !self.may_name_a_loader(name.as_bytes()) && !known.contains(name) {
                found.push(name.to_owned());
            }
        }
        found
    }

    /// Words a file must contain for any entry to match it (the last part of each name, and
    /// `DataModule` for a data module class, whose project subclasses end so),
    /// for the byte test that skips files; `None` when an entry names no callee. A
    /// `functools.partial` entry adds none: its first argument is a loader class, which the
    /// file names anyway.
    pub fn needles(&self) -> Option<&[String]> {
        self.needles
            .get_or_init(|| needles_of(self.entries()))
            .as_deref()
    }

    /// The needles of [`Catalogue::may_build_a_loader`], made once: those of the entries that
    /// need no other word, and for each that does, its callees' last names and the words.
    fn build_needles(&self) -> Option<&BuildNeedles> {
        self.build_needles
            .get_or_init(|| {
                let plain = needles_of(self.entries().filter(|e| e.signature.also.is_empty()))?;
                let conditional = self
                    .entries()
                    .filter(|e| !e.signature.also.is_empty())
                    .map(|e| {
                        let names = e.callees.iter().map(|c| last_name(c).to_owned()).collect();
                        (names, e.signature.also.clone())
                    })
                    .collect();
                Some((plain, conditional))
            })
            .as_ref()
    }

    /// The calls of the file that an entry matches, each with the first entry that does (user
    /// files first, then in the order of the patterns).
    pub fn matches<'t>(&self, m: &Module<'t>) -> HashMap<usize, &Entry> {
        self.matches_within(m, true)
    }

    /// [`Catalogue::matches`], the queries run over only the calls they can match when
    /// `narrow`, over the whole tree otherwise (which the tests compare).
    fn matches_within<'t>(&self, m: &Module<'t>, narrow: bool) -> HashMap<usize, &Entry> {
        let mut found: HashMap<usize, (usize, &Entry)> = HashMap::new();
        // Every pattern of every file matches the same calls: resolve each callee once.
        let mut names: HashMap<usize, Option<String>> = HashMap::new();
        let mut resolves = |node: Option<Node>, accepted: &[String]| {
            node.is_some_and(|n| {
                names
                    .entry(n.id())
                    .or_insert_with(|| resolved_name(m, n))
                    .as_ref()
                    .is_some_and(|q| accepted.contains(q))
            })
        };
        let root = m.tree.root_node();
        let source = m.source.as_bytes();
        let whole = || vec![root.byte_range()];
        // (query, capture index of @loader, the first pattern of each of its files (none for a
        // file's own query), the byte ranges to run over).
        type Walk<'q> = (&'q Query, u32, Option<&'q [usize]>, Vec<Range<usize>>);
        let walks: Vec<Walk> = match &self.walks {
            Walks::Combined {
                query,
                loader,
                starts,
            } => {
                let ranges = candidate_ranges(self.files.iter().flat_map(|f| f.entries.iter()), m)
                    .filter(|_| narrow);
                vec![(query, *loader, Some(starts), ranges.unwrap_or_else(whole))]
            }
            Walks::Separate(queries) => self
                .files
                .iter()
                .zip(queries)
                .map(|(f, (query, loader))| {
                    let ranges = candidate_ranges(f.entries.iter(), m).filter(|_| narrow);
                    (query, *loader, None, ranges.unwrap_or_else(whole))
                })
                .collect(),
        };
        // In a file's own query, its patterns come after the earlier files'.
        let mut earlier = 0;
        for (file_index, (query, loader, starts, ranges)) in walks.into_iter().enumerate() {
            let first_of_file = earlier;
            earlier += query.pattern_count();
            let mut cursor = QueryCursor::new();
            for range in ranges {
                cursor.set_byte_range(range);
                let mut matches = cursor.matches(query, root, source);
                while let Some(found_match) = matches.next() {
                    let (pattern, file, local) = match starts {
                        Some(starts) => {
                            let pattern = found_match.pattern_index;
                            let f = starts.partition_point(|s| *s <= pattern).saturating_sub(1);
                            let first = starts.get(f).copied().unwrap_or(0);
                            (pattern, f, pattern - first)
                        }
                        None => (
                            first_of_file + found_match.pattern_index,
                            file_index,
                            found_match.pattern_index,
                        ),
                    };
                    let Some(entry) = self.files.get(file).and_then(|f| f.entries.get(local))
                    else {
                        continue;
                    };
                    let Some(call) = found_match
                        .captures()
                        .iter()
                        .find(|c| c.index == loader)
                        .map(|c| c.node)
                    else {
                        continue;
                    };
                    // Another capture of the call itself is `@callee` of [`CHEAP_CALL_HEAD`]:
                    // its callee.
                    let capture = |index: u32| {
                        found_match
                            .captures()
                            .iter()
                            .find(|c| c.index == index)
                            .map(|c| match c.node == call && index != loader {
                                true => call.child_by_field_name("function").unwrap_or(call),
                                false => c.node,
                            })
                    };
                    if found.get(&call.id()).is_some_and(|(p, _)| *p < pattern) {
                        continue;
                    }
                    let callee = call.child_by_field_name("function");
                    if !entry.callees.is_empty() && !resolves(callee, &entry.callees) {
                        continue;
                    }
                    if entry
                        .conditions
                        .iter()
                        .all(|(index, accepted)| resolves(capture(*index), accepted))
                    {
                        found.insert(call.id(), (pattern, entry));
                    }
                }
            }
        }
        found.into_iter().map(|(id, (_, e))| (id, e)).collect()
    }
}

/// The byte ranges of the calls these entries can match, in source order with nested calls
/// merged into the outer one; `None` when an entry names no callee (it may match any call).
/// A match is taken only for a call whose callee resolves to one of its entry's callees, and
/// the model records every call with its resolution, so no match outside these ranges can be
/// taken; a match overlapping a range is returned whole.
fn candidate_ranges<'e>(
    entries: impl Iterator<Item = &'e Entry> + Clone,
    m: &Module,
) -> Option<Vec<Range<usize>>> {
    if entries.clone().any(|e| e.callees.is_empty()) {
        return None;
    }
    let callees: HashSet<&str> = entries
        .flat_map(|e| e.callees.iter().map(String::as_str))
        .collect();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for call in m.calls() {
        if !call
            .qualified
            .as_deref()
            .is_some_and(|q| callees.contains(q))
        {
            continue;
        }
        let range = call.node.byte_range();
        match ranges.last_mut() {
            Some(last) if range.start < last.end => last.end = last.end.max(range.end),
            _ => ranges.push(range),
        }
    }
    Some(ranges)
}

/// The qualified name of an expression: the model's resolution of a callee, else a fresh one.
fn resolved_name(m: &Module, node: Node) -> Option<String> {
    if let Some(call) = node.parent().and_then(|p| m.call_site(p))
        && call.callee.id() == node.id()
    {
        return call.qualified.clone();
    }
    m.qualified_name(node)
}

/// Names of the project's loader subclasses, found as whole identifiers in one pass over a
/// file (see [`Catalogue::loader_subclass_words`]).
pub struct Words {
    words: HashSet<String>,
    /// `None` when there are no words (or, never in practice, the automaton cannot be built:
    /// then every file counts as naming one, so none is missed).
    automaton: Option<AhoCorasick>,
}

impl Words {
    pub fn new(words: HashSet<String>) -> Self {
        let automaton = (!words.is_empty())
            .then(|| AhoCorasick::new(&words).ok())
            .flatten();
        Self { words, automaton }
    }

    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// Whether `source` holds one of the words with no identifier character on either side.
    pub fn found_in(&self, source: &[u8]) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let Some(automaton) = &self.automaton else {
            return true;
        };
        automaton
            .find_overlapping_iter(source)
            .any(|m| whole_word(source, m.start(), m.end()))
    }
}

/// Whether `source` holds `word` with no identifier character on either side.
fn word_at(source: &[u8], word: &[u8]) -> bool {
    memchr::memmem::find_iter(source, word).any(|at| whole_word(source, at, at + word.len()))
}

fn whole_word(source: &[u8], start: usize, end: usize) -> bool {
    let ident = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let before = start.checked_sub(1).and_then(|i| source.get(i));
    !before.is_some_and(ident) && !source.get(end).is_some_and(ident)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::index::ProjectIndex;

    /// Each call's entry, by where the call is.
    fn entries_by_call(m: &Module, narrow: bool) -> Vec<(usize, String)> {
        let by_id: HashMap<usize, usize> = m
            .calls()
            .iter()
            .map(|c| (c.node.id(), c.node.start_byte()))
            .collect();
        let mut found: Vec<(usize, String)> = Catalogue::builtin_ref()
            .matches_within(m, narrow)
            .into_iter()
            .map(|(id, entry)| {
                (
                    by_id.get(&id).copied().unwrap_or(usize::MAX),
                    entry.name.clone(),
                )
            })
            .collect();
        found.sort();
        found
    }

    #[test]
    fn a_callee_that_needs_other_words_builds_no_loader_without_them() {
        let catalogue = Catalogue::builtin_ref();
        let builds = |source: &str| catalogue.may_build_a_loader(source.as_bytes());
        // A Lightning script names a `Trainer` and builds no loader by it.
        assert!(!builds(
            "import lightning as L\ntrainer = L.Trainer()\ntrainer.fit(model)\n"
        ));
        assert!(builds(
            "from transformers import HfArgumentParser, Trainer\nTrainer(args=a).train()\n"
        ));
        assert!(builds("trainer = Trainer()\nloader = DataLoader(ds)\n"));
        // A project's subclass of the Trainer is still a class that may be a loader.
        assert!(
            catalogue
                .may_name_a_loader(b"from transformers import Trainer\nclass T(Trainer): pass\n")
        );
    }

    #[test]
    fn loader_subclass_words_are_classes_the_byte_test_would_miss() {
        let catalogue = Catalogue::builtin_ref();
        let set = |words: &[&str]| Words::new(words.iter().map(|w| (*w).to_owned()).collect());
        let words = |source: &str, known: &[&str]| {
            catalogue.loader_subclass_words(source.as_bytes(), &set(known))
        };
        let source = "import torch\n\n\
                      class LayerWise(torch.utils.data.DataLoader):\n    pass\n\n\
                      class Fast(\n    LayerWise,\n):\n    pass\n\n\
                      class InfiniteDataLoader(LayerWise):\n    pass\n\n\
                      class Model(torch.nn.Module):\n    pass\n\n\
                      def make():\n    class Local(LayerWise):\n        pass\n\n\
                      x = 'class Text(DataLoader)'\n";
        // `InfiniteDataLoader` passes the byte test by itself; a class in a string is none.
        assert_eq!(words(source, &[]), ["LayerWise", "Fast", "Local"]);
        assert_eq!(
            words("class Fast(LayerWise): pass\n", &["LayerWise"]),
            ["Fast"]
        );
        assert!(words("class Fast(LayerWiseX): pass\n", &["LayerWise"]).is_empty());
        assert!(words("class P(LoraLoaderMixin):\n    pass\n", &[]).is_empty());
        assert!(words("class T(PeftLoraLoaderMixinTests):\n    pass\n", &[]).is_empty());
        assert!(set(&["Slow", "Fast"]).found_in(b"loader = Fast(ds)"));
        assert!(!set(&["Fast"]).found_in(b"loader = FastX(ds); x = self.Faster"));
        assert!(!set(&[]).found_in(b"Fast"));
    }

    #[test]
    fn queries_over_candidate_calls_match_what_the_whole_tree_matches() {
        let mut sources: Vec<String> = Vec::new();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("tests/fixtures"), root.join("examples")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
                if entry.is_dir() {
                    dirs.push(entry);
                } else if entry.extension().is_some_and(|e| e == "py") {
                    sources.push(std::fs::read_to_string(&entry).unwrap());
                }
            }
        }
        assert!(sources.len() > 100);
        // Nested loaders, a partial, calls in f-strings, decorators, lambdas and defaults.
        sources.push(
            "import functools\nimport torch.utils.data as tud\nfrom monai.data import DataLoader as M\n\
             f = functools.partial(tud.DataLoader, num_workers=2)\n\
             x = tud.DataLoader(M(ds, num_workers=1), batch_size=None)\n\
             s = f\"{tud.DataLoader(ds)} {M(ds)}\"\n\
             @register(tud.DataLoader(ds))\ndef g(l=M(ds), h=lambda: tud.DataLoader(ds)):\n    return f(ds)\n"
                .to_owned(),
        );
        let path = Path::new("t.py");
        let index = ProjectIndex::default();
        let mut loaders = 0;
        for source in &sources {
            let tree = crate::python::parse(source, None).unwrap();
            let m = Module::build(source, &tree, path, &index);
            let everywhere = entries_by_call(&m, false);
            assert_eq!(entries_by_call(&m, true), everywhere, "on:\n{source}");
            loaders += everywhere.len();
        }
        assert!(loaders > 100, "only {loaders} loaders matched");
    }

    /// The cheap head matches the calls the usual one does, and its `@callee` stands for the
    /// same node: the call's function.
    #[test]
    fn the_cheap_call_head_matches_the_same_calls() {
        let source =
            "f(1)\na.b.c(x, y=2)\nf()(g())\nx[0]()\n@d(1)\ndef h(): return (lambda: 0)()\n";
        let tree = crate::python::parse(source, None).expect("parses");
        let matched = |head: &str| {
            let query =
                Query::new(&crate::python::language(), &format!("({head})")).expect("compiles");
            let callee = query.capture_index_for_name("callee").expect("callee");
            let loader = query.capture_index_for_name("loader").expect("loader");
            let mut cursor = QueryCursor::new();
            let mut found = Vec::new();
            let mut matches = cursor.matches(&query, tree.root_node(), source.as_bytes());
            while let Some(m) = matches.next() {
                let node = |index| {
                    m.captures()
                        .iter()
                        .find(|c| c.index == index)
                        .map(|c| c.node)
                };
                let (Some(call), Some(captured)) = (node(loader), node(callee)) else {
                    continue;
                };
                let function = match captured == call {
                    true => call.child_by_field_name("function"),
                    false => Some(captured),
                };
                found.push((call.byte_range(), function.map(|f| f.byte_range())));
            }
            found.sort_by_key(|(call, _)| (call.start, call.end));
            found
        };
        let usual = matched(CALL_HEAD);
        assert_eq!(usual.len(), 8);
        assert_eq!(usual, matched(CHEAP_CALL_HEAD));
        assert_eq!(CALL_HEAD.len(), CHEAP_CALL_HEAD.len());
        assert!(
            BUILTIN
                .iter()
                .all(|(_, text)| cheaper(text).len() == text.len())
        );
    }

    #[test]
    fn every_builtin_file_compiles() {
        for (name, text) in BUILTIN {
            if let Err(e) = QueryFile::parse(Path::new(name), text) {
                panic!("{e}");
            }
        }
        assert!(Catalogue::builtin().entries().count() >= BUILTIN.len());
    }

    #[test]
    fn the_files_compile_once_together_and_their_entries_are_those_of_each_alone() {
        let catalogue = Catalogue::builtin_ref();
        assert!(matches!(catalogue.walks, Walks::Combined { .. }));
        let alone: Vec<(String, usize, EntryKind, Vec<String>)> = BUILTIN
            .iter()
            .flat_map(
                |(name, text)| match QueryFile::parse(Path::new(name), text) {
                    Ok((_, _, file)) => file.entries,
                    Err(e) => panic!("{e}"),
                },
            )
            .map(|e| (e.name, e.line, e.kind, e.callees))
            .collect();
        let together: Vec<(String, usize, EntryKind, Vec<String>)> = catalogue
            .entries()
            .map(|e| (e.name.clone(), e.line, e.kind, e.callees.clone()))
            .collect();
        assert_eq!(together, alone);
        // A pattern that needs a capture only another file makes does not compile alone:
        // the files are then compiled each by itself, and the broken one left out.
        let good = "((call function: (_) @callee) @loader\n  (#dl-resolves-to? @callee \"a.B\"))\n";
        let borrows = "((call) @loader (#dl-resolves-to? @callee \"c.D\"))\n";
        let sources = [(Path::new("a.scm"), good), (Path::new("b.scm"), borrows)];
        let catalogue = Catalogue::of(&sources);
        assert!(matches!(catalogue.walks, Walks::Separate(_)));
        let names: Vec<&str> = catalogue.entries().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a.B"]);
    }

    #[test]
    fn properties_map_keywords_and_defaults() {
        let catalogue = Catalogue::builtin();
        let hf = catalogue
            .entries()
            .find(|e| e.name == "transformers.TrainingArguments")
            .expect("entry");
        assert_eq!(
            hf.signature.keyword("dataloader_num_workers"),
            Some(Param::NumWorkers)
        );
        assert_eq!(hf.signature.keyword("num_workers"), None);
        assert_eq!(
            hf.signature.default_of(Param::PinMemory),
            (Value::Bool(true), true)
        );
        let ul = catalogue
            .entries()
            .find(|e| e.name == "ultralytics.data.build_dataloader")
            .expect("entry");
        assert_eq!(ul.signature.positional(2), Some(Param::NumWorkers));
        assert_eq!(ul.signature.positional(1), Some(Param::BatchSize));
        assert!(catalogue.class("monai.data.DataLoader").is_some());
        assert!(catalogue.class("timm.data.create_loader").is_none());
    }

    #[test]
    fn a_broken_file_names_its_line_and_column() {
        let path = Path::new("ops/loaders.scm");
        let err = QueryFile::parse(
            path,
            "; ok\n((call function: (_) @callee) @loader\n  (#set! dl.kind \"class\")\n((call\n",
        )
        .err();
        let Some(CatalogueError::Invalid { line, .. }) = err else {
            panic!("expected an error, got {err:?}");
        };
        assert!(line >= 2, "line {line}");
        let err = QueryFile::parse(
            path,
            "((call function: (_) @callee) @loader\n  (#dl-resolves-to? @callee \"a.B\")\n  (#set! dl.default.num_wokers \"2\"))\n",
        )
        .err()
        .expect("unknown parameter");
        assert_eq!(
            err.to_string(),
            "ops/loaders.scm:1:1: `num_wokers` is not a parameter of DataLoader"
        );
    }

    #[test]
    fn literals() {
        assert_eq!(parse_literal("1"), Some(Value::Int(1)));
        assert_eq!(parse_literal("True"), Some(Value::Bool(true)));
        assert_eq!(parse_literal("'spawn'"), Some(Value::Str("spawn".into())));
        assert_eq!(parse_literal("?"), Some(Value::Unknown));
        assert_eq!(parse_literal("spawn"), None);
    }
}
