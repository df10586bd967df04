//! Values that reach a loader through a function's parameters and an object's attributes:
//! `def main(num_workers=16)` run as `main()` from the `__main__` guard (or handed to
//! `fire.Fire`, `typer.run`, `jsonargparse.CLI`, `tyro.cli`), or called by a function so run, a few
//! functions deep (`main()` calling `train()` calling `make_loader(ds)`), or called by the
//! project's other files (`evaluate(data)` in `metrics.py` for `def evaluate(data,
//! num_workers=16)`); and `self.num_workers` set once in `__init__` from a parameter whose
//! default every construction of the class keeps.
//!
//! Sound only where it can be: every reference to the function (or class) in the file must be
//! a call the model reads, and every call must pass the same known value or nothing; a `*args`
//! or `**kwargs`, a decorator that may supply arguments (of a class: any but the project's that
//! return the class they are given, see `decorators`), a subclass, or a second write to the
//! attribute makes the value unknown. A module-level function or class is also called in the
//! project's other files (found by name, see [`ProjectIndex::constructions_elsewhere`]): a
//! call there that passes the parameter makes it unknown unless what it passes is the default
//! of one of that file's command-line options (`prepare_loader(ds, num_workers=args.workers)`
//! in an entry script), and then every call must agree. A class constructed nowhere in the
//! project is built elsewhere (a config, a CLI): its `__init__` defaults are what runs; so
//! are the defaults of a function the project never calls (a module of helpers for others).
//!
//! [`ProjectIndex::constructions_elsewhere`]: crate::python::index::ProjectIndex::constructions_elsewhere

use tree_sitter::Node;

use crate::python::argparse::{
    binds_first, constructed_class, effective_bindings, names_a_binding, parameter_default,
    parameter_position,
};
use crate::python::decorators;
use crate::python::index::Construction;
use crate::python::model::{
    AttributeAssignment, Binding, BindingKind, CallSite, ClassDef, ClassId, FunctionDef,
    FunctionId, MODULE_SCOPE, Module, ScopeId, positional_args,
};
use crate::python::subclass;
use crate::python::values::{Provenance, Resolved, Value};
use crate::text::TextRange;

/// Calls that run a function as a command-line program, its defaults being what a run without
/// options gets.
const CLI_RUNNERS: &[&str] = &[
    "fire.Fire",
    "typer.run",
    "jsonargparse.CLI",
    "jsonargparse.auto_cli",
    "tyro.cli",
];

/// Classes a command line builds (Lightning's CLI: `LightningCLI(Model, DataModule)`), each
/// `__init__` parameter an option whose default is the signature's.
const CLASS_CLI_RUNNERS: &[&str] = &[
    "lightning.pytorch.cli.LightningCLI",
    "lightning.pytorch.LightningCLI",
    "pytorch_lightning.cli.LightningCLI",
    "pytorch_lightning.utilities.cli.LightningCLI",
];

/// How many references to a function are read before giving up.
const MAX_CALLS: usize = 16;

/// What one reference to the function does with the parameter.
pub(crate) enum Passed<'a> {
    /// The call passes this expression, evaluated in this scope.
    Value(Node<'a>, ScopeId),
    /// The call leaves the parameter to its default.
    Nothing,
    /// `Model(**vars(args))`: the namespace's attribute of the parameter's name.
    Namespace(Node<'a>, ScopeId),
    /// A call in another file passes this value (an option's default of that file).
    Elsewhere(Resolved),
    /// The call may pass anything (`*args`, a value another file's search cannot read).
    Unknown,
}

/// What a call found in another file passes to the parameter `param` (0-based `index` among
/// the positional arguments, `None` when keyword-only): nothing, or a value that file hands
/// on (see [`Construction::values`]); unknown when it passes anything else.
fn passed_there<'a>(
    c: &Construction,
    index: Option<usize>,
    param: &str,
    shown: &str,
) -> Passed<'a> {
    let by_position = index.is_some_and(|i| c.positional > i);
    if !by_position && !c.keywords.iter().any(|k| k == param) {
        return Passed::Nothing;
    }
    let Some(mut value) = c.value(param, index).cloned() else {
        return Passed::Unknown;
    };
    // A value written in the call is named after the parameter it is passed for.
    if let Provenance::ParameterPassed {
        function, param: p, ..
    } = &mut value.provenance
    {
        *function = shown.to_owned();
        *p = param.to_owned();
    }
    Passed::Elsewhere(value)
}

/// The value of a parameter binding: its default or what every call passes (see the module's
/// documentation). `None` when unknown.
pub(crate) fn parameter_value(m: &Module, param: &Binding, depth: u32) -> Option<Resolved> {
    let key = parameter_key(m, param);
    if let Some(assumed) = ASSUMED.with_borrow(|a| {
        a.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, resolved)| resolved.clone())
    }) {
        return Some(assumed);
    }
    combine(passed_values(m, param, depth)?)
}

/// What each call found gives the parameter, with whether it is a candidate for one caller's
/// value (outside the tests); `None` when a call cannot be read.
fn passed_values(m: &Module, param: &Binding, depth: u32) -> Option<Vec<(Resolved, bool)>> {
    // A parameter passed on to itself (`def f(x): ... f(x)`) adds nothing: unknown, and
    // following it again would only repeat the search.
    let key = parameter_key(m, param);
    if FOLLOWING.with_borrow(|f| f.contains(&key)) {
        return None;
    }
    FOLLOWING.with_borrow_mut(|f| f.push(key));
    let found = follow_parameter(m, param, depth);
    FOLLOWING.with_borrow_mut(|f| f.pop());
    found
}

/// The value one caller outside the tests gives the parameter when it is `wanted`: that
/// caller's path runs the function with it, whatever the others give.
pub(crate) fn one_caller_giving(
    m: &Module,
    param: &Binding,
    wanted: &Value,
    depth: u32,
) -> Option<Resolved> {
    passed_values(m, param, depth)?
        .into_iter()
        .find(|(r, candidate)| *candidate && r.value == *wanted)
        .map(|(r, _)| r)
}

/// How many callers' values of one parameter a rule checks path by path.
const MAX_CALLER_PATHS: usize = 4;

/// The known values the callers outside the tests give the parameter, each value once: the
/// paths a rule may check one by one (see [`assuming`]). Empty when there are more than a few,
/// or fewer than two (one value, or none, is the parameter's value already).
pub(crate) fn caller_values(m: &Module, param: &Binding) -> Vec<Resolved> {
    let Some(values) = passed_values(m, param, 0) else {
        return Vec::new();
    };
    let mut out: Vec<Resolved> = Vec::new();
    for (resolved, candidate) in values {
        if candidate && resolved.value.is_known() && !out.iter().any(|o| o.value == resolved.value)
        {
            out.push(resolved);
        }
    }
    if out.len() < 2 || out.len() > MAX_CALLER_PATHS {
        return Vec::new();
    }
    out
}

/// Runs `f` with the parameter read as `value` (one caller's path, see
/// [`one_caller_giving`]): every read of it in `m` while `f` runs gives that value.
pub(crate) fn assuming<T>(
    m: &Module,
    param: &Binding,
    value: Resolved,
    f: impl FnOnce() -> T,
) -> T {
    let key = parameter_key(m, param);
    ASSUMED.with_borrow_mut(|a| a.push((key, value)));
    let out = f();
    ASSUMED.with_borrow_mut(|a| a.pop());
    out
}

