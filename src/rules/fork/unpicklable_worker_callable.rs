//! DL105 `unpicklable-worker-callable`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL105,
    name: "unpicklable-worker-callable",
    severity: Severity::Error,
    default_enabled: true,
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

pub fn check(_checker: &mut Checker) {}
