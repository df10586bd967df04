//! YAML configs read with PyYAML: `yaml.safe_load(f)` (or `load`, `full_load`, or a JSON
//! file's `json.load(f)`, JSON being YAML) of a file
//! opened from a path known before the run, `with open("configs/x.yml") as f:` or
//! `open(args.config)` with `--config` defaulting to one. The mapping is then read like
//! OmegaConf's (`cfg["training"]["n_workers"]`).

use std::collections::HashSet;
use std::sync::Arc;

use tree_sitter::Node;

use super::{Config, Named, converters, hydra, shipped, yaml};
use crate::python::argparse::{self, parameter_position};
use crate::python::model::{BindingKind, FunctionId, Module, ScopeId, positional_args};
use crate::python::syntax;
use crate::python::values::{ConfigGap, Resolved, Value};

/// PyYAML's functions that return the document of a stream.
pub(super) const LOADS: &[&str] = &[
    // JSON is YAML: a JSON config reads the same way.
    "json.load",
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
    if let Some((tree, shown, named)) = run_named(m, path, scope) {
        return Some(Config::Yaml {
            tree: Arc::new(tree),
            path: Vec::new(),
            shown,
            named: Some(named),
        });
    }
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
        named: None,
    })
}

/// The `open(...)` call a stream comes from: written in place, or the `as` name of a `with`.
pub(super) fn opened_by<'a>(m: &Module<'a>, stream: Node<'a>, scope: ScopeId) -> Option<Node<'a>> {
    let open = match stream.kind() {
        // The file's text, `f.read()` (`yaml.load(file.read(), Loader=...)`).
        "call" if let Some(file) = read_of(m, stream) => return opened_by(m, file, scope),
        "call" => stream,
        // Read inside `with open(path) as f:` (several `with` blocks may name their file `f`).
        "identifier" if let Some(open) = enclosing_with(m, stream) => open,
        "identifier" => {
            let [id] = m.lookup(m.text(stream), scope)? else {
                return None;
            };
            let binding = m.bindings().get(*id)?;
            // `file = open(path, 'r')` or `text = f.read()`, bound once.
            if binding.kind == BindingKind::Assign
                && let Some(value) = binding.value.filter(|v| v.kind() == "call")
            {
                return opened_by(m, value, scope);
            }
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

/// The file `call` reads whole: `f` of `f.read()`.
fn read_of<'a>(m: &Module<'a>, call: Node<'a>) -> Option<Node<'a>> {
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "attribute"
        || m.text(callee.child_by_field_name("attribute")?) != "read"
        || call.child_by_field_name("arguments")?.named_child_count() != 0
    {
        return None;
    }
    callee.child_by_field_name("object")
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

/// Calls that give the mapping they are handed back with attribute access, holding what it
/// holds (`EasyDict(yaml.safe_load(f))`), or a copy of it.
pub(super) const WRAPPERS: &[&str] = &[
    "addict.Dict",
    "attrdict.AttrDict",
    "box.Box",
    "copy.copy",
    "copy.deepcopy",
    "dotmap.DotMap",
    "easydict.EasyDict",
    "ml_collections.ConfigDict",
    "munch.DefaultMunch.fromDict",
    "munch.Munch.fromDict",
    "munch.munchify",
    "omegaconf.OmegaConf.create",
];

/// A function of the project that returns the YAML document of a file opened from one of its
/// parameters (`def get_config(path): with open(path) as f: cfg = yaml.safe_load(f); return
/// EasyDict(cfg)`): its callers' config is the file they name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct YamlLoader {
    /// The parameter's position among a call's arguments, and its name.
    pub position: usize,
    pub param: String,
    /// The keys the function writes on what it loaded, at any depth (`config.name = ...`).
    pub written: Vec<String>,
}

/// How many names and wrappers are followed back from a `return` to the load.
const MAX_LOAD_STEPS: u32 = 8;

/// What the module-level function `function` loads, when each of its `return`s gives the
/// YAML document of a file opened from the same parameter, bare or wrapped (see
/// [`WRAPPERS`]). `None` when it also merges anything into it (`update`, `setattr`).
pub(crate) fn returned_load(m: &Module, function: FunctionId) -> Option<YamlLoader> {
    let def = m.function(function)?;
    if def.class.is_some() {
        return None;
    }
    let body = def.body?;
    let text = m.text(body);
    if ["update(", "setattr(", "merge", "__dict__"]
        .iter()
        .any(|w| text.contains(w))
    {
        return None;
    }
    let mut found: Option<&str> = None;
    for ret in syntax::return_statements(body) {
        let param = loaded_parameter(m, ret.named_child(0)?, def.scope, 0)?;
        if found.is_some_and(|f| f != param) {
            return None;
        }
        found = Some(param);
    }
    let param = found?;
    let (position, keyword_only) = parameter_position(m, def.node, param)?;
    if keyword_only {
        return None;
    }
    let mut written: Vec<String> = m
        .attribute_assignments()
        .iter()
        .filter(|w| w.function == Some(function))
        .map(|w| w.attribute.to_owned())
        .collect();
    syntax::walk_all(body, &mut |n| {
        if n.kind() == "subscript"
            && n.parent().is_some_and(|p| {
                matches!(p.kind(), "assignment" | "augmented_assignment")
                    && p.child_by_field_name("left") == Some(n)
            })
            && let Some(key) = n
                .child_by_field_name("subscript")
                .and_then(|s| m.string_value(s))
        {
            written.push(key);
        }
    });
    written.sort_unstable();
    written.dedup();
    Some(YamlLoader {
        position,
        param: param.to_owned(),
        written,
    })
}

/// The parameter whose file `expr` holds the YAML document of: `yaml.safe_load(f)` of `with
/// open(path) as f:` (or `open(path)` in place), through names bound to it (the one binding a
/// read sees, or all of them when each gives the same) and wrappers.
fn loaded_parameter<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
    scope: ScopeId,
    steps: u32,
) -> Option<&'a str> {
    if steps > MAX_LOAD_STEPS {
        return None;
    }
    match expr.kind() {
        "parenthesized_expression" => loaded_parameter(m, expr.named_child(0)?, scope, steps + 1),
        "identifier" => {
            let ids = m.lookup(m.text(expr), scope)?;
            let seen: Vec<usize> = match m.reaching_binding(ids, expr, scope) {
                Some(id) => vec![id],
                None => ids.to_vec(),
            };
            let mut found = None;
            for id in seen {
                let binding = m.bindings().get(id)?;
                let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                    return None;
                };
                let param = loaded_parameter(m, value, binding.scope, steps + 1)?;
                if found.is_some_and(|f| f != param) {
                    return None;
                }
                found = Some(param);
            }
            found
        }
        "call" => {
            if let Some(original) = converters::converted(m, expr, scope) {
                return loaded_parameter(m, original, scope, steps + 1);
            }
            let callee = expr.child_by_field_name("function")?;
            let qualified = m.qualified_in(callee, scope, 0)?;
            let first = *positional_args(expr).first()?;
            if WRAPPERS.contains(&qualified.as_str()) {
                return loaded_parameter(m, first, scope, steps + 1);
            }
            if !LOADS.contains(&qualified.as_str()) {
                return None;
            }
            let open = opened_by(m, first, scope)?;
            let path = positional_args(open)
                .first()
                .copied()
                .filter(|p| p.kind() == "identifier")?;
            let binding = m.single_binding(m.text(path), scope)?;
            (binding.kind == BindingKind::Parameter).then_some(binding.name)
        }
        _ => None,
    }
}

