//! DL103 `implicit-start-method`.

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::lang::Lang;
use crate::rules::fork::loaders;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL103,
    name: "implicit-start-method",
    severity: Severity::Hint,
    default_enabled: false,
    fix: FixAvailability::Sometimes,
    summary: "A multi-process loader relies on the platform's default start method",
    docs: DOCS,
    kb: &[
        "pytorch/dataset-worker-fork-cuda",
        "pytorch/spawn-unpicklable-object",
    ],
};

const DOCS: &str = r#"## What it does
Checks for DataLoaders with `num_workers > 0` whose start method is not chosen anywhere in the
file (no `multiprocessing_context=` and no `set_start_method(...)`).

## Why is this bad?
The platform then decides: fork on Linux before Python 3.14, forkserver on Linux from 3.14,
spawn on macOS and Windows. The same script behaves differently on a laptop, on a Linux server,
and after a Python upgrade (lambdas stop pickling, module-level code runs again in every worker).

This rule is opt-in (`extend-select = ["DL103"]`).

## Example
```python
loader = DataLoader(dataset, num_workers=4)
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=4, multiprocessing_context="spawn")
```

## Fix safety
The fixes add `multiprocessing_context=` with `"spawn"`, `"forkserver"` or `"fork"`. Choosing a
start method changes behaviour, so the fixes are unsafe.
"#;

pub fn check(checker: &mut Checker) {
    let scope = &checker.scope;
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        if loader.start.is_explicit() || loader.start.method.is_none() || !loader.has_workers() {
            continue;
        }
        let message = format!(
            "No start method is chosen for this loader's workers: {}. The same script starts \
             them differently on macOS and Windows (spawn) and on Linux from Python 3.14 \
             (forkserver)",
            loader.start.describe(Lang::En)
        );
        let message_zh = format!(
            "没有为此加载器的 worker 选定启动方式：{}。同一脚本在 macOS 和 Windows 上（spawn）\
             以及 Python 3.14 起的 Linux 上（forkserver）会以不同方式启动 worker",
            loader.start.describe(Lang::Zh)
        );
        let mut diagnostic = RULE.diagnostic(loader.callee(), message).zh(message_zh);
        for (i, method) in ["spawn", "forkserver", "fork"].iter().enumerate() {
            let edits = loader.set_context_edits(scope, method);
            if edits.is_empty() {
                continue;
            }
            let fix = Fix::unsafe_(format!("Add multiprocessing_context=\"{method}\""), edits)
                .zh(format!("添加 multiprocessing_context=\"{method}\""));
            diagnostic = diagnostic.with_fix(if i == 0 { fix.preferred() } else { fix });
        }
        diagnostics.push(diagnostic);
    }
    for d in diagnostics {
        checker.report(d);
    }
}
