//! DL104 `spawn-without-main-guard`.

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::python::analysis::Analysis;
use crate::python::start_method::Origin;
use crate::python::syntax;
use crate::rules::fork::{Loader, loaders};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL104,
    name: "spawn-without-main-guard",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "Spawn or forkserver workers start from module-level code outside a `__main__` guard",
    docs: DOCS,
    kb: &[
        "pytorch/spawn-missing-main-guard",
        "pytorch/spawn-child-eof",
        "pytorch/spawn-worker-broken-pipe",
    ],
};

const DOCS: &str = r#"## What it does
Checks for loaders whose workers start by spawn or forkserver (explicitly) while the loader is
iterated from module-level code that is not under `if __name__ == "__main__":`.

## Why is this bad?
Spawned workers import the main module again. Without the guard, each worker runs the
module-level training code once more and tries to start its own workers, which fails with
`RuntimeError: An attempt has been made to start a new process before the current process has
finished its bootstrapping phase.` and leaves the loader waiting on workers that died.

## Example
```python
loader = DataLoader(dataset, num_workers=2, multiprocessing_context="spawn")
for batch in loader:
    train(batch)
```

## Use instead
```python
if __name__ == "__main__":
    loader = DataLoader(dataset, num_workers=2, multiprocessing_context="spawn")
    for batch in loader:
        train(batch)
```

## Fix safety
The fix moves the module-level statements, from the first one that is not an import, a
definition or a constant, into an `if __name__ == "__main__":` block, keeping comments and
blank lines. Names defined there stop being importable from the module, so the fix is unsafe.
"#;

/// How many calls deep a function that starts the workers is followed to module level.
const MAX_CALLER_DEPTH: u8 = 3;

pub fn check(checker: &mut Checker) {
    let scope = &checker.scope;
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        let Some(method) = loader.start.method else {
            continue;
        };
        if !loader.start.is_explicit() || !method.pickles() || !loader.has_workers() {
            continue;
        }
        let Some(site) = loader.unguarded_start(scope) else {
            continue;
        };
        let range = match loader.start.origin {
            Origin::Argument(range) => range,
            _ => loader.callee(),
        };
        let mut diagnostic = RULE.diagnostic(range,
            format!(
                "The workers start by {method}, which re-imports the main module in every worker, \
                 but they are started from module-level code outside `if __name__ == \"__main__\":`; \
                 each worker would run the training script again"
            ),
        )
        .zh(format!(
            "worker 以 {method} 方式启动，每个 worker 都会重新导入主模块，但启动它们的是 \
             `if __name__ == \"__main__\":` 之外的模块级代码；每个 worker 都会把训练脚本再运行一遍"
        ))
        .with_related(
            syntax::range(site),
            "the workers start here, outside a main guard",
            "worker 在此处启动，不在 `if __name__ == \"__main__\":` 之内",
        );
        if let Origin::ProcessWide(range) = loader.start.origin {
            diagnostic = diagnostic.with_related(
                range,
                format!("the start method is set to {method} here"),
                format!("启动方式在此处设为 {method}"),
            );
        }
        if let Some(fix) = main_guard_fix(scope) {
            diagnostic = diagnostic.with_fix(fix);
        }
        diagnostics.push(diagnostic);
    }
    for d in diagnostics {
        checker.report(d);
    }
}

/// The statement outside a main guard from which the loader's workers start: the start
/// statement itself at module level, or a module-level call of the function that holds it
/// (followed up to [`MAX_CALLER_DEPTH`] callers). `None` when every path is guarded or the
/// code is never called from module level (a library function).
/// Computed once per loader through [`Loader::unguarded_start`].
pub(crate) fn unguarded_start<'a>(scope: &Analysis<'a>, loader: &Loader<'a>) -> Option<Node<'a>> {
    loader
        .start_points(scope)
        .iter()
        .find_map(|&start| unguarded_from(scope, start, 0))
}

fn unguarded_from<'a>(scope: &Analysis<'a>, node: Node<'a>, depth: u8) -> Option<Node<'a>> {
    let Some(function) = syntax::enclosing_function(node) else {
        if syntax::enclosing_class(node).is_some() || scope.is_under_main_guard(node) {
            return None;
        }
        return crate::python::model::statement_of(node);
    };
    if depth >= MAX_CALLER_DEPTH || syntax::enclosing_class(function).is_some() {
        return None;
    }
    scope
        .calls_from_outside(function)
        .find_map(|call| unguarded_from(scope, call, depth + 1))
}

/// What a module-level statement is, for the main-guard fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Imports, definitions, constants, docstrings and existing main guards stay where they
    /// are: spawned workers need them when they import the module.
    Keep,
    Comment,
    /// Code that does work when the module is imported.
    Run,
}

fn statement_kind(scope: &Analysis, statement: Node) -> Kind {
    match statement.kind() {
        "comment" => Kind::Comment,
        "import_statement"
        | "import_from_statement"
        | "future_import_statement"
        | "function_definition"
        | "class_definition"
        | "decorated_definition" => Kind::Keep,
        "if_statement" if scope.is_main_guard(statement) => Kind::Keep,
        "expression_statement" => {
            let Some(inner) = statement.named_child(0) else {
                return Kind::Run;
            };
            match inner.kind() {
                "string" | "concatenated_string" => Kind::Keep,
                "assignment" => match inner.child_by_field_name("right") {
                    Some(right) if is_constant(right, 0) => Kind::Keep,
                    // `x: int` declares without running anything.
                    None => Kind::Keep,
                    Some(_) => Kind::Run,
                },
                _ => Kind::Run,
            }
        }
        "try_statement" => {
            // `try: import x / except ImportError: x = None` is an import.
            let mut all_imports = true;
            syntax::walk_all(statement, &mut |n| {
                if n.kind().ends_with("_statement")
                    && !matches!(
                        n.kind(),
                        "try_statement"
                            | "import_statement"
                            | "import_from_statement"
                            | "expression_statement"
                            | "pass_statement"
                    )
                {
                    all_imports = false;
                }
                if n.kind() == "call" {
                    all_imports = false;
                }
            });
            if all_imports { Kind::Keep } else { Kind::Run }
        }
        _ => Kind::Run,
    }
}

