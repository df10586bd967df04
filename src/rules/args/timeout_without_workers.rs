//! DL303 `timeout-without-workers`.

use crate::diagnostic::Severity;
use crate::python::loaders::Param;
use crate::rules::args::{remove_fix, with_workers_related, workers_text, workers_text_zh};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL303,
    name: "timeout-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "timeout > 0 while num_workers is 0, or a negative timeout",
    docs: DOCS,
    kb: &["pytorch/timeout-without-workers"],
};

const DOCS: &str = r#"## What it does
Checks for a negative `timeout`, and for `timeout > 0` where `num_workers` is 0.

## Why is this bad?
`timeout` is how long the main process waits for a batch from a worker. A negative value is
refused by the constructor:

```text
ValueError: timeout option should be non-negative
```

Without workers there is nobody to wait for; the single-process iterator refuses the loader
as soon as iteration starts:

```text
AssertionError: _SingleProcessDataLoaderIter requires timeout == 0
```

(older versions fail on a bare `assert self._timeout == 0`, pytorch/pytorch#106634).

## Example
```python
loader = DataLoader(dataset, timeout=120)
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=4, timeout=120)
# or, without workers:
loader = DataLoader(dataset)
```

## Fix safety
Removing the argument is safe: the loader failed before, and `timeout` only applies to
workers.
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    for loader in m.loaders() {
        let Some(timeout) = loader.argument(Param::Timeout) else {
            continue;
        };
        if timeout.conditional {
            continue;
        }
        let Some(seconds) = timeout.value.value.as_f64() else {
            continue;
        };
        let value = &timeout.value.value;
        let d = if seconds < 0.0 {
            RULE.diagnostic(
                timeout.anchor,
                format!(
                    "timeout={value}: DataLoader raises \"ValueError: timeout option should be \
                     non-negative\""
                ),
            )
            .zh(format!(
                "timeout={value}：DataLoader 会抛出 \"ValueError: timeout option should be \
                 non-negative\""
            ))
        } else if seconds > 0.0 && loader.certainly_single_process() {
            with_workers_related(
                RULE.diagnostic(
                    timeout.anchor,
                    format!(
                        "timeout={value} with {}: iterating raises \"AssertionError: \
                         _SingleProcessDataLoaderIter requires timeout == 0\"",
                        workers_text(loader)
                    ),
                )
                .zh(format!(
                    "timeout={value} 与 {} 同时使用：开始迭代时会抛出 \"AssertionError: \
                     _SingleProcessDataLoaderIter requires timeout == 0\"",
                    workers_text_zh(loader)
                )),
                loader,
            )
        } else {
            continue;
        };
        let d = match remove_fix(m, timeout) {
            Some(fix) => d.with_fix(fix),
            None => d,
        };
        checker.report(d);
    }
}
