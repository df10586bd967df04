//! argparse defaults: `args.num_workers` resolved to the `default=` of
//! `parser.add_argument("--num_workers", ...)` (`--num-workers` -> `num_workers`, `dest=`).
//!
//! Parsers and parsed namespaces are followed the way training scripts pass them around: a
//! parser built in a helper and returned (`get_args_parser()`), inherited through
//! `ArgumentParser(parents=[...])`, handed to helpers that add arguments (`add_model_args(parser)`,
//! `parser = helper(parser)`), argument groups; a namespace returned by
//! `parse_args(input_args=None)`, passed on through `main(args)`, `mp.spawn(fn, args=(..., args))`,
//! `Trainer(args)` and kept as `self.args`. A parser is identified by the
//! `argparse.ArgumentParser(...)` call that creates it.
//!
//! Sound only where it can be: every way a name can be bound must lead to the same parser; an
//! option defined twice (unless one `set_defaults` decides it), required or positional, a parser handed to
//! code the model cannot read, or an `args.x = ...` / `setattr(args, ...)` it cannot place before
//! the read makes the value unknown. An unconditional `args.x = value` earlier in the function
//! that reads it gives that value.
//!
//! `parser.set_defaults(**yaml.load(f))` of the file an option names (`with open(p.config) as
//! f`, ST-GCN's scripts) sets the keys of that file; when it is missing or named only at run
//! time, the keys every config file the project ships for the parser agrees on
//! ([`configs::parser_defaults`]).
//!
//! Across files: a namespace that arrives as a parameter of a module-level function (or of a
//! class's `__init__`, kept as `self.args`, or of another method of the class, called on an
//! instance built in the calling function) that nothing in its file calls is what the
//! callers in other files pass ([`External`]); the project index finds them and each gives a
//! [`NamespaceTable`], the defaults of its parser as that caller leaves them. Every caller
//! must agree on a value, or it is unknown. A call that hands the namespace to a function of
//! another file that assigns `args.x` (its summary says so, [`parameter_writes`]) makes `x`
//! unknown.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use tree_sitter::Node;

mod inherited;
mod instance;
mod writes;
pub(crate) use writes::MappingWrite;
pub(crate) use writes::{branch_runs, mapping_writes, set_aside, setting_aside};

pub(crate) use inherited::{KeptParameter, Writes, constructor_writes, kept_parameter};

use crate::python::index::ProjectIndex;
use crate::python::model::{
    AttributeAssignment, AttributeValues, Binding, BindingKind, CallSite, ClassId, FunctionId,
    MODULE_SCOPE, Module, ScopeId, literal_items, positional_args,
};
use crate::python::scripts::Given;
use crate::python::values::{Provenance, Resolved, ScriptPass, Value, Via};
use crate::python::{configs, defaults, distributed, loaders, subclass, syntax};
use crate::text::TextRange;

/// How many names, calls and returns a namespace or parser is followed through.
const MAX_DEPTH: u32 = 16;

/// A remembered branch condition: `None` while it is being read, then whether it holds (itself
/// `None` when that is not known).
type ConditionRead = Option<Option<bool>>;

/// A parser: the start byte of the `argparse.ArgumentParser(...)` call that creates it.
type ParserId = usize;

/// The parsers an expression may hold (sorted, without repeats). Empty when every way leads
/// back into a cycle being followed: nothing new from there (and unknown at the top).
type Parsers = Vec<ParserId>;

#[derive(Debug, Default)]
pub(crate) struct ArgparseDefaults {
    parsers: HashMap<ParserId, ParserOptions>,
    /// Namespaces already traced, by the byte range of the expression that holds one.
    namespaces: RefCell<HashMap<(usize, usize), Option<Namespace>>>,
    /// What other files' functions write on each namespace ([`foreign_writes`]): every read
    /// of an attribute asks, and the answer, a walk of every call of the file, is the same
    /// for every read of one namespace.
    foreign: RefCell<HashMap<Namespace, Rc<ForeignWrites>>>,
    /// How many branch conditions the file's analysis has read in full
    /// ([`ArgparseDefaults::condition`]).
    condition_reads: std::cell::Cell<usize>,
    /// Past that budget, whether each condition holds, by its start byte and the depth it is
    /// read at; `None` while it is being read.
    conditions: RefCell<HashMap<(usize, u32), ConditionRead>>,
}

impl ArgparseDefaults {
    /// Whether the branch condition `condition` holds under the defaults, as `read` says when
    /// it reads the condition at `depth`. Deciding a condition reads values whose writes sit
    /// under other conditions, each read again for every value that asks: a file whose
    /// conditions lean on each other (MiSLAS's `if config.distributed:` around writes of the
    /// config they read) asked exponentially many times in the depth, and `check` did not
    /// finish. Past a budget of full reads (with it, findings on the evaluation sets are those
    /// of a full reading; remembering from the first read lost two), each condition is read
    /// once per depth and remembered (an answer read under assumptions of its caller may then
    /// be less known than a full reading's), and one asked inside its own reading is not known.
    pub(crate) fn condition(
        &self,
        condition: Node,
        depth: u32,
        read: impl FnOnce() -> Option<bool>,
    ) -> Option<bool> {
        let reads = self.condition_reads.get();
        if reads < MAX_CONDITION_READS {
            self.condition_reads.set(reads + 1);
            return read();
        }
        let key = (condition.start_byte(), depth);
        let known = self.conditions.borrow().get(&key).copied();
        if let Some(known) = known {
            return known.flatten();
        }
        self.conditions.borrow_mut().insert(key, None);
        let truth = read();
        self.conditions.borrow_mut().insert(key, Some(truth));
        truth
    }
}

/// The branch conditions one file's analysis reads in full before it remembers them.
const MAX_CONDITION_READS: usize = 200;

/// The attributes functions of other files assign on a namespace, each with the call that
/// hands it over; `Err` with the call that may assign any.
type ForeignWrites = Result<HashMap<String, String>, String>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Namespace {
    parsers: Parsers,
    /// Parameters of functions of this file that only other files call, which the namespace
    /// may come from.
    externals: Vec<External>,
    /// The text of every expression the namespace went through (`args`, `self.args`), to
    /// find writes through names the model cannot follow.
    names: Vec<String>,
    /// The classes whose `self` attributes it went through: `self.args` in a method of an
    /// unrelated class is another object.
    self_classes: Vec<ClassId>,
}

/// A parameter a namespace arrives through from another file: of the module-level function
/// or class (its `__init__`) `callee`, or of the method `method` of that class, which no
/// code of its own file calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct External {
    pub callee: String,
    /// Its position among the call's arguments (`self` not counted); `None` when it can
    /// only be passed by keyword.
    pub position: Option<usize>,
    pub keyword: String,
    pub method: Option<Method>,
    /// The parameter is `**keyword`: it holds the mapping a call unpacks whole
    /// (`DataModule(**vars(args))`, read as `kwargs["num_workers"]`).
    pub splat: bool,
}

/// A method whose callers are in other files: calls on an instance of its class built in
/// the calling function (`q = Query2box(...)` then `q.test_step(q, data, args)`) and, for a
/// static or class method (`on_class`), calls through the class, which place the arguments
/// the same way.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Method {
    pub name: String,
    pub on_class: bool,
}

impl External {
    /// The parameter `param` of `function`, a method other than `__init__` of a module-level
    /// class, as callers in other files pass it (see [`Method`]).
    pub(crate) fn of_method(m: &Module, function: FunctionId, param: &str) -> Option<External> {
        let def = m.function(function)?;
        let class = m.class(def.class?)?;
        let (position, keyword_only) = parameter_position(m, def.node, param)?;
        // A static method's first parameter is its first argument; `self` and `cls` are
        // bound by the call.
        let binds = binds_first(m, function);
        let position = match (keyword_only, binds) {
            (true, _) => None,
            (false, Some(false)) => Some(position),
            (false, _) => Some(position.checked_sub(1)?),
        };
        Some(External {
            callee: class.name.to_owned(),
            position,
            keyword: param.to_owned(),
            method: Some(Method {
                name: def.name.to_owned(),
                on_class: binds.is_some(),
            }),
            splat: false,
        })
    }

    /// The words a file that calls it holds: the callee's name, and the method's.
    pub(crate) fn needles(&self) -> Vec<&str> {
        let mut needles = vec![self.callee.as_str()];
        needles.extend(self.method.as_ref().map(|m| m.name.as_str()));
        needles
    }

    /// How messages name the callee: `Trainer`, `get_loader`, `Query2box.test_step`.
    pub(crate) fn shown(&self) -> String {
        match &self.method {
            Some(method) => format!("{}.{}", self.callee, method.name),
            None => self.callee.clone(),
        }
    }
}

/// What a caller hands over: the value each attribute of the namespace has when the call is
/// made, for the attributes that are known (an attribute absent is unknown).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NamespaceTable {
    values: HashMap<String, Resolved>,
}

impl NamespaceTable {
    pub(crate) fn get(&self, attribute: &str) -> Option<Resolved> {
        self.values.get(attribute).cloned()
    }

    /// The table as `call` of `m` hands it on: a default records the first call that hands
    /// it to another file (the one in the file that parses the command line).
    fn via(mut self, m: &Module, call: Node) -> NamespaceTable {
        for resolved in self.values.values_mut() {
            if let Provenance::ArgparseDefault {
                via: via @ None, ..
            } = &mut resolved.provenance
            {
                *via = Some(Box::new(Via {
                    call: squeezed(m.text(call)),
                    file: m.path.to_path_buf(),
                    line: m.line(call.start_byte()),
                }));
            }
        }
        self
    }

    /// What two callers give together: a value both give (the first one's provenance); else,
    /// for a whole number, the larger as one caller's ([`Value::OneCaller`]); `None` for the
    /// second when what it passes is unknown.
    pub(crate) fn merge(mut self, other: Option<&NamespaceTable>) -> NamespaceTable {
        let mut keys: Vec<String> = self.values.keys().cloned().collect();
        if let Some(other) = other {
            keys.extend(other.values.keys().cloned());
        }
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            let mine = self.values.remove(&key);
            let theirs = other.and_then(|o| o.values.get(&key));
            let merged = match (mine, theirs) {
                (Some(a), Some(b)) if a.value == b.value => Some(a),
                (a, b) => Resolved::largest_of_callers(a.into_iter().chain(b.cloned())),
            };
            if let Some(merged) = merged {
                self.values.insert(key, merged);
            }
        }
        self
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// An assignment to `param.attribute` in a function's body; `attribute` is `*` for
/// `setattr(param, ...)` and the like, which may write any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamWrite {
    pub position: usize,
    pub param: String,
    pub attribute: String,
    /// With `*`: a copy of a config file named at run time, which writes only the keys of the
    /// config files shipped beside the function (Python config files too when `true`,
    /// [`configs::copied_config`]); the index turns it into those keys.
    pub shipped: Option<bool>,
}

/// The options one parser gets: also what a function of another file adds to a parser it is
/// given, or the parser it returns ([`returned_parser`], [`filled_parameters`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParserOptions {
    /// dest -> every `add_argument` that writes it.
    options: HashMap<String, Vec<OptionDefault>>,
    /// dest -> every `set_defaults(dest=...)` that gives it.
    overridden: HashMap<String, Vec<SetDefault>>,
    /// `ArgumentParser(parents=[...])`: their options and defaults are copied in.
    parents: Vec<ParserId>,
    /// Something the model cannot read may change any dest: an `add_argument` or
    /// `set_defaults` with `**kwargs` or a computed flag, `argument_default=`, parents it
    /// cannot resolve, sub-parsers, or the parser handed to code it cannot see.
    opaque: bool,
    /// A parameter of a module-level function (and its position) that only other files
    /// call: what it holds is the callers' parser, whose other options this file cannot see.
    pseudo: Option<(FunctionId, usize)>,
    /// Functions of other files the parser is handed to (`dataset_args(parser)`), by their
    /// qualified name in this file and the parser's position, when this file is summarised
    /// for another (see [`crate::python::index`]): what they add is read once the summary is
    /// used, from the files they are in. Opaque until then.
    deferred: Vec<(String, usize)>,
    /// A namespace a module of the project parses at import and keeps in a module-level
    /// name (see [`module_namespace`]): the module's file. Any file that imports it may
    /// assign its attributes ([`ProjectIndex::may_write_shared`](crate::python::index::ProjectIndex::may_write_shared)).
    shared_in: Option<PathBuf>,
    /// `set_defaults(**yaml.load(f))` calls, read once every option is known (the file may
    /// be named by one of them).
    yaml_splats: Vec<YamlSplat>,
    /// Attributes the namespace is given after parsing, with known values, by the function
    /// or module that parses it for others: the sections of a YAML file flattened into it
    /// (see [`Written`]). They replace what the options give.
    assigned: HashMap<String, Resolved>,
}

/// What a file assigns to a namespace it parses: attributes it may set to anything, and
/// those it sets from a YAML file read before (`for k, v in config[key].items():
/// setattr(args, k, v)`, PointGroup's and semseg's `util/config.py`).
#[derive(Default)]
struct Written {
    unknown: HashSet<String>,
    known: HashMap<String, Resolved>,
}

impl Written {
    /// `options` as a file using the namespace sees them: an attribute set to anything has
    /// no option, one set from a file has that file's value.
    fn apply(self, options: &mut ParserOptions) {
        for (attribute, value) in self.known {
            if !self.unknown.contains(&attribute) {
                options.assigned.insert(attribute, value);
            }
        }
        for attribute in &self.unknown {
            options.options.remove(attribute);
            options.overridden.remove(attribute);
            options.assigned.remove(attribute);
        }
    }
}

/// A `set_defaults(**loaded)` of a YAML file (see [`configs::splat_file`]).
#[derive(Clone, Debug, PartialEq)]
struct YamlSplat {
    /// The file: a literal path, or the option whose default names it.
    file: Result<String, String>,
    /// The call runs only when that option is given (`if p.config is not None:`).
    gated: bool,
    line: u32,
    at: TextRange,
    scope: ScopeId,
}

impl ParserOptions {
    /// Adds what a function of another file adds to this parser.
    fn absorb(&mut self, added: &ParserOptions) {
        for (dest, options) in &added.options {
            self.options
                .entry(dest.clone())
                .or_default()
                .extend(options.iter().cloned());
        }
        for (dest, sets) in &added.overridden {
            self.overridden
                .entry(dest.clone())
                .or_default()
                .extend(sets.iter().cloned());
        }
        self.opaque |= added.opaque;
        self.deferred.extend(added.deferred.iter().cloned());
    }

    /// Marks the options added since `before` (each dest's count then) as joining the parser
    /// at `at`, the call that adds them.
    fn entered_at(&mut self, before: &HashMap<String, usize>, at: (ScopeId, usize)) {
        for (dest, options) in &mut self.options {
            let known = before.get(dest).copied().unwrap_or(0);
            for option in options.iter_mut().skip(known) {
                option.entered.get_or_insert(at);
            }
        }
    }

    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// Anything the model cannot read may change any dest.
    fn is_opaque(&self) -> bool {
        self.opaque || !self.deferred.is_empty()
    }

    /// The functions of other files that fill this parser, once read (see `deferred`): each
    /// `fill(qualified, position)` answers what that one adds, `None` when unknown, which
    /// leaves the parser opaque.
    pub(crate) fn with_deferred(
        mut self,
        fill: impl Fn(&str, usize) -> Option<Arc<ParserOptions>>,
    ) -> ParserOptions {
        for (qualified, position) in std::mem::take(&mut self.deferred) {
            match fill(&qualified, position) {
                // What the filler itself defers stays for its own file, which is not this.
                Some(added) if added.deferred.is_empty() => self.absorb(&added),
                _ => self.opaque = true,
            }
        }
        self
    }

    /// The options located in `file` (for another file that uses them), where they join a
    /// parser of that file not yet known.
    fn located(mut self, file: &Path) -> ParserOptions {
        for option in self.options.values_mut().flatten() {
            option.file.get_or_insert_with(|| file.to_path_buf());
            option.entered = None;
        }
        for set in self.overridden.values_mut().flatten() {
            set.file.get_or_insert_with(|| file.to_path_buf());
        }
        self
    }
}

/// One `set_defaults(dest=value)`.
#[derive(Clone, Debug, PartialEq)]
struct SetDefault {
    value: Value,
    line: u32,
    /// The `set_defaults(...)` call.
    at: TextRange,
    /// The scope of the call.
    scope: ScopeId,
    /// The file it is in, when another than the one using it.
    file: Option<PathBuf>,
}

#[derive(Clone, Debug, PartialEq)]
struct OptionDefault {
    flag: String,
    /// Every option string (`-j`, `--workers`), as a command line may give it.
    flags: Vec<String>,
    /// How a command line's text becomes the value: the `type=` as written, and whether the
    /// option takes a value (`store_true` takes none).
    ty: Option<String>,
    takes_value: bool,
    line: u32,
    at: TextRange,
    value: Value,
    implicit: bool,
    /// `required=True`: a run without the option stops at `parse_args()`.
    required: bool,
    /// The file it is in, when another than the one using it.
    file: Option<PathBuf>,
    /// Where, in the file using it, the option joins the parser (the scope and offset of its
    /// `add_argument`, or of the call of another file's function that adds it); `None` when
    /// not known. A `set_defaults` after it overrides its `default=`; one before it does not.
    entered: Option<(ScopeId, usize)>,
    /// For an option added in a function of the file called once (`parser = get_parser()`),
    /// where that call is: a `set_defaults` after it, in the caller, comes after the option.
    called_at: Option<(ScopeId, usize)>,
}

/// The value of `object.attribute` when `object` holds the result of `parse_args()` (see the
/// module's documentation for the ways it may get there).
impl AttributeValues for ArgparseDefaults {
    fn attribute_value(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
        depth: u32,
    ) -> Option<Resolved> {
        self.explained(m, object, attribute, scope, depth)?.ok()
    }

    fn why_unknown(&self, m: &Module, expr: Node, scope: ScopeId) -> Option<String> {
        ArgparseDefaults::why_unknown(self, m, expr, scope)
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl ArgparseDefaults {
    /// The defaults the model of `m` was built with.
    pub(crate) fn of<'m>(m: &'m Module) -> Option<&'m ArgparseDefaults> {
        m.attribute_values().as_any()?.downcast_ref()
    }