fn parameter_key(m: &Module, param: &Binding) -> (usize, usize) {
    (m.source.as_ptr() as usize, param.name_range.start)
}

thread_local! {
    /// The parameters being resolved on this thread (the source's address and the
    /// parameter's offset).
    static FOLLOWING: std::cell::RefCell<Vec<(usize, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Parameters read with one caller's value on this thread (see [`assuming`]).
    static ASSUMED: std::cell::RefCell<Vec<((usize, usize), Resolved)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn follow_parameter(m: &Module, param: &Binding, depth: u32) -> Option<Vec<(Resolved, bool)>> {
    let function_id = m.scopes().get(param.scope)?.function?;
    let function = m.function(function_id)?;
    if !decorators::passes_arguments(m, function) {
        return None;
    }
    let (position, keyword_only) = parameter_position(m, function.node, param.name)?;
    let mut subclass_calls = Vec::new();
    let (name, name_range, class) = match function.class {
        Some(class_id) if function.name == "__init__" => {
            if position == 0 {
                return None;
            }
            // A subclass's constructor passes on what it calls `super().__init__` with.
            if has_subclass(m, class_id) {
                subclass_calls =
                    subclass_super_calls(m, class_id, position, keyword_only, param.name)?;
            }
            let class = m.class(class_id)?;
            // A decorator may replace the class, unless it is the project's and returns it.
            let decorated = class
                .node
                .parent()
                .filter(|p| p.kind() == "decorated_definition");
            if decorated.is_some_and(|d| !decorators::transparent(m, d, class.parent_scope)) {
                return None;
            }
            (class.name, class.name_range, Some(class_id))
        }
        Some(class_id) => {
            let calls = method_calls(m, class_id, function_id, position, keyword_only, param.name)?;
            let class = m.class(class_id)?.name;
            let shown = format!("{class}.{}", function.name);
            return Some(resolve_passed(
                m,
                function,
                param,
                (&shown, Some(class)),
                calls,
                depth,
            ));
        }
        None => (function.name, function.name_range, None),
    };
    let (mut passed, entry) = calls_in_file(
        m,
        (name, name_range),
        function_id,
        class,
        (position, keyword_only, param.name),
    )?;
    // A plain function is run from here or called by the project's other files, with what
    // they pass; one the project never calls (`def make_loaders(workers=10)` in a module of
    // helpers) is called by code outside it, and a call that leaves the parameter out gets
    // its default (with the calls of this file that do not run, if any). A class constructed nowhere in the file is built elsewhere: by the
    // project's other files, with what they pass, or from a configuration, with what its
    // signature gives.
    if class.is_none() {
        let index = (!keyword_only).then_some(position);
        // Only in a project whose extent is known (a folder checked, a marked root): a file
        // named by itself may have callers the search does not reach.
        let whole_project = || m.index.root_of(m.path).is_some();
        match calls_elsewhere(m, function, index, param.name) {
            Some(calls) if entry || !calls.is_empty() || whole_project() => passed.extend(calls),
            None if entry => {}
            _ => return None,
        }
    }
    // Built by Hydra's `instantiate` from the configs that name it (`_target_:
    // pkg.data.TextMelDataModule`), with their values.
    let instantiated: Vec<(Passed, bool)> = match class {
        Some(class_id)
            if m.class(class_id)
                .is_some_and(|c| c.parent_scope == MODULE_SCOPE) =>
        {
            crate::python::configs::instantiated_values(m, name, param.name)
                .into_iter()
                .map(|value| match value {
                    None => Passed::Nothing,
                    Some(resolved) if resolved.value.is_known() => Passed::Elsewhere(resolved),
                    Some(_) => Passed::Unknown,
                })
                .map(|p| (p, true))
                .collect()
        }
        _ => Vec::new(),
    };
    if let Some(class_id) = class {
        match passed_elsewhere(m, class_id, name, position, keyword_only, param.name) {
            Some(elsewhere) => passed.extend(elsewhere),
            // A script that builds it from a config it is handed (`Module(**cfg)` after
            // `compose(...)`) may pass anything; the runs that instantiate it from the
            // project's configs still get their values, one caller's at most.
            None if !instantiated.is_empty() => passed.push((Passed::Unknown, false)),
            None => return None,
        }
    }
    passed.extend(subclass_calls);
    passed.extend(instantiated);
    if passed.is_empty() {
        passed.push((Passed::Nothing, true));
    }
    Some(resolve_passed(
        m,
        function,
        param,
        (name, class.map(|_| name)),
        passed,
        depth,
    ))
}

/// What the calls of this file to the function `function_id` (named `name`, defined at the
/// range; with `class`, the class of that name for its `__init__`) pass for the parameter
/// (its position, whether keyword-only, its name), each with whether it is outside the
/// tests, and whether one of them runs when the file runs. `None` when a reference is neither
/// a call nor a command-line runner, or there are too many.
fn calls_in_file<'a>(
    m: &Module<'a>,
    (name, name_range): (&str, TextRange),
    function_id: FunctionId,
    class: Option<ClassId>,
    (position, keyword_only, param): (usize, bool, &str),
) -> Option<(Vec<(Passed<'a>, bool)>, bool)> {
    let mut passed = Vec::new();
    let mut entry = false;
    for (reference, scope) in references_to(m, name, name_range, Some(function_id), class) {
        if passed.len() >= MAX_CALLS {
            return None;
        }
        let parent = reference.parent()?;
        if parent.kind() == "call" && parent.child_by_field_name("function") == Some(reference) {
            let what = passed_for(
                m,
                parent,
                scope,
                position,
                keyword_only,
                class.is_some(),
                param,
            );
            passed.push((
                what.unwrap_or(Passed::Unknown),
                !in_test_function(m, parent),
            ));
            entry |= call_runs(m, parent, 0);
            continue;
        }
        // `fire.Fire(main)`, `LightningCLI(Model, DataModule)`: the command line may pass any
        // value; a run without options gets the defaults.
        if is_run_by_cli(m, reference, class.is_some()) {
            passed.push((Passed::Nothing, true));
            entry = true;
            continue;
        }
        // `Model.add_model_specific_args(parser)`: a static method constructs nothing through
        // this name (a class method may: `cls(...)`).
        if class.is_some_and(|c| names_static_method(m, reference, c)) {
            continue;
        }
        // `class Distributed(RunConfig):` and its `super().__init__(...)`: a base of a class
        // of the file, whose constructor's call is read with the subclass (see
        // [`subclass_super_calls`]).
        if class.is_some() && names_a_base(m, reference) {
            continue;
        }
        return None;
    }
    Some((passed, entry))
}

/// Whether `reference` names a base in a class header of the file (`class B(A):`), the
/// class whose `__init__` a subclass calls (`A.__init__(self, ...)`), or the class of a
/// `super(A, self)`, which constructs nothing.
fn names_a_base(m: &Module, reference: Node) -> bool {
    let holder = reference
        .parent()
        .filter(|p| p.kind() == "argument_list")
        .and_then(|p| p.parent());
    let in_bases = holder.is_some_and(|p| {
        p.kind() == "class_definition"
            || (p.kind() == "call"
                && p.child_by_field_name("function")
                    .is_some_and(|f| m.text(f) == "super"))
    });
    let init_call = reference
        .parent()
        .filter(|a| a.kind() == "attribute" && a.child_by_field_name("object") == Some(reference))
        .and_then(|a| a.child_by_field_name("attribute"))
        .is_some_and(|a| m.text(a) == "__init__");
    in_bases || init_call
}

/// What the calls of a module-level function in the project's other files pass for the
/// parameter (0-based `index` among the positional arguments, `None` when keyword-only);
/// none for a function that is not module-level. `None` when a call there cannot be read
/// (see [`ProjectIndex::constructions_elsewhere`]).
///
/// [`ProjectIndex::constructions_elsewhere`]: crate::python::index::ProjectIndex::constructions_elsewhere
fn calls_elsewhere<'a>(
    m: &Module,
    function: &FunctionDef,
    index: Option<usize>,
    param: &str,
) -> Option<Vec<(Passed<'a>, bool)>> {
    if function.node.parent().is_none_or(|p| p.kind() != "module") {
        return Some(Vec::new());
    }
    let calls = m.index.constructions_elsewhere(m.path, function.name)?;
    // A call that leaves out a required argument raises `TypeError` before the function
    // runs: it gives the parameter nothing.
    let calls: Vec<_> = calls
        .iter()
        .filter(|c| {
            c.command_line || !leaves_out_a_required(m, function.node, c.positional, &c.keywords)
        })
        .collect();
    Some(
        calls
            .iter()
            .map(|c| (passed_there(c, index, param, function.name), !c.in_tests))
            .collect(),
    )
}

/// Whether a call of the plain function `function` with `positional` positional arguments and
/// the keyword arguments `keywords` (every one the call passes, none left in an unread
/// `*args` or `**kwargs`) leaves out a parameter without a default: Python rejects it with
/// `TypeError: missing ... required ... argument` (ctm's `load_data(*, args, ...)` called
/// without `args=`).
fn leaves_out_a_required(
    m: &Module,
    function: Node,
    positional: usize,
    keywords: &[String],
) -> bool {
    let Some(params) = function.child_by_field_name("parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    let mut keyword_only = false;
    let mut index = 0;
    for p in params.named_children(&mut cursor) {
        let required = match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
            "list_splat_pattern" | "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "default_parameter" | "typed_default_parameter" => None,
            // `/`, `**kwargs`, comments.
            _ => continue,
        };
        let at = index;
        if !keyword_only {
            index += 1;
        }
        let Some(name) = required.map(|n| m.text(n)) else {
            continue;
        };
        let by_position = !keyword_only && at < positional;
        if !by_position && !keywords.iter().any(|k| k == name) {
            return true;
        }
    }
    false
}

/// What the callers of a plain function give under a keyword its `**kwargs` parameter
/// collects and hands on (`def loader(ds, **kwargs): return DataLoader(ds, **kwargs)`).
pub(crate) enum Forwarded {
    /// No caller passes it: the receiver's own default holds.
    Absent,
    /// What the callers give together ([`combine`]), `fallback` for those that leave it out.
    Given(Resolved),
}

/// For each `(keyword, fallback)` of `keys`, what the callers of the function whose `**kwargs`
/// parameter is `kwargs` pass under that keyword, in this file and the project's other
/// files. `None` when the callers cannot all be read (a reference that is not a call, no
/// caller that runs), or the function is a method or decorated.
pub(crate) fn forwarded(
    m: &Module,
    kwargs: &Binding,
    keys: &[(&str, Resolved)],
    depth: u32,
) -> Option<Vec<Forwarded>> {
    let function_id = m.scopes().get(kwargs.scope)?.function?;
    let function = m.function(function_id)?;
    if function.class.is_some() || !decorators::passes_arguments(m, function) {
        return None;
    }
    let guard = (m.source.as_ptr() as usize, kwargs.name_range.start);
    if FOLLOWING.with_borrow(|f| f.contains(&guard)) {
        return None;
    }
    FOLLOWING.with_borrow_mut(|f| f.push(guard));
    let found = keys
        .iter()
        .map(|(key, fallback)| {
            // A keyword the function names itself never reaches `**kwargs`.
            if parameter_position(m, function.node, key).is_some() {
                return Some(Forwarded::Absent);
            }
            let (mut passed, entry) = calls_in_file(
                m,
                (function.name, function.name_range),
                function_id,
                None,
                (usize::MAX, true, key),
            )?;
            // A caller outside the project fills `**kwargs` with what it likes: without a call
            // that runs, the key is unknown.
            match calls_elsewhere(m, function, None, key) {
                Some(calls) if entry || !calls.is_empty() => passed.extend(calls),
                None if entry => {}
                _ => return None,
            }
            if passed.iter().all(|(p, _)| matches!(p, Passed::Nothing)) {
                return Some(Forwarded::Absent);
            }
            let values = passed
                .into_iter()
                .map(|(p, candidate)| {
                    let value = match p {
                        Passed::Nothing => fallback.clone(),
                        other => given(m, function.name, key, other, depth),
                    };
                    (value, candidate)
                })
                .collect();
            Some(Forwarded::Given(
                combine(values).unwrap_or_else(Resolved::unknown),
            ))
        })
        .collect();
    FOLLOWING.with_borrow_mut(|f| f.pop());
    found
}

/// What each call gives the parameter, with whether it is a candidate for one caller's value
/// (see [`combine`]). `shown` names the callee in messages (`main`, `Model`, `Trainer.train`),
/// `class` the class of a method.
fn resolve_passed(
    m: &Module,
    function: &FunctionDef,
    param: &Binding,
    (shown, class): (&str, Option<&str>),
    passed: Vec<(Passed, bool)>,
    depth: u32,
) -> Vec<(Resolved, bool)> {
    let mut values = Vec::with_capacity(passed.len());
    for (p, candidate) in passed {
        let resolved = match p {
            Passed::Nothing => {
                default_value(m, function, param, class, depth).unwrap_or_else(Resolved::unknown)
            }
            other => given(m, shown, param.name, other, depth),
        };
        values.push((resolved, candidate));
    }
    values
}

/// The value a call gives a parameter (`shown` names the callee in messages); unknown for
/// [`Passed::Nothing`], whose default the caller knows.
fn given(m: &Module, shown: &str, param: &str, passed: Passed, depth: u32) -> Resolved {
    match passed {
        Passed::Value(value, scope) => {
            let inner = m.value_in(value, scope, depth + 4);
            match inner.provenance {
                Provenance::Literal | Provenance::Computed if inner.value.is_known() => Resolved {
                    value: inner.value,
                    provenance: Provenance::ParameterPassed {
                        function: shown.to_owned(),
                        param: param.to_owned(),
                        line: m.line(value.start_byte()),
                        at: Module::range(value),
                        file: None,
                    },
                },
                _ => inner,
            }
        }
        Passed::Elsewhere(resolved) => resolved,
        // An attribute the namespace may lack would leave the default: only a value the
        // parser is known to give counts.
        Passed::Namespace(namespace, scope) => m
            .attribute_values()
            .attribute_value(m, namespace, param, scope, depth + 4)
            .unwrap_or_else(Resolved::unknown),
        Passed::Nothing | Passed::Unknown => Resolved::unknown(),
    }
}

/// The calls of the method `function` of the class `class`, `None` when there are none: on
/// instances built in this file (`Trainer(...).train(ds)`, `t.train(ds)` after `t =
/// Trainer(...)`), through `self` in the class, and on instances the project's other files
/// build of a module-level class. An instance handed around may call it with anything, so a
/// caller is always left unknown: the value is one caller's at most (see [`combine`]); not for
/// a private method (`_setup_loaders`), which by convention only the class calls.
fn method_calls<'a>(
    m: &Module<'a>,
    class: ClassId,
    function_id: FunctionId,
    position: usize,
    keyword_only: bool,
    param: &str,
) -> Option<Vec<(Passed<'a>, bool)>> {
    let function = m.function(function_id)?;
    if position == 0 || has_subclass(m, class) || binds_first(m, function_id).is_some() {
        return None;
    }
    let def = m.class(class)?;
    let mut passed = Vec::new();
    for call in m.calls() {
        if call.callee.kind() != "attribute" || call.method != Some(function.name) {
            continue;
        }
        let object = call.callee.child_by_field_name("object")?;
        let on_this_class = match object.kind() {
            "identifier" if m.text(object) == "self" => m
                .function_at(call.node)
                .and_then(|f| m.function(f))
                .is_some_and(|f| f.class == Some(class)),
            _ => constructed_class(m, object, call.scope)
                .filter(|c| c.kind() == "identifier")
                .and_then(|c| m.single_binding(m.text(c), call.scope))
                .is_some_and(|b| b.kind == BindingKind::Class(class)),
        };
        if !on_this_class {
            continue;
        }
        if passed.len() >= MAX_CALLS {
            return None;
        }
        let what = passed_for(
            m,
            call.node,
            call.scope,
            position,
            keyword_only,
            true,
            param,
        );
        passed.push((
            what.unwrap_or(Passed::Unknown),
            !in_test_function(m, call.node),
        ));
    }
    if def.node.parent().is_some_and(|p| p.kind() == "module")
        && let Some(calls) = m
            .index
            .method_calls_elsewhere(m.path, def.name, function.name)
    {
        let index = position.checked_sub(1).filter(|_| !keyword_only);
        let shown = format!("{}.{}", def.name, function.name);
        passed.extend(
            calls
                .iter()
                .map(|c| (passed_there(c, index, param, &shown), !c.in_tests)),
        );
    }
    if passed.is_empty() {
        return None;
    }
    // A private method (`_setup_loaders`) is the class's own: the calls found are all.
    let private = function.name.starts_with('_') && !function.name.starts_with("__");
    if !private {
        passed.push((Passed::Unknown, false));
    }
    Some(passed)
}

