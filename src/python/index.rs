//! What other files of the project define (dataset classes, functions), so a DataLoader in one
//! file can see the Dataset defined in another, resolved on demand.
//!
//! Nothing is read up front. When a rule asks what a name imported into a file is
//! ([`ProjectIndex::definition`]), the import is followed to a file of the project: relative
//! imports from the importing file's folder, absolute ones (`pkg.data`) from its folder and
//! each enclosing folder up to the project root that holds it. That file alone is parsed,
//! summarised and the tree dropped; summaries are memoised per file and shared by every thread.
//! A name a package only re-exports (`from .data import X` in `pkg/__init__.py`) is followed on
//! to the file that defines it.
//!
//! The summaries keep, for each module-level class, the worker-side facts of its dataset
//! methods, and for each module-level function the facts of its body and the attributes it
//! assigns on its parameters (`args.workers = ...`).
//!
//! The other way round, the callers of a function: a namespace that reaches a helper as its
//! parameter (`get_loader(args)` in `utils/data.py`) has the values the callers give it. They
//! are found without parsing the project: the files under the folder the helper's package
//! sits in ([`ProjectIndex::namespace_passed`]), listed once, are searched for the bytes of the
//! function's name and of its module's; only those that have both are parsed, and only calls
//! that resolve through their imports to the helper count. The answer is memoised until one of
//! those files changes.
//!
//! Likewise, the calls of a module-level class or function in the project's other files
//! ([`ProjectIndex::constructions_elsewhere`]): the Python files under the project root that
//! holds its file (its folder when no root does) are searched for the bytes of its name, and
//! only those that have them are parsed (and modelled, to read what each call passes).
//! Memoised until a file that mentions the name changes.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};

use tree_sitter::{Node, Tree};

use crate::python::analysis::Analysis;
use crate::python::argparse::{
    self, External, KeptParameter, NamespaceTable, ParamWrite, ParserOptions,
};
use crate::python::catalogue::Catalogue;
use crate::python::configs::{self, Merger, PassedConfig, YamlLoader};
use crate::python::defaults;
use crate::python::distributed;
use crate::python::model::{BindingKind, CallSite, FunctionId, MODULE_SCOPE, Module};
use crate::python::subclass::{self, ClassShape};
use crate::python::values::{Provenance, Resolved, Via};
use crate::python::workers::{self, Facts};
use crate::python::{fs, scripts, syntax, transforms};

/// Files larger than this are generated or data, not code a Dataset is defined in.
const MAX_FILE_BYTES: u64 = 4 << 20;
/// How many re-exports (`from .data import X` in a package's `__init__.py`) are followed.
const MAX_REEXPORTS: u8 = 8;
/// How many helpers deep the callers of callers are followed (`main.py` → `train.py` →
/// `data.py`).
const MAX_CALLER_HOPS: usize = 3;
/// Files that mention a helper's name beyond this many are not parsed for its callers: the
/// name is too common to say anything (the values stay unknown).
const MAX_CALLER_FILES: usize = 64;

/// How many files deep the functions that fill a parser are followed (`parse_args_knn()` in
/// `args/knn.py` handing its parser to `dataset_args(parser)` of `args/dataset.py`).
const MAX_FILLER_HOPS: usize = 4;

thread_local! {
    /// How many fillers deep this thread is (see [`MAX_FILLER_HOPS`]).
    static FILLING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The callers being looked for on this thread, so a cycle of helpers ends.
    static SEEKING: RefCell<Vec<(PathBuf, External)>> = const { RefCell::new(Vec::new()) };
}
/// A project with more Python files than this is not searched for constructions (they stay
/// unknown).
const MAX_SEARCHED_FILES: usize = 5000;

/// How many YAML files of a folder are read as the config files a project ships.
const MAX_CONFIG_FILES: usize = 500;

/// The words of a project's shipped config files ([`ProjectIndex::shipped_words`]).
pub(crate) type ShippedWords = Arc<Option<HashSet<String>>>;

/// Reads a project file's text: from disk, or an editor's copy of an open file. `None` when
/// the file cannot be read as text.
pub type Reader = dyn Fn(&Path) -> Option<String> + Send + Sync;

/// Definitions across the project's files, summarised the first time they are asked for.
/// Shared by threads: lookups take `&self`.
#[derive(Default)]
pub struct ProjectIndex {
    /// The project's root folders: absolute imports are looked up from the importing file's
    /// folder up to the root that holds it.
    roots: RwLock<Vec<PathBuf>>,
    /// `None`: only files given with [`ProjectIndex::add_file`] exist.
    reader: Option<Arc<Reader>>,
    /// One slot per file asked for, filled once by the first thread that needs it (the others
    /// wait for it rather than parse the same file again).
    files: Mutex<HashMap<PathBuf, Arc<Slot>>>,
    /// What the callers of a helper pass it, by helper file and parameter.
    passed: Mutex<HashMap<(PathBuf, External), Passed>>,
    /// The files [`ProjectIndex::passed`] was made from: a change to one forgets it.
    caller_files: Mutex<HashSet<PathBuf>>,
    /// The YAML config the callers of a helper pass it, by helper file and parameter. Kept
    /// for one analysis of the files: any change forgets it (a config file may have changed).
    configs_passed: Mutex<HashMap<(PathBuf, External), ConfigPassed>>,
    /// Whether every caller in other files passes a helper's parameter a count of processes
    /// ([`ProjectIndex::process_count_passed`]).
    process_counts: Mutex<HashMap<(PathBuf, External), bool>>,
    /// [`ProjectIndex::cuda_device_passed`], by helper file and parameter.
    cuda_devices: Mutex<HashMap<(PathBuf, External), Option<crate::python::cuda::Cudaness>>>,
    /// The Python files under a folder callers are searched in, listed once.
    listings: Mutex<HashMap<PathBuf, Arc<Vec<PathBuf>>>>,
    /// The files that may call a name of a helper file ([`ProjectIndex::caller_candidates`]),
    /// by helper and name: the methods of one class share the search. Forgotten with
    /// [`ProjectIndex::passed`].
    naming: Mutex<HashMap<(PathBuf, String), Naming>>,
    /// The YAML files under a folder, listed once ([`ProjectIndex::config_files`]).
    config_listings: Mutex<HashMap<PathBuf, Arc<Vec<PathBuf>>>>,
    /// The words of the config files a project ships under a folder, by folder and whether
    /// Python config files count ([`ProjectIndex::shipped_words`]).
    shipped_words: Mutex<HashMap<(PathBuf, bool), ShippedWords>>,
    /// The folders outside any package that hold a top-level module, by the module's name,
    /// for each root ([`ProjectIndex::script_folder_module`]).
    script_modules: Mutex<HashMap<PathBuf, Arc<ScriptModules>>>,
    /// The runs of the project's Python files by its shell scripts, for each root
    /// ([`ProjectIndex::script_runs`]).
    script_runs: Mutex<HashMap<PathBuf, Arc<ScriptRuns>>>,
    /// Whether a file of the project may write a key of a module-level config, by the
    /// config's file and the key ([`ProjectIndex::may_write_shared`]).
    shared_writes: Mutex<HashMap<SharedWriteKey, bool>>,
    /// Whether a file of the project may change a module-level name of another, by that
    /// file and the name ([`ProjectIndex::may_write_constant`]).
    constant_writes: Mutex<HashMap<(PathBuf, String), bool>>,
    /// Whether another file of the project may write an attribute of a class's instances, by
    /// the class's file and name and the attribute ([`ProjectIndex::may_write_instances`]).
    instance_writes: Mutex<HashMap<(PathBuf, String, String), bool>>,
    /// Whether a file of the project calls, where the call may run, a method of a
    /// module-level config's class that sets its attributes by computed name, by the config's
    /// file and name ([`ProjectIndex::may_call_writer`]).
    writer_calls: Mutex<HashMap<(PathBuf, String), WriterCalled>>,
    /// The bases in the header of a module-level class, by file and class
    /// ([`header_bases`]): a file not summarised is asked again for each name imported from
    /// it. Forgotten when the file changes.
    headers: Mutex<HashMap<(PathBuf, String), HeaderBases>>,
    /// The constructions of a class in other files, by the class's file and name.
    constructions: Mutex<HashMap<(PathBuf, String), Constructions>>,
    /// Where imports lead ([`ProjectIndex::module_file`]), by importing folder, level and
    /// dotted module: every call of an imported name asks, and each answer costs a few
    /// `stat`s per enclosing folder. Forgotten when files are added, change or go away.
    modules: Mutex<ModuleFiles>,
}

/// [`ProjectIndex::may_write_shared`]'s question: the config's file, the key, whether its own
/// file's writes are modelled, and the file asking.
type SharedWriteKey = (PathBuf, String, bool, Option<PathBuf>);

/// What [`ProjectIndex::may_call_writer`] found, by the config's file and name.
type WriterCalled = Option<Arc<WriterCall>>;

/// A call of a method that sets a module-level config's attributes by computed name
/// ([`ProjectIndex::may_call_writer`]).
#[derive(Debug)]
pub(crate) struct WriterCall {
    pub file: PathBuf,
    pub line: u32,
    /// The call as written, in backticks.
    pub call: String,
}

/// The memo of [`ProjectIndex::module_file`], with a generation that each forgetting bumps, so
/// an answer found while files changed is not kept.
#[derive(Default)]
struct ModuleFiles {
    generation: u64,
    found: HashMap<(PathBuf, usize, String), Option<PathBuf>>,
    /// Whether a candidate path is a file on disk.
    files: HashMap<PathBuf, bool>,
    /// [`ProjectIndex::module_with_one_part`], by importing folder and pattern.
    patterns: HashMap<(PathBuf, String), Option<String>>,
}

/// Given the text of a file not yet summarised and a name, whether the file is worth parsing
/// for what is asked of the name.
type TextGate<'g> = dyn Fn(&Path, &str, &str) -> bool + 'g;

/// Python file → the commands of the project's shell scripts that run it.
type ScriptRuns = HashMap<PathBuf, Vec<scripts::Run>>;

/// Top-level module name → the folders outside any package that hold it (as `name.py` or a
/// folder `name/`).
type ScriptModules = HashMap<String, Vec<PathBuf>>;

/// The bases a class header names ([`header_bases`]); `None` when the header is not plain.
type HeaderBases = Option<Arc<Vec<String>>>;

/// The constructions found of a class; `None` when they cannot all be read.
type Constructions = Option<Arc<Vec<Construction>>>;

/// What one call of a class in another file passes: the keywords, how many positional
/// arguments. A call with `*args` or `**kwargs`, or a use of the class the search does not
/// read (a subclass, the class handed on as a value), makes the whole answer unknown.
#[derive(Debug, Clone, PartialEq)]
pub struct Construction {
    pub keywords: Vec<String>,
    pub positional: usize,
    /// The value of each keyword, then of each positional argument, where it is the default
    /// of a command-line option of that file (recorded as handed on by this call); `None`
    /// for anything else.
    pub values: Vec<Option<Resolved>>,
    /// The call is in a test file (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`): what it
    /// passes says nothing of what a run of the program gives.
    pub in_tests: bool,
    /// A command line runs it (`Fire({'train': train})`): the required parameters come from
    /// the command line, the others keep their defaults.
    pub command_line: bool,
}

impl Construction {
    /// The value passed by `keyword`, or as the positional argument `position` (0-based).
    pub fn value(&self, keyword: &str, position: Option<usize>) -> Option<&Resolved> {
        let index = match self.keywords.iter().position(|k| k == keyword) {
            Some(i) => i,
            None => self.keywords.len() + position.filter(|p| *p < self.positional)?,
        };
        self.values.get(index)?.as_ref()
    }
}

/// How many bases up [`ProjectIndex::constructor_writes`] follows a constructor's writes.
const MAX_BASE_HOPS: u8 = 4;

/// Files that mark a project's top folder.
pub const PROJECT_MARKERS: [&str; 4] = ["pyproject.toml", "setup.py", "setup.cfg", ".git"];

thread_local! {
    /// The constructions being looked for on this thread: a caller's value that asks for
    /// them again ends there.
    static CONSTRUCTING: RefCell<Vec<(PathBuf, String)>> = const { RefCell::new(Vec::new()) };
}

/// What the callers of a helper pass it, once looked for; `Err` when unknown, with the call
/// that passes something unknown when one does.
type Passed = Result<Arc<NamespaceTable>, Option<Arc<str>>>;

/// What [`ProjectIndex::config_passed`] found.
type ConfigPassed = Option<Arc<PassedConfig>>;

/// A file's summary once made; `None` inside when the file could not be read or parsed.
type Slot = OnceLock<Option<Arc<Entry>>>;

/// What the index keeps of one file: the worker-side facts of its module-level classes and
/// functions.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FileSummary {
    classes: HashMap<String, Facts>,
    functions: HashMap<String, Facts>,
    /// The bases and `__init__` of each module-level class with a base (a project loader
    /// class is found through them).
    shapes: HashMap<String, ClassShape>,
    /// The attributes each module-level function assigns on its parameters.
    param_writes: HashMap<String, Vec<ParamWrite>>,
    /// The same for the methods of module-level classes, keyed `Class.method`, positions
    /// among a call's arguments (`self` not counted).
    method_param_writes: HashMap<String, Vec<ParamWrite>>,
    /// The functions (and `Class.method`s) that return the argument at this position as
    /// it was given ([`argparse::returned_argument`]).
    arguments_returned: HashMap<String, usize>,
    /// The argparse parser each module-level function returns, if it does.
    parsers_returned: HashMap<String, Arc<ParserOptions>>,
    /// What each module-level function adds to the parsers it is given, by position.
    parsers_filled: HashMap<String, Vec<(usize, Arc<ParserOptions>)>>,
    /// The module-level functions that return the parser given at a position, as given.
    parsers_passed_through: HashMap<String, usize>,
    /// The parser whose parsed command line a method or function returns, by `Class.method`
    /// or the function's name.
    namespaces_returned: HashMap<String, Arc<ParserOptions>>,
    /// The parser whose parsed command line a module-level name holds, by the name
    /// ([`argparse::module_namespace`]).
    namespaces_bound: HashMap<String, Arc<ParserOptions>>,
    /// The parser a module-level name holds, by the name ([`argparse::module_parser`]).
    parsers_bound: HashMap<String, Arc<ParserOptions>>,
    /// The constructor parameter each module-level class keeps as an attribute of `self`,
    /// by `Class.attribute` (`self.args = args`).
    kept: HashMap<String, KeptParameter>,
    /// The module-level functions that answer the world size, 1 without `torch.distributed`
    /// initialised (see [`distributed`]).
    world_size: HashSet<String>,
    /// How many views of one input each module-level transform class returns
    /// ([`transforms::copies`]).
    copies: HashMap<String, usize>,
    /// The module-level functions that only merge what a caller gives into the config they
    /// are handed ([`configs::merger`]).
    mergers: HashMap<String, Merger>,
    /// The module-level functions that return the YAML document of a file opened from a
    /// parameter ([`configs::YamlLoader`]).
    yaml_loaders: HashMap<String, YamlLoader>,
    /// The module-level record classes (dataclasses, `NamedTuple`s), by name.
    records: HashMap<String, Arc<configs::Record>>,
}

impl FileSummary {
    /// What the function `id` (keyed `key`: its name, or `Class.method`) does with the
    /// parsers it is given or returns, for other files that call it.
    fn parser_helper(&mut self, module: &Module, key: String, id: FunctionId) {
        if let Some(position) = argparse::returned_parameter(module, id) {
            self.parsers_passed_through.insert(key.clone(), position);
        } else if let Some(parser) = argparse::returned_parser(module, id) {
            self.parsers_returned.insert(key.clone(), Arc::new(parser));
        }
        let filled = argparse::filled_parameters(module, id);
        if !filled.is_empty() {
            let filled = filled.into_iter().map(|(p, o)| (p, Arc::new(o))).collect();
            self.parsers_filled.insert(key, filled);
        }
    }

    /// Summarises a parsed file. Independent of other files, so files can be summarised in
    /// parallel.
    pub fn of(path: &Path, source: &str, tree: &Tree) -> FileSummary {
        // Another file's own imports do not reach further files: its summary is local to it.
        let no_index = ProjectIndex::default();
        let module =
            Module::build_definitions(source, tree, path, &no_index, Catalogue::builtin_ref());
        let scope = Analysis::new(&module);
        let mut summary = FileSummary::default();
        // The attributes of `self` some method assigns: the ones a class may keep.
        let mut self_attributes: Vec<&str> = module
            .attribute_assignments()
            .iter()
            .filter(|w| w.object == Some("self") && w.value.is_some())
            .map(|w| w.attribute)
            .collect();
        self_attributes.sort_unstable();
        self_attributes.dedup();
        let writes = argparse::Writes::of(&module);
        let loads_yaml = memchr::memmem::find(source.as_bytes(), b"yaml").is_some();
        for (name, binding) in module
            .bindings()
            .iter()
            .filter(|b| b.scope == MODULE_SCOPE)
            .map(|b| (b.name, &b.kind))
        {
            if let BindingKind::Class(id) = binding {
                for attribute in &self_attributes {
                    if let Some(kept) = writes.kept(&module, *id, attribute, true) {
                        summary.kept.insert(format!("{name}.{attribute}"), kept);
                    }
                }
            }
            if let BindingKind::Class(id) = binding
                && let Some(class) = module.class(*id)
            {
                for method in &class.methods {
                    let Some(def) = module.function(*method) else {
                        continue;
                    };
                    let key = format!("{name}.{}", def.name);
                    // An instance method: a call binds `self`.
                    if argparse::binds_first(&module, *method).is_none() {
                        let mut writes: Vec<ParamWrite> =
                            argparse::parameter_writes(&module, *method)
                                .into_iter()
                                .filter_map(|mut w| {
                                    w.position = w.position.checked_sub(1)?;
                                    Some(w)
                                })
                                .collect();
                        // `self.args.device = ...` after `self.args = args`: a write of `args`.
                        if def.name == "__init__" {
                            writes.extend(argparse::constructor_writes(&module, *id));
                        }
                        if !writes.is_empty() {
                            summary.method_param_writes.insert(key.clone(), writes);
                        }
                        if let Some(position) = argparse::returned_argument(&module, *method) {
                            summary.arguments_returned.insert(key.clone(), position);
                        }
                    }
                    if let Some(parser) = argparse::returned_namespace(&module, *method, false) {
                        summary
                            .namespaces_returned
                            .insert(key.clone(), Arc::new(parser));
                    }
                    // `Model.add_model_specific_args(parser)`: a static or class method that
                    // fills or returns a parser, as a module-level function does.
                    if argparse::binds_first(&module, *method).is_some() {
                        summary.parser_helper(&module, key, *method);
                    }
                }
            }
            if let BindingKind::Class(id) = binding
                && let Some(record) = configs::record(&module, *id)
            {
                summary.records.insert(name.to_owned(), Arc::new(record));
            }
            if let BindingKind::Class(id) = binding
                && let Some(views) = transforms::copies(&module, *id)
            {
                summary.copies.insert(name.to_owned(), views);
            }
            if let BindingKind::Class(id) = binding
                && module.class(*id).is_some_and(|c| !c.bases.is_empty())
            {
                summary
                    .shapes
                    .insert(name.to_owned(), subclass::class_shape(&module, *id));
            }
            if let BindingKind::Function(id) = binding {
                let writes = argparse::parameter_writes(&module, *id);
                if !writes.is_empty() {
                    summary.param_writes.insert(name.to_owned(), writes);
                }
                summary.parser_helper(&module, name.to_owned(), *id);
                if let Some(position) = argparse::returned_argument(&module, *id) {
                    summary.arguments_returned.insert(name.to_owned(), position);
                }
                if let Some(parser) = argparse::returned_namespace(&module, *id, false) {
                    summary
                        .namespaces_returned
                        .insert(name.to_owned(), Arc::new(parser));
                } else if let Some(parser) = argparse::returned_namespace(&module, *id, true) {
                    summary
                        .namespaces_returned
                        .insert(first_item_key(name), Arc::new(parser));
                }
                if distributed::answers_world_size(&module, *id) {
                    summary.world_size.insert(name.to_owned());
                }
                if let Some(merger) = configs::merger(&module, *id) {
                    summary.mergers.insert(name.to_owned(), merger);
                }
                if loads_yaml && let Some(loader) = configs::returned_load(&module, *id) {
                    summary.yaml_loaders.insert(name.to_owned(), loader);
                }
            }
        }
        // `opt = parser.parse_args()` (or `parser = ArgumentParser()`) at the top of a module
        // other files import the name from.
        let parses = |w: &str| memchr::memmem::find(source.as_bytes(), w.as_bytes()).is_some();
        if parses("parse_args") || parses("parse_known_args") || parses("ArgumentParser") {
            for binding in module
                .bindings()
                .iter()
                .filter(|b| b.scope == MODULE_SCOPE && b.kind == BindingKind::Assign)
            {
                if let Some(options) = argparse::module_namespace(&module, binding.name) {
                    summary
                        .namespaces_bound
                        .insert(binding.name.to_owned(), Arc::new(options));
                } else if let Some(options) = argparse::module_parser(&module, binding.name) {
                    summary
                        .parsers_bound
                        .insert(binding.name.to_owned(), Arc::new(options));
                }
            }
        }
        let root = tree.root_node();
        let mut cursor = root.walk();
        for child in root
            .named_children(&mut cursor)
            .map(syntax::unwrap_decorated)
        {
            let Some(name) = child.child_by_field_name("name").map(|n| scope.text(n)) else {
                continue;
            };
            match child.kind() {
                "class_definition" => {
                    summary
                        .classes
                        .insert(name.to_owned(), workers::class_facts(&scope, child));
                }
                "function_definition" => {
                    summary
                        .functions
                        .insert(name.to_owned(), workers::function_facts(&scope, child));
                }
                _ => {}
            }
        }
        summary
    }