    pub(crate) fn collect(m: &Module) -> Self {
        let mut out = Self::default();
        let flow = Flow::new(m);
        // Every parser, with its parents.
        for call in m.calls() {
            if call.qualified.as_deref() != Some("argparse.ArgumentParser") {
                continue;
            }
            let mut options = ParserOptions::default();
            read_constructor(&flow, call.node, call.scope, &mut options);
            out.parsers.insert(call.node.start_byte(), options);
        }
        // A file without a parser of its own may take one from another file
        // (`get_args_parser()`) or be given one (`def add_model_args(parser)`).
        let uses_parsers = m.calls().iter().any(|c| {
            matches!(
                parser_method(m, c).map(|(method, _)| method),
                Some("add_argument" | "set_defaults" | "parse_args" | "parse_known_args")
            )
        });
        // Namespaces parsed by a method of a class of another file (`Options().parse()`), or
        // by a function of another file (`args = parse_args_knn()`).
        for call in m.calls() {
            if flow.local_function(call.callee, call.scope).is_some() {
                continue;
            }
            let parsers = match call.method {
                Some(_) => flow.foreign_method(call.node, call.scope),
                None => None,
            }
            .or_else(|| flow.foreign_function(call.node, call.qualified.as_deref()));
            for parser in parsers.unwrap_or_default() {
                flow.register(&mut out.parsers, parser);
            }
        }
        // Namespaces other modules parse at import, and parsers they build, whose attributes
        // this file reads (`opt.workers`, `parser.parse_args()`) or that it hands on
        // (`Trainer(opts)`). A file summarised for another reads no other file: nothing to
        // look up.
        for binding in m.bindings().iter().filter(|_| m.index.reads_files()) {
            let BindingKind::Import { qualified } = &binding.kind else {
                continue;
            };
            let read = m.references(binding.name).into_iter().any(|r| {
                r.parent().is_some_and(|p| match p.kind() {
                    "attribute" => p.child_by_field_name("object") == Some(r),
                    "argument_list" => true,
                    "keyword_argument" => p.child_by_field_name("value") == Some(r),
                    _ => false,
                })
            });
            if read {
                for parser in flow
                    .imported(binding.node, qualified, Want::Namespace)
                    .or_else(|| flow.imported(binding.node, qualified, Want::Parser))
                    .unwrap_or_default()
                {
                    flow.register(&mut out.parsers, parser);
                }
            }
        }
        if out.parsers.is_empty() && !uses_parsers {
            return out;
        }
        // Names that hold a parser somewhere: only arguments spelled so can hand one away.
        let mut parser_names: HashSet<&str> = HashSet::new();
        for call in m.calls() {
            let Some((method, object)) = parser_method(m, call) else {
                continue;
            };
            let parsers = || flow.top(object, call.scope, Want::Parser);
            match method {
                "add_argument" | "set_defaults" | "add_subparsers" => {
                    let Some(parsers) = parsers() else { continue };
                    if object.kind() == "identifier" {
                        parser_names.insert(m.text(object));
                    }
                    for parser in parsers {
                        flow.register(&mut out.parsers, parser);
                        let Some(options) = out.parsers.get_mut(&parser) else {
                            continue;
                        };
                        match method {
                            "set_defaults" => read_set_defaults(m, call.node, call.scope, options),
                            "add_argument" => read_add_argument(m, call.node, call.scope, options),
                            _ => options.opaque = true,
                        }
                    }
                }
                "parse_args"
                | "parse_known_args"
                | "add_argument_group"
                | "add_mutually_exclusive_group" => {
                    if object.kind() == "identifier" {
                        parser_names.insert(m.text(object));
                    }
                    if matches!(method, "parse_args" | "parse_known_args") {
                        for parser in parsers().unwrap_or_default() {
                            flow.register(&mut out.parsers, parser);
                        }
                    }
                }
                _ => {}
            }
        }
        // A parser handed to a call the model cannot read may get any option or default;
        // a function of another file adds what its summary says.
        for call in m.calls() {
            if flow.local_function(call.callee, call.scope).is_some()
                || flow.class_method(call.callee, call.scope).is_some()
                || call
                    .qualified
                    .as_deref()
                    .is_some_and(|q| q.starts_with("builtins.") || q == "argparse.ArgumentParser")
            {
                continue;
            }
            let Some(args) = call.node.child_by_field_name("arguments") else {
                continue;
            };
            let mut cursor = args.walk();
            let mut position = 0;
            for arg in args.named_children(&mut cursor) {
                let (value, at) = match arg.kind() {
                    "keyword_argument" => (arg.child_by_field_name("value"), None),
                    "comment" => continue,
                    _ => {
                        position += 1;
                        (Some(arg), Some(position - 1))
                    }
                };
                let Some(value) =
                    value.filter(|v| v.kind() == "identifier" && parser_names.contains(m.text(*v)))
                else {
                    continue;
                };
                let added = match (call.qualified.as_deref(), at) {
                    (Some(q), Some(0)) if library_filler(q).is_some() => library_filler(q)
                        .map(|dests| Arc::new(library_options(m, call.node, dests))),
                    (Some(q), Some(at)) if !has_splat(call.node) => {
                        m.index.filled_parser(m.path, q, at)
                    }
                    _ => None,
                };
                // Summarised for another file, this file's imports are not followed: the
                // filler is read when the summary is used.
                let deferred = match (call.qualified.as_deref(), at) {
                    (Some(q), Some(at)) if added.is_none() && !m.index.reads_files() => {
                        (!has_splat(call.node)).then(|| (q.to_owned(), at))
                    }
                    _ => None,
                };
                for parser in flow
                    .top(value, call.scope, Want::Parser)
                    .unwrap_or_default()
                {
                    flow.register(&mut out.parsers, parser);
                    let Some(options) = out.parsers.get_mut(&parser) else {
                        continue;
                    };
                    match (&added, &deferred) {
                        (Some(added), _) => {
                            let before: HashMap<String, usize> = options
                                .options
                                .iter()
                                .map(|(dest, o)| (dest.clone(), o.len()))
                                .collect();
                            options.absorb(added);
                            options.entered_at(&before, (call.scope, call.node.start_byte()));
                        }
                        (None, Some(deferred)) => options.deferred.push(deferred.clone()),
                        (None, None) => options.opaque = true,
                    }
                }
            }
        }
        // Parents taken from another file's functions.
        let foreign: Vec<ParserId> = flow.foreign.borrow().iter().map(|(p, _)| *p).collect();
        for parser in foreign {
            flow.register(&mut out.parsers, parser);
        }
        // Where each function that adds options is called, once per function.
        let mut calls: HashMap<ScopeId, Option<(ScopeId, usize)>> = HashMap::new();
        for options in out.parsers.values_mut() {
            resolve_yaml_splats(m, options);
            if options.overridden.is_empty() {
                continue;
            }
            for option in options.options.values_mut().flatten() {
                option.called_at = option.entered.and_then(|(scope, _)| {
                    *calls.entry(scope).or_insert_with(|| called_once(m, scope))
                });
            }
        }
        out
    }

    /// Why an unresolved expression (`args.workers`, `cfg["workers"]`, `workers`) stays
    /// unknown: where the analysis gave up on a namespace, a parameter no call of the file
    /// passes, or a config file read at run time. `None` when there is nothing more to say.
    pub(crate) fn why_unknown(&self, m: &Module, expr: Node, scope: ScopeId) -> Option<String> {
        let object = match expr.kind() {
            "attribute" => {
                let object = expr.child_by_field_name("object")?;
                let attribute = m.text(expr.child_by_field_name("attribute")?);
                match self.explained(m, object, attribute, scope, 0) {
                    Some(Err(why)) => return Some(why),
                    Some(Ok(_)) => return None,
                    None => object,
                }
            }
            "subscript" => expr.child_by_field_name("value")?,
            // `workers = args.workers`: why the value it is bound to is unknown.
            "identifier" => match m.single_binding(m.text(expr), scope) {
                Some(Binding {
                    kind: BindingKind::Assign,
                    value: Some(value),
                    scope: bound_in,
                    ..
                }) if value.kind() == "attribute" => {
                    return self.why_unknown(m, *value, *bound_in);
                }
                _ => expr,
            },
            _ => return None,
        };
        instance::untraced(m, expr, scope).or_else(|| writes::untraced(m, object, scope))
    }

    /// The value of `object.attribute` or why it is unknown; `None` when `object` is not
    /// traced to a namespace at all.
    fn explained(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
        depth: u32,
    ) -> Option<Result<Resolved, String>> {
        if !matches!(object.kind(), "identifier" | "attribute") {
            return None;
        }
        let key = (object.start_byte(), object.end_byte());
        let cached = self.namespaces.borrow().get(&key).cloned();
        let namespace = match cached {
            Some(namespace) => namespace,
            None => {
                let namespace = Namespace::follow(m, object, scope);
                // Inside a condition the flow follows fewer conditions of its own
                // ([`MAX_CONDITIONS`]), so what it finds there is not kept for the reads
                // outside.
                if CONDITIONS.with(std::cell::Cell::get) == 0 {
                    self.namespaces.borrow_mut().insert(key, namespace.clone());
                }
                namespace
            }
        };
        let namespace = namespace?;
        let Some(origin) = namespace.origin() else {
            let mut places: Vec<String> = namespace
                .parsers
                .iter()
                .map(|p| format!("the parser of line {}", m.line(*p)))
                .collect();
            places.extend(
                namespace
                    .externals
                    .iter()
                    .map(|e| format!("the callers of `{}` in other files", e.callee)),
            );
            return Some(Err(format!(
                "`{}` may come from more than one place ({})",
                m.text(object),
                places.join(", ")
            )));
        };
        Some(self.resolve(m, &namespace, origin, attribute, object, depth))
    }

    /// What the namespace `arg` holds where it is written, for a callee in another file:
    /// the defaults of its parser, less every attribute this file may assign.
    fn table(&self, m: &Module, arg: Node, scope: ScopeId) -> Option<NamespaceTable> {
        let namespace = Namespace::follow(m, arg, scope)?;
        let origin = namespace.origin()?;
        let mut table = match origin {
            Origin::Parser(parser) => self.all_defaults(m.index, parser, m.path),
            Origin::Passed(external) => (*m.index.namespace_passed(m.path, external)?).clone(),
        };
        let Written { unknown, known } = written_attributes(m, &namespace)?;
        table
            .values
            .retain(|k, _| !unknown.contains(k) && !known.contains_key(k));
        for (attribute, value) in known {
            if !unknown.contains(&attribute) {
                table.values.insert(attribute, value);
            }
        }
        // An attribute the file writes (`args.num_threads = args.workers` before
        // `mp.spawn(main_worker, args=(n, args))`) holds what a read at the hand-over would
        // see, unless a write follows the hand-over: the callee may keep the namespace and
        // read it after that write.
        let flow = Flow::new(m);
        for attribute in unknown {
            let follows = m.attribute_assignments().iter().any(|write| {
                write.attribute == attribute
                    && write
                        .target
                        .child_by_field_name("object")
                        .is_some_and(|object| namespace.aliased_by(&flow, object, write.scope))
                    && writes::runs_after(m, write, arg)
            });
            if follows {
                continue;
            }
            if let Ok(mut value) = self.resolve(m, &namespace, origin, &attribute, arg, 0) {
                if let Provenance::ArgparseDefault { file: f @ None, .. } = &mut value.provenance {
                    *f = Some(m.path.to_path_buf());
                }
                table.values.insert(attribute, value);
            }
        }
        Some(table)
    }

    /// The default of every option of `parser` and its parents that has one, located in
    /// `file`.
    fn all_defaults(&self, index: &ProjectIndex, parser: ParserId, file: &Path) -> NamespaceTable {
        let mut dests: HashSet<&str> = HashSet::new();
        for options in self.lineage(parser).unwrap_or_default() {
            dests.extend(options.options.keys().map(String::as_str));
            dests.extend(options.overridden.keys().map(String::as_str));
        }
        let values = dests
            .into_iter()
            .filter_map(|dest| {
                let mut resolved = self.run_default(index, file, parser, dest)?;
                if let Provenance::ArgparseDefault { file: f @ None, .. } = &mut resolved.provenance
                {
                    *f = Some(file.to_path_buf());
                }
                Some((dest.to_owned(), resolved))
            })
            .collect();
        NamespaceTable { values }
    }

    /// A parser and its parents, each once; `None` when one is opaque or unknown.
    fn lineage(&self, parser: ParserId) -> Option<Vec<&ParserOptions>> {
        self.lineage_seen(parser)
            .into_iter()
            .map(|options| options.filter(|o| !o.is_opaque() && o.pseudo.is_none()))
            .collect()
    }

    /// The default `dest` gets from `parser` (or its parents): the one option that writes it,
    /// or the one `set_defaults` that gives it when no option writing it has a `default=` of
    /// its own (`--pin_mem`/`--no_pin_mem` with `set_defaults(pin_mem=True)`: argparse gives
    /// every such option that default, whichever comes first).
    fn default_of(&self, parser: ParserId, dest: &str) -> Option<Resolved> {
        let mut found: Vec<&OptionDefault> = Vec::new();
        let mut sets: Vec<&SetDefault> = Vec::new();
        let lineage = self.lineage(parser)?;
        if let Some(assigned) = lineage.iter().find_map(|o| o.assigned.get(dest)) {
            return Some(assigned.clone());
        }
        for options in lineage {
            found.extend(options.options.get(dest).into_iter().flatten());
            sets.extend(options.overridden.get(dest).into_iter().flatten());
        }
        match sets.as_slice() {
            [] => {}
            // argparse gives an option added before `set_defaults` the set default; one
            // added after keeps its own `default=`.
            [set]
                if set.value.is_known()
                    && found.iter().all(|o| {
                        let before =
                            |(scope, at): (ScopeId, usize)| scope == set.scope && at < set.at.start;
                        o.implicit
                            || (set.file.is_none()
                                && (o.entered.is_some_and(before)
                                    || o.called_at.is_some_and(before)))
                    }) =>
            {
                let first = found.first()?;
                return Some(Resolved {
                    value: set.value.clone(),
                    provenance: Provenance::ArgparseDefault {
                        flag: first.flag.clone(),
                        line: set.line,
                        at: set.at,
                        implicit: false,
                        file: set.file.clone(),
                        via: None,
                        passed: None,
                    },
                });
            }
            _ => return None,
        }
        match found.as_slice() {
            [only] if only.value.is_known() => Some(Resolved {
                value: only.value.clone(),
                provenance: Provenance::ArgparseDefault {
                    flag: only.flag.clone(),
                    line: only.line,
                    at: only.at,
                    implicit: only.implicit,
                    file: only.file.clone(),
                    via: None,
                    passed: None,
                },
            }),
            _ => None,
        }
    }

    /// The value `dest` has on a run of `file`: [`ArgparseDefaults::default_of`], with the
    /// other whole number every command of the project's shell scripts that runs `file` passes
    /// the option, when they agree on one (a command that leaves it out counts for the
    /// default; scripts that disagree, or pass what cannot be read, add nothing). The value
    /// stays the default, which a run without the scripts gets; the rules weigh the scripts'
    /// count beside it: a larger worker count (DL201), or none (the arguments DataLoader
    /// rejects without workers).
    fn run_default(
        &self,
        index: &ProjectIndex,
        file: &Path,
        parser: ParserId,
        dest: &str,
    ) -> Option<Resolved> {
        let mut default = self.default_of(parser, dest)?;
        let Some(option) = self.command_line_option(parser, dest) else {
            return Some(default);
        };
        let pass = script_pass(
            index,
            file,
            &option.flags,
            option.takes_value,
            option.ty.as_deref(),
            &default.value,
        );
        if let (Some(pass), Provenance::ArgparseDefault { passed, .. }) =
            (pass, &mut default.provenance)
        {
            *passed = Some(Box::new(pass));
        }
        Some(default)
    }

    /// The one option of `parser` (and its parents) that writes `dest`, when a command line
    /// can give it by name (`--workers`, `-j`; not a positional argument).
    fn command_line_option(&self, parser: ParserId, dest: &str) -> Option<&OptionDefault> {
        let lineage = self.lineage(parser)?;
        let options: Vec<&OptionDefault> = lineage
            .iter()
            .flat_map(|o| o.options.get(dest).into_iter().flatten())
            .collect();
        let [option] = options.as_slice() else {
            return None;
        };
        (!option.flags.is_empty() && option.flags.iter().all(|f| f.starts_with('-')))
            .then_some(*option)
    }