/// What the calls of a function give a parameter, together: the value they all give; else
/// the largest whole number a caller outside the tests gives, as [`Value::OneCaller`](crate::python::values::Value::OneCaller) with
/// that caller's provenance (its path runs with it, whatever the others give); else unknown.
fn combine(values: Vec<(Resolved, bool)>) -> Option<Resolved> {
    let first = &values.first()?.0;
    if first.value.is_known() && values.iter().all(|(r, _)| r.value == first.value) {
        return Some(first.clone());
    }
    Resolved::largest_of_callers(
        values
            .into_iter()
            .filter(|(_, candidate)| *candidate)
            .map(|(r, _)| r),
    )
}

/// Whether `call` is in a test: a function named `test_...` (pytest's and unittest's), whose
/// values say nothing of what a run of the program gives. A training script's own `test(model,
/// loader)` is code the program runs.
fn in_test_function(m: &Module, call: Node) -> bool {
    let mut function = m.function_at(call).and_then(|f| m.function(f));
    while let Some(f) = function {
        if f.name.starts_with("test_") {
            return true;
        }
        function = f.parent_function.and_then(|p| m.function(p));
    }
    false
}

/// How many functions deep [`call_runs`] follows callers.
const MAX_RUN_DEPTH: u32 = 4;

/// Whether `call` runs when the file runs as a program: it is in module code (under the
/// `__main__` guard or not), or in a module-level function that such a call (or a command-line
/// runner) runs, a few functions deep (`main()` under the guard calling `train(args)` calling
/// `make_loader(...)`).
fn call_runs(m: &Module, call: Node, depth: u32) -> bool {
    if m.is_under_main_guard(call)
        || m.statement_of(call)
            .parent()
            .is_some_and(|p| p.kind() == "module")
    {
        return true;
    }
    if depth >= MAX_RUN_DEPTH {
        return false;
    }
    let Some(function_id) = m.function_at(call) else {
        return false;
    };
    let Some(function) = m.function(function_id) else {
        return false;
    };
    if function.class.is_some() || function.parent_function.is_some() {
        return false;
    }
    // A click command: the command line runs it.
    if crate::python::configs::is_command(m, function) {
        return true;
    }
    let runs_here = references_to(
        m,
        function.name,
        function.name_range,
        Some(function_id),
        None,
    )
    .into_iter()
    .any(|(reference, _)| {
        is_run_by_cli(m, reference, false)
            || reference.parent().is_some_and(|caller| {
                caller.kind() == "call"
                    && caller.child_by_field_name("function") == Some(reference)
                    && m.function_at(caller) != Some(function_id)
                    && call_runs(m, caller, depth + 1)
            })
    });
    // A module-level helper the project's other files call (`setup_data(cfg)` in a
    // training script) runs the calls it makes; so does an entry point that an outside
    // scheduler or an `importlib` dispatch runs (see [`in_uncalled_function`]).
    runs_here
        || (function.node.parent().is_some_and(|p| p.kind() == "module")
            && m.index
                .constructions_elsewhere(m.path, function.name)
                .is_some_and(|calls| calls.iter().any(|c| !c.in_tests)))
        || in_uncalled_function(m, call)
}

