//! DL306 `sampler-option-conflict`.

use crate::diagnostic::Severity;
use crate::python::loaders::{Argument, Loader, Param};
use crate::python::model::Module;
use crate::python::values::Value;
use crate::rules::args::remove_fix;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL306,
    name: "sampler-option-conflict",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "sampler, batch_sampler, shuffle, batch_size and drop_last in a combination DataLoader rejects",
    docs: DOCS,
    kb: &[
        "pytorch/sampler-shuffle-exclusive",
        "pytorch/batch-sampler-exclusive",
        "pytorch/batch-size-none-drop-last",
    ],
};

const DOCS: &str = r#"## What it does
Checks for the combinations of `sampler`, `batch_sampler`, `shuffle`, `batch_size` and
`drop_last` that `DataLoader.__init__` refuses:

- a `sampler` with `shuffle=True`;
- a `batch_sampler` with `batch_size` other than 1, `shuffle`, a `sampler` or `drop_last`;
- `batch_size=None` with `drop_last=True`.

## Why is this bad?
A sampler decides the order, so `shuffle` has nothing left to do; a batch sampler decides the
batches, so `batch_size`, `shuffle`, `sampler` and `drop_last` have nothing left to do. The
constructor raises, each with its own message:

```text
ValueError: sampler option is mutually exclusive with shuffle
ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last
ValueError: batch_size=None option disables auto-batching and is mutually exclusive with drop_last
```

The first is the classic of distributed training: adding a `DistributedSampler` to a loader
that had `shuffle=True`. Shuffle through the sampler instead (`DistributedSampler(ds,
shuffle=True)` and `sampler.set_epoch(epoch)`).

## Example
```python
sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, sampler=sampler, shuffle=True)
```

## Use instead
```python
sampler = DistributedSampler(dataset, shuffle=True)
loader = DataLoader(dataset, sampler=sampler)
```

## Fix safety
Removing the conflicting argument is safe: the call raised before, and the sampler already
decides what the argument asked for.
"#;

fn is_true<'l, 'a>(arg: Option<&'l Argument<'a>>) -> Option<&'l Argument<'a>> {
    arg.filter(|a| !a.conditional && a.value.value.truthy() == Some(true))
}

fn is_given<'l, 'a>(m: &Module, arg: Option<&'l Argument<'a>>) -> Option<&'l Argument<'a>> {
    arg.filter(|a| !a.conditional && m.is_not_none(a.value_node))
}

/// `message` and `other_note` are (English, Chinese).
fn report(
    checker: &mut Checker,
    culprit: &Argument,
    other: &Argument,
    other_note: (&str, &str),
    message: (String, String),
) {
    let m = checker.model;
    let mut d = RULE
        .diagnostic(culprit.anchor, message.0)
        .zh(message.1)
        .with_related(other.anchor, other_note.0, other_note.1);
    if let Some(fix) = remove_fix(m, culprit) {
        d = d.with_fix(fix);
    }
    checker.report(d);
}

fn check_loader(checker: &mut Checker, loader: &Loader) {
    let m = checker.model;
    let shuffle = is_true(loader.argument(Param::Shuffle));
    let sampler = is_given(m, loader.argument(Param::Sampler));
    let drop_last = is_true(loader.argument(Param::DropLast));
    if let Some(batch_sampler) = is_given(m, loader.argument(Param::BatchSampler)) {
        const MSG: &str = "batch_sampler option is mutually exclusive with batch_size, shuffle, \
                           sampler, and drop_last";
        let batch_size = loader.argument(Param::BatchSize).filter(|a| {
            !a.conditional && a.value.value.is_known() && a.value.value != Value::Int(1)
        });
        let culprits = [batch_size, shuffle, sampler, drop_last];
        for culprit in culprits.into_iter().flatten() {
            let text = culprit_text(m, culprit);
            let message = (
                format!("{text} with a batch_sampler: DataLoader raises \"ValueError: {MSG}\""),
                format!(
                    "{text} 与 batch_sampler 同时使用：DataLoader 会抛出 \"ValueError: {MSG}\""
                ),
            );
            report(
                checker,
                culprit,
                batch_sampler,
                (
                    "the batch_sampler is given here",
                    "batch_sampler 在此处传入",
                ),
                message,
            );
        }
        return;
    }
    if let (Some(sampler), Some(shuffle)) = (sampler, shuffle) {
        let text = culprit_text(m, shuffle);
        let message = (
            format!(
                "{text} with a sampler: DataLoader raises \"ValueError: sampler option is \
                 mutually exclusive with shuffle\"; shuffle in the sampler instead"
            ),
            format!(
                "{text} 与 sampler 同时使用：DataLoader 会抛出 \"ValueError: sampler option is \
                 mutually exclusive with shuffle\"；请改由 sampler 负责打乱"
            ),
        );
        report(
            checker,
            shuffle,
            sampler,
            ("the sampler is given here", "sampler 在此处传入"),
            message,
        );
    }
    let batch_size_none = loader
        .argument(Param::BatchSize)
        .filter(|a| !a.conditional && a.value.value == Value::None);
    if let (Some(batch_size), Some(drop_last)) = (batch_size_none, drop_last) {
        let text = culprit_text(m, drop_last);
        let message = (
            format!(
                "{text} with batch_size=None: DataLoader raises \"ValueError: batch_size=None \
                 option disables auto-batching and is mutually exclusive with drop_last\""
            ),
            format!(
                "{text} 与 batch_size=None 同时使用：DataLoader 会抛出 \"ValueError: \
                 batch_size=None option disables auto-batching and is mutually exclusive with \
                 drop_last\""
            ),
        );
        report(
            checker,
            drop_last,
            batch_size,
            (
                "batch_size=None is given here",
                "batch_size=None 在此处传入",
            ),
            message,
        );
    }
}

fn culprit_text(m: &Module, arg: &Argument) -> String {
    if arg.is_keyword() {
        crate::rules::args::short_text(m, arg)
    } else {
        format!("{}={}", arg.param.name(), arg.value.value)
    }
}

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    for loader in m.loaders() {
        check_loader(checker, loader);
    }
}