    /// Whether the file itself defines `name` at module level (rather than importing it).
    fn defines(&self, name: &str) -> bool {
        self.classes.contains_key(name) || self.functions.contains_key(name)
    }
}

/// A file's summary and where the names it imports come from, for following re-exports.
#[derive(Debug, PartialEq)]
struct Entry {
    summary: FileSummary,
    imports: Imports,
}

impl Entry {
    fn of(path: &Path, source: &str, tree: &Tree) -> Entry {
        Entry {
            summary: FileSummary::of(path, source, tree),
            imports: Imports::of(source, tree),
        }
    }
}

/// Where a name of a project module comes from ([`ProjectIndex::reexported`]).
enum NameOrigin {
    /// A module outside the project, by its qualified name.
    Outside(String),
    /// The project defines it.
    Own,
    /// The module does not have the name (a star import of it gives nothing).
    Absent,
    /// It cannot be told.
    Unknown,
}

/// A module-level name of another file, found by following imports.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The file that defines it.
    pub file: PathBuf,
    /// Its name in that file (an import may have renamed it).
    pub name: String,
    entry: Arc<Entry>,
}

impl Definition {
    /// The summary of the defining file.
    pub fn summary(&self) -> &FileSummary {
        &self.entry.summary
    }
}

impl std::fmt::Debug for ProjectIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectIndex")
            .field("roots", &*read(&self.roots))
            .field("reads_files", &self.reader.is_some())
            .field("summarised", &self.len())
            .finish()
    }
}

impl ProjectIndex {
    /// An index of the files given to [`ProjectIndex::add_file`] only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index that reads the project's files from disk when they are first needed.
    pub fn on_disk(roots: Vec<PathBuf>) -> Self {
        Self::with_reader(roots, Arc::new(read_file))
    }

    /// An index that reads the project's files with `reader` (the language server's reads the
    /// open documents from the editor and the rest from disk).
    pub fn with_reader(roots: Vec<PathBuf>, reader: Arc<Reader>) -> Self {
        Self {
            roots: RwLock::new(roots),
            reader: Some(reader),
            ..Self::default()
        }
    }

    /// Changes the project's roots (the editor's workspace folders changed).
    /// Whether the index reads the project's files (an index of given files only does not).
    pub fn reads_files(&self) -> bool {
        self.reader.is_some() || !self.lock().is_empty()
    }

    pub fn set_roots(&self, roots: Vec<PathBuf>) {
        *self.roots.write().unwrap_or_else(PoisonError::into_inner) = roots;
        self.forget_modules();
    }

    /// Forgets where imports lead: a file appeared, changed or went away.
    fn forget_modules(&self) {
        let mut modules = lock(&self.modules);
        modules.generation += 1;
        modules.found.clear();
        modules.files.clear();
        modules.patterns.clear();
    }

    /// Indexes (or re-indexes) one file from its text. Unparsable input leaves the file out.
    pub fn add_file(&mut self, path: &Path, source: &str) {
        lock(&self.headers).retain(|(file, _), _| file != path);
        match crate::python::parse(source, None) {
            Some(tree) => self.put(path, Entry::of(path, source, &tree)),
            None => self.remove_file(path),
        }
    }

    pub fn remove_file(&mut self, path: &Path) {
        self.invalidate(path);
    }

    /// Re-summarises a file whose text changed from its new tree, if its summary was ever
    /// asked for (otherwise nothing depends on it, and it is summarised when it is). Returns
    /// whether what the file defines changed: an edit usually leaves it as it was.
    pub fn refresh(&self, path: &Path, source: &str, tree: &Tree) -> bool {
        lock(&self.configs_passed).clear();
        lock(&self.process_counts).clear();
        lock(&self.cuda_devices).clear();
        if configs::is_shipped_config(path) {
            lock(&self.shipped_words).clear();
        }
        lock(&self.headers).retain(|(file, _), _| file != path);
        let callers = self.forget_callers_of(path, Some(source));
        let constructions = self.forget_constructions(Some(source));
        let shared = self.forget_shared_writes(Some(source));
        let Some(old) = self.summarised(path) else {
            return callers || constructions || shared;
        };
        let new = Entry::of(path, source, tree);
        if old.as_deref() == Some(&new) {
            return callers || constructions || shared;
        }
        self.put(path, new);
        true
    }

    /// Forgets a file's summary (it changed on disk, or went away); it is made again when
    /// next needed. Returns whether it had been made, i.e. whether an analysis may have used it.
    pub fn invalidate(&self, path: &Path) -> bool {
        lock(&self.configs_passed).clear();
        lock(&self.process_counts).clear();
        lock(&self.cuda_devices).clear();
        lock(&self.shipped_words).clear();
        lock(&self.headers).retain(|(file, _), _| file != path);
        let callers = self.forget_callers_of(path, None);
        let constructions = self.forget_constructions(None);
        let shared = self.forget_shared_writes(None);
        self.forget_modules();
        let used = self
            .lock()
            .remove(path)
            .is_some_and(|slot| slot.get().is_some());
        used || callers || constructions || shared
    }

    /// Forgets which shared config keys the project's files may write
    /// ([`ProjectIndex::may_write_shared`]), as any change may add or remove a write. Returns
    /// whether an analysis may have used what was forgotten: the new text (`None`: unknown,
    /// or gone) names a key that was asked about, or may write keys it does not name.
    fn forget_shared_writes(&self, text: Option<&str>) -> bool {
        let mut known = lock(&self.shared_writes);
        let names_one = known.keys().any(|(_, key, _, _)| {
            text.is_none_or(|t| t.contains(key.as_str()) || writes_unnamed(t))
        });
        known.clear();
        let mut constants = lock(&self.constant_writes);
        let names_constant = constants
            .keys()
            .any(|(_, name)| text.is_none_or(|t| t.contains(name.as_str())));
        constants.clear();
        let mut instances = lock(&self.instance_writes);
        let names_class = instances
            .keys()
            .any(|(_, class, _)| text.is_none_or(|t| t.contains(class.as_str())));
        instances.clear();
        let mut writers = lock(&self.writer_calls);
        let names_config = writers
            .keys()
            .any(|(_, name)| text.is_none_or(|t| t.contains(name.as_str())));
        writers.clear();
        names_one || names_constant || names_class || names_config
    }

    /// Forgets what callers pass to helpers, when `path` was one of the callers or, with its
    /// new text, may now be one (it names a helper). Returns whether anything was forgotten.
    fn forget_callers_of(&self, path: &Path, text: Option<&str>) -> bool {
        let was_caller = lock(&self.caller_files).contains(path);
        let mut passed = lock(&self.passed);
        let names_one = || {
            passed.keys().any(|(_, external)| {
                text.is_none_or(|t| {
                    memchr::memmem::find(t.as_bytes(), external.callee.as_bytes()).is_some()
                })
            })
        };
        if passed.is_empty() || !(was_caller || names_one()) {
            return false;
        }
        passed.clear();
        lock(&self.caller_files).clear();
        lock(&self.naming).clear();
        true
    }

    /// A config file changed, appeared or went away: what was gathered from the project's
    /// config files is gathered again.
    pub fn forget_configs(&self) {
        lock(&self.script_runs).clear();
        lock(&self.configs_passed).clear();
        lock(&self.process_counts).clear();
        lock(&self.cuda_devices).clear();
        lock(&self.config_listings).clear();
        lock(&self.shipped_words).clear();
    }

    /// Files appeared or went away: a helper may have new callers, a class new constructions,
    /// and a folder new files.
    pub fn forget_callers(&self) {
        lock(&self.configs_passed).clear();
        lock(&self.process_counts).clear();
        lock(&self.cuda_devices).clear();
        lock(&self.constructions).clear();
        lock(&self.passed).clear();
        lock(&self.caller_files).clear();
        lock(&self.naming).clear();
        lock(&self.listings).clear();
        lock(&self.config_listings).clear();
        lock(&self.shipped_words).clear();
        lock(&self.script_modules).clear();
        lock(&self.script_runs).clear();
        self.forget_shared_writes(None);
        self.forget_modules();
    }

    /// The attributes the module-level function `qualified` (as imported into `from_file`)
    /// assigns on its parameters; `None` when it is not a function of the project.
    pub fn parameter_writes(&self, from_file: &Path, qualified: &str) -> Option<Vec<ParamWrite>> {
        let def = self.definition(from_file, qualified)?;
        let summary = def.summary();
        if !summary.functions.contains_key(&def.name) {
            return None;
        }
        let writes = summary.param_writes.get(&def.name);
        Some(self.shipped_keys(&def.file, writes.cloned().unwrap_or_default()))
    }

    /// `writes` of a function of `file`, each copy of a config named at run time turned into
    /// the keys of the config files shipped beside it ([`ParamWrite::shipped`]), or into a
    /// write of any attribute when they cannot be told.
    fn shipped_keys(&self, file: &Path, writes: Vec<ParamWrite>) -> Vec<ParamWrite> {
        if writes.iter().all(|w| w.shipped.is_none()) {
            return writes;
        }
        let mut out = Vec::with_capacity(writes.len());
        for write in writes {
            let Some(python) = write.shipped else {
                out.push(write);
                continue;
            };
            let words = file
                .parent()
                .map(|folder| self.shipped_words(folder, python));
            match words.as_deref() {
                Some(Some(words)) => out.extend(words.iter().map(|word| ParamWrite {
                    attribute: word.clone(),
                    shipped: None,
                    ..write.clone()
                })),
                _ => out.push(ParamWrite {
                    shipped: None,
                    ..write
                }),
            }
        }
        out
    }

    /// The attributes the method `method` of the module-level class `class` (as imported
    /// into `from_file`) assigns on its parameters, positions among a call's arguments;
    /// `None` when the class is not one of the project.
    pub(crate) fn method_parameter_writes(
        &self,
        from_file: &Path,
        class: &str,
        method: &str,
    ) -> Option<Vec<ParamWrite>> {
        let def = self.definition(from_file, class)?;
        let key = format!("{}.{method}", def.name);
        let writes = def.summary().method_param_writes.get(&key);
        Some(self.shipped_keys(&def.file, writes.cloned().unwrap_or_default()))
    }

    /// What constructing the module-level class `qualified` (as imported into `from_file`)
    /// writes on the arguments it is given, positions among a call's arguments: its
    /// constructor's writes (`self.args.device = ...` after `self.args = args`) and, through
    /// its call of the base's constructor (or the base's own, when it has none), its bases'.
    /// `None` when `qualified` is no class of the project.
    pub(crate) fn constructor_writes(
        &self,
        from_file: &Path,
        qualified: &str,
    ) -> Option<Vec<ParamWrite>> {
        self.constructor_writes_at(from_file, qualified, 0)
    }

    fn constructor_writes_at(
        &self,
        from_file: &Path,
        qualified: &str,
        hops: u8,
    ) -> Option<Vec<ParamWrite>> {
        if hops > MAX_BASE_HOPS {
            return None;
        }
        let def = self.definition(from_file, qualified)?;
        let summary = def.summary();
        if !summary.classes.contains_key(&def.name) {
            return None;
        }
        let own = summary
            .method_param_writes
            .get(&format!("{}.__init__", def.name));
        let mut out = self.shipped_keys(&def.file, own.cloned().unwrap_or_default());
        let Some(shape) = summary.shapes.get(&def.name) else {
            return Some(out);
        };
        let [base] = shape.bases.as_slice() else {
            return Some(out);
        };
        let base = base.strip_prefix('#').unwrap_or(base);
        let inherited = self
            .constructor_writes_at(&def.file, base, hops + 1)
            .unwrap_or_default();
        match &shape.init {
            // The base's constructor, given what this class is.
            None => out.extend(inherited),
            Some(init) => {
                let Some(call) = &init.call else {
                    return Some(out);
                };
                for write in inherited {
                    let forwarded = call
                        .keywords
                        .iter()
                        .find(|(k, _)| *k == write.param)
                        .map(|(_, f)| f)
                        .or_else(|| call.positional.get(write.position));
                    if let Some(subclass::Forward::Param(name)) = forwarded
                        && let Some(position) = init.params.iter().position(|(n, _)| n == name)
                    {
                        out.push(ParamWrite {
                            position,
                            param: name.clone(),
                            attribute: write.attribute.clone(),
                            shipped: write.shipped,
                        });
                    }
                }
            }
        }
        Some(out)
    }

