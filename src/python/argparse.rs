//! argparse defaults: `args.num_workers` resolved to the `default=` of
//! `parser.add_argument("--num_workers", ...)` (`--num-workers` -> `num_workers`, `dest=`).
//!
//! Sound only where it can be: `args` must be bound once to `<parser>.parse_args()` of a parser
//! bound once to `argparse.ArgumentParser(...)` (or a group of one); an option defined twice,
//! overridden by `set_defaults`, required, positional, or an `args.x = ...` anywhere makes the
//! value unknown.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::python::model::{BindingId, BindingKind, Module, ScopeId};
use crate::python::values::{Provenance, Resolved, Value};
use crate::text::TextRange;

const MAX_DEPTH: u32 = 8;

#[derive(Debug, Default)]
pub(crate) struct ArgparseDefaults {
    parsers: HashMap<BindingId, ParserOptions>,
}

#[derive(Debug, Default)]
struct ParserOptions {
    /// dest -> every `add_argument` that writes it.
    options: HashMap<String, Vec<OptionDefault>>,
    /// dests given by `set_defaults(...)`.
    overridden: HashSet<String>,
    /// An `add_argument` or `set_defaults` the model cannot read (`**kwargs`, a computed
    /// flag): any dest may be affected.
    opaque: bool,
}

#[derive(Debug)]
struct OptionDefault {
    flag: String,
    line: u32,
    at: TextRange,
    value: Value,
    implicit: bool,
}

impl ArgparseDefaults {
    pub(crate) fn collect(m: &Module) -> Self {
        let mut out = Self::default();
        for call in m.calls() {
            let method = call.method.as_deref();
            if !matches!(method, Some("add_argument" | "set_defaults")) {
                continue;
            }
            let Some(object) = call.callee.child_by_field_name("object") else {
                continue;
            };
            let Some(parser) = parser_binding(m, object, call.scope, 0) else {
                continue;
            };
            let options = out.parsers.entry(parser).or_default();
            if method == Some("set_defaults") {
                read_set_defaults(m, call.node, options);
            } else {
                read_add_argument(m, call.node, call.scope, options);
            }
        }
        out
    }

    /// The default of `object.attribute` when `object` is the result of `parse_args()`.
    pub(crate) fn value(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
    ) -> Option<Resolved> {
        if object.kind() != "identifier" {
            return None;
        }
        let name = m.text(object);
        let binding = m.single_binding(name, scope)?;
        let (BindingKind::Assign, Some(call)) = (&binding.kind, binding.value) else {
            return None;
        };
        let callee = call.child_by_field_name("function")?;
        if call.kind() != "call"
            || callee.kind() != "attribute"
            || callee.child_by_field_name("attribute").map(|a| m.text(a)) != Some("parse_args")
        {
            return None;
        }
        // `parse_args(["--num_workers", "2"])` parses a given list: not the defaults.
        let passes_argv = call
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() > 0);
        if passes_argv {
            return None;
        }
        let parser = parser_binding(m, callee.child_by_field_name("object")?, binding.scope, 0)?;
        let reassigned = m
            .attribute_assignments()
            .iter()
            .any(|a| a.object.as_deref() == Some(name) && a.attribute == attribute);
        if reassigned {
            return None;
        }
        let options = self.parsers.get(&parser)?;
        if options.opaque || options.overridden.contains(attribute) {
            return None;
        }
        match options.options.get(attribute)?.as_slice() {
            [only] if only.value.is_known() => Some(Resolved {
                value: only.value.clone(),
                provenance: Provenance::ArgparseDefault {
                    flag: only.flag.clone(),
                    line: only.line,
                    at: only.at,
                    implicit: only.implicit,
                },
            }),
            _ => None,
        }
    }
}

