//! DL107 `interactive-main-under-spawn`.

use tree_sitter::Node;

use crate::diagnostic::{Diagnostic, Severity};
use crate::fix::{self, Fix};
use crate::lang::Lang;
use crate::notebook;
use crate::python::analysis::Analysis;
use crate::python::edit;
use crate::python::loaders::{ArgState, Param, Passing};
use crate::python::start_method::Method;
use crate::python::syntax;
use crate::python::workers;
use crate::rules::fork::unpicklable_worker_callable::PICKLED_ARGUMENTS;
use crate::rules::fork::{Loader, loaders};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL107,
    name: "interactive-main-under-spawn",
    severity: Severity::Error,
    default_enabled: true,
    summary: "A dataset class or worker function defined in a notebook is passed to a loader whose spawned workers must import it",
    docs: DOCS,
    kb: &["pytorch/interactive-main-spawn"],
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Checks notebooks for a dataset class, sampler class, `collate_fn` or `worker_init_fn` defined in
the notebook itself and passed to a DataLoader with workers that start by spawn or forkserver.

## Why is this bad?
Spawn and forkserver workers are new Python processes. They receive the dataset and the
callables by pickling, which records a class or function by its module and name, and look it up
again in the worker. A class defined in a notebook lives in the kernel's `__main__`, which has no
file: in the worker, `__main__` is an empty built-in module, and every worker dies with
`AttributeError: Can't get attribute 'MyDataset' on <module '__main__' (built-in)>` (Python 3.12
and later print `<module '__main__' (<class '_frozen_importlib.BuiltinImporter'>)>`). A main
guard does not help: the workers never run the notebook.

It is an error when the workers start by spawn or forkserver: chosen by the loader
(`multiprocessing_context=` or `set_start_method`), or the platform's default (spawn on macOS
and Windows, forkserver on Linux from Python 3.14, as `target-version` or the project's
`requires-python` says). Where the default is fork (Linux before 3.14) the notebook works as
written, so it is only a note (info) that it fails on those platforms. Nothing is reported under
an explicit fork.

## Example
```python
# cell 2
class Squares(Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return torch.tensor([i * i])

# cell 3
loader = DataLoader(Squares(), num_workers=2, multiprocessing_context="spawn")
```

## Use instead
Move the definitions to a `.py` module beside the notebook and import them:
```python
# data.py
class Squares(Dataset):
    ...

# cell 2
from data import Squares
```

## Fix safety
Moving the definitions means writing a second file, which `check --fix` does not do: the
message says where they should go. The fix offered sets `num_workers=0`, which loads in the main
process and is slower, so it is unsafe.
"#;

/// A class or function of the notebook that a worker must import.
pub(crate) struct NotebookDefinition<'a> {
    pub argument: &'static str,
    /// The `class`/`def` statement.
    pub definition: Node<'a>,
    pub name: &'a str,
}

pub fn check(checker: &mut Checker) {
    if !notebook::is_notebook(checker.model.path) {
        return;
    }
    let scope = &checker.scope;
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        let Some(method) = loader.may_pickle() else {
            continue;
        };
        for found in notebook_definitions(scope, loader) {
            diagnostics.push(diagnostic(scope.source, loader, method, &found));
        }
    }
    for d in diagnostics {
        checker.report(d);
    }
}

