//! `dldoctor check`: find the Python files, analyse them in parallel, print the results in path
//! order as they complete (text, github) or as one document at the end (json, sarif), and
//! optionally apply fixes.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use rayon::prelude::*;
use tree_sitter::Tree;

use dldoctor::analyze::{self, Context};
use dldoctor::config::{ConfigResolver, Overrides};
use dldoctor::diagnostic::Diagnostic;
use dldoctor::fix;
use dldoctor::host::{self, HostFacts};
use dldoctor::output::{self, Emitter, FileReport, Summary};
use dldoctor::python::{
    self,
    catalogue::Catalogue,
    index::{FileSummary, ProjectIndex},
};
use dldoctor::text::LineIndex;

use crate::CheckFormat;

/// Files larger than this are skipped with a message: no training script is this big, and a
/// generated file of this size would stall the run.
const MAX_FILE_BYTES: u64 = 16 << 20;

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
    let (loaded, index) = load_project(&args.paths, &mut errors);

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
    let mut progress = Progress::new(loaded.len());

    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    let write_result = std::thread::scope(|scope| -> io::Result<()> {
        let (loaded, resolver, host, index) = (&loaded, &resolver, &host, &index);
        scope.spawn(move || {
            loaded
                .par_iter()
                .enumerate()
                .for_each_with(tx, |tx, (i, file)| {
                    let _ = tx.send((i, check_file(file, resolver, host, index, mode)));
                });
        });
        // Ordered reassembly: results arrive in any order, files are printed in path order.
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, outcome) in rx {
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&next) {
                progress.clear();
                report(
                    &loaded[next],
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

/// The files under `paths` (default `.`), read and parsed where they may matter, and the
/// project index built from them.
pub(crate) fn load_project(paths: &[PathBuf], errors: &mut Errors) -> (Vec<Loaded>, ProjectIndex) {
    let roots = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let files = discover(&roots, errors);
    let loaded: Vec<Loaded> = files.par_iter().map(|p| load(p)).collect();
    let index = build_index(&loaded);
    (loaded, index)
}

/// The paths to check: files named directly (whatever their extension), and the `.py` files
/// under directories, honouring .gitignore, .ignore and hidden-file rules. Sorted, deduplicated.
fn discover(roots: &[PathBuf], errors: &mut Errors) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_file() => files.push(root.clone()),
            Ok(_) => {
                for entry in ignore::WalkBuilder::new(root).require_git(false).build() {
                    match entry {
                        Ok(entry) => {
                            let is_file = entry.file_type().is_some_and(|t| t.is_file());
                            let is_python = entry.path().extension().is_some_and(|ext| ext == "py");
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
    files
}

/// A file read from disk, or why it could not be.
pub(crate) struct Loaded {
    pub(crate) path: PathBuf,
    pub(crate) source: Result<String, String>,
    /// The parse of `source`, shared by the index and the analysis; `None` when neither needs
    /// the file.
    pub(crate) tree: Option<Tree>,
}

fn load(path: &Path) -> Loaded {
    let source = read_source(path);
    let tree = match &source {
        Ok(text)
            if analyze::may_have_findings(text.as_bytes(), Catalogue::builtin_ref())
                || may_feed_index(text) =>
        {
            python::parse(text, None)
        }
        _ => None,
    };
    Loaded {
        path: path.to_owned(),
        source,
        tree,
    }
}

fn read_source(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{shown}: {} is too large to check (the limit is {})",
            host::format_bytes(meta.len()),
            host::format_bytes(MAX_FILE_BYTES)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("{shown}: not valid UTF-8 (at byte {at}); skipped")
    })
}

/// The cross-file index: dataset classes and functions of the checked files, so a loader in
/// one file sees the Dataset defined in another. The index records worker-side CUDA facts, and
/// a file can only contribute one if it names CUDA, a CUDA-capable library or NCCL somewhere;
/// other files are not parsed for it (a class missing from the index and a class with no
/// facts keep every rule equally quiet).
fn build_index(files: &[Loaded]) -> ProjectIndex {
    let mut index = ProjectIndex::new();
    // A single file finds its own definitions without the index.
    if files.len() < 2 {
        return index;
    }
    let summaries: Vec<(&Path, FileSummary)> = files
        .par_iter()
        .filter_map(|file| match (&file.source, &file.tree) {
            (Ok(source), Some(tree)) if may_feed_index(source) => Some((
                file.path.as_path(),
                FileSummary::of(&file.path, source, tree),
            )),
            _ => None,
        })
        .collect();
    for (path, summary) in summaries {
        index.insert(path, summary);
    }
    index
}

/// Only a file that mentions CUDA can hold worker-side facts another file would look up, and
/// only one that names a loader can define a loader class.
fn may_feed_index(source: &str) -> bool {
    const NEEDLES: [&[u8]; 6] = [b"cuda", b"cupy", b"dali", b"nccl", b"device_ids", b"Loader"];
    NEEDLES
        .iter()
        .any(|n| memchr::memmem::find(source.as_bytes(), n).is_some())
}

/// What checking one file gave.
enum Outcome {
    Checked {
        /// The final text (after fixes).
        source: String,
        diagnostics: Vec<Diagnostic>,
        /// Titles of the fixes applied, in order.
        applied: Vec<(dldoctor::rules::Code, String)>,
        /// User query files (`extend-queries`) that could not be used; the built-in
        /// catalogue was used without them.
        query_errors: Vec<String>,
    },
    Skipped(Vec<String>),
    Failed(String),
}

fn check_file(
    file: &Loaded,
    resolver: &ConfigResolver,
    host: &HostFacts,
    index: &ProjectIndex,
    mode: FixMode,
) -> Outcome {
    let source = match &file.source {
        Ok(source) => source,
        Err(message) => return Outcome::Failed(message.clone()),
    };
    let settings = match resolver.settings_for(&file.path) {
        Ok(settings) => settings,
        Err(err) => return Outcome::Failed(err.to_string()),
    };
    let query_errors: Vec<String> = settings
        .catalogue_errors()
        .iter()
        .map(ToString::to_string)
        .collect();
    if !analyze::may_have_findings(source.as_bytes(), settings.catalogue()) {
        return Outcome::Skipped(query_errors);
    }
    let ctx = Context {
        settings: &settings,
        host,
        index,
    };
    let diagnostics = match &file.tree {
        Some(tree) => analyze::analyze_tree(source, tree, &file.path, &ctx),
        None => analyze::analyze(source, &file.path, &ctx),
    };
    if !mode.enabled {
        return Outcome::Checked {
            source: source.clone(),
            diagnostics,
            applied: Vec::new(),
            query_errors,
        };
    }
    let fixed = fix::fix_all(source, diagnostics, mode.unsafe_fixes, |text| {
        analyze::analyze(text, &file.path, &ctx)
    });
    if fixed.text != *source
        && let Err(err) = write_atomically(&file.path, &fixed.text)
    {
        return Outcome::Failed(format!(
            "{}: cannot write the fixed file: {err}",
            file.path.display()
        ));
    }
    Outcome::Checked {
        source: fixed.text,
        diagnostics: fixed.diagnostics,
        applied: fixed.applied,
        query_errors,
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
    file: &Loaded,
    outcome: Outcome,
    emitter: &mut dyn Emitter,
    out: &mut dyn Write,
    summary: &mut Summary,
    errors: &mut Errors,
    mode: FixMode,
) -> io::Result<()> {
    let (source, diagnostics, applied) = match outcome {
        Outcome::Checked {
            source,
            diagnostics,
            applied,
            query_errors,
        } => {
            for e in query_errors {
                errors.report(e);
            }
            (source, diagnostics, applied)
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
        eprintln!(
            "{}: fixed {code}: {title}",
            output::display_path(&file.path)
        );
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
            path: &file.path,
            source: &source,
            index: &index,
            diagnostics: &diagnostics,
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
