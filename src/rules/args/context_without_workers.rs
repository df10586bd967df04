//! DL305 `context-without-workers`.

use crate::diagnostic::{Diagnostic, Severity};
use crate::python::loaders::Param;
use crate::rules::args::{remove_fix, short_text, with_workers_related, workers_text};
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL305,
    name: "context-without-workers",
    severity: Severity::Error,
    default_enabled: true,
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
    let m = checker.model;
    for loader in m.loaders() {
        if !loader.certainly_single_process() {
            continue;
        }
        let Some(context) = loader.argument(Param::MultiprocessingContext) else {
            continue;
        };
        if context.conditional || !m.is_not_none(context.value_node) {
            continue;
        }
        let message = format!(
            "{} with {}: DataLoader raises \"ValueError: multiprocessing_context can only be \
             used with multi-process loading (num_workers > 0), but got num_workers=0\"",
            short_text(m, context),
            workers_text(loader)
        );
        let mut d = with_workers_related(
            Diagnostic::new(Code::DL305, context.anchor, message),
            loader,
        );
        if let Some(fix) = remove_fix(m, context) {
            d = d.with_fix(fix);
        }
        checker.report(d);
    }
}
