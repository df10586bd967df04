//! YAML configs read with PyYAML: `yaml.safe_load(f)` (or `load`, `full_load`) of a file
//! opened from a path known before the run, `with open("configs/x.yml") as f:` or
//! `open(args.config)` with `--config` defaulting to one. The mapping is then read like
//! OmegaConf's (`cfg["training"]["n_workers"]`).

use std::sync::Arc;

use tree_sitter::Node;

use super::{Config, hydra};
use crate::python::model::{BindingKind, Module, ScopeId, positional_args};
use crate::python::values::Value;

/// PyYAML's functions that return the document of a stream.
pub(super) const LOADS: &[&str] = &[
    "yaml.load",
    "yaml.safe_load",
    "yaml.full_load",
    "yaml.unsafe_load",
];

/// The config a `yaml.safe_load(stream)` call returns, when the stream is a file opened from a
/// known path.
pub(super) fn load<'a>(m: &Module<'a>, call: Node, scope: ScopeId) -> Option<Config<'a>> {
    let stream = *positional_args(call).first()?;
    let open = opened_by(m, stream, scope)?;
    let path = *positional_args(open).first()?;
    let relative = match m.string_value(path) {
        Some(literal) => literal,
        None => match m.value_in(path, scope, 0).value {
            Value::Str(s) => s,
            _ => return None,
        },
    };
    let (tree, shown) = hydra::load_relative(m, &relative)?;
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown,
    })
}

/// The `open(...)` call a stream comes from: written in place, or the `as` name of a `with`.
fn opened_by<'a>(m: &Module<'a>, stream: Node<'a>, scope: ScopeId) -> Option<Node<'a>> {
    let open = match stream.kind() {
        "call" => stream,
        "identifier" => {
            let [id] = m.lookup(m.text(stream), scope)? else {
                return None;
            };
            let binding = m.bindings().get(*id)?;
            if binding.kind != BindingKind::As {
                return None;
            }
            // `with open(path) as f:` binds `f` at the `as` target; the opened value is the
            // pattern's first child.
            let mut pattern = binding.node;
            while pattern.kind() != "as_pattern" {
                pattern = pattern.parent()?;
                if pattern.kind() == "with_statement" {
                    return None;
                }
            }
            pattern.named_child(0)?
        }
        _ => return None,
    };
    let callee = open.child_by_field_name("function")?;
    (open.kind() == "call" && m.qualified_in(callee, scope, 0).as_deref() == Some("builtins.open"))
        .then_some(open)
}
