//! DL101 `cuda-in-forked-worker`.

use crate::diagnostic::Severity;
use crate::lang::Lang;
use crate::python::cuda::Cudaness;
use crate::rules::fork::{loaders, with_start_method_fixes};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL101,
    name: "cuda-in-forked-worker",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "Worker-side code uses CUDA while the loader's workers start by fork",
    docs: DOCS,
    kb: &["pytorch/dataset-worker-fork-cuda"],
};

const DOCS: &str = r#"## What it does
Checks for DataLoaders whose worker-side code (the dataset's `__getitem__`, `__getitems__` or
`__iter__` and the functions they call, `collate_fn`, `worker_init_fn`) uses CUDA while the
workers start by `fork`, either explicitly or because fork is the platform's default (Linux
before Python 3.14).

A `collate_fn` or `worker_init_fn` may be an instance of a class of the file (its `__call__`
runs in the worker). `.to(self.device)` there, or in a dataset's `__getitem__`, counts when the
construction hands `__init__` a CUDA device: a literal, `torch.device("cuda")`,
`f"cuda:{rank}"`, or a parameter that every caller of the function building the loader
passes one, in this file or in the project's other files.

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

/// How many CUDA calls a diagnostic points at.
const MAX_RELATED: usize = 3;

pub fn check(checker: &mut Checker) {
    let scope = &checker.scope;
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        if !loader.has_workers() || !loader.start.is_fork() {
            continue;
        }
        let code = loader.worker_code(checker);
        for (role, facts) in &code.parts {
            let Some(first) = facts.cuda.first() else {
                continue;
            };
            let (when, when_zh) = match first.cudaness {
                Cudaness::Cuda => ("", ""),
                Cudaness::WhenAvailable => (" when CUDA is available", "CUDA 可用时，"),
            };
            let message = format!(
                "{} runs inside the DataLoader's worker processes (in {}){when}, but {}: a \
                 forked process cannot use CUDA (\"Cannot re-initialize CUDA in forked \
                 subprocess\"). Keep worker-side code on the CPU and move each batch to the GPU \
                 in the training loop, or start the workers with spawn",
                first.what.render(Lang::En),
                first.within.render(Lang::En),
                loader.start.describe(Lang::En)
            );
            let message_zh = format!(
                "{when_zh}{} 在 DataLoader 的 worker 进程中运行（位于 {}），但 {}：fork 出的子进程\
                 无法使用 CUDA（\"Cannot re-initialize CUDA in forked subprocess\"）。请让 worker \
                 端代码只用 CPU，在训练循环中再把每个批次移到 GPU，或改用 spawn 启动 worker",
                first.what.render(Lang::Zh),
                first.within.render(Lang::Zh),
                loader.start.describe(Lang::Zh)
            );
            let range = loader
                .argument_range(role.argument())
                .unwrap_or_else(|| loader.callee());
            let mut diagnostic = RULE.diagnostic(range, message).zh(message_zh);
            for finding in facts.cuda.iter().take(MAX_RELATED) {
                diagnostic = diagnostic.with_related_in(
                    finding.file.clone(),
                    finding.range,
                    format!(
                        "{} runs in every worker ({})",
                        finding.what.render(Lang::En),
                        finding.within.render(Lang::En)
                    ),
                    format!(
                        "{} 在每个 worker 中运行（位于 {}）",
                        finding.what.render(Lang::Zh),
                        finding.within.render(Lang::Zh)
                    ),
                );
            }
            diagnostic = with_start_method_fixes(diagnostic, scope, loader);
            diagnostics.push(diagnostic);
        }
    }
    for d in diagnostics {
        checker.report(d);
    }
}