/// The binding of a parser: a name bound once to `argparse.ArgumentParser(...)`, or to an
/// argument group of such a parser (groups write into their parser's namespace).
fn parser_binding(m: &Module, expr: Node, scope: ScopeId, depth: u32) -> Option<BindingId> {
    if depth > MAX_DEPTH || expr.kind() != "identifier" {
        return None;
    }
    let id = match m.lookup(m.text(expr), scope)? {
        [id] => *id,
        _ => return None,
    };
    let binding = m.bindings().get(id)?;
    let (BindingKind::Assign, Some(call)) = (&binding.kind, binding.value) else {
        return None;
    };
    if call.kind() != "call" {
        return None;
    }
    let callee = call.child_by_field_name("function")?;
    if m.qualified_in(callee, binding.scope, 0).as_deref() == Some("argparse.ArgumentParser") {
        return Some(id);
    }
    let method = callee.child_by_field_name("attribute").map(|a| m.text(a));
    if callee.kind() == "attribute"
        && matches!(
            method,
            Some("add_argument_group" | "add_mutually_exclusive_group")
        )
    {
        return parser_binding(
            m,
            callee.child_by_field_name("object")?,
            binding.scope,
            depth + 1,
        );
    }
    None
}

fn read_set_defaults(m: &Module, call: Node, options: &mut ParserOptions) {
    let Some(args) = call.child_by_field_name("arguments") else {
        options.opaque = true;
        return;
    };
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                if let Some(name) = arg.child_by_field_name("name") {
                    options.overridden.insert(m.text(name).to_owned());
                }
            }
            "comment" => {}
            _ => options.opaque = true,
        }
    }
}

fn read_add_argument(m: &Module, call: Node, scope: ScopeId, options: &mut ParserOptions) {
    let Some(args) = call.child_by_field_name("arguments") else {
        options.opaque = true;
        return;
    };
    let mut flags: Vec<String> = Vec::new();
    let mut dest = None;
    let mut default = None;
    let mut action = None;
    let mut ty = None;
    let mut required = false;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let (Some(name), Some(value)) = (
                    arg.child_by_field_name("name"),
                    arg.child_by_field_name("value"),
                ) else {
                    continue;
                };
                match m.text(name) {
                    "dest" => dest = Some(m.string_value(value)),
                    "default" => default = Some(value),
                    "action" => action = Some(m.string_value(value)),
                    "type" => ty = Some(m.text(value)),
                    "required" => {
                        required = m.value_in(value, scope, 1).value.truthy() != Some(false)
                    }
                    _ => {}
                }
            }
            "comment" => {}
            _ => match m.string_value(arg) {
                Some(flag) => flags.push(flag),
                None => {
                    options.opaque = true;
                    return;
                }
            },
        }
    }
    let Some(first) = flags.first() else {
        options.opaque = true;
        return;
    };
    let long = flags.iter().find(|f| f.starts_with("--"));
    let positional = !first.starts_with('-');
    let dest = match dest {
        Some(Some(d)) => d,
        Some(None) => {
            options.opaque = true;
            return;
        }
        None => long
            .unwrap_or(first)
            .trim_start_matches('-')
            .replace('-', "_"),
    };
    let (value, implicit) = if positional || required {
        (Value::Unknown, false)
    } else if let Some(default) = default {
        let value = m.value_in(default, scope, 1).value;
        // argparse runs `type` over string defaults.
        let value = match (&value, ty) {
            (Value::Str(s), Some("int")) => {
                s.trim().parse().map(Value::Int).unwrap_or(Value::Unknown)
            }
            (Value::Str(s), Some("float")) => {
                s.trim().parse().map(Value::Float).unwrap_or(Value::Unknown)
            }
            (Value::Str(_), Some(t)) if t != "str" => Value::Unknown,
            _ => value,
        };
        (value, false)
    } else {
        let value = match action {
            None => Value::None,
            Some(Some(a)) if a == "store_true" => Value::Bool(false),
            Some(Some(a)) if a == "store_false" => Value::Bool(true),
            Some(Some(a)) if matches!(a.as_str(), "store" | "count" | "append" | "extend") => {
                Value::None
            }
            _ => Value::Unknown,
        };
        (value, true)
    };
    options
        .options
        .entry(dest)
        .or_default()
        .push(OptionDefault {
            flag: long.unwrap_or(first).clone(),
            line: m.line(call.start_byte()),
            at: Module::range(call),
            value,
            implicit,
        });
}