/// Whether `call` sits in a callback of the project nothing in it runs: a module-level
/// function with parameters that no code of its file names and no other file of the project
/// calls (a launcher's entry point an outside scheduler calls, `launch_one_thread(rank,
/// opts)`). What it is given is unknown, so its calls are one path of many, and the callers in
/// the project's files are looked at instead. A function without parameters is a command's
/// entry point (`console_scripts`, `fire`): its calls are what runs. A decorated function may
/// be registered by its decorator, and a name other files use other than by calling it may be
/// run by them: neither counts.
pub(crate) fn in_uncalled_function(m: &Module, call: Node) -> bool {
    let Some(function_id) = m.function_at(call) else {
        return false;
    };
    let Some(function) = m.function(function_id) else {
        return false;
    };
    m.index.reads_files()
        && function.class.is_none()
        && function.node.parent().is_some_and(|p| p.kind() == "module")
        && function
            .node
            .child_by_field_name("parameters")
            .is_some_and(|p| p.named_child_count() > 0)
        && references_to(
            m,
            function.name,
            function.name_range,
            Some(function_id),
            None,
        )
        .is_empty()
        && m.index
            .constructions_elsewhere(m.path, function.name)
            .is_some_and(|calls| calls.is_empty())
}

/// Whether `reference` (to the class `class`) is the object of `Class.method`, `method` a
/// `@staticmethod` of the class.
fn names_static_method(m: &Module, reference: Node, class: ClassId) -> bool {
    let Some(attribute) = reference
        .parent()
        .filter(|a| a.kind() == "attribute" && a.child_by_field_name("object") == Some(reference))
    else {
        return false;
    };
    let Some(name) = attribute
        .child_by_field_name("attribute")
        .map(|n| m.text(n))
    else {
        return false;
    };
    m.method_id(class, name)
        .is_some_and(|f| binds_first(m, f) == Some(false))
}

