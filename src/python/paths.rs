//! Values that depend on which caller runs the function building a loader (`if split ==
//! 'train': num_workers = 4 else: num_workers = 16`, called with `'train'` and `'test'`): the
//! value an argument takes on each caller's path. DL201 checks the largest; `dldoctor
//! loaders` and the hover list them all, so what the rule says is what they show.

use crate::lang::Lang;
use crate::python::loaders::{Argument, Loader};
use crate::python::model::{BindingKind, Module};
use crate::python::values::Resolved;
use crate::python::{argparse, defaults};

/// How many parameters of the function building a loader are tried one by one.
const MAX_PATH_PARAMETERS: usize = 6;

/// The value of an argument on one caller's path.
pub struct CallerPath {
    pub value: Resolved,
    /// Which path, in English and Chinese: "when `split` is "test", passed for split to
    /// make_dataloader (line 23)".
    pub when: [String; 2],
}

/// The known values the argument `arg` of `loader` takes on the callers' paths of the function
/// that builds it, one parameter's callers at a time, where the loader is built on that path.
/// Empty when the function has more than a few parameters or no parameter's callers give
/// more than one value.
pub fn caller_paths(m: &Module, loader: &Loader, arg: &Argument) -> Vec<CallerPath> {
    let Some(function) = m.function_at(loader.call).and_then(|f| m.function(f)) else {
        return Vec::new();
    };
    let params: Vec<_> = m
        .bindings()
        .iter()
        .filter(|b| b.scope == function.scope && b.kind == BindingKind::Parameter)
        .take(MAX_PATH_PARAMETERS + 1)
        .collect();
    if params.len() > MAX_PATH_PARAMETERS {
        return Vec::new();
    }
    let scope = m.scope_at(arg.value_node);
    let mut out = Vec::new();
    for param in params {
        for given in defaults::caller_values(m, param) {
            let (runs, value) = defaults::assuming(m, param, given.clone(), || {
                (
                    argparse::branch_runs(m, loader.call, None, 0),
                    m.value_in(arg.value_node, scope, 0),
                )
            });
            if runs == Some(false) || !value.value.is_known() {
                continue;
            }
            let when = [Lang::En, Lang::Zh].map(|lang| {
                let note = given.provenance.note(lang);
                match (lang, note) {
                    (Lang::En, Some(note)) => {
                        format!("when `{}` is {}, {note}", param.name, given.value)
                    }
                    (Lang::En, None) => format!("when `{}` is {}", param.name, given.value),
                    (Lang::Zh, Some(note)) => {
                        format!("`{}` 为 {} 时，{note}", param.name, given.value)
                    }
                    (Lang::Zh, None) => format!("`{}` 为 {} 时", param.name, given.value),
                }
            });
            out.push(CallerPath { value, when });
        }
    }
    out
}
