//! DL102 `cuda-before-fork`.

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::python::analysis::Analysis;
use crate::python::cuda::{self, Cudaness};
use crate::python::iteration::FirstIteration;
use crate::python::start_method::Origin;
use crate::python::syntax;
use crate::rules::fork::{loaders, with_start_method_fixes};
use crate::rules::{Checker, Code, FixAvailability, Rule, zh};
use crate::text::TextRange;

pub const RULE: Rule = Rule {
    code: Code::DL102,
    name: "cuda-before-fork",
    severity: Severity::Hint,
    default_enabled: false,
    fix: FixAvailability::Sometimes,
    summary: "CUDA is initialised in the parent before a fork-started loader starts its workers",
    docs: DOCS,
    kb: &["pytorch/dataset-worker-fork-cuda"],
};

const DOCS: &str = r#"## What it does
Checks for CUDA initialised in the main process (`.cuda()`, `.to("cuda")`, a tensor created
with `device="cuda"`, `torch.cuda.set_device`, `torch.cuda.init`, ...) before a DataLoader whose
workers start by fork starts them.

`torch.cuda.is_available()`, `torch.cuda.device_count()`, `torch.cuda.manual_seed()` (deferred
until CUDA initialises) and a bare `torch.device("cuda")` do not initialise CUDA and are not
reported.

## Why is this bad?
The forked workers inherit a process whose CUDA state they cannot use. Workers that only use
the CPU are fine: this is the shape of PyTorch's ImageNet example and it works, so the rule is
opt-in (`extend-select = ["DL102"]`) for teams that want every loader started after CUDA to
use spawn or forkserver, and then a hint. Worker-side code that calls PyTorch's CUDA itself is
DL101's error.

Without opting in, the rule still reports, as a warning, the case the semantic model cannot
see through: worker-side code that uses another CUDA-capable library (CuPy, `cv2.cuda`,
NVIDIA DALI, `numba.cuda`, PyCUDA), which fails or hangs in the forked child. The message
names the library call and the worker-side function it runs in.

"CUDA is initialised here" points at the first initialisation that runs on every path before
the workers start (an unconditional `.to(device)` before a `DistributedDataParallel` built
under `if args.distributed:`); "the workers start here" at the loader's first iteration, when
the file shows it.

## Example
```python
model = Net().cuda()
loader = DataLoader(dataset, num_workers=4)
```

## Use instead
```python
model = Net().cuda()
loader = DataLoader(dataset, num_workers=4, multiprocessing_context="spawn")
```

## Fix safety
Both fixes (`multiprocessing_context="spawn"`, `"forkserver"`) change how the workers start
and are unsafe: the main module must be importable without side effects and the loader's
callables must be picklable.
"#;

pub fn check(checker: &mut Checker) {
    let scope = &checker.scope;
    let opted_in = checker.ctx.settings.is_enabled(Code::DL102);
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        if !loader.has_workers() || !loader.start.is_fork() {
            continue;
        }
        let code = loader.worker_code(checker);
        // Worker-side CUDA is DL101's error; this rule is about workers that do not call
        // PyTorch's CUDA themselves.
        if code.cuda().next().is_some() {
            continue;
        }
        let library = code.cuda_libraries().next();
        // CPU-only workers work with CUDA initialised in the parent (PyTorch's ImageNet
        // example does this): only a team that opted in hears about it.
        if library.is_none() && !opted_in {
            continue;
        }
        let iteration = loader.first_iteration(checker.model);
        let start = match iteration {
            FirstIteration::At(node) => crate::python::model::statement_of(node),
            _ => crate::python::model::statement_of(loader.call()),
        };
        let Some(start) = start else {
            continue;
        };
        let uses = cuda::cuda_before(scope, start);
        // The first use that runs on every path, else the first that may run.
        let Some(first) = uses
            .iter()
            .find(|u| !is_conditional(scope, u.range, start))
            .or_else(|| uses.first())
        else {
            continue;
        };
        let (when, when_zh) = match first.cudaness {
            Cudaness::Cuda => ("", ""),
            Cudaness::WhenAvailable => (" (when CUDA is available)", "CUDA 可用时，"),
        };
        let (severity, consequence, consequence_zh) = match library {
            Some(lib) => (
                Severity::Warning,
                format!(
                    "the workers use {} ({}), which cannot use the CUDA state a forked \
                     process inherits",
                    lib.what, lib.within
                ),
                format!(
                    "worker 用到了 {}（位于 {}），它无法使用 fork 出的子进程继承来的 CUDA 状态",
                    zh::code_path(&lib.what),
                    zh::code_path(&lib.within)
                ),
            ),
            None => (
                RULE.severity,
                "the workers only use the CPU, so this works; code that touches CUDA in a \
                 worker would fail"
                    .to_owned(),
                "worker 只使用 CPU，所以目前能正常运行；但 worker 中一旦有代码用到 CUDA 就会失败"
                    .to_owned(),
            ),
        };
        let message = format!(
            "CUDA is initialised in the main process before this loader starts its workers \
             (by {}){when}, and {}: {consequence}",
            first.what,
            loader.start.describe()
        );
        let message_zh = format!(
            "{when_zh}主进程在此加载器启动 worker 之前已初始化 CUDA（由 {} 触发），且 {}：\
             {consequence_zh}",
            zh::code_path(&first.what),
            zh::start_method(&loader.start)
        );
        let range = match loader.start.origin {
            Origin::Argument(range) => range,
            _ => loader.callee(),
        };
        let mut diagnostic = RULE
            .diagnostic(range, message)
            .zh(message_zh)
            .with_severity(severity)
            .with_related(first.range, "CUDA is initialised here", "CUDA 在此处初始化");
        if let FirstIteration::At(node) = iteration {
            diagnostic = diagnostic.with_related(
                syntax::range(node),
                "the workers start here",
                "worker 在此处启动",
            );
        }
        if let Some(lib) = library {
            diagnostic = diagnostic.with_related_in(
                lib.file.clone(),
                lib.range,
                format!("{} runs in every worker", lib.what),
                format!("{} 在每个 worker 中运行", zh::code_path(&lib.what)),
            );
        }
        diagnostic = with_start_method_fixes(diagnostic, scope, loader);
        diagnostics.push(diagnostic);
    }
    for d in diagnostics {
        checker.report(d);
    }
}

/// Whether the CUDA use at `range` runs only under a condition, a loop or an exception handler
/// that does not also hold `start`.
fn is_conditional(scope: &Analysis, range: TextRange, start: Node) -> bool {
    scope
        .root()
        .descendant_for_byte_range(range.start, range.end)
        .is_some_and(|node| scope.m.is_conditional_relative_to(node, start))
}