fn diagnostic<'a>(
    source: &str,
    loader: &Loader<'a>,
    method: Method,
    found: &NotebookDefinition<'a>,
) -> Diagnostic {
    let kind = if found.definition.kind() == "class_definition" {
        ("class", "类")
    } else {
        ("function", "函数")
    };
    let name = found.name;
    let failure = format!(
        "\"AttributeError: Can't get attribute '{name}' on <module '__main__' (built-in)>\""
    );
    let start = loader.start.describe(Lang::En);
    let start_zh = loader.start.describe(Lang::Zh);
    // A fork works: then it is a note that the notebook fails where the default is spawn or
    // forkserver, as DL105 notes an unpicklable callable.
    let severity = if method.pickles() {
        Severity::Error
    } else {
        Severity::Info
    };
    let (when, when_zh) = if method.pickles() {
        (
            format!(
                "{start}, so every worker must import it from `__main__`, which in a worker is \
                 not the notebook: every worker dies with {failure}"
            ),
            format!(
                "{start_zh}，每个 worker 都必须从 `__main__` 导入它，而 worker 中的 `__main__` \
                 不是该 notebook：每个 worker 都会失败，报 {failure}"
            ),
        )
    } else {
        (
            format!(
                "{start}, which works; but under spawn (the default on macOS and Windows) and \
                 forkserver (the default on Linux from Python 3.14) every worker must import it \
                 from `__main__`, which in a worker is not the notebook, and dies with {failure}"
            ),
            format!(
                "{start_zh}，可以运行；但在 spawn（macOS 和 Windows 的默认方式）和 forkserver\
                 （Python 3.14 起 Linux 的默认方式）下，每个 worker 都必须从 `__main__` 导入它，\
                 而 worker 中的 `__main__` 不是该 notebook，会失败，报 {failure}"
            ),
        )
    };
    let message = format!(
        "The {} `{name}` passed as `{}` is defined in this notebook; {when}. Move it to a `.py` \
         module beside the notebook and import it (an edit across files that `--fix` does not \
         make)",
        kind.0, found.argument
    );
    let message_zh = format!(
        "作为 `{}` 传入的{} `{name}` 定义在此 notebook 中；{when_zh}。请把它移到 notebook 旁边的 \
         `.py` 模块中再导入（这是跨文件的修改，`--fix` 不会自动完成）",
        found.argument, kind.1
    );
    let Some(range) = loader.argument_range(found.argument) else {
        return RULE
            .diagnostic(loader.callee(), message)
            .zh(message_zh)
            .with_severity(severity);
    };
    let name_range = found
        .definition
        .child_by_field_name("name")
        .map_or_else(|| syntax::range(found.definition), syntax::range);
    let mut diagnostic = RULE
        .diagnostic(range, message)
        .zh(message_zh)
        .with_severity(severity)
        .with_related(
            name_range,
            format!("`{name}` is defined here, in the notebook's `__main__`"),
            format!("`{name}` 在此处定义，位于 notebook 的 `__main__` 中"),
        );
    if let Some(at) = loader.start.range() {
        diagnostic = diagnostic.with_related(
            at,
            format!("the start method is chosen here ({method})"),
            format!("启动方式在此处选定（{method}）"),
        );
    }
    if let Some(fix) = no_workers_fix(source, loader) {
        diagnostic = diagnostic.with_fix(fix);
    }
    diagnostic
}

/// `num_workers=0`, and without the arguments DataLoader accepts only with workers (each would
/// raise a `ValueError` with `num_workers=0`). None when the worker count is not written in the
/// call.
fn no_workers_fix(source: &str, loader: &Loader) -> Option<Fix> {
    let ArgState::Passed(workers) = loader.inner.state(Param::NumWorkers) else {
        return None;
    };
    if !matches!(workers.passing, Passing::Keyword | Passing::Positional(_)) {
        return None;
    }
    let mut edits = vec![edit::replace(workers.value_node, "0")];
    let mut removed = Vec::new();
    for param in [
        Param::MultiprocessingContext,
        Param::PrefetchFactor,
        Param::PersistentWorkers,
        Param::Timeout,
    ] {
        if let ArgState::Passed(a) = loader.inner.state(param)
            && a.is_keyword()
            && let Some(removal) = edit::remove_argument(source, a.node)
        {
            let mut candidate = edits.clone();
            candidate.extend(removal);
            // Neighbouring removals may claim the same comma: keep only what applies cleanly.
            if fix::apply_edits(source, &candidate).is_ok() {
                edits = candidate;
                removed.push(format!("`{}`", &source[a.node.byte_range()]));
            }
        }
    }
    let (title, title_zh) = if removed.is_empty() {
        (
            "Set num_workers=0".to_owned(),
            "设置 num_workers=0".to_owned(),
        )
    } else {
        (
            format!("Set num_workers=0 and remove {}", removed.join(", ")),
            format!("设置 num_workers=0 并删除 {}", removed.join("、")),
        )
    };
    Some(Fix::unsafe_(title, edits).zh(title_zh))
}

/// The loader's pickled arguments whose class or function is defined at the notebook's top
/// level. Lambdas and definitions inside functions are DL105's; imported ones import fine.
pub(crate) fn notebook_definitions<'a>(
    scope: &Analysis<'a>,
    loader: &Loader<'a>,
) -> Vec<NotebookDefinition<'a>> {
    let mut found = Vec::new();
    for &argument in PICKLED_ARGUMENTS {
        let Some(value) = loader.argument(argument) else {
            continue;
        };
        let named = match argument {
            "dataset" | "sampler" => workers::constructor_of(scope, value, 0)
                .and_then(|call| call.child_by_field_name("function")),
            _ => Some(value),
        };
        let Some(named) = named.filter(|n| n.kind() == "identifier") else {
            continue;
        };
        let name = scope.text(named);
        let Some(definition) = scope.visible_definition(named, name) else {
            continue;
        };
        let wanted = match argument {
            "dataset" | "sampler" => definition.kind() == "class_definition",
            _ => matches!(
                definition.kind(),
                "function_definition" | "class_definition"
            ),
        };
        if wanted && syntax::enclosing_function(definition).is_none() {
            found.push(NotebookDefinition {
                argument,
                definition,
                name,
            });
        }
    }
    found
}
