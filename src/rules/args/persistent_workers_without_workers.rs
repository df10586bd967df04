//! DL302 `persistent-workers-without-workers`.

use crate::diagnostic::Severity;
use crate::python::loaders::Param;
use crate::rules::args::check_without_workers;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL302,
    name: "persistent-workers-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "persistent_workers=True while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/persistent-workers-without-workers"],
};

const DOCS: &str = r#"## What it does
Checks for `DataLoader(..., persistent_workers=True)` where `num_workers` is 0.

## Why is this bad?
`persistent_workers` keeps the worker processes alive between epochs. With no workers the
constructor refuses it:

```text
ValueError: persistent_workers option needs num_workers > 0
```

## Example
```python
loader = DataLoader(dataset, persistent_workers=True)
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=4, persistent_workers=True)
# or, without workers:
loader = DataLoader(dataset)
```

## Fix safety
Removing the argument is safe: the call raised before, and without workers there is nothing to
keep alive.
"#;

pub fn check(checker: &mut Checker) {
    check_without_workers(
        checker,
        &RULE,
        Param::PersistentWorkers,
        |_, arg| arg.value.value.truthy() == Some(true),
        |_, arg, workers| {
            format!(
                "persistent_workers={} with {workers}: DataLoader raises \"ValueError: \
                 persistent_workers option needs num_workers > 0\"",
                arg.value.value
            )
        },
        |_, arg, workers| {
            format!(
                "persistent_workers={} 与 {workers} 同时使用：DataLoader 会抛出 \"ValueError: \
                 persistent_workers option needs num_workers > 0\"",
                arg.value.value
            )
        },
    );
}
