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
use crate::lang::Lang;
use crate::python::loaders::{Argument, Loader, Param};
use crate::python::model::{BindingKind, Module};
use crate::python::values::{Value, one_caller_note};
use crate::python::{argparse, defaults, edit};
use crate::rules::{Checker, Rule};

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
        .describe(Param::NumWorkers, Lang::En)
        .unwrap_or_else(|| "num_workers=0".to_owned())
}

/// [`workers_text`] in Chinese.
pub(crate) fn workers_text_zh(loader: &Loader) -> String {
    loader
        .describe(Param::NumWorkers, Lang::Zh)
        .unwrap_or_else(|| "num_workers=0".to_owned())
}

/// The shape of the "option without workers" rules: for every loader that certainly has no
/// workers, or has none on one caller's path (see [`on_zero_path`]), and passes `param`
/// unconditionally with a value `offends` accepts, report at the argument, point at
/// `num_workers`, and (when certain) offer to remove the argument. `message` gets the loader,
/// the argument and the `num_workers` text, `message_zh` the same in Chinese.
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
        let Some(arg) = loader.argument(param) else {
            continue;
        };
        if arg.conditional {
            continue;
        }
        let certain = loader.certainly_single_process();
        let (arg, workers, workers_zh) = if certain {
            (arg.clone(), workers_text(loader), workers_text_zh(loader))
        } else {
            match on_zero_path(m, loader, arg).or_else(|| on_scripts_zero(m, loader, arg)) {
                Some(found) => found,
                None => continue,
            }
        };
        if !offends(m, &arg) {
            continue;
        }
        let text = message(m, loader, &arg, &workers);
        let text_zh = message_zh(m, loader, &arg, &workers_zh);
        let mut d = with_workers_related(rule.diagnostic(arg.anchor, text).zh(text_zh), loader);
        // On one caller's path, the other callers may start workers that use the argument.
        if let Some(fix) = remove_fix(m, &arg).filter(|_| certain) {
            d = d.with_fix(fix);
        }
        checker.report(d);
    }
}

/// `arg` as it is on the runs of the project's shell scripts, when they all pass no workers
/// (`--num_workers 0` in `expr/tune.sh`, the default being 8): the call runs on a plain run,
/// and `arg` has a known value the scripts do not change (none of their options, nor the
/// worker count, goes into it). With the `num_workers` texts, in English and Chinese.
fn on_scripts_zero<'a>(
    m: &Module<'a>,
    loader: &Loader<'a>,
    arg: &Argument<'a>,
) -> Option<(Argument<'a>, String, String)> {
    let workers = loader.argument(Param::NumWorkers)?;
    let pass = workers.value.script_pass().filter(|p| p.value == 0)?;
    let reads_workers = m.text(arg.value_node).contains(m.text(workers.value_node));
    if workers.conditional
        || reads_workers
        || arg.value.script_pass().is_some()
        || !arg.value.value.is_known()
        || matches!(arg.value.value, Value::OneCaller(_))
        || argparse::branch_runs(m, loader.call, None, 0) != Some(true)
    {
        return None;
    }
    let [en, zh] = [Lang::En, Lang::Zh].map(|lang| {
        let note = pass.note(lang, Some(&workers.value.describe(lang)));
        match lang {
            Lang::En => format!("num_workers=0 ({note})"),
            Lang::Zh => format!("num_workers=0（{note}）"),
        }
    });
    Some((arg.clone(), en, zh))
}

/// `arg` as it is on one caller's path with no workers: the loader's `num_workers` is a
/// parameter of the function building it (`def create_loader(ds, num_workers=0,
/// prefetch_factor=2)`), one caller outside the tests gives it 0, and on that path the call
/// runs and `arg` has a value all callers agree on (`prefetch_factor = 2 if num_workers == 0
/// else prefetch_factor`). With the `num_workers` texts, in English and Chinese.
fn on_zero_path<'a>(
    m: &Module<'a>,
    loader: &Loader<'a>,
    arg: &Argument<'a>,
) -> Option<(Argument<'a>, String, String)> {
    let workers = loader.argument(Param::NumWorkers)?;
    let node = workers.value_node;
    if workers.conditional || node.kind() != "identifier" {
        return None;
    }
    let binding = m.binding_read(m.text(node), m.scope_at(node), node, 0)?;
    if binding.kind != BindingKind::Parameter {
        return None;
    }
    let zero = defaults::one_caller_giving(m, binding, &Value::Int(0), 0)?;
    let (runs, value) = defaults::assuming(m, binding, zero.clone(), || {
        (
            argparse::branch_runs(m, loader.call, None, 0),
            m.value_in(arg.value_node, m.scope_at(arg.value_node), 0),
        )
    });
    // A value that differs by caller may be another caller's.
    if runs != Some(true) || !value.value.is_known() || matches!(value.value, Value::OneCaller(_)) {
        return None;
    }
    let mut on_path = arg.clone();
    on_path.value = value;
    let texts = [Lang::En, Lang::Zh].map(|lang| {
        let sep = if lang == Lang::En { ", " } else { "，" };
        let mut notes: Vec<String> = zero.provenance.note(lang).into_iter().collect();
        notes.push(one_caller_note(lang).to_owned());
        match lang {
            Lang::En => format!("num_workers=0 ({})", notes.join(sep)),
            Lang::Zh => format!("num_workers=0（{}）", notes.join(sep)),
        }
    });
    let [en, zh] = texts;
    Some((on_path, en, zh))
}