    /// The text every command of the project's shell scripts and READMEs that runs this file
    /// passes for the option `object.attribute` reads, when a run must give it
    /// (`required=True`, or a default of `None`: a config loaded from `None` fails) and they all pass
    /// the same readable text: the config file a README's training command names
    /// (`--cfg experiments/coco/res50.yaml`). With the first such command's file and line.
    fn run_given(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
    ) -> Option<RunGiven> {
        match self.runs_given(m, object, attribute, scope)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Each text the commands that run this file pass for that option (see
    /// [`Self::run_given`]), once, with the first command passing it, in the order they come;
    /// `None` when a run must not give it, or a command passes it in a way that cannot be read.
    fn runs_given(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
    ) -> Option<Vec<RunGiven>> {
        let namespace = Namespace::follow(m, object, scope)?;
        let Origin::Parser(parser) = namespace.origin()? else {
            return None;
        };
        // A write of this namespace may give it another value; a `set_defaults` gives it one.
        let written = written_attributes(m, &namespace)?;
        if written.unknown.contains(attribute) || written.known.contains_key(attribute) {
            return None;
        }
        if self
            .lineage(parser)?
            .iter()
            .any(|o| o.overridden.contains_key(attribute))
        {
            return None;
        }
        let option = self.command_line_option(parser, attribute)?;
        // `default=None` written out is no path either: opening or merging it fails.
        let must_give = option.required || option.value == Value::None;
        if !must_give || !option.takes_value {
            return None;
        }
        let mut given: Vec<RunGiven> = Vec::new();
        for run in m.index.script_runs(m.path) {
            let Given::Value(text) = run.passed(&option.flags, true) else {
                return None;
            };
            if !given.iter().any(|g| g.text == text) {
                given.push(RunGiven {
                    text,
                    written: written_option(&run, &option.flags),
                    script: run.script,
                    line: run.line,
                });
            }
        }
        (!given.is_empty()).then_some(given)
    }

    /// `parser` and its parents, each once; `None` for one the file does not build.
    fn lineage_seen(&self, parser: ParserId) -> Vec<Option<&ParserOptions>> {
        let mut out = Vec::new();
        let mut stack = vec![parser];
        let mut seen = HashSet::new();
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            let options = self.parsers.get(&p);
            if let Some(options) = options {
                stack.extend(&options.parents);
            }
            out.push(options);
        }
        out
    }

    /// Why `parser` gives `dest` no known default (the cases [`Self::default_of`] declines).
    fn default_why(&self, parser: ParserId, dest: &str) -> String {
        let mut found: Vec<&OptionDefault> = Vec::new();
        let mut sets: Vec<&SetDefault> = Vec::new();
        for options in self.lineage_seen(parser) {
            let Some(options) = options else {
                return "a parent of the parser is not built where dldoctor can see it".to_owned();
            };
            if options.is_opaque() {
                return "the parser is handed to code dldoctor cannot read, or takes \
                        `**kwargs` or a computed option"
                    .to_owned();
            }
            if options.pseudo.is_some() {
                return "the parser is a parameter given by callers in other files, whose \
                        other options this file cannot see"
                    .to_owned();
            }
            found.extend(options.options.get(dest).into_iter().flatten());
            sets.extend(options.overridden.get(dest).into_iter().flatten());
        }
        match found.as_slice() {
            [] if sets.is_empty() => format!("no option of the parser writes `{dest}`"),
            _ if sets.len() > 1 => format!("`{dest}` is given by more than one `set_defaults`"),
            [_, ..] if !sets.is_empty() && !sets[0].value.is_known() => format!(
                "the `set_defaults` of line {} may give `{dest}` a default dldoctor cannot \
                 resolve (it is set only on some paths, or computed)",
                sets[0].line
            ),
            [first, ..] if !sets.is_empty() && found.iter().any(|o| !o.implicit) => format!(
                "{} (line {}) has a default of its own and the `set_defaults` of line {} \
                 gives `{dest}` another; which one applies depends on their order",
                first.flag, first.line, sets[0].line
            ),
            [only] => format!(
                "{} (line {}) is required or positional, or its default is not a value \
                 dldoctor can resolve",
                only.flag, only.line
            ),
            [first, ..] => format!(
                "{} (line {}) is defined more than once",
                first.flag, first.line
            ),
            [] => format!("the `set_defaults` of `{dest}` is not a value dldoctor can resolve"),
        }
    }

    /// Whether `parser` (or a parent) may give the namespace `dest` at all.
    fn defines(&self, parser: ParserId, dest: &str) -> bool {
        self.lineage_seen(parser).into_iter().any(|options| {
            options.is_none_or(|o| {
                o.is_opaque()
                    || o.pseudo.is_some()
                    || o.options.contains_key(dest)
                    || o.overridden.contains_key(dest)
                    || o.assigned.contains_key(dest)
            })
        })
    }

    /// The value of `namespace.attribute` read at `read`, or why it is unknown. The last
    /// write placed before the read in the same function (or else the parser's default)
    /// decides it; a write in a branch whose condition is false under the defaults never
    /// happens; a write that may or may not run before the read (another function, a
    /// condition that does not resolve) leaves the value known only when every value it may
    /// be is the same.
    fn resolve(
        &self,
        m: &Module,
        namespace: &Namespace,
        origin: Origin,
        attribute: &str,
        read: Node,
        depth: u32,
    ) -> Result<Resolved, String> {
        let flow = Flow::new(m);
        let aliases = |object: Node, scope: ScopeId| namespace.aliased_by(&flow, object, scope);
        let defined = match origin {
            Origin::Parser(parser) => self.defines(parser, attribute),
            Origin::Passed(_) => true,
        };
        // `setattr(args, name, v)`, `vars(args).update(...)`, `args.__dict__.update(...)`.
        let mut from_config: Option<(Resolved, &CallSite)> = None;
        for call in m.calls() {
            let Some(object) = writes_any_attribute_of(m, call, Some(attribute)) else {
                continue;
            };
            // `open(args.config)` before the loop that copies that file into the namespace.
            if !aliases(object, call.scope)
                || writes::code_runs_after(m, call.node, call.function, read)
                || overlaying(call)
                || never_reached(m, call.node)
            {
                continue;
            }
            // A config file the analysis reads: its keys, the last such write's winning.
            if let Some(copied) = overlaid(m, call) {
                if let Some(value) = copied.get(attribute) {
                    let later = from_config
                        .as_ref()
                        .is_none_or(|(_, c)| c.node.start_byte() < call.node.start_byte());
                    if later {
                        from_config = Some((value.clone(), call));
                    }
                }
                continue;
            }
            // A config named at run time: only the keys its shipped files hold.
            if configs::copied_keys(m, call).is_some_and(|k| !k.may_write(attribute)) {
                continue;
            }
            if let Some(why) = writes::unnamed_write(m, call, attribute, defined) {
                return Err(why);
            }
        }
        // `opt['workers'] = 2` on an attribute-dict copy.
        for write in namespace.mapping_writes(m, &flow) {
            let after =
                writes::code_runs_after(m, write.statement, m.function_at(write.statement), read);
            if !after
                && write
                    .keys
                    .as_ref()
                    .is_none_or(|k| k.iter().any(|k| k == attribute))
            {
                return Err(format!(
                    "`{}` on line {} may change it",
                    m.text(write.statement),
                    m.line(write.statement.start_byte())
                ));
            }
        }
        // A namespace another module parses at import, which any other importer may change
        // (this file's own writes are read below).
        if let Origin::Parser(parser) = origin
            && let Some(file) = self
                .parsers
                .get(&parser)
                .and_then(|o| o.shared_in.as_deref())
            && m.index
                .may_write_shared(file, attribute, true, Some(m.path))
        {
            return Err(format!(
                "a file that imports the namespace from {} may assign `{attribute}`",
                file.display()
            ));
        }
        // Functions of other files the namespace is handed to.
        let foreign = self.foreign.borrow().get(namespace).cloned();
        let foreign = foreign.unwrap_or_else(|| {
            let found = Rc::new(foreign_writes(m, &flow, namespace));
            self.foreign
                .borrow_mut()
                .insert(namespace.clone(), Rc::clone(&found));
            found
        });
        match foreign.as_ref() {
            Err(call) => {
                return Err(format!(
                    "the namespace is handed to {call}, which may assign any of its attributes"
                ));
            }
            Ok(written) => {
                if let Some(call) = written.get(attribute) {
                    return Err(format!("assigned by {call}, a function of another file"));
                }
            }
        }
        if let Some((value, call)) = from_config {
            let line = m.line(call.node.start_byte());
            // Set from the file, unless the code assigns it too.
            let assigned = m.attribute_assignments().iter().any(|w| {
                w.attribute == attribute
                    && w.target
                        .child_by_field_name("object")
                        .is_some_and(|o| aliases(o, w.scope))
            });
            if assigned {
                return Err(format!(
                    "set from a config file on line {line}, and assigned in the code too"
                ));
            }
            if !value.value.is_known() {
                return Err(match value.provenance.note(crate::lang::Lang::En) {
                    Some(note) => format!("set from a config file on line {line}: {note}"),
                    None => format!("set from a config file on line {line}"),
                });
            }
            return Ok(value);
        }
        let read_function = m.function_at(read);
        let mut last: Option<&AttributeAssignment> = None;
        let mut elsewhere: Vec<&AttributeAssignment> = Vec::new();
        for write in m.attribute_assignments() {
            if write.attribute != attribute {
                continue;
            }
            // The read inside the write's own value (`args.workers = args.workers // 2`) sees
            // the value before it.
            let statement = m.statement_of(write.target);
            if statement.byte_range().contains(&read.start_byte()) {
                continue;
            }
            let Some(object) = write.target.child_by_field_name("object") else {
                continue;
            };
            if !aliases(object, write.scope) {
                continue;
            }
            // A write that can only follow the read (checked first: the branch around it
            // may test the value being read, `if args.bs == -1: args.bs = 36`).
            if writes::runs_after(m, write, read) {
                continue;
            }
            if writes::branch_runs(m, write.target, None, depth) == Some(false) {
                continue;
            }
            // `args.workers //= world_size`: the processes together run what it was.
            if distributed::shares_out(m, write.target, depth) {
                continue;
            }
            let Some(_) = write.value else {
                return Err(format!(
                    "changed by `{}` on line {}",
                    m.text(statement),
                    m.line(write.target.start_byte())
                ));
            };
            // Only a write through the same expression as the read is placed before it: another
            // name may hold a copy (`copy.deepcopy(args)`) that the write does not reach.
            let placed = write.function == read_function
                && m.text(object) == m.text(read)
                && statement.end_byte() <= read.start_byte()
                && writes::branch_runs(m, write.target, Some(read), depth) == Some(true);
            if placed {
                if last.is_none_or(|l| l.target.start_byte() < write.target.start_byte()) {
                    last = Some(write);
                }
            } else {
                elsewhere.push(write);
            }
        }
        let before = match (last, origin) {
            (Some(write), _) => written(m, write, depth),
            (None, Origin::Parser(parser)) if defined => self
                .run_default(m.index, m.path, parser, attribute)
                .ok_or_else(|| self.default_why(parser, attribute)),
            (None, Origin::Parser(_)) => {
                Err(format!("no option of the parser writes `{attribute}`"))
            }
            (None, Origin::Passed(external)) => match m.index.namespace_passed(m.path, external) {
                Some(table) => table.get(attribute).ok_or_else(|| {
                    format!(
                        "the callers of `{}` in other files give `{attribute}` no value they \
                         all agree on",
                        external.shown()
                    )
                }),
                None => {
                    // `self.args`, kept from the constructor's parameter, or the parameter.
                    let what = match m.text(read) {
                        kept if kept.contains('.') => format!(
                            "`{kept}` holds the `{}` given to `{}(...)`",
                            external.keyword,
                            external.shown()
                        ),
                        name => format!("`{name}` is a parameter of `{}`", external.shown()),
                    };
                    Err(match m.index.unresolved_caller(m.path, external) {
                        Some(why) => format!("{what}, and {why}"),
                        None => format!(
                            "{what}, and no call dldoctor found in the project passes it a \
                             namespace it can resolve"
                        ),
                    })
                }
            },
        };
        if elsewhere.is_empty() {
            return before;
        }
        // The value is one of these; known only when they agree. Reading an attribute no
        // option defines before any write raises, so then only the writes count.
        let mut candidates = Vec::new();
        match before {
            Ok(r) => candidates.push(r),
            Err(_) if last.is_none() && !defined => {}
            Err(why) => return Err(why),
        }
        for write in &elsewhere {
            let value = written(m, write, depth).map_err(|why| {
                if m.is_conditional_relative_to(write.target, read) {
                    writes::why_may_run(m, write, read)
                } else {
                    why
                }
            })?;
            if candidates.first().is_some_and(|c| c.value != value.value) {
                return Err(writes::why_may_run(m, write, read));
            }
            candidates.push(value);
        }
        Ok(candidates.swap_remove(0))
    }
}

/// The value an `args.x = value` write gives, named after its target when it is computed.
fn written(m: &Module, write: &AttributeAssignment, depth: u32) -> Result<Resolved, String> {
    let line = m.line(write.target.start_byte());
    let Some(value) = write.value else {
        return Err(format!("changed on line {line}"));
    };
    let inner = m.value_in(value, write.scope, depth + 1);
    if !inner.value.is_known() {
        return Err(format!(
            "set on line {line} to `{}`, which dldoctor cannot resolve",
            m.text(value)
        ));
    }
    Ok(match inner.provenance {
        Provenance::Literal | Provenance::Computed => Resolved {
            value: inner.value,
            provenance: Provenance::Constant {
                name: m.text(write.target).to_owned(),
                line,
                at: Module::range(write.target),
            },
        },
        _ => inner,
    })
}

/// Where a namespace comes from.
#[derive(Clone, Copy)]
enum Origin<'n> {
    /// `parse_args()` of this parser of the file.
    Parser(ParserId),
    /// What callers in other files pass.
    Passed(&'n External),
}

impl Namespace {
    /// The namespace `object` holds; `None` when it holds none the model can follow.
    fn follow(m: &Module, object: Node, scope: ScopeId) -> Option<Namespace> {
        let flow = Flow::new(m);
        let parsers = flow.resolve(object, scope, None, 0, Want::Namespace)?;
        let mut externals = flow.externals.into_inner();
        externals.sort();
        externals.dedup();
        (!parsers.is_empty() || !externals.is_empty()).then(|| Namespace {
            parsers,
            externals,
            names: flow.names.into_inner(),
            self_classes: flow.self_classes.into_inner(),
        })
    }

    /// The one place the namespace comes from; `None` when it may come from several.
    fn origin(&self) -> Option<Origin<'_>> {
        match (self.parsers.as_slice(), self.externals.as_slice()) {
            ([parser], []) => Some(Origin::Parser(*parser)),
            ([], [external]) => Some(Origin::Passed(external)),
            _ => None,
        }
    }

    /// The writes through item syntax or a mapping method of the names the namespace went
    /// through, of names bound to a namespace's own dict (`cfg = vars(args)`), and of the
    /// parameters of the file's functions (a helper handed `vars(args)`, `cap(cfg)`), on
    /// objects that may hold it.
    fn mapping_writes<'a>(&self, m: &Module<'a>, flow: &Flow<'_, 'a>) -> Vec<MappingWrite<'a>> {
        let mut names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        names.extend(
            m.bindings()
                .iter()
                .filter(|b| {
                    b.value.is_some_and(|v| {
                        let text = m.text(v);
                        text.starts_with("vars(") || text.ends_with(".__dict__")
                    })
                })
                .map(|b| b.name),
        );
        names.extend(
            m.bindings()
                .iter()
                .filter(|b| b.kind == BindingKind::Parameter)
                .filter(|b| {
                    let function = m.scopes().get(b.scope).and_then(|s| s.function);
                    function
                        .and_then(|f| m.function(f))
                        .is_some_and(|f| writes::may_write_items(m.text(f.node), b.name))
                })
                .map(|b| b.name),
        );
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .flat_map(|name| writes::mapping_writes(m, name))
            .filter(|w| self.aliased_by(flow, w.object, m.scope_at(w.object)))
            .filter(|w| !never_reached(m, w.statement))
            .collect()
    }

    /// Whether `object` may hold this namespace: it leads to one of its parsers, or, when it
    /// leads to none that can be followed, it is spelled as a name the namespace went through.
    fn aliased_by<'a>(&self, flow: &Flow<'_, 'a>, object: Node<'a>, scope: ScopeId) -> bool {
        let m = flow.m;
        match flow.top(object, scope, Want::Namespace) {
            Some(parsers) => parsers.iter().any(|p| self.parsers.contains(p)),
            None => {
                self.names.iter().any(|n| n == m.text(object))
                    && match self_class(m, object, scope) {
                        Some(class) if !self.self_classes.is_empty() => self
                            .self_classes
                            .iter()
                            .any(|other| subclass::may_share_instances(m, class, *other)),
                        _ => true,
                    }
            }
        }
    }
}

/// The method a call makes and the object it is called on: `parser.add_argument(...)`, or
/// through a name bound once to the bound method (`arg = parser.add_argument` then
/// `arg('--workers', ...)`).
fn parser_method<'a>(m: &Module<'a>, call: &CallSite<'a>) -> Option<(&'a str, Node<'a>)> {
    if let Some(method) = call.method {
        return Some((method, call.callee.child_by_field_name("object")?));
    }
    if call.callee.kind() != "identifier" {
        return None;
    }
    let binding = m.single_binding(m.text(call.callee), call.scope)?;
    let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
        return None;
    };
    if value.kind() != "attribute" {
        return None;
    }
    let method = m.text(value.child_by_field_name("attribute")?);
    matches!(
        method,
        "add_argument" | "set_defaults" | "parse_args" | "parse_known_args"
    )
    .then_some((method, value.child_by_field_name("object")?))
}

/// The object whose attributes `call` sets without naming them in the code:
/// `setattr(obj, name, v)` (unless `name` is a string other than `attribute`),
/// `vars(obj).update(...)`, `obj.__dict__.update(...)`.
fn writes_any_attribute_of<'a>(
    m: &Module<'a>,
    call: &CallSite<'a>,
    attribute: Option<&str>,
) -> Option<Node<'a>> {
    let (object, name) = configs::attribute_setter(m, call)?;
    let named = name.and_then(|n| m.string_value(n));
    if named.is_some_and(|n| attribute.is_some_and(|a| n != a)) {
        return None;
    }
    Some(object)
}

/// The attributes functions of other files of the project assign when this file hands them
/// the namespace (`setup_workers(args)` that sets `args.workers`), as their summaries record,
/// each with the call that hands it over (`` `setup_workers(args)` on line 12 ``); `Err` with
/// that call when one may assign any. A function outside the project is taken not to.
fn foreign_writes<'a>(m: &Module<'a>, flow: &Flow<'_, 'a>, namespace: &Namespace) -> ForeignWrites {
    let mut out = HashMap::new();
    for call in m.calls() {
        let (qualified, method) = match call.qualified.as_deref() {
            Some(q) => (q.to_owned(), None),
            None => match callee_of_project(m, call.node, call.scope)
                .or_else(|| base_constructor(m, call))
            {
                Some((class, Some(method))) => (class, Some(method)),
                _ => continue,
            },
        };
        // `Base.__init__(self, args)`: `self` is no argument of the constructor.
        let skip_self = method.as_deref() == Some("__init__")
            && call
                .callee
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() != "call");
        if qualified.starts_with("builtins.") || qualified.starts_with("torch.") {
            continue;
        }
        let Some(args) = call.node.child_by_field_name("arguments") else {
            continue;
        };
        let mut passed: Vec<(Option<usize>, Option<&str>)> = Vec::new();
        let mut cursor = args.walk();
        let mut position = 0;
        let mut skipped = false;
        for arg in args.named_children(&mut cursor) {
            let (slot, value) = match arg.kind() {
                "keyword_argument" => (
                    (None, arg.child_by_field_name("name").map(|n| m.text(n))),
                    arg.child_by_field_name("value"),
                ),
                "comment" | "list_splat" | "dictionary_splat" => continue,
                _ if skip_self && position == 0 && !skipped => {
                    skipped = true;
                    continue;
                }
                _ => {
                    position += 1;
                    ((Some(position - 1), None), Some(arg))
                }
            };
            let Some(value) = value else { continue };
            if namespace.names.iter().any(|n| n == m.text(value))
                && namespace.aliased_by(flow, value, call.scope)
            {
                passed.push(slot);
            }
        }
        if passed.is_empty() {
            continue;
        }
        // A class of another file: what its constructor writes on what it is given.
        let writes = match &method {
            None => m
                .index
                .parameter_writes(m.path, &qualified)
                .or_else(|| m.index.constructor_writes(m.path, &qualified)),
            Some(method) if method == "__init__" => m.index.constructor_writes(m.path, &qualified),
            Some(method) => m.index.method_parameter_writes(m.path, &qualified, method),
        };
        let Some(writes) = writes else {
            continue;
        };
        let call_text = || {
            format!(
                "`{}` on line {}",
                m.text(call.node),
                m.line(call.node.start_byte())
            )
        };
        for write in writes {
            let hit = passed.iter().any(|(position, keyword)| {
                *position == Some(write.position) || *keyword == Some(write.param.as_str())
            });
            if !hit {
                continue;
            }
            if write.attribute == "*" {
                return Err(call_text());
            }
            out.entry(write.attribute.clone()).or_insert_with(call_text);
        }
    }
    Ok(out)
}

/// Every attribute of the namespace this file may assign, and those it assigns from a YAML
/// file it reads; `None` when it may assign any.
fn written_attributes(m: &Module, namespace: &Namespace) -> Option<Written> {
    let flow = Flow::new(m);
    let mut out: HashSet<String> = HashSet::new();
    let mut known: HashMap<String, Resolved> = HashMap::new();
    for call in m.calls() {
        let Some(object) = writes_any_attribute_of(m, call, None) else {
            continue;
        };
        if !namespace.aliased_by(&flow, object, call.scope)
            || uncalled_parameter(m, object, call.scope)
            || never_reached(m, call.node)
        {
            continue;
        }
        // `setattr(args, 'cuda', True)` writes the attribute it names; a YAML file's
        // sections flattened into the namespace write their keys; any other such write may
        // set any.
        let named = (call.qualified.as_deref() == Some("builtins.setattr"))
            .then(|| positional_args(call.node).get(1).copied())
            .flatten()
            .and_then(|name| m.string_value(name));
        match named {
            Some(named) => {
                out.insert(named);
            }
            None => match overlaid(m, call) {
                Some(copied) => known.extend(copied),
                None => out.extend(configs::copied_keys(m, call)?.keys().cloned()),
            },
        }
    }
    out.extend(foreign_writes(m, &flow, namespace).ok()?.into_keys());
    for write in namespace.mapping_writes(m, &flow) {
        out.extend(write.keys?);
    }
    for write in m.attribute_assignments() {
        if out.contains(write.attribute) {
            continue;
        }
        let Some(object) = write.target.child_by_field_name("object") else {
            continue;
        };
        if namespace.aliased_by(&flow, object, write.scope) {
            out.insert(write.attribute.to_owned());
        }
    }
    Some(Written {
        unknown: out,
        known,
    })
}

/// The keys and values a write of the namespace's attributes from a config file the analysis
/// reads gives ([`flattened_into`], [`items_into`]); `None` for any other such write.
fn overlaid(m: &Module, call: &CallSite) -> Option<HashMap<String, Resolved>> {
    if overlaying(call) {
        return None;
    }
    let key = call.node.id();
    OVERLAYING.with_borrow_mut(|o| o.push(key));
    let copied = flattened_into(m, call).or_else(|| items_into(m, call));
    OVERLAYING.with_borrow_mut(|o| o.pop());
    copied
}

/// Whether [`overlaid`] is reading what `call` copies on this thread: the path of the file
/// (`open(args.config)` in the loop's own header) is read before the copy writes anything.
fn overlaying(call: &CallSite) -> bool {
    OVERLAYING.with_borrow(|o| o.contains(&call.node.id()))
}

thread_local! {
    /// The calls whose copied config [`overlaid`] is reading on this thread.
    static OVERLAYING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The keys and values of a config's top-level mapping copied into the namespace, once and
/// unconditionally in its function: `setattr(args, k, v)` as the whole body of `for k, v in
/// config.items():` (MONAI's tutorials, `config_dict = json.load(open(args.config_file))`),
/// or `vars(args).update(config)` / `args.__dict__.update(config)`.
fn items_into(m: &Module, call: &CallSite) -> Option<HashMap<String, Resolved>> {
    let statement = call
        .node
        .parent()
        .filter(|p| p.kind() == "expression_statement")?;
    let (config, run) = if call.method == Some("update") {
        let args = positional_args(call.node);
        let [config] = args.as_slice() else {
            return None;
        };
        (*config, statement)
    } else {
        let args = positional_args(call.node);
        let [_, key, value] = args.as_slice() else {
            return None;
        };
        let (looped, config) = items_loop(m, statement, *key, *value)?;
        (config, looped)
    };
    let function = m.function(call.function?)?;
    if m.is_conditional_relative_to(run, function.body?) {
        return None;
    }
    Some(
        configs::mapping_entries(m, config, call.scope, 0)?
            .into_iter()
            .collect(),
    )
}

/// The keys and values `setattr(args, k, v)` gives when it is the whole body of `for k, v in
/// config[key].items():`, itself the whole body of `for key in config:`, run unconditionally
/// in its function, with `config` a YAML file the analysis reads (PointGroup's `get_parser()`):
/// every section's entries, a later section's winning. `None` for any other `setattr`.
fn flattened_into(m: &Module, call: &CallSite) -> Option<HashMap<String, Resolved>> {
    let args = positional_args(call.node);
    let [_, key, value] = args.as_slice() else {
        return None;
    };
    let statement = call
        .node
        .parent()
        .filter(|p| p.kind() == "expression_statement")?;
    // `for k, v in config[section].items():`
    let (inner, section) = items_loop(m, statement, *key, *value)?;
    let outer = only_statement_of_loop(inner)?;
    if section.kind() != "subscript" {
        return None;
    }
    let config = section.child_by_field_name("value")?;
    // `for section in config:` (or `config.keys()`)
    let outer_left = outer.child_by_field_name("left")?;
    let outer_right = outer.child_by_field_name("right")?;
    let iterated = match outer_right.kind() {
        "call" => outer_right
            .child_by_field_name("function")
            .filter(|f| {
                f.child_by_field_name("attribute")
                    .is_some_and(|a| m.text(a) == "keys")
            })?
            .child_by_field_name("object")?,
        _ => outer_right,
    };
    if m.text(section.child_by_field_name("subscript")?) != m.text(outer_left)
        || m.text(iterated) != m.text(config)
    {
        return None;
    }
    let function = m.function(call.function?)?;
    if m.is_conditional_relative_to(outer, function.body?) {
        return None;
    }
    configs::flattened_sections(m, config, call.scope)
}

/// The loop `for key, value in mapping.items():` that `statement` is the only statement of,
/// with `mapping`.
fn items_loop<'a>(
    m: &Module,
    statement: Node<'a>,
    key: Node,
    value: Node,
) -> Option<(Node<'a>, Node<'a>)> {
    let looped = only_statement_of_loop(statement)?;
    let left = looped.child_by_field_name("left")?;
    let mut cursor = left.walk();
    let names: Vec<&str> = left
        .named_children(&mut cursor)
        .map(|n| m.text(n))
        .collect();
    if names != [m.text(key), m.text(value)] {
        return None;
    }
    let items = looped
        .child_by_field_name("right")
        .filter(|r| r.kind() == "call")?;
    let callee = items.child_by_field_name("function")?;
    if m.text(callee.child_by_field_name("attribute")?) != "items" {
        return None;
    }
    Some((looped, callee.child_by_field_name("object")?))
}

