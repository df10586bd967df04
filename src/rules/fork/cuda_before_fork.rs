//! DL102 `cuda-before-fork`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL102,
    name: "cuda-before-fork",
    severity: Severity::Info,
    default_enabled: true,
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
The forked workers inherit a process whose CUDA state they cannot use. PyTorch's own
CPU-only datasets are fine: this is the shape of PyTorch's ImageNet example and it works, so
the rule is informational. It becomes a warning when the worker-side code uses another
CUDA-capable library (CuPy, `cv2.cuda`, NVIDIA DALI, `numba.cuda`), which then fails or hangs in
the child.

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

pub fn check(_checker: &mut Checker) {}
