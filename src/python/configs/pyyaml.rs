//! YAML configs read with PyYAML: `yaml.safe_load(f)` (or `load`, `full_load`) of a file
//! opened from a path known before the run, `with open("configs/x.yml") as f:` or
//! `open(args.config)` with `--config` defaulting to one. The mapping is then read like
//! OmegaConf's (`cfg["training"]["n_workers"]`).

use std::collections::HashSet;
use std::sync::Arc;

use tree_sitter::Node;

use super::{Config, hydra, shipped, yaml};
use crate::python::model::{BindingKind, Module, ScopeId, positional_args};
use crate::python::values::{Resolved, Value};

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
            // A file beside the script (`os.path.splitext(os.path.abspath(__file__))[0] +
            // '.yaml'`).
            _ => {
                let file = hydra::from_file(m, path, 0)?;
                let here = m.path.parent()?;
                hydra::shown(here, &file)
            }
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
        // Read inside `with open(path) as f:` (several `with` blocks may name their file `f`).
        "identifier" if let Some(open) = enclosing_with(m, stream) => open,
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

/// The value of the `with` item around `name` (a read) that binds it: `open(path)` of `with
/// open(path) as f:`.
fn enclosing_with<'a>(m: &Module<'a>, name: Node<'a>) -> Option<Node<'a>> {
    let text = m.text(name);
    let mut node = name;
    while let Some(parent) = node.parent() {
        if matches!(parent.kind(), "function_definition" | "class_definition") {
            return None;
        }
        if parent.kind() == "with_statement" {
            let clause = parent
                .named_children(&mut parent.walk())
                .find(|c| c.kind() == "with_clause")?;
            let mut cursor = clause.walk();
            for item in clause.named_children(&mut cursor) {
                let Some(pattern) = item.named_child(0).filter(|p| p.kind() == "as_pattern") else {
                    continue;
                };
                let alias = pattern.child_by_field_name("alias");
                if alias.is_some_and(|a| m.text(a) == text) {
                    return pattern.named_child(0);
                }
            }
        }
        node = parent;
    }
    None
}

/// Where the YAML file unpacked into `parser.set_defaults(**loaded)` is named: `loaded =
/// yaml.load(f)` of `with open(PATH) as f:`, PATH a literal or an attribute of a parsed
/// namespace (`p.config`, read by the caller against its own parser).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SplatFile<'a> {
    Literal(String),
    Attribute {
        /// The namespace (`p`).
        object: Node<'a>,
        /// The option read (`config`).
        dest: String,
    },
}

/// The file `splat` (the `**loaded` of a `set_defaults` call in `scope`) unpacks, when the
/// name is bound once, to a PyYAML load of an opened file.
pub(crate) fn splat_file<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    scope: ScopeId,
) -> Option<SplatFile<'a>> {
    let name = splat.named_child(0).filter(|n| n.kind() == "identifier")?;
    let binding = m.single_binding(m.text(name), scope)?;
    let load = binding.value.filter(|v| v.kind() == "call")?;
    let callee = load.child_by_field_name("function")?;
    if binding.kind != BindingKind::Assign
        || !m
            .qualified_in(callee, binding.scope, 0)
            .is_some_and(|q| LOADS.contains(&q.as_str()))
    {
        return None;
    }
    let open = opened_by(m, *positional_args(load).first()?, binding.scope)?;
    let path = *positional_args(open).first()?;
    if let Some(literal) = m.string_value(path) {
        return Some(SplatFile::Literal(literal));
    }
    let object = path
        .child_by_field_name("object")
        .filter(|o| path.kind() == "attribute" && o.kind() == "identifier")?;
    Some(SplatFile::Attribute {
        object,
        dest: m.text(path.child_by_field_name("attribute")?).to_owned(),
    })
}

/// The defaults a YAML file unpacked into a parser's `set_defaults` gives, key by key: those
/// of the file at `path` when it exists; else (a file named only at run time, or missing) those
/// every config file the project ships for the parser agrees on, a file fitting when each of
/// its top-level keys is one of the parser's `dests` (ST-GCN's scripts assert so). A key the
/// files disagree on is unknown; a key no file sets keeps the option's default. `None` when no
/// file is found.
pub(crate) fn parser_defaults(
    m: &Module,
    path: Option<&str>,
    dests: &HashSet<String>,
) -> Option<Vec<(String, Value)>> {
    let known = |value: Option<Resolved>| {
        value
            .map(|r| r.value)
            .filter(Value::is_known)
            .unwrap_or(Value::Unknown)
    };
    if let Some(path) = path
        && let Some((tree, shown)) = hydra::load_relative(m, path)
        && let yaml::Node::Map(entries) = &tree
    {
        let keys = entries.iter().map(|(key, _)| key.clone());
        return Some(
            keys.map(|key| {
                let value = known(hydra::value_at(
                    m,
                    &tree,
                    std::slice::from_ref(&key),
                    &shown,
                ));
                (key, value)
            })
            .collect(),
        );
    }
    let files: Vec<yaml::Node> = shipped::fitting(m, m.path.parent()?, |key| dests.contains(key))
        .into_iter()
        .map(yaml::Node::Map)
        .collect();
    if files.is_empty() {
        return None;
    }
    let mut keys: Vec<String> = Vec::new();
    for tree in &files {
        if let yaml::Node::Map(top) = tree {
            for (key, _) in top {
                if !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        }
    }
    let shown = "";
    Some(
        keys.into_iter()
            .map(|key| {
                let path = std::slice::from_ref(&key);
                let mut values = files.iter().map(|tree| match tree.get(&key) {
                    Some(_) => known(hydra::value_at(m, tree, path, shown)),
                    None => Value::Unknown,
                });
                let first = values.next().unwrap_or(Value::Unknown);
                let agreed = match values.all(|v| v == first) {
                    true => first,
                    false => Value::Unknown,
                };
                (key, agreed)
            })
            .collect(),
    )
}