    /// The definition of the module-level function `qualified` in another file than
    /// `from_file`, whose text names `needle` (files that do not are not parsed for it).
    fn defined_elsewhere(
        &self,
        from_file: &Path,
        qualified: &str,
        needle: &str,
    ) -> Option<Definition> {
        let def = self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| entry.summary.defines(name),
            Some(&|_, source, _| source.contains(needle)),
        )?;
        (def.file != from_file).then_some(def)
    }

    /// What the module-level function `qualified` of another file does to a config it is
    /// handed, when that is only merges of what its caller gives ([`configs::merger`]).
    pub(crate) fn merger(&self, from_file: &Path, qualified: &str) -> Option<Merger> {
        let def = self.defined_elsewhere(from_file, qualified, "merge_from_file")?;
        def.summary().mergers.get(&def.name).cloned()
    }

    /// What the module-level function `qualified` of another file loads, when it returns the
    /// YAML document of a file opened from a parameter, with that file's path.
    pub(crate) fn yaml_loader(
        &self,
        from_file: &Path,
        qualified: &str,
    ) -> Option<(YamlLoader, PathBuf)> {
        let def = self.defined_elsewhere(from_file, qualified, "yaml")?;
        let loader = def.summary().yaml_loaders.get(&def.name).cloned()?;
        Some((loader, def.file))
    }

    /// The position of the argument the function `qualified` (or the method `method` of the
    /// class `qualified`) of another file returns as given (`opt =
    /// opts().update_dataset_info_and_set_heads(opt, Dataset)`).
    pub(crate) fn returned_argument(
        &self,
        from_file: &Path,
        qualified: &str,
        method: Option<&str>,
    ) -> Option<usize> {
        let def = self.definition(from_file, qualified)?;
        let key = match method {
            Some(method) => format!("{}.{method}", def.name),
            None => def.name.clone(),
        };
        def.summary().arguments_returned.get(&key).copied()
    }

    /// The definition of a parser helper and its key in that file's summary: a module-level
    /// function (`data.add_dataset_args`), or a static or class method of a module-level
    /// class (`models.LitModel.add_model_specific_args`).
    fn helper(&self, from_file: &Path, qualified: &str) -> Option<(Definition, String)> {
        if let Some(def) = self.definition(from_file, qualified) {
            let key = def.name.clone();
            return Some((def, key));
        }
        let (class, method) = qualified.rsplit_once('.')?;
        let def = self.definition(from_file, class)?;
        let key = format!("{}.{method}", def.name);
        Some((def, key))
    }

    /// The argparse parser the module-level function `qualified` returns (its options, each
    /// located in its file).
    pub(crate) fn returned_parser(
        &self,
        from_file: &Path,
        qualified: &str,
    ) -> Option<Arc<ParserOptions>> {
        let (def, key) = self.helper(from_file, qualified)?;
        let options = def.summary().parsers_returned.get(&key)?;
        Some(self.filled_in(&def.file, options))
    }

    /// The position of the parser the module-level function `qualified` returns as given
    /// (`parser = add_dataset_args(parser)`).
    pub(crate) fn returned_parameter(&self, from_file: &Path, qualified: &str) -> Option<usize> {
        let (def, key) = self.helper(from_file, qualified)?;
        def.summary().parsers_passed_through.get(&key).copied()
    }

    /// The constructor parameter the module-level class `qualified` keeps as
    /// `self.<attribute>` ([`argparse::kept_parameter`]).
    pub(crate) fn kept_parameter(
        &self,
        from_file: &Path,
        qualified: &str,
        attribute: &str,
    ) -> Option<KeptParameter> {
        let def = self.definition(from_file, qualified)?;
        def.summary()
            .kept
            .get(&format!("{}.{attribute}", def.name))
            .cloned()
    }

    /// The parser whose parsed command line `method` of the module-level class `qualified`
    /// returns (`MonodepthOptions().parse()`).
    pub(crate) fn returned_namespace(
        &self,
        from_file: &Path,
        qualified: &str,
        method: Option<&str>,
        first_item: bool,
    ) -> Option<Arc<ParserOptions>> {
        // Asked of every `Imported().method()` call of a file: a file that cannot hold a
        // namespace is not parsed for it.
        let def = self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| entry.summary.defines(name),
            Some(&|_, source, name| may_return_namespace(source, name)),
        )?;
        let key = match (method, first_item) {
            (Some(method), _) => format!("{}.{method}", def.name),
            (None, true) => first_item_key(&def.name),
            (None, false) => def.name.clone(),
        };
        let options = def.summary().namespaces_returned.get(&key)?;
        Some(self.filled_in(&def.file, options))
    }

    /// What the module-level name `qualified` holds: the namespace its module parses at
    /// import (`from alphapose.opt import opt`) when `namespace`, else the parser its module
    /// builds (`from opts import parser`).
    pub(crate) fn bound_at_import(
        &self,
        from_file: &Path,
        qualified: &str,
        namespace: bool,
    ) -> Option<Arc<ParserOptions>> {
        let has =
            |source: &str, w: &str| memchr::memmem::find(source.as_bytes(), w.as_bytes()).is_some();
        if namespace {
            self.bound(
                from_file,
                qualified,
                |s| &s.namespaces_bound,
                &|_, source, _| has(source, "parse_args") || has(source, "parse_known_args"),
            )
        } else {
            self.bound(
                from_file,
                qualified,
                |s| &s.parsers_bound,
                &|_, source, _| has(source, "ArgumentParser"),
            )
        }
    }

    /// What `kept` of the summary of the module `qualified` names keeps for that name, its
    /// fillers read; files whose text fails `gate` are not summarised for it.
    fn bound(
        &self,
        from_file: &Path,
        qualified: &str,
        kept: fn(&FileSummary) -> &HashMap<String, Arc<ParserOptions>>,
        gate: &TextGate<'_>,
    ) -> Option<Arc<ParserOptions>> {
        let def = self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| kept(&entry.summary).contains_key(name),
            Some(gate),
        )?;
        let options = kept(def.summary()).get(&def.name)?;
        Some(self.filled_in(&def.file, options))
    }

    /// What the module-level function `qualified` adds to the parser passed at `position`;
    /// `None` when it is not known to add only that.
    pub(crate) fn filled_parser(
        &self,
        from_file: &Path,
        qualified: &str,
        position: usize,
    ) -> Option<Arc<ParserOptions>> {
        let (def, key) = self.helper(from_file, qualified)?;
        let filled = def.summary().parsers_filled.get(&key)?;
        filled
            .iter()
            .find(|(p, _)| *p == position)
            .map(|(_, options)| self.filled_in(&def.file, options))
    }

    /// A summary's parser with what the functions of other files it is handed to add (see
    /// `ParserOptions::with_deferred`), read from `file`'s imports, a few files deep.
    fn filled_in(&self, file: &Path, options: &Arc<ParserOptions>) -> Arc<ParserOptions> {
        if !options.has_deferred() {
            return Arc::clone(options);
        }
        let deep = FILLING.with(|f| {
            let deep = f.get() >= MAX_FILLER_HOPS;
            f.set(f.get() + 1);
            deep
        });
        let filled = (**options).clone().with_deferred(|qualified, position| {
            if deep {
                return None;
            }
            self.filled_parser(file, qualified, position)
        });
        FILLING.with(|f| f.set(f.get() - 1));
        Arc::new(filled)
    }

    /// What the callers in other files pass to a helper's parameter: what they all give, and
    /// where they disagree or one passes something unknown, each whole number as one caller's
    /// (the largest). `None` when no caller is found, none passes anything known, or the
    /// search would follow a cycle of helpers. Memoised.
    pub(crate) fn namespace_passed(
        &self,
        helper: &Path,
        external: &External,
    ) -> Option<Arc<NamespaceTable>> {
        self.passed(helper, external).ok()
    }

    /// Why [`ProjectIndex::namespace_passed`] has no answer, when a caller in another file is
    /// the reason: the call that passes something unknown, or a subclass.
    pub(crate) fn unresolved_caller(&self, helper: &Path, external: &External) -> Option<String> {
        self.passed(helper, external)
            .err()
            .flatten()
            .map(|call| call.to_string())
    }

    fn passed(&self, helper: &Path, external: &External) -> Passed {
        seek(&self.passed, helper, external, Err(None), || {
            self.find_passed(helper, external)
                .map(Arc::new)
                .map_err(|call| call.map(Arc::from))
        })
    }

    fn find_passed(
        &self,
        helper: &Path,
        external: &External,
    ) -> Result<NamespaceTable, Option<String>> {
        let mut candidates = self
            .caller_candidates(helper, &external.needles())
            .ok_or(None)?;
        // A dict of classes of the helper's own file naming the callee (`trainer_mapping =
        // {'K-Adapter': AdapterTrainer}`): the files that import it may construct it.
        if external.method.is_none()
            && let Some(source) = self.source(helper)
            && names_as_dict_value(&source, &external.callee)
        {
            let own = self
                .with_definitions(&source, helper, |m| {
                    argparse::dicts_naming(m, helper, &external.callee)
                })
                .unwrap_or_default();
            for name in own {
                for (path, text) in self.caller_candidates(helper, &[&name]).ok_or(None)? {
                    if !candidates.iter().any(|(p, _)| *p == path) {
                        candidates.push((path, text));
                    }
                }
            }
        }
        // `getattr(loaders, args.dataset)(args)` of another file may call any function of the
        // helper's module.
        if external.method.is_none()
            && let Some(picking) = self.picking_candidates(helper)
        {
            for (path, text) in picking {
                if !candidates.iter().any(|(p, _)| *p == path) {
                    candidates.push((path, text));
                }
            }
        }
        let first = candidates.len();
        // Callers that disagree, or pass what cannot be read, leave each whole number as one
        // caller's (see `Value::OneCaller`): that caller's path runs with it.
        let mut table: Option<NamespaceTable> = None;
        let mut unknown: Option<String> = None;
        let mut at = 0;
        while let Some((file, source)) = candidates.get(at).cloned() {
            at += 1;
            let Some(tree) = crate::python::parse(&source, None) else {
                continue;
            };
            lock(&self.caller_files).insert(file.clone());
            let m =
                Module::build_definitions(&source, &tree, &file, self, Catalogue::builtin_ref());
            // A dict of classes naming the callee (`EXP_DICT = {'long': Exp_Long}`): the files
            // that import it may construct the callee through it (one step, not further).
            if at <= first {
                for name in argparse::dicts_naming(&m, helper, &external.callee) {
                    let more = self.caller_candidates(&file, &[&name]).ok_or(None)?;
                    for (path, text) in more {
                        if path != helper && !candidates.iter().any(|(p, _)| *p == path) {
                            candidates.push((path, text));
                        }
                    }
                }
            }
            for (passed, why) in argparse::passed_in(&m, helper, external) {
                if passed.is_none() {
                    unknown.get_or_insert(why);
                }
                table = match (table, passed) {
                    (Some(table), passed) => Some(table.merge(passed.as_ref())),
                    (None, Some(passed)) if unknown.is_some() => Some(passed.merge(None)),
                    (None, passed) => passed,
                };
            }
        }
        match (table, unknown) {
            (Some(table), Some(why)) if table.is_empty() => Err(Some(why)),
            (Some(table), _) => Ok(table),
            (None, why) => Err(why),
        }
    }

    /// The other files of the project that may call a callee of `helper`, with their text:
    /// those that hold every one of `needles` (its name; a method's too) and import its
    /// module, or a package above it that may re-export it (`from data_utils import
    /// eval_model`). `None` when there are too many to say anything.
    fn caller_candidates(&self, helper: &Path, needles: &[&str]) -> Option<Vec<(PathBuf, String)>> {
        let (name, more) = needles.split_first()?;
        let naming = self.files_naming(helper, name, name, |_| true)?;
        let has = |source: &str, word: &str| {
            memchr::memmem::find(source.as_bytes(), word.as_bytes()).is_some()
        };
        Some(
            naming
                .into_iter()
                .filter(|(_, source)| more.iter().all(|w| has(source, w)))
                .collect(),
        )
    }

    /// The other files of the project that may pick a function of `helper`'s module by name
    /// ([`picks_from_text`]), with their text. `None` when there are too many, or `helper`
    /// names no module.
    fn picking_candidates(&self, helper: &Path) -> Option<Vec<(PathBuf, String)>> {
        let (modules, _) = import_names(helper);
        let module = modules.first()?;
        // Not a name of Python: no search for a callee's name shares the memo's entry.
        let key = format!("getattr({module}");
        self.files_naming(helper, &key, "getattr(", |text| {
            picks_from_text(text, module)
        })
    }

    /// The other files of the project that may reach a name of `helper` (see [`mentioning`]),
    /// hold `needle` and pass `keep`, with their text; memoised under `key` (the files, read
    /// again when asked again). `None` when there are more than [`MAX_CALLER_FILES`].
    fn files_naming(
        &self,
        helper: &Path,
        key: &str,
        needle: &str,
        keep: impl Fn(&str) -> bool,
    ) -> Option<Vec<(PathBuf, String)>> {
        let reader = self.reader.as_ref()?;
        let key = (helper.to_path_buf(), key.to_owned());
        let known = lock(&self.naming).get(&key).cloned();
        if let Some(naming) = known {
            return Some(
                naming?
                    .iter()
                    .filter_map(|file| Some((file.clone(), reader(file)?)))
                    .collect(),
            );
        }
        // Read by the search itself the first time.
        let files = self.search_files(helper)?;
        let found: Option<Vec<(PathBuf, String)>> =
            mentioning(reader.as_ref(), &files, helper, &[needle])
                .filter(|(_, text)| keep(text))
                .enumerate()
                .map(|(i, (file, text))| (i < MAX_CALLER_FILES).then(|| (file.clone(), text)))
                .collect();
        let paths = found
            .as_ref()
            .map(|f| Arc::new(f.iter().map(|(p, _)| p.clone()).collect()));
        lock(&self.naming).insert(key, paths);
        found
    }

    /// Whether a file of the project may change `key` of the config a module-level name of
    /// `config_file` holds (`cfg = Config()`, `_C = CN()`), for a module that reads it after
    /// the entry script ran: a file that names the config's module and assigns an attribute
    /// `key` (`cfg.num_thread = 4`), merges into a config, or sets attributes it does not name
    /// (`setattr`, `__dict__`). The config's own file writes only through the model's eyes
    /// (its top-level writes are the defaults); its writes by computed name count too unless
    /// `own_modelled` (a parsed namespace, whose file's writes the model has read). The file
    /// `reading` asks, whose own writes its analysis follows, does not count. `true` when the
    /// project's files cannot all be read. Memoised until a file changes.
    pub(crate) fn may_write_shared(
        &self,
        config_file: &Path,
        key: &str,
        own_modelled: bool,
        reading: Option<&Path>,
    ) -> bool {
        let memo_key = (
            config_file.to_path_buf(),
            key.to_owned(),
            own_modelled,
            reading.map(Path::to_path_buf),
        );
        if let Some(known) = lock(&self.shared_writes).get(&memo_key) {
            return *known;
        }
        let found = self
            .find_shared_write(config_file, key, own_modelled, reading)
            .unwrap_or(true);
        lock(&self.shared_writes).insert(memo_key, found);
        found
    }

    /// Whether a file of the project that imports the module `file` may change its
    /// module-level name `name` (`settings.NUM_WORKERS = 4`, `setattr(settings, 'NUM_WORKERS',
    /// 4)`): it assigns an attribute of that name, or quotes the name. `true` when the
    /// project's files cannot all be read. Memoised until a file changes.
    pub(crate) fn may_write_constant(&self, file: &Path, name: &str) -> bool {
        let memo_key = (file.to_path_buf(), name.to_owned());
        if let Some(known) = lock(&self.constant_writes).get(&memo_key) {
            return *known;
        }
        let found = self.find_constant_write(file, name).unwrap_or(true);
        lock(&self.constant_writes).insert(memo_key, found);
        found
    }

    fn find_constant_write(&self, file: &Path, name: &str) -> Option<bool> {
        let reader = self.reader.as_ref()?;
        let names = import_names_of(file, |init| reader(init));
        let files = self.search_files(file)?;
        for other in files.iter().filter(|f| f.as_path() != file) {
            let Some(source) = reader(other) else {
                continue;
            };
            if memchr::memmem::find(source.as_bytes(), name.as_bytes()).is_some()
                && imports_a_name(&source, &names)
                && writes_key(&source, name)
            {
                return Some(true);
            }
        }
        Some(false)
    }

    fn find_shared_write(
        &self,
        config_file: &Path,
        key: &str,
        own_modelled: bool,
        reading: Option<&Path>,
    ) -> Option<bool> {
        let reader = self.reader.as_ref()?;
        let names = import_names_of(config_file, |init| reader(init));
        let files = self.search_files(config_file)?;
        for file in files.iter().filter(|f| Some(f.as_path()) != reading) {
            let own = file.as_path() == config_file;
            let Some(source) = reader(file) else {
                continue;
            };
            if !own && !imports_a_name(&source, &names) || own && own_modelled {
                continue;
            }
            if writes_unnamed(&source) {
                return Some(true);
            }
            if !own && writes_key(&source, key) {
                return Some(true);
            }
        }
        Some(false)
    }

    /// The project classes a module-level dict of another file maps to (`EXP_DICT =
    /// {'long_term_forecast': Exp_Long_Term_Forecast, ...}` imported as `from exp import
    /// EXP_DICT`), as that file names them.
    pub(crate) fn dict_classes(
        &self,
        from_file: &Path,
        qualified: &str,
    ) -> Vec<argparse::DefinedName> {
        let read = || {
            let found = self.binding(from_file, qualified)?;
            let source = self.source(&found.file)?;
            self.with_definitions(&source, &found.file, |m| {
                let literal = argparse::module_dict(m, &found.name)?;
                Some(argparse::dict_value_classes(
                    m,
                    literal,
                    crate::python::model::MODULE_SCOPE,
                ))
            })?
        };
        read().unwrap_or_default()
    }

    /// `read` of the definitions of another file of the project, `source` its text; `None`
    /// when it does not parse.
    fn with_definitions<T>(
        &self,
        source: &str,
        file: &Path,
        read: impl FnOnce(&Module) -> T,
    ) -> Option<T> {
        let tree = crate::python::parse(source, None)?;
        let m = Module::build_definitions(source, &tree, file, self, Catalogue::builtin_ref());
        Some(read(&m))
    }

    /// Whether a file of the project calls a method that sets attributes of the module-level
    /// config `name` of `config_file` by computed name (`cfg.update(args.cfg)`, where
    /// `Config.update` runs `setattr(cfg, k, v)` over a YAML file's keys), where the call may
    /// run on a run with the defaults: `if args.cfg:` with `--cfg` defaulting to `''` does
    /// not. The call found, or the config's file when it cannot be read. Memoised until a
    /// file changes.
    pub(crate) fn may_call_writer(
        &self,
        config_file: &Path,
        name: &str,
    ) -> Option<Arc<WriterCall>> {
        let memo_key = (config_file.to_path_buf(), name.to_owned());
        if let Some(known) = lock(&self.writer_calls).get(&memo_key) {
            return known.clone();
        }
        let found = self.find_writer_call(config_file, name).map(Arc::new);
        lock(&self.writer_calls).insert(memo_key, found.clone());
        found
    }

    fn find_writer_call(&self, config_file: &Path, name: &str) -> Option<WriterCall> {
        // Without a reader the analysis sees its one file, whose own calls
        // `ClassDefaults::in_file` counts.
        let reader = self.reader.as_ref()?;
        let unreadable = || WriterCall {
            file: config_file.to_path_buf(),
            line: 1,
            call: "a file that cannot be read".to_owned(),
        };
        let Some(source) = reader(config_file) else {
            return Some(unreadable());
        };
        // A method sets attributes by computed name only through `setattr(`, `__dict__` or
        // `vars(...)` (most configs have none: no second parse of their file).
        if !["setattr(", "__dict__", "vars("]
            .iter()
            .any(|w| memchr::memmem::find(source.as_bytes(), w.as_bytes()).is_some())
        {
            return None;
        }
        let Some(writers) = self.with_definitions(&source, config_file, |own| {
            configs::instance_writers(own, name)
        }) else {
            return Some(unreadable());
        };
        if writers.is_empty() {
            return None;
        }
        let Some(files) = self.search_files(config_file) else {
            return Some(unreadable());
        };
        for method in &writers {
            let call = format!(".{method}(");
            for (file, text) in mentioning(reader.as_ref(), &files, config_file, &[&call, name]) {
                let found = self.with_definitions(&text, file, |m| {
                    let calls = m
                        .calls()
                        .iter()
                        .filter(|c| c.method == Some(method.as_str()));
                    for c in calls {
                        let receiver = c
                            .callee
                            .child_by_field_name("object")
                            .and_then(|o| m.qualified_in(o, c.scope, 0))
                            .and_then(|q| self.binding(file, &q));
                        let on_config =
                            receiver.is_some_and(|r| r.file == config_file && r.name == name);
                        if on_config && argparse::branch_runs(m, c.node, None, 0) != Some(false) {
                            return Some(WriterCall {
                                file: file.clone(),
                                line: m.line(c.node.start_byte()),
                                call: format!("`{}`", m.text(c.node)),
                            });
                        }
                    }
                    None
                });
                if let Some(call) = found.flatten() {
                    return Some(call);
                }
            }
        }
        None
    }

    /// Whether a file of the project other than `class_file` may change the attribute `key` of
    /// instances of its module-level class `class`, by the look of its text (see
    /// [`writes_instances`]): D-FINE's `YAMLConfig(BaseConfig)` copies a YAML file's keys into
    /// `self.__dict__`. `false` when no other file can be read. Memoised until a file changes.
    pub(crate) fn may_write_instances(&self, class_file: &Path, class: &str, key: &str) -> bool {
        let memo_key = (class_file.to_path_buf(), class.to_owned(), key.to_owned());
        if let Some(known) = lock(&self.instance_writes).get(&memo_key) {
            return *known;
        }
        let found = self.reader.as_ref().is_some_and(|reader| {
            self.search_files(class_file).is_none_or(|files| {
                mentioning(reader.as_ref(), &files, class_file, &[class])
                    .any(|(_, source)| writes_instances(&source, class, key))
            })
        });
        lock(&self.instance_writes).insert(memo_key, found);
        found
    }

    /// Whether the project file `file`, handed a config, may change its `key` by the look of
    /// its text: it assigns an attribute `key` or names it in quotes, merges into a config, or
    /// sets attributes it does not name. `true` when it cannot be read.
    pub(crate) fn may_write_handed(&self, file: &Path, function: &str, key: &str) -> bool {
        self.source(file).is_none_or(|source| {
            // The module-level function alone when its text can be told apart (the config's
            // own module sets every key as a default, and may hold a reader such as
            // `print_config(cfg)` beside its merges).
            match top_level_def(&source, function) {
                Some(text) => writes_unnamed(text) || writes_key(text, key),
                None => writes_unnamed(&source) || writes_key(&source, key),
            }
        })
    }

    /// The YAML config every caller in other files passes the parameter `external` of
    /// `helper` (a Hydra entry point's `cfg` handed to `setup_data(cfg)`), with the keys a
    /// caller's file writes left unknown. `None` when there is no caller, one passes anything
    /// else, or they pass different configs. Memoised for the run.
    pub(crate) fn config_passed(
        &self,
        helper: &Path,
        external: &External,
    ) -> Option<Arc<PassedConfig>> {
        seek(&self.configs_passed, helper, external, None, || {
            self.find_config_passed(helper, external).map(Arc::new)
        })
    }

    /// Whether the callers in other files of `helper`'s function all pass the parameter
    /// `external` a count of processes (`build_loader(args, ngpus_per_node)`, the node's GPU
    /// count, as [`distributed::is_process_count`] reads it): at least one such call, and no
    /// other. Memoised for the run.
    ///
    /// [`distributed::is_process_count`]: crate::python::distributed::is_process_count
    pub(crate) fn process_count_passed(&self, helper: &Path, external: &External) -> bool {
        seek(&self.process_counts, helper, external, false, || {
            self.find_process_count_passed(helper, external)
                .unwrap_or(false)
        })
    }

    fn find_process_count_passed(&self, helper: &Path, external: &External) -> Option<bool> {
        let counts = self.read_passed(helper, external, |scope, call, arg| {
            distributed::is_process_count(scope.m, arg?, call.scope, 1).then_some(())
        })?;
        Some(!counts.is_empty())
    }

    /// What each call in other files of `helper`'s function passes the parameter `external`,
    /// as `read` reads it (given the call and its argument, `None` when it passes nothing).
    /// `None` when a caller's file does not parse or `read` gives up on one call: the
    /// searches that use it need every caller to agree.
    fn read_passed<T>(
        &self,
        helper: &Path,
        external: &External,
        mut read: impl FnMut(&Analysis, &CallSite, Option<Node>) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut found = Vec::new();
        for (file, source) in self.caller_candidates(helper, &external.needles())? {
            let tree = crate::python::parse(&source, None)?;
            let m =
                Module::build_definitions(&source, &tree, &file, self, Catalogue::builtin_ref());
            let scope = Analysis::new(&m);
            for (call, arg) in argparse::calls_passing(&m, helper, external) {
                found.push(read(&scope, call, arg)?);
            }
        }
        Some(found)
    }

    /// Whether the callers in other files of `helper`'s function all pass the parameter
    /// `external` a CUDA device (`build_loaders(config, device=torch.device(f"cuda:{gpu}"))`
    /// in the training script): at least one call, and none that passes anything else or
    /// nothing. [`Cudaness::WhenAvailable`] when some pick CUDA only when it is available.
    /// Memoised for the run.
    ///
    /// [`Cudaness::WhenAvailable`]: crate::python::cuda::Cudaness::WhenAvailable
    pub(crate) fn cuda_device_passed(
        &self,
        helper: &Path,
        external: &External,
    ) -> Option<crate::python::cuda::Cudaness> {
        seek(&self.cuda_devices, helper, external, None, || {
            self.find_cuda_device_passed(helper, external)
        })
    }

    fn find_cuda_device_passed(
        &self,
        helper: &Path,
        external: &External,
    ) -> Option<crate::python::cuda::Cudaness> {
        use crate::python::cuda::{self, Cudaness};
        self.read_passed(helper, external, |scope, _, arg| {
            cuda::device_cudaness(scope, arg?)
        })?
        .into_iter()
        .reduce(Cudaness::join)
    }

    fn find_config_passed(&self, helper: &Path, external: &External) -> Option<PassedConfig> {
        let mut found: Option<PassedConfig> = None;
        for (file, source) in self.caller_candidates(helper, &external.needles())? {
            let Some(tree) = crate::python::parse(&source, None) else {
                continue;
            };
            let m =
                Module::build_definitions(&source, &tree, &file, self, Catalogue::builtin_ref());
            for passed in configs::passed_in(&m, helper, external) {
                let passed = passed?;
                found = Some(match found {
                    Some(f) if f != passed => f.met(&passed)?,
                    Some(f) => f,
                    None => passed,
                });
            }
        }
        found
    }

    /// The Python files a helper's callers (or a class's constructions, when no project root
    /// holds its file) are looked for in: those under the folder that holds its top-level
    /// package (`pkg/` of `pkg/sub/helper.py`, with `__init__.py` files), or, for a module
    /// outside a package, under its own folder and the one above (`main.py` importing
    /// `utils.data`), unless its own holds a project file (`setup.py`, `pyproject.toml`,
    /// `.git`); never beyond the project's root. When no root holds a module outside a
    /// package (a file checked by itself), only the files directly in the folder above are
    /// added: that folder may hold other projects, or a whole home directory. Callers further
    /// away, importing it through a longer path, are not seen.
    fn search_files(&self, helper: &Path) -> Option<Arc<Vec<PathBuf>>> {
        let folder = helper.parent()?;
        let is_package = |dir: &Path| dir.join("__init__.py").is_file();
        let is_project = |dir: &Path| PROJECT_MARKERS.iter().any(|f| dir.join(f).exists());
        let in_package = is_package(folder);
        let mut top = folder;
        if in_package {
            while let Some(parent) = top.parent().filter(|p| is_package(p)) {
                top = parent;
            }
        }
        let mut base = if is_project(top) {
            top
        } else {
            top.parent().unwrap_or(top)
        };
        if base.file_name().is_some_and(|n| n == "src") && !is_project(base) {
            base = base.parent().unwrap_or(base);
        }
        let roots = read(&self.roots);
        let root = roots
            .iter()
            .filter(|r| helper.starts_with(r))
            .max_by_key(|r| r.components().count());
        Some(match root {
            Some(root) if !base.starts_with(root) => self.listing(root),
            None if !in_package && base != folder => {
                let mut files = self.listing(folder).to_vec();
                files.extend(python_files(base, Some(1)));
                Arc::new(files)
            }
            _ => self.listing(base),
        })
    }

    /// The YAML files under `base` (at most [`MAX_CONFIG_FILES`]), honouring ignore files,
    /// listed once: the config files a project ships. None for an index that reads no files.
    pub(crate) fn config_files(&self, base: &Path) -> Arc<Vec<PathBuf>> {
        if self.reader.is_none() {
            return Arc::new(Vec::new());
        }
        if let Some(files) = lock(&self.config_listings).get(base) {
            return Arc::clone(files);
        }
        let files: Vec<PathBuf> = fs::files_under(base, None, true, |p| {
            p.extension().is_some_and(|e| e == "yaml" || e == "yml")
        })
        .take(MAX_CONFIG_FILES)
        .collect();
        let files = Arc::new(files);
        lock(&self.config_listings).insert(base.to_path_buf(), Arc::clone(&files));
        files
    }

    /// The words of the config files the project ships under `base`
    /// ([`configs::shipped_words`] makes them), made once: `None` for an index that reads no
    /// files, or when the files cannot all be read.
    pub(crate) fn shipped_words(&self, base: &Path, python: bool) -> ShippedWords {
        let Some(reader) = self.reader.as_ref() else {
            return Arc::new(None);
        };
        let key = (base.to_path_buf(), python);
        if let Some(words) = lock(&self.shipped_words).get(&key) {
            return Arc::clone(words);
        }
        let words = Arc::new(configs::shipped_words(reader.as_ref(), base, python));
        lock(&self.shipped_words).insert(key, Arc::clone(&words));
        words
    }

    /// The deepest project root (a folder checked, or one holding `pyproject.toml`, `.git`,
    /// ...) that holds `file`.
    pub(crate) fn root_of(&self, file: &Path) -> Option<PathBuf> {
        read(&self.roots)
            .iter()
            .filter(|r| file.starts_with(r))
            .max_by_key(|r| r.components().count())
            .cloned()
    }

    /// The commands of the shell scripts of `file`'s project that run it (`python main.py
    /// --num_workers=32`, see [`scripts`]), the project's scripts read once.
    pub(crate) fn script_runs(&self, file: &Path) -> Vec<scripts::Run> {
        if self.reader.is_none() {
            return Vec::new();
        }
        let Some(root) = self.root_of(file) else {
            return Vec::new();
        };
        let known = lock(&self.script_runs).get(&root).cloned();
        let runs = match known {
            Some(runs) => runs,
            None => {
                let runs = Arc::new(scripts::runs_under(&root));
                lock(&self.script_runs).insert(root, Arc::clone(&runs));
                runs
            }
        };
        runs.get(&fs::normalised(file)).cloned().unwrap_or_default()
    }

    /// The Python files under `base`, honouring ignore files, listed once.
    fn listing(&self, base: &Path) -> Arc<Vec<PathBuf>> {
        if let Some(files) = lock(&self.listings).get(base) {
            return Arc::clone(files);
        }
        let files = Arc::new(python_files(base, None));
        lock(&self.listings).insert(base.to_path_buf(), Arc::clone(&files));
        files
    }

    /// Forgets the constructions found when a file's new text (`None`: unknown, or gone) may
    /// add or remove some. Returns whether anything was forgotten.
    fn forget_constructions(&self, text: Option<&str>) -> bool {
        let mut found = lock(&self.constructions);
        // A method's calls are kept under `Class.method`: a file that names the class may
        // add some.
        let names_one = found.keys().any(|(_, name)| {
            let class = name.split('.').next().unwrap_or(name);
            text.is_none_or(|t| memchr::memmem::find(t.as_bytes(), class.as_bytes()).is_some())
        });
        if names_one {
            found.clear();
        }
        names_one
    }

    /// The calls of the module-level class or function named `class` of `file` in the
    /// project's other files (see the module's documentation). `None` when one cannot be read:
    /// the name is subclassed or handed on as a value there, a call passes `*args` or
    /// `**kwargs`, the search is already under way on this thread, or the project is too
    /// large to search. An index that reads no files knows of none.
    pub fn constructions_elsewhere(&self, file: &Path, class: &str) -> Constructions {
        let key = (file.to_path_buf(), class.to_owned());
        if let Some(found) = lock(&self.constructions).get(&key) {
            return found.clone();
        }
        let found = self.find_constructions(file, class).map(Arc::new);
        lock(&self.constructions).insert(key, found.clone());
        found
    }

    /// The calls of `method` on instances of the module-level class `class` of `file` in the
    /// project's other files: `Trainer(...).train(ds)`, or `t.train(ds)` after `t =
    /// Trainer(...)`, the class imported from `file`. `None` when one passes
    /// `*args` or `**kwargs`, or the project is too large to search. Memoised as
    /// constructions are.
    pub fn method_calls_elsewhere(&self, file: &Path, class: &str, method: &str) -> Constructions {
        let key = (file.to_path_buf(), format!("{class}.{method}"));
        if let Some(found) = lock(&self.constructions).get(&key) {
            return found.clone();
        }
        let found = self
            .search(file, &key.1, |reader, files, root| {
                self.read_method_calls(reader, files, root, file, class, method)
            })
            .map(Arc::new);
        lock(&self.constructions).insert(key, found.clone());
        found
    }

    fn read_method_calls(
        &self,
        reader: &Reader,
        files: &[PathBuf],
        root: Option<&Path>,
        file: &Path,
        class: &str,
        method: &str,
    ) -> Option<Vec<Construction>> {
        let mut found = Vec::new();
        for (path, source) in mentioning(reader, files, file, &[class, method]) {
            let tree = crate::python::parse(&source, None)?;
            let m = Module::build_definitions(&source, &tree, path, self, Catalogue::builtin_ref());
            let in_tests = is_test_file(root, path);
            for call in m.calls() {
                // The class as that file imports it from this one, not a class of the same
                // name defined elsewhere.
                let on_class = call.method == Some(method)
                    && call
                        .callee
                        .child_by_field_name("object")
                        .and_then(|o| argparse::constructed_class(&m, o, call.scope))
                        .and_then(|c| m.qualified_in(c, call.scope, 0))
                        .is_some_and(|q| {
                            q.rsplit('.').next() == Some(class)
                                && self.definition(path, &q).is_some_and(|d| d.file == file)
                        });
                if on_class {
                    let mut c = construction(&m, call.node)?;
                    c.in_tests = in_tests;
                    found.push(c);
                }
            }
        }
        Some(found)
    }

    fn find_constructions(&self, file: &Path, class: &str) -> Option<Vec<Construction>> {
        self.search(file, class, |reader, files, root| {
            self.read_constructions(reader, files, root, file, class)
        })
    }

    /// Runs `scan` over the Python files of the project that holds `file` (the same memoised
    /// listing the callers of helpers are searched in), unless the project is too large or the
    /// search for `name` is already under way on this thread.
    fn search(
        &self,
        file: &Path,
        name: &str,
        scan: impl FnOnce(&Reader, &[PathBuf], Option<&Path>) -> Option<Vec<Construction>>,
    ) -> Option<Vec<Construction>> {
        let Some(reader) = self.reader.as_ref() else {
            return Some(Vec::new());
        };
        let root = self.root_of(file);
        let files = match &root {
            Some(root) => self.listing(root),
            None => self.search_files(file)?,
        };
        if files.len() > MAX_SEARCHED_FILES {
            return None;
        }
        let key = (file.to_path_buf(), name.to_owned());
        if CONSTRUCTING.with_borrow(|c| c.contains(&key)) {
            return None;
        }
        CONSTRUCTING.with_borrow_mut(|c| c.push(key));
        let found = scan(reader.as_ref(), &files, root.as_deref());
        CONSTRUCTING.with_borrow_mut(|c| c.pop());
        found
    }

    fn read_constructions(
        &self,
        reader: &Reader,
        files: &[PathBuf],
        root: Option<&Path>,
        file: &Path,
        class: &str,
    ) -> Option<Vec<Construction>> {
        let mut found = Vec::new();
        let defining = reader(file);
        let is_static = |method: &str| {
            defining
                .as_deref()
                .is_some_and(|text| declares_static_method(text, method))
        };
        let (modules, _) = import_names(file);
        let module = modules.first().map(String::as_str);
        for (path, source) in mentioning(reader, files, file, &[]) {
            let names = memchr::memmem::find(source.as_bytes(), class.as_bytes()).is_some();
            let picks = module.filter(|module| picks_from_text(&source, module));
            if !names && picks.is_none() {
                continue;
            }
            let tree = crate::python::parse(&source, None)?;
            let mut calls = Vec::new();
            let mut runs = Vec::new();
            let mut subclasses = Vec::new();
            let mut picked = Vec::new();
            if names {
                constructions_in(
                    &source,
                    tree.root_node(),
                    class,
                    &is_static,
                    &mut calls,
                    &mut runs,
                    &mut subclasses,
                )?;
            }
            if let Some(module) = picks {
                picks_in(&source, tree.root_node(), module, &mut picked);
            }
            if calls.is_empty() && runs.is_empty() && subclasses.is_empty() && picked.is_empty() {
                continue;
            }
            let m = Module::build_definitions(&source, &tree, path, self, Catalogue::builtin_ref());
            let in_tests = is_test_file(root, path);
            // `getattr(hcsc.loader, args.dataset)(args)`: a call of whichever function of this
            // module the name picks, so of this one too, when the object is this module. A pick
            // not called where it is made (`build = getattr(loaders, name)`) has calls that
            // cannot be read.
            for getattr in picked {
                let here = picked_module(&m, getattr, class)
                    .and_then(|q| self.definition(path, &format!("{q}.{class}")))
                    .is_some_and(|d| d.file == file && d.name == class);
                if !here {
                    continue;
                }
                let call = getattr
                    .parent()
                    .filter(|c| c.kind() == "call")
                    .filter(|c| c.child_by_field_name("function") == Some(getattr))?;
                let mut c = construction(&m, call)?;
                c.in_tests = in_tests;
                found.push(c);
            }
            for call in calls {
                // The name as that file imports it from this one, not a function or class of
                // the same name imported from another module; on one path of several when
                // each branch imports the name from another module.
                let reaches_here = call.child_by_field_name("function").is_some_and(|callee| {
                    m.qualified_alternatives(callee, m.scope_at(callee))
                        .iter()
                        .any(|q| {
                            self.definition(path, q)
                                .is_some_and(|d| d.file == file && d.name == class)
                        })
                });
                if !reaches_here {
                    continue;
                }
                let mut c = construction(&m, call)?;
                c.in_tests = in_tests;
                found.push(c);
            }
            // `class KeraSingle(DInterface)` of that file: what its constructions, wherever
            // they are, pass this class's constructor through its own.
            for header in subclasses {
                let sub = m.classes().iter().position(|c| c.node == header)?;
                let def = m.class(sub)?;
                let base = def.bases.iter().copied().find(|b| {
                    m.qualified_alternatives(*b, def.parent_scope)
                        .iter()
                        .any(|q| {
                            self.definition(path, q)
                                .is_some_and(|d| d.file == file && d.name == class)
                        })
                });
                let Some(base) = base else {
                    continue;
                };
                if def.parent_scope != MODULE_SCOPE {
                    return None;
                }
                let mut through = self.through_subclass(&m, sub, m.text(base))?;
                for c in &mut through {
                    c.in_tests |= in_tests;
                }
                found.extend(through);
            }
            // `Fire({'train': src.train.train})`: a run without options passes nothing.
            for reference in runs {
                let reaches_here = m
                    .qualified_alternatives(reference, m.scope_at(reference))
                    .iter()
                    .any(|q| {
                        self.definition(path, q)
                            .is_some_and(|d| d.file == file && d.name == class)
                    });
                if reaches_here {
                    found.push(Construction {
                        keywords: Vec::new(),
                        positional: 0,
                        values: Vec::new(),
                        in_tests,
                        command_line: true,
                    });
                }
            }
        }
        Some(found)
    }

    /// The constructions of a base class (named `base` in the header) that those of its
    /// subclass `sub` of `m` make: the subclass's own, when it has no constructor or one that
    /// only hands `*args, **kwargs` on; else each translated through its one unconditional
    /// `super().__init__(...)`, a parameter handed on taking what the construction passes it
    /// (or its default). `None` when they cannot be read.
    fn through_subclass(&self, m: &Module, sub: usize, base: &str) -> Option<Vec<Construction>> {
        let def = m.class(sub)?;
        if defaults::has_subclass(m, sub) {
            return None;
        }
        let mut own = Vec::new();
        // No function of that name is looked for: any id does.
        let references = defaults::references_to(m, def.name, def.name_range, None, Some(sub));
        for (reference, _) in references {
            let call = reference.parent().filter(|p| {
                p.kind() == "call" && p.child_by_field_name("function") == Some(reference)
            })?;
            own.push(construction(m, call)?);
        }
        if def.parent_scope == MODULE_SCOPE {
            own.extend(
                self.constructions_elsewhere(m.path, def.name)?
                    .iter()
                    .cloned(),
            );
        }
        let Some(init) = m.method_id(sub, "__init__") else {
            return Some(own);
        };
        if defaults::forwards_everything(m, init, base, None) {
            return Some(own);
        }
        let init_def = m.function(init)?;
        let (call, through_super) = defaults::base_init_call(m, init, base)?;
        if m.is_conditional_relative_to(call.node, init_def.body?) {
            return None;
        }
        let mut arguments = Vec::new();
        let mut splats = false;
        let list = call.node.child_by_field_name("arguments")?;
        let mut cursor = list.walk();
        for arg in list.named_children(&mut cursor) {
            match arg.kind() {
                "comment" => {}
                "keyword_argument" => arguments.push((
                    Some(m.text(arg.child_by_field_name("name")?).to_owned()),
                    arg.child_by_field_name("value")?,
                )),
                "list_splat" | "dictionary_splat" => splats = true,
                _ => arguments.push((None, arg)),
            }
        }
        // `def __init__(self, root=".data", *args, **kwargs): super().__init__(*args,
        // **kwargs)`: what a construction passes beyond the subclass's own parameters is the
        // base's, after the call's own arguments.
        let forwarded = match splats {
            true => Some(Forwarded::of(&subclass::init_summary(m, sub))?),
            false => None,
        };
        // `Base.__init__(self, ...)`: `self` is no argument of the constructor.
        if !through_super {
            arguments.remove(arguments.iter().position(|(k, _)| k.is_none())?);
        }
        let mut out = Vec::new();
        for c in &own {
            let mut keywords = Vec::new();
            let mut values = Vec::new();
            let mut positional = Vec::new();
            for (keyword, value) in &arguments {
                let passed = passed_through(m, init_def, c, call.node, *value)?;
                match keyword {
                    Some(k) => {
                        keywords.push(k.clone());
                        values.push(passed);
                    }
                    None => positional.push(passed),
                }
            }
            if let Some(forwarded) = &forwarded {
                forwarded.hand_on(c, &mut keywords, &mut values, &mut positional);
            }
            let count = positional.len();
            values.extend(positional);
            out.push(Construction {
                keywords,
                positional: count,
                values,
                in_tests: c.in_tests,
                command_line: false,
            });
        }
        Some(out)
    }

    /// How many files have been summarised.
    pub fn len(&self) -> usize {
        self.lock().values().filter(|s| s.get().is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The worker-side facts of the class `qualified` (as imported into `from_file`, e.g.
    /// `.data.MyDataset` or `pkg.data.MyDataset`), located in its own file.
    pub fn class_facts(&self, from_file: &Path, qualified: &str) -> Option<Facts> {
        let def = self.definition(from_file, qualified)?;
        let facts = def.summary().classes.get(&def.name)?;
        Some(facts.clone().in_file(&def.file))
    }

    /// The facts of the module-level function `qualified`, located in its own file.
    pub fn function_facts(&self, from_file: &Path, qualified: &str) -> Option<Facts> {
        let def = self.definition(from_file, qualified)?;
        let facts = def.summary().functions.get(&def.name)?;
        Some(facts.clone().in_file(&def.file))
    }

    /// How many views of one input instances of the transform class `qualified` return
    /// ([`transforms::copies`]).
    pub(crate) fn transform_copies(&self, from_file: &Path, qualified: &str) -> Option<usize> {
        let def = self.definition(from_file, qualified)?;
        def.summary().copies.get(&def.name).copied()
    }

    /// Whether the module-level function `qualified` answers the world size, 1 in a plain run
    /// (see [`distributed`]).
    pub(crate) fn answers_world_size(&self, from_file: &Path, qualified: &str) -> bool {
        self.definition(from_file, qualified)
            .is_some_and(|def| def.summary().world_size.contains(&def.name))
    }

    /// The record class `qualified` (a dataclass or `NamedTuple` of the project, see
    /// [`configs::Record`]), with the file that defines it.
    pub(crate) fn record(
        &self,
        from_file: &Path,
        qualified: &str,
    ) -> Option<(PathBuf, Arc<configs::Record>)> {
        let def = self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| entry.summary.records.contains_key(name),
            Some(&|_, source, name| may_import(source, name) || defines_class(source, name)),
        )?;
        let record = def.summary().records.get(&def.name)?.clone();
        Some((def.file.clone(), record))
    }

    /// The bases and `__init__` of the class `qualified`, with the file that defines it.
    pub fn class_shape(&self, from_file: &Path, qualified: &str) -> Option<(PathBuf, ClassShape)> {
        // A file not yet summarised whose text cannot define or re-export a class of that
        // name is not parsed.
        self.shape_through(from_file, qualified, &|_, source, name| {
            may_define_class(source, name)
        })
    }

    /// [`ProjectIndex::class_shape`] of a class that may be a loader. Every imported callee of
    /// a file is asked this, so a file not yet summarised is parsed for it only if it may
    /// re-export the name, or if the header of its class `name` may make it a loader: when its
    /// text names a loader of `catalogue` (`DataLoader`, a base class `...Loader`, a catalogue
    /// callee), a header it cannot read plainly may; when it names none, only a project class
    /// of another file that is a loader does (`class FastSampler(LayerWiseSampler)`).
    pub fn loader_class_shape(
        &self,
        from_file: &Path,
        qualified: &str,
        catalogue: &Catalogue,
    ) -> Option<(PathBuf, ClassShape)> {
        self.shape_through(from_file, qualified, &|file, source, name| {
            may_import(source, name)
                || (defines_class(source, name) && {
                    let names_a_loader = catalogue.may_name_a_loader(source.as_bytes());
                    self.header_may_be_loader(file, source, name, catalogue, names_a_loader, 0)
                })
        })
    }

    /// Whether the bases in the header of the module-level class `name` of `file` may make
    /// it a loader: a catalogue class, a class of the same file that may be one, or a project
    /// class of another file that is one. Only the file's imports and the header are parsed
    /// (most classes that files naming `DataLoader` define are models and datasets); a header
    /// the text does not show plainly, or too deep a chain, counts as `unreadable`.
    fn header_may_be_loader(
        &self,
        file: &Path,
        source: &str,
        name: &str,
        catalogue: &Catalogue,
        unreadable: bool,
        depth: u32,
    ) -> bool {
        if depth > MAX_HEADER_DEPTH {
            return unreadable;
        }
        let key = (file.to_path_buf(), name.to_owned());
        let known = lock(&self.headers).get(&key).cloned();
        let bases = known.unwrap_or_else(|| {
            let bases = header_bases(file, source, name).map(Arc::new);
            lock(&self.headers).insert(key, bases.clone());
            bases
        });
        let Some(bases) = bases else {
            return unreadable;
        };
        bases.iter().any(|base| match base.strip_prefix('#') {
            Some(local) => {
                self.header_may_be_loader(file, source, local, catalogue, unreadable, depth + 1)
            }
            None => subclass::is_loader_class(catalogue, self, file, base),
        })
    }

    fn shape_through(
        &self,
        from_file: &Path,
        qualified: &str,
        gate: &TextGate<'_>,
    ) -> Option<(PathBuf, ClassShape)> {
        let def = self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| entry.summary.defines(name),
            Some(gate),
        )?;
        let shape = def.summary().shapes.get(&def.name)?.clone();
        Some((def.file.clone(), shape))
    }

    /// What the name `qualified` (a name imported into `from_file`, as the model qualifies it:
    /// `.data.MyDataset`, `pkg.data.MyDataset`, `..MyDataset`) is: the file of the project that
    /// defines it, found through re-exports, and that file's summary. `None` when it is not
    /// defined in a file of the project (a third-party or standard-library name, a name the
    /// file does not define).
    pub fn definition(&self, from_file: &Path, qualified: &str) -> Option<Definition> {
        self.follow(from_file, qualified, 0)
    }

    /// Where the name `qualified` (imported into `from_file`) is bound by something other
    /// than an import: the file of the project, found through re-exports, that assigns it
    /// (`cfg = CN()`) or defines it. The file is not checked to bind it at all.
    pub fn binding(&self, from_file: &Path, qualified: &str) -> Option<Definition> {
        self.follow_to(
            from_file,
            qualified,
            0,
            &|entry, name| !entry.imports.names.contains_key(name),
            None,
        )
    }

    /// The name from outside the project that the project module's name `qualified` re-exports:
    /// `data.DataLoader` is `torch.utils.data.DataLoader` when `data.py` does `from
    /// torch.utils.data import DataLoader`, directly or through its own imports and star
    /// imports. `None` when the project defines the name itself, or where it comes from is not
    /// known.
    pub fn reexported(&self, from_file: &Path, qualified: &str) -> Option<String> {
        match self.origin(from_file, qualified, 0) {
            NameOrigin::Outside(name) => Some(name),
            NameOrigin::Own | NameOrigin::Absent | NameOrigin::Unknown => None,
        }
    }

    /// What a name no statement of `from_file` binds stands for when the file star-imports
    /// `stars` (`from utils import *`, `from data import *`, in order): the last of them that
    /// has it gives it, when that is a name from outside the project.
    pub fn star_imported(&self, from_file: &Path, stars: &[String], name: &str) -> Option<String> {
        match self.origin_of_star(from_file, stars, name, 0) {
            NameOrigin::Outside(name) => Some(name),
            NameOrigin::Own | NameOrigin::Absent | NameOrigin::Unknown => None,
        }
    }

    /// The project's name for a name no statement of `from_file` binds when the file
    /// star-imports several modules (`from utils.misc import *`, `from utils.train import *`):
    /// `utils.misc.load_config` when the last of them that has it is a project module
    /// defining it (or taking it from one).
    pub fn star_module(&self, from_file: &Path, stars: &[String], name: &str) -> Option<String> {
        for module in stars.iter().rev() {
            let joined = join_module(module, name);
            split_qualified(&joined)
                .and_then(|(level, parts, _)| self.module_file(from_file, level, &parts))?;
            match self.origin(from_file, &joined, 1) {
                NameOrigin::Absent => {}
                NameOrigin::Own => return Some(joined),
                NameOrigin::Outside(_) | NameOrigin::Unknown => return None,
            }
        }
        None
    }

    /// A loader the catalogue names (`catalogued`) that a name no statement of `from_file`
    /// binds stands for when the file star-imports several modules (`from monai.data import
    /// *`, `from monai.transforms import *`, `from math import *`): the last of them from
    /// outside the project that the catalogue has it in, with no later project module
    /// defining it. Other outside modules are taken not to export a loader's name.
    pub(crate) fn star_catalogued(
        &self,
        from_file: &Path,
        stars: &[String],
        name: &str,
        catalogued: impl Fn(&str) -> bool,
    ) -> Option<String> {
        for module in stars.iter().rev() {
            let joined = join_module(module, name);
            let (level, parts, _) = split_qualified(&joined)?;
            if self.module_file(from_file, level, &parts).is_some() {
                match self.origin(from_file, &joined, 1) {
                    NameOrigin::Absent => continue,
                    _ => return None,
                }
            }
            if level == 0 && catalogued(&joined) {
                return Some(joined);
            }
        }
        None
    }

    fn origin(&self, from_file: &Path, qualified: &str, hops: u8) -> NameOrigin {
        let Some((level, parts, name)) = split_qualified(qualified) else {
            // `import argparse` in a module of the project: a top-level module, from outside
            // unless the project has one of that name.
            let top_level = hops > 0 && !qualified.is_empty() && !qualified.contains('.');
            return match top_level && self.module_file(from_file, 0, &[qualified]).is_none() {
                true => NameOrigin::Outside(qualified.to_owned()),
                false => NameOrigin::Unknown,
            };
        };
        let Some(file) = self.module_file(from_file, level, &parts) else {
            // A module outside the project (only an absolute import can reach one).
            return match level {
                0 if hops > 0 => NameOrigin::Outside(qualified.to_owned()),
                _ => NameOrigin::Unknown,
            };
        };
        if hops >= MAX_REEXPORTS {
            return NameOrigin::Unknown;
        }
        let Some(entry) = self.entry(&file, None) else {
            return NameOrigin::Unknown;
        };
        if entry.summary.defines(name) {
            return NameOrigin::Own;
        }
        if let Some(target) = entry.imports.names.get(name) {
            return self.origin(&file, target, hops + 1);
        }
        self.origin_of_star(&file, &entry.imports.stars, name, hops)
    }

    /// The star imports of `file`, last first: a project module that has the name gives it; one
    /// outside the project gives it only when it is the file's one star import (as the model
    /// reads a name of a file with one star import), else it may have any name.
    fn origin_of_star(&self, file: &Path, stars: &[String], name: &str, hops: u8) -> NameOrigin {
        for module in stars.iter().rev() {
            let joined = join_module(module, name);
            let inside = split_qualified(&joined)
                .and_then(|(level, parts, _)| self.module_file(file, level, &parts))
                .is_some();
            if !inside {
                return match stars.len() {
                    1 if !module.starts_with('.') => NameOrigin::Outside(joined),
                    _ => NameOrigin::Unknown,
                };
            }
            match self.origin(file, &joined, hops + 1) {
                NameOrigin::Absent => {}
                found => return found,
            }
        }
        NameOrigin::Absent
    }

    /// The text of a project file, as the index reads it (an editor's copy of an open one).
    pub fn source(&self, path: &Path) -> Option<String> {
        (self.reader.as_ref()?)(path)
    }

    fn follow(&self, from_file: &Path, qualified: &str, hops: u8) -> Option<Definition> {
        self.follow_to(
            from_file,
            qualified,
            hops,
            &|entry, name| entry.summary.defines(name),
            None,
        )
    }

    /// Follows `qualified` to the file where `here` holds of its entry, through re-exports.
    /// `gate`, given the text of a file not yet summarised and the name, says whether that
    /// file is worth parsing for it.
    fn follow_to(
        &self,
        from_file: &Path,
        qualified: &str,
        hops: u8,
        here: &dyn Fn(&Entry, &str) -> bool,
        gate: Option<&TextGate<'_>>,
    ) -> Option<Definition> {
        let (level, parts, name) = split_qualified(qualified)?;
        let file = self.module_file(from_file, level, &parts)?;
        // The text read for the gate is the text summarised: each file is read once.
        let mut read = None;
        if let Some(gate) = gate
            && self.summarised(&file).is_none()
        {
            let source = (self.reader.as_ref()?)(&file)?;
            if !gate(&file, &source, name) {
                return None;
            }
            read = Some(source);
        }
        let entry = self.entry(&file, read)?;
        if here(&entry, name) {
            return Some(Definition {
                file,
                name: name.to_owned(),
                entry,
            });
        }
        if hops >= MAX_REEXPORTS {
            return None;
        }
        if let Some(target) = entry.imports.names.get(name) {
            return self.follow_to(&file, target, hops + 1, here, gate);
        }
        entry.imports.stars.iter().find_map(|module| {
            self.follow_to(&file, &join_module(module, name), hops + 1, here, gate)
        })
    }

    /// The file of the module `level` dots up and `parts` down from `from_file`: a relative
    /// import from the importing file's package; an absolute one from the importing file's
    /// folder or an enclosing one (or its `src/`), nearest first, up to the project's root.
    fn module_file(&self, from_file: &Path, level: usize, parts: &[&str]) -> Option<PathBuf> {
        let folder = from_file.parent()?;
        let key = (folder.to_path_buf(), level, parts.join("."));
        self.module_memo(
            |modules| &mut modules.found,
            &key,
            || self.find_module_file(from_file, level, parts),
        )
    }

    /// The answer memoised in the table of [`ModuleFiles`] `table` selects under `key`, or
    /// `find`'s, kept unless files changed while it was found. Looked up by a borrowed key,
    /// owned only when stored (`is_file` asks on every import).
    fn module_memo<Q, V>(
        &self,
        table: fn(&mut ModuleFiles) -> &mut HashMap<Q::Owned, V>,
        key: &Q,
        find: impl FnOnce() -> V,
    ) -> V
    where
        Q: ToOwned + std::hash::Hash + Eq + ?Sized,
        Q::Owned: std::hash::Hash + Eq + std::borrow::Borrow<Q>,
        V: Clone,
    {
        let generation = {
            let mut modules = lock(&self.modules);
            if let Some(found) = table(&mut modules).get(key) {
                return found.clone();
            }
            modules.generation
        };
        let found = find();
        let mut modules = lock(&self.modules);
        if modules.generation == generation {
            table(&mut modules).insert(key.to_owned(), found.clone());
        }
        found
    }

    /// The one module of the project a module name computed at run time can be, from
    /// `from_file`: `importlib.import_module("lib.config.%s.config" % name)` is the module of
    /// `lib/config/<one folder>/config.py` when the project has exactly one such folder.
    /// `prefix` and `suffix` are the dotted parts around the one computed part. `None` when
    /// no module or more than one fits.
    pub(crate) fn module_with_one_part(
        &self,
        from_file: &Path,
        prefix: &[&str],
        suffix: &[&str],
    ) -> Option<String> {
        self.reader.as_ref()?;
        let folder = from_file.parent()?;
        let key = (
            folder.to_path_buf(),
            format!("{}.*.{}", prefix.join("."), suffix.join(".")),
        );
        self.module_memo(
            |modules| &mut modules.patterns,
            &key,
            || self.find_module_with_one_part(from_file, prefix, suffix),
        )
    }

    fn find_module_with_one_part(
        &self,
        from_file: &Path,
        prefix: &[&str],
        suffix: &[&str],
    ) -> Option<String> {
        // The package's folder, as an absolute import finds it (a namespace package, without
        // `__init__.py`, too): from the importing file's folder or an enclosing one.
        let root = self.root_of(from_file);
        let folder = from_file.parent()?.ancestors().find_map(|dir| {
            let found = [dir.to_path_buf(), dir.join("src")]
                .into_iter()
                .find_map(|base| {
                    let mut package = base;
                    package.extend(prefix);
                    package.is_dir().then_some(package)
                });
            match found {
                Some(found) => Some(Some(found)),
                None if root.as_deref() == Some(dir) => Some(None),
                None => None,
            }
        })??;
        let folder = folder.as_path();
        let mut fitting = std::fs::read_dir(folder)
            .ok()?
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let is_dir = entry.file_type().ok()?.is_dir();
                let part = match (is_dir, suffix.is_empty()) {
                    (true, _) => name,
                    (false, true) => name.strip_suffix(".py")?.to_owned(),
                    (false, false) => return None,
                };
                if !crate::python::model::is_dotted_name(&part) || part == "__init__" {
                    return None;
                }
                self.existing(
                    folder,
                    &[part.as_str()]
                        .iter()
                        .chain(suffix)
                        .copied()
                        .collect::<Vec<_>>(),
                )?;
                Some(part)
            });
        let part = fitting.next()?;
        if fitting.next().is_some() {
            return None;
        }
        let dotted: Vec<&str> = prefix
            .iter()
            .copied()
            .chain([part.as_str()])
            .chain(suffix.iter().copied())
            .collect();
        Some(dotted.join("."))
    }

    /// [`ProjectIndex::module_file`] without the memo.
    fn find_module_file(&self, from_file: &Path, level: usize, parts: &[&str]) -> Option<PathBuf> {
        let folder = from_file.parent()?;
        if level > 0 {
            let mut base = folder;
            for _ in 1..level {
                base = base.parent()?;
            }
            return self.existing(base, parts);
        }
        if parts.is_empty() {
            return None;
        }
        let roots = read(&self.roots);
        let root = roots
            .iter()
            .filter(|r| from_file.starts_with(r))
            .max_by_key(|r| r.components().count());
        for dir in folder.ancestors() {
            let found = self
                .existing(dir, parts)
                .or_else(|| self.existing(&dir.join("src"), parts));
            if found.is_some() {
                return found;
            }
            if root.is_some_and(|r| dir == r.as_path()) {
                break;
            }
        }
        self.script_folder_module(root?, from_file, parts)
    }

    /// A module no enclosing folder holds, found in a script folder elsewhere in the project:
    /// `from config import cfg` in `common/base.py`, which `main/train.py` imports after
    /// putting `common` on `sys.path`, reads `main/config.py`, from the folder of the script
    /// run. Only a module one folder of the project holds, outside any package, is taken:
    /// with two, which one a run imports depends on `sys.path`, unless one is nearer the
    /// importing file than the others: `2D-TAN/moment_localization/train.py` puts
    /// `2D-TAN/lib` on `sys.path` (an `_init_paths` module), not the `lib` of a sibling
    /// project of the same repository.
    fn script_folder_module(
        &self,
        root: &Path,
        from_file: &Path,
        parts: &[&str],
    ) -> Option<PathBuf> {
        self.reader.as_ref()?;
        let modules = {
            let known = lock(&self.script_modules).get(root).cloned();
            match known {
                Some(modules) => modules,
                None => {
                    let modules = Arc::new(script_modules(&self.listing(root)));
                    lock(&self.script_modules).insert(root.to_path_buf(), Arc::clone(&modules));
                    modules
                }
            }
        };
        let found: Vec<PathBuf> = modules
            .get(*parts.first()?)?
            .iter()
            .filter_map(|folder| self.existing(folder, parts))
            .collect();
        nearest(from_file, found)
    }

    /// `base/a/b.py` or `base/a/b/__init__.py` for `parts` `[a, b]`, if the file exists.
    fn existing(&self, base: &Path, parts: &[&str]) -> Option<PathBuf> {
        let mut module = base.to_path_buf();
        module.extend(parts);
        let mut candidates = Vec::with_capacity(2);
        if !parts.is_empty() {
            let mut file = OsString::from(module.as_os_str());
            file.push(".py");
            candidates.push(PathBuf::from(file));
        }
        candidates.push(module.join("__init__.py"));
        candidates.into_iter().find(|path| self.exists(path))
    }

    fn exists(&self, path: &Path) -> bool {
        let known = self
            .lock()
            .get(path)
            .is_some_and(|slot| slot.get().is_some_and(Option::is_some));
        known || (self.reader.is_some() && self.is_file(path))
    }

    /// Whether `path` is a file on disk, asked once per path: the imports of files in
    /// neighbouring folders try the same candidates in their common ancestors.
    fn is_file(&self, path: &Path) -> bool {
        self.module_memo(|modules| &mut modules.files, path, || path.is_file())
    }

    /// The file's entry, summarised now if no thread has yet.
    /// `source` is the file's text when the caller has read it already.
    fn entry(&self, path: &Path, source: Option<String>) -> Option<Arc<Entry>> {
        let slot = Arc::clone(self.lock().entry(path.to_owned()).or_default());
        slot.get_or_init(|| {
            let source = match source {
                Some(source) => source,
                None => (self.reader.as_ref()?)(path)?,
            };
            let tree = crate::python::parse(&source, None)?;
            Some(Arc::new(Entry::of(path, &source, &tree)))
        })
        .clone()
    }

    /// The file's entry if it was summarised: `Some(None)` when it could not be read.
    fn summarised(&self, path: &Path) -> Option<Option<Arc<Entry>>> {
        self.lock().get(path).and_then(|slot| slot.get().cloned())
    }

    fn put(&self, path: &Path, entry: Entry) {
        let slot = OnceLock::from(Some(Arc::new(entry)));
        self.lock().insert(path.to_owned(), Arc::new(slot));
        self.forget_modules();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<PathBuf, Arc<Slot>>> {
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The memoised answer for the parameter `external` of `helper`, else `find`'s, found with
/// the parameter marked as sought on this thread: a cycle of helpers, or more than
/// [`MAX_CALLER_HOPS`] of them, answers `blocked`.
fn seek<T: Clone>(
    memo: &Mutex<HashMap<(PathBuf, External), T>>,
    helper: &Path,
    external: &External,
    blocked: T,
    find: impl FnOnce() -> T,
) -> T {
    let key = (helper.to_path_buf(), external.clone());
    if let Some(found) = lock(memo).get(&key) {
        return found.clone();
    }
    let entered = SEEKING.with(|seeking| {
        let mut seeking = seeking.borrow_mut();
        if seeking.len() >= MAX_CALLER_HOPS || seeking.contains(&key) {
            return false;
        }
        seeking.push(key.clone());
        true
    });
    if !entered {
        return blocked;
    }
    let found = find();
    SEEKING.with(|seeking| seeking.borrow_mut().pop());
    lock(memo).insert(key, found.clone());
    found
}

/// The names a file imports what `file` defines through: its module, and each package above
/// whose `__init__.py` (read by `read`) re-exports from the one below (`from .defaults import
/// _C as cfg` makes `seg.config.cfg`).
fn import_names_of(file: &Path, read: impl Fn(&Path) -> Option<String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut module = file.to_path_buf();
    loop {
        let is_init = module.file_stem().is_some_and(|s| s == "__init__");
        let name = match is_init {
            true => module.parent().and_then(Path::file_name),
            false => module.file_stem(),
        };
        let Some(name) = name.and_then(|n| n.to_str()).map(str::to_owned) else {
            break;
        };
        let package = match is_init {
            true => module.parent().and_then(Path::parent),
            false => module.parent(),
        };
        names.push(name.clone());
        let Some(init) = package.map(|p| p.join("__init__.py")) else {
            break;
        };
        if !read(&init).is_some_and(|text| text.contains(&name)) {
            break;
        }
        module = init;
    }
    names
}

/// The files that may call a name ([`ProjectIndex::caller_candidates`]); `None` when there
/// are too many.
type Naming = Option<Arc<Vec<PathBuf>>>;

/// Whether `source` names `name` as a value of a dict literal (`'K-Adapter': AdapterTrainer`):
/// a byte test before the file is parsed for its dicts of classes.
fn names_as_dict_value(source: &str, name: &str) -> bool {
    crate::python::syntax::contains_word_after(source, name, |before| {
        before.trim_end().ends_with(':')
    })
}

/// Whether `text` may write the config key `key` other than by assigning the attribute:
/// by a name it does not spell (`setattr`, `__dict__`, a merge) or by the key in quotes.
pub(crate) fn writes_unnamed_or_quoted(text: &str, key: &str) -> bool {
    let has = |word: &str| memchr::memmem::find(text.as_bytes(), word.as_bytes()).is_some();
    writes_unnamed(text) || has(&format!("\"{key}\"")) || has(&format!("'{key}'"))
}

/// Whether `source`, which imports the module of the class `class` and names it, may set the
/// attribute `key` of its instances: it assigns an attribute `key` on an object that may be one
/// (`dm.num_workers = 4`; see [`may_hold_instance`]), or sets attributes by computed name (the
/// builtin `setattr(`, `__dict__[k] = v`, `__dict__.update(...)`, `vars(x).update(...)`). A file
/// that defines a class of the same name speaks of its own.
fn writes_instances(source: &str, class: &str, key: &str) -> bool {
    let bytes = source.as_bytes();
    let has = |word: &str| memchr::memmem::find(bytes, word.as_bytes()).is_some();
    if has(&format!("class {class}(")) || has(&format!("class {class}:")) {
        return false;
    }
    // Not `monkeypatch.setattr(`, a method of another object.
    let builtin_setattr = memchr::memmem::find_iter(bytes, b"setattr(").any(|at| {
        at.checked_sub(1)
            .and_then(|before| bytes.get(before))
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.')))
    });
    builtin_setattr
        || has("__dict__[")
        || has("__dict__.update(")
        || (has("vars(") && has(").update("))
        || assigns_on_instance(source, class, key)
}

/// Names scripts give the namespace or config they tune before building objects from it
/// (`args.num_workers = min(args.num_workers, 16)` beside `DataModule(**vars(args))`).
const NAMESPACE_NAMES: &[&str] = &[
    "args", "arg", "opt", "opts", "option", "options", "cfg", "cfgs", "config", "conf", "configs",
    "hparams", "hp", "hps", "hyp", "params", "flags", "FLAGS",
];

/// Whether `source` assigns the attribute `key` (`x.key = ...`, `x.key += ...`) on an object
/// that may be an instance of `class` (see [`may_hold_instance`]).
fn assigns_on_instance(source: &str, class: &str, key: &str) -> bool {
    let bytes = source.as_bytes();
    let attribute = format!(".{key}");
    memchr::memmem::find_iter(bytes, attribute.as_bytes())
        .filter(|at| assigned_at(bytes, at + attribute.len()))
        .any(|at| may_hold_instance(source, class, object_before(bytes, at)))
}

/// The plain name written right before the `.` at `dot` (`args` of `args.workers`); `None`
/// for anything else (`self.dm`, `get()`, `x[0]`), which may hold anything.
fn object_before(bytes: &[u8], dot: usize) -> Option<&str> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let start = bytes[..dot]
        .iter()
        .rposition(|b| !is_name(b))
        .map_or(0, |i| i + 1);
    let after_dot = start > 0 && bytes.get(start - 1) == Some(&b'.');
    if start == dot || after_dot {
        return None;
    }
    std::str::from_utf8(&bytes[start..dot]).ok()
}

/// Whether an attribute write on `object` (a plain name, `None` for any other expression) may
/// change an instance of `class`. Not when the name is one scripts give their namespace or
/// config (unless `class` is itself such a class, `Config`), nor `self` in a file none of whose
/// classes names `class` in its header (`self` is then an instance of another class).
fn may_hold_instance(source: &str, class: &str, object: Option<&str>) -> bool {
    let Some(object) = object else {
        return true;
    };
    if object == "self" {
        return source
            .lines()
            .map(str::trim_start)
            .filter(|line| line.starts_with("class "))
            .any(|header| header.contains(class));
    }
    let lowered = class.to_ascii_lowercase();
    let config_like = ["config", "cfg", "opt", "arg", "param", "flag", "option"]
        .iter()
        .any(|w| lowered.contains(w));
    config_like || !NAMESPACE_NAMES.contains(&object)
}

/// The text of the module-level `def name(` of `source`, up to the next statement that
/// starts a line; `None` when there is no such definition, or more than one.
fn top_level_def<'s>(source: &'s str, name: &str) -> Option<&'s str> {
    let header = format!("def {name}(");
    let mut starts = source
        .match_indices(&header)
        .map(|(at, _)| at)
        .filter(|at| *at == 0 || source.as_bytes().get(at - 1) == Some(&b'\n'));
    let (start, None) = (starts.next()?, starts.next()) else {
        return None;
    };
    let rest = &source[start..];
    let mut end = rest.len();
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        let top_level = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '#' && c != ')');
        if i > 0 && top_level {
            end = offset;
            break;
        }
        offset += line.len();
    }
    rest.get(..end)
}

