//! DL305 `context-without-workers`.

use crate::diagnostic::Severity;
use crate::python::loaders::Param;
use crate::rules::args::{check_without_workers, short_text};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL305,
    name: "context-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "multiprocessing_context is given while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/mp-context-without-workers"],
};

const DOCS: &str = r#"## What it does
Checks for `DataLoader(..., multiprocessing_context=...)` where `num_workers` is 0.

## Why is this bad?
The context decides how worker processes start. With no workers the constructor refuses it:

```text
ValueError: multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got num_workers=0
```

## Example
```python
loader = DataLoader(dataset, multiprocessing_context="spawn")
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=4, multiprocessing_context="spawn")
# or, without workers:
loader = DataLoader(dataset)
```

## Fix safety
Removing the argument is safe: the call raised before, and without workers no process starts.
"#;

pub fn check(checker: &mut Checker) {
    check_without_workers(
        checker,
        &RULE,
        Param::MultiprocessingContext,
        |m, arg| m.is_not_none(arg.value_node),
        |m, _, arg, workers| {
            format!(
                "{} with {workers}: DataLoader raises \"ValueError: multiprocessing_context can \
                 only be used with multi-process loading (num_workers > 0), but got \
                 num_workers=0\"",
                short_text(m, arg)
            )
        },
        |m, _, arg, workers| {
            format!(
                "{} 与 {workers} 同时使用：DataLoader 会抛出 \"ValueError: \
                 multiprocessing_context can only be used with multi-process loading \
                 (num_workers > 0), but got num_workers=0\"",
                short_text(m, arg)
            )
        },
    );
}