/// The references to the function `function` of this file (named `name`, defined at
/// `name_range`), or to the class `class` for its `__init__`, through names that see the
/// definition (not another binding of the same name, such as a method `main` of a class), each
/// with the scope it is in.
pub(crate) fn references_to<'a>(
    m: &Module<'a>,
    name: &str,
    name_range: TextRange,
    function: Option<FunctionId>,
    class: Option<ClassId>,
) -> Vec<(Node<'a>, ScopeId)> {
    let mut found: Vec<(Node<'a>, ScopeId)> = m
        .references(name)
        .into_iter()
        .filter(|r| {
            Module::range(*r) != name_range && names_a_binding(*r) && !declares_parameter(*r)
        })
        .filter_map(|reference| {
            let scope = m.scope_at(reference);
            let ids = m.lookup(name, scope)?;
            let here = effective_bindings(m, ids).iter().any(|id| {
                m.bindings().get(*id).is_some_and(|b| match b.kind {
                    BindingKind::Function(f) => function == Some(f),
                    BindingKind::Class(c) => class == Some(c),
                    _ => false,
                })
            });
            here.then_some((reference, scope))
        })
        .collect();
    found.extend(self_import_references(m, name));
    found
}

/// A parameter of a function that is no method, with the references to the function in its
/// file ([`references_to`]).
pub(crate) struct FunctionParameter<'m, 'a> {
    pub function: &'m crate::python::model::FunctionDef<'a>,
    pub position: usize,
    pub keyword_only: bool,
    pub name: &'a str,
    pub references: Vec<(Node<'a>, ScopeId)>,
}

impl<'m, 'a> FunctionParameter<'m, 'a> {
    /// The parameter `binding` binds, when it is one of a function that is no method.
    pub(crate) fn of(m: &'m Module<'a>, binding: &Binding<'a>) -> Option<Self> {
        if binding.kind != BindingKind::Parameter {
            return None;
        }
        let function_id = m.scopes().get(binding.scope)?.function?;
        let function = m.function(function_id).filter(|f| f.class.is_none())?;
        let (position, keyword_only) = parameter_position(m, function.node, binding.name)?;
        let references = references_to(
            m,
            function.name,
            function.name_range,
            Some(function_id),
            None,
        );
        Some(Self {
            function,
            position,
            keyword_only,
            name: binding.name,
            references,
        })
    }

    /// Each reference's call of the function and what it passes the parameter; `None` when a
    /// reference is no call (the function handed on) or its arguments cannot be read.
    pub(crate) fn calls(&self, m: &Module<'a>) -> Option<Vec<(Node<'a>, Passed<'a>)>> {
        self.references
            .iter()
            .map(|(reference, scope)| {
                let call = reference.parent().filter(|p| {
                    p.kind() == "call" && p.child_by_field_name("function") == Some(*reference)
                })?;
                let passed = passed_for(
                    m,
                    call,
                    *scope,
                    self.position,
                    self.keyword_only,
                    false,
                    self.name,
                )?;
                Some((call, passed))
            })
            .collect()
    }
}

/// Whether `identifier` is a parameter in a signature (`train` of `def __init__(self,
/// train=True)`), which binds the name in the function rather than reading it.
fn declares_parameter(identifier: Node) -> bool {
    identifier.parent().is_some_and(|p| match p.kind() {
        "parameters" | "lambda_parameters" => true,
        "default_parameter" | "typed_default_parameter" => {
            p.child_by_field_name("name") == Some(identifier)
        }
        "typed_parameter" => p.named_child(0) == Some(identifier),
        _ => false,
    })
}

/// The references to a module-level `name` of this file through an import of the file's own
/// module (`from train import Workspace as W` inside `main` of `train.py`, as Hydra entry
/// points do), each with its scope.
fn self_import_references<'a>(m: &Module<'a>, name: &str) -> Vec<(Node<'a>, ScopeId)> {
    let Some(stem) = m.path.file_stem().and_then(|s| s.to_str()) else {
        return Vec::new();
    };
    let own = format!("{stem}.{name}");
    let mut found = Vec::new();
    for (id, binding) in m.bindings().iter().enumerate() {
        let BindingKind::Import { qualified } = &binding.kind else {
            continue;
        };
        // `train.Workspace` in `train.py` is this file when it runs (its folder comes first
        // on `sys.path`); a longer path must lead here.
        let is_own = qualified == &own
            || qualified.ends_with(&format!(".{own}"))
                && m.index
                    .definition(m.path, qualified)
                    .is_some_and(|d| d.file == m.path);
        if !is_own {
            continue;
        }
        for reference in m.references(binding.name) {
            if Module::range(reference) == binding.name_range || !names_a_binding(reference) {
                continue;
            }
            let scope = m.scope_at(reference);
            if m.lookup(binding.name, scope).is_some_and(|ids| ids == [id]) {
                found.push((reference, scope));
            }
        }
    }
    found
}

/// A parameter's default, with where it is written.
fn default_value(
    m: &Module,
    function: &FunctionDef,
    param: &Binding,
    class: Option<&str>,
    depth: u32,
) -> Option<Resolved> {
    let default = parameter_default(param.node)?;
    let inner = m.value_in(default, function.parent_scope, depth + 1);
    if !inner.value.is_known() {
        return None;
    }
    let function_name = match class {
        Some(class) => format!("{class}.{}", function.name),
        None => function.name.to_owned(),
    };
    Some(Resolved {
        value: inner.value,
        provenance: Provenance::ParameterDefault {
            function: function_name,
            param: param.name.to_owned(),
            line: m.line(default.start_byte()),
            at: Module::range(default),
            file: None,
            via: None,
        },
    })
}

/// What `call` passes for the parameter at `position`; `None` when a `*args`/`**kwargs` may
/// pass it.
/// Whether `value` (passed in `scope`) is `self.x` in a method of the class whose
/// `__init__` (`init`) keeps its parameter `param` as `self.x` and no method sets otherwise:
/// `Trainer(self._train_cfg)` in a method of `Trainer` (a fresh instance, as a checkpoint
/// reload makes) hands on what the instance was given, and is no other caller.
pub(crate) fn hands_on_own(
    m: &Module,
    init: FunctionId,
    param: &str,
    value: Node,
    scope: ScopeId,
) -> bool {
    let Some(class) = m.function(init).and_then(|f| f.class) else {
        return false;
    };
    let (Some(object), Some(attribute)) = (
        value.child_by_field_name("object"),
        value.child_by_field_name("attribute"),
    ) else {
        return false;
    };
    if value.kind() != "attribute"
        || self_of(m, object, scope).is_none_or(|(owner, _)| owner != class)
    {
        return false;
    }
    let attribute = m.text(attribute);
    let mut writes = m.attribute_assignments().iter().filter(|w| {
        w.attribute == attribute
            && w.function
                .and_then(|f| m.function(f))
                .is_some_and(|f| f.class == Some(class))
    });
    let kept = |w: &AttributeAssignment| {
        w.function == Some(init)
            && w.value
                .is_some_and(|v| v.kind() == "identifier" && m.text(v) == param)
    };
    writes.next().is_some_and(kept) && writes.next().is_none()
}

pub(crate) fn passed_for<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    scope: ScopeId,
    position: usize,
    keyword_only: bool,
    is_method: bool,
    name: &str,
) -> Option<Passed<'a>> {
    if let Some(value) = m.keyword_arg(call, name) {
        return Some(Passed::Value(value, scope));
    }
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let splats: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|n| matches!(n.kind(), "list_splat" | "dictionary_splat"))
        .collect();
    let index = if is_method {
        position.checked_sub(1)?
    } else {
        position
    };
    match (positional_args(call).get(index), splats.as_slice()) {
        (Some(value), []) if !keyword_only => Some(Passed::Value(*value, scope)),
        (_, []) => Some(Passed::Nothing),
        // `Model(**vars(args), encoder="resnet18")`, the parameter not passed before it.
        (None, [splat]) if splat.kind() == "dictionary_splat" => {
            if let Some(namespace) = vars_of(m, *splat) {
                return Some(Passed::Namespace(namespace, scope));
            }
            // `make_loader(args, **kwargs)` with `kwargs = {"num_workers": args.workers}`.
            let keys = crate::python::loaders::unpacked_keys(m, *splat, call, scope)?;
            match keys.iter().find(|k| k.name == name) {
                Some(key) if key.conditional => Some(Passed::Unknown),
                Some(key) => Some(Passed::Value(key.value, m.scope_at(key.value))),
                None => Some(Passed::Nothing),
            }
        }
        _ => None,
    }
}