/// Whether `source` may write config keys it does not name: it sets attributes by computed
/// name (`setattr`, `__dict__` other than read, as `self.opt.__dict__.copy()` to save the
/// options) or merges into a yacs config (`merge_from_file`).
fn writes_unnamed(source: &str) -> bool {
    let bytes = source.as_bytes();
    let has = |word: &[u8]| memchr::memmem::find(bytes, word).is_some();
    has(b"setattr(")
        || has(b"merge_from_")
        || memchr::memmem::find_iter(bytes, b"__dict__").any(|at| {
            let after = bytes.get(at + b"__dict__".len()..).unwrap_or_default();
            !DICT_READS.iter().any(|read| after.starts_with(read))
        })
}

/// What follows `__dict__` when the mapping is only read.
const DICT_READS: &[&[u8]] = &[b".copy()", b".items()", b".keys()", b".values()", b".get("];

/// Whether `source` writes the config key `key`: `cfg.num_workers = 4`, or
/// `hparams.set_hparam("num_workers", 4)` and the like (the key in quotes). `self.num_workers
/// = cfg.num_workers` sets an attribute of an object of the file's own, not the config's.
fn writes_key(source: &str, key: &str) -> bool {
    let has = |word: &str| memchr::memmem::find(source.as_bytes(), word.as_bytes()).is_some();
    let quoted = |q: char| has(&format!("{q}{key}{q}"));
    let attribute = format!(".{key}");
    let bytes = source.as_bytes();
    let on_self = |at: usize| {
        bytes[..at].ends_with(b"self")
            && at
                .checked_sub(5)
                .and_then(|before| bytes.get(before))
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.')))
    };
    memchr::memmem::find_iter(bytes, attribute.as_bytes())
        .any(|at| !on_self(at) && assigned_at(bytes, at + attribute.len()))
        || quoted('"')
        || quoted('\'')
}

