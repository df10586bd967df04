//! DL1xx: start methods, CUDA and pickling across the fork/spawn boundary.
//!
//! The rules share one view of each DataLoader call ([`Loader`]): its arguments, worker count,
//! start method, worker-side code, and where its workers start.

pub mod cuda_before_fork;
pub mod cuda_in_forked_worker;
pub mod implicit_start_method;
pub mod interactive_main_under_spawn;
pub mod pin_memory_cuda_data;
pub mod spawn_without_main_guard;
pub mod unpicklable_worker_callable;

use std::cell::OnceCell;

use tree_sitter::Node;

use crate::diagnostic::Diagnostic;
use crate::fix::{Edit, Fix};
use crate::notebook;
use crate::python::analysis::Analysis;
use crate::python::edit;
use crate::python::iteration::{self, FirstIteration};
use crate::python::loaders::{self, ArgState, Param, Passing};
use crate::python::model::Module;
use crate::python::start_method::{self, Method, StartMethod};
use crate::python::syntax;
use crate::python::values::Value;
use crate::python::workers::{self, WorkerCode};
use crate::rules::{Checker, zh};
use crate::text::TextRange;

/// One `torch.utils.data.DataLoader(...)` call as the DL1xx rules see it: the model's loader
/// with its start method. Built once per analysis (see [`loaders`]); what several rules ask of
/// it and is costly to find (the worker-side code, where the workers start, what spawn would
/// require) is computed on first use and kept.
pub(crate) struct Loader<'a> {
    pub inner: &'a loaders::Loader<'a>,
    pub start: StartMethod,
    worker_code: OnceCell<WorkerCode>,
    first_iteration: OnceCell<FirstIteration<'a>>,
    start_points: OnceCell<Vec<Node<'a>>>,
    unguarded_start: OnceCell<Option<Node<'a>>>,
    spawn_consequences: OnceCell<Vec<Consequence>>,
}

impl<'a> Loader<'a> {
    fn new(inner: &'a loaders::Loader<'a>, start: StartMethod) -> Self {
        Self {
            inner,
            start,
            worker_code: OnceCell::new(),
            first_iteration: OnceCell::new(),
            start_points: OnceCell::new(),
            unguarded_start: OnceCell::new(),
            spawn_consequences: OnceCell::new(),
        }
    }