/// `ns` of `**vars(ns)`.
fn vars_of<'a>(m: &Module<'a>, splat: Node<'a>) -> Option<Node<'a>> {
    let call = splat.named_child(0).filter(|c| c.kind() == "call")?;
    let callee = call.child_by_field_name("function")?;
    if m.qualified_name(callee).as_deref() != Some("builtins.vars") {
        return None;
    }
    match positional_args(call).as_slice() {
        [namespace] if call.child_by_field_name("arguments")?.named_child_count() == 1 => {
            Some(*namespace)
        }
        _ => None,
    }
}

/// What the constructions of a module-level class in the project's other files pass for the
/// parameter at `position` of its `__init__`, each with whether it is outside the tests:
/// leaving it out, or an option's default of that file; anything else is unknown. `None` when
/// the search cannot read them all.
fn passed_elsewhere<'a>(
    m: &Module,
    class: usize,
    name: &str,
    position: usize,
    keyword_only: bool,
    param: &str,
) -> Option<Vec<(Passed<'a>, bool)>> {
    let module_level = m
        .class(class)?
        .node
        .parent()
        .is_some_and(|p| p.kind() == "module");
    if !module_level {
        return Some(Vec::new());
    }
    let constructions = m.index.constructions_elsewhere(m.path, name)?;
    // `position` counts `self`.
    let index = position.checked_sub(1).filter(|_| !keyword_only);
    Some(
        constructions
            .iter()
            .map(|c| (passed_there(c, index, param, name), !c.in_tests))
            .collect(),
    )
}

/// What the subclasses of `class` in this file pass its `__init__`'s parameter (at
/// `position`, counting `self`) through their own constructors' one `super().__init__(...)`
/// (or `Base.__init__(self, ...)`): `DistributedRunConfig(RunConfig)` handing on its own
/// `n_worker`. A subclass without a constructor of its own, or one that only hands its
/// `*args, **kwargs` on (`FMOWID(FMOW)`), passes what its own constructions pass, in this file
/// and others. `None` when a subclass has subclasses itself, or not exactly one such call.
fn subclass_super_calls<'a>(
    m: &Module<'a>,
    class: usize,
    position: usize,
    keyword_only: bool,
    param: &str,
) -> Option<Vec<(Passed<'a>, bool)>> {
    let name = m.class(class)?.name;
    let base_init = m.method_id(class, "__init__")?;
    let mut out = Vec::new();
    for (id, sub) in m.classes().iter().enumerate() {
        if !names_base(m, sub, name) {
            continue;
        }
        if has_subclass(m, id) {
            return None;
        }
        let own_init = m.method_id(id, "__init__");
        if own_init.is_none_or(|init| forwards_everything(m, init, name, Some(param))) {
            let (calls, _) = calls_in_file(
                m,
                (sub.name, sub.name_range),
                base_init,
                Some(id),
                (position, keyword_only, param),
            )?;
            out.extend(calls);
            out.extend(passed_elsewhere(
                m,
                id,
                sub.name,
                position,
                keyword_only,
                param,
            )?);
            continue;
        }
        let (call, bound) = base_init_call(m, own_init?, name)?;
        let passed = passed_for(
            m,
            call.node,
            call.scope,
            position,
            keyword_only,
            bound,
            param,
        )
        .unwrap_or(Passed::Unknown);
        out.push((passed, true));
    }
    Some(out)
}

/// Whether a subclass of `class` in this file has a constructor of its own that may pass the
/// base's anything (not one that only hands its `*args, **kwargs` on), or subclasses itself.
pub(crate) fn subclass_constructors_differ(m: &Module, class: usize) -> bool {
    let Some(name) = m.class(class).map(|c| c.name) else {
        return true;
    };
    m.classes().iter().enumerate().any(|(id, sub)| {
        names_base(m, sub, name)
            && (has_subclass(m, id)
                || m.method_id(id, "__init__")
                    .is_some_and(|init| !forwards_everything(m, init, name, None)))
    })
}

/// The one call of the base's `__init__` in the constructor `init` of a subclass of `base`:
/// `super().__init__(...)` (then `true`) or `base.__init__(self, ...)`. `None` when there is
/// not exactly one.
pub(crate) fn base_init_call<'m, 'a>(
    m: &'m Module<'a>,
    init: FunctionId,
    base: &str,
) -> Option<(&'m CallSite<'a>, bool)> {
    let mut calls = subclass::base_init_calls(m, init, |object| object == base);
    match (calls.next(), calls.next()) {
        (Some(call), None) => Some(call),
        _ => None,
    }
}