/// The config a call of a project function that loads a YAML file from its parameter returns
/// (see [`returned_load`]): the file the call names, as the calling script's run opens it
/// (relative to its folder or one above), the keys the function writes left unknown.
pub(super) fn helper_load<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Config<'a>> {
    let callee = call.child_by_field_name("function")?;
    let local = match callee.kind() {
        "identifier" => m.lookup(m.text(callee), scope).map(|ids| match ids {
            [id] => m.bindings().get(*id).map(|b| &b.kind),
            _ => None,
        }),
        "attribute" => None,
        _ => return None,
    };
    let (loader, helper_file) = match local {
        Some(Some(BindingKind::Function(id))) => (returned_load(m, *id)?, None),
        // Imported, also through a star import, or a module's attribute.
        None | Some(Some(BindingKind::Import { .. })) => {
            let qualified = m.qualified_in(callee, scope, depth + 1)?;
            let (loader, file) = m.index.yaml_loader(m.path, &qualified)?;
            (loader, Some(file))
        }
        Some(_) => return None,
    };
    let argument = m
        .keyword_arg(call, &loader.param)
        .or_else(|| positional_args(call).get(loader.position).copied())?;
    let named = run_named(m, argument, scope);
    let (mut tree, shown, named) = match named {
        Some((tree, shown, named)) => (tree, shown, Some(named)),
        None => {
            let relative = match m.string_value(argument) {
                Some(literal) => literal,
                None => match m.value_in(argument, scope, depth + 1).value {
                    Value::Str(s) => s,
                    _ => return None,
                },
            };
            let (tree, shown) = hydra::load_relative(m, &relative)?;
            (tree, shown, None)
        }
    };
    if !loader.written.is_empty() {
        let writer = match &helper_file {
            Some(file) => hydra::shown(m.path.parent()?, file),
            None => m.path.file_name()?.to_string_lossy().into_owned(),
        };
        super::forget_where(
            &mut tree,
            &|key| loader.written.iter().any(|w| w == key),
            &writer,
        );
    }
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown,
        named,
    })
}

/// The config file a run must name for `expr` (`open(args.cfg)` with `--cfg` required or
/// defaulting to `None`), as the commands of the project's shell scripts and READMEs name it
/// (`python main.py --cfg ./config/ImageNet_LT/feat_uniform.yaml`): its tree, how it is
/// shown, and the commands. When they name several files, the tree is what every one of them
/// agrees on. A file the project does not have (`--cfg /path/to/config.yaml`) is the user's
/// own, not one of the project's runs, and is passed over.
fn run_named(m: &Module, expr: Node, scope: ScopeId) -> Option<(yaml::Node, String, Arc<Named>)> {
    if expr.kind() != "attribute" {
        return None;
    }
    let object = expr.child_by_field_name("object")?;
    let attribute = m.text(expr.child_by_field_name("attribute")?);
    let mut files = Vec::new();
    for run in argparse::runs_given(m, object, attribute, scope)? {
        let (tree, shown) = hydra::load_relative(m, &run.text)?;
        if !matches!(tree, yaml::Node::Gap(ConfigGap::NoFile { .. })) {
            files.push((tree, shown, run));
        }
    }
    Named::agreed(files)
}