/// Whether the attribute name ending at `end` of `bytes` is assigned there (not a longer
/// name, not a comparison).
fn assigned_at(bytes: &[u8], end: usize) -> bool {
    let rest = &bytes[end..];
    let longer = rest
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    !longer && syntax::assigns_after(rest)
}

/// How many classes of one file a header check follows through its bases.
const MAX_HEADER_DEPTH: u32 = 4;

/// The bases of the module-level class `name` of `source`, qualified through the file's
/// imports (`#Name` for a class of the same file), read from the import statements and the
/// class's header alone. `None` when the header is not a plain module-level one.
fn header_bases(file: &Path, source: &str, name: &str) -> Option<Vec<String>> {
    let header = class_header(source, name)?;
    let mut mini = module_imports(source);
    mini.push_str(&header);
    mini.push_str("\n    pass\n");
    let tree = crate::python::parse(&mini, None)?;
    let no_index = ProjectIndex::default();
    let m = Module::build_definitions(&mini, &tree, file, &no_index, Catalogue::builtin_ref());
    let binding = m.single_binding(name, MODULE_SCOPE)?;
    let BindingKind::Class(id) = binding.kind else {
        return None;
    };
    Some(subclass::class_shape(&m, id).bases)
}

/// The text of the header `class name(...):` at the start of a line of `source`, through the
/// colon that ends it.
fn class_header(source: &str, name: &str) -> Option<String> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let start = source.match_indices("class ").find_map(|(at, _)| {
        let at_line_start = at == 0 || source[..at].ends_with('\n');
        let rest = source[at + "class ".len()..].trim_start_matches([' ', '\t']);
        (at_line_start && rest.starts_with(name) && !rest[name.len()..].starts_with(is_ident))
            .then_some(at)
    })?;
    let mut depth = 0i32;
    for (offset, c) in source[start..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0 => return Some(source[start..start + offset + 1].to_owned()),
            '#' | '"' | '\'' => return None,
            _ => {}
        }
    }
    None
}