/// The loop `statement` is the only statement of (comments aside).
fn only_statement_of_loop(statement: Node) -> Option<Node> {
    let block = statement.parent().filter(|b| b.kind() == "block")?;
    let mut cursor = block.walk();
    let alone = block
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .count()
        == 1;
    block
        .parent()
        .filter(|l| alone && l.kind() == "for_statement")
}

/// What every run of the file given by the project's shell scripts and READMEs passes for
/// an option a run must give, read as `object.attribute` (see [`ArgparseDefaults::run_given`]).
pub(crate) fn run_given(
    m: &Module,
    object: Node,
    attribute: &str,
    scope: ScopeId,
) -> Option<RunGiven> {
    ArgparseDefaults::of(m)?.run_given(m, object, attribute, scope)
}

/// Each text the commands that run the file pass for an option a run must give, read as
/// `object.attribute` (see [`ArgparseDefaults::runs_given`]).
pub(crate) fn runs_given(
    m: &Module,
    object: Node,
    attribute: &str,
    scope: ScopeId,
) -> Option<Vec<RunGiven>> {
    ArgparseDefaults::of(m)?.runs_given(m, object, attribute, scope)
}

/// An option's text as every run of the project's shell scripts and READMEs gives it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunGiven {
    pub text: String,
    /// The option as the first run writes it (`--cfg experiments/res50.yaml`).
    pub written: String,
    /// That run's script or README, and line.
    pub script: PathBuf,
    pub line: u32,
}

/// The assignments each parameter of `function` gets in its body (`args.workers = 2`,
/// `setattr(args, ...)`), for other files that call it.
pub(crate) fn parameter_writes(m: &Module, function: FunctionId) -> Vec<ParamWrite> {
    let Some(def) = m.function(function) else {
        return Vec::new();
    };
    let param_of = |object: Node| -> Option<(usize, String)> {
        if object.kind() != "identifier" {
            return None;
        }
        let name = m.text(object);
        let binding = m.single_binding(name, def.scope)?;
        if binding.kind != BindingKind::Parameter {
            return None;
        }
        let (position, _) = parameter_position(m, def.node, name)?;
        Some((position, name.to_owned()))
    };
    let mut out = Vec::new();
    for write in m.attribute_assignments() {
        if write.function != Some(function) {
            continue;
        }
        let Some((position, param)) = write
            .target
            .child_by_field_name("object")
            .and_then(param_of)
        else {
            continue;
        };
        out.push(ParamWrite {
            position,
            param,
            attribute: write.attribute.to_owned(),
            shipped: None,
        });
    }
    // `cfg["num_workers"] = 2`, `cfg.update(...)` on a parameter: the namespace's own dict
    // (`adjust(vars(args))`) or an attribute-dict copy written through item syntax.
    let body = m.text(def.node);
    let mut params: Vec<&str> = m
        .bindings()
        .iter()
        .filter(|b| b.scope == def.scope && b.kind == BindingKind::Parameter)
        .map(|b| b.name)
        .filter(|name| writes::may_write_items(body, name))
        .collect();
    params.sort_unstable();
    params.dedup();
    for name in params {
        for write in writes::mapping_writes(m, name) {
            if m.function_at(write.statement) != Some(function) {
                continue;
            }
            let Some((position, param)) = param_of(write.object) else {
                continue;
            };
            let keys = write.keys.unwrap_or_else(|| vec!["*".to_owned()]);
            out.extend(keys.into_iter().map(|attribute| ParamWrite {
                position,
                param: param.clone(),
                attribute,
                shipped: None,
            }));
        }
    }
    for call in m.calls() {
        if call.function != Some(function) {
            continue;
        }
        let object = writes_any_attribute_of(m, call, None);
        let Some((position, param)) = object.and_then(param_of) else {
            continue;
        };
        out.push(ParamWrite {
            position,
            param,
            attribute: "*".to_owned(),
            shipped: configs::copied_config(m, call),
        });
    }
    out
}

/// The position of the parameter every `return` of `function` hands back as it was given
/// (`def update_dataset_info_and_set_heads(self, opt, dataset): ...; return opt`), among the
/// arguments of a call (`self` of a method not counted): for other files, `opt =
/// opts().update_dataset_info_and_set_heads(opt, Dataset)` keeps the namespace handed in.
pub(crate) fn returned_argument(m: &Module, function: FunctionId) -> Option<usize> {
    let def = m.function(function)?;
    let mut found = None;
    for ret in syntax::return_statements(def.body?) {
        let value = ret.named_child(0).filter(|v| v.kind() == "identifier")?;
        let name = m.text(value);
        if m.single_binding(name, def.scope)?.kind != BindingKind::Parameter {
            return None;
        }
        let (position, keyword_only) = parameter_position(m, def.node, name)?;
        if keyword_only || found.is_some_and(|f| f != position) {
            return None;
        }
        found = Some(position);
    }
    let shift = usize::from(def.class.is_some());
    found?.checked_sub(shift)
}

/// The parser a module-level function returns, its parents folded in, for other files that
/// call it (`parser = get_args_parser()`, `ArgumentParser(parents=[get_args_parser()])`).
/// `None` when it returns anything else, or a parser the model cannot fully see.
pub(crate) fn returned_parser(m: &Module, function: FunctionId) -> Option<ParserOptions> {
    folded(m, returned_one(m, function)?.1)
}

/// The position of the parameter a module-level function returns as it was given, when every
/// `return` hands back the parser passed there (`def add_dataset_args(parser): ...; return
/// parser`), or a copy of it (`ArgumentParser(parents=[parser])`, see [`copied_parameter`]):
/// for other files, `parser = add_dataset_args(parser)` keeps the caller's parser.
pub(crate) fn returned_parameter(m: &Module, function: FunctionId) -> Option<usize> {
    let (flow, parser) = returned_one(m, function)?;
    let given = flow
        .param_parsers
        .borrow()
        .iter()
        .find(|(p, f, _)| *p == parser && *f == function)
        .map(|(_, _, position)| *position);
    given.or_else(|| copied_parameter(m, function, parser).map(|(position, _)| position))
}

/// The one parser every `return` of `function` gives, with the flow that followed it.
fn returned_one<'m, 'a>(
    m: &'m Module<'a>,
    function: FunctionId,
) -> Option<(Flow<'m, 'a>, ParserId)> {
    let def = m.function(function)?;
    let flow = Flow::new(m);
    let mut found: Option<ParserId> = None;
    for ret in syntax::return_statements(def.body?) {
        let value = ret.named_child(0).filter(|v| v.kind() != "comment")?;
        let [parser] = flow.top(value, def.scope, Want::Parser)?[..] else {
            return None;
        };
        if found.is_some_and(|f| f != parser) {
            return None;
        }
        found = Some(parser);
    }
    Some((flow, found?))
}

/// `parser` of `m` with its parents folded in, located in `m`'s file, for other files.
/// The fillers of other files it is handed to stay deferred, for the file that uses it.
fn folded(m: &Module, parser: ParserId) -> Option<ParserOptions> {
    let mut out = ParserOptions::default();
    for options in ArgparseDefaults::of(m)?.lineage_seen(parser) {
        let options = options.filter(|o| !o.opaque && o.pseudo.is_none())?;
        out.absorb(options);
    }
    Some(out.located(m.path))
}

/// Functions of libraries that add a known set of options to the parser they are given and
/// return it, with the dests they add. `deepspeed.add_config_arguments` adds its `DeepSpeed`
/// group: `--deepspeed`, `--deepspeed_config` and, by version, `--deepscale`,
/// `--deepscale_config`, `--deepspeed_mpi` (deepspeed/__init__.py, `_add_core_arguments`).
///
/// Lightning 1.x's `Trainer.add_argparse_args(parser)` adds an option for each parameter of
/// `Trainer.__init__` (pytorch_lightning/utilities/argparse.py, `add_argparse_args` through
/// `get_init_arguments_and_types`): the union of those parameters from 1.0 to 1.9. The same
/// classmethod of a model or data module adds that class's parameters, which is not this entry.
const LIBRARY_FILLERS: [(&str, &[&str]); 5] = [
    (
        "deepspeed.add_config_arguments",
        &[
            "deepspeed",
            "deepspeed_config",
            "deepscale",
            "deepscale_config",
            "deepspeed_mpi",
        ],
    ),
    (
        "pytorch_lightning.Trainer.add_argparse_args",
        TRAINER_OPTIONS,
    ),
    (
        "pytorch_lightning.trainer.Trainer.add_argparse_args",
        TRAINER_OPTIONS,
    ),
    (
        "pytorch_lightning.trainer.trainer.Trainer.add_argparse_args",
        TRAINER_OPTIONS,
    ),
    (
        "lightning.pytorch.Trainer.add_argparse_args",
        TRAINER_OPTIONS,
    ),
];

/// The parameters of Lightning's `Trainer.__init__`, 1.0 to 1.9.
const TRAINER_OPTIONS: &[&str] = &[
    "accelerator",
    "accumulate_grad_batches",
    "amp_backend",
    "amp_level",
    "auto_lr_find",
    "auto_scale_batch_size",
    "auto_select_gpus",
    "automatic_optimization",
    "benchmark",
    "callbacks",
    "check_val_every_n_epoch",
    "checkpoint_callback",
    "default_root_dir",
    "detect_anomaly",
    "deterministic",
    "devices",
    "distributed_backend",
    "enable_checkpointing",
    "enable_model_summary",
    "enable_pl_optimizer",
    "enable_progress_bar",
    "fast_dev_run",
    "flush_logs_every_n_steps",
    "gpus",
    "gradient_clip_algorithm",
    "gradient_clip_val",
    "hpus",
    "inference_mode",
    "ipus",
    "limit_predict_batches",
    "limit_test_batches",
    "limit_train_batches",
    "limit_val_batches",
    "log_every_n_steps",
    "log_gpu_memory",
    "logger",
    "max_epochs",
    "max_steps",
    "max_time",
    "min_epochs",
    "min_steps",
    "move_metrics_to_cpu",
    "multiple_trainloader_mode",
    "num_nodes",
    "num_processes",
    "num_sanity_val_steps",
    "overfit_batches",
    "plugins",
    "precision",
    "prepare_data_per_node",
    "process_position",
    "profiler",
    "progress_bar_refresh_rate",
    "reload_dataloaders_every_epoch",
    "reload_dataloaders_every_n_epochs",
    "replace_sampler_ddp",
    "resume_from_checkpoint",
    "stochastic_weight_avg",
    "strategy",
    "sync_batchnorm",
    "terminate_on_nan",
    "tpu_cores",
    "track_grad_norm",
    "truncated_bptt_steps",
    "val_check_interval",
    "weights_save_path",
    "weights_summary",
];

fn library_filler(qualified: &str) -> Option<&'static [&'static str]> {
    LIBRARY_FILLERS
        .iter()
        .find(|(q, _)| *q == qualified)
        .map(|(_, dests)| *dests)
}

/// The options a library filler adds, their defaults left unknown (they vary by version).
fn library_options(m: &Module, call: Node, dests: &[&str]) -> ParserOptions {
    let mut out = ParserOptions::default();
    for dest in dests {
        out.options
            .entry((*dest).to_owned())
            .or_default()
            .push(OptionDefault {
                flag: format!("--{dest}"),
                flags: Vec::new(),
                ty: None,
                takes_value: true,
                line: m.line(call.start_byte()),
                at: Module::range(call),
                value: Value::Unknown,
                implicit: false,
                required: false,
                file: None,
                entered: Some((m.scope_at(call), call.start_byte())),
                called_at: None,
            });
    }
    out
}

/// Methods of `torch.nn.Module` that return the module itself: `model = model.cuda()` keeps
/// the instance.
const RETURNS_SELF: &[&str] = &[
    "cuda",
    "to",
    "cpu",
    "float",
    "half",
    "double",
    "bfloat16",
    "train",
    "eval",
    "requires_grad_",
    "share_memory",
    "type",
];

/// The class expression of the construction `object` is or is bound to once
/// (`Options()`, `opts` after `opts = Options()`), or besides that only to the instance moved
/// (`model = model.cuda()`, `.to(device)`).
pub(crate) fn constructed_class<'a>(
    m: &Module<'a>,
    object: Node<'a>,
    scope: ScopeId,
) -> Option<Node<'a>> {
    let construction = match object.kind() {
        "call" => object,
        "identifier" => {
            let name = m.text(object);
            let mut found: Option<Node<'a>> = None;
            for id in m.lookup(name, scope)? {
                let binding = m.bindings().get(*id)?;
                let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                    return None;
                };
                if value.kind() != "call" {
                    return None;
                }
                let moved = value
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "attribute")
                    .is_some_and(|f| {
                        f.child_by_field_name("object")
                            .is_some_and(|o| o.kind() == "identifier" && m.text(o) == name)
                            && f.child_by_field_name("attribute")
                                .is_some_and(|a| RETURNS_SELF.contains(&m.text(a)))
                    });
                if moved {
                    continue;
                }
                if found.is_some() {
                    return None;
                }
                found = Some(value);
            }
            found?
        }
        _ => return None,
    };
    let class = construction.child_by_field_name("function")?;
    matches!(class.kind(), "identifier" | "attribute").then_some(class)
}

/// The function of another file `call` calls, as `(qualified, None)` for an imported
/// function and `(class, Some(method))` for a method of an instance built in the call's
/// expression or bound once (`opts().update(opt)`, `o = Opts(); o.update(opt)`).
fn callee_of_project<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    scope: ScopeId,
) -> Option<(String, Option<String>)> {
    let callee = call.child_by_field_name("function")?;
    if callee.kind() == "attribute"
        && let Some(object) = callee.child_by_field_name("object")
        && let Some(class) = constructed_class(m, object, scope)
    {
        let method = m.text(callee.child_by_field_name("attribute")?).to_owned();
        return Some((m.qualified_in(class, scope, 0)?, Some(method)));
    }
    Some((m.qualified_in(callee, scope, 0)?, None))
}

/// The base class's constructor a class calls, `super().__init__(...)` (also
/// `super(Cls, self)`) or `Base.__init__(self, ...)` in one of its methods: the base's
/// qualified name (its one base but `object`) and `__init__`.
fn base_constructor(m: &Module, call: &CallSite) -> Option<(String, Option<String>)> {
    if call.method != Some("__init__") {
        return None;
    }
    let class = m.function(call.function?)?.class?;
    let def = m.class(class)?;
    let base = subclass::one_base(m, class)?;
    let named = |object: &str| object == m.text(base);
    subclass::base_init_calls(m, call.function?, named)
        .any(|(c, _)| c.node == call.node)
        .then(|| m.qualified_in(base, def.parent_scope, 0))
        .flatten()
        .map(|q| (q, Some("__init__".to_owned())))
}

/// Classes that copy a mapping into an object whose keys read as attributes.
const ATTRIBUTE_DICTS: &[&str] = &[
    "addict.Dict",
    "attrdict.AttrDict",
    "dotmap.DotMap",
    "easydict.EasyDict",
    "ml_collections.ConfigDict",
    "munch.Munch",
    "munch.munchify",
    "omegaconf.OmegaConf.create",
];

/// The names projects give their own attribute dicts, a `dict` subclass read by attribute.
const ATTRIBUTE_DICT_NAMES: &[&str] = &[
    "dotdict",
    "DotDict",
    "Dotdict",
    "AttrDict",
    "AttributeDict",
    "EasyDict",
    "edict",
];

/// The namespace whose attributes `call` copies into a new object read the same way:
/// `EasyDict(vars(args))`, `edict(opt.__dict__)`, `SimpleNamespace(**vars(args))`.
fn attribute_dict_of<'a>(m: &Module<'a>, qualified: &str, call: Node<'a>) -> Option<Node<'a>> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let [only] = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let mapping = match qualified {
        "argparse.Namespace" | "types.SimpleNamespace" if only.kind() == "dictionary_splat" => {
            only.named_child(0)?
        }
        q if ATTRIBUTE_DICTS.contains(&q) => only,
        // The project's own copy of one (`class dotdict(dict): __getattr__ = dict.get`).
        q if q
            .rsplit('.')
            .next()
            .is_some_and(|name| ATTRIBUTE_DICT_NAMES.contains(&name)) =>
        {
            only
        }
        _ => return None,
    };
    configs::dict_of(m, mapping)
}

/// Whether `call` is unpacked into names (`args, unparsed = get_args()`): the namespace a
/// function of another file returns is then the first item of its tuple.
fn unpacked(call: Node) -> bool {
    call.parent().is_some_and(|p| {
        p.kind() == "assignment"
            && p.child_by_field_name("right") == Some(call)
            && p.child_by_field_name("left")
                .is_some_and(|l| matches!(l.kind(), "pattern_list" | "tuple_pattern"))
    })
}

/// Whether `object` is a parameter of a function or method this file never calls nor names
/// (`def update(self, args, extra): setattr(args, k, v)` beside the method that parses): a
/// write by computed name there reaches a namespace only through a caller elsewhere, whose
/// file counts it where it hands the namespace over.
fn uncalled_parameter(m: &Module, object: Node, scope: ScopeId) -> bool {
    if object.kind() != "identifier" {
        return false;
    }
    let Some(binding) = m.single_binding(m.text(object), scope) else {
        return false;
    };
    let Some(function) = m
        .scopes()
        .get(binding.scope)
        .and_then(|s| s.function)
        .and_then(|f| m.function(f))
    else {
        return false;
    };
    binding.kind == BindingKind::Parameter
        && !m.calls().iter().any(|c| {
            c.method == Some(function.name)
                || (c.callee.kind() == "identifier" && m.text(c.callee) == function.name)
        })
        && m.references(function.name)
            .iter()
            .all(|r| function.node.byte_range().contains(&r.start_byte()))
}

/// Whether every argument of `call` is a parameter of the function it is made in that
/// defaults to `None` (`self.parse(fixed)` in `def initialize(self, fixed=None)`), or there
/// is none: with nothing passed to that function, the callee gets the same defaults.
fn passes_only_own_defaults(m: &Module, call: Node, scope: ScopeId) -> bool {
    let Some(args) = call.child_by_field_name("arguments") else {
        return false;
    };
    let mut cursor = args.walk();
    let arguments: Vec<Node> = args.named_children(&mut cursor).collect();
    arguments.into_iter().all(|arg| {
        let name = match arg.kind() {
            "comment" => return true,
            "identifier" => arg,
            "keyword_argument" => match arg.child_by_field_name("value") {
                Some(value) if value.kind() == "identifier" => value,
                _ => return false,
            },
            _ => return false,
        };
        m.single_binding(m.text(name), scope).is_some_and(|b| {
            // A parameter's binding is its `name=default` node.
            b.kind == BindingKind::Parameter
                && matches!(
                    b.node.kind(),
                    "default_parameter" | "typed_default_parameter"
                )
                && b.node
                    .child_by_field_name("value")
                    .is_some_and(|v| v.kind() == "none")
        })
    })
}

/// Whether `call` passes no argument: only then does a helper that returns the parsed
/// namespace parse the command line (`parse_args(input_args)` parses what it is given).
fn passes_nothing(call: Node) -> bool {
    call.child_by_field_name("arguments")
        .is_some_and(|a| a.named_child_count() == 0)
}

