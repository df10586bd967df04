//! DL105 `unpicklable-worker-callable`.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::python::analysis::Analysis;
use crate::python::closures;
use crate::python::start_method::Origin;
use crate::python::syntax;
use crate::python::workers;
use crate::rules::fork::{Loader, loaders};
use crate::rules::{Checker, Code, FixAvailability, Rule, zh};
use crate::text::TextRange;

pub const RULE: Rule = Rule {
    code: Code::DL105,
    name: "unpicklable-worker-callable",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "A lambda or locally defined function or class is passed to a loader whose workers must pickle it",
    docs: DOCS,
    kb: &["pytorch/spawn-unpicklable-object"],
};

const DOCS: &str = r#"## What it does
Checks for a lambda, a nested function, or a class defined inside a function passed to a
multi-process DataLoader as `collate_fn`, `worker_init_fn`, `dataset` or `sampler`.

## Why is this bad?
Spawn and forkserver send these objects to each worker with `pickle`, which can only pickle
functions and classes by their module-level name. Starting the workers fails with
`AttributeError: Can't pickle local object 'main.<locals>.<lambda>'` (or
`Can't get local object`). It is an error when the loader starts by spawn or forkserver, and
info when the start method is implicit: fork works today on Linux, but macOS, Windows and
Linux from Python 3.14 (forkserver) do not fork.

## Example
```python
loader = DataLoader(ds, num_workers=2, collate_fn=lambda batch: torch.stack(batch))
```

## Use instead
```python
def stack_batch(batch):
    return torch.stack(batch)

loader = DataLoader(ds, num_workers=2, collate_fn=stack_batch)
```

## Fix safety
For a lambda that uses no local variable of its function, the fix moves it to a module-level
function with the same parameters and body. The fix is safe. A lambda that captures local
variables gets no fix: use `functools.partial` with a module-level function instead.
"#;

/// Arguments a worker receives by pickling under spawn and forkserver.
pub(crate) const PICKLED_ARGUMENTS: &[&str] =
    &["collate_fn", "worker_init_fn", "dataset", "sampler"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LocalKind {
    Lambda,
    NestedFunction,
    LocalClass,
}

impl LocalKind {
    pub fn noun(self) -> &'static str {
        match self {
            LocalKind::Lambda => "lambda",
            LocalKind::NestedFunction => "nested function",
            LocalKind::LocalClass => "class defined in a function",
        }
    }

    pub fn noun_zh(self) -> &'static str {
        match self {
            LocalKind::Lambda => "lambda",
            LocalKind::NestedFunction => "嵌套函数",
            LocalKind::LocalClass => "局部类",
        }
    }
}

/// A lambda, nested function or function-local class handed to a loader.
pub(crate) struct LocalCallable<'a> {
    pub argument: &'static str,
    /// Where the argument is written.
    pub argument_range: TextRange,
    pub kind: LocalKind,
    /// The lambda, or the nested `def`/`class`.
    pub definition: Node<'a>,
    /// Where it is defined: the lambda, or the nested definition's name.
    pub range: TextRange,
}

/// The loader's pickled arguments that pickle cannot send to a worker.
pub(crate) fn unpicklable_arguments<'a>(
    scope: &Analysis<'a>,
    loader: &Loader<'a>,
) -> Vec<LocalCallable<'a>> {
    let mut found = Vec::new();
    for argument in PICKLED_ARGUMENTS {
        let Some(value) = loader.argument(argument) else {
            continue;
        };
        let Some(argument_range) = loader.argument_range(argument) else {
            continue;
        };
        let local = match *argument {
            "dataset" | "sampler" => local_class_instance(scope, value),
            _ => local_callable(scope, value),
        };
        if let Some((kind, definition)) = local {
            let range = match kind {
                LocalKind::Lambda => syntax::range(definition),
                _ => definition
                    .child_by_field_name("name")
                    .map_or_else(|| syntax::range(definition), syntax::range),
            };
            found.push(LocalCallable {
                argument,
                argument_range,
                kind,
                definition,
                range,
            });
        }
    }
    found
}