/// The module-level import statements of `source`, each through its closing parenthesis or
/// last continued line.
fn module_imports(source: &str) -> String {
    import_statements(source, false)
}

/// The import statements of `source` that start a line (indented ones too when `indented`),
/// each through its closing parenthesis or last continued line.
fn import_statements(source: &str, indented: bool) -> String {
    let mut out = String::new();
    let mut parens = 0usize;
    let mut continued = false;
    for line in source.lines() {
        let code = match indented {
            true => line.trim_start(),
            false => line,
        };
        let starts = code.starts_with("import ") || code.starts_with("from ");
        if !(parens > 0 || continued || starts) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        let code = line.split('#').next().unwrap_or(line);
        parens = (parens + code.matches('(').count()).saturating_sub(code.matches(')').count());
        continued = code.trim_end().ends_with('\\');
    }
    out
}

/// Whether `source` may define a class `name` or bring one in by that name: it holds
/// `class name` (then a parse says), or an import line that names it, imports `*`, or goes on
/// over several lines. A file with none of these cannot make `name` a class.
fn may_define_class(source: &str, name: &str) -> bool {
    defines_class(source, name) || may_import(source, name)
}

/// Whether `source` holds `class name`.
fn defines_class(source: &str, name: &str) -> bool {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = source.as_bytes();
    memchr::memmem::find_iter(bytes, name.as_bytes()).any(|at| {
        let after = bytes.get(at + name.len()).copied();
        let before = bytes[..at].trim_ascii_end();
        after.is_none_or(|b| !is_ident(b))
            && before.ends_with(b"class")
            && before.len() < at
            && bytes
                .get(before.len().wrapping_sub(6))
                .is_none_or(|b| !is_ident(*b))
    })
}

/// Whether an import statement of `source` (at any indentation: under `try:` or `if
/// TYPE_CHECKING:` too) may bring in `name`: its text, continued lines included, names it or
/// imports `*`.
fn may_import(source: &str, name: &str) -> bool {
    let imports = import_statements(source, true);
    imports.contains('*') || imports.contains(name)
}

/// Whether an import statement of `source` (at any indentation) names one of `names` as a
/// whole word (`from alphapose.opt import opt`, `from . import opt`; not `torch.optim`), or
/// imports `*`: only such a file can reach the module they name.
fn imports_a_name(source: &str, names: &[String]) -> bool {
    let imports = import_statements(source, true);
    imports.contains('*')
        || names
            .iter()
            .any(|name| crate::python::syntax::contains_word(&imports, name))
}

/// Whether `source` may give `name` a namespace parsed from the command line: only a file
/// that calls `parse_args` or `parse_known_args` itself records one (summaries are local), or
/// one that brings `name` in from another.
fn may_return_namespace(source: &str, name: &str) -> bool {
    let has = |word: &str| memchr::memmem::find(source.as_bytes(), word.as_bytes()).is_some();
    has("parse_args") || has("parse_known_args") || may_import(source, name)
}

/// Whether `source` declares a `@staticmethod` named `method` (of some class): a call of it
/// through the class (`DataModule.add_data_specific_args(parser)`) builds no instance.
fn declares_static_method(source: &str, method: &str) -> bool {
    decorated_def(source, "@staticmethod", method).is_some()
        || decorated_def(source, "@classmethod", method).is_some_and(|definition| {
            // `cls` once, as the first parameter: the method never makes an instance.
            definition.match_indices("cls").count() == 1
                && crate::python::syntax::contains_word(definition, "cls")
        })
}

/// The text of `def method(...)` right under `decorator`: up to the next line indented no
/// deeper than the decorator.
fn decorated_def<'s>(source: &'s str, decorator: &str, method: &str) -> Option<&'s str> {
    source.match_indices(decorator).find_map(|(at, _)| {
        let line_start = source.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
        let indent = at - line_start;
        let rest = source.get(at + decorator.len()..)?;
        let def = rest.trim_start();
        let named = def
            .strip_prefix("def ")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(method))
            .is_some_and(|r| r.trim_start().starts_with('('));
        if !named {
            return None;
        }
        let mut end = def.find('\n').map_or(def.len(), |i| i + 1);
        for line in def.get(end..)?.split_inclusive('\n') {
            let content = line.trim_start();
            let deeper = line.len() - content.len() > indent;
            if !content.trim().is_empty() && !deeper && !content.starts_with(')') {
                break;
            }
            end += line.len();
        }
        def.get(..end)
    })
}