/// Whether the constructor `init` of a subclass of `base` takes only `*args, **kwargs` (after
/// `self`) and hands both on, once and unconditionally, to `super().__init__(*args,
/// **kwargs)` (or `base.__init__(self, *args, **kwargs)`): its callers' arguments are the
/// base's.
pub(crate) fn forwards_everything(
    m: &Module,
    init: FunctionId,
    base: &str,
    param: Option<&str>,
) -> bool {
    let Some(def) = m.function(init) else {
        return false;
    };
    let Some(params) = def.node.child_by_field_name("parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    let kinds: Vec<&str> = params
        .named_children(&mut cursor)
        .filter(|p| p.kind() != "comment")
        .map(|p| p.kind())
        .collect();
    if kinds
        != [
            "identifier",
            "list_splat_pattern",
            "dictionary_splat_pattern",
        ]
    {
        return false;
    }
    let splat_name = |kind: &str| {
        let mut cursor = params.walk();
        params
            .named_children(&mut cursor)
            .find(|p| p.kind() == kind)
            .and_then(|p| p.named_child(0))
            .map(|n| m.text(n))
    };
    let (Some(args), Some(kwargs)) = (
        splat_name("list_splat_pattern"),
        splat_name("dictionary_splat_pattern"),
    ) else {
        return false;
    };
    let Some((call, through_super)) = base_init_call(m, init, base) else {
        return false;
    };
    let expected = match through_super {
        true => format!("(*{args},**{kwargs})"),
        false => {
            let Some(own) = params.named_child(0) else {
                return false;
            };
            format!("({},*{args},**{kwargs})", m.text(own))
        }
    };
    let arguments = call
        .node
        .child_by_field_name("arguments")
        .map(|a| m.text(a).split_whitespace().collect::<String>());
    // Named nowhere else in the body: no `kwargs.setdefault(...)` changes what is handed on,
    // but `kwargs['subset'] = 'test'` sets another key than the parameter read (any key, when
    // no parameter is asked about).
    let named_once = |name: &str| {
        def.body.is_some_and(|body| {
            let mut uses = 0;
            let mut other = false;
            crate::python::syntax::walk_all(body, &mut |n| {
                if n.kind() != "identifier" || m.text(n) != name {
                    return;
                }
                let key_set = n
                    .parent()
                    .filter(|s| {
                        s.kind() == "subscript" && s.child_by_field_name("value") == Some(n)
                    })
                    .filter(|s| {
                        s.parent().is_some_and(|a| {
                            a.kind() == "assignment" && a.child_by_field_name("left") == Some(*s)
                        })
                    })
                    .and_then(|s| s.child_by_field_name("subscript"))
                    .and_then(|k| m.string_value(k));
                match key_set {
                    Some(key) if param.is_none_or(|p| p != key) => {}
                    _ if n.start_byte() >= call.node.start_byte()
                        && n.end_byte() <= call.node.end_byte() =>
                    {
                        uses += 1;
                    }
                    _ => other = true,
                }
            });
            uses == 1 && !other
        })
    };
    arguments.as_deref() == Some(expected.as_str())
        && named_once(args)
        && named_once(kwargs)
        && def
            .body
            .is_some_and(|body| !m.is_conditional_relative_to(call.node, body))
        && m.single_binding(args, def.scope)
            .is_some_and(|b| b.kind == BindingKind::Parameter)
        && m.single_binding(kwargs, def.scope)
            .is_some_and(|b| b.kind == BindingKind::Parameter)
}

/// Whether a method of a subclass of `class` in this file assigns `self.<attribute>`: an
/// instance of the subclass may hold that value instead.
fn subclass_writes(m: &Module, class: usize, attribute: &str) -> bool {
    let Some(name) = m.class(class).map(|c| c.name) else {
        return true;
    };
    m.attribute_assignments().iter().any(|w| {
        w.attribute == attribute
            && w.object == Some("self")
            && w.function
                .and_then(|f| m.function(f))
                .and_then(|f| f.class)
                .and_then(|c| m.class(c))
                .is_some_and(|c| names_base(m, c, name))
    })
}

/// Whether another file of the project may write `attribute` of instances of the module-level
/// class `class`: a subclass there, or code holding an instance.
pub(crate) fn written_elsewhere(m: &Module, class: usize, attribute: &str) -> bool {
    m.class(class).is_some_and(|c| {
        c.parent_scope == MODULE_SCOPE && m.index.may_write_instances(m.path, c.name, attribute)
    })
}

/// Whether another class of the file names this one as a base (its instances run this class's
/// methods with their own `__init__`).
pub(crate) fn has_subclass(m: &Module, class: usize) -> bool {
    let Some(name) = m.class(class).map(|c| c.name) else {
        return true;
    };
    m.classes().iter().any(|c| names_base(m, c, name))
}

/// Whether the header of `class` names the class `name` among its bases (`Base`, `mod.Base`).
fn names_base(m: &Module, class: &ClassDef, name: &str) -> bool {
    class.bases.iter().any(|b| {
        let text = m.text(*b);
        text == name || text.ends_with(&format!(".{name}"))
    })
}

/// `self.attribute` read in a method: the one value `__init__` assigns it, unconditionally,
/// and nothing else in the file writes it. `self.hparams.x` (and `self.hparams["x"]`) after a
/// bare `self.save_hyperparameters()` in `__init__` is `__init__`'s parameter `x`.
pub(crate) fn self_attribute_value(
    m: &Module,
    object: Node,
    attribute: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    if object.kind() == "attribute" {
        let inner = object.child_by_field_name("object")?;
        let hparams = object.child_by_field_name("attribute")?;
        if m.text(hparams) != "hparams" {
            return None;
        }
        return hparams_value(m, inner, attribute, scope, depth);
    }
    let (class, self_name) = self_of(m, object, scope)?;
    if subclass_writes(m, class, attribute) || written_elsewhere(m, class, attribute) {
        return None;
    }
    if let Some(value) = class_attribute_value(m, class, attribute, depth) {
        return Some(value);
    }
    let init = m.method_id(class, "__init__")?;
    let mut write = None;
    for w in m.attribute_assignments() {
        if w.attribute != attribute {
            continue;
        }
        let in_class = w
            .function
            .and_then(|f| m.function(f))
            .is_some_and(|f| f.class == Some(class));
        if !in_class || w.object != Some(self_name) {
            // Another object's attribute of the same name: written on an instance of this
            // class, maybe (`dm.num_workers = 4`).
            if w.object
                .is_some_and(|o| holds_instance(m, o, w.scope, class))
            {
                return None;
            }
            continue;
        }
        if write.is_some() || w.function != Some(init) {
            return None;
        }
        write = Some(w);
    }
    let Some(write) = write else {
        // Set by a base class's constructor, of this file or another, from what this class's
        // constructor hands it (`super().__init__(batch_size, num_workers)`).
        let kept = crate::python::argparse::kept_parameter(m, class, attribute, false)?;
        let param = m.single_binding(&kept.keyword, m.function(init)?.scope)?;
        if param.kind != BindingKind::Parameter {
            return None;
        }
        return parameter_value(m, param, depth + 1);
    };
    let value = write.value?;
    let init_def = m.function(init)?;
    if m.is_conditional_relative_to(write.target, init_def.body?)
        || sets_attributes_dynamically(m, class)
    {
        return None;
    }
    // Read in `__init__` itself before the write: what the base class set, if anything.
    if m.function_at(object) == Some(init) && object.start_byte() < write.target.start_byte() {
        return None;
    }
    let inner = m.value_in(value, write.scope, depth + 1);
    named_constant(m, inner, m.text(write.target), Module::range(write.target))
}

/// A known value bound to a name (`self.num_workers = 12`, `num_workers = 12` in a class
/// body), said as that name's when it is written in place or computed there.
pub(crate) fn named_constant(
    m: &Module,
    inner: Resolved,
    name: &str,
    at: TextRange,
) -> Option<Resolved> {
    if !inner.value.is_known() {
        return None;
    }
    Some(match inner.provenance {
        Provenance::Literal | Provenance::Computed => Resolved {
            value: inner.value,
            provenance: Provenance::Constant {
                name: name.to_owned(),
                line: m.line(at.start),
                at,
            },
        },
        _ => inner,
    })
}

/// `self.num_workers` of a class without bases whose body binds `num_workers = 12` once, when
/// nothing in the file assigns an attribute of that name (on `self`, an instance or the class)
/// and the class sets no attribute by computed name: the class attribute every instance reads.
fn class_attribute_value(
    m: &Module,
    class: ClassId,
    attribute: &str,
    depth: u32,
) -> Option<Resolved> {
    let def = m.class(class)?;
    if !def.bases.is_empty() || sets_attributes_dynamically(m, class) {
        return None;
    }
    let binding = m.single_binding(attribute, def.scope)?;
    let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
        return None;
    };
    // `self.num_workers = ...` in a method, `trainer.num_workers = 4` on an instance,
    // `Trainer.num_workers = 4`: any write of the name in the file may be what runs.
    if m.attribute_assignments()
        .iter()
        .any(|w| w.attribute == attribute)
    {
        return None;
    }
    let inner = m.value_in(value, def.scope, depth + 1);
    named_constant(
        m,
        inner,
        &format!("{}.{attribute}", def.name),
        binding.name_range,
    )
}

