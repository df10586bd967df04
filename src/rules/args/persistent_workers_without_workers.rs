//! DL302 `persistent-workers-without-workers`.

use crate::diagnostic::Severity;
use crate::lang::Lang;
use crate::python::loaders::{ArgState, Param};
use crate::python::values::Value;
use crate::rules::args::{
    check_without_workers, with_workers_related, workers_text, workers_text_zh,
};
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
Checks for `DataLoader(..., persistent_workers=True)` where `num_workers` is 0: by default,
on one caller's path, or on every run of the project's shell scripts that run the file
(`--num_workers 0` in each of `expr/*/tune.sh`, the option's default being 8; the message
names the script).

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

A loader whose own default is `persistent_workers=True` (timm's `create_loader`) raises the
same error when it is given `num_workers=0`; that finding sits on the call and has no fix.

## Fix safety
Removing the argument is safe: the call raised before, and without workers there is nothing to
keep alive.
"#;

pub fn check(checker: &mut Checker) {
    check_default(checker);
    check_without_workers(
        checker,
        &RULE,
        Param::PersistentWorkers,
        |_, arg| arg.value.value.truthy() == Some(true),
        |_, _, arg, workers| {
            format!(
                "persistent_workers={} with {workers}: DataLoader raises \"ValueError: \
                 persistent_workers option needs num_workers > 0\"",
                arg.value.value
            )
        },
        |_, _, arg, workers| {
            format!(
                "persistent_workers={} 与 {workers} 同时使用：DataLoader 会抛出 \"ValueError: \
                 persistent_workers option needs num_workers > 0\"",
                arg.value.value
            )
        },
    );
}

/// The callee's own default is `persistent_workers=True` (timm's `create_loader`): the call
/// raises unless it passes workers or `persistent_workers=False`.
fn check_default(checker: &mut Checker) {
    let m = checker.model;
    let mut found = Vec::new();
    for loader in m.loaders() {
        let param = Param::PersistentWorkers;
        let (value, own) = loader.signature.default_of(param);
        if !own
            || value != Value::Bool(true)
            || !matches!(loader.state(param), ArgState::Default)
            || !loader.certainly_single_process()
        {
            continue;
        }
        let note = loader.default_note(param, Lang::En);
        let workers = workers_text(loader);
        let message = format!(
            "persistent_workers=True ({note}) with {workers}: DataLoader raises \"ValueError: \
             persistent_workers option needs num_workers > 0\""
        );
        let message_zh = format!(
            "persistent_workers=True（{} 的默认值）与 {} 同时使用：DataLoader 会抛出 \
             \"ValueError: persistent_workers option needs num_workers > 0\"",
            loader.entry.render(Lang::Zh),
            workers_text_zh(loader)
        );
        found.push(with_workers_related(
            RULE.diagnostic(loader.callee, message).zh(message_zh),
            loader,
        ));
    }
    for d in found {
        checker.report(d);
    }
}
