//! DL304 `negative-num-workers`.

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::lang::Lang;
use crate::python::edit;
use crate::python::loaders::{Param, Passing};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL304,
    name: "negative-num-workers",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "num_workers is negative",
    docs: DOCS,
    kb: &["pytorch/negative-num-workers"],
};

const DOCS: &str = r#"## What it does
Checks for a negative `num_workers`, written in the call or resolved from a constant or the
default of a command-line option.

## Why is this bad?
Unlike some libraries, PyTorch does not read `-1` as "all CPUs". The constructor refuses it:

```text
ValueError: num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.
```

## Example
```python
parser.add_argument("--workers", type=int, default=-1)
...
loader = DataLoader(dataset, num_workers=args.workers)
```

## Use instead
```python
parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
```

## Fix safety
The fix sets `num_workers=0` (loading in the main process). It is unsafe: it changes the number
of worker processes, and the intent may have been "all CPUs".
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    for loader in m.loaders() {
        let Some(arg) = loader.argument(Param::NumWorkers) else {
            continue;
        };
        if arg.conditional || arg.value.value.as_int().is_none_or(|n| n >= 0) {
            continue;
        }
        let fallback = || format!("num_workers={}", arg.value.value);
        let described = loader
            .describe(Param::NumWorkers, Lang::En)
            .unwrap_or_else(fallback);
        let described_zh = loader
            .describe(Param::NumWorkers, Lang::Zh)
            .unwrap_or_else(fallback);
        let mut d = RULE
            .diagnostic(
                arg.anchor,
                format!(
                    "{described}: DataLoader raises \"ValueError: num_workers option should be \
                 non-negative; use num_workers=0 to disable multiprocessing.\""
                ),
            )
            .zh(format!(
                "{described_zh}：DataLoader 会抛出 \"ValueError: num_workers option should be \
             non-negative; use num_workers=0 to disable multiprocessing.\""
            ));
        if let Some(at) = arg.value.defined_at() {
            d = d.with_related_in(
                arg.value.defined_in(),
                at,
                "the negative value is set here",
                "负值在此处设定",
            );
        }
        if matches!(arg.passing, Passing::Keyword | Passing::Positional(_)) {
            d = d.with_fix(
                Fix::unsafe_(
                    "Set `num_workers=0`",
                    vec![edit::replace(arg.value_node, "0")],
                )
                .zh("改为 `num_workers=0`"),
            );
        }
        checker.report(d);
    }
}
