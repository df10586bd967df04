//! asteroid's recipes turn a YAML file into options and back into a dict:
//! `parser = prepare_parser_from_dict(def_conf, parser=parser)` adds an option per
//! second-level key with the file's value as its default (one argument group per top-level
//! key), and `parse_args_as_dict(parser)` returns the parsed options grouped the same way
//! (asteroid/utils/parser_utils.py at 92c8d83). Without command-line options the dict is
//! the file's own mapping, so `conf["training"]["num_workers"]` reads the file.

use tree_sitter::Node;

use super::{Config, config_of};
use crate::python::model::{BindingKind, Module, ScopeId, positional_args};

const PARSE: &[&str] = &[
    "asteroid.utils.parse_args_as_dict",
    "asteroid.utils.parser_utils.parse_args_as_dict",
];
const PREPARE: &[&str] = &[
    "asteroid.utils.prepare_parser_from_dict",
    "asteroid.utils.parser_utils.prepare_parser_from_dict",
];

/// Whether `qualified` is `parse_args_as_dict`.
pub(super) fn parses(qualified: &str) -> bool {
    PARSE.contains(&qualified)
}

/// The config `parse_args_as_dict(parser, ...)` returns (`part` 0 of the pair it returns
/// with `return_plain_args=True`, `None` for the call's own value): the mapping the parser was prepared from, when the name
/// `parser` last bound before the call, unconditionally relative to it, is a
/// `prepare_parser_from_dict(mapping, ...)`.
pub(super) fn parsed<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    part: Option<usize>,
    scope: ScopeId,
    depth: u32,
) -> Option<Config<'a>> {
    let pair = m
        .keyword_arg(call, "return_plain_args")
        .is_some_and(|v| m.text(v) == "True");
    let dict = match part {
        Some(index) => pair && index == 0,
        None => !pair,
    };
    if !dict {
        return None;
    }
    let parser = positional_args(call)
        .first()
        .copied()
        .or_else(|| m.keyword_arg(call, "parser"))?;
    if parser.kind() != "identifier" {
        return None;
    }
    let binding = m
        .lookup(m.text(parser), scope)?
        .iter()
        .filter_map(|id| m.bindings().get(*id))
        .filter(|b| b.node.start_byte() < call.start_byte())
        .max_by_key(|b| b.node.start_byte())?;
    let prepared = binding.value.filter(|v| v.kind() == "call")?;
    if binding.kind != BindingKind::Assign || m.is_conditional_relative_to(binding.node, call) {
        return None;
    }
    let callee = prepared.child_by_field_name("function")?;
    let qualified = m.qualified_in(callee, binding.scope, depth + 1)?;
    if !PREPARE.contains(&qualified.as_str()) {
        return None;
    }
    let mapping = positional_args(prepared)
        .first()
        .copied()
        .or_else(|| m.keyword_arg(prepared, "dic"))?;
    match config_of(m, mapping, binding.scope, depth + 1)? {
        config @ Config::Yaml { .. } => Some(config),
        _ => None,
    }
}