/// Adds the calls of `class` under `root` to `found`, and to `runs` the references a
/// command line runs (see [`fire_runs`]); `None` at a use of the name that is neither a call
/// nor an import (a subclass, the class handed on, another class of that name), unless it
/// calls a static method of the class (`is_static`).
fn constructions_in<'t>(
    source: &str,
    root: Node<'t>,
    class: &str,
    is_static: &dyn Fn(&str) -> bool,
    found: &mut Vec<Node<'t>>,
    runs: &mut Vec<Node<'t>>,
    subclasses: &mut Vec<Node<'t>>,
) -> Option<()> {
    let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
    // A file that defines a class of that name itself (a copy of the script) builds its own.
    let mut cursor = root.walk();
    let defines = root.named_children(&mut cursor).any(|statement| {
        let definition = match statement.kind() {
            "decorated_definition" => statement.child_by_field_name("definition"),
            _ => Some(statement),
        };
        definition
            .filter(|d| matches!(d.kind(), "class_definition" | "function_definition"))
            .and_then(|d| d.child_by_field_name("name"))
            .is_some_and(|n| text(n) == class)
    });
    if defines {
        return Some(());
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() != "identifier" || text(node) != class {
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
            continue;
        }
        let named = node
            .parent()
            .filter(|p| p.kind() == "attribute" && p.child_by_field_name("attribute") == Some(node))
            .unwrap_or(node);
        let mut ancestors = std::iter::successors(Some(named), |n| n.parent());
        if ancestors.any(|n| matches!(n.kind(), "import_from_statement" | "import_statement")) {
            continue;
        }
        let static_call = named
            .parent()
            .filter(|a| a.kind() == "attribute" && a.child_by_field_name("object") == Some(named))
            .and_then(|a| a.child_by_field_name("attribute"))
            .is_some_and(|method| is_static(source.get(method.byte_range()).unwrap_or("")));
        // `ImagenetDataProvider.DEFAULT_PATH = path`, `Class.name`: an attribute of the class
        // read or set, not called, builds nothing.
        let attribute_only = named
            .parent()
            .filter(|a| a.kind() == "attribute" && a.child_by_field_name("object") == Some(named))
            .is_some_and(|a| {
                a.parent().is_none_or(|p| {
                    p.kind() != "call" || p.child_by_field_name("function") != Some(a)
                })
            });
        // `DInterface.__init__(self, ...)` in a subclass's constructor: read with the subclass
        // (its header is found too).
        let base_init = named
            .parent()
            .filter(|a| a.kind() == "attribute" && a.child_by_field_name("object") == Some(named))
            .and_then(|a| a.child_by_field_name("attribute"))
            .is_some_and(|method| text(method) == "__init__")
            && std::iter::successors(named.parent(), |n| n.parent())
                .find(|n| n.kind() == "class_definition")
                .and_then(|c| c.child_by_field_name("superclasses"))
                .is_some_and(|bases| {
                    let mut cursor = bases.walk();
                    bases
                        .named_children(&mut cursor)
                        .any(|b| text(b) == class || text(b).ends_with(&format!(".{class}")))
                });
        if static_call || attribute_only || base_init {
            continue;
        }
        if fire_runs(source, named) {
            runs.push(named);
            continue;
        }
        let parent = named.parent()?;
        // A class header naming it as a base: read through that class's constructor.
        if let Some(header) = parent
            .parent()
            .filter(|h| parent.kind() == "argument_list" && h.kind() == "class_definition")
            .filter(|h| h.child_by_field_name("superclasses") == Some(parent))
        {
            subclasses.push(header);
            continue;
        }
        // `DataProviderClass = ImagenetDataProvider` in a branch, then
        // `DataProviderClass(n_worker=...)`: the alias's calls build the class.
        if parent.kind() == "assignment" && parent.child_by_field_name("right") == Some(named) {
            alias_calls(source, parent, found)?;
            continue;
        }
        if parent.kind() != "call" || parent.child_by_field_name("function") != Some(named) {
            return None;
        }
        found.push(parent);
    }
    Some(())
}

/// Whether `source` may pick a function of the module `module` by name: a `getattr(` whose
/// object is a name or dotted name ending in `module` (`getattr(hcsc.loader, args.dataset)`).
fn picks_from_text(source: &str, module: &str) -> bool {
    source.match_indices("getattr(").any(|(at, needle)| {
        let rest = source[at + needle.len()..].trim_start();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        rest[..end].rsplit('.').next() == Some(module) && rest[end..].trim_start().starts_with(',')
    })
}

/// The module (as `m` qualifies it) whose `function` the builtin call `getattr(module, name)`
/// may pick, by a computed name or that string: `hcsc.loader` for `getattr(hcsc.loader,
/// args.dataset)`. The caller checks the module defines the function.
pub(crate) fn picked_module(m: &Module, getattr: Node, function: &str) -> Option<String> {
    let scope = m.scope_at(getattr);
    let callee = getattr.child_by_field_name("function")?;
    if getattr.kind() != "call"
        || m.qualified_in(callee, scope, 0).as_deref() != Some("builtins.getattr")
    {
        return None;
    }
    let args = getattr.child_by_field_name("arguments")?;
    let name = args.named_child(1)?;
    if name.kind() == "string" && m.string_value(name).is_none_or(|n| n != function) {
        return None;
    }
    m.qualified_in(args.named_child(0)?, scope, 0)
}

/// The calls `getattr(module, ...)` of `root`, the object named as [`picks_from_text`] reads
/// it; [`picked_module`] says which may pick a given function.
fn picks_in<'t>(source: &str, root: Node<'t>, module: &str, found: &mut Vec<Node<'t>>) {
    let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() != "call"
            || node.child_by_field_name("function").map(text) != Some("getattr")
        {
            continue;
        }
        let Some(args) = node.child_by_field_name("arguments") else {
            continue;
        };
        if args
            .named_child(0)
            .is_some_and(|o| text(o).rsplit('.').next() == Some(module))
        {
            found.push(node);
        }
    }
}

/// Whether `reference` is what Python Fire runs: `Fire(train)`, or a value of the dict of
/// commands it is given (`Fire({'train': src.train.train})`).
fn fire_runs(source: &str, reference: Node) -> bool {
    let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
    let mut argument = reference;
    if let Some(pair) = reference
        .parent()
        .filter(|p| p.kind() == "pair" && p.child_by_field_name("value") == Some(reference))
    {
        match pair.parent().filter(|d| d.kind() == "dictionary") {
            Some(dict) => argument = dict,
            None => return false,
        }
    }
    let Some(call) = argument
        .parent()
        .filter(|a| a.kind() == "argument_list")
        .and_then(|a| a.parent())
    else {
        return false;
    };
    let first = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0));
    let callee = call.child_by_field_name("function").map(text);
    first == Some(argument) && matches!(callee, Some("Fire" | "fire.Fire"))
}

/// The calls of the local name `assignment` binds to a class (`Alias = Class`), in the
/// function holding the assignment: `None` when the target is not a plain name, or the name
/// is used there other than by calling it or binding it again.
fn alias_calls<'t>(source: &str, assignment: Node<'t>, found: &mut Vec<Node<'t>>) -> Option<()> {
    let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
    let target = assignment.child_by_field_name("left")?;
    if target.kind() != "identifier" {
        return None;
    }
    let alias = text(target);
    let body = std::iter::successors(assignment.parent(), |n| n.parent())
        .find(|n| n.kind() == "function_definition")?;
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        if node.kind() != "identifier" || text(node) != alias {
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
            continue;
        }
        let parent = node.parent()?;
        match parent.kind() {
            "assignment" if parent.child_by_field_name("left") == Some(node) => {}
            "call" if parent.child_by_field_name("function") == Some(node) => found.push(parent),
            _ => return None,
        }
    }
    Some(())
}

/// What the call `call` of the caller's file `m` passes (see [`Construction`]); `None` with
/// `*args` or `**kwargs`.
fn construction(m: &Module, call: Node) -> Option<Construction> {
    let mut out = Construction {
        keywords: Vec::new(),
        positional: 0,
        values: Vec::new(),
        in_tests: false,
        command_line: false,
    };
    let mut positional = Vec::new();
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                out.keywords
                    .push(m.text(arg.child_by_field_name("name")?).to_owned());
                out.values
                    .push(handed_on(m, call, arg.child_by_field_name("value")?));
            }
            // `make_loader(args, **kwargs)` with `kwargs` a dict written in the caller, or
            // `make_dataloaders(**conf["training"])` with a mapping of a YAML config.
            "dictionary_splat" => {
                let scope = m.scope_at(call);
                if let Some(keys) = crate::python::loaders::unpacked_keys(m, arg, call, scope) {
                    for key in keys {
                        if key.conditional {
                            return None;
                        }
                        out.keywords.push(key.name.clone());
                        out.values.push(handed_on(m, call, key.value));
                    }
                    continue;
                }
                let mapping = arg.named_child(0)?;
                for (key, value) in configs::mapping_entries(m, mapping, scope, 0)? {
                    out.keywords.push(key);
                    out.values.push(written_in_call(m, mapping, value));
                }
            }
            "list_splat" => return None,
            "comment" => {}
            _ => {
                out.positional += 1;
                positional.push(handed_on(m, call, arg));
            }
        }
    }
    out.values.extend(positional);
    Some(out)
}

/// What `value`, an argument of a subclass constructor's `super().__init__` call in `m`, is
/// for the construction `c` of the subclass (`init` its constructor): what `c` gives a
/// parameter handed on as it is, else that parameter's default; anything else as `m` has it.
/// Inside, `None` when unknown; `None` when `c` leaves a required parameter out.
/// What a subclass's constructor hands its base through its own `*args` and `**kwargs`.
struct Forwarded {
    /// The constructor's own parameters (after `self`), by name.
    params: Vec<String>,
    /// How many of them a construction's positional arguments fill before `*args` takes the
    /// rest; `None` when `*args` is not handed on.
    positional: Option<usize>,
    /// `**kwargs` is handed on.
    keywords: bool,
}

impl Forwarded {
    /// `None` when the call hands on anything else unpacked, or a positional argument after
    /// `*args`.
    fn of(summary: &subclass::InitSummary) -> Option<Forwarded> {
        let call = summary.call.as_ref()?;
        if call.unknown_splat {
            return None;
        }
        let positional = match (call.splat_args, &summary.args) {
            // Explicit positional arguments of the call come before `*args`: they are the
            // ones the call writes, already counted.
            (Some(_), Some((_, before))) => Some(*before),
            (Some(_), None) => return None,
            (None, _) => None,
        };
        Some(Forwarded {
            params: summary
                .params
                .iter()
                .map(|(name, _)| name.clone())
                .collect(),
            positional,
            keywords: call.splat_kwargs,
        })
    }

    /// Adds to the base's arguments what the construction `c` of the subclass passes
    /// through `*args` and `**kwargs`.
    fn hand_on(
        &self,
        c: &Construction,
        keywords: &mut Vec<String>,
        values: &mut Vec<Option<Resolved>>,
        positional: &mut Vec<Option<Resolved>>,
    ) {
        if self.keywords {
            for (i, keyword) in c.keywords.iter().enumerate() {
                if !self.params.contains(keyword) {
                    keywords.push(keyword.clone());
                    values.push(c.values.get(i).cloned().flatten());
                }
            }
        }
        if let Some(before) = self.positional {
            for i in before..c.positional {
                positional.push(c.values.get(c.keywords.len() + i).cloned().flatten());
            }
        }
    }
}

fn passed_through(
    m: &Module,
    init: &crate::python::model::FunctionDef,
    c: &Construction,
    call: Node,
    value: Node,
) -> Option<Option<Resolved>> {
    if value.kind() == "identifier"
        && let Some(param) = m.single_binding(m.text(value), init.scope)
        && param.kind == BindingKind::Parameter
    {
        let name = m.text(value);
        let (position, keyword_only) = argparse::parameter_position(m, init.node, name)?;
        let index = position.checked_sub(1).filter(|_| !keyword_only);
        let by_position = index.is_some_and(|i| i < c.positional);
        if by_position || c.keywords.iter().any(|k| k == name) {
            return Some(c.value(name, index).cloned());
        }
        let default = argparse::parameter_default(param.node.parent()?)?;
        return Some(handed_on(m, call, default));
    }
    Some(handed_on(m, call, value))
}

/// The value of `value`, an argument of `call` in the caller's file `m`, when it is the
/// default of one of that file's command-line options or of a parameter of its functions
/// (`make_dataloader(num_workers=12)` handing `num_workers` on): recorded with its file and
/// the call that hands it on, as a namespace handed to another file is.
/// A known value the call at `value` passes, named by the callee after its parameter (the
/// function and parameter are filled in there).
fn written_in_call(m: &Module, value: Node, resolved: Resolved) -> Option<Resolved> {
    resolved.value.is_known().then(|| Resolved {
        value: resolved.value,
        provenance: Provenance::ParameterPassed {
            function: String::new(),
            param: String::new(),
            line: m.line(value.start_byte()),
            at: Module::range(value),
            file: Some(m.path.to_path_buf()),
        },
    })
}

fn handed_on(m: &Module, call: Node, value: Node) -> Option<Resolved> {
    let mut resolved = m.value_of(value);
    if !resolved.value.is_known() {
        return None;
    }
    // Written in the call, bound once in its file or read from a config there: the callee
    // names it after its parameter, and points at the call.
    if matches!(
        resolved.provenance,
        Provenance::Literal
            | Provenance::Computed
            | Provenance::Constant { .. }
            | Provenance::ImportedConstant { .. }
            | Provenance::ConfigFile { .. }
            | Provenance::ConfigDefault { .. }
            | Provenance::Shipped { .. }
            | Provenance::RunConfig { .. }
            | Provenance::RunOverride { .. }
            | Provenance::FieldDefault { .. }
            | Provenance::FlagDefault { .. }
    ) {
        return written_in_call(m, value, resolved);
    }
    let (Provenance::ArgparseDefault { file, via, .. }
    | Provenance::ParameterDefault { file, via, .. }) = &mut resolved.provenance
    else {
        return None;
    };
    if file.is_none() {
        *file = Some(m.path.to_path_buf());
    }
    if via.is_none() {
        *via = Some(Box::new(Via {
            call: argparse::squeezed(m.text(call)),
            file: m.path.to_path_buf(),
            line: m.line(call.start_byte()),
        }));
    }
    Some(resolved)
}

/// The files of `files` other than `file` whose text holds every one of `needles`, with it.
fn mentioning<'f>(
    reader: &'f Reader,
    files: &'f [PathBuf],
    file: &'f Path,
    needles: &'f [&str],
) -> impl Iterator<Item = (&'f PathBuf, String)> {
    let (modules, in_package) = import_names(file);
    let has = |source: &str, word: &str| {
        memchr::memmem::find(source.as_bytes(), word.as_bytes()).is_some()
    };
    files
        .iter()
        .filter(move |p| p.as_path() != file)
        .filter_map(move |path| {
            let source = reader(path)?;
            // Another file reaches a name of `file` only through an import that writes the
            // module's name or a package's above it, a relative one, or one by a name computed
            // at run time (`importlib.import_module("lib.train.settings.%s" % name)`).
            let imports = modules.iter().any(|m| has(&source, m))
                || (in_package && has(&source, "from ."))
                || has(&source, "import_module(");
            (imports && needles.iter().all(|n| has(&source, n))).then_some((path, source))
        })
}

/// The names an import of `file`'s module may write (the module's own, unless it is a
/// package's `__init__`, and those of the packages above it: the folders with an
/// `__init__.py`), and whether it is in a package (so a relative import may name none).
fn import_names(file: &Path) -> (Vec<String>, bool) {
    let mut names = Vec::new();
    if let Some(stem) = file.file_stem().and_then(|s| s.to_str())
        && stem != "__init__"
    {
        names.push(stem.to_owned());
    }
    let mut in_package = false;
    let mut folder = file.parent();
    while let Some(dir) = folder.filter(|d| d.join("__init__.py").is_file()) {
        in_package = true;
        if let Some(name) = dir.file_name().and_then(|n| n.to_str()) {
            names.push(name.to_owned());
        }
        folder = dir.parent();
    }
    (names, in_package)
}

/// Whether `path` (taken relative to the project's `root` where it has one) is a test file by
/// the conventions of pytest and unittest.
fn is_test_file(root: Option<&Path>, path: &Path) -> bool {
    let path = root.and_then(|r| path.strip_prefix(r).ok()).unwrap_or(path);
    let in_test_folder = path.parent().is_some_and(|folder| {
        folder
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some("test" | "tests" | "testing")))
    });
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    in_test_folder
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// The Python files under `base` (`max_depth` 1: only those directly in it), honouring ignore
/// files. A relative path's folder may be the empty path: the current folder, whose files are
/// named as the importing files are (`main.py`, not `./main.py`).
fn python_files(base: &Path, max_depth: Option<usize>) -> Vec<PathBuf> {
    fs::files_under(base, max_depth, false, |p| {
        p.extension().is_some_and(|e| e == "py")
    })
    .collect()
}

/// The top-level modules of `files` by name: `main/config.py` gives `config` → `main`, and
/// `common/utils/dir.py` gives `utils` → `common` as well as `dir` → `common/utils`, for
/// each folder that is no package (holds no `__init__.py`).
fn script_modules(files: &[PathBuf]) -> ScriptModules {
    let packages: HashSet<&Path> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "__init__.py"))
        .filter_map(|f| f.parent())
        .collect();
    let mut modules: ScriptModules = HashMap::new();
    let mut add = |name: &str, folder: &Path| {
        let folders = modules.entry(name.to_owned()).or_default();
        if !folders.iter().any(|f| f == folder) {
            folders.push(folder.to_path_buf());
        }
    };
    for file in files {
        let mut item: &Path = file;
        while let Some(folder) = item.parent() {
            if !packages.contains(folder) {
                let name = match item == file.as_path() {
                    true => item.file_stem(),
                    false => item.file_name(),
                };
                if let Some(name) = name.and_then(|n| n.to_str()) {
                    add(name, folder);
                }
            }
            item = folder;
            if folder.as_os_str().is_empty() {
                break;
            }
        }
    }
    modules
}

/// The one file of `found` whose folder shares the most leading folders with `from_file`'s;
/// `None` when none is found or several are as near.
fn nearest(from_file: &Path, found: Vec<PathBuf>) -> Option<PathBuf> {
    let shared = |file: &Path| {
        file.components()
            .zip(from_file.components())
            .take_while(|(a, b)| a == b)
            .count()
    };
    let best = found.iter().map(|f| shared(f)).max()?;
    let mut nearest = found.into_iter().filter(|f| shared(f) == best);
    let file = nearest.next()?;
    nearest.next().is_none().then_some(file)
}

/// The key of the summary's `namespaces_returned` for a function whose returned tuple holds
/// the namespace first (`return args, unparsed`).
fn first_item_key(function: &str) -> String {
    format!("{function}[0]")
}

