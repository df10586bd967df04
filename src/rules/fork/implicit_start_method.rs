//! DL103 `implicit-start-method`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL103,
    name: "implicit-start-method",
    severity: Severity::Hint,
    default_enabled: false,
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

pub fn check(_checker: &mut Checker) {}
