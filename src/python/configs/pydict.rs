//! Python dicts used as configuration: a dict literal (or `dict(k=v)`) bound to a name,
//! nested as deep as it goes, read as `cfg['loader']['num_workers']` or unpacked
//! (`DataLoader(ds, **cfgs.dataset_cfgs['dataloader_train'])`), in its own file or in another
//! that imports it (`import cfgs.cfgs_LF_1 as cfgs`, `from config import loader_cfg`).
//!
//! Literals are values; anything else is computed when the code runs. A key the defining file
//! writes (`cfg['loader']['num_workers'] = 4`, see [`super::written_in_file`]) is unknown, and
//! the whole dict is when that file changes it by a method (`cfg.update(...)`, `setdefault`,
//! `pop`); the file that reads it checks its own writes as it does for any config.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

use tree_sitter::Node;

use super::yaml::{self, Leaf};
use super::{Config, MAX_CALLS, hydra, pyyaml, written_in_file, yacs};
use crate::python::argparse::{self, branch_runs, mapping_writes};
use crate::python::defaults::{FunctionParameter, Passed};
use crate::python::model::{
    BindingKind, FunctionId, MODULE_SCOPE, Module, ScopeId, positional_args,
};
use crate::python::syntax;
use crate::python::values::{ConfigGap, Provenance, Resolved, Value};

/// Methods of a dict that change its entries.
const MUTATORS: &[&str] = &[".update(", ".setdefault(", ".pop(", ".popitem(", ".clear("];

/// How many levels of nested dicts are read.
const MAX_NESTING: u32 = 16;

/// The trees of module-level dicts of other files, by file and name, with the file's hash.
static DICTS: LazyLock<yacs::Cache<String, Option<Arc<yaml::Node>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The config a dict literal `value`, bound to `name` in `m`, holds.
pub(super) fn literal<'a>(m: &Module, value: Node, name: &str) -> Option<Config<'a>> {
    let tree = tree(m, value, name)?;
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown: shown(m, m.path),
        named: None,
    })
}

/// The config the module-level dict an imported name (`config.loader_cfg`) holds, when it is
/// one of another project file; `local` is how this file names it (`loader_cfg`, or
/// `dataset_cfgs` of `cfgs.dataset_cfgs`).
pub(super) fn imported<'a>(m: &Module, qualified: &str, local: &str) -> Option<Config<'a>> {
    let found = m.index.binding(m.path, qualified)?;
    if found.file == m.path {
        return None;
    }
    let name = found.name.as_str();
    let read = |source: &str| {
        if !source.contains('{') && !source.contains("dict(") {
            return None;
        }
        yacs::with_module(m, source, &found.file, |other| {
            let binding = other.single_binding(name, MODULE_SCOPE)?;
            let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                return None;
            };
            tree(other, value, name).map(Arc::new)
        })
    };
    let tree = yacs::memoised(&DICTS, m, &found.file, name.to_owned(), read).flatten()?;
    // This file may change it too.
    if handed_off(m, local, &tree, |_| true) {
        return None;
    }
    Some(Config::Yaml {
        tree,
        path: Vec::new(),
        shown: shown(m, &found.file),
        named: None,
    })
}

/// Module-level constants of other files, by file and name, with the line that binds them.
static CONSTANTS: LazyLock<yacs::Cache<String, Option<(Value, u32)>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The value a module-level name of another project file holds, imported (`from settings
/// import NUM_WORKERS`, `from settings import *`) or read through its module
/// (`settings.NUM_WORKERS` after `import settings`): a name that file binds once, at module
/// level, to a value the analysis resolves there (`NUM_WORKERS = 64`, `WORKERS = 2 * 8`).
/// `None` when a file of the project that imports the module may change it
/// (`settings.NUM_WORKERS = 4`, `setattr(settings, 'NUM_WORKERS', 4)`), or a star import after
/// the binding may bind it again.
pub(crate) fn imported_constant(m: &Module, qualified: &str) -> Option<Resolved> {
    let found = m.index.binding(m.path, qualified)?;
    if found.file == m.path {
        return None;
    }
    let name = found.name.as_str();
    let read = |source: &str| {
        yacs::with_module(m, source, &found.file, |other| {
            let binding = other.single_binding(name, MODULE_SCOPE)?;
            let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                return None;
            };
            if other.star_import_after(binding.node) {
                return None;
            }
            let resolved = other.value_in(value, MODULE_SCOPE, 0);
            let line = other.line(binding.name_range.start);
            resolved.value.is_known().then_some((resolved.value, line))
        })
    };
    let (value, line) = yacs::memoised(&CONSTANTS, m, &found.file, name.to_owned(), read)??;
    if m.index.may_write_constant(&found.file, name) {
        return None;
    }
    Some(Resolved {
        value,
        provenance: Provenance::ImportedConstant {
            name: name.to_owned(),
            shown: shown(m, &found.file),
            line,
        },
    })
}

