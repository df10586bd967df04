//! DL301 `prefetch-factor-without-workers`.

use crate::diagnostic::Severity;
use crate::python::labels::EntryName;
use crate::python::loaders::{Loader, Param};
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

transformers' `TrainingArguments` (and `Seq2SeqTrainingArguments`) refuse
`dataloader_prefetch_factor` without `dataloader_num_workers` themselves, before any
DataLoader is built:

```text
ValueError: --dataloader_prefetch_factor can only be set when data is loaded in a different process, i.e. when --dataloader_num_workers > 0.
```

This bites code that passes `prefetch_factor=2` (the old default) everywhere and turns workers
off for debugging, or a config where `num_workers` comes from a command-line option whose
default is 0, or a loader helper that one caller runs without workers
(`create_data_loader(ds, num_workers=0)`) while its guard keeps `prefetch_factor` set
(`prefetch_factor = 2 if num_workers == 0 else prefetch_factor`): that caller's path raises,
and the message names it. On such a path no fix is offered, since the other callers may use
the argument. The same holds when every command of the project's shell scripts that runs
the file passes no workers (`--num_workers 0`) while the option's default starts some.

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
        |_, loader, arg, workers| {
            format!(
                "prefetch_factor={} with {workers}: {} raises \"ValueError: {}\"",
                arg.value.value,
                raiser(loader),
                error_text(loader)
            )
        },
        |_, loader, arg, workers| {
            format!(
                "prefetch_factor={} 与 {workers} 同时使用：{} 会抛出 \"ValueError: {}\"",
                arg.value.value,
                raiser(loader),
                error_text(loader)
            )
        },
    );
}

/// transformers' `TrainingArguments` checks the pair itself, before any DataLoader is built.
fn is_training_arguments(loader: &Loader) -> bool {
    matches!(&loader.entry, EntryName::Catalogue(name) if name == "transformers.TrainingArguments")
}

/// Who raises: the `TrainingArguments` constructor or DataLoader's.
fn raiser(loader: &Loader) -> &'static str {
    if is_training_arguments(loader) {
        "TrainingArguments"
    } else {
        "DataLoader"
    }
}

/// The error's text, as the raiser words it (transformers' `TrainingArguments.__post_init__`,
/// PyTorch's `DataLoader.__init__`).
fn error_text(loader: &Loader) -> &'static str {
    if is_training_arguments(loader) {
        "--dataloader_prefetch_factor can only be set when data is loaded in a different \
         process, i.e. when --dataloader_num_workers > 0."
    } else {
        "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 \
         to enable multiprocessing, otherwise set prefetch_factor to None."
    }
}
