//! DL104 `spawn-without-main-guard`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL104,
    name: "spawn-without-main-guard",
    severity: Severity::Error,
    default_enabled: true,
    summary: "Spawn or forkserver workers start from module-level code outside a `__main__` guard",
    docs: DOCS,
    kb: &[
        "pytorch/spawn-missing-main-guard",
        "pytorch/spawn-child-eof",
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

pub fn check(_checker: &mut Checker) {}
