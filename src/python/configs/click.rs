//! click options: `@click.option("--num-workers", default=16)` on a command gives its
//! parameter `num_workers` that default, what a run without the option gets.

use tree_sitter::Node;

use super::placed;
use crate::python::model::{Binding, BindingKind, FunctionDef, Module, positional_args};
use crate::python::values::{Provenance, Resolved, Value};

/// The calls a function is decorated with (`@click.option(...)`, `@cli.command()`).
fn decorator_calls<'a>(function: &FunctionDef<'a>) -> Vec<Node<'a>> {
    let Some(decorated) = function
        .node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return Vec::new();
    };
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .filter(|e| e.kind() == "call")
        .collect()
}

/// Whether `function` is a click command: `@click.command()`, `@click.group()`, or a group's
/// `@cli.command()`. click runs it from the command line, with its options' defaults.
pub(crate) fn is_command(m: &Module, function: &FunctionDef) -> bool {
    decorator_calls(function).iter().any(|d| {
        let callee = d.child_by_field_name("function");
        matches!(
            callee
                .and_then(|f| m.qualified_in(f, function.parent_scope, 0))
                .as_deref(),
            Some("click.command" | "click.group")
        ) || callee
            .and_then(|f| f.child_by_field_name("attribute"))
            .is_some_and(|a| m.text(a) == "command")
    })
}

/// The default of the click option a command's parameter receives.
pub(crate) fn parameter_value(m: &Module, param: &Binding, depth: u32) -> Option<Resolved> {
    if param.kind != BindingKind::Parameter {
        return None;
    }
    let function = m.function(m.scopes().get(param.scope)?.function?)?;
    let decorators = decorator_calls(function);
    let callee = |call: Node| {
        call.child_by_field_name("function")
            .and_then(|f| m.qualified_in(f, function.parent_scope, depth + 1))
    };
    if !is_command(m, function) {
        return None;
    }
    let mut options = decorators.iter().filter(|d| {
        callee(**d).as_deref() == Some("click.option")
            && option_name(m, **d).as_deref() == Some(param.name)
    });
    let option = *options.next()?;
    if options.next().is_some()
        || ["multiple", "required", "prompt", "envvar", "count"]
            .iter()
            .any(|k| m.keyword_arg(option, k).is_some())
    {
        return None;
    }
    // The option as users type it: the long spelling when there is one.
    let spellings: Vec<String> = positional_args(option)
        .iter()
        .filter_map(|a| m.string_value(*a))
        .filter(|s| s.starts_with('-'))
        .collect();
    let flag = spellings
        .iter()
        .find(|s| s.starts_with("--"))
        .or_else(|| spellings.first())
        .cloned()
        .unwrap_or_else(|| param.name.to_owned());
    let provenance = |at: Node| Provenance::FlagDefault {
        flag: flag.clone(),
        line: m.line(at.start_byte()),
        at: Module::range(at),
    };
    match m.keyword_arg(option, "default") {
        Some(default) => {
            let inner = m.value_in(default, function.parent_scope, depth + 1);
            inner
                .value
                .is_known()
                .then(|| placed(inner, provenance(default)))
        }
        // click's own default: `False` for a flag, else `None`.
        None => {
            let flag_option = m
                .keyword_arg(option, "is_flag")
                .is_some_and(|v| m.text(v) == "True")
                || positional_args(option)
                    .iter()
                    .filter_map(|a| m.string_value(*a))
                    .any(|s| s.contains('/'));
            let value = if flag_option {
                Value::Bool(false)
            } else {
                Value::None
            };
            Some(Resolved {
                value,
                provenance: provenance(option),
            })
        }
    }
}

/// The parameter name click gives an option: a declaration without dashes, else the first
/// long (`--`) option, else the first short one, dashes made underscores and lowercased.
fn option_name(m: &Module, option: Node) -> Option<String> {
    let declarations: Vec<String> = positional_args(option)
        .iter()
        .filter_map(|a| m.string_value(*a))
        .flat_map(|s| {
            // `--shout/--no-shout`: the first half names it.
            s.split('/').next().map(str::trim).map(str::to_owned)
        })
        .collect();
    if let Some(plain) = declarations
        .iter()
        .find(|d| !d.starts_with('-') && !d.is_empty())
    {
        return Some(plain.clone());
    }
    let long = declarations.iter().find(|d| d.starts_with("--"));
    let chosen = long.or_else(|| declarations.iter().find(|d| d.starts_with('-')))?;
    Some(
        chosen
            .trim_start_matches('-')
            .replace('-', "_")
            .to_lowercase(),
    )
}
