//! `dldoctor check`: find the Python files, analyse them in parallel, print the results in path
//! order as they complete (text, github) or as one document at the end (json, sarif), and
//! optionally apply fixes.
//!
//! Files are read, parsed and analysed one at a time per worker thread, in path order, and
//! dropped once reported: memory follows the largest file, not the size of the tree. Files
//! that cannot hold a finding are never parsed (see [`analyse_all`]); names they import from
//! other files of the project are resolved on demand by the shared [`ProjectIndex`].

use std::collections::{BTreeMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use dldoctor::analyze::{self, Context};
use dldoctor::config::{ConfigResolver, Overrides};
use dldoctor::diagnostic::Diagnostic;
use dldoctor::fix;
use dldoctor::host::{self, HostFacts};
use dldoctor::notebook::{self, CellMap, Notebook};
use dldoctor::output::{self, Emitter, FileReport, Summary};
use dldoctor::python::catalogue::Words;
use dldoctor::python::index::{PROJECT_MARKERS, ProjectIndex};
use dldoctor::text::LineIndex;

use crate::CheckFormat;

/// Files larger than this are skipped with a message: no training script is this big, and a
/// generated file of this size would stall the run.
const MAX_FILE_BYTES: u64 = 16 << 20;
/// A notebook's size is mostly its outputs (plots are base64 images), not its code.
const MAX_NOTEBOOK_BYTES: u64 = 256 << 20;

pub fn run(args: crate::CheckArgs) -> anyhow::Result<ExitCode> {
    let overrides = Overrides {
        select: (!args.select.is_empty()).then(|| args.select.clone()),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
        max_workers: None,
        extend_queries: Vec::new(),
    };
    overrides
        .validate()
        .map_err(|e| anyhow::anyhow!("--select/--extend-select/--ignore: {e}"))?;
    let resolver = match &args.config {
        Some(path) => ConfigResolver::with_config_file(path, overrides)?,
        None => ConfigResolver::new(overrides),
    };
    let mut host = HostFacts::detect();
    if let Some(cpus) = args.assume_cpus {
        host = host.assume_cpus(cpus);
    }
    if let Some(size) = &args.assume_shm {
        let bytes = host::parse_size(size).with_context(|| format!("--assume-shm {size}"))?;
        host = host.assume_shm(bytes);
    }

    let mut errors = Errors::default();
    let (files, named, index) = project_files(&args.paths, &mut errors);

    let mode = FixMode {
        enabled: args.fix,
        unsafe_fixes: args.unsafe_fixes,
    };
    let mut emitter: Box<dyn Emitter> = match args.format {
        CheckFormat::Text => Box::new(output::text::Text::new(use_color())),
        CheckFormat::Json => Box::new(output::json::Json::default()),
        CheckFormat::Sarif => Box::new(output::sarif::Sarif::default()),
        CheckFormat::Github => Box::new(output::github::Github),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut summary = Summary {
        fix_mode: mode.enabled,
        ..Summary::default()
    };
    let mut progress = Progress::new(files.len());

    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    let write_result = std::thread::scope(|scope| -> io::Result<()> {
        let job = Job {
            resolver: &resolver,
            host: &host,
            index: &index,
            mode,
        };
        let (files, named) = (&files, &named);
        scope.spawn(move || analyse_all(files, named, &job, tx));
        // Ordered reassembly: results arrive in any order, files are printed in path order.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, outcome) in rx {
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&next) {
                progress.clear();
                report(
                    &files[next],
                    outcome,
                    &mut *emitter,
                    &mut out,
                    &mut summary,
                    &mut errors,
                    mode,
                )?;
                out.flush()?;
                next += 1;
                progress.tick(next);
            }
        }
        progress.clear();
        Ok(())
    });
    let finished = write_result.and_then(|()| {
        summary.errors = errors.count;
        emitter.finish(&mut out, &summary)?;
        out.flush()
    });
    match finished {
        Ok(()) => {}
        // `dldoctor check | head`: the reader left; nothing more to say.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::from(2)),
        Err(e) => return Err(e).context("writing the results"),
    }

    Ok(if errors.count > 0 {
        ExitCode::from(2)
    } else if summary.remaining > 0 && !args.exit_zero {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Analyses the files in rounds, sending each outcome once. The first round analyses the files
/// the catalogue's byte test passes ([`analyze::may_have_findings`]) and those named on the
/// command line, and collects the project's loader subclasses whose names that test does not
/// know ([`Catalogue::loader_subclass_words`]); each later round analyses the files left that
/// name one found in the round before, until none is new. Most projects find none: one round.
///
/// [`Catalogue::loader_subclass_words`]: dldoctor::python::catalogue::Catalogue::loader_subclass_words
fn analyse_all(
    files: &[PathBuf],
    named: &HashSet<PathBuf>,
    job: &Job,
    tx: mpsc::Sender<(usize, Outcome)>,
) {
    let mut pending: Vec<usize> = (0..files.len()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut gate_words: Option<Words> = None;
    let stopped = AtomicBool::new(false);
    loop {
        let next = AtomicUsize::new(0);
        let deferred = Mutex::new(Vec::new());
        let found = Mutex::new(HashSet::new());
        std::thread::scope(|scope| {
            for _ in 0..rayon::current_num_threads().max(1) {
                let (tx, pending, next) = (tx.clone(), &pending, &next);
                let (deferred, found, stopped) = (&deferred, &found, &stopped);
                let gate_words = gate_words.as_ref();
                scope.spawn(move || {
                    // Workers take files in path order, so results come back nearly in
                    // order and few wait for their turn to be printed.
                    while !stopped.load(Ordering::Relaxed) {
                        let Some(&i) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        let path = &files[i];
                        let gate = match gate_words {
                            _ if named.contains(path) => Gate::Named,
                            None => Gate::Catalogue,
                            Some(words) => Gate::Words(words),
                        };
                        let (outcome, words) = check_file(path, gate, job);
                        if let Ok(mut found) = found.lock() {
                            found.extend(words);
                        }
                        match outcome {
                            Outcome::Skipped(errors) => {
                                if let Ok(mut deferred) = deferred.lock() {
                                    deferred.push((i, errors));
                                }
                            }
                            outcome => {
                                if tx.send((i, outcome.lightened())).is_err() {
                                    stopped.store(true, Ordering::Relaxed);
                                }
                            }
                        }
                    }
                });
            }
        });
        let mut deferred = deferred.into_inner().unwrap_or_default();
        let fresh: HashSet<String> = found
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .filter(|w| seen.insert(w.clone()))
            .collect();
        if fresh.is_empty() || deferred.is_empty() || stopped.load(Ordering::Relaxed) {
            for (i, errors) in deferred {
                if tx.send((i, Outcome::Skipped(errors))).is_err() {
                    break;
                }
            }
            return;
        }
        deferred.sort_by_key(|(i, _)| *i);
        pending = deferred.into_iter().map(|(i, _)| i).collect();
        gate_words = Some(Words::new(fresh));
    }
}

/// What every file of a run is checked with.
struct Job<'a> {
    resolver: &'a ConfigResolver,
    host: &'a HostFacts,
    index: &'a ProjectIndex,
    mode: FixMode,
}

/// What a file must hold to be parsed and analysed.
#[derive(Clone, Copy)]
enum Gate<'w> {
    /// Named on the command line: always.
    Named,
    /// Something the catalogue's byte test finds ([`analyze::may_have_findings`]).
    Catalogue,
    /// One of the project's loader subclasses found in the round before.
    Words(&'w Words),
}

#[derive(Clone, Copy)]
struct FixMode {
    enabled: bool,
    unsafe_fixes: bool,
}

/// Problems that stop a file (or a path) from being checked. Each is printed once on stderr;
/// any of them makes the exit code 2.
#[derive(Default)]
pub(crate) struct Errors {
    pub(crate) count: usize,
    seen: HashSet<String>,
}

impl Errors {
    pub(crate) fn report(&mut self, message: String) {
        self.count += 1;
        if self.seen.insert(message.clone()) {
            eprintln!("dldoctor: error: {message}");
        }
    }
}

/// The files under `paths` (default `.`) and the project index that resolves what they import
/// on demand.
/// The files to check (sorted), those of them named on the command line, and the index of
/// their projects.
pub(crate) fn project_files(
    paths: &[PathBuf],
    errors: &mut Errors,
) -> (Vec<PathBuf>, HashSet<PathBuf>, ProjectIndex) {
    let named = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let (named, roots) = project_roots(named);
    let (files, named) = discover(&named, errors);
    let index = ProjectIndex::on_disk(roots);
    (files, named, index)
}

/// The paths to check: files named directly (whatever their extension), and the `.py` and
/// `.ipynb` files under directories, honouring .gitignore, .ignore and hidden-file rules. Sorted, deduplicated;
/// with the files named directly.
fn discover(roots: &[PathBuf], errors: &mut Errors) -> (Vec<PathBuf>, HashSet<PathBuf>) {
    let mut files = Vec::new();
    let mut named = HashSet::new();
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_file() => {
                files.push(root.clone());
                named.insert(root.clone());
            }
            Ok(_) => {
                for entry in ignore::WalkBuilder::new(root).require_git(false).build() {
                    match entry {
                        Ok(entry) => {
                            let is_file = entry.file_type().is_some_and(|t| t.is_file());
                            let is_python = entry
                                .path()
                                .extension()
                                .is_some_and(|ext| ext == "py" || ext == "ipynb");
                            if is_file && is_python {
                                files.push(entry.into_path());
                            }
                        }
                        Err(err) => errors.report(err.to_string()),
                    }
                }
            }
            Err(err) => errors.report(format!("{}: {err}", root.display())),
        }
    }
    files.sort();
    files.dedup();
    (files, named)
}

/// A file's Python: its text, or a notebook's code cells as one module, with the notebook.
pub(crate) fn read_module(path: &Path) -> Result<(String, Option<Notebook>), String> {
    let text = read_source(path)?;
    if !notebook::is_notebook(path) {
        return Ok((text, None));
    }
    let nb = Notebook::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((nb.source().to_owned(), Some(nb)))
}

fn read_source(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    let limit = if notebook::is_notebook(path) {
        MAX_NOTEBOOK_BYTES
    } else {
        MAX_FILE_BYTES
    };
    if meta.len() > limit {
        return Err(format!(
            "{shown}: {} is too large to check (the limit is {})",
            host::format_bytes(meta.len()),
            host::format_bytes(limit)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("{shown}: not valid UTF-8 (at byte {at}); skipped")
    })
}

/// The paths named, and the folders that bound where absolute imports are looked up and
/// callers are searched: for each path, the nearest folder at or above it that marks a
/// project, so that `dldoctor loaders src/data/factory.py` (or `check train.py` run from
/// `tools/`) sees the callers `check .` at the top sees; else a folder named itself. A file
/// named by itself outside any project has its imports looked up from its folder and every
/// enclosing one, as running it from any of them could import them. A relative path is
/// named from its project's folder as the index lists that folder's files (`./train.py`,
/// `../tools/train.py`); output shows it as the current folder names it.
fn project_roots(named: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut paths = Vec::with_capacity(named.len());
    let mut roots: Vec<PathBuf> = Vec::new();
    for path in named {
        let is_dir = path.is_dir();
        let start = if is_dir {
            Some(path.as_path())
        } else {
            path.parent()
        };
        let (path, root) = match start.and_then(marked_folder) {
            // The current folder, reached from a relative path that does not spell it.
            Some(Marked::Here(dir)) if dir.as_os_str().is_empty() => {
                let root = PathBuf::from(".");
                (root.join(&path), Some(root))
            }
            Some(Marked::Here(dir)) => (path.clone(), Some(dir)),
            // `../..`, then the current folder's path below it.
            Some(Marked::Above { up, below }) => (up.join(below).join(&path), Some(up)),
            None => (path.clone(), is_dir.then(|| path.clone())),
        };
        if let Some(root) = root
            && !roots.contains(&root)
        {
            roots.push(root);
        }
        paths.push(path);
    }
    (paths, roots)
}

/// Where the folder marking a path's project is.
enum Marked {
    /// At or above the path, as the path spells its folders (`""` for the current folder).
    Here(PathBuf),
    /// Above the current folder (for a relative path inside it): `up` climbs to it (`..`,
    /// `../..`), and `below` is the current folder's path under it (`tools`).
    Above { up: PathBuf, below: PathBuf },
}

/// The nearest folder at or above `start` (a folder) with one of [`PROJECT_MARKERS`]. The home
/// folder and the filesystem's root do not count: a `.git` there keeps dotfiles, and taking
/// it for the project would search every file below it.
fn marked_folder(start: &Path) -> Option<Marked> {
    let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
    let marked = |dir: &Path| is_project_folder(dir, home.as_deref());
    if let Some(dir) = start.ancestors().find(|dir| marked(dir)) {
        return Some(Marked::Here(dir.to_path_buf()));
    }
    // A relative path that stays inside the current folder: on above it.
    if start.is_absolute() || start.components().any(|c| c == Component::ParentDir) {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let mut up = PathBuf::from("..");
    for dir in cwd.ancestors().skip(1) {
        if marked(dir) {
            let below = cwd.strip_prefix(dir).ok()?.to_path_buf();
            return Some(Marked::Above { up, below });
        }
        up.push("..");
    }
    None
}

/// Whether `dir` (`""` for the current folder) holds one of [`PROJECT_MARKERS`] and is neither
/// the home folder nor the filesystem's root.
fn is_project_folder(dir: &Path, home: Option<&Path>) -> bool {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    PROJECT_MARKERS.iter().any(|m| dir.join(m).exists())
        && std::fs::canonicalize(dir)
            .is_ok_and(|dir| dir.parent().is_some() && Some(dir.as_path()) != home)
}

/// What checking one file gave.
enum Outcome {
    Checked {
        /// The final text (after fixes).
        source: String,
        diagnostics: Vec<Diagnostic>,
        /// Titles of the fixes applied, in order.
        applied: Vec<(dldoctor::codes::Code, String)>,
        /// A notebook's cells in `source`.
        cells: Option<CellMap>,
        /// User query files (`extend-queries`) that could not be used; the built-in
        /// catalogue was used without them.
        query_errors: Vec<String>,
    },
    Skipped(Vec<String>),
    Failed(String),
}

impl Outcome {
    /// A file with nothing to print keeps no text while it waits for its turn to be reported
    /// (files after one left for a later round of [`analyse_all`] wait until that round).
    fn lightened(self) -> Self {
        match self {
            Outcome::Checked {
                diagnostics,
                applied,
                query_errors,
                ..
            } if diagnostics.is_empty() => Outcome::Checked {
                source: String::new(),
                diagnostics,
                applied,
                cells: None,
                query_errors,
            },
            outcome => outcome,
        }
    }
}

fn cannot_write(path: &Path, err: impl std::fmt::Display) -> Outcome {
    Outcome::Failed(format!(
        "{}: cannot write the fixed file: {err}",
        path.display()
    ))
}

/// Checks one file if it passes `gate`: the outcome, and the loader subclasses it defines
/// that the catalogue's byte test does not know (for the next round of [`analyse_all`]).
fn check_file(path: &Path, gate: Gate, job: &Job) -> (Outcome, Vec<String>) {
    let (source, notebook) = match read_module(path) {
        Ok(read) => read,
        Err(message) => return (Outcome::Failed(message), Vec::new()),
    };
    let settings = match job.resolver.settings_for(path) {
        Ok(settings) => settings,
        Err(err) => return (Outcome::Failed(err.to_string()), Vec::new()),
    };
    let query_errors: Vec<String> = settings
        .catalogue_errors()
        .iter()
        .map(ToString::to_string)
        .collect();
    let bytes = source.as_bytes();
    let catalogue = settings.catalogue();
    let passes = match gate {
        Gate::Named => true,
        Gate::Catalogue => analyze::may_have_findings(bytes, catalogue),
        Gate::Words(words) => words.found_in(bytes),
    };
    if !passes {
        return (Outcome::Skipped(query_errors), Vec::new());
    }
    let none = Words::new(HashSet::new());
    let known = match gate {
        Gate::Words(words) => words,
        _ => &none,
    };
    let words = catalogue.loader_subclass_words(bytes, known);
    let outcome = analyse_file(path, (source, notebook), &settings, query_errors, job);
    (outcome, words)
}

/// Analyses (and with `--fix`, fixes) one file that passed its gate.
fn analyse_file(
    path: &Path,
    (source, notebook): (String, Option<Notebook>),
    settings: &dldoctor::config::Settings,
    query_errors: Vec<String>,
    job: &Job,
) -> Outcome {
    let Job {
        host, index, mode, ..
    } = *job;
    let ctx = Context {
        settings,
        host,
        index,
    };
    let diagnostics = analyze::analyze(&source, path, &ctx);
    let reanalyse = |text: &str| analyze::analyze(text, path, &ctx);
    match &notebook {
        None if mode.enabled => {
            let fixed = fix::fix_all(&source, diagnostics, mode.unsafe_fixes, reanalyse);
            if fixed.document != source
                && let Err(err) = write_atomically(path, &fixed.document)
            {
                return cannot_write(path, err);
            }
            Outcome::Checked {
                source: fixed.document,
                diagnostics: fixed.diagnostics,
                applied: fixed.applied,
                cells: None,
                query_errors,
            }
        }
        None => Outcome::Checked {
            source,
            diagnostics,
            applied: Vec::new(),
            cells: None,
            query_errors,
        },
        Some(original) => {
            let fixed = if mode.enabled {
                match fix::fix_document(original.clone(), diagnostics, mode.unsafe_fixes, reanalyse)
                {
                    Ok(fixed) => fixed,
                    Err(err) => return Outcome::Failed(format!("{}: {err}", path.display())),
                }
            } else {
                fix::Fixed {
                    document: original.clone(),
                    diagnostics,
                    applied: Vec::new(),
                }
            };
            let nb = fixed.document;
            if nb.json() != original.json()
                && let Err(err) = write_atomically(path, nb.json())
            {
                return cannot_write(path, err);
            }
            let mut diagnostics = fixed.diagnostics;
            notebook::relabel_lines(&mut diagnostics, nb.source(), nb.cell_map());
            Outcome::Checked {
                source: nb.source().to_owned(),
                diagnostics,
                applied: fixed.applied,
                cells: Some(nb.cell_map().clone()),
                query_errors,
            }
        }
    }
}

/// Writes `text` to a temporary file beside `path`, with `path`'s permissions, then renames it
/// over `path`, so a crash never leaves half a file.
fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.dldoctor-{}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn report(
    path: &Path,
    outcome: Outcome,
    emitter: &mut dyn Emitter,
    out: &mut dyn Write,
    summary: &mut Summary,
    errors: &mut Errors,
    mode: FixMode,
) -> io::Result<()> {
    let (source, diagnostics, applied, cells) = match outcome {
        Outcome::Checked {
            source,
            diagnostics,
            applied,
            cells,
            query_errors,
        } => {
            for e in query_errors {
                errors.report(e);
            }
            (source, diagnostics, applied, cells)
        }
        Outcome::Skipped(query_errors) => {
            for e in query_errors {
                errors.report(e);
            }
            return Ok(());
        }
        Outcome::Failed(message) => {
            errors.report(message);
            return Ok(());
        }
    };
    for (code, title) in &applied {
        eprintln!("{}: fixed {code}: {title}", output::display_path(path));
    }
    summary.fixed += applied.len();
    summary.remaining += diagnostics.len();
    for d in &diagnostics {
        if fix::applicable_fix(d, false).is_some() {
            summary.fixable += 1;
        } else if !mode.unsafe_fixes && fix::applicable_fix(d, true).is_some() {
            summary.unsafe_fixable += 1;
        }
    }
    if diagnostics.is_empty() {
        return Ok(());
    }
    let index = LineIndex::new(&source);
    emitter.file(
        out,
        &FileReport {
            path,
            source: &source,
            index: &index,
            diagnostics: &diagnostics,
            cells: cells.as_ref(),
        },
    )
}

/// Colour on a terminal unless NO_COLOR is set (https://no-color.org); FORCE_COLOR forces it.
fn use_color() -> bool {
    let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("NO_COLOR") {
        return false;
    }
    set("FORCE_COLOR") || io::stdout().is_terminal()
}

/// "Checked 120/4000 files" on stderr, for runs long enough to wonder about, on a terminal only.
struct Progress {
    total: usize,
    started: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        Self {
            total,
            started: Instant::now(),
            shown: false,
            enabled: io::stderr().is_terminal(),
        }
    }

    fn tick(&mut self, done: usize) {
        if self.enabled && self.started.elapsed() > Duration::from_millis(500) && done < self.total
        {
            eprint!("\rChecked {done}/{} files", self.total);
            self.shown = true;
        }
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}