/// The file as messages name it, from the folder of the file that reads it.
fn shown(m: &Module, file: &Path) -> String {
    m.path.parent().map_or_else(
        || file.display().to_string(),
        |here| hydra::shown(here, file),
    )
}

/// The tree of the dict `value` bound to `name` in `m`, with the keys the file writes
/// unknown; `None` when `value` is no dict literal.
fn tree(m: &Module, value: Node, name: &str) -> Option<yaml::Node> {
    if !is_dict(m, value) {
        return None;
    }
    let file: Arc<Path> = Arc::from(m.path);
    let shown = m
        .path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let mutated = m
        .source
        .lines()
        .any(|line| line.contains(name) && MUTATORS.iter().any(|method| line.contains(method)));
    if mutated {
        return Some(yaml::Node::Gap(ConfigGap::Merged {
            call: format!("{name}.update(...)"),
            line: m.line(value.start_byte()),
        }));
    }
    let tree = node(m, value, name, &file, &shown, 0);
    if handed_off(m, name, &tree, |n| n.kind() == "identifier") {
        return Some(yaml::Node::Gap(ConfigGap::Merged {
            call: name.to_owned(),
            line: m.line(value.start_byte()),
        }));
    }
    Some(tree)
}

/// Calls that only read (or copy) the dict they are given.
const READING_CALLS: &[&str] = &[
    "print",
    "len",
    "str",
    "repr",
    "dict",
    "isinstance",
    "json.dump",
    "json.dumps",
    "yaml.dump",
    "yaml.safe_dump",
    "pprint",
    "pprint.pprint",
    "copy.deepcopy",
    "deepcopy",
];

/// Methods of a dict that only read it.
const READERS: &[&str] = &["get", "keys", "items", "values", "copy"];

/// Whether `m` uses a mapping of the dict (itself or a dict nested in it) where it may be
/// changed: handed to a call (`tweak(cfg)`, `setup(cfg['loader'])`), bound to another name,
/// or given to a method that is no read (`cfg['loader'].update(...)`, `del cfg['x']`). A
/// use is a node of the text `name` that `is_use` accepts (the name itself, or
/// `module.name`); `**cfg['loader']`, reads of keys and the value of a key are no hand-off.
pub(super) fn handed_off(
    m: &Module,
    name: &str,
    tree: &yaml::Node,
    is_use: impl Fn(Node) -> bool,
) -> bool {
    let source = m.source.as_bytes();
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    for at in memchr::memmem::find_iter(source, name.as_bytes()) {
        let end = at + name.len();
        if word(at.checked_sub(1).and_then(|i| source.get(i))) || word(source.get(end)) {
            continue;
        }
        let Some(mut node) = m.root().descendant_for_byte_range(at, end) else {
            continue;
        };
        // `module.name`: the attribute, not its last identifier.
        if let Some(parent) = node.parent()
            && parent.kind() == "attribute"
            && parent.child_by_field_name("attribute") == Some(node)
        {
            node = parent;
        }
        if !is_use(node) || m.text(node) != name && node.kind() == "identifier" {
            continue;
        }
        // Down the keys read: `cfg['loader']['num_workers']`.
        let mut path = Vec::new();
        let mut top = node;
        while let Some(parent) = top.parent()
            && parent.kind() == "subscript"
            && parent.child_by_field_name("value") == Some(top)
        {
            match parent
                .child_by_field_name("subscript")
                .and_then(|k| m.string_value(k))
            {
                Some(key) => path.push(key),
                None => return true,
            }
            top = parent;
        }
        let Some(parent) = top.parent() else {
            continue;
        };
        // A key's value, a class or a computed value handed on changes no other key.
        let is_mapping = matches!(at_path(tree, &path), Some(yaml::Node::Map(_)));
        let harmless = match parent.kind() {
            // The binding itself, and writes of a key (each key's own check).
            "assignment" => {
                parent.child_by_field_name("left") == Some(top) && (!path.is_empty() || top == node)
                    || !is_mapping
            }
            "dictionary_splat" | "keyword_argument" | "argument_list" if !is_mapping => true,
            "dictionary_splat" => true,
            // `cfg.get(...)`, or a key read through a wrapper giving attribute access
            // (`cfg.num_workers` of an `EasyDict`; a write of it is that key's own check).
            "attribute" => {
                let called = parent.parent().is_some_and(|call| {
                    call.kind() == "call" && call.child_by_field_name("function") == Some(parent)
                });
                !called
                    || parent
                        .child_by_field_name("attribute")
                        .is_some_and(|a| READERS.contains(&m.text(a)))
            }
            "delete_statement" | "augmented_assignment" => false,
            "comparison_operator" | "dotted_name" | "aliased_import" | "import_from_statement" => {
                true
            }
            "argument_list" => parent
                .parent()
                .and_then(|call| call.child_by_field_name("function"))
                .is_some_and(|f| READING_CALLS.contains(&m.text(f))),
            _ => !is_mapping,
        };
        if !harmless {
            return true;
        }
    }
    false
}

