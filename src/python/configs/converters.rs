//! Project functions that copy a mapping key by key into one read by attribute:
//!
//! ```python
//! def create_edict(pack):
//!     d = edict()
//!     for key, value in pack.items():
//!         d[key] = create_edict(value) if isinstance(value, dict) else value
//!     return d
//! ```
//!
//! (`dict2namespace`, `setattr(namespace, key, value)` into an `argparse.Namespace()`, is the
//! same.) A call of one holds what its argument holds: every key is copied, none is added.

use tree_sitter::Node;

use super::items_loop;
use super::pyyaml::WRAPPERS;
use crate::python::model::{BindingKind, FunctionId, Module, ScopeId, positional_args};
use crate::python::syntax;

/// What a fresh copy may start as, besides the attribute dicts of [`WRAPPERS`].
const EMPTY: &[&str] = &["argparse.Namespace", "types.SimpleNamespace", "dict"];

/// The argument of `call` when its callee is a function of this module that copies a mapping
/// (see the module's doc).
pub(super) fn converted<'a>(m: &Module<'a>, call: Node<'a>, scope: ScopeId) -> Option<Node<'a>> {
    let function = local_function(m, call, scope)?;
    let arguments = positional_args(call);
    let [argument] = arguments.as_slice() else {
        return None;
    };
    copies_its_argument(m, function).then_some(*argument)
}

/// The argument of `call` when its callee is a function of this module that returns that
/// argument as given (`config = update(config, args)`): the same config, the keys the function
/// writes caught, as every write of the file is, where a value is read.
pub(super) fn passed_through<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    scope: ScopeId,
) -> Option<Node<'a>> {
    let function = local_function(m, call, scope)?;
    let position = crate::python::argparse::returned_argument(m, function)?;
    positional_args(call).get(position).copied()
}

/// The function of this module `call` calls by its one name.
fn local_function(m: &Module, call: Node, scope: ScopeId) -> Option<FunctionId> {
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "identifier" {
        return None;
    }
    let [id] = m.lookup(m.text(callee), scope)? else {
        return None;
    };
    match m.bindings().get(*id)?.kind {
        BindingKind::Function(function) => Some(function),
        _ => None,
    }
}

/// Whether `function(p)` returns a fresh object (`d = edict()`) that a `for k, v in
/// p.items():` loop fills with `d[k] = ...` or `setattr(d, k, ...)`, and nothing else writes.
fn copies_its_argument(m: &Module, function: FunctionId) -> bool {
    let Some(def) = m.function(function) else {
        return false;
    };
    let (Some(body), Some(parameters)) = (def.body, def.node.child_by_field_name("parameters"))
    else {
        return false;
    };
    let mut cursor = parameters.walk();
    let names: Vec<Node> = parameters.named_children(&mut cursor).collect();
    let [param] = names.as_slice() else {
        return false;
    };
    if param.kind() != "identifier" {
        return false;
    }
    let param = m.text(*param);
    // Every `return` gives the same name.
    let mut copy: Option<&str> = None;
    for ret in syntax::return_statements(body) {
        match ret.named_child(0) {
            Some(value) if value.kind() == "identifier" => {
                let name = m.text(value);
                if copy.is_some_and(|c| c != name) {
                    return false;
                }
                copy = Some(name);
            }
            _ => return false,
        }
    }
    let Some(copy) = copy else {
        return false;
    };
    // Bound once, to an empty attribute dict, namespace or dict.
    let Some(binding) = m.single_binding(copy, def.scope) else {
        return false;
    };
    let Some(value) = binding
        .value
        .filter(|_| binding.kind == BindingKind::Assign)
    else {
        return false;
    };
    let fresh = match value.kind() {
        "dictionary" => value.named_child_count() == 0,
        "call" => {
            positional_args(value).is_empty()
                && value
                    .child_by_field_name("function")
                    .and_then(|f| m.qualified_in(f, def.scope, 0))
                    .is_some_and(|q| WRAPPERS.contains(&q.as_str()) || EMPTY.contains(&q.as_str()))
        }
        _ => false,
    };
    if !fresh {
        return false;
    }
    // The loop over the argument's items, and its key's name.
    let mut key: Option<&str> = None;
    let mut writes_ok = true;
    syntax::walk_all(body, &mut |n| match n.kind() {
        "for_statement" => {
            if let Some(items) = items_loop(m, n).filter(|l| m.text(l.mapping) == param) {
                key = Some(m.text(items.key));
            }
        }
        // `d[k] = ...`, `d.x = ...`: only the loop's key may be written.
        "assignment" | "augmented_assignment" => {
            let Some(left) = n.child_by_field_name("left") else {
                return;
            };
            let (object, written) = match left.kind() {
                "subscript" => (
                    left.child_by_field_name("value"),
                    left.child_by_field_name("subscript"),
                ),
                "attribute" => (left.child_by_field_name("object"), None),
                _ => return,
            };
            if object.is_some_and(|o| m.text(o) == copy) {
                writes_ok &= written.is_some_and(|w| Some(m.text(w)) == key);
            }
        }
        "call" => {
            let Some(f) = n.child_by_field_name("function") else {
                return;
            };
            let name = m.text(f);
            let args = positional_args(n);
            if name == "setattr" {
                if args.first().is_some_and(|o| m.text(*o) == copy) {
                    writes_ok &= args.get(1).is_some_and(|w| Some(m.text(*w)) == key);
                }
            } else if f.kind() == "attribute"
                && f.child_by_field_name("object")
                    .is_some_and(|o| m.text(o) == copy)
            {
                // `d.update(...)`, `d.setdefault(...)`: more than a copy.
                writes_ok = false;
            }
        }
        _ => {}
    });
    key.is_some() && writes_ok
}
