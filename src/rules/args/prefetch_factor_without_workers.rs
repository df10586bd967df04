//! DL301 `prefetch-factor-without-workers`.

use crate::diagnostic::Severity;
use crate::python::loaders::Param;
use crate::rules::args::check_without_workers;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL301,
    name: "prefetch-factor-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
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
    check_without_workers(
        checker,
        &RULE,
        Param::PrefetchFactor,
        |_, arg| arg.value.value.is_none() == Some(false),
        |_, arg, workers| {
            format!(
                "prefetch_factor={} with {workers}: DataLoader raises \"ValueError: \
                 prefetch_factor option could only be specified in multiprocessing.let \
                 num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to \
                 None.\"",
                arg.value.value
            )
        },
        |_, arg, workers| {
            format!(
                "prefetch_factor={} 与 {workers} 同时使用：DataLoader 会抛出 \"ValueError: \
                 prefetch_factor option could only be specified in multiprocessing.let \
                 num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to \
                 None.\"",
                arg.value.value
            )
        },
    );
}
