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
    Some(Fix::safe(format!("Remove `{}`", short_text(m, arg)), edits).preferred())
}

/// Points at `num_workers` when it is passed (the other half of a "without workers" error).
pub(crate) fn with_workers_related(diagnostic: Diagnostic, loader: &Loader) -> Diagnostic {
    match loader.argument(Param::NumWorkers) {
        Some(arg) => diagnostic.with_related(arg.anchor, "num_workers is 0 here"),
        None => diagnostic.with_related(loader.callee, "num_workers is not set, so it is 0"),
    }
}

/// "num_workers=0 (...)" or "num_workers=0 (DataLoader's default)".
pub(crate) fn workers_text(loader: &Loader) -> String {
    loader
        .describe(Param::NumWorkers)
        .unwrap_or_else(|| "num_workers=0".to_owned())
}