/// The parser whose parsed command line a method or a module-level function returns (`def
/// parse(self): return self.parser.parse_args()`, `def parse_args_knn(): ...; return args`),
/// its parents folded in, for other files that call it; with `first_item`, the parser of the
/// first item of the tuple it returns (`return args, unparsed`, unpacked by the caller as
/// `args, unparsed = get_args()`). `None` when it returns anything else, takes a parameter
/// without a default (besides a method's `self`) or parses one whose default may name
/// options, or this file assigns attributes of the namespace.
pub(crate) fn returned_namespace(
    m: &Module,
    function: FunctionId,
    first_item: bool,
) -> Option<ParserOptions> {
    let def = m.function(function)?;
    let params = def.node.child_by_field_name("parameters")?;
    // Called without arguments (the callers' side checks the call passes none), each
    // parameter is its default. `parse_args(input_args=None)` (or CenterNet's `parse(self,
    // args='')`) then parses the command line, or no option at all, which gives the same
    // defaults; any other default (`get_args(description='MILNCE')`) must not be what is
    // parsed.
    let parsed = |name: &str| {
        m.calls().iter().any(|call| {
            call.function == Some(function)
                && matches!(call.method, Some("parse_args" | "parse_known_args"))
                && call.node.child_by_field_name("arguments").is_some_and(|a| {
                    let mut named = false;
                    syntax::walk_all(a, &mut |n| {
                        named |= n.kind() == "identifier" && m.text(n) == name;
                    });
                    named
                })
        })
    };
    let mut cursor = params.walk();
    let takes_only_defaults = params
        .named_children(&mut cursor)
        .skip(usize::from(def.class.is_some()))
        .all(|p| match p.kind() {
            "default_parameter" | "typed_default_parameter" => {
                p.child_by_field_name("value")
                    .is_some_and(|v| gives_no_options(m, v))
                    || p.child_by_field_name("name")
                        .is_some_and(|n| n.kind() == "identifier" && !parsed(m.text(n)))
            }
            "keyword_separator" | "positional_separator" | "comment" => true,
            _ => false,
        });
    if !takes_only_defaults {
        return None;
    }
    let mut found: Option<ParserId> = None;
    let mut written = Written::default();
    for ret in syntax::return_statements(def.body?) {
        let mut value = ret.named_child(0).filter(|v| v.kind() != "comment")?;
        if first_item {
            if !matches!(value.kind(), "expression_list" | "tuple") {
                return None;
            }
            value = value.named_child(0).filter(|v| v.kind() != "comment")?;
        }
        let namespace = Namespace::follow(m, value, def.scope)?;
        let Origin::Parser(parser) = namespace.origin()? else {
            return None;
        };
        if found.is_some_and(|f| f != parser) {
            return None;
        }
        let more = written_attributes(m, &namespace)?;
        written.unknown.extend(more.unknown);
        written.known.extend(more.known);
        found = Some(parser);
    }
    // An attribute the function writes (`args.local_rank = env_local_rank` under a
    // condition) is not the option's default: the file using the namespace finds no option
    // for it, so it stays unknown.
    let mut options = folded(m, found?)?;
    written.apply(&mut options);
    Some(options)
}

/// The parser whose parsed command line a module-level name holds (`opt =
/// parser.parse_args()` at the top of `alphapose/opt.py`), its parents folded in, for other
/// files that import the name. `None` when the name is bound more than once or to anything
/// else, or the file may assign any attribute of the namespace; an attribute this file
/// assigns (`opt.world_size = ...`) is left out, so the importing file finds no option for
/// it and it stays unknown.
pub(crate) fn module_namespace(m: &Module, name: &str) -> Option<ParserOptions> {
    let namespace = Namespace::follow(m, module_value(m, name)?, MODULE_SCOPE)?;
    let Origin::Parser(parser) = namespace.origin()? else {
        return None;
    };
    let written = written_attributes(m, &namespace)?;
    let mut options = folded(m, parser)?;
    written.apply(&mut options);
    options.shared_in = Some(m.path.to_path_buf());
    Some(options)
}

/// The parser a module-level name holds (`parser = argparse.ArgumentParser(...)` at the top
/// of `opts.py`, its options added there), its parents folded in, for other files that
/// import the name and parse it (`from opts import parser; args = parser.parse_args()`).
pub(crate) fn module_parser(m: &Module, name: &str) -> Option<ParserOptions> {
    let [parser] = Flow::new(m).top(module_value(m, name)?, MODULE_SCOPE, Want::Parser)?[..] else {
        return None;
    };
    folded(m, parser)
}

/// The value a module-level name is assigned, when that is its one binding.
fn module_value<'a>(m: &Module<'a>, name: &str) -> Option<Node<'a>> {
    let binding = m.single_binding(name, MODULE_SCOPE)?;
    (binding.kind == BindingKind::Assign).then_some(binding.value?)
}

/// What a module-level function adds to the parsers it is given, by the parameter's position
/// (`def add_dataset_args(parser): parser.add_argument(...)`). A parameter handed on to code
/// the model cannot read gets an opaque entry: any option may be added.
pub(crate) fn filled_parameters(m: &Module, function: FunctionId) -> Vec<(usize, ParserOptions)> {
    let Some(defaults) = ArgparseDefaults::of(m) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, ParserOptions)> = defaults
        .parsers
        .values()
        .filter_map(|options| match options.pseudo {
            Some((f, position)) if f == function => Some((
                position,
                ParserOptions {
                    pseudo: None,
                    ..options.clone()
                }
                .located(m.path),
            )),
            _ => None,
        })
        .collect();
    // `parser = ArgumentParser(parents=[parent_parser])` returned: what it adds to the copy.
    if let Some((position, copy)) =
        returned_one(m, function).and_then(|(_, parser)| copied_parameter(m, function, parser))
    {
        let copy = ParserOptions {
            parents: Vec::new(),
            ..copy.clone()
        }
        .located(m.path);
        match out.iter_mut().find(|(p, _)| *p == position) {
            Some((_, filled)) => filled.absorb(&copy),
            None => out.push((position, copy)),
        }
    }
    out.sort_by_key(|(position, _)| *position);
    out
}

/// A parser of `function` made as a copy of the one its caller passes
/// (`ArgumentParser(parents=[parent_parser], add_help=False)` in a helper that returns it):
/// the position of that parameter (as the call passes it) and the copy's options.
fn copied_parameter<'d>(
    m: &'d Module,
    function: FunctionId,
    parser: ParserId,
) -> Option<(usize, &'d ParserOptions)> {
    let defaults = ArgparseDefaults::of(m)?;
    let options = defaults.parsers.get(&parser)?;
    let [parent] = options.parents[..] else {
        return None;
    };
    // Fillers of other files it is handed to stay deferred, for the file that uses it.
    if options.opaque || options.pseudo.is_some() {
        return None;
    }
    let def = m.function(function)?;
    let params = def.node.child_by_field_name("parameters")?;
    let mut cursor = params.walk();
    let name = params
        .named_children(&mut cursor)
        .find(|p| p.start_byte() == parent)
        .and_then(|p| match p.kind() {
            "identifier" => Some(p),
            _ => p.child_by_field_name("name").or_else(|| p.named_child(0)),
        })?;
    let (position, keyword_only) = parameter_position(m, def.node, m.text(name))?;
    if keyword_only {
        return None;
    }
    let position = match (def.class.is_some(), binds_first(m, function)) {
        (false, _) => position,
        (true, Some(false)) => position,
        (true, Some(true)) => position.checked_sub(1)?,
        (true, None) => return None,
    };
    Some((position, options))
}

/// The namespaces the calls of `file` pass to `external` of `helper` (another file of the
/// project): one table per call that reaches it, `None` for a call whose namespace is
/// unknown, each with why as a message says it (`` `get_loader(cfg)` (eval.py line 9)
/// passes it a namespace dldoctor cannot resolve ``). Calls are recognised through the
/// file's imports (`from utils.data import get_loader`, `import utils.data as d;
/// d.get_loader(args)`, `Trainer(args)`). A subclass of the class `external` names, whose
/// constructor may hand its base anything, makes the answer unknown.
pub(crate) fn passed_in(
    m: &Module,
    helper: &Path,
    external: &External,
) -> Vec<(Option<NamespaceTable>, String)> {
    let reaches = |qualified: &str| reaches(m, helper, external, qualified);
    let file = m.path.file_name().unwrap_or_default().to_string_lossy();
    let mut out = Vec::new();
    for (id, class) in m.classes().iter().enumerate() {
        let subclass = class.bases.iter().any(|base| {
            base.kind() != "keyword_argument"
                && m.qualified_in(*base, class.parent_scope, 0)
                    .is_some_and(|q| reaches(&q))
        });
        if subclass {
            // A subclass that hands the namespace on unchanged: what its constructions give.
            if let Some((through, written)) = handed_to_base(m, id, external) {
                let table = m.index.namespace_passed(m.path, &through).map(|t| {
                    let mut t = (*t).clone();
                    t.values.retain(|k, _| !written.contains(k));
                    t
                });
                let why = m
                    .index
                    .unresolved_caller(m.path, &through)
                    .unwrap_or_else(|| {
                        format!(
                            "no construction of `{}` dldoctor found passes it a namespace it can \
                         resolve",
                            class.name
                        )
                    });
                out.push((table, why));
                continue;
            }
            out.push((
                None,
                format!(
                    "`{}` is subclassed by `{}` ({file} line {}), whose constructor may pass it \
                     anything",
                    external.callee,
                    class.name,
                    m.line(class.node.start_byte())
                ),
            ));
        }
    }
    for (call, arg) in calls_passing(m, helper, external) {
        // A namespace of a parser, or a record class's instance (`TrainerConfig(workers=...)`).
        let table = arg.and_then(|arg| {
            ArgparseDefaults::of(m)
                .and_then(|defaults| defaults.table(m, arg, call.scope))
                .or_else(|| {
                    let values = configs::record_fields(m, arg, call.scope)?;
                    Some(NamespaceTable {
                        values: values.into_iter().collect(),
                    })
                })
        });
        let named = format!(
            "`{}` ({file} line {}) passes it a namespace dldoctor cannot resolve",
            squeezed(m.text(call.node)),
            m.line(call.node.start_byte())
        );
        out.push((table.map(|t| t.via(m, call.node)), named));
    }
    out
}

/// How the module-level subclass `class` of `m` hands its base the parameter `external`
/// describes: the parameter of its own constructor that takes it (its constructions pass the
/// base's when it has none; `super().__init__(args)` or `Base.__init__(self, args)` passes one
/// of its own on unchanged), with the attributes that constructor assigns on it. `None` when
/// it passes anything else, or may change any attribute.
fn handed_to_base(
    m: &Module,
    class: ClassId,
    external: &External,
) -> Option<(External, Vec<String>)> {
    let def = m.class(class)?;
    if def.parent_scope != MODULE_SCOPE {
        return None;
    }
    let Some(init) = m.method_id(class, "__init__") else {
        return Some((
            External {
                callee: def.name.to_owned(),
                method: None,
                ..external.clone()
            },
            Vec::new(),
        ));
    };
    let summary = subclass::init_summary(m, class);
    let call = summary.call.as_ref().filter(|c| !c.unknown_splat)?;
    let forwarded = external
        .position
        .and_then(|p| call.positional.get(p))
        .or_else(|| {
            call.keywords
                .iter()
                .find(|(k, _)| *k == external.keyword)
                .map(|(_, f)| f)
        })?;
    let subclass::Forward::Param(name) = forwarded else {
        return None;
    };
    let index = summary.params.iter().position(|(p, _)| p == name)?;
    let keyword_only = summary
        .args
        .as_ref()
        .is_some_and(|(_, before)| index >= *before);
    let mut written = Vec::new();
    for write in parameter_writes(m, init) {
        if write.param != *name {
            continue;
        }
        if write.attribute == "*" {
            return None;
        }
        written.push(write.attribute);
    }
    Some((
        External {
            callee: def.name.to_owned(),
            position: (!keyword_only).then_some(index),
            keyword: name.clone(),
            method: None,
            splat: false,
        },
        written,
    ))
}

/// Whether `argv`, given to `parse_args`, parses the command line or no option at all:
/// `None`, or an empty list, tuple or string (`parse_args([])` gives the defaults, as a run
/// without options does).
fn gives_no_options(m: &Module, argv: Node) -> bool {
    match argv.kind() {
        "none" => true,
        "list" | "tuple" => argv.named_child_count() == 0,
        "string" => m.string_value(argv).is_some_and(|s| s.is_empty()),
        _ => false,
    }
}

/// Whether `qualified`, as `m` names it, is `external.callee` of the file `helper`.
fn reaches(m: &Module, helper: &Path, external: &External, qualified: &str) -> bool {
    qualified.rsplit('.').next() == Some(external.callee.as_str())
        && m.index
            .definition(m.path, qualified)
            .is_some_and(|def| def.file == helper && def.name == external.callee)
}

/// The calls of `m` to the function or class `external.callee` that `helper` defines, each
/// with what it passes for the parameter (`None` when a `*args`/`**kwargs` may pass it).
pub(crate) fn calls_passing<'m, 'a>(
    m: &'m Module<'a>,
    helper: &Path,
    external: &External,
) -> Vec<(&'m CallSite<'a>, Option<Node<'a>>)> {
    let reaches = |qualified: &str| reaches(m, helper, external, qualified);
    let dispatched = |call: &CallSite| {
        dict_classes(m, call)
            .iter()
            .any(|d| d.file == helper && d.name == external.callee)
    };
    // `getattr(hcsc.loader, args.dataset)(args)`: whichever function of the module it picks.
    let picked = |call: &CallSite| {
        call.callee.kind() == "call"
            && crate::python::index::picked_module(m, call.callee, &external.callee)
                .is_some_and(|q| reaches(&format!("{q}.{}", external.callee)))
    };
    let arg = |call: &CallSite<'a>| {
        if external.splat {
            return unpacked_whole(call.node);
        }
        m.keyword_arg(call.node, &external.keyword).or_else(|| {
            if has_splat(call.node) {
                return None;
            }
            positional_args(call.node).get(external.position?).copied()
        })
    };
    if let Some(method) = &external.method {
        return m
            .calls()
            .iter()
            .filter_map(|call| match method_receiver(m, call, method, &reaches)? {
                true => Some((call, arg(call))),
                // Maybe an instance of the class, passing what cannot be known.
                false => Some((call, None)),
            })
            .collect();
    }
    m.calls()
        .iter()
        .filter(|call| {
            callee_names(m, call).iter().any(|q| reaches(q)) || dispatched(call) || picked(call)
        })
        .map(|call| (call, arg(call)))
        .collect()
}

/// For a call of a method named `method.name`, whether its receiver is an instance of the
/// class `reaches` accepts, built in the calling function (`q.test_step(...)` after `q =
/// Query2box(...)`, or `Query2box(...).test_step(...)`), or for a static or class method
/// that class itself: `Some(true)`. `Some(false)` when the receiver may be such an instance
/// without the model knowing (a parameter, `self.model`); `None` for another call, whose
/// receiver is known to be something else (a module, another class or its instance).
fn method_receiver(
    m: &Module,
    call: &CallSite,
    method: &Method,
    reaches: &dyn Fn(&str) -> bool,
) -> Option<bool> {
    let callee = call.callee;
    if callee.kind() != "attribute"
        || m.text(callee.child_by_field_name("attribute")?) != method.name
    {
        return None;
    }
    let object = callee.child_by_field_name("object")?;
    // `", ".join(...)`, `[...].index(...)`: no instance of a class.
    if matches!(
        object.kind(),
        "string" | "concatenated_string" | "list" | "dict" | "set" | "tuple" | "integer" | "float"
    ) {
        return None;
    }
    // `self.run(...)` in a method of a class of the calling file: its own method, unless the
    // class derives from this one.
    if object.kind() == "identifier"
        && m.text(object) == "self"
        && let Some(class) = m
            .scopes()
            .get(call.scope)
            .and_then(|s| s.function)
            .and_then(|f| m.function(f)?.class)
            .and_then(|c| m.class(c))
    {
        let derived = class.bases.iter().any(|base| {
            base.kind() != "keyword_argument"
                && m.qualified_in(*base, class.parent_scope, 0)
                    .is_none_or(|q| reaches(&q))
        });
        return derived.then_some(false);
    }
    if let Some(class) = constructed_class(m, object, call.scope) {
        return m
            .qualified_in(class, call.scope, 0)
            .is_some_and(|q| reaches(&q))
            .then_some(true);
    }
    if let Some(qualified) = m.qualified_in(object, call.scope, 0) {
        // A module, or a class: this one only for a method that a call through the class
        // binds as an instance's call does.
        return (method.on_class && reaches(&qualified)).then_some(true);
    }
    Some(false)
}

/// The qualified names a call's callee may have: its one name, or, for a name bound in
/// several places (`if task == "long": Exp = Exp_Long` / `else: Exp = Exp_Short`), each
/// import or alias it may hold. A call counts for every callee it may reach.
fn callee_names(m: &Module, call: &CallSite) -> Vec<String> {
    if let Some(qualified) = &call.qualified {
        return vec![qualified.clone()];
    }
    if call.callee.kind() != "identifier" {
        return Vec::new();
    }
    let Some(ids) = m.lookup(m.text(call.callee), call.scope) else {
        return Vec::new();
    };
    ids.iter()
        .filter_map(|id| {
            let binding = m.bindings().get(*id)?;
            match (&binding.kind, binding.value) {
                (BindingKind::Import { qualified }, _) => Some(qualified.clone()),
                (BindingKind::Assign, Some(value))
                    if matches!(value.kind(), "identifier" | "attribute") =>
                {
                    m.qualified_in(value, binding.scope, 0)
                }
                _ => None,
            }
        })
        .collect()
}

/// The classes a call may construct through a dict of classes, `Exp = EXP_DICT[args.task]`
/// then `Exp(args)`, the dict a literal of this module or imported from another: every class
/// it maps to.
fn dict_classes(m: &Module, call: &CallSite) -> Vec<DefinedName> {
    // `EXP_DICT[args.task](args)`, or `Exp = EXP_DICT[args.task]` then `Exp(args)`.
    let (subscript, scope) = match call.callee.kind() {
        "subscript" => (call.callee, call.scope),
        "identifier" => {
            let Some(binding) = m.single_binding(m.text(call.callee), call.scope) else {
                return Vec::new();
            };
            let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                return Vec::new();
            };
            (value, binding.scope)
        }
        _ => return Vec::new(),
    };
    let Some(dict) = subscript
        .child_by_field_name("value")
        .filter(|_| subscript.kind() == "subscript")
    else {
        return Vec::new();
    };
    match dict.kind() {
        "dictionary" => dict_value_classes(m, dict, scope),
        "identifier" => match m.single_binding(m.text(dict), scope) {
            Some(Binding {
                kind: BindingKind::Assign,
                value: Some(literal),
                scope,
                ..
            }) if literal.kind() == "dictionary" => dict_value_classes(m, *literal, *scope),
            Some(Binding {
                kind: BindingKind::Import { qualified },
                ..
            }) => m.index.dict_classes(m.path, qualified),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Whether `reference` is a value of a dict literal bound at module level to a name this file
/// never reads (`trainer_mapping = {'K-Adapter': AdapterTrainer}`, for other files).
fn in_unread_module_dict(m: &Module, reference: Node) -> bool {
    let Some(pair) = reference
        .parent()
        .filter(|p| p.kind() == "pair" && p.child_by_field_name("value") == Some(reference))
    else {
        return false;
    };
    let Some(assignment) = pair
        .parent()
        .filter(|d| d.kind() == "dictionary")
        .and_then(|d| d.parent())
        .filter(|a| a.kind() == "assignment")
    else {
        return false;
    };
    let Some(name) = assignment
        .child_by_field_name("left")
        .filter(|l| l.kind() == "identifier")
    else {
        return false;
    };
    m.scope_at(assignment) == MODULE_SCOPE
        && module_dict(m, m.text(name)).is_some()
        && m.references(m.text(name))
            .into_iter()
            .all(|r| Module::range(r) == Module::range(name))
}

/// The class whose instance `self` is in `self.x` (`expr`) in a method.
fn self_class(m: &Module, expr: Node, scope: ScopeId) -> Option<ClassId> {
    if expr.kind() != "attribute" {
        return None;
    }
    let (class, _) = defaults::self_of(m, expr.child_by_field_name("object")?, scope)?;
    Some(class)
}

/// The dict literal the module-level `name` of `m` is bound to, once.
pub(crate) fn module_dict<'a>(m: &Module<'a>, name: &str) -> Option<Node<'a>> {
    let binding = m.single_binding(name, MODULE_SCOPE)?;
    binding
        .value
        .filter(|v| binding.kind == BindingKind::Assign && v.kind() == "dictionary")
}