/// The node at `path` of `tree`.
fn at_path<'t>(tree: &'t yaml::Node, path: &[String]) -> Option<&'t yaml::Node> {
    path.iter().try_fold(tree, |node, key| node.get(key))
}

fn is_dict(m: &Module, value: Node) -> bool {
    let value = unwrapped(m, value);
    match value.kind() {
        "dictionary" => true,
        "call" => value
            .child_by_field_name("function")
            .and_then(|f| m.qualified_name(f))
            .is_some_and(|q| {
                KEYWORD_BAGS.contains(&q.as_str())
                    || pyyaml::WRAPPERS.contains(&q.as_str()) && positional_args(value).is_empty()
            }),
        _ => false,
    }
}

/// Calls whose keyword arguments are the keys of what they make (`dict(num_workers=4)`,
/// `SimpleNamespace(num_workers=4)`); so are those of a wrapper giving attribute access
/// (`EasyDict(num_workers=4)`).
const KEYWORD_BAGS: &[&str] = &[
    "builtins.dict",
    "types.SimpleNamespace",
    "argparse.Namespace",
];

/// The dict literal a wrapper giving attribute access holds (`EasyDict({"num_workers": 4})`),
/// else `value` itself.
fn unwrapped<'a>(m: &Module, value: Node<'a>) -> Node<'a> {
    let wraps = value.kind() == "call"
        && value
            .child_by_field_name("function")
            .and_then(|f| m.qualified_name(f))
            .is_some_and(|q| pyyaml::WRAPPERS.contains(&q.as_str()))
        && value
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 1);
    match positional_args(value).as_slice() {
        [inner] if wraps && inner.kind() == "dictionary" => *inner,
        _ => value,
    }
}

/// The tree of one value, `text` its spelling from the dict's name (`cfg['loader']`).
fn node(
    m: &Module,
    value: Node,
    text: &str,
    file: &Arc<Path>,
    shown: &str,
    depth: u32,
) -> yaml::Node {
    let value = unwrapped(m, value);
    let line = m.line(value.start_byte());
    let computed = || {
        yaml::Node::Gap(ConfigGap::Computed {
            key: text.to_owned(),
            shown: shown.to_owned(),
            line,
        })
    };
    if depth > MAX_NESTING || !is_dict(m, value) {
        return match yacs::leaf(m, value) {
            Leaf::Value(v) => yaml::Node::Scalar {
                text: text.to_owned(),
                leaf: Leaf::Value(v),
                file: file.clone(),
                line,
            },
            _ => computed(),
        };
    }
    let mut entries = Vec::new();
    let mut cursor = value.walk();
    let pairs: Vec<(Option<String>, Node)> = if value.kind() == "dictionary" {
        value
            .named_children(&mut cursor)
            .filter(|p| p.kind() != "comment")
            .map(|p| {
                match (
                    p.kind(),
                    p.child_by_field_name("key"),
                    p.child_by_field_name("value"),
                ) {
                    ("pair", Some(k), Some(v)) => (m.string_value(k), v),
                    _ => (None, p),
                }
            })
            .collect()
    } else {
        let Some(arguments) = value.child_by_field_name("arguments") else {
            return computed();
        };
        arguments
            .named_children(&mut cursor)
            .filter(|a| a.kind() != "comment")
            .map(|a| {
                match (
                    a.kind(),
                    a.child_by_field_name("name"),
                    a.child_by_field_name("value"),
                ) {
                    ("keyword_argument", Some(k), Some(v)) => (Some(m.text(k).to_owned()), v),
                    _ => (None, a),
                }
            })
            .collect()
    };
    for (key, v) in pairs {
        // `**other`, a computed key, a comprehension: the keys are not all known.
        let Some(key) = key else {
            return computed();
        };
        let spelled = format!("{text}['{key}']");
        let child = if written_in_file(m, &key) {
            yaml::Node::Gap(ConfigGap::Written {
                key: key.clone(),
                shown: shown.to_owned(),
            })
        } else {
            node(m, v, &spelled, file, shown, depth + 1)
        };
        entries.push((key, child));
    }
    yaml::Node::Map(entries)
}