/// `self.hparams.x` after `self.save_hyperparameters()` (see [`saved_hyperparameters`]): the
/// parameter `x` of `__init__`.
pub(crate) fn hparams_value(
    m: &Module,
    object: Node,
    key: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    let (class, self_name) = self_of(m, object, scope)?;
    let init = m.function(m.method_id(class, "__init__")?)?;
    let saved = saved_hyperparameters(m, class, self_name)?;
    if saved.ignored?.iter().any(|name| name == key) {
        return None;
    }
    // `self.hparams.x = ...` anywhere makes it unknown.
    if m.attribute_assignments().iter().any(|w| {
        w.attribute == key
            && w.target
                .child_by_field_name("object")
                .is_some_and(|o| m.text(o).ends_with("hparams"))
    }) {
        return None;
    }
    let param = m.single_binding(key, init.scope)?;
    if param.kind != BindingKind::Parameter {
        return None;
    }
    parameter_value(m, param, depth + 1)
}

/// What the `self.save_hyperparameters(...)` call in the `__init__` of a class keeps in
/// `self.hparams`.
pub(crate) struct SavedHyperparameters<'m, 'a> {
    pub call: &'m CallSite<'a>,
    /// Every argument of the constructor but these (`ignore=`); `None` when the call names
    /// what it keeps, or passes what the analysis does not read.
    pub ignored: Option<Vec<String>>,
}

/// The `self.save_hyperparameters(...)` call in the `__init__` of `class` (`self_name` its
/// instance's name there). Without names it keeps every argument of the constructor; `logger=`
/// only says whether the logger sees them, and `ignore=` (a string, or a list or tuple of
/// them) leaves some out.
pub(crate) fn saved_hyperparameters<'m, 'a>(
    m: &'m Module<'a>,
    class: ClassId,
    self_name: &str,
) -> Option<SavedHyperparameters<'m, 'a>> {
    let init = m.method_id(class, "__init__")?;
    let call = m.calls().iter().find(|c| {
        c.function == Some(init)
            && c.method == Some("save_hyperparameters")
            && m.text(c.callee) == format!("{self_name}.save_hyperparameters")
    })?;
    let args = call.node.child_by_field_name("arguments")?;
    let mut ignored = Vec::new();
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        let name = arg.child_by_field_name("name").map(|n| m.text(n));
        let value = arg.child_by_field_name("value");
        let names = match (arg.kind(), name, value) {
            ("comment", _, _) | ("keyword_argument", Some("logger"), _) => Some(Vec::new()),
            ("keyword_argument", Some("ignore"), Some(value)) => ignored_names(m, value),
            _ => None,
        };
        match names {
            Some(names) => ignored.extend(names),
            None => {
                return Some(SavedHyperparameters {
                    call,
                    ignored: None,
                });
            }
        }
    }
    Some(SavedHyperparameters {
        call,
        ignored: Some(ignored),
    })
}

/// The one object `self.save_hyperparameters(hparams)` in `__init__` (`init`) of `class` is
/// given, called once and unconditionally: Lightning keeps that dict, namespace or DictConfig
/// itself as `self.hparams`.
pub(crate) fn saved_object<'a>(
    m: &Module<'a>,
    class: ClassId,
    init: FunctionId,
) -> Option<Node<'a>> {
    let def = m.function(init)?;
    let params = def.node.child_by_field_name("parameters")?;
    let self_name = m.text(params.named_child(0)?);
    let saved = saved_hyperparameters(m, class, self_name)?;
    if m.is_conditional_relative_to(saved.call.node, def.body?)
        || crate::python::argparse::has_splat(saved.call.node)
    {
        return None;
    }
    match positional_args(saved.call.node).as_slice() {
        [object] if object.kind() == "identifier" => Some(*object),
        _ => None,
    }
}

/// The names `ignore=` gives: a string, or a list or tuple of strings.
fn ignored_names(m: &Module, value: Node) -> Option<Vec<String>> {
    match value.kind() {
        "list" | "tuple" => {
            let mut cursor = value.walk();
            value
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| m.string_value(n))
                .collect()
        }
        _ => Some(vec![m.string_value(value)?]),
    }
}

/// The class of a method whose first parameter `object` names (`self` in a method that is
/// neither a `staticmethod` nor a `classmethod`), and that name.
pub(crate) fn self_of<'a>(
    m: &Module<'a>,
    object: Node,
    scope: ScopeId,
) -> Option<(usize, &'a str)> {
    if object.kind() != "identifier" {
        return None;
    }
    let name = m.text(object);
    let binding = m.single_binding(name, scope)?;
    let function = m.function(m.scopes().get(binding.scope)?.function?)?;
    let class = function.class?;
    let not_instance = function
        .node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .is_some_and(|p| {
            let mut cursor = p.walk();
            p.named_children(&mut cursor).any(|d| {
                d.kind() == "decorator"
                    && matches!(
                        m.text(d).trim_start_matches('@').trim(),
                        "staticmethod" | "classmethod"
                    )
            })
        });
    if binding.kind != BindingKind::Parameter
        || parameter_position(m, function.node, name) != Some((0, false))
        || not_instance
    {
        return None;
    }
    Some((class, binding.name))
}

/// `setattr(self, ...)` or `self.__dict__.update(...)` in a method of the class.
pub(crate) fn sets_attributes_dynamically(m: &Module, class: usize) -> bool {
    m.calls().iter().any(|c| {
        let in_class = c
            .function
            .and_then(|f| m.function(f))
            .is_some_and(|f| f.class == Some(class));
        in_class
            && (c.qualified.as_deref() == Some("builtins.setattr")
                || m.text(c.callee).ends_with("__dict__.update"))
    })
}

/// Whether `name` is bound, where it is used, to a construction of the class (`dm = C(...)`).
fn holds_instance(m: &Module, name: &str, scope: ScopeId, class: usize) -> bool {
    let Some(class_name) = m.class(class).map(|c| c.name) else {
        return true;
    };
    m.lookup(name, scope).is_some_and(|ids| {
        ids.iter().filter_map(|id| m.bindings().get(*id)).any(|b| {
            b.value
                .filter(|v| v.kind() == "call")
                .and_then(|v| v.child_by_field_name("function"))
                .is_some_and(|f| {
                    let t = m.text(f);
                    t == class_name || t.ends_with(&format!(".{class_name}"))
                })
        })
    })
}

/// Whether `reference` is handed to a command-line runner: a function as the first argument
/// of [`CLI_RUNNERS`], a class as any argument of [`CLASS_CLI_RUNNERS`].
fn is_run_by_cli(m: &Module, reference: Node, is_class: bool) -> bool {
    let Some(mut parent) = reference.parent() else {
        return false;
    };
    if parent.kind() == "keyword_argument" {
        match parent.parent() {
            Some(p) if is_class => parent = p,
            _ => return false,
        }
    }
    let Some(call) = parent
        .parent()
        .filter(|c| parent.kind() == "argument_list" && c.kind() == "call")
    else {
        return false;
    };
    let Some(runner) = call
        .child_by_field_name("function")
        .and_then(|callee| m.qualified_name(callee))
    else {
        return false;
    };
    if is_class {
        CLASS_CLI_RUNNERS.contains(&runner.as_str())
    } else {
        CLI_RUNNERS.contains(&runner.as_str()) && positional_args(call).first() == Some(&reference)
    }
}