/// The module-level dicts of `m` whose values name the class `callee` of `helper`.
pub(crate) fn dicts_naming(m: &Module, helper: &Path, callee: &str) -> Vec<String> {
    m.bindings()
        .iter()
        .filter(|b| b.scope == MODULE_SCOPE)
        .filter(|b| {
            module_dict(m, b.name).is_some_and(|literal| {
                dict_value_classes(m, literal, MODULE_SCOPE)
                    .iter()
                    .any(|d| d.file == helper && d.name == callee)
            })
        })
        .map(|b| b.name.to_owned())
        .collect()
}

/// The project classes (or functions) the values of a dict literal name, each as its file
/// and its name there: a class of `m` itself, or one it imports.
pub(crate) fn dict_value_classes(m: &Module, dict: Node, scope: ScopeId) -> Vec<DefinedName> {
    let mut cursor = dict.walk();
    dict.named_children(&mut cursor)
        .filter(|pair| pair.kind() == "pair")
        .filter_map(|pair| pair.child_by_field_name("value"))
        .filter(|v| matches!(v.kind(), "identifier" | "attribute"))
        .filter_map(|v| {
            if v.kind() == "identifier"
                && let Some(binding) = m.single_binding(m.text(v), scope)
                && matches!(
                    binding.kind,
                    BindingKind::Class(_) | BindingKind::Function(_)
                )
            {
                return Some(DefinedName {
                    file: m.path.to_path_buf(),
                    name: binding.name.to_owned(),
                });
            }
            let q = m.qualified_in(v, scope, 0)?;
            let def = m
                .index
                .definition(m.path, &q)
                .or_else(|| m.index.binding(m.path, &q))?;
            Some(DefinedName {
                file: def.file,
                name: def.name,
            })
        })
        .collect()
}

/// A class or function of the project: its file and its name there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DefinedName {
    pub file: std::path::PathBuf,
    pub name: String,
}

/// What an expression is followed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// An `ArgumentParser` (or one of its argument groups).
    Parser,
    /// The namespace `parse_args()` returns.
    Namespace,
}

/// A call being followed into: the parameters of `function` are what this call passes.
#[derive(Clone, Copy)]
struct CallFrame<'c, 'a> {
    function: FunctionId,
    call: Node<'a>,
    /// The scope the call is evaluated in.
    scope: ScopeId,
    outer: Option<&'c CallFrame<'c, 'a>>,
}

/// Follows parsers and namespaces through names, calls, returns and attributes of `self`.
struct Flow<'m, 'a> {
    m: &'m Module<'a>,
    /// Bindings being followed, with the call they are followed in (a cycle such as
    /// `parser = helper(parser)` contributes nothing new).
    visiting: RefCell<Vec<(usize, Option<usize>)>>,
    names: RefCell<Vec<String>>,
    self_classes: RefCell<Vec<ClassId>>,
    /// Parameters reached that only other files pass (followed for a namespace).
    externals: RefCell<Vec<External>>,
    /// Parsers made by functions of other files (`get_args_parser()`), by the call.
    foreign: RefCell<Vec<(ParserId, Arc<ParserOptions>)>>,
    /// Parameters reached that only other files pass (followed for a parser): the start of
    /// the parameter, its function and position.
    param_parsers: RefCell<Vec<(ParserId, FunctionId, usize)>>,
}

impl<'m, 'a> Flow<'m, 'a> {
    fn new(m: &'m Module<'a>) -> Self {
        Self {
            m,
            visiting: RefCell::new(Vec::new()),
            names: RefCell::new(Vec::new()),
            self_classes: RefCell::new(Vec::new()),
            externals: RefCell::new(Vec::new()),
            foreign: RefCell::new(Vec::new()),
            param_parsers: RefCell::new(Vec::new()),
        }
    }

    /// Makes the entry of a parser this flow found outside the file's `ArgumentParser`
    /// calls: one another file's function returns, or a parameter only other files pass.
    fn register(&self, parsers: &mut HashMap<ParserId, ParserOptions>, id: ParserId) {
        if parsers.contains_key(&id) {
            return;
        }
        if let Some((_, options)) = self.foreign.borrow().iter().find(|(p, _)| *p == id) {
            parsers.insert(id, (**options).clone());
        } else if let Some((_, f, position)) = self
            .param_parsers
            .borrow()
            .iter()
            .find(|(p, _, _)| *p == id)
        {
            let options = ParserOptions {
                pseudo: Some((*f, *position)),
                ..ParserOptions::default()
            };
            parsers.insert(id, options);
        }
    }

    /// The parsers an expression holds, followed from where it is written; `None` when unknown.
    fn top(&self, expr: Node<'a>, scope: ScopeId, want: Want) -> Option<Parsers> {
        self.resolve(expr, scope, None, 0, want)
            .filter(|p| !p.is_empty())
    }

    fn resolve(
        &self,
        expr: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        if depth > MAX_DEPTH {
            return None;
        }
        let m = self.m;
        match expr.kind() {
            "parenthesized_expression" => {
                self.resolve(expr.named_child(0)?, scope, frame, depth + 1, want)
            }
            "identifier" => {
                if want == Want::Namespace {
                    self.names.borrow_mut().push(m.text(expr).to_owned());
                }
                self.name(expr, scope, frame, depth, want)
            }
            // `cfg = args.__dict__`: the namespace's own dict, as `vars(args)`.
            "attribute"
                if want == Want::Namespace
                    && expr
                        .child_by_field_name("attribute")
                        .is_some_and(|a| m.text(a) == "__dict__") =>
            {
                let object = expr.child_by_field_name("object")?;
                self.resolve(object, scope, frame, depth + 1, want)
            }
            "attribute" => {
                if want == Want::Namespace {
                    self.names.borrow_mut().push(m.text(expr).to_owned());
                    if let Some(class) = self_class(m, expr, scope) {
                        self.self_classes.borrow_mut().push(class);
                    }
                }
                self.self_attribute(expr, scope, depth, want)
            }
            "subscript" if want == Want::Namespace => {
                // `parser.parse_known_args()[0]`
                let value = expr.child_by_field_name("value")?;
                let index = expr.child_by_field_name("subscript")?;
                if m.text(index) != "0" || value.kind() != "call" {
                    return None;
                }
                self.parse_call(value, scope, frame, depth, "parse_known_args")
            }
            "call" => {
                let callee = expr.child_by_field_name("function")?;
                if let Some(found) = self.method_call(expr, callee, scope, frame, depth, want) {
                    return found;
                }
                if let Some(function) = self
                    .local_function(callee, scope)
                    .or_else(|| self.class_method(callee, scope))
                {
                    let inner = CallFrame {
                        function,
                        call: expr,
                        scope,
                        outer: frame,
                    };
                    return self.returns(&inner, depth, want);
                }
                let method = callee
                    .child_by_field_name("attribute")
                    .filter(|_| callee.kind() == "attribute")
                    .map(|a| m.text(a));
                match want {
                    Want::Parser => {
                        if m.qualified_in(callee, scope, 0).as_deref()
                            == Some("argparse.ArgumentParser")
                        {
                            return Some(vec![expr.start_byte()]);
                        }
                        if matches!(
                            method,
                            Some("add_argument_group" | "add_mutually_exclusive_group")
                        ) {
                            let object = callee.child_by_field_name("object")?;
                            return self.resolve(object, scope, frame, depth + 1, Want::Parser);
                        }
                        // `get_args_parser()` of another file of the project.
                        let qualified = m.qualified_in(callee, scope, 0)?;
                        // `parser = deepspeed.add_config_arguments(parser)`: the same parser.
                        if library_filler(&qualified).is_some() {
                            let given = *positional_args(expr).first()?;
                            return self.resolve(given, scope, frame, depth, Want::Parser);
                        }
                        // `parser = add_dataset_args(parser)`: the parser given, which the
                        // function fills (see `collect`).
                        if let Some(position) = m.index.returned_parameter(m.path, &qualified) {
                            if has_splat(expr) {
                                return None;
                            }
                            // Not deeper: a script chains many (`parser = add_x_args(parser)`
                            // for each part), and the binding each one reads comes first.
                            let given = *positional_args(expr).get(position)?;
                            return self.resolve(given, scope, frame, depth, Want::Parser);
                        }
                        // Summarised for another file, the callee's file is not read: a
                        // parser handed in and taken back (`parser =
                        // MriModule.add_model_specific_args(parser)`) is taken for the one
                        // handed in. What the callee adds is deferred (`collect`) to the
                        // file that uses the summary, which finds the parser opaque unless
                        // the callee fills it.
                        if !m.index.reads_files()
                            && !has_splat(expr)
                            && let [given] = positional_args(expr)[..]
                            && given.kind() == "identifier"
                        {
                            return self.resolve(given, scope, frame, depth, Want::Parser);
                        }
                        let options = m.index.returned_parser(m.path, &qualified)?;
                        let id = expr.start_byte();
                        self.foreign.borrow_mut().push((id, options));
                        Some(vec![id])
                    }
                    Want::Namespace => {
                        let qualified = m.qualified_in(callee, scope, 0);
                        // `opt = EasyDict(opt.__dict__)`: the same values, read the same way.
                        if let Some(original) = qualified
                            .as_deref()
                            .and_then(|q| attribute_dict_of(m, q, expr))
                        {
                            return self.resolve(original, scope, frame, depth + 1, want);
                        }
                        // `copy.deepcopy(args)`: the copy starts with the namespace's values.
                        // `cfg = vars(args)`, read as `cfg["num_workers"]`: the namespace's
                        // own dict, its items its attributes.
                        let copied = matches!(
                            qualified.as_deref(),
                            Some("copy.deepcopy" | "copy.copy" | "builtins.vars")
                        );
                        match positional_args(expr).as_slice() {
                            [original] if copied => {
                                self.resolve(*original, scope, frame, depth + 1, want)
                            }
                            // `args = parse_args_knn()` of another file of the project.
                            _ => self
                                .foreign_function(expr, qualified.as_deref())
                                .or_else(|| {
                                    self.parse_call(expr, scope, frame, depth, "parse_args")
                                })
                                .or_else(|| self.passed_through(expr, scope, frame, depth)),
                        }
                    }
                }
            }
            _ => None,
        }
    }