/// `config["workers"]` read in a function whose parameter `config` every call of the file
/// hands a dict whose key the caller writes just before (`config["workers"] = 32` in `main`,
/// then `train(config)`), whatever the dict held before (a module imported by name at run
/// time): the last write of the key before the call, which runs whenever the call does.
/// `None` when a call passes anything else, a write may not run, a write of the key (or of
/// unknown keys) elsewhere in the file may change it, or the calls disagree.
pub(crate) fn handed_key(
    m: &Module,
    object: Node,
    key: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    if object.kind() != "identifier" {
        return None;
    }
    let binding = m.single_binding(m.text(object), scope)?;
    let parameter = FunctionParameter::of(m, binding)?;
    if parameter.references.is_empty() || parameter.references.len() > MAX_CALLS {
        return None;
    }
    let mut found: Option<Resolved> = None;
    for (call, passed) in parameter.calls(m)? {
        let Passed::Value(passed, passed_scope) = passed else {
            return None;
        };
        let caller = m.function_at(call);
        if passed.kind() != "identifier" || writes_key_elsewhere(m, key, caller) {
            return None;
        }
        let name = m.text(passed);
        let last = mapping_writes(m, name)
            .into_iter()
            .filter(|w| {
                m.function_at(w.object) == caller
                    && w.statement.end_byte() <= call.start_byte()
                    && w.keys.as_ref().is_none_or(|k| k.iter().any(|k| k == key))
            })
            .max_by_key(|w| w.statement.start_byte())?;
        let assignment = last
            .object
            .parent()
            .and_then(|subscript| subscript.parent())
            .filter(|a| a.kind() == "assignment")?;
        let written = assignment.child_by_field_name("right")?;
        // The name bound anew between the write and the call holds another dict.
        let rebound = m.lookup(name, passed_scope).is_some_and(|ids| {
            ids.iter().filter_map(|id| m.bindings().get(*id)).any(|b| {
                b.node.start_byte() > last.statement.end_byte()
                    && b.node.start_byte() < call.start_byte()
            })
        });
        if rebound || branch_runs(m, last.statement, Some(call), depth) != Some(true) {
            return None;
        }
        let mut resolved = m.value_in(written, passed_scope, depth + 1);
        if !resolved.value.is_known() {
            return None;
        }
        if resolved.provenance == Provenance::Literal {
            resolved.provenance = Provenance::Constant {
                name: argparse::squeezed(m.text(assignment.child_by_field_name("left")?)),
                line: m.line(assignment.start_byte()),
                at: Module::range(written),
            };
        }
        match &found {
            Some(f) if f.value != resolved.value => return None,
            Some(_) => {}
            None => found = Some(resolved),
        }
    }
    found
}

/// Whether code of the file outside `caller` writes an item `key` of some mapping
/// (`cfg["workers"] = 4` in another function), which may be the one handed on.
fn writes_key_elsewhere(m: &Module, key: &str, caller: Option<FunctionId>) -> bool {
    syntax::key_writes(m.source.as_bytes(), key).any(|at| {
        m.root()
            .descendant_for_byte_range(at, at)
            .is_none_or(|node| m.function_at(node) != caller)
    })
}
