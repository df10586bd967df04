//! DL301 `prefetch-factor-without-workers`.

use crate::diagnostic::{Diagnostic, Severity};
use crate::python::loaders::Param;
use crate::rules::args::{remove_fix, with_workers_related, workers_text};
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL301,
    name: "prefetch-factor-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "prefetch_factor is set while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/prefetch-factor-without-workers"],
};

const DOCS: &str = r#"## What it does
Checks for `DataLoader(..., prefetch_factor=N)` where `num_workers` is 0.

## Why is this bad?
`prefetch_factor` is the number of batches each *worker* loads ahead. Without workers there
is nothing to prefetch, and since PyTorch 2.0 (pytorch/pytorch#88972) the constructor refuses
it:

```text
ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.
```

This bites code that passes `prefetch_factor=2` (the old default) everywhere and turns workers
off for debugging, or a config where `num_workers` comes from a command-line option whose
default is 0.

## Example
```python
loader = DataLoader(dataset, batch_size=32, prefetch_factor=4)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=32)
# or, with workers:
loader = DataLoader(dataset, batch_size=32, num_workers=4, prefetch_factor=4)
```

## Fix safety
Removing the argument is safe: the call raised before, and the argument has no effect without
workers.
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    for loader in m.loaders() {
        if !loader.certainly_single_process() {
            continue;
        }
        let Some(prefetch) = loader.argument(Param::PrefetchFactor) else {
            continue;
        };
        if prefetch.conditional || prefetch.value.value.is_none() != Some(false) {
            continue;
        }
        let message = format!(
            "prefetch_factor={} with {}: DataLoader raises \"ValueError: prefetch_factor option \
             could only be specified in multiprocessing.let num_workers > 0 to enable \
             multiprocessing, otherwise set prefetch_factor to None.\"",
            prefetch.value.value,
            workers_text(loader)
        );
        let mut d = with_workers_related(
            Diagnostic::new(Code::DL301, prefetch.anchor, message),
            loader,
        );
        if let Some(fix) = remove_fix(m, prefetch) {
            d = d.with_fix(fix);
        }
        checker.report(d);
    }
}
