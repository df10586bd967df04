//! DL3xx: argument combinations `DataLoader.__init__` rejects at run time.

pub mod context_without_workers;
pub mod invalid_start_method;
pub mod negative_num_workers;
pub mod persistent_workers_without_workers;
pub mod prefetch_factor_without_workers;
pub mod sampler_option_conflict;
pub mod timeout_without_workers;

use crate::diagnostic::Diagnostic;
use crate::fix::Fix;
use crate::python::edit;
use crate::python::loaders::{Argument, Loader, Param};
use crate::python::model::Module;
use crate::rules::{Checker, Rule, zh};

/// An argument's text on one line, shortened for a fix title.
pub(crate) fn short_text(m: &Module, arg: &Argument) -> String {
    let text = m
        .text(arg.node)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if text.chars().count() > 48 {
        let cut: String = text.chars().take(45).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// "Remove `prefetch_factor=4`", for an argument written as `name=value` in the call.
/// Safe: the call raised before, and the argument had no effect without workers.
pub(crate) fn remove_fix(m: &Module, arg: &Argument) -> Option<Fix> {
    if !arg.is_keyword() {
        return None;
    }
    let edits = edit::remove_argument(m.source, arg.node)?;
    let text = short_text(m, arg);
    Some(
        Fix::safe(format!("Remove `{text}`"), edits)
            .zh(format!("删除 `{text}`"))
            .preferred(),
    )
}

/// Points at `num_workers` when it is passed (the other half of a "without workers" error).
pub(crate) fn with_workers_related(diagnostic: Diagnostic, loader: &Loader) -> Diagnostic {
    match loader.argument(Param::NumWorkers) {
        Some(arg) => {
            diagnostic.with_related(arg.anchor, "num_workers is 0 here", "此处 num_workers 为 0")
        }
        None => diagnostic.with_related(
            loader.callee,
            "num_workers is not set, so it is 0",
            "未设置 num_workers，因此为 0",
        ),
    }
}

/// "num_workers=0 (...)" or "num_workers=0 (DataLoader's default)".
pub(crate) fn workers_text(loader: &Loader) -> String {
    loader
        .describe(Param::NumWorkers)
        .unwrap_or_else(|| "num_workers=0".to_owned())
}

/// [`workers_text`] in Chinese.
pub(crate) fn workers_text_zh(loader: &Loader) -> String {
    zh::describe(loader, Param::NumWorkers).unwrap_or_else(|| "num_workers=0".to_owned())
}

/// The shape of the "option without workers" rules: for every loader that certainly has no
/// workers and passes `param` unconditionally with a value `offends` accepts, report at the
/// argument, point at `num_workers`, and offer to remove the argument. `message` gets the
/// loader, the argument and the `num_workers` text, `message_zh` the same in Chinese.
pub(crate) fn check_without_workers(
    checker: &mut Checker,
    rule: &Rule,
    param: Param,
    offends: fn(&Module, &Argument) -> bool,
    message: fn(&Module, &Loader, &Argument, &str) -> String,
    message_zh: fn(&Module, &Loader, &Argument, &str) -> String,
) {
    let m = checker.model;
    for loader in m.loaders() {
        if !loader.certainly_single_process() {
            continue;
        }
        let Some(arg) = loader.argument(param) else {
            continue;
        };
        if arg.conditional || !offends(m, arg) {
            continue;
        }
        let text = message(m, loader, arg, &workers_text(loader));
        let text_zh = message_zh(m, loader, arg, &workers_text_zh(loader));
        let mut d = with_workers_related(rule.diagnostic(arg.anchor, text).zh(text_zh), loader);
        if let Some(fix) = remove_fix(m, arg) {
            d = d.with_fix(fix);
        }
        checker.report(d);
    }
}