/// A literal, or a container of literals (nested at most a few levels: deeper is not a
/// constant worth keeping, and the bound keeps the stack small on pathological input).
fn is_constant(node: Node, depth: u8) -> bool {
    if depth > 8 {
        return false;
    }
    match node.kind() {
        "integer" | "float" | "string" | "concatenated_string" | "true" | "false" | "none" => true,
        "unary_operator" => node
            .named_child(0)
            .is_some_and(|c| is_constant(c, depth + 1)),
        "tuple" | "list" | "set" | "parenthesized_expression" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .all(|c| is_constant(c, depth + 1))
        }
        "dictionary" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .all(|pair| {
                    pair.kind() == "pair"
                        && pair
                            .child_by_field_name("key")
                            .is_some_and(|k| is_constant(k, depth + 1))
                        && pair
                            .child_by_field_name("value")
                            .is_some_and(|v| is_constant(v, depth + 1))
                })
        }
        _ => false,
    }
}

/// Wraps each run of module-level statements that do work, from the first one on, into
/// `if __name__ == "__main__":`. Imports, definitions and constants between runs stay at
/// module level so spawned workers still find them; comments and blank lines inside a run move
/// with it, and lines inside multi-line strings keep their text.
fn main_guard_fix(scope: &Analysis) -> Option<Fix> {
    let root = scope.root();
    let mut cursor = root.walk();
    let statements: Vec<Node> = root.named_children(&mut cursor).collect();
    let mut runs: Vec<(Node, Node)> = Vec::new();
    let mut current: Option<(Node, Node)> = None;
    for statement in statements {
        match statement_kind(scope, statement) {
            Kind::Run => {
                current = Some(match current {
                    Some((first, _)) => (first, statement),
                    None => (statement, statement),
                });
            }
            Kind::Comment => {}
            Kind::Keep => runs.extend(current.take()),
        }
    }
    runs.extend(current);
    if runs.is_empty() {
        return None;
    }
    // Each run from the start of its first line. Runs that share a line (`main(); import os;
    // run()`) become one, or their edits would overlap.
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (first, last) in runs {
        let start = scope.source[..first.start_byte()]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        match ranges.last_mut() {
            Some((_, end)) if start < *end => *end = (*end).max(last.end_byte()),
            _ => ranges.push((start, last.end_byte())),
        }
    }
    let edits = ranges
        .into_iter()
        .map(|(start, end)| {
            Edit::replace(
                crate::text::TextRange::new(start, end),
                guarded(scope, start, end),
            )
        })
        .collect();
    Some(
        Fix::unsafe_(
            "Wrap the module-level code in `if __name__ == \"__main__\":`",
            edits,
        )
        .zh("把模块级代码包进 `if __name__ == \"__main__\":`"),
    )
}

/// The text of `start..end` indented under a main guard.
fn guarded(scope: &Analysis, start: usize, end: usize) -> String {
    let mut strings = Vec::new();
    syntax::walk_all(scope.root(), &mut |n| {
        if n.kind() == "string" && n.end_byte() > start && n.start_byte() < end {
            strings.push((n.start_byte(), n.end_byte()));
        }
    });
    let mut out = String::from("if __name__ == \"__main__\":\n");
    let mut offset = start;
    for line in scope.source[start..end].split_inclusive('\n') {
        let inside_string = strings.iter().any(|(s, e)| *s < offset && offset < *e);
        if !inside_string && !line.trim().is_empty() {
            out.push_str("    ");
        }
        out.push_str(line);
        offset += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply_edits;

    #[test]
    fn guard_keeps_definitions_strings_and_comments() {
        let source = r#"import torch
"""Docstring."""
X = 1
setup()  # comment

text = dedent("""
line
""")


def f():
    return X


if __name__ == "__main__":
    run()
try:
    import cupy
except ImportError:
    cupy = None
go()
"#;
        let expected = r#"import torch
"""Docstring."""
X = 1
if __name__ == "__main__":
    setup()  # comment

    text = dedent("""
line
""")


def f():
    return X


if __name__ == "__main__":
    run()
try:
    import cupy
except ImportError:
    cupy = None
if __name__ == "__main__":
    go()
"#;
        let fixed = crate::python::analysis::with_analysis(source, |scope| {
            let fix = main_guard_fix(scope).expect("a fix");
            apply_edits(source, &fix.edits).expect("applies")
        });
        assert_eq!(fixed, expected);
    }

    /// Runs that share a line with a kept statement become one wrapped run, not two
    /// overlapping edits.
    #[test]
    fn runs_sharing_a_line_wrap_once() {
        let source = "import os\nsetup(); import sys; run()\ngo()\n";
        let fixed = crate::python::analysis::with_analysis(source, |scope| {
            let fix = main_guard_fix(scope).expect("a fix");
            apply_edits(source, &fix.edits).expect("applies")
        });
        assert_eq!(
            fixed,
            "import os\nif __name__ == \"__main__\":\n    setup(); import sys; run()\n    go()\n"
        );
    }

    #[test]
    fn nothing_to_wrap() {
        let source = "import os\nX = (1, -2, {'a': None})\ndef f():\n    pass\n";
        assert!(crate::python::analysis::with_analysis(source, |scope| {
            main_guard_fix(scope).is_none()
        }));
    }
}