    /// `<parser>.parse_args()` (or `parse_known_args`) that parses the command line: its
    /// parser.
    fn parse_call(
        &self,
        call: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        method: &str,
    ) -> Option<Parsers> {
        let m = self.m;
        let callee = call.child_by_field_name("function")?;
        if callee.kind() != "attribute"
            || callee.child_by_field_name("attribute").map(|a| m.text(a)) != Some(method)
        {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let mut cursor = args.walk();
        for arg in args.named_children(&mut cursor) {
            let argv = match arg.kind() {
                "comment" => continue,
                "keyword_argument"
                    if arg.child_by_field_name("name").map(|n| m.text(n)) == Some("args") =>
                {
                    arg.child_by_field_name("value")?
                }
                "keyword_argument" => return None,
                _ => arg,
            };
            if !self.is_command_line(argv, scope, frame, depth) {
                return None;
            }
        }
        let object = callee.child_by_field_name("object")?;
        self.resolve(object, scope, frame, depth + 1, Want::Parser)
    }

    /// Whether an argv given to `parse_args` is the command line (so the defaults are what a
    /// run without options gets): `None`, `sys.argv[1:]`, a parameter that is `None` unless
    /// given (`parse_args(input_args=None)` called without it), or what `parse_known_args`
    /// left over. A list written in the code is not.
    fn is_command_line(
        &self,
        argv: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
    ) -> bool {
        let m = self.m;
        if depth > MAX_DEPTH {
            return false;
        }
        let empty = |n: Node| gives_no_options(m, n);
        match argv.kind() {
            "none" | "list" | "tuple" | "string" => empty(argv),
            "subscript" => argv
                .child_by_field_name("value")
                .and_then(|v| m.qualified_in(v, scope, 0))
                .is_some_and(|q| q == "sys.argv"),
            "identifier" => {
                let Some(binding) = m.single_binding(m.text(argv), scope) else {
                    return false;
                };
                match binding.kind {
                    BindingKind::Parameter => {
                        let Some(function) = m.scopes().get(binding.scope).and_then(|s| s.function)
                        else {
                            return false;
                        };
                        let default = parameter_default(binding.node);
                        match find_frame(frame, function) {
                            Some(call) => {
                                let Some((position, keyword_only)) = m
                                    .function(function)
                                    .and_then(|f| parameter_position(m, f.node, binding.name))
                                else {
                                    return false;
                                };
                                match passed_for(m, call, position, keyword_only, binding.name) {
                                    Passed::Value(v) => {
                                        self.is_command_line(v, call.scope, call.outer, depth + 1)
                                    }
                                    Passed::Nothing => default.is_some_and(empty),
                                    Passed::Unknown => false,
                                }
                            }
                            None => default.is_some_and(empty),
                        }
                    }
                    // `args, rest = p.parse_known_args()`: `rest` is the rest of the command line.
                    BindingKind::Assign if binding.value.is_none() => destructured(binding)
                        .is_some_and(|(call, index)| {
                            index == 1
                                && call.child_by_field_name("function").is_some_and(|c| {
                                    c.child_by_field_name("attribute").map(|a| m.text(a))
                                        == Some("parse_known_args")
                                })
                        }),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Every binding of a name must lead somewhere; their parsers together.
    fn name(
        &self,
        expr: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        let m = self.m;
        let ids = effective_bindings(m, m.lookup(m.text(expr), scope)?);
        // `if args.resume: args = checkpoint["opt"]` does not happen under the defaults; its
        // condition is read as if the rebinding were not there, as it runs before it (so a
        // `global args` rebound in two branches of `main` is sorted out branch by branch).
        let ids = if ids.len() > 1 {
            ids.into_iter()
                .filter(|id| !set_aside(m, *id))
                .filter(|id| {
                    m.bindings()
                        .get(*id)
                        .is_none_or(|b| !setting_aside(m, *id, || never_runs(m, b.node)))
                })
                .collect()
        } else {
            ids
        };
        let ids = m
            .reaching_binding(&ids, expr, scope)
            .map_or(ids, |id| vec![id]);
        let mut out: Parsers = Vec::new();
        for id in ids {
            let key = (id, frame.map(|f| f.call.start_byte()));
            if self.visiting.borrow().contains(&key) {
                continue;
            }
            let binding = m.bindings().get(id)?;
            self.visiting.borrow_mut().push(key);
            let found = self.binding(binding, frame, depth, want);
            self.visiting.borrow_mut().pop();
            out.extend(found?);
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    fn binding(
        &self,
        binding: &Binding<'a>,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        match (&binding.kind, binding.value) {
            (BindingKind::Assign | BindingKind::Walrus, Some(value)) => {
                self.resolve(value, binding.scope, frame, depth + 1, want)
            }
            // `args, unknown = parser.parse_known_args()`, or `args, ds_init = get_args()`
            // where `get_args` returns `parser.parse_args(), ds_init`.
            (BindingKind::Assign, None) if want == Want::Namespace => {
                let (call, index) = destructured(binding)?;
                let callee = call.child_by_field_name("function")?;
                if let Some(function) = self.local_function(callee, binding.scope) {
                    let inner = CallFrame {
                        function,
                        call,
                        scope: binding.scope,
                        outer: frame,
                    };
                    return self.returned_item(&inner, index, depth, want);
                }
                if index != 0 {
                    return None;
                }
                self.parse_call(call, binding.scope, frame, depth, "parse_known_args")
                    .or_else(|| {
                        let qualified = self.m.qualified_in(callee, binding.scope, 0);
                        self.foreign_function(call, qualified.as_deref())
                    })
            }
            (BindingKind::Parameter, _) => self.parameter(binding, frame, depth, want),
            // `from alphapose.opt import opt`: the namespace that module parses at import;
            // `from opts import parser`: the parser that module builds.
            (BindingKind::Import { qualified }, _) => self.imported(binding.node, qualified, want),
            _ => None,
        }
    }

    /// The namespace (or the parser) a module of the project keeps in the name `qualified`,
    /// once per import (`id` is the import's place), registered as a parser made by it.
    fn imported(&self, import: Node<'a>, qualified: &str, want: Want) -> Option<Parsers> {
        let id = import.start_byte();
        if self.foreign.borrow().iter().any(|(p, _)| *p == id) {
            return Some(vec![id]);
        }
        let index = self.m.index;
        let options = index.bound_at_import(self.m.path, qualified, want == Want::Namespace)?;
        self.foreign.borrow_mut().push((id, options));
        Some(vec![id])
    }

    /// A parameter holds what the call being followed passes; without one, what every call of
    /// its function in this file passes (a reference that is not a call makes it unknown).
    fn parameter(
        &self,
        param: &Binding<'a>,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        let m = self.m;
        let function_id = m.scopes().get(param.scope)?.function?;
        let function = m.function(function_id)?;
        // `**kwargs`, as a namespace: the mapping a call unpacks into it whole
        // (`DataModule(**vars(args))`), read by key (`kwargs["num_workers"]`).
        let (position, keyword_only, splat) = match parameter_position(m, function.node, param.name)
        {
            Some((position, keyword_only)) => (position, keyword_only, false),
            None if want == Want::Namespace && is_splat_parameter(m, function.node, param.name) => {
                (usize::MAX, true, true)
            }
            None => return None,
        };
        let follow = |call: &CallFrame<'_, 'a>| {
            let passed = match splat {
                true => unpacked_whole(call.call).map_or(Passed::Unknown, Passed::Value),
                false => passed_for(m, call, position, keyword_only, param.name),
            };
            match passed {
                Passed::Value(v) => self.resolve(v, call.scope, call.outer, depth + 1, want),
                Passed::Nothing | Passed::Unknown => None,
            }
        };
        if let Some(call) = find_frame(frame, function_id) {
            return follow(call);
        }
        // A method's callers: `__init__` is called through its class.
        let (callee_name, callee_range, is_init) = match function.class.and_then(|c| m.class(c)) {
            Some(class) if function.name == "__init__" => (class.name, class.name_range, true),
            Some(class) => {
                return self.class_method_parameter(class, function_id, param, depth, want);
            }
            None => (function.name, function.name_range, false),
        };
        if is_init && position == 0 {
            return None;
        }
        let mut out: Parsers = Vec::new();
        let mut any = false;
        let mut calls: Vec<(Node<'a>, ScopeId)> = Vec::new();
        for reference in m.references(callee_name) {
            // `super(Trainer, self).__init__(args)` names the class without calling it.
            if !names_a_binding(reference) || in_super_call(m, reference) {
                continue;
            }
            let ref_scope = m.scope_at(reference);
            let Some(ids) = m.lookup(callee_name, ref_scope) else {
                continue;
            };
            // The definition itself, an import it shadows, another binding of the name.
            if Module::range(reference) == callee_range
                || ids.iter().any(|id| {
                    m.bindings()
                        .get(*id)
                        .is_some_and(|b| b.name_range == Module::range(reference))
                })
            {
                continue;
            }
            let here = effective_bindings(m, ids).into_iter().any(|id| {
                m.bindings().get(id).is_some_and(|b| match b.kind {
                    BindingKind::Function(f) => f == function_id,
                    BindingKind::Class(c) => is_init && function.class == Some(c),
                    _ => false,
                })
            });
            if !here {
                continue;
            }
            match call_of(m, reference) {
                Some(call) => calls.push((call, ref_scope)),
                // Named in a dict of classes this file never reads: the files that import
                // the dict construct it (see `ProjectIndex::namespace_passed`).
                None if in_unread_module_dict(m, reference) => {}
                None => return None,
            }
        }
        // A call in a function nothing runs is no caller: the callers that run may be in
        // other files (below).
        calls.retain(|(call, _)| !defaults::in_uncalled_function(m, *call));
        // `Trainer(self._train_cfg, ...)` in a method of the class (a fresh instance, as a
        // checkpoint reload makes) hands on what the instance was given: no other caller.
        if is_init {
            calls.retain(|(call, scope)| {
                let frame = CallFrame {
                    function: function_id,
                    call: *call,
                    scope: *scope,
                    outer: None,
                };
                match passed_for(m, &frame, position, keyword_only, param.name) {
                    Passed::Value(value) => {
                        !defaults::hands_on_own(m, function_id, param.name, value, *scope)
                    }
                    Passed::Nothing | Passed::Unknown => true,
                }
            });
        }
        // `if args.cv: [main(a) for a in folds(args)]` is no caller under the defaults when
        // another call runs; a function only such calls reach (`if args.eval: test(args)`)
        // takes them as written.
        if calls.len() > 1 {
            let running: Vec<(Node<'a>, ScopeId)> = calls
                .iter()
                .copied()
                .filter(|(call, _)| !never_runs(m, *call))
                .collect();
            if !running.is_empty() {
                calls = running;
            }
        }
        for (call, scope) in calls {
            let frame = CallFrame {
                function: function_id,
                call,
                scope,
                outer: None,
            };
            out.extend(follow(&frame)?);
            any = true;
        }
        // No caller here: a module-level function or class may be called from other files.
        let module_level = match function.class.and_then(|c| m.class(c)) {
            Some(class) => class.parent_scope == MODULE_SCOPE,
            None => function.parent_scope == MODULE_SCOPE,
        };
        if !any && want == Want::Parser && module_level && !is_init && !keyword_only {
            let id = param.node.start_byte();
            self.param_parsers
                .borrow_mut()
                .push((id, function_id, position));
            return Some(vec![id]);
        }
        if !any && want == Want::Namespace && module_level {
            let position = match (keyword_only, is_init) {
                (true, _) => None,
                (false, true) => Some(position - 1),
                (false, false) => Some(position),
            };
            self.externals.borrow_mut().push(External {
                callee: callee_name.to_owned(),
                position,
                keyword: param.name.to_owned(),
                method: None,
                splat,
            });
            return Some(Vec::new());
        }
        out.sort_unstable();
        out.dedup();
        any.then_some(out)
    }

    /// What a function returns, for this call: every `return` must return something followed.
    fn returns(&self, call: &CallFrame<'_, 'a>, depth: u32, want: Want) -> Option<Parsers> {
        self.returned(call, None, depth, want)
    }

    /// Item `index` of the tuples a function returns (`return parser.parse_args(), ds_init`);
    /// `None` when a return is not a tuple of enough items.
    fn returned_item(
        &self,
        call: &CallFrame<'_, 'a>,
        index: usize,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        self.returned(call, Some(index), depth, want)
    }

    /// What every `return` of the called function gives (item `index` of it when given).
    fn returned(
        &self,
        call: &CallFrame<'_, 'a>,
        index: Option<usize>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        let function = self.m.function(call.function)?;
        let mut out: Parsers = Vec::new();
        let mut any = false;
        for ret in syntax::return_statements(function.body?) {
            let mut value = ret.named_child(0).filter(|v| v.kind() != "comment")?;
            if let Some(index) = index {
                if !matches!(value.kind(), "expression_list" | "tuple") {
                    return None;
                }
                let mut cursor = value.walk();
                value = value
                    .named_children(&mut cursor)
                    .filter(|n| n.kind() != "comment")
                    .nth(index)?;
            }
            out.extend(self.resolve(value, function.scope, Some(call), depth + 1, want)?);
            any = true;
        }
        out.sort_unstable();
        out.dedup();
        any.then_some(out)
    }

    /// `self.args` (`self.parser`) in a method: what the class's methods assign to it.
    fn self_attribute(
        &self,
        expr: Node<'a>,
        scope: ScopeId,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        let m = self.m;
        let object = expr.child_by_field_name("object")?;
        let attribute = m.text(expr.child_by_field_name("attribute")?);
        let (class, name) = defaults::self_of(m, object, scope)?;
        let mut out: Parsers = Vec::new();
        let mut any = false;
        for write in m.attribute_assignments() {
            let in_class = write
                .function
                .and_then(|f| m.function(f))
                .is_some_and(|f| f.class == Some(class));
            if write.attribute != attribute || write.object != Some(name) || !in_class {
                continue;
            }
            out.extend(self.resolve(write.value?, write.scope, None, depth + 1, want)?);
            any = true;
        }
        if !any && want == Want::Namespace {
            return self.kept_by_constructor(class, attribute, depth);
        }
        out.sort_unstable();
        out.dedup();
        any.then_some(out)
    }

    /// `self.args` that no method of the class assigns, kept by a base class from the
    /// constructor's parameter ([`kept_parameter`]): what the class's constructor is given
    /// there, by the calls of this file or, for a class only other files construct, theirs.
    fn kept_by_constructor(&self, class: ClassId, attribute: &str, depth: u32) -> Option<Parsers> {
        let m = self.m;
        let kept = kept_parameter(m, class, attribute, false)?;
        let def = m.class(class)?;
        // A subclass's constructor may hand the base anything.
        let subclassed = m.classes().iter().any(|c| {
            c.bases.iter().any(|b| {
                b.kind() == "identifier"
                    && m.single_binding(m.text(*b), c.parent_scope)
                        .is_some_and(|binding| binding.kind == BindingKind::Class(class))
            })
        });
        if subclassed {
            return None;
        }
        let init = def
            .methods
            .iter()
            .copied()
            .find(|f| m.function(*f).is_some_and(|f| f.name == "__init__"));
        if let Some(init) = init {
            let scope = m.function(init)?.scope;
            let param = m.single_binding(&kept.keyword, scope)?;
            return self.parameter(param, None, depth + 1, Want::Namespace);
        }
        // The base's constructor, called through this class: only other files may call it.
        let called_here = m.references(def.name).into_iter().any(|r| {
            names_a_binding(r) && Module::range(r) != def.name_range && !in_super_call(m, r)
        });
        if called_here || def.parent_scope != MODULE_SCOPE {
            return None;
        }
        self.externals.borrow_mut().push(External {
            callee: def.name.to_owned(),
            position: Some(kept.position),
            keyword: kept.keyword,
            method: None,
            splat: false,
        });
        Some(Vec::new())
    }

    /// `Options().parse()`, or `opts.parse()` after `opts = Options()`: a method of a class
    /// of this file is followed into; `None` when the callee is no method of a class
    /// constructed there.
    fn method_call(
        &self,
        call: Node<'a>,
        callee: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
        want: Want,
    ) -> Option<Option<Parsers>> {
        let m = self.m;
        if callee.kind() != "attribute" {
            return None;
        }
        let method = m.text(callee.child_by_field_name("attribute")?);
        // The method `method` of a class of this file, called as `call`: what it returns.
        let returned = |class: ClassId| {
            let function = m
                .class(class)?
                .methods
                .iter()
                .copied()
                .find(|f| m.function(*f).is_some_and(|f| f.name == method))?;
            let inner = CallFrame {
                function,
                call,
                scope,
                outer: frame,
            };
            Some(self.returns(&inner, depth + 1, want))
        };
        // `self.parse(fixed)` in another method of the class (`def initialize(self,
        // fixed=None): self.args = self.parse(fixed)`): that method, handed the caller's own
        // parameters, which hold their defaults when nothing is passed.
        let object = callee.child_by_field_name("object")?;
        if let Some((class, _)) = defaults::self_of(m, object, scope)
            && passes_only_own_defaults(m, call, scope)
            && let Some(found) = returned(class)
        {
            return Some(found);
        }
        if !passes_nothing(call) {
            return None;
        }
        let class_name = constructed_class(m, object, scope)?;
        if class_name.kind() == "identifier"
            && let Some(binding) = m.single_binding(m.text(class_name), scope)
            && let BindingKind::Class(class) = binding.kind
        {
            return returned(class);
        }
        if want != Want::Namespace {
            return None;
        }
        self.foreign_method(call, scope).map(Some)
    }

    /// `opt = opts().update_dataset_info_and_set_heads(opt, Dataset)` (or `args =
    /// helpers.finish(args)`): a function or method of another file of the project that
    /// returns the namespace it is given (see [`returned_argument`]); what it writes is
    /// left to [`foreign_writes`].
    fn passed_through(
        &self,
        call: Node<'a>,
        scope: ScopeId,
        frame: Option<&CallFrame<'_, 'a>>,
        depth: u32,
    ) -> Option<Parsers> {
        let m = self.m;
        if has_splat(call) {
            return None;
        }
        let (qualified, method) = callee_of_project(m, call, scope)?;
        let position = m
            .index
            .returned_argument(m.path, &qualified, method.as_deref())?;
        let given = *positional_args(call).get(position)?;
        self.resolve(given, scope, frame, depth + 1, Want::Namespace)
    }

    /// The namespace a method of a class of another file of the project returns
    /// (`MonodepthOptions().parse()`), as that file's summary records it: the parser it
    /// parses, registered as a parser made by the call.
    fn foreign_method(&self, call: Node<'a>, scope: ScopeId) -> Option<Parsers> {
        let m = self.m;
        let callee = call.child_by_field_name("function")?;
        if callee.kind() != "attribute" {
            return None;
        }
        let method = m.text(callee.child_by_field_name("attribute")?);
        let class_name = constructed_class(m, callee.child_by_field_name("object")?, scope)?;
        let qualified = m.qualified_in(class_name, scope, 0)?;
        let options = m
            .index
            .returned_namespace(m.path, &qualified, Some(method), false)?;
        let id = call.start_byte();
        self.foreign.borrow_mut().push((id, options));
        Some(vec![id])
    }

    /// The namespace a module-level function of another file of the project returns
    /// (`args = parse_args_knn()`), as that file's summary records it. Only callees named as
    /// such helpers are (`parse_args`, `get_args`, `parse_opts`, `get_config`): looking up
    /// every imported callee would summarise most of the project.
    fn foreign_function(&self, call: Node<'a>, qualified: Option<&str>) -> Option<Parsers> {
        let qualified = qualified?;
        let name = qualified.rsplit('.').next()?.to_ascii_lowercase();
        if !["arg", "opt", "parse", "config", "cfg"]
            .iter()
            .any(|n| name.contains(n))
        {
            return None;
        }
        if !passes_nothing(call) {
            return None;
        }
        let id = call.start_byte();
        if self.foreign.borrow().iter().any(|(p, _)| *p == id) {
            return Some(vec![id]);
        }
        let options =
            self.m
                .index
                .returned_namespace(self.m.path, qualified, None, unpacked(call))?;
        self.foreign.borrow_mut().push((id, options));
        Some(vec![id])
    }

    /// The `@staticmethod` or `@classmethod` of a class of this file a callee names through
    /// the class (`Model.add_model_specific_args`).
    fn class_method(&self, callee: Node, scope: ScopeId) -> Option<FunctionId> {
        let m = self.m;
        if callee.kind() != "attribute" {
            return None;
        }
        let object = callee.child_by_field_name("object")?;
        if object.kind() != "identifier" {
            return None;
        }
        let BindingKind::Class(class) = m.single_binding(m.text(object), scope)?.kind else {
            return None;
        };
        let name = m.text(callee.child_by_field_name("attribute")?);
        let function = m
            .class(class)?
            .methods
            .iter()
            .copied()
            .find(|f| m.function(*f).is_some_and(|f| f.name == name))?;
        binds_first(m, function)?;
        Some(function)
    }

    /// A parameter of a method: what every call through the class in this file passes
    /// (`parser = Model.add_model_specific_args(parser)`), or on an instance of the class
    /// built there (`Lite(...).run(args)`, LightningLite's and Fabric's entry). Any other
    /// reference to the method (on another instance, through `super()`, not called) makes
    /// it unknown.
    fn class_method_parameter(
        &self,
        class: &crate::python::model::ClassDef<'a>,
        function: FunctionId,
        param: &Binding<'a>,
        depth: u32,
        want: Want,
    ) -> Option<Parsers> {
        let m = self.m;
        let def = m.function(function)?;
        let method = def.name;
        let (position, keyword_only) = parameter_position(m, def.node, param.name)?;
        let callers = m.calls().iter().filter(|c| {
            c.callee.kind() == "attribute"
                && c.callee
                    .child_by_field_name("attribute")
                    .is_some_and(|a| m.text(a) == method)
        });
        let mut out: Parsers = Vec::new();
        let mut any = false;
        for call in callers {
            // `Lite(...).run(args)`, or `lite.run(args)` after `lite = Lite(...)`: an
            // instance of this very class.
            let on_instance = call
                .callee
                .child_by_field_name("object")
                .and_then(|o| constructed_class(m, o, call.scope))
                .filter(|c| c.kind() == "identifier")
                .and_then(|c| m.single_binding(m.text(c), call.scope))
                .is_some_and(|b| match b.kind {
                    BindingKind::Class(c) => {
                        m.class(c).is_some_and(|k| k.name_range == class.name_range)
                    }
                    _ => false,
                });
            if !on_instance && self.class_method(call.callee, call.scope) != Some(function) {
                // The same name on an import or another class of this file (`Trainer.
                // add_argparse_args(parser)`) is another method; on an instance, through
                // `super()` or a subclass it may be this one, with what it is given unknown.
                let object = call.callee.child_by_field_name("object")?;
                let other = object.kind() == "identifier"
                    && m.single_binding(m.text(object), call.scope)
                        .is_some_and(|b| match b.kind {
                            BindingKind::Import { .. } => true,
                            // A subclass of this class inherits the method.
                            BindingKind::Class(c) => m.class(c).is_some_and(|other| {
                                other.name_range != class.name_range
                                    && !other.bases.iter().any(|b| m.text(*b) == class.name)
                            }),
                            _ => false,
                        });
                if !other {
                    return None;
                }
                continue;
            }
            let frame = CallFrame {
                function,
                call: call.node,
                scope: call.scope,
                outer: None,
            };
            match passed_for(m, &frame, position, keyword_only, param.name) {
                Passed::Value(v) => {
                    out.extend(self.resolve(v, call.scope, None, depth + 1, want)?)
                }
                Passed::Nothing | Passed::Unknown => return None,
            }
            any = true;
        }
        // The method named without a call (`parsers = [Model.add_args]`).
        let named_elsewhere = m.references(class.name).into_iter().any(|r| {
            r.parent().is_some_and(|a| {
                a.kind() == "attribute"
                    && a.child_by_field_name("object") == Some(r)
                    && a.child_by_field_name("attribute")
                        .is_some_and(|n| m.text(n) == method)
                    && a.parent().and_then(|c| c.child_by_field_name("function")) != Some(a)
            })
        });
        if named_elsewhere {
            return None;
        }
        // No caller here: other files may call it with their parser (see `parameter`), at the
        // call's position (a class method's first parameter is the class).
        if !any && want == Want::Parser && class.parent_scope == MODULE_SCOPE && !keyword_only {
            let position = match binds_first(m, function)? {
                true => position.checked_sub(1)?,
                false => position,
            };
            let id = param.node.start_byte();
            self.param_parsers
                .borrow_mut()
                .push((id, function, position));
            return Some(vec![id]);
        }
        // A namespace handed to the method by code of other files, on an instance or
        // through the class (see [`Method`]).
        if !any && want == Want::Namespace && class.parent_scope == MODULE_SCOPE {
            let external = External::of_method(m, function, param.name)?;
            self.externals.borrow_mut().push(external);
            return Some(Vec::new());
        }
        out.sort_unstable();
        out.dedup();
        any.then_some(out)
    }

    /// The function of this file a callee names (a local `def` wins over an import it shadows).
    fn local_function(&self, callee: Node, scope: ScopeId) -> Option<FunctionId> {
        let m = self.m;
        if callee.kind() != "identifier" {
            return None;
        }
        let ids = effective_bindings(m, m.lookup(m.text(callee), scope)?);
        match ids.as_slice() {
            [id] => match m.bindings().get(*id)?.kind {
                BindingKind::Function(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The bindings of a name that can be in effect: a `def` shadows the imports of the same name
/// above it in its scope (`from utils import main` then `def main(args): ...`).
pub(crate) fn effective_bindings(m: &Module, ids: &[usize]) -> Vec<usize> {
    let bindings: Vec<(usize, &Binding)> = ids
        .iter()
        .filter_map(|id| m.bindings().get(*id).map(|b| (*id, b)))
        .collect();
    let defs: Vec<&(usize, &Binding)> = bindings
        .iter()
        .filter(|(_, b)| matches!(b.kind, BindingKind::Function(_)))
        .collect();
    if let [(def, d)] = defs.as_slice() {
        let shadows_all = bindings.iter().all(|(id, b)| {
            id == def
                || matches!(b.kind, BindingKind::Import { .. })
                    && b.name_range.start < d.name_range.start
        });
        if shadows_all {
            return vec![*def];
        }
    }
    ids.to_vec()
}

/// Whether an identifier refers to a binding: not the attribute of `self.main`, nor the
/// keyword of `f(main=...)`.
pub(crate) fn names_a_binding(identifier: Node) -> bool {
    let Some(parent) = identifier.parent() else {
        return true;
    };
    let field = match parent.kind() {
        "attribute" => "attribute",
        "keyword_argument" => "name",
        // `from data_provider.data_loader import X` names a module, not the function
        // `data_provider` of the file; `X` (or `from train import Workspace as W` in
        // `train.py`) is a name of that module, which the import binds anew.
        "dotted_name" => {
            return parent.parent().is_none_or(|p| {
                !matches!(
                    p.kind(),
                    "import_from_statement" | "import_statement" | "aliased_import"
                )
            });
        }
        _ => return true,
    };
    parent.child_by_field_name(field) != Some(identifier)
}

fn find_frame<'c, 'a>(
    frame: Option<&'c CallFrame<'c, 'a>>,
    function: FunctionId,
) -> Option<&'c CallFrame<'c, 'a>> {
    let mut current = frame;
    while let Some(f) = current {
        if f.function == function {
            return Some(f);
        }
        current = f.outer;
    }
    None
}

/// The call a reference to a function makes: `f(...)`, or `spawn(f, args=(...))`.
pub(crate) fn call_of<'a>(m: &Module<'a>, reference: Node<'a>) -> Option<Node<'a>> {
    let parent = reference.parent()?;
    if parent.kind() == "call" && parent.child_by_field_name("function") == Some(reference) {
        return Some(parent);
    }
    let call = parent.parent().filter(|c| c.kind() == "call")?;
    let callee = call.child_by_field_name("function")?;
    (parent.kind() == "argument_list"
        && positional_args(call).first() == Some(&reference)
        && m.qualified_name(callee).as_deref() == Some("torch.multiprocessing.spawn"))
    .then_some(call)
}

thread_local! {
    /// How many branch conditions the flow is evaluating on this thread: each may follow
    /// the namespace again, so only a few are nested.
    static CONDITIONS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}
/// How many branch conditions are evaluated one inside another.
const MAX_CONDITIONS: u32 = 2;

/// Whether the code at `node` never runs under the defaults: a condition around it is false
/// ([`writes::branch_runs`]). `false` when that is unknown.
fn never_runs(m: &Module, node: Node) -> bool {
    let nested = CONDITIONS.with(std::cell::Cell::get);
    if nested >= MAX_CONDITIONS {
        return false;
    }
    CONDITIONS.with(|c| c.set(nested + 1));
    let runs = writes::branch_runs(m, node, None, 0);
    CONDITIONS.with(|c| c.set(nested));
    runs == Some(false)
}

/// Whether the code at `node` never runs under the defaults: [`never_runs`], or it is in a
/// module-level function of the file every call of which never runs (`if args.options:
/// load_options(args, args.options)` with `--options` empty by default).
fn never_reached(m: &Module, node: Node) -> bool {
    if never_runs(m, node) {
        return true;
    }
    let Some(function) = m.function_at(node).and_then(|f| m.function(f)) else {
        return false;
    };
    if function.class.is_some() || function.parent_scope != MODULE_SCOPE {
        return false;
    }
    let references = defaults::references_to(
        m,
        function.name,
        function.name_range,
        m.function_at(node),
        None,
    );
    !references.is_empty()
        && references.iter().all(|(reference, _)| {
            reference
                .parent()
                .filter(|p| {
                    p.kind() == "call" && p.child_by_field_name("function") == Some(*reference)
                })
                .is_some_and(|call| never_runs(m, call))
        })
}

/// How long a call quoted in a message may be before its arguments are elided.
const QUOTED_CALL_LIMIT: usize = 100;

/// A call's code on one line, its runs of whitespace made one space; a long one keeps its
/// callee and elides its arguments (`init_data(...)`), which the line number points at.
pub(crate) fn squeezed(code: &str) -> String {
    let one_line = code.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.find('(') {
        Some(open) if one_line.chars().count() > QUOTED_CALL_LIMIT => {
            format!("{}(...)", &one_line[..open])
        }
        _ => one_line,
    }
}

/// Whether `reference` is an argument of `super(...)`.
fn in_super_call(m: &Module, reference: Node) -> bool {
    reference
        .parent()
        .filter(|p| p.kind() == "argument_list")
        .and_then(|p| p.parent())
        .and_then(|c| c.child_by_field_name("function"))
        .is_some_and(|f| m.text(f) == "super")
}

/// For a method decorated `@staticmethod` (`Some(false)`) or `@classmethod` (`Some(true)`, the
/// class bound to its first parameter), whether a call through the class binds the first
/// parameter; `None` for any other method, whose decorators the model cannot read.
pub(crate) fn binds_first(m: &Module, function: FunctionId) -> Option<bool> {
    let node = m.function(function)?.node;
    let decorated = node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut cursor = decorated.walk();
    let decorators: Vec<&str> = decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .map(|d| m.text(d).trim_start_matches('@').trim())
        .collect();
    match decorators.as_slice() {
        ["staticmethod"] => Some(false),
        ["classmethod"] => Some(true),
        _ => None,
    }
}

/// What a call passes for one parameter.
enum Passed<'a> {
    Value(Node<'a>),
    /// Not passed: the parameter's default.
    Nothing,
    /// `*args`/`**kwargs` may pass it, or the call is not one the model reads.
    Unknown,
}

/// What `torch.multiprocessing.spawn(f, args=(...))` (or `spawn(f, (...), nprocs)`), which
/// calls `f(i, *args)`, passes at `position` of `f`: an item of the tuple (the process index,
/// at position 0, is not one).
pub(crate) fn spawned_argument<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    position: usize,
) -> Option<Node<'a>> {
    let tuple = m
        .keyword_arg(call, "args")
        .or_else(|| positional_args(call).get(1).copied())
        .filter(|t| t.kind() == "tuple")?;
    literal_items(tuple)?.get(position.checked_sub(1)?).copied()
}

/// What `call` passes for the parameter at `position` of its function: a direct call
/// `f(a, b, args)`, a class construction `C(a, args)` for `__init__(self, a, args)`, or
/// `torch.multiprocessing.spawn(f, args=(b, args))`, which calls `f(i, *args)`.
fn passed_for<'a>(
    m: &Module<'a>,
    frame: &CallFrame<'_, 'a>,
    position: usize,
    keyword_only: bool,
    name: &str,
) -> Passed<'a> {
    let call = frame.call;
    let Some(callee) = call.child_by_field_name("function") else {
        return Passed::Unknown;
    };
    let is_method = m
        .function(frame.function)
        .is_some_and(|f| f.class.is_some())
        && binds_first(m, frame.function) != Some(false);
    if m.qualified_name(callee).as_deref() == Some("torch.multiprocessing.spawn") {
        if keyword_only {
            return Passed::Unknown;
        }
        return spawned_argument(m, call, position).map_or(Passed::Unknown, Passed::Value);
    }
    if let Some(value) = m.keyword_arg(call, name) {
        return Passed::Value(value);
    }
    if has_splat(call) {
        return Passed::Unknown;
    }
    let position = match (is_method, position) {
        (true, 0) => return Passed::Unknown,
        (true, p) => p - 1,
        (false, p) => p,
    };
    match positional_args(call).get(position) {
        Some(v) if !keyword_only => Passed::Value(*v),
        _ => Passed::Nothing,
    }
}

/// Whether `name` is the `**name` parameter of `function`.
fn is_splat_parameter(m: &Module, function: Node, name: &str) -> bool {
    let Some(params) = function.child_by_field_name("parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    params.named_children(&mut cursor).any(|p| {
        p.kind() == "dictionary_splat_pattern"
            && p.named_child(0).is_some_and(|n| m.text(n) == name)
    })
}

/// The mapping `call` unpacks whole into a `**kwargs` parameter: its one `**mapping`, when it
/// passes no keyword argument (which would add or replace a key) and no `*args`.
fn unpacked_whole(call: Node) -> Option<Node> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let mut mapping = None;
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "dictionary_splat" if mapping.is_none() => mapping = arg.named_child(0),
            "dictionary_splat" | "keyword_argument" | "list_splat" => return None,
            _ => {}
        }
    }
    mapping
}

/// The 0-based position of a parameter and whether it is keyword-only.
pub(crate) fn parameter_position(m: &Module, function: Node, name: &str) -> Option<(usize, bool)> {
    let params = function.child_by_field_name("parameters")?;
    let mut cursor = params.walk();
    let mut keyword_only = false;
    for (i, p) in params.named_children(&mut cursor).enumerate() {
        let pname = match p.kind() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            "typed_parameter" => p.named_child(0),
            "list_splat_pattern" | "keyword_separator" => {
                keyword_only = true;
                None
            }
            _ => None,
        };
        if pname.is_some_and(|n| m.text(n) == name) {
            return Some((i, keyword_only));
        }
    }
    None
}

/// The default of a parameter node (`input_args=None`).
pub(crate) fn parameter_default(param: Node) -> Option<Node> {
    match param.kind() {
        "default_parameter" | "typed_default_parameter" => param.child_by_field_name("value"),
        _ => None,
    }
}

/// A destructuring binding `a, b = call(...)`: the call and the position of the name.
pub(crate) fn destructured<'a>(binding: &Binding<'a>) -> Option<(Node<'a>, usize)> {
    let statement = binding.node;
    if statement.kind() != "assignment" {
        return None;
    }
    let left = statement.child_by_field_name("left")?;
    let right = statement.child_by_field_name("right")?;
    if !matches!(left.kind(), "pattern_list" | "tuple_pattern") || right.kind() != "call" {
        return None;
    }
    let mut cursor = left.walk();
    let index = left
        .named_children(&mut cursor)
        .position(|n| n.kind() == "identifier" && Module::range(n) == binding.name_range)?;
    Some((right, index))
}

pub(crate) fn has_splat(call: Node) -> bool {
    call.child_by_field_name("arguments").is_some_and(|args| {
        let mut cursor = args.walk();
        args.named_children(&mut cursor)
            .any(|n| matches!(n.kind(), "list_splat" | "dictionary_splat"))
    })
}

/// `ArgumentParser(...)`: its parents; `argument_default=` or `**kwargs` make it opaque.
fn read_constructor(flow: &Flow, call: Node, scope: ScopeId, options: &mut ParserOptions) {
    let m = flow.m;
    let Some(args) = call.child_by_field_name("arguments") else {
        options.opaque = true;
        return;
    };
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let name = arg.child_by_field_name("name").map(|n| m.text(n));
                let value = arg.child_by_field_name("value");
                match (name, value) {
                    (Some("argument_default"), _) => options.opaque = true,
                    (Some("parents"), Some(list)) if matches!(list.kind(), "list" | "tuple") => {
                        let Some(parents) = literal_items(list) else {
                            options.opaque = true;
                            continue;
                        };
                        for parent in parents {
                            match flow.top(parent, scope, Want::Parser) {
                                Some(parsers) => options.parents.extend(parsers),
                                None => options.opaque = true,
                            }
                        }
                    }
                    (Some("parents"), _) => options.opaque = true,
                    _ => {}
                }
            }
            "dictionary_splat" => options.opaque = true,
            _ => {}
        }
    }
}

