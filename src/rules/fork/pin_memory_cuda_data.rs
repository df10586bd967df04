//! DL106 `pin-memory-cuda-data`.

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::lang::Lang;
use crate::python::syntax;
use crate::rules::fork::loaders;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL106,
    name: "pin-memory-cuda-data",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "pin_memory=True while worker-side code returns CUDA tensors",
    docs: DOCS,
    kb: &["pytorch/cannot-pin-cuda-tensor"],
};

const DOCS: &str = r#"## What it does
Checks for `pin_memory=True` on a loader whose worker-side code returns CUDA tensors.

## Why is this bad?
Only CPU tensors can be pinned. The pin-memory thread fails with
`RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned`.

## Example
```python
class OnGpu(Dataset):
    def __getitem__(self, i):
        return self.x[i].cuda()

loader = DataLoader(OnGpu(), pin_memory=True)
```

## Use instead
Return CPU tensors and move the pinned batch in the training loop:
```python
class OnCpu(Dataset):
    def __getitem__(self, i):
        return self.x[i]

for batch in DataLoader(OnCpu(), pin_memory=True):
    batch = batch.cuda(non_blocking=True)
```

## Fix safety
The fix sets `pin_memory=False`, which keeps the CUDA data and drops pinning; it is unsafe
because moving the transfer out of the dataset is usually the better change.
"#;

pub fn check(checker: &mut Checker) {
    let mut diagnostics = Vec::new();
    for loader in loaders(checker) {
        if !loader.pins_memory() {
            continue;
        }
        let code = loader.worker_code(checker);
        let Some(first) = code.returns_cuda().next() else {
            continue;
        };
        let (Some(range), Some(value)) = (
            loader.argument_range("pin_memory"),
            loader.argument("pin_memory"),
        ) else {
            continue;
        };
        let message = format!(
            "`pin_memory=True`, but {} returns a CUDA tensor ({}): only CPU tensors can be \
             pinned (\"cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be \
             pinned\"). Return CPU tensors and move the batch in the training loop",
            first.within.render(Lang::En),
            first.what.render(Lang::En)
        );
        let message_zh = format!(
            "`pin_memory=True`，但 {} 返回的是 CUDA 张量（{}）：只有 CPU 张量才能锁页（\"cannot \
             pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned\"）。请返回 CPU \
             张量，在训练循环中再把批次移到 GPU",
            first.within.render(Lang::Zh),
            first.what.render(Lang::Zh)
        );
        let mut diagnostic = RULE.diagnostic(range, message).zh(message_zh);
        for finding in code.returns_cuda().take(3) {
            diagnostic = diagnostic.with_related_in(
                finding.file.clone(),
                finding.range,
                format!(
                    "a CUDA tensor is returned to the loader here ({})",
                    finding.within.render(Lang::En)
                ),
                format!(
                    "此处向加载器返回了 CUDA 张量（位于 {}）",
                    finding.within.render(Lang::Zh)
                ),
            );
        }
        diagnostic = diagnostic.with_fix(
            Fix::unsafe_(
                "Set pin_memory=False",
                vec![Edit::replace(syntax::range(value), "False")],
            )
            .zh("改为 pin_memory=False"),
        );
        diagnostics.push(diagnostic);
    }
    for d in diagnostics {
        checker.report(d);
    }
}