fn local_callable<'a>(scope: &Analysis<'a>, value: Node<'a>) -> Option<(LocalKind, Node<'a>)> {
    match value.kind() {
        "lambda" => Some((LocalKind::Lambda, value)),
        "identifier" => {
            if let Some(definition) = scope.visible_definition(value, scope.text(value)) {
                syntax::enclosing_function(definition)?;
                return Some(match definition.kind() {
                    "class_definition" => (LocalKind::LocalClass, definition),
                    _ => (LocalKind::NestedFunction, definition),
                });
            }
            match scope.bound_values(value).as_slice() {
                [bound] if bound.kind() == "lambda" => Some((LocalKind::Lambda, *bound)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn local_class_instance<'a>(
    scope: &Analysis<'a>,
    value: Node<'a>,
) -> Option<(LocalKind, Node<'a>)> {
    let call = workers::constructor_of(scope, value, 0)?;
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let class = scope.visible_definition(call, scope.text(function))?;
    (class.kind() == "class_definition" && syntax::enclosing_function(class).is_some())
        .then_some((LocalKind::LocalClass, class))
}

pub fn check(checker: &mut Checker) {
    let scope = &checker.scope;
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        let Some(method) = loader.may_pickle() else {
            continue;
        };
        for local in unpicklable_arguments(scope, loader) {
            let (what, what_zh) = describe(scope, &local);
            let start_zh = zh::start_method(&loader.start);
            let (severity, why, why_zh) = if method.pickles() {
                (
                    Severity::Error,
                    format!(
                        "{}, which pickles it for every worker: starting the workers fails with \
                         \"Can't pickle local object\"",
                        loader.start.describe()
                    ),
                    format!(
                        "{start_zh}，会为每个 worker pickle 它：启动 worker 时失败，报 \
                         \"Can't pickle local object\""
                    ),
                )
            } else {
                (
                    Severity::Info,
                    format!(
                        "{}, which does not pickle it; but spawn (macOS, Windows) and \
                         forkserver (Linux from Python 3.14) must pickle it, and fail",
                        loader.start.describe()
                    ),
                    format!(
                        "{start_zh}，不需要 pickle 它；但 spawn（macOS、Windows）和 forkserver\
                         （Python 3.14 起的 Linux）必须 pickle 它，因而会失败"
                    ),
                )
            };
            let captures = match local.kind {
                LocalKind::Lambda => closures::captured_names(scope, local.definition),
                _ => Vec::new(),
            };
            let mut message = format!("{what} is passed as `{}`; {why}", local.argument);
            let mut message_zh = zh::join(&[
                &what_zh,
                &format!("作为 `{}` 传入；{why_zh}", local.argument),
            ]);
            let fix = match local.kind {
                LocalKind::Lambda if !captures.is_empty() => {
                    let names: Vec<String> = captures.iter().map(|c| format!("`{c}`")).collect();
                    message.push_str(&format!(
                        ". No automatic fix: the lambda uses the local variable{} {} of its \
                         function; pass a module-level function through `functools.partial` \
                         instead",
                        if captures.len() == 1 { "" } else { "s" },
                        names.join(", ")
                    ));
                    message_zh.push_str(&format!(
                        "。无法自动修复：该 lambda 用到了所在函数的局部变量 {}；请改用 \
                         `functools.partial` 包装一个模块级函数",
                        names.join("、")
                    ));
                    None
                }
                LocalKind::Lambda if matches!(local.argument, "collate_fn" | "worker_init_fn") => {
                    extract_lambda_fix(scope, &local)
                }
                _ => None,
            };
            let mut diagnostic = RULE
                .diagnostic(local.argument_range, message)
                .zh(message_zh)
                .with_severity(severity)
                .with_related(
                    local.range,
                    format!("the {} is defined here", local.kind.noun()),
                    zh::join(&[local.kind.noun_zh(), "在此处定义"]),
                );
            if let Origin::Argument(range) | Origin::ProcessWide(range) = loader.start.origin {
                diagnostic = diagnostic.with_related(
                    range,
                    format!("the start method is chosen here ({method})"),
                    format!("启动方式在此处选定（{method}）"),
                );
            }
            if let Some(fix) = fix {
                diagnostic = diagnostic.with_fix(fix);
            }
            diagnostics.push(diagnostic);
        }
    }
    for d in diagnostics {
        checker.report(d);
    }
}

/// "The function `seed` defined in `main()`", and in Chinese "函数 `main()` 中定义的函数 `seed`".
fn describe(scope: &Analysis, local: &LocalCallable) -> (String, String) {
    let (owner, owner_zh) = match syntax::enclosing_function(local.definition)
        .and_then(|f| f.child_by_field_name("name"))
    {
        Some(f) => {
            let f = scope.text(f);
            (
                format!(" defined in `{f}()`"),
                format!("函数 `{f}()` 中定义的"),
            )
        }
        None => (String::new(), String::new()),
    };
    let name = local
        .definition
        .child_by_field_name("name")
        .map_or("", |n| scope.text(n));
    let (en, zh) = match local.kind {
        LocalKind::Lambda => (format!("A lambda{owner}"), "lambda".to_owned()),
        LocalKind::LocalClass => (format!("The class `{name}`{owner}"), format!("类 `{name}`")),
        LocalKind::NestedFunction => (
            format!("The function `{name}`{owner}"),
            format!("函数 `{name}`"),
        ),
    };
    (en, zh::join(&[&owner_zh, &zh]))
}

/// Moves a lambda that captures nothing to a module-level function with a free name, placed
/// before the top-level statement that holds it.
fn extract_lambda_fix(scope: &Analysis, local: &LocalCallable) -> Option<Fix> {
    let lambda = local.definition;
    let body = lambda.child_by_field_name("body")?;
    let parameters = lambda
        .child_by_field_name("parameters")
        .map_or("", |p| scope.text(p));
    let base = match local.argument {
        "collate_fn" => "collate_batch",
        _ => "init_worker",
    };
    let name = free_name(scope, base);
    let mut top = lambda;
    while let Some(parent) = top.parent() {
        if parent.kind() == "module" {
            break;
        }
        top = parent;
    }
    let insert_at = scope.source[..top.start_byte()]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let body_text = scope.text(body);
    let returned = if body_text.contains('\n') {
        format!("({body_text})")
    } else {
        body_text.to_owned()
    };
    // Two blank lines around a top-level function, as the file's formatter would leave them.
    let before = &scope.source[..insert_at];
    let blank_lines = before.len() - before.trim_end_matches('\n').len();
    let padding = if insert_at == 0 {
        ""
    } else {
        &"\n\n"[..2usize.saturating_sub(blank_lines.saturating_sub(1))]
    };
    let definition = format!("{padding}def {name}({parameters}):\n    return {returned}\n\n\n");
    Some(
        Fix::safe(
            format!("Move the lambda to a module-level function `{name}`"),
            vec![
                Edit::insert(insert_at, definition),
                Edit::replace(syntax::range(lambda), name.clone()),
            ],
        )
        .zh(format!("把 lambda 移到模块级函数 `{name}`")),
    )
}

/// `base`, or `base_2`, `base_3`, ... : the first that no identifier of the file uses.
fn free_name(scope: &Analysis, base: &str) -> String {
    let mut used = HashSet::new();
    syntax::walk_all(scope.root(), &mut |n| {
        if n.kind() == "identifier" {
            used.insert(scope.text(n));
        }
    });
    if !used.contains(base) {
        return base.to_owned();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|candidate| !used.contains(candidate.as_str()))
        .unwrap_or_else(|| base.to_owned())
}