fn read_set_defaults(m: &Module, call: Node, scope: ScopeId, options: &mut ParserOptions) {
    let Some(args) = call.child_by_field_name("arguments") else {
        options.opaque = true;
        return;
    };
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let (Some(name), Some(value)) = (
                    arg.child_by_field_name("name"),
                    arg.child_by_field_name("value"),
                ) else {
                    continue;
                };
                options
                    .overridden
                    .entry(m.text(name).to_owned())
                    .or_default()
                    .push(SetDefault {
                        value: m.value_in(value, scope, 1).value,
                        line: m.line(call.start_byte()),
                        at: Module::range(call),
                        scope,
                        file: None,
                    });
            }
            // `set_defaults(**defaults)`: each key the dict is known to hold; a key set only
            // on some paths gives no known default.
            "dictionary_splat" => match loaders::unpacked_keys(m, arg, call, scope) {
                Some(keys) => {
                    for key in keys {
                        let value = match key.conditional {
                            true => Value::Unknown,
                            false => m.value_in(key.value, scope, 1).value,
                        };
                        options
                            .overridden
                            .entry(key.name)
                            .or_default()
                            .push(SetDefault {
                                value,
                                line: m.line(call.start_byte()),
                                at: Module::range(call),
                                scope,
                                file: None,
                            });
                    }
                }
                None => match yaml_splat(m, arg, call, scope) {
                    Some(splat) => options.yaml_splats.push(splat),
                    None => options.opaque = true,
                },
            },
            "comment" => {}
            _ => options.opaque = true,
        }
    }
}

/// Reads the YAML files of the parser's `set_defaults(**loaded)` calls (see [`YamlSplat`]):
/// their keys become set defaults. A file not found, here or among the project's config files
/// that fit the parser, leaves the parser opaque.
fn resolve_yaml_splats(m: &Module, options: &mut ParserOptions) {
    for splat in std::mem::take(&mut options.yaml_splats) {
        let path = match &splat.file {
            Ok(path) => Value::Str(path.clone()),
            Err(dest) => match options.options.get(dest).map(Vec::as_slice) {
                Some([only]) if !options.overridden.contains_key(dest) => only.value.clone(),
                _ => Value::Unknown,
            },
        };
        // `if p.config is not None:` (or `if p.config:`) with no file by default: the call
        // does not run.
        let no_file = match &path {
            Value::None => true,
            Value::Str(path) => path.is_empty(),
            _ => false,
        };
        if splat.gated && no_file {
            continue;
        }
        let path = match path {
            Value::Str(path) if !path.is_empty() => Some(path),
            _ => None,
        };
        let dests: HashSet<String> = options
            .options
            .keys()
            .chain(options.overridden.keys())
            .cloned()
            .collect();
        let Some(defaults) = configs::parser_defaults(m, path.as_deref(), &dests) else {
            options.opaque = true;
            continue;
        };
        for (dest, value) in defaults {
            options
                .overridden
                .entry(dest)
                .or_default()
                .push(SetDefault {
                    value,
                    line: splat.line,
                    at: splat.at,
                    scope: splat.scope,
                    file: None,
                });
        }
    }
}

/// Where the one call of the plain function whose body is `scope` is, as the scope and
/// offset of the call.
fn called_once(m: &Module, scope: ScopeId) -> Option<(ScopeId, usize)> {
    let id = m.scopes().get(scope)?.function?;
    let function = m.function(id).filter(|f| f.class.is_none())?;
    let references = defaults::references_to(m, function.name, function.name_range, Some(id), None);
    let [(reference, caller)] = references.as_slice() else {
        return None;
    };
    let call = reference
        .parent()
        .filter(|p| p.kind() == "call" && p.child_by_field_name("function") == Some(*reference))?;
    Some((*caller, call.start_byte()))
}

/// `parser.set_defaults(**default_arg)` with `default_arg` loaded from a YAML file, its path
/// a literal or an option of this parser (`p = parser.parse_args()`, then `open(p.config)`),
/// ST-GCN's layout. Under a condition, only one testing that path (`if p.config is not
/// None:`) is read.
fn yaml_splat(m: &Module, splat: Node, call: Node, scope: ScopeId) -> Option<YamlSplat> {
    let receiver = call
        .child_by_field_name("function")?
        .child_by_field_name("object")
        .filter(|r| r.kind() == "identifier")?;
    let (file, read) = match configs::splat_file(m, splat, scope)? {
        configs::SplatFile::Literal(path) => (Ok(path), None),
        configs::SplatFile::Attribute { object, dest } => {
            // The namespace parsed from this very parser.
            let parsed = m.single_binding(m.text(object), scope)?;
            let parse = match parsed.value {
                Some(value) => value,
                None => destructured(parsed).filter(|(_, index)| *index == 0)?.0,
            };
            let callee = parse.child_by_field_name("function")?;
            let method = m.text(callee.child_by_field_name("attribute")?);
            let parsed_from = callee.child_by_field_name("object")?;
            if !matches!(method, "parse_args" | "parse_known_args") {
                return None;
            }
            let read = format!("{}.{dest}", m.text(object));
            if m.text(parsed_from) == m.text(receiver) {
                (Err(dest), Some(read))
            } else {
                // timm's template: the file named by another parser of the file (`args_config,
                // remaining = config_parser.parse_known_args()`), its keys set on this one.
                (
                    Ok(other_parser_default(m, parsed_from, &dest, scope)?),
                    Some(read),
                )
            }
        }
    };
    let mut gated = false;
    let mut node = call;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "function_definition" | "class_definition" | "module" => break,
            "if_statement" if m.is_main_guard(parent) => {}
            "if_statement" => {
                let condition = parent.child_by_field_name("condition")?;
                let tests_path = read
                    .as_deref()
                    .is_some_and(|object| m.text(condition).contains(object));
                if !tests_path {
                    return None;
                }
                gated = true;
            }
            "for_statement" | "while_statement" | "elif_clause" | "else_clause" => return None,
            _ => {}
        }
        node = parent;
    }
    Some(YamlSplat {
        file,
        gated,
        line: m.line(call.start_byte()),
        at: Module::range(call),
        scope,
    })
}

/// The default of the option `dest` of the parser `parser` holds, when one `add_argument`
/// call on that parser defines it with a literal string default (`''` for `None` or none
/// written, the empty path a `if args_config.config:` test skips).
fn other_parser_default(m: &Module, parser: Node, dest: &str, scope: ScopeId) -> Option<String> {
    let flow = Flow::new(m);
    let parsers = flow.top(parser, scope, Want::Parser)?;
    let mut found: Option<String> = None;
    for call in m.calls() {
        if call.method != Some("add_argument") {
            continue;
        }
        let Some(object) = call.callee.child_by_field_name("object") else {
            continue;
        };
        if !flow
            .top(object, call.scope, Want::Parser)
            .is_some_and(|p| p.iter().any(|id| parsers.contains(id)))
        {
            continue;
        }
        let args = positional_args(call.node);
        let defines = m
            .keyword_arg(call.node, "dest")
            .and_then(|d| m.string_value(d))
            .map_or_else(
                || {
                    args.iter().filter_map(|a| m.string_value(*a)).any(|flag| {
                        flag.starts_with("--")
                            && flag.trim_start_matches('-').replace('-', "_") == dest
                    })
                },
                |d| d == dest,
            );
        if !defines {
            continue;
        }
        let default = match m.keyword_arg(call.node, "default") {
            None => String::new(),
            Some(value) if value.kind() == "none" => String::new(),
            Some(value) => m.string_value(value)?,
        };
        if found.is_some() {
            return None;
        }
        found = Some(default);
    }
    found
}

/// A command line's text as the option's `type=` makes it: an `int`, a `float`, a `str`
/// (no `type=`); `None` for another type, or text it does not take.
fn typed(text: &str, ty: Option<&str>) -> Option<Value> {
    match ty {
        Some("int") => text.trim().parse().ok().map(Value::Int),
        Some("float") => text.trim().parse().ok().map(Value::Float),
        None | Some("str") => Some(Value::Str(text.to_owned())),
        Some(_) => None,
    }
}

/// The other whole number every command of the project's shell scripts and READMEs that runs
/// `file` passes for the option spelled `flags`, when they agree on one and it is not the
/// `default` (a command that leaves the option out counts for the default; commands that
/// disagree, or pass what cannot be read, give none).
pub(crate) fn script_pass(
    index: &ProjectIndex,
    file: &Path,
    flags: &[String],
    takes_value: bool,
    ty: Option<&str>,
    default: &Value,
) -> Option<ScriptPass> {
    let runs = index.script_runs(file);
    let mut agreed: Option<(Value, &crate::python::scripts::Run)> = None;
    for run in &runs {
        let value = match run.passed(flags, takes_value) {
            Given::Absent => default.clone(),
            Given::Unknown => return None,
            Given::Flag if takes_value => return None,
            Given::Flag => Value::Bool(true),
            Given::Value(text) => typed(&text, ty)?,
        };
        if !value.is_known() {
            return None;
        }
        match &agreed {
            Some((first, _)) if *first != value => return None,
            Some(_) => {}
            None => agreed = Some((value, run)),
        }
    }
    let (value, run) = agreed?;
    let (Value::Int(given), Value::Int(own)) = (value, default) else {
        return None;
    };
    (given != *own).then(|| ScriptPass {
        value: given,
        written: written_option(run, flags),
        script: run.script.clone(),
        line: run.line,
        runs: runs.len(),
        runs_file: file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    })
}

/// How `run` writes the option: `--workers 20`, `--workers=20`, `--fp16`.
/// The option spelled any of `flags` as `run` writes it last (`--cfg a.yaml`, `--cfg=a.yaml`).
pub(crate) fn written_option(run: &crate::python::scripts::Run, flags: &[String]) -> String {
    let words: Vec<&str> = run
        .args
        .iter()
        .map(|w| w.as_deref().unwrap_or("$?"))
        .collect();
    let at = words.iter().rposition(|w| {
        let name = w.split_once('=').map_or(*w, |(n, _)| n);
        flags.iter().any(|f| f == name)
    });
    match at {
        Some(i) if words[i].contains('=') => words[i].to_owned(),
        Some(i) => match words.get(i + 1) {
            Some(value) if !value.starts_with("--") => format!("{} {value}", words[i]),
            _ => words[i].to_owned(),
        },
        None => String::new(),
    }
}

fn read_add_argument(m: &Module, call: Node, scope: ScopeId, options: &mut ParserOptions) {
    let Some(args) = call.child_by_field_name("arguments") else {
        options.opaque = true;
        return;
    };
    let mut flags: Vec<String> = Vec::new();
    let mut dest = None;
    let mut default = None;
    let mut action = None;
    let mut ty = None;
    let mut required = false;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let (Some(name), Some(value)) = (
                    arg.child_by_field_name("name"),
                    arg.child_by_field_name("value"),
                ) else {
                    continue;
                };
                match m.text(name) {
                    "dest" => dest = Some(m.string_value(value)),
                    "default" => default = Some(value),
                    "action" => action = Some(m.string_value(value)),
                    "type" => ty = Some(m.text(value)),
                    "required" => {
                        required = m.value_in(value, scope, 1).value.truthy() != Some(false)
                    }
                    _ => {}
                }
            }
            "comment" => {}
            _ => match m.string_value(arg) {
                Some(flag) => flags.push(flag),
                None => {
                    options.opaque = true;
                    return;
                }
            },
        }
    }
    let Some(first) = flags.first() else {
        options.opaque = true;
        return;
    };
    let long = flags.iter().find(|f| f.starts_with("--"));
    let positional = !first.starts_with('-');
    let dest = match dest {
        Some(Some(d)) => d,
        Some(None) => {
            options.opaque = true;
            return;
        }
        None => long
            .unwrap_or(first)
            .trim_start_matches('-')
            .replace('-', "_"),
    };
    // `store_true`, `store_const`, `count`: the option alone.
    let takes_value = match &action {
        None => true,
        Some(Some(a)) => matches!(a.as_str(), "store" | "append" | "extend"),
        Some(None) => false,
    };
    let (value, implicit) = if positional || required {
        (Value::Unknown, false)
    } else if let Some(default) = default {
        let value = m.value_in(default, scope, 1).value;
        // argparse runs `type` over string defaults.
        let value = match (&value, ty) {
            (Value::Str(s), Some("int")) => {
                s.trim().parse().map(Value::Int).unwrap_or(Value::Unknown)
            }
            (Value::Str(s), Some("float")) => {
                s.trim().parse().map(Value::Float).unwrap_or(Value::Unknown)
            }
            (Value::Str(_), Some(t)) if t != "str" => Value::Unknown,
            _ => value,
        };
        (value, false)
    } else {
        let value = match action {
            None => Value::None,
            Some(Some(a)) if a == "store_true" => Value::Bool(false),
            Some(Some(a)) if a == "store_false" => Value::Bool(true),
            Some(Some(a)) if matches!(a.as_str(), "store" | "count" | "append" | "extend") => {
                Value::None
            }
            _ => Value::Unknown,
        };
        (value, true)
    };
    options
        .options
        .entry(dest)
        .or_default()
        .push(OptionDefault {
            flag: long.unwrap_or(first).clone(),
            flags: flags.clone(),
            ty: ty.map(str::to_owned),
            takes_value,
            line: m.line(call.start_byte()),
            at: Module::range(call),
            value,
            implicit,
            required,
            file: None,
            entered: Some((scope, call.start_byte())),
            called_at: None,
        });
}
