//! argparse defaults: `args.num_workers` resolved to the `default=` of
//! `parser.add_argument("--num_workers", ...)` (`--num-workers` -> `num_workers`, `dest=`).
//!
//! Sound only where it can be: `args` must be bound once to `<parser>.parse_args()` of a parser
//! bound once to `argparse.ArgumentParser(...)` (or a group of one); an option defined twice,
//! overridden by `set_defaults`, required, positional, or an `args.x = ...` anywhere makes the
//! value unknown.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::python::model::{BindingId, BindingKind, Module, ScopeId};
use crate::python::values::{Provenance, Resolved, Value};
use crate::text::TextRange;

const MAX_DEPTH: u32 = 8;

/// A namespace's parser and every name the namespace goes by.
type Namespace = Option<(BindingId, Vec<String>)>;

#[derive(Debug, Default)]
pub(crate) struct ArgparseDefaults {
    parsers: HashMap<BindingId, ParserOptions>,
    /// Namespaces already traced, by name and scope (tracing a parameter reads every call of
    /// its function).
    namespaces: RefCell<HashMap<(String, ScopeId), Namespace>>,
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
            let method = call.method;
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

    /// The default of `object.attribute` when `object` is the result of `parse_args()`, or a
    /// parameter that every call in this file fills with such a result.
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
        let key = (name.to_owned(), scope);
        let cached = self.namespaces.borrow().get(&key).cloned();
        let namespace = match cached {
            Some(namespace) => namespace,
            None => {
                let mut names = Vec::new();
                let namespace = namespace_parser(m, name, scope, &mut names, 0)
                    .map(|p| (p, names.iter().map(|n| (*n).to_owned()).collect()));
                self.namespaces.borrow_mut().insert(key, namespace.clone());
                namespace
            }
        };
        let (parser, names) = namespace?;
        let reassigned = m.attribute_assignments().iter().any(|a| {
            a.attribute == attribute && a.object.is_some_and(|o| names.iter().any(|n| n == o))
        });
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

/// The parser whose `parse_args()` result the name `name` holds: bound once to
/// `<parser>.parse_args()`, or a parameter of a function that this file only calls (directly,
/// or through `torch.multiprocessing.spawn(fn, args=(...))`) with such a name in that place.
/// `names` collects every name the namespace goes by, to find `args.x = ...` reassignments.
fn namespace_parser<'n>(
    m: &Module<'n>,
    name: &'n str,
    scope: ScopeId,
    names: &mut Vec<&'n str>,
    depth: u32,
) -> Option<BindingId> {
    if depth > MAX_DEPTH {
        return None;
    }
    names.push(name);
    let binding = m.single_binding(name, scope)?;
    match (&binding.kind, binding.value) {
        (BindingKind::Assign, Some(call)) => {
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
            parser_binding(m, callee.child_by_field_name("object")?, binding.scope, 0)
        }
        (BindingKind::Parameter, _) => parameter_parser(m, binding, names, depth),
        _ => None,
    }
}

/// A parameter's parser: every reference to its function in this file must be a call that
/// passes a parsed namespace of one parser in the parameter's place.
fn parameter_parser<'n>(
    m: &Module<'n>,
    param: &crate::python::model::Binding<'n>,
    names: &mut Vec<&'n str>,
    depth: u32,
) -> Option<BindingId> {
    let function_id = m.scopes().get(param.scope)?.function?;
    let function = m.function(function_id)?;
    let (position, keyword_only) = parameter_position(m, function.node, param.name)?;
    let mut parser = None;
    let mut seen_call = false;
    for reference in m.references(function.name) {
        if Module::range(reference) == function.name_range {
            continue;
        }
        let ref_scope = m.scope_at(reference);
        let resolves_here = m.lookup(function.name, ref_scope).is_some_and(|ids| {
            ids.iter().any(|id| {
                m.bindings()
                    .get(*id)
                    .is_some_and(|b| b.kind == BindingKind::Function(function_id))
            })
        });
        if !resolves_here {
            continue;
        }
        let passed = passed_for(m, reference, position, keyword_only, param.name)?;
        if passed.kind() != "identifier" {
            return None;
        }
        let found = namespace_parser(m, m.text(passed), m.scope_at(passed), names, depth + 1)?;
        if parser.is_some_and(|p| p != found) {
            return None;
        }
        parser = Some(found);
        seen_call = true;
    }
    parser.filter(|_| seen_call)
}

/// The 0-based position of a parameter (`None` position means keyword-only) and whether it is
/// keyword-only.
fn parameter_position(m: &Module, function: Node, name: &str) -> Option<(usize, bool)> {
    let params = function.child_by_field_name("parameters")?;
    let mut cursor = params.walk();
    let mut keyword_only = false;
    for (i, p) in params.named_children(&mut cursor).enumerate() {
        let pname = match p.kind() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            "typed_parameter" => p.named_child(0),
            "list_splat_pattern" | "keyword_separator" => {
                keyword_only = true;
                None
            }
            _ => None,
        };
        if pname.is_some_and(|n| m.text(n) == name) {
            return Some((i, keyword_only));
        }
    }
    None
}

/// The expression a reference to a function passes for one parameter: a direct call
/// `f(a, b, args)`, or `torch.multiprocessing.spawn(f, args=(b, args))`, which calls
/// `f(i, *args)`. `None` when the reference is anything else.
fn passed_for<'n>(
    m: &Module<'n>,
    reference: Node<'n>,
    position: usize,
    keyword_only: bool,
    name: &str,
) -> Option<Node<'n>> {
    let parent = reference.parent()?;
    if parent.kind() == "call" && parent.child_by_field_name("function") == Some(reference) {
        if let Some(value) = m.keyword_arg(parent, name) {
            return Some(value);
        }
        if keyword_only || has_splat(parent) {
            return None;
        }
        return crate::python::model::positional_args(parent)
            .get(position)
            .copied();
    }
    // `spawn(f, ...)`: `f` is the first argument of a call to torch.multiprocessing.spawn.
    let call = parent.parent().filter(|c| c.kind() == "call")?;
    let first = crate::python::model::positional_args(call).first().copied();
    let callee = call.child_by_field_name("function")?;
    if parent.kind() != "argument_list"
        || first != Some(reference)
        || m.qualified_name(callee).as_deref() != Some("torch.multiprocessing.spawn")
        || keyword_only
        || position == 0
    {
        return None;
    }
    let tuple = m.keyword_arg(call, "args")?;
    if tuple.kind() != "tuple" {
        return None;
    }
    let mut cursor = tuple.walk();
    let items: Vec<Node> = tuple
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    if items.iter().any(|n| n.kind() == "list_splat") {
        return None;
    }
    items.get(position - 1).copied()
}

fn has_splat(call: Node) -> bool {
    call.child_by_field_name("arguments").is_some_and(|args| {
        let mut cursor = args.walk();
        args.named_children(&mut cursor)
            .any(|n| matches!(n.kind(), "list_splat" | "dictionary_splat"))
    })
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