/// A project file's text from disk; `None` for a file too large to be code, or not UTF-8.
pub fn read_file(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// `..pkg.data.X` → (2, [pkg, data], X); `.X` → (1, [], X); `pkg.X` → (0, [pkg], X).
fn split_qualified(qualified: &str) -> Option<(usize, Vec<&str>, &str)> {
    let level = qualified.chars().take_while(|c| *c == '.').count();
    let rest = &qualified[level..];
    let (module, name) = match rest.rsplit_once('.') {
        Some((module, name)) => (module, name),
        None if level > 0 => ("", rest),
        None => return None,
    };
    if name.is_empty() {
        return None;
    }
    let parts = module.split('.').filter(|p| !p.is_empty()).collect();
    Some((level, parts, name))
}

/// `name` imported from `module`: `from . import x` is `.x`, `from .m import x` is `.m.x`.
fn join_module(module: &str, name: &str) -> String {
    if module.ends_with('.') {
        format!("{module}{name}")
    } else {
        format!("{module}.{name}")
    }
}

/// Where the names a file imports come from, as the model qualifies them.
#[derive(Debug, Default, PartialEq, Eq)]
struct Imports {
    /// Local name → qualified name (`X` → `.data.X`).
    names: HashMap<String, String>,
    /// Modules of `from m import *`.
    stars: Vec<String>,
}

impl Imports {
    fn of(source: &str, tree: &Tree) -> Imports {
        let mut imports = Imports::default();
        imports.collect(source, tree.root_node(), 0);
        imports
    }

    /// Module-level imports, including those under `try:`/`if` (`try: from .fast import X
    /// except ImportError: from .slow import X`: the first one says where `X` comes from).
    fn collect(&mut self, source: &str, node: Node, depth: u8) {
        let text = |n: Node| source.get(n.byte_range()).unwrap_or("");
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "import_from_statement" => {
                    let Some(module) = child.child_by_field_name("module_name").map(text) else {
                        continue;
                    };
                    let mut names = child.walk();
                    for name in child.children_by_field_name("name", &mut names) {
                        let (dotted, alias) = match name.kind() {
                            "aliased_import" => (
                                name.child_by_field_name("name").map(text),
                                name.child_by_field_name("alias").map(text),
                            ),
                            _ => (Some(text(name)), None),
                        };
                        let Some(dotted) = dotted.filter(|d| !d.is_empty()) else {
                            continue;
                        };
                        self.names
                            .entry(alias.unwrap_or(dotted).to_owned())
                            .or_insert_with(|| join_module(module, dotted));
                    }
                    let mut children = child.walk();
                    if child
                        .named_children(&mut children)
                        .any(|c| c.kind() == "wildcard_import")
                    {
                        self.stars.push(module.to_owned());
                    }
                }
                // `import argparse`, `import torch.distributed as dist`: the name the
                // statement binds (a star import of this module hands it on).
                "import_statement" => {
                    let mut names = child.walk();
                    for name in child.children_by_field_name("name", &mut names) {
                        let (bound, module) = match name.kind() {
                            "aliased_import" => {
                                let Some(module) = name.child_by_field_name("name").map(text)
                                else {
                                    continue;
                                };
                                let Some(alias) = name.child_by_field_name("alias").map(text)
                                else {
                                    continue;
                                };
                                (alias, module)
                            }
                            _ => {
                                let dotted = text(name);
                                let first = dotted.split('.').next().unwrap_or(dotted);
                                (first, first)
                            }
                        };
                        if !bound.is_empty() {
                            self.names
                                .entry(bound.to_owned())
                                .or_insert_with(|| module.to_owned());
                        }
                    }
                }
                "if_statement" | "try_statement" | "block" | "else_clause" | "elif_clause"
                | "except_clause" | "finally_clause"
                    if depth < 6 =>
                {
                    self.collect(source, child, depth + 1);
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "import torch\nclass Gpu:\n    def __getitem__(self, i):\n        return torch.zeros(1).cuda()\nclass Cpu:\n    def __getitem__(self, i):\n        return torch.zeros(1)\ndef to_gpu(b):\n    return b.to('cuda')\n";

    #[test]
    fn a_top_level_def_ends_where_the_next_statement_starts() {
        let source = "config = 1\n\ndef show(config):\n    print(config)\n\n# after\n    \ndef update(config, args):\n    config[k] = v\n)\nx = 2\n";
        assert_eq!(
            top_level_def(source, "show"),
            Some("def show(config):\n    print(config)\n\n# after\n    \n")
        );
        assert_eq!(
            top_level_def(source, "update"),
            Some("def update(config, args):\n    config[k] = v\n)\n")
        );
        assert_eq!(top_level_def(source, "missing"), None);
        // Two definitions of the name: which one runs is not told apart.
        assert_eq!(
            top_level_def("def f():\n    a\ndef f():\n    b\n", "f"),
            None
        );
        // A method of the same name is not a module-level definition.
        assert_eq!(
            top_level_def("class A:\n    def f(self):\n        a\n", "f"),
            None
        );
    }

    #[test]
    fn an_import_names_a_module_only_as_a_whole_word() {
        let names = ["opt".to_owned(), "alphapose".to_owned()];
        assert!(imports_a_name("from alphapose.opt import opt\n", &names));
        assert!(imports_a_name("    from . import opt\n", &names));
        assert!(imports_a_name("from x import *\n", &names));
        assert!(!imports_a_name(
            "import torch.optim as optim\nopt = 1\n",
            &names
        ));
        assert!(!imports_a_name("x = alphapose_opt\n", &names));
    }

    #[test]
    fn relative_and_absolute_imports() {
        let mut index = ProjectIndex::new();
        index.add_file(Path::new("/p/pkg/data.py"), DATA);
        let train = Path::new("/p/pkg/train.py");
        let gpu = index.class_facts(train, ".data.Gpu").expect("relative");
        assert_eq!(gpu.cuda.len(), 1);
        assert_eq!(
            gpu.cuda[0].file.as_deref(),
            Some(Path::new("/p/pkg/data.py"))
        );
        assert!(
            index
                .class_facts(train, ".data.Cpu")
                .expect("cpu")
                .cuda
                .is_empty()
        );
        assert!(index.class_facts(train, "pkg.data.Gpu").is_some());
        assert!(
            index
                .class_facts(Path::new("/p/run.py"), "pkg.data.Gpu")
                .is_some()
        );
        assert_eq!(
            index
                .function_facts(train, ".data.to_gpu")
                .expect("fn")
                .cuda
                .len(),
            1
        );
        assert!(index.class_facts(train, "other.data.Gpu").is_none());
        assert!(index.class_facts(train, "..data.Gpu").is_none());
        // A function is not a class, nor the other way round.
        assert!(index.class_facts(train, ".data.to_gpu").is_none());
        assert!(index.function_facts(train, ".data.Gpu").is_none());
        index.remove_file(Path::new("/p/pkg/data.py"));
        assert!(index.class_facts(train, ".data.Gpu").is_none());
    }

    #[test]
    fn packages_resolve_to_init() {
        let mut index = ProjectIndex::new();
        index.add_file(Path::new("/p/pkg/datasets/__init__.py"), DATA);
        assert!(
            index
                .class_facts(Path::new("/p/pkg/train.py"), ".datasets.Gpu")
                .is_some()
        );
        assert!(
            index
                .class_facts(Path::new("/p/main.py"), "pkg.datasets.Gpu")
                .is_some()
        );
        // `from . import Gpu` in a module of the package itself.
        assert!(
            index
                .class_facts(Path::new("/p/pkg/datasets/io.py"), ".Gpu")
                .is_some()
        );
    }

    #[test]
    fn qualified_names_split_into_module_and_name() {
        assert_eq!(
            split_qualified("..pkg.data.X"),
            Some((2, vec!["pkg", "data"], "X"))
        );
        assert_eq!(split_qualified(".X"), Some((1, vec![], "X")));
        assert_eq!(split_qualified("pkg.X"), Some((0, vec!["pkg"], "X")));
        assert_eq!(split_qualified("X"), None);
        assert_eq!(split_qualified("pkg."), None);
        assert_eq!(join_module(".", "x"), ".x");
        assert_eq!(join_module("..m", "x"), "..m.x");
    }

    /// A project on disk: nothing is read until a name is asked for, then only the files on
    /// the import path, and re-exports are followed to the defining file.
    #[test]
    fn follows_imports_on_disk_and_reads_only_those_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
            path
        };
        write("proj/__init__.py", "");
        // Two imports away: `proj.data` re-exports from `.impl`, which re-exports from
        // `.gpu` under another name.
        write(
            "proj/data/__init__.py",
            "try:\n    from .impl import *\nexcept ImportError:\n    pass\n",
        );
        write(
            "proj/data/impl.py",
            "from .gpu import Gpu as Images, to_gpu\n",
        );
        let gpu = write("proj/data/gpu.py", DATA);
        write("proj/unrelated.py", "x = 1\n");
        let train = write("scripts/train.py", "");

        let index = ProjectIndex::on_disk(vec![root.to_path_buf()]);
        assert!(index.is_empty(), "nothing is read up front");
        let def = index
            .definition(&train, "proj.data.Images")
            .expect("followed to the defining file");
        assert_eq!(def.file, gpu);
        assert_eq!(def.name, "Gpu");
        let facts = index
            .class_facts(&train, "proj.data.Images")
            .expect("the class");
        assert_eq!(facts.cuda.len(), 1);
        assert_eq!(facts.cuda[0].file.as_deref(), Some(gpu.as_path()));
        assert!(index.function_facts(&train, "proj.data.to_gpu").is_some());
        // The package, the two modules on the way, and nothing else.
        assert_eq!(index.len(), 3);
        assert!(index.definition(&train, "proj.data.Missing").is_none());
        assert!(
            index
                .definition(&train, "torch.utils.data.Dataset")
                .is_none()
        );

        // A file changed on disk: forgotten, then read again when next asked for.
        std::fs::write(
            &gpu,
            "class Gpu:\n    def __getitem__(self, i):\n        return i\n",
        )
        .expect("rewrite");
        assert!(index.invalidate(&gpu));
        assert!(!index.invalidate(&gpu), "already forgotten");
        let facts = index
            .class_facts(&train, "proj.data.Images")
            .expect("again");
        assert!(facts.cuda.is_empty());
    }

    /// Absolute imports are looked up from the importing file's folder outwards, but not
    /// beyond the project's root.
    #[test]
    fn absolute_imports_stop_at_the_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outer = dir.path();
        std::fs::create_dir_all(outer.join("proj/app")).expect("mkdir");
        std::fs::write(outer.join("shared.py"), DATA).expect("write");
        std::fs::write(outer.join("proj/near.py"), DATA).expect("write");
        let train = outer.join("proj/app/train.py");
        let index = ProjectIndex::on_disk(vec![outer.join("proj")]);
        assert!(index.class_facts(&train, "near.Gpu").is_some());
        assert!(index.class_facts(&train, "shared.Gpu").is_none());
        let unbounded = ProjectIndex::on_disk(Vec::new());
        assert!(unbounded.class_facts(&train, "shared.Gpu").is_some());
    }

    /// Where an import leads is asked of the disk once, and asked again after files come or
    /// go, or after the project's roots change.
    #[test]
    fn import_lookups_are_remembered_until_files_come_or_go() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let train = root.join("train.py");
        let index = ProjectIndex::on_disk(vec![root.to_path_buf()]);
        assert!(index.class_facts(&train, "data.Gpu").is_none());
        std::fs::write(root.join("data.py"), DATA).expect("write");
        assert!(
            index.class_facts(&train, "data.Gpu").is_none(),
            "remembered: the new file is not seen before the index hears of it"
        );
        index.forget_callers();
        assert!(index.class_facts(&train, "data.Gpu").is_some());

        std::fs::create_dir_all(root.join("pkg")).expect("mkdir");
        std::fs::write(root.join("pkg/near.py"), DATA).expect("write");
        let inner = root.join("pkg/train.py");
        assert!(index.class_facts(&inner, "data.Gpu").is_some());
        index.set_roots(vec![root.join("pkg")]);
        assert!(
            index.class_facts(&inner, "data.Gpu").is_none(),
            "the new root bounds the lookup"
        );
        assert!(index.class_facts(&inner, "near.Gpu").is_some());
    }

    /// Which files may write a shared config's key is forgotten at every edit; an edit that
    /// names the key asks for the files that read it to be analysed again.
    #[test]
    fn an_edit_that_writes_a_shared_key_is_seen() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let config = root.join("config.py");
        let train = root.join("train.py");
        std::fs::write(
            &config,
            "class Config:\n    num_thread = 30\n\ncfg = Config()\n",
        )
        .expect("write");
        std::fs::write(&train, "from config import cfg\n").expect("write");
        let index = ProjectIndex::on_disk(vec![root.to_path_buf()]);
        assert!(!index.may_write_shared(&config, "num_thread", false, None));
        let parse = |text: &str| crate::python::parse(text, None).expect("parses");
        let unrelated = "from config import cfg\nprint(cfg)\n";
        assert!(!index.refresh(&train, unrelated, &parse(unrelated)));
        // The analysis after the edit asks again.
        assert!(!index.may_write_shared(&config, "num_thread", false, None));
        let writes = "from config import cfg\ncfg.num_thread = 4\n";
        assert!(index.refresh(&train, writes, &parse(writes)));
        std::fs::write(&train, writes).expect("write");
        assert!(index.may_write_shared(&config, "num_thread", false, None));
    }

    /// A class header read for whether the class may be a loader is remembered for the
    /// file's other names, and read again once the file changes.
    #[test]
    fn a_class_header_is_read_again_after_its_file_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let loaders = root.join("loaders.py");
        let train = root.join("train.py");
        let model = "import torch\nfrom torch.utils.data import DataLoader\n\n\
                     class Fast(torch.nn.Module):\n    pass\n";
        std::fs::write(&loaders, model).expect("write");
        std::fs::write(&train, "from loaders import Fast\n").expect("write");
        let index = ProjectIndex::on_disk(vec![root.to_path_buf()]);
        let catalogue = Catalogue::builtin_ref();
        assert!(
            index
                .loader_class_shape(&train, "loaders.Fast", catalogue)
                .is_none()
        );
        assert_eq!(lock(&index.headers).len(), 1);
        assert!(
            index
                .loader_class_shape(&train, "loaders.Fast", catalogue)
                .is_none()
        );
        let loader = model.replace("torch.nn.Module", "DataLoader");
        std::fs::write(&loaders, &loader).expect("write");
        index.invalidate(&loaders);
        assert!(lock(&index.headers).is_empty());
        assert!(
            index
                .loader_class_shape(&train, "loaders.Fast", catalogue)
                .is_some()
        );
    }

    /// An edit re-summarises a file only if someone used its summary, and says whether what
    /// it defines changed.
    #[test]
    fn refresh_reports_changes_of_used_files_only() {
        let mut index = ProjectIndex::new();
        let data = Path::new("/p/pkg/data.py");
        let train = Path::new("/p/pkg/train.py");
        let unused = Path::new("/p/pkg/unused.py");
        let parse = |text: &str| crate::python::parse(text, None).expect("parses");
        assert!(!index.refresh(unused, DATA, &parse(DATA)));
        assert!(index.is_empty());
        index.add_file(data, DATA);
        assert!(index.class_facts(train, ".data.Gpu").is_some());
        let comment = format!("# a comment\n{DATA}");
        let shifted = index.refresh(data, &comment, &parse(&comment));
        assert!(
            shifted,
            "the CUDA call moved: its range is part of the facts"
        );
        assert!(!index.refresh(data, &comment, &parse(&comment)));
        let cpu = "class Gpu:\n    def __getitem__(self, i):\n        return i\n";
        assert!(index.refresh(data, cpu, &parse(cpu)));
        assert!(
            index
                .class_facts(train, ".data.Gpu")
                .expect("still defined")
                .cuda
                .is_empty()
        );
    }

    #[test]
    fn a_class_header_and_the_imports_are_read_without_the_rest_of_the_file() {
        let source = "\
import torch
from torch.utils.data import (
    DataLoader,  # the loader
    Dataset,
)
from .base import \\
    Base


class Model(torch.nn.Module):
    def forward(self, x):
        import math
        return x


class PadLoader(
    DataLoader,
):
    pass


class Local(Model, metaclass=Meta):
    pass
";
        let imports = module_imports(source);
        assert!(imports.contains("    Dataset,\n)\n"), "{imports}");
        assert!(imports.contains("    Base\n"), "{imports}");
        assert!(!imports.contains("math"), "{imports}");
        assert_eq!(
            class_header(source, "PadLoader").as_deref(),
            Some("class PadLoader(\n    DataLoader,\n):")
        );
        assert_eq!(class_header(source, "Pad"), None);
        let file = Path::new("pkg/models.py");
        assert_eq!(
            header_bases(file, source, "Model"),
            Some(vec!["torch.nn.Module".to_owned()])
        );
        assert_eq!(
            header_bases(file, source, "PadLoader"),
            Some(vec!["torch.utils.data.DataLoader".to_owned()])
        );
        assert_eq!(
            header_bases(file, source, "Local"),
            Some(vec!["#Model".to_owned()])
        );
        // A class under a condition is no plain module-level header.
        assert_eq!(
            header_bases(file, "if x:\n    class A(B):\n        pass\n", "A"),
            None
        );
    }

    #[test]
    fn an_attribute_is_assigned_not_compared_or_read() {
        let on = |source: &str| assigns_on_instance(source, "Loader", "num_thread");
        assert!(on("dm.num_thread = 4\n"));
        assert!(on("dm.num_thread=4\n"));
        assert!(on("dm.num_thread //= 2\n"));
        assert!(on("dm.num_thread += 1\n"));
        assert!(!on("if dm.num_thread == 4:\n    pass\n"));
        assert!(!on("n = dm.num_thread\n"));
        assert!(!on("dm.num_threads = 4\n"));
        assert!(!on("f(dm.num_thread, x=1)\n"));
    }

    #[test]
    fn a_namespace_or_another_class_written_is_no_instance() {
        let on = |source: &str, class: &str| assigns_on_instance(source, class, "num_workers");
        // The script's namespace, tuned before `DataModule(**vars(args))`.
        assert!(!on(
            "args.num_workers = min(args.num_workers, 16)\n",
            "DataModule"
        ));
        assert!(!on("opt.num_workers //= 2\n", "DataModule"));
        // Any other object may hold an instance.
        assert!(on("dm.num_workers = 0\n", "DataModule"));
        assert!(on("trainer.dm.num_workers = 0\n", "DataModule"));
        assert!(on("self.dm.num_workers = 0\n", "DataModule"));
        assert!(on("make()[0].num_workers = 0\n", "DataModule"));
        // A config class's instances are the namespaces.
        assert!(on("cfg.num_workers = 2\n", "TrainConfig"));
        // `self` of a class that does not derive from it, and of one that does.
        let other = "class Runner:\n    def __init__(self):\n        self.num_workers = 2\n";
        assert!(!on(other, "DataModule"));
        let sub =
            "class Small(DataModule):\n    def __init__(self):\n        self.num_workers = 2\n";
        assert!(on(sub, "DataModule"));
    }

    #[test]
    fn only_text_that_may_parse_a_command_line_is_parsed_for_a_namespace() {
        assert!(may_return_namespace(
            "class Options:\n    def parse(self):\n        return self.parser.parse_args()\n",
            "Options"
        ));
        assert!(may_return_namespace(
            "def get_args():\n    args, _ = p.parse_known_args()\n    return args\n",
            "get_args"
        ));
        assert!(may_return_namespace(
            "from .opts import Options\n",
            "Options"
        ));
        // A model class: `Model().forward()` cannot return a parsed command line.
        assert!(!may_return_namespace(
            "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
            "Model"
        ));
    }

    #[test]
    fn only_text_that_may_define_or_import_a_class_is_parsed_for_one() {
        assert!(may_define_class(
            "class Loader(DataLoader):\n    pass\n",
            "Loader"
        ));
        assert!(may_define_class(
            "if x:\n    class  Loader:\n        pass\n",
            "Loader"
        ));
        assert!(may_define_class("from .loaders import Loader\n", "Loader"));
        assert!(may_define_class("from .loaders import *\n", "Loader"));
        assert!(may_define_class(
            "from .loaders import (\n    A,\n    Loader,\n)\n",
            "Loader"
        ));
        assert!(may_define_class(
            "try:\n    from .loaders import \\\n        Loader\nexcept ImportError:\n    pass\n",
            "Loader"
        ));
        // The statement goes on over several lines, none of which names it.
        assert!(!may_define_class(
            "from .loaders import (\n    A,\n)\n",
            "Loader"
        ));
        // A function, a longer class name, a subclass named in the text: no class `Loader`.
        assert!(!may_define_class(
            "def Loader(ds):\n    return ds\n",
            "Loader"
        ));
        assert!(!may_define_class("class LoaderBase:\n    pass\n", "Loader"));
        assert!(!may_define_class(
            "class A(Loader):\n    pass\nimport os\n",
            "Loader"
        ));
        assert!(!may_define_class("subclass Loader = 1\n", "Loader"));
    }
}