    pub fn call(&self) -> Node<'a> {
        self.inner.call
    }

    /// The callee (`DataLoader`, `tud.DataLoader`), where diagnostics go by default.
    pub fn callee(&self) -> TextRange {
        self.inner.callee
    }

    /// The expression bound to `name` (by keyword, position or a readable `**` dict).
    pub fn argument(&self, name: &str) -> Option<Node<'a>> {
        let param = loaders::Param::from_name(name)?;
        self.inner.argument(param).map(|a| a.value_node)
    }

    /// Where a diagnostic about the argument `name` goes.
    pub fn argument_range(&self, name: &str) -> Option<TextRange> {
        let param = loaders::Param::from_name(name)?;
        self.inner.argument(param).map(|a| a.anchor)
    }

    /// Whether worker processes certainly start: `num_workers` known and above 0, or a CPU
    /// count (at least 1) used as it is.
    pub fn has_workers(&self) -> bool {
        self.inner.certainly_multi_process()
            || self
                .inner
                .certain(Param::NumWorkers)
                .is_some_and(|r| matches!(r.value, Value::CpuCount { exact: true, .. }))
    }

    /// The start method of a loader whose workers may receive its arguments by pickling: it
    /// has workers, its method is known, and it is not an explicit fork (an implicit fork is
    /// spawn or forkserver elsewhere). `None` otherwise.
    pub fn may_pickle(&self) -> Option<Method> {
        let method = self.start.method?;
        let explicit_fork = self.start.is_explicit() && !method.pickles();
        (self.has_workers() && !explicit_fork).then_some(method)
    }

    /// `pin_memory` is certainly true.
    pub fn pins_memory(&self) -> bool {
        self.inner
            .certain(Param::PinMemory)
            .is_some_and(|r| r.value == Value::Bool(true))
    }

    pub fn worker_code(&self, checker: &Checker<'a>) -> &WorkerCode {
        self.worker_code.get_or_init(|| {
            workers::worker_code(
                &checker.scope,
                self.argument("dataset"),
                self.argument("collate_fn"),
                self.argument("worker_init_fn"),
                checker.model.path,
                checker.model.index,
            )
        })
    }

    /// Where the loader is first iterated, which is where its workers start (see
    /// [`iteration`]).
    pub fn first_iteration(&self, m: &Module<'a>) -> FirstIteration<'a> {
        *self
            .first_iteration
            .get_or_init(|| match self.inner.signature.iterates {
                true => FirstIteration::At(self.call()),
                false => iteration::first_iteration(m, self.call(), &self.inner.signature.starts),
            })
    }

    /// Where the loader's workers may start. A loader iterated where it is built (`for x in
    /// DataLoader(...)`, `zip(DataLoader(...), ...)`) starts in that statement; one assigned
    /// to a name starts at the first later statement of the same block that uses the name (a
    /// `for`, `iter()`, `zip()`, a `fit()`), or, for a module-level name, wherever a function
    /// uses it. A loader that is returned or stored on an object starts somewhere this file
    /// does not show: no start points.
    pub fn start_points(&self, scope: &Analysis<'a>) -> &[Node<'a>] {
        self.start_points
            .get_or_init(|| self.find_start_points(scope))
    }

    /// See [`spawn_without_main_guard::unguarded_start`]. None in a notebook: spawned workers
    /// never run the notebook's code, so it needs no guard (what they cannot find there is
    /// DL107's).
    pub fn unguarded_start(&self, scope: &Analysis<'a>) -> Option<Node<'a>> {
        if notebook::is_notebook(scope.m.path) {
            return None;
        }
        *self
            .unguarded_start
            .get_or_init(|| spawn_without_main_guard::unguarded_start(scope, self))
    }

    fn find_start_points(&self, scope: &Analysis<'a>) -> Vec<Node<'a>> {
        let Some(statement) = crate::python::model::statement_of(self.call()) else {
            return Vec::new();
        };
        if self.inner.signature.iterates {
            return vec![statement];
        }
        let Some(name) = assigned_name(scope, self.call()) else {
            return if is_stored(self.call(), statement) {
                Vec::new()
            } else {
                vec![statement]
            };
        };
        let mut sibling = statement.next_named_sibling();
        while let Some(s) = sibling {
            if mentions(scope, s, name) {
                return vec![s];
            }
            sibling = s.next_named_sibling();
        }
        if syntax::enclosing_function(statement).is_some() {
            return Vec::new();
        }
        let mut uses = Vec::new();
        for function in scope.m.functions() {
            if let Some(body) = function.body {
                syntax::walk_all(body, &mut |n| {
                    if n.kind() == "identifier" && scope.text(n) == name {
                        uses.push(n);
                    }
                });
            }
        }
        uses
    }

    /// Edits that set `multiprocessing_context="<method>"`: the written keyword's value is
    /// replaced, or the keyword is added. Nothing when the context arrives through a `**` dict
    /// or an unreadable `**kwargs` (a second keyword would be a `TypeError`).
    pub fn set_context_edits(&self, scope: &Analysis<'a>, method: &str) -> Vec<Edit> {
        let value = format!("\"{method}\"");
        match self.inner.state(Param::MultiprocessingContext) {
            ArgState::Passed(a)
                if matches!(a.passing, Passing::Keyword | Passing::Positional(_)) =>
            {
                vec![edit::replace(a.value_node, value)]
            }
            // Only where the callee takes the keyword (TrainingArguments does not).
            ArgState::Default => match self.inner.keyword_for(Param::MultiprocessingContext) {
                Some(keyword) => edit::add_keyword(scope.source, self.call(), keyword, &value)
                    .unwrap_or_default(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

/// Every DataLoader call of the file, with its start method; built by the first DL1xx rule
/// that asks and shared by the others.
pub(crate) fn loaders<'c, 'a>(checker: &'c Checker<'a>) -> &'c [Loader<'a>] {
    checker.fork_loaders.get_or_init(|| {
        let platform = start_method::platform_default(
            &checker.ctx.host.os,
            checker.ctx.settings.target_version,
        );
        checker
            .model
            .loaders()
            .iter()
            .map(|inner| {
                Loader::new(
                    inner,
                    start_method::start_method(&checker.scope, inner, platform),
                )
            })
            .collect()
    })
}

/// A loader returned, or kept in an attribute, a dict or a list by an assignment: its
/// workers start wherever it is taken out again.
fn is_stored(call: Node, statement: Node) -> bool {
    if statement.kind() == "return_statement" {
        return true;
    }
    let mut current = call;
    while let Some(parent) = current.parent() {
        if parent.id() == statement.id() {
            return false;
        }
        if matches!(parent.kind(), "assignment" | "augmented_assignment") {
            return true;
        }
        current = parent;
    }
    false
}

/// `loader` in `loader = DataLoader(...)`.
fn assigned_name<'a>(scope: &Analysis<'a>, call: Node<'a>) -> Option<&'a str> {
    let assignment = call.parent().filter(|p| p.kind() == "assignment")?;
    let left = assignment.child_by_field_name("left")?;
    (left.kind() == "identifier").then(|| scope.text(left))
}

/// Whether running `statement` reads `name` (defining a function that uses it does not).
fn mentions(scope: &Analysis, statement: Node, name: &str) -> bool {
    if matches!(
        statement.kind(),
        "function_definition" | "class_definition" | "decorated_definition"
    ) {
        return false;
    }
    let mut found = false;
    syntax::walk_executed(statement, &mut |n| {
        found |= n.kind() == "identifier" && scope.text(n) == name;
    });
    found
}

/// Adds the fixes DL101 and DL102 offer, spawn (preferred) and forkserver, and points at where
/// the loader's start method is chosen. When the file would then also need a main guard, or
/// passes a callable spawn cannot pickle, the fix titles say so and `relatedInformation`
/// points at it, so a fix never silently trades one crash for another.
pub(crate) fn with_start_method_fixes<'a>(
    mut diagnostic: Diagnostic,
    scope: &Analysis<'a>,
    loader: &Loader<'a>,
) -> Diagnostic {
    if let Some(range) = loader.start.range() {
        diagnostic = diagnostic.with_related(
            range,
            "the start method is chosen here",
            "启动方式在此处选定",
        );
    }
    let consequences = spawn_consequences(scope, loader);
    let (suffix, suffix_zh) = if consequences.is_empty() {
        (String::new(), String::new())
    } else {
        let notes: Vec<&str> = consequences.iter().map(|c| c.en.as_str()).collect();
        let notes_zh: Vec<&str> = consequences.iter().map(|c| c.zh.as_str()).collect();
        (
            format!(" ({})", notes.join("; ")),
            format!("（{}）", notes_zh.join("；")),
        )
    };
    let (verb, verb_zh) = if loader.argument("multiprocessing_context").is_some() {
        ("Set", "改为")
    } else {
        ("Add", "添加")
    };
    for (i, method) in ["spawn", "forkserver"].iter().enumerate() {
        let edits = loader.set_context_edits(scope, method);
        if edits.is_empty() {
            continue;
        }
        let fix = Fix::unsafe_(
            format!("{verb} multiprocessing_context=\"{method}\"{suffix}"),
            edits,
        )
        .zh(format!(
            "{verb_zh} multiprocessing_context=\"{method}\"{suffix_zh}"
        ));
        diagnostic = diagnostic.with_fix(if i == 0 { fix.preferred() } else { fix });
    }
    for c in consequences {
        diagnostic = diagnostic.with_related(
            c.range,
            format!("with spawn, {}", c.en),
            format!("改用 spawn 后，{}", c.zh),
        );
    }
    diagnostic
}

/// One thing switching a loader to spawn would also require, in English and Chinese.
pub(crate) struct Consequence {
    pub range: TextRange,
    pub en: String,
    pub zh: String,
}

/// What switching this loader to spawn would also require: a main guard around module-level
/// code that starts the workers, and module-level versions of lambdas and local callables.
pub(crate) fn spawn_consequences<'l, 'a>(
    scope: &Analysis<'a>,
    loader: &'l Loader<'a>,
) -> &'l [Consequence] {
    loader
        .spawn_consequences
        .get_or_init(|| find_spawn_consequences(scope, loader))
}

fn find_spawn_consequences<'a>(scope: &Analysis<'a>, loader: &Loader<'a>) -> Vec<Consequence> {
    let mut notes = Vec::new();
    if let Some(site) = loader.unguarded_start(scope) {
        notes.push(Consequence {
            range: syntax::range(site),
            en: "the script then also needs an `if __name__ == \"__main__\":` guard".to_owned(),
            zh: "脚本还需要 `if __name__ == \"__main__\":` 保护".to_owned(),
        });
    }
    if notebook::is_notebook(scope.m.path) {
        for found in interactive_main_under_spawn::notebook_definitions(scope, loader) {
            notes.push(Consequence {
                range: syntax::range(found.definition),
                en: format!(
                    "`{}` passed as `{}` must then move from the notebook to a `.py` module",
                    found.name, found.argument
                ),
                zh: format!(
                    "作为 `{}` 传入的 `{}` 还需从 notebook 移到 `.py` 模块中",
                    found.argument, found.name
                ),
            });
        }
    }
    for local in unpicklable_worker_callable::unpicklable_arguments(scope, loader) {
        notes.push(Consequence {
            range: local.range,
            en: format!(
                "the {} passed as `{}` must then move to module level",
                local.kind.noun(),
                local.argument
            ),
            zh: zh::join(&[
                &format!("作为 `{}` 传入的", local.argument),
                local.kind.noun_zh(),
                "还需移到模块级",
            ]),
        });
    }
    notes
}
