//! yacs `CfgNode` configs (and fvcore's and detectron2's subclasses of it): the defaults a
//! module sets at its top level (`_C = CN()`, `_C.TRAIN = CN()`, `_C.TRAIN.workers = 16`),
//! followed into the file that reads them through imports, `_C.clone()` and a function that
//! returns it (`get_cfg_defaults()`), with the merges that file makes: `merge_from_file` of a
//! path known before the run (a literal, an argparse default) merges that YAML file, and
//! `merge_from_list` of what is empty by default (a positional `opts` with
//! `nargs=argparse.REMAINDER`) changes nothing.
//!
//! An EasyDict filled attribute by attribute (`__C = edict()`, `__C.TRAIN = edict()`) is read
//! the same way, and a function of its module that loads YAML into it by computed keys
//! (`update_config(args.cfg)`, itself or through a helper of the module it hands the config
//! to, `_update_config(cfg, exp_config)`) is a `merge_from_file`; any other function of the
//! module that writes the config makes the value unknown. A merge of a file named only at run
//! time leaves the value to the config files the project ships (see [`shipped`]). The module
//! may be imported by a name computed at run time (`importlib.import_module("lib.config.%s.
//! config" % name)`) when one module of the project fits it.
//!
//! Handed to a function of another file (`build_dataloaders(cfg, settings)`), the config is
//! read there as this file leaves it ([`as_handed`]).
//!
//! A function of another project file that only merges what its caller gives
//! (`update_config(cfg, args)`: `cfg.merge_from_file(args.cfg)`, [`Merger`]) is read as those
//! merges, of the caller's `args.cfg`.
//!
//! Any other merge, a merge under a condition, a write of the same key, or the config handed
//! to another function of another project file (which may merge into it) makes the value unknown,
//! with its reason where one can be given. The module-level config itself is shared by every
//! file that imports it: it is read in an entry script (one with a `__main__` guard), and in a
//! module the entry scripts import only when no file that imports the config's module may
//! write the key ([`ProjectIndex::may_write_shared`]).
//!
//! Two other module-level configs are read the same way: a plain class used as a holder of
//! values (`class CFG: num_workers = 16`, read as `CFG.num_workers`) or its instance built
//! without arguments (`cfg = Config()`), its class attributes the defaults (also through plain
//! bases of this file or another, see [`classes`]); and a keyword bag
//! of hyperparameters (`hparams = HParams(num_workers=16, ...)`, `SimpleNamespace(...)`), its
//! keywords the defaults. Attributes set by computed name (`setattr(CFG, k, v)`,
//! `vars(cfg).update(...)`, `cfg.__dict__[k] = v`) make every key unknown; in a method of the
//! config's class (`Config.update(path)` running `setattr(cfg, k, v)`), only where a call of
//! the method may run ([`ProjectIndex::may_call_writer`]).
//!
//! [`ProjectIndex::may_call_writer`]: crate::python::index::ProjectIndex::may_call_writer
//!
//! [`ProjectIndex::may_write_shared`]: crate::python::index::ProjectIndex::may_write_shared

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use tree_sitter::Node;

use super::yaml::{self, Leaf};
use super::{Config, classes, config_of, hydra, shipped};
use crate::python::argparse;
use crate::python::catalogue::Catalogue;
use crate::python::index;
use crate::python::model::{
    BindingKind, CallSite, MAX_DEPTH, MODULE_SCOPE, Module, ScopeId, only_positional,
    positional_args,
};
use crate::python::values::{ConfigGap, Provenance, Resolved, Value};

/// The classes whose instances are yacs config nodes.
const CFG_NODE: &[&str] = &[
    "yacs.config.CfgNode",
    "fvcore.common.config.CfgNode",
    "detectron2.config.CfgNode",
];

/// `easydict.EasyDict`, built empty and filled attribute by attribute (`__C = edict()`,
/// `__C.TRAIN = edict()`, `__C.TRAIN.WORKERS = 16`): read as a config node.
const EASY_DICT: &str = "easydict.EasyDict";

/// The methods that change a config node's values.
const MERGES: &[&str] = &[
    "merge_from_file",
    "merge_from_list",
    "merge_from_other_cfg",
    "set_new_allowed",
];

/// Which config object an expression is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Object {
    /// The module-level node `name` of `file` itself, shared by every file importing it.
    Global { file: PathBuf, name: String },
    /// A copy made by the call starting at this byte of the file (`_C.clone()`,
    /// `get_cfg_defaults()`).
    Copy { at: usize },
}

/// The config the module-level name `name` of this file holds, when it is bound once to a
/// `CfgNode()` there, to an instance of a plain class of the file built without arguments
/// (`cfg = Config()`, `class Config: num_thread = 30`), or is such a class itself (`class
/// CFG: ...` read as `CFG.num_workers`): the class attributes are the defaults.
pub(super) fn global<'a>(m: &Module<'a>, name: &str) -> Option<Config<'a>> {
    let binding = m.single_binding(name, MODULE_SCOPE)?;
    // `cfg = __C` after `__C = edict()` (py-faster-rcnn's layout): the same config, one
    // name on.
    if let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value)
        && value.kind() == "identifier"
    {
        let target = m.text(value);
        let aliased = m.single_binding(target, MODULE_SCOPE)?;
        if target == name || aliased.value.is_some_and(|v| v.kind() == "identifier") {
            return None;
        }
        return global(m, target);
    }
    let start = match (&binding.kind, binding.value) {
        // `class CFG: num_workers = 16` read as `CFG.num_workers`: the class itself.
        (BindingKind::Class(class), _) => classes::defaults(m, *class)?.in_file(m, name),
        (BindingKind::Assign, Some(value)) if is_construction(m, value) => {
            yaml::Node::Map(Vec::new())
        }
        (BindingKind::Assign, Some(value)) => match classes::constructed(m, value) {
            Some(class) => classes::defaults(m, class)?.in_file(m, name),
            None => keyword_bag(m, value, name)?,
        },
        _ => return None,
    };
    Some(Config::Yacs {
        object: Object::Global {
            file: m.path.to_path_buf(),
            name: name.to_owned(),
        },
        tree: Arc::new(defaults(m, name, start)),
        path: Vec::new(),
        file: m.path.to_path_buf(),
        name: name.to_owned(),
    })
}

/// An instance of a plain config class of this file built without arguments where it is
/// used (`args = Args()` in `main`, `class Args: num_workers = 16`): a config of its own,
/// made by that call, the class attributes its defaults (as for a module-level instance, see
/// [`global`]).
pub(super) fn instance<'a>(m: &Module<'a>, call: Node) -> Option<Config<'a>> {
    let class = classes::constructed(m, call)?;
    let name = m.class(class)?.name;
    let start = classes::defaults(m, class)?.in_file(m, name);
    Some(Config::Yacs {
        object: Object::Copy {
            at: call.start_byte(),
        },
        tree: Arc::new(defaults(m, name, start)),
        path: Vec::new(),
        file: m.path.to_path_buf(),
        name: name.to_owned(),
    })
}

/// The config an imported name (`from mit_semseg.config import cfg`) holds: a module-level
/// `CfgNode()` of another file of the project.
pub(super) fn imported<'a>(m: &Module<'a>, qualified: &str) -> Option<Config<'a>> {
    let found = m.index.binding(m.path, qualified)?;
    let tree = defaults_of_file(m, &found.file, &found.name)?;
    Some(Config::Yacs {
        object: Object::Global {
            file: found.file.clone(),
            name: found.name.clone(),
        },
        tree,
        path: Vec::new(),
        file: found.file,
        name: found.name,
    })
}

/// `cfg.clone()` of a config, or a call of a function (of this file or another of the
/// project) whose body only returns such a copy: a new object with the same values.
pub(super) fn copied<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Config<'a>> {
    let callee = call.child_by_field_name("function")?;
    let copy = |config| owned(config).map(|parts| parts.copy(call.start_byte()));
    if callee.kind() == "attribute" {
        let method = m.text(callee.child_by_field_name("attribute")?);
        if method == "clone" && positional_args(call).is_empty() {
            let object = callee.child_by_field_name("object")?;
            return copy(config_of(m, object, scope, depth + 1)?);
        }
    }
    if callee.kind() == "identifier"
        && let Some(binding) = m.single_binding(m.text(callee), scope)
        && let BindingKind::Function(f) = binding.kind
    {
        let function = m.function(f)?;
        let returned = returned_clone(m, function.body?)?;
        return copy(config_of(m, returned, function.scope, depth + 1)?);
    }
    let qualified = m.qualified_in(callee, scope, depth + 1)?;
    let found = m.index.definition(m.path, &qualified)?;
    let read = |source: &str| {
        if !source.contains(".clone()") {
            return None;
        }
        with_module(m, source, &found.file, |other| {
            let function = other
                .functions()
                .iter()
                .find(|f| f.name == found.name && f.parent_scope == MODULE_SCOPE)?;
            let returned = returned_clone(other, function.body?)?;
            owned(config_of(other, returned, function.scope, depth + 1)?)
        })
    };
    memoised(
        &CONFIGS,
        m,
        &found.file,
        (found.name.clone(), Kind::Copier),
        read,
    )
    .flatten()
    .map(|parts| parts.copy(call.start_byte()))
}

/// What a config found in another file is, kept when its model goes.
#[derive(Clone)]
struct Parts {
    tree: Arc<yaml::Node>,
    path: Vec<String>,
    file: PathBuf,
    name: String,
}

fn owned(config: Config) -> Option<Parts> {
    match config {
        Config::Yacs {
            tree,
            path,
            file,
            name,
            ..
        } => Some(Parts {
            tree,
            path,
            file,
            name,
        }),
        _ => None,
    }
}

impl Parts {
    /// A copy of the config made by the call at byte `at`.
    fn copy<'a>(self, at: usize) -> Config<'a> {
        Config::Yacs {
            object: Object::Copy { at },
            tree: self.tree,
            path: self.path,
            file: self.file,
            name: self.name,
        }
    }
}

/// `X` of a function body that is only `return X.clone()` (after a docstring).
fn returned_clone<'a>(m: &Module<'a>, body: Node<'a>) -> Option<Node<'a>> {
    let mut cursor = body.walk();
    let statements: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let last = match statements.as_slice() {
        [only] => *only,
        [doc, last]
            if doc.kind() == "expression_statement"
                && doc.named_child(0).is_some_and(|s| s.kind() == "string") =>
        {
            *last
        }
        _ => return None,
    };
    let call = last
        .named_child(0)
        .filter(|c| last.kind() == "return_statement" && c.kind() == "call")?;
    let callee = call.child_by_field_name("function")?;
    let is_clone = callee.kind() == "attribute"
        && callee
            .child_by_field_name("attribute")
            .is_some_and(|a| m.text(a) == "clone")
        && positional_args(call).is_empty();
    is_clone.then(|| callee.child_by_field_name("object"))?
}

/// Whether `value` constructs a config node (`CN()`, `CfgNode(new_allowed=True)`).
fn is_construction(m: &Module, value: Node) -> bool {
    if value.kind() != "call" || !positional_args(value).is_empty() {
        return false;
    }
    let Some(qualified) = value
        .child_by_field_name("function")
        .and_then(|f| m.qualified_name(f))
    else {
        return false;
    };
    CFG_NODE.contains(&qualified.as_str())
        || (qualified == EASY_DICT
            && value
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0))
}

/// Classes whose instances answer their constructor's keywords as attributes.
const KEYWORD_BAGS: &[&str] = &[
    "argparse.Namespace",
    "types.SimpleNamespace",
    "tensorflow.contrib.training.HParams",
];

/// Methods that set one key of a keyword bag, named by their first argument
/// (`hparams.set_hparam("syncnet_wt", 0.01)`).
const KEY_SETTERS: &[&str] = &["set_hparam", "add_hparam"];

/// The defaults of `name = HParams(num_workers=16, ...)`: a keyword bag (one of
/// [`KEYWORD_BAGS`], or a class of this file that takes `**kwargs` in `__init__` and answers
/// attributes through `__getattr__`, as Tacotron-style `hparams.py` files do) built with
/// keywords only, each keyword a key.
fn keyword_bag(m: &Module, value: Node, name: &str) -> Option<yaml::Node> {
    if value.kind() != "call" || !positional_args(value).is_empty() {
        return None;
    }
    let callee = value.child_by_field_name("function")?;
    let is_bag = m
        .qualified_name(callee)
        .is_some_and(|q| KEYWORD_BAGS.contains(&q.as_str()))
        || local_keyword_bag(m, callee);
    if !is_bag {
        return None;
    }
    let file: Arc<Path> = Arc::from(m.path);
    let mut tree = yaml::Node::Map(Vec::new());
    let arguments = value.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        match argument.kind() {
            "comment" => {}
            "keyword_argument" => {
                let key = m.text(argument.child_by_field_name("name")?);
                let value = argument.child_by_field_name("value")?;
                let node = yaml::Node::Scalar {
                    text: format!("{name}.{key}"),
                    leaf: leaf(m, value),
                    file: file.clone(),
                    line: m.line(argument.start_byte()),
                };
                set(&mut tree, &[key.to_owned()], node);
            }
            // `HParams(**defaults)`: keys the analysis cannot list.
            _ => return None,
        }
    }
    Some(tree)
}

/// Whether `callee` names a class of this file whose `__init__` takes `**kwargs` and whose
/// `__getattr__` answers for attributes it does not have.
fn local_keyword_bag(m: &Module, callee: Node) -> bool {
    if callee.kind() != "identifier" {
        return false;
    }
    let Some(BindingKind::Class(id)) = m
        .single_binding(m.text(callee), MODULE_SCOPE)
        .map(|b| b.kind.clone())
    else {
        return false;
    };
    let Some(class) = m.class(id) else {
        return false;
    };
    let method = |name: &str| {
        class
            .methods
            .iter()
            .filter_map(|f| m.function(*f))
            .find(|f| f.name == name)
    };
    let takes_kwargs = method("__init__")
        .and_then(|f| f.node.child_by_field_name("parameters"))
        .is_some_and(|p| {
            p.named_children(&mut p.walk())
                .any(|a| a.kind() == "dictionary_splat_pattern")
        });
    takes_kwargs && method("__getattr__").is_some()
}

/// Whether a call of the file sets `key` of the config `object` through a setter
/// ([`KEY_SETTERS`]), `setattr` or an `update` of its attributes' mapping, or sets a key it
/// does not name: the default may not be what runs.
fn set_by_setter(m: &Module, object: &Object, key: &str, depth: u32) -> bool {
    let is_it = |expr: Node, scope| {
        config_of(m, expr, scope, depth + 1)
            .is_some_and(|c| matches!(c, Config::Yacs { object: o, .. } if o == *object))
    };
    let names_key =
        |name: Option<&Node>| name.is_none_or(|k| m.string_value(*k).is_none_or(|k| k == key));
    m.calls().iter().any(|call| {
        let args = positional_args(call.node);
        match call.method {
            // `hparams.set_hparam("num_workers", 4)`
            Some(method) if KEY_SETTERS.contains(&method) => {
                call.callee
                    .child_by_field_name("object")
                    .is_some_and(|o| is_it(o, call.scope))
                    && names_key(args.first())
            }
            // `setattr(cfg, name, value)`, `vars(cfg).update(...)`, `cfg.__dict__.update(...)`
            _ => attribute_setter(m, call)
                .is_some_and(|(o, name)| is_it(o, call.scope) && names_key(name.as_ref())),
        }
    })
}

/// What a module-level name of another file is asked as.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Kind {
    /// A config node (`_C = CN()`).
    Node,
    /// A function returning a copy of one (`def get_cfg_defaults(): return _C.clone()`).
    Copier,
}

/// Answers about the text of a file, each with a hash of the text it was read from.
pub(super) type Cache<K, T> = Mutex<HashMap<(PathBuf, K), (u64, T)>>;

/// The config a name of another file is (as [`Kind`] asks), or `None` when it is none.
static CONFIGS: LazyLock<Cache<(String, Kind), Option<Parts>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// What a function of another file does to a config of it (by function and config name, see
/// [`effect_on_config`]).
static MERGERS: LazyLock<Cache<(String, String), Effect>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// `read` of the text of `file`, memoised under `key` in `cache` until the file's text
/// changes: every imported name a value is looked for through asks. `None` when the file
/// cannot be read.
pub(super) fn memoised<K: Hash + Eq, T: Clone>(
    cache: &Cache<K, T>,
    m: &Module,
    file: &Path,
    key: K,
    read: impl FnOnce(&str) -> T,
) -> Option<T> {
    let source = m.index.source(file)?;
    let mut hasher = DefaultHasher::new();
    source.hash(&mut hasher);
    let hash = hasher.finish();
    let key = (file.to_path_buf(), key);
    if let Ok(cache) = cache.lock()
        && let Some((h, found)) = cache.get(&key)
        && *h == hash
    {
        return Some(found.clone());
    }
    let found = read(&source);
    if let Ok(mut cache) = cache.lock() {
        cache.insert(key, (hash, found.clone()));
    }
    Some(found)
}

/// `read` of the definitions of another project file, `source` the text of `file`; `None`
/// when it does not parse.
pub(super) fn with_module<T>(
    m: &Module,
    source: &str,
    file: &Path,
    read: impl FnOnce(&Module) -> Option<T>,
) -> Option<T> {
    let tree = crate::python::parse(source, None)?;
    let other = Module::build_definitions(source, &tree, file, m.index, Catalogue::builtin_ref());
    read(&other)
}

/// The defaults the module-level config `name` of another project file holds.
fn defaults_of_file(m: &Module, file: &Path, name: &str) -> Option<Arc<yaml::Node>> {
    let read = |source: &str| {
        // A config node, a class of the file, or a keyword bag of the standard library or
        // TensorFlow.
        if !["CfgNode", "EasyDict", "class ", "Namespace(", "HParams("]
            .iter()
            .any(|word| source.contains(word))
        {
            return None;
        }
        with_module(m, source, file, |other| owned(global(other, name)?))
    };
    memoised(&CONFIGS, m, file, (name.to_owned(), Kind::Node), read)
        .flatten()
        .map(|parts| parts.tree)
}

/// The tree of defaults the module-level statements of `m` set on its config `name`, over
/// `tree` (the class attributes of a plain config class). A key also written inside a
/// function of the file, or a merge into the config there, is a gap.
fn defaults(m: &Module, name: &str, mut tree: yaml::Node) -> yaml::Node {
    let file: Arc<Path> = Arc::from(m.path);
    for statement in m.top_level_statements() {
        let Some((left, right)) = crate::python::syntax::assignment_sides(*statement) else {
            continue;
        };
        let Some(path) = attribute_path(m, left, name) else {
            continue;
        };
        // `cfg = Config()` or `hparams = HParams(...)` itself: the class or the keywords gave
        // the defaults.
        if path.is_empty()
            && (classes::constructed(m, right).is_some() || keyword_bag(m, right, name).is_some())
        {
            continue;
        }
        let node = if is_construction(m, right) {
            yaml::Node::Map(Vec::new())
        } else {
            yaml::Node::Scalar {
                text: m.text(left).to_owned(),
                leaf: leaf(m, right),
                file: file.clone(),
                line: m.line(left.start_byte()),
            }
        };
        set(&mut tree, &path, node);
    }
    for write in m.attribute_assignments() {
        if write.function.is_some()
            && !names_a_copy(m, write.target, write.scope)
            && let Some(path) = attribute_path(m, write.target, name)
        {
            let line = m.line(write.target.start_byte());
            let gap = yaml::Node::Scalar {
                text: m.text(write.target).to_owned(),
                leaf: Leaf::Unreadable,
                file: file.clone(),
                line,
            };
            set(&mut tree, &path, gap);
        }
    }
    // A merge, or attributes set by computed name (`setattr(CFG, key, value)`,
    // `CFG.__dict__.update(...)`, `vars(cfg).update(...)`): any key may change. In a method of
    // the config's own class (`Config.update(path)`), only where the method is called.
    let class = m
        .single_binding(name, MODULE_SCOPE)
        .filter(|b| b.kind == BindingKind::Assign)
        .and_then(|b| classes::constructed(m, b.value?));
    let in_writer = |c: &CallSite| {
        class.is_some_and(|class| {
            c.function
                .and_then(|f| m.function(f))
                .is_some_and(|f| f.class == Some(class))
                && classes::sets_computed_names(m, c, class)
        })
    };
    let merged = m.calls().iter().filter(|c| !in_writer(c)).find(|c| {
        let receiver = match c.method {
            Some(method) if MERGES.contains(&method) => c.callee.child_by_field_name("object"),
            _ => attribute_setter(m, c).map(|(o, _)| o),
        };
        receiver
            .is_some_and(|o| attribute_path(m, o, name).is_some() && !names_a_copy(m, o, c.scope))
    });
    if let Some(call) = merged {
        return yaml::Node::Gap(ConfigGap::Merged {
            call: m.text(call.callee).to_owned(),
            line: m.line(call.node.start_byte()),
        });
    }
    if let Some(target) = dict_item_write(m, name) {
        return yaml::Node::Gap(ConfigGap::Merged {
            call: m.text(target).to_owned(),
            line: m.line(target.start_byte()),
        });
    }
    tree
}

/// An item assignment into the attributes' mapping of the config `name` (`cfg.__dict__[k] =
/// v`): the target, which may write any key.
fn dict_item_write<'a>(m: &Module<'a>, name: &str) -> Option<Node<'a>> {
    m.references("__dict__").into_iter().find_map(|reference| {
        let mapping = reference.parent().filter(|p| p.kind() == "attribute")?;
        attribute_path(m, mapping.child_by_field_name("object")?, name)?;
        let target = mapping.parent().filter(|p| {
            p.kind() == "subscript" && p.child_by_field_name("value") == Some(mapping)
        })?;
        let assignment = target.parent()?;
        (matches!(assignment.kind(), "assignment" | "augmented_assignment")
            && assignment.child_by_field_name("left") == Some(target))
        .then_some(target)
    })
}

/// Whether `expr` (`cfg`, `cfg.TRAIN`) starts from a name that `scope` binds only to a copy
/// of a config (`cfg = get_cfg_defaults()` returning `_C.clone()`, `cfg = _C.clone()`), so
/// that merges into it and writes to it leave the module-level config of the same name as
/// it is (TCMR's `update_cfg(cfg_file)`).
fn names_a_copy(m: &Module, mut expr: Node, scope: ScopeId) -> bool {
    while expr.kind() == "attribute" {
        let Some(object) = expr.child_by_field_name("object") else {
            return false;
        };
        expr = object;
    }
    if expr.kind() != "identifier" {
        return false;
    }
    let Some(ids) = m.lookup(m.text(expr), scope) else {
        return false;
    };
    !ids.is_empty()
        && ids.iter().all(|id| {
            m.bindings().get(*id).is_some_and(|b| {
                b.scope != MODULE_SCOPE
                    && b.kind == BindingKind::Assign
                    && b.value.is_some_and(|v| is_copy(m, v, b.scope))
            })
        })
}

/// Whether `value` makes a copy: `X.clone()`, `copy.deepcopy(X)`, or a call of a function of
/// the file whose body only returns `X.clone()`. By the text alone, as the defaults are
/// being read.
fn is_copy(m: &Module, value: Node, scope: ScopeId) -> bool {
    let Some(callee) = value
        .child_by_field_name("function")
        .filter(|_| value.kind() == "call")
    else {
        return false;
    };
    match callee.kind() {
        "attribute" => {
            callee
                .child_by_field_name("attribute")
                .is_some_and(|a| m.text(a) == "clone")
                && positional_args(value).is_empty()
                || m.qualified_in(callee, scope, 0).as_deref() == Some("copy.deepcopy")
        }
        "identifier" => m
            .single_binding(m.text(callee), scope)
            .and_then(|b| match b.kind {
                BindingKind::Function(f) => m.function(f),
                _ => None,
            })
            .and_then(|f| f.body)
            .is_some_and(|body| returned_clone(m, body).is_some()),
        _ => false,
    }
}

/// The object whose attributes `call` sets by name, with the name's node when the call has
/// one: `setattr(x, name, value)`, `x.__dict__.update(...)` or `vars(x).update(...)`.
pub(crate) fn attribute_setter<'a>(
    m: &Module<'a>,
    call: &CallSite<'a>,
) -> Option<(Node<'a>, Option<Node<'a>>)> {
    match call.method {
        Some("update") => {
            let object = dict_of(m, call.callee.child_by_field_name("object")?)?;
            Some((object, None))
        }
        _ if call.qualified.as_deref() == Some("builtins.setattr") => {
            let args = positional_args(call.node);
            Some((*args.first()?, args.get(1).copied()))
        }
        _ => None,
    }
}

/// `X` of `X.__dict__` or `vars(X)`: the object whose attributes that mapping holds.
pub(crate) fn dict_of<'a>(m: &Module<'a>, expr: Node<'a>) -> Option<Node<'a>> {
    match expr.kind() {
        "attribute"
            if expr
                .child_by_field_name("attribute")
                .is_some_and(|a| m.text(a) == "__dict__") =>
        {
            expr.child_by_field_name("object")
        }
        "call"
            if expr
                .child_by_field_name("function")
                .and_then(|f| m.qualified_name(f))
                .as_deref()
                == Some("builtins.vars") =>
        {
            positional_args(expr).first().copied()
        }
        _ => None,
    }
}

/// The keys of `name.A.b` (empty for `name` itself), when `expr` is such a chain.
fn attribute_path(m: &Module, expr: Node, name: &str) -> Option<Vec<String>> {
    match expr.kind() {
        "identifier" => (m.text(expr) == name).then(Vec::new),
        "attribute" => {
            let mut path = attribute_path(m, expr.child_by_field_name("object")?, name)?;
            path.push(m.text(expr.child_by_field_name("attribute")?).to_owned());
            Some(path)
        }
        _ => None,
    }
}

/// A default's value: literals only (a computed default stays unreadable).
pub(super) fn leaf(m: &Module, value: Node) -> Leaf {
    let literal = matches!(
        value.kind(),
        "integer" | "float" | "string" | "concatenated_string" | "true" | "false" | "none"
    ) || value.kind() == "unary_operator"
        && value
            .child_by_field_name("argument")
            .is_some_and(|a| matches!(a.kind(), "integer" | "float"));
    match literal.then(|| m.value_of(value).value) {
        Some(value) if value.is_known() => Leaf::Value(value),
        _ => Leaf::Unreadable,
    }
}

/// Puts `node` at `path` of `tree` (the whole tree for an empty path); a path through
/// something that is not a mapping is left alone, as yacs would fail there.
pub(super) fn set(tree: &mut yaml::Node, path: &[String], node: yaml::Node) {
    let Some((first, rest)) = path.split_first() else {
        *tree = node;
        return;
    };
    let yaml::Node::Map(entries) = tree else {
        return;
    };
    if rest.is_empty() {
        match entries.iter_mut().rev().find(|(k, _)| k == first) {
            Some((_, existing)) => *existing = node,
            None => entries.push((first.clone(), node)),
        }
        return;
    }
    if let Some((_, child)) = entries.iter_mut().rev().find(|(k, _)| k == first) {
        set(child, rest, node);
    }
}

/// Where a config's defaults are set: the module-level node `name` of `file`.
pub(super) struct Defaults<'d> {
    pub(super) tree: &'d yaml::Node,
    pub(super) file: &'d Path,
    pub(super) name: &'d str,
}

/// The part at `path` of the config `object` as this file leaves it when it hands it to a
/// function of another file (`build_dataloaders(cfg, settings)`): each entry read here, after
/// the merges and writes of this file; an entry whose key the other file never names
/// (`named`) is left unknown, unread.
pub(super) fn as_handed(
    m: &Module,
    object: &Object,
    defaults: &Defaults,
    path: &[String],
    named: &dyn Fn(&str) -> bool,
) -> Option<yaml::Node> {
    let mut part = defaults.tree;
    for key in path {
        part = part.get(key)?;
    }
    let mut at = path.to_vec();
    Some(handed_node(m, object, defaults, part, &mut at, named))
}

fn handed_node(
    m: &Module,
    object: &Object,
    defaults: &Defaults,
    node: &yaml::Node,
    at: &mut Vec<String>,
    named: &dyn Fn(&str) -> bool,
) -> yaml::Node {
    match node {
        yaml::Node::Map(entries) => yaml::Node::Map(
            entries
                .iter()
                .map(|(key, child)| {
                    at.push(key.clone());
                    let handed = handed_node(m, object, defaults, child, at, named);
                    at.pop();
                    (key.clone(), handed)
                })
                .collect(),
        ),
        yaml::Node::Scalar {
            text, file, line, ..
        } => {
            let resolved = match at.last().is_some_and(|key| named(key)) {
                true => value(m, object, defaults, at, 1).unwrap_or_else(Resolved::unknown),
                false => Resolved::unknown(),
            };
            yaml::Node::Scalar {
                text: text.clone(),
                leaf: Leaf::Resolved(Box::new(resolved)),
                file: Arc::clone(file),
                line: *line,
            }
        }
        yaml::Node::Gap(_) => node.clone(),
        // A list is read whole; the entries it holds are not followed.
        yaml::Node::Seq(_) => yaml::Node::Gap(ConfigGap::Written {
            key: at.join("."),
            shown: m
                .path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        }),
    }
}

/// The value at `path` of the config `object`, after the merges this file makes into it.
pub(super) fn value(
    m: &Module,
    object: &Object,
    defaults: &Defaults,
    path: &[String],
    depth: u32,
) -> Option<Resolved> {
    if depth > MAX_DEPTH {
        return None;
    }
    let key = path.last()?;
    // `cfg.TRAIN.workers = ...` anywhere in the file (but the defaults themselves): the
    // default may not be what runs.
    let sets_defaults = |w: &crate::python::model::AttributeAssignment| {
        m.path == defaults.file
            && w.function.is_none()
            && attribute_path(m, w.target, defaults.name).is_some()
    };
    // A write under a condition that is false on a run with the defaults (`if args.workers:
    // config.WORKERS = args.workers`, `--workers` without a default) does not run.
    if m.attribute_assignments().iter().any(|w| {
        w.attribute == key
            && !sets_defaults(w)
            && argparse::branch_runs(m, w.target, None, depth) != Some(false)
    }) {
        return None;
    }
    if let Object::Global { file, name } = object {
        let is_entry = m.top_level_statements().iter().any(|s| m.is_main_guard(*s));
        // A module the entry scripts import reads the shared config after they ran: any file
        // of the project that names the config's module may have changed it.
        // The config's own file is read by `defaults` (its methods that set attributes by
        // computed name count where they are called).
        let unsure = match is_entry {
            true => imports_a_writer(m, file, key),
            false => m.index.may_write_shared(file, key, true, None),
        };
        if unsure {
            return None;
        }
        if let Some(call) = m.index.may_call_writer(file, name) {
            let here = m.path.parent()?;
            return Some(hydra::unknown(ConfigGap::Merged {
                call: format!("{} in {}", call.call, hydra::shown(here, &call.file)),
                line: call.line,
            }));
        }
    }
    if handed_to_project(m, object, path, depth) || set_by_setter(m, object, key, depth) {
        return None;
    }
    let mut merging = Merging {
        tree: defaults.tree.clone(),
        run_time_file: None,
        other_merge: false,
        given: None,
    };
    for call in m.calls() {
        // `update_config(cfg, args)` of another file: its merges, of what `args` holds here.
        if let Some(merger) = handed_merger(m, object, call, depth) {
            let overlaps = |written: &Vec<String>| {
                path.starts_with(written.as_slice()) || written.starts_with(path)
            };
            if merger.written.iter().any(overlaps) {
                return None;
            }
            if is_conditional(m, call.node) {
                merging.unknown(m, call);
                continue;
            }
            let args = positional_args(call.node);
            for step in &merger.steps {
                if step.copy {
                    let copied = match path {
                        [key] => args
                            .get(step.position)
                            .and_then(|a| copied_option(m, *a, key, call.scope, depth + 1)),
                        // A nested key: the namespace may replace its section.
                        _ => None,
                    };
                    match copied {
                        Some(scalar) => set(&mut merging.tree, path, scalar),
                        None => merging.unknown(m, call),
                    }
                    continue;
                }
                let value = args
                    .get(step.position)
                    .and_then(|a| {
                        m.attribute_values().attribute_value(
                            m,
                            *a,
                            &step.attribute,
                            call.scope,
                            depth + 1,
                        )
                    })
                    .map_or(Value::Unknown, |r| r.value);
                match (step.file, value) {
                    (true, value) => {
                        let value = match (value, args.get(step.position)) {
                            (Value::Str(path), _) => Value::Str(path),
                            (value, Some(namespace)) => {
                                merging.given(m, *namespace, &step.attribute, call.scope, value)
                            }
                            (value, None) => value,
                        };
                        merging.file(m, value, call)?
                    }
                    (false, Value::None) => {}
                    (false, _) if option_empty_by_default(m, &step.attribute) => {}
                    (false, _) => merging.unknown(m, call),
                }
            }
            continue;
        }
        match module_call(m, defaults, call) {
            Some(ModuleCall::LoadsFile(argument)) if !is_conditional(m, call.node) => {
                merging.file(m, m.value_in(argument, call.scope, depth + 1).value, call)?;
                continue;
            }
            Some(_) => {
                merging.unknown(m, call);
                continue;
            }
            None => {}
        }
        let Some(method) = call.method.filter(|method| MERGES.contains(method)) else {
            continue;
        };
        let receiver = call.callee.child_by_field_name("object")?;
        match config_of(m, receiver, call.scope, depth + 1) {
            Some(Config::Yacs {
                object: o, path: p, ..
            }) if o == *object => {
                let args = positional_args(call.node);
                match (method, args.as_slice()) {
                    _ if !p.is_empty() || is_conditional(m, call.node) => merging.unknown(m, call),
                    ("merge_from_file", [argument]) => {
                        let mut value = m.value_in(*argument, call.scope, depth + 1).value;
                        if !matches!(value, Value::Str(_))
                            && argument.kind() == "attribute"
                            && let (Some(namespace), Some(attribute)) = (
                                argument.child_by_field_name("object"),
                                argument.child_by_field_name("attribute"),
                            )
                        {
                            value =
                                merging.given(m, namespace, m.text(attribute), call.scope, value);
                        }
                        merging.file(m, value, call)?;
                    }
                    ("merge_from_list", [argument]) if empty_by_default(m, *argument) => {}
                    _ => merging.unknown(m, call),
                }
            }
            Some(_) => {}
            // A merge into an object the analysis cannot name may be this one.
            None => merging.unknown(m, call),
        }
    }
    let here = m.path.parent()?;
    let shown = hydra::shown(here, defaults.file);
    if let (Some((before, call)), false) = (merging.run_time_file, merging.other_merge) {
        return shipped::agreed(m, defaults.file, &before, path, &shown, &call)
            .or_else(|| hydra::value_at(m, &merging.tree, path, &shown));
    }
    let resolved = hydra::value_at(m, &merging.tree, path, &shown)?;
    Some(match merging.given {
        Some(given) if resolved.value.is_known() => Resolved {
            value: resolved.value,
            provenance: Provenance::RunConfig {
                base: Box::new(resolved.provenance),
                written: given.written,
                script: given.script,
                line: given.line,
                others: 0,
            },
        },
        _ => resolved,
    })
}

/// The option `key` of the namespace `namespace` holds, as a config's scalar placed where
/// its default is written (`--num_workers` of `cfglib/option.py` line 35): what a copy of the
/// namespace into the config (`cfg[k] = v` for each of `vars(args)`) writes under `key`.
/// `None` when the namespace is not known to have that option or its default is unknown.
fn copied_option(
    m: &Module,
    namespace: Node,
    key: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<yaml::Node> {
    let resolved = m
        .attribute_values()
        .attribute_value(m, namespace, key, scope, depth)?;
    let crate::python::values::Provenance::ArgparseDefault {
        flag, line, file, ..
    } = &resolved.provenance
    else {
        return None;
    };
    if !resolved.value.is_known() {
        return None;
    }
    let file: Arc<Path> = file.as_deref().unwrap_or(m.path).into();
    Some(yaml::Node::Scalar {
        text: flag.clone(),
        leaf: Leaf::Value(resolved.value),
        file,
        line: *line,
    })
}

/// A config's tree as the merges of a file leave it.
struct Merging {
    tree: yaml::Node,
    /// The tree before a merge of a file named only at run time (`update_config(args.cfg)`,
    /// `cfg.merge_from_file(args.config_file)`), with that call, while no other merge may
    /// have changed it: the config files the project ships may still agree on the value.
    run_time_file: Option<(yaml::Node, String)>,
    other_merge: bool,
    /// The file every run of the project's scripts and READMEs names for a path a run must
    /// give, when one was merged.
    given: Option<argparse::RunGiven>,
}

impl Merging {
    /// The path the project's runs all give `namespace.attribute` when the file cannot know
    /// it (`value`, unknown or `None`: a run must give it), kept for the provenance.
    fn given(
        &mut self,
        m: &Module,
        namespace: Node,
        attribute: &str,
        scope: ScopeId,
        value: Value,
    ) -> Value {
        match argparse::run_given(m, namespace, attribute, scope) {
            Some(given) if self.given.is_none() => {
                let path = Value::Str(given.text.clone());
                self.given = Some(given);
                path
            }
            _ => value,
        }
    }

    /// A merge by `call` of the YAML file `path` names (`None` when the file is missing).
    fn file(&mut self, m: &Module, path: Value, call: &CallSite) -> Option<()> {
        match path {
            Value::Str(relative) => {
                let (loaded, shown) = hydra::load_relative(m, &relative)?;
                // After a file named at run time, the shipped files' agreement is over the
                // tree before it: a known file merged later is not in it.
                if self.run_time_file.is_some() {
                    self.other_merge = true;
                }
                if loaded.get("_BASE_").is_some() {
                    self.other_merge = true;
                    self.tree = yaml::Node::Gap(ConfigGap::Composed { shown });
                } else {
                    self.tree.merge(loaded);
                }
            }
            _ => {
                // Another file named at run time after the first (a teacher's config merged
                // into the same module-level config) keeps a value every shipped file agrees
                // on: each file either sets it or keeps what was there.
                match (&self.run_time_file, self.other_merge) {
                    (None, false) => {
                        self.run_time_file = Some((self.tree.clone(), m.text(call.node).to_owned()))
                    }
                    (Some(_), false) => {}
                    (_, true) => self.other_merge = true,
                }
                self.tree = merged_by(m, call);
            }
        }
        Some(())
    }

    /// A merge by `call` of what cannot be read.
    fn unknown(&mut self, m: &Module, call: &CallSite) {
        self.other_merge = true;
        self.tree = merged_by(m, call);
    }
}

fn merged_by(m: &Module, call: &CallSite) -> yaml::Node {
    yaml::Node::Gap(ConfigGap::Merged {
        call: m.text(call.callee).to_owned(),
        line: m.line(call.node.start_byte()),
    })
}

/// What a call of a function of the config's own module does to the config.
enum ModuleCall<'a> {
    /// It loads the YAML file its one argument names into the config by computed keys
    /// (`def update_config(config_file): ... config[k] = v`, the EasyDict configs of
    /// HRNet-style projects; or through a function of the module it hands the config to,
    /// `_update_config(cfg, exp_config)` of the pytracking family).
    LoadsFile(Node<'a>),
    /// It may change the config some other way.
    Writes,
}

/// What `call` does to the config when it calls a function of the config's own module that
/// writes it; `None` for any other call.
fn module_call<'a>(
    m: &Module<'a>,
    defaults: &Defaults,
    call: &CallSite<'a>,
) -> Option<ModuleCall<'a>> {
    let effect = module_function_effect(m, defaults, call)?;
    // A keyword (`base_cfg=other`) may load the file into another config.
    match (effect, only_positional(call.node).as_deref()) {
        (Effect::None, _) => None,
        (Effect::LoadsFile, Some([argument])) => Some(ModuleCall::LoadsFile(*argument)),
        _ => Some(ModuleCall::Writes),
    }
}

/// The effect on the config of the function `call` calls, when it is a module-level function
/// of the config's own module.
fn module_function_effect(m: &Module, defaults: &Defaults, call: &CallSite) -> Option<Effect> {
    // A function of this file that holds the config itself.
    if defaults.file == m.path && call.callee.kind() == "identifier" {
        let name = m.text(call.callee);
        let local = m
            .single_binding(name, MODULE_SCOPE)
            .is_some_and(|b| matches!(b.kind, BindingKind::Function(_)));
        if local {
            return Some(effect_on_config(m, name, defaults.name));
        }
    }
    let qualified = call.qualified.as_deref()?;
    let found = m.index.definition(m.path, qualified)?;
    if found.file != defaults.file {
        return None;
    }
    if found.file == m.path {
        return Some(effect_on_config(m, &found.name, defaults.name));
    }
    // Asked for every read of the config: the config's module is parsed once.
    let key = (found.name.clone(), defaults.name.to_owned());
    memoised(&MERGERS, m, &found.file, key, |source| {
        with_module(m, source, &found.file, |other| {
            Some(effect_on_config(other, &found.name, defaults.name))
        })
        .unwrap_or(Effect::None)
    })
}

/// What the module-level function `function` of `m` does to the module-level config `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    None,
    /// It reads YAML and assigns items of the config by computed keys.
    LoadsFile,
    /// It may write the config otherwise.
    Writes,
}

fn effect_on_config(m: &Module, function: &str, name: &str) -> Effect {
    let Some(binding) = m.single_binding(function, MODULE_SCOPE) else {
        return Effect::None;
    };
    let BindingKind::Function(id) = binding.kind else {
        return Effect::None;
    };
    let Some(def) = m.function(id) else {
        return Effect::None;
    };
    match writes_to(m, def.node, name, 0) {
        Write::Computed if m.text(def.node).contains("yaml") => Effect::LoadsFile,
        Write::Computed | Write::Other => Effect::Writes,
        Write::None => Effect::None,
    }
}

/// How the code of `function` writes the object `name` names there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    None,
    /// Items by computed keys only (`config[k] = v`, `config[k][0] = v`).
    Computed,
    /// A fixed key, an attribute, a method that changes it, or `setattr`.
    Other,
}

/// How `function` writes what `name` names in it: directly, or through a module-level function
/// of the same file it hands it to (`_update_config(cfg, exp_config)` writing
/// `base_cfg[k] = v`), a few calls deep.
fn writes_to(m: &Module, function: Node, name: &str, depth: u32) -> Write {
    const CHANGING: &[&str] = &[
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "merge_from_file",
        "merge_from_list",
        "merge_from_other_cfg",
        "__setitem__",
    ];
    if depth > 3 {
        return Write::Other;
    }
    let inside = function.byte_range();
    let mut found = Write::None;
    for reference in m.references(name) {
        if !inside.contains(&reference.start_byte()) {
            continue;
        }
        let write = write_at(m, reference, CHANGING).unwrap_or_else(|| {
            handed_on(m, reference).map_or(Write::None, |(callee, param)| {
                writes_to(m, callee, &param, depth + 1)
            })
        });
        found = found.max(write);
        if found == Write::Other {
            break;
        }
    }
    found
}

/// The write `reference` is the object of, if any: `reference[k] = v` (computed),
/// `reference.X = v`, `reference['x'] = v`, `reference.update(...)`, `setattr(reference, ...)`.
fn write_at(m: &Module, reference: Node, changing: &[&str]) -> Option<Write> {
    let mut at = reference;
    let mut computed = None;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "subscript" if parent.child_by_field_name("value") == Some(at) => {
                let fixed = parent
                    .child_by_field_name("subscript")
                    .is_some_and(|k| k.kind() == "string" || k.kind() == "integer");
                computed.get_or_insert(!fixed);
            }
            "attribute" if parent.child_by_field_name("object") == Some(at) => {
                let method = parent.child_by_field_name("attribute").map(|a| m.text(a));
                let called = parent.parent().is_some_and(|c| {
                    c.kind() == "call" && c.child_by_field_name("function") == Some(parent)
                });
                if called && method.is_some_and(|n| changing.contains(&n)) {
                    return Some(Write::Other);
                }
                computed.get_or_insert(false);
            }
            _ => break,
        }
        at = parent;
    }
    let parent = at.parent()?;
    let assigned = at != reference
        && matches!(parent.kind(), "assignment" | "augmented_assignment")
        && parent.child_by_field_name("left") == Some(at);
    if assigned {
        return Some(match computed {
            Some(true) => Write::Computed,
            _ => Write::Other,
        });
    }
    // `setattr(config, k, v)`.
    let setattr = parent.kind() == "argument_list"
        && parent.named_child(0) == Some(reference)
        && parent
            .parent()
            .and_then(|c| c.child_by_field_name("function"))
            .is_some_and(|f| m.text(f) == "setattr");
    setattr.then_some(Write::Other)
}

/// The module-level function `reference` is handed to as a positional argument, with the
/// name of the parameter that receives it.
fn handed_on<'a>(m: &Module<'a>, reference: Node<'a>) -> Option<(Node<'a>, String)> {
    let list = reference.parent().filter(|p| p.kind() == "argument_list")?;
    let call = list.parent().filter(|c| c.kind() == "call")?;
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "identifier" {
        return None;
    }
    let position = positional_args(call).iter().position(|a| *a == reference)?;
    let binding = m.single_binding(m.text(callee), MODULE_SCOPE)?;
    let BindingKind::Function(id) = binding.kind else {
        return None;
    };
    let def = m.function(id)?;
    let name = crate::python::closures::parameter_names(m, def.node)
        .into_iter()
        .nth(position)?;
    Some((def.node, name))
}

/// Whether a project file this one imports from (but the config's own) may change the shared
/// config without being handed it: it merges into a config (`merge_from_file`), or assigns an
/// attribute named `key`, anywhere in its text.
fn imports_a_writer(m: &Module, config_file: &Path, key: &str) -> bool {
    let assignment = format!(".{key} =");
    let mut seen: Vec<PathBuf> = Vec::new();
    m.bindings().iter().any(|binding| {
        let BindingKind::Import { qualified } = &binding.kind else {
            return false;
        };
        let Some(found) = m
            .index
            .definition(m.path, qualified)
            .or_else(|| m.index.binding(m.path, qualified))
        else {
            return false;
        };
        if found.file == config_file || seen.contains(&found.file) {
            return false;
        }
        seen.push(found.file.clone());
        m.index
            .source(&found.file)
            .is_none_or(|source| source.contains("merge_from_") || source.contains(&assignment))
    })
}

/// Whether the config (or the part of it holding `path`) is passed to a function or class of
/// another file of the project that may change the key read (`update_config(cfg, args)`
/// merges into it; `NPY_datasets(cfg.data_path, cfg)` only reads it), by that file's text.
fn handed_to_project(m: &Module, object: &Object, path: &[String], depth: u32) -> bool {
    let Some(key) = path.last() else {
        return true;
    };
    m.calls().iter().any(|call| {
        let Some(arguments) = call.node.child_by_field_name("arguments") else {
            return false;
        };
        let mut cursor = arguments.walk();
        let passes_it = arguments.named_children(&mut cursor).any(|argument| {
            let argument = match argument.kind() {
                "keyword_argument" => argument.child_by_field_name("value"),
                _ => Some(argument),
            };
            argument
                .filter(|a| matches!(a.kind(), "identifier" | "attribute"))
                .and_then(|a| config_of(m, a, call.scope, depth + 1))
                .is_some_and(|config| match config {
                    Config::Yacs {
                        object: o, path: p, ..
                    } => o == *object && path.starts_with(&p),
                    _ => false,
                })
        });
        passes_it
            && handed_merger(m, object, call, depth).is_none()
            && call
                .qualified
                .as_deref()
                .and_then(|q| m.index.definition(m.path, q))
                .is_some_and(|found| match found.file == m.path {
                    // This file's own function: its attribute writes are this file's (read
                    // with their branches above); what is left is writes by other means.
                    true => m
                        .single_binding(&found.name, MODULE_SCOPE)
                        .and_then(|b| match b.kind {
                            BindingKind::Function(id) => m.function(id),
                            _ => None,
                        })
                        .is_none_or(|def| index::writes_unnamed_or_quoted(m.text(def.node), key)),
                    false => m.index.may_write_handed(&found.file, &found.name, key),
                })
    })
}

/// What a module-level function does to a config it is handed, when its body is only merges
/// of what its caller gives: HRNet's `update_config(cfg, args)` (`cfg.defrost()`,
/// `cfg.merge_from_file(args.cfg)`, `cfg.merge_from_list(args.opts)`, `cfg.freeze()`). Read by
/// the caller, which knows what `args.cfg` holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Merger {
    /// The position of the config among the call's arguments.
    config: usize,
    steps: Vec<MergeStep>,
    /// The keys it assigns, under a condition or not (`if args.modelDir: cfg.OUTPUT_DIR =
    /// args.modelDir`): unknown after the call.
    written: Vec<Vec<String>>,
}

/// One merge of a [`Merger`]: `merge_from_file` (else `merge_from_list`) of the attribute
/// `attribute` of the argument at `position`, or (`copy`) every attribute of the namespace at
/// `position` written into the config by name (`for k, v in vars(args).items(): cfg[k] = v`).
#[derive(Clone, Debug, PartialEq)]
struct MergeStep {
    file: bool,
    copy: bool,
    position: usize,
    attribute: String,
}

/// The [`Merger`] the module-level function `id` is, if it is one.
pub(crate) fn merger(m: &Module, id: crate::python::model::FunctionId) -> Option<Merger> {
    let function = m.function(id).filter(|f| f.class.is_none())?;
    if !crate::python::decorators::passes_arguments(m, function) {
        return None;
    }
    let position = |name: Node| -> Option<usize> {
        let binding = m.single_binding(m.text(name), function.scope)?;
        if binding.kind != BindingKind::Parameter || name.kind() != "identifier" {
            return None;
        }
        match argparse::parameter_position(m, function.node, m.text(name))? {
            (position, false) => Some(position),
            _ => None,
        }
    };
    let mut merger = Merger {
        config: usize::MAX,
        steps: Vec::new(),
        written: Vec::new(),
    };
    let mut config_name = None;
    let mut calls = Vec::new();
    let mut writes = Vec::new();
    let mut copies = Vec::new();
    merger_statements(m, function.body?, &mut calls, &mut writes, &mut copies)?;
    for (config, namespace) in copies {
        if config_name.is_some_and(|name| name != m.text(config)) {
            return None;
        }
        config_name = Some(m.text(config));
        merger.config = position(config)?;
        merger.steps.push(MergeStep {
            file: false,
            copy: true,
            position: position(namespace)?,
            attribute: String::new(),
        });
    }
    for call in calls {
        let callee = call.child_by_field_name("function")?;
        let receiver = callee.child_by_field_name("object")?;
        let at = position(receiver)?;
        if config_name.is_some_and(|name| name != m.text(receiver)) {
            return None;
        }
        config_name = Some(m.text(receiver));
        merger.config = at;
        let method = m.text(callee.child_by_field_name("attribute")?);
        let args = positional_args(call);
        match (method, args.as_slice()) {
            ("defrost" | "freeze", []) => {}
            ("merge_from_file" | "merge_from_list", [argument])
                if argument.kind() == "attribute" =>
            {
                merger.steps.push(MergeStep {
                    file: method == "merge_from_file",
                    copy: false,
                    position: position(argument.child_by_field_name("object")?)?,
                    attribute: m
                        .text(argument.child_by_field_name("attribute")?)
                        .to_owned(),
                });
            }
            _ => return None,
        }
    }
    let config_name = config_name?;
    for target in writes {
        merger.written.push(attribute_path(m, target, config_name)?);
    }
    merger
        .steps
        .iter()
        .any(|s| s.file || s.copy)
        .then_some(merger)
}

/// `(cfg, args)` of `for k, v in vars(args).items(): cfg[k] = v` (or `args.__dict__.items()`,
/// or `setattr(cfg, k, v)`): a loop writing every attribute of a namespace into a config.
fn namespace_copy<'a>(m: &Module<'a>, statement: Node<'a>) -> Option<(Node<'a>, Node<'a>)> {
    let text = |n: Node| m.text(n);
    let super::ItemsLoop {
        mapping,
        key,
        value,
    } = super::items_loop(m, statement)?;
    // `vars(args).items()` or `args.__dict__.items()`.
    let namespace = dict_of(m, mapping)?;
    let body = statement.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let statements: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|s| s.kind() != "comment")
        .collect();
    let [only] = statements.as_slice() else {
        return None;
    };
    let expression = only
        .named_child(0)
        .filter(|_| only.kind() == "expression_statement")?;
    let same = |a: Node, b: Node| a.kind() == "identifier" && text(a) == text(b);
    let config = match expression.kind() {
        "assignment" => {
            let left = expression.child_by_field_name("left")?;
            let right = expression.child_by_field_name("right")?;
            let written = left.child_by_field_name("subscript")?;
            (left.kind() == "subscript" && same(written, key) && same(right, value))
                .then(|| left.child_by_field_name("value"))??
        }
        "call"
            if expression
                .child_by_field_name("function")
                .is_some_and(|f| text(f) == "setattr") =>
        {
            let args = positional_args(expression);
            match args.as_slice() {
                [config, k, v] if same(*k, key) && same(*v, value) => *config,
                _ => return None,
            }
        }
        _ => return None,
    };
    (config.kind() == "identifier" && namespace.kind() == "identifier")
        .then_some((config, namespace))
}

/// The calls (`cfg.merge_from_file(...)`) and the attribute targets assigned (`cfg.X.Y =
/// ...`) of a merger's body, with `if` blocks of assignments; `None` for any other
/// statement.
fn merger_statements<'a>(
    m: &Module<'a>,
    block: Node<'a>,
    calls: &mut Vec<Node<'a>>,
    writes: &mut Vec<Node<'a>>,
    copies: &mut Vec<(Node<'a>, Node<'a>)>,
) -> Option<()> {
    let mut cursor = block.walk();
    for statement in block.named_children(&mut cursor) {
        match statement.kind() {
            "comment" | "pass_statement" => {}
            "for_statement" => copies.push(namespace_copy(m, statement)?),
            "expression_statement" => {
                let expression = statement.named_child(0)?;
                match expression.kind() {
                    "string" => {}
                    "call" => calls.push(expression),
                    "assignment" => {
                        let target = expression.child_by_field_name("left")?;
                        if target.kind() != "attribute" {
                            return None;
                        }
                        writes.push(target);
                    }
                    _ => return None,
                }
            }
            "if_statement" => {
                if statement.child_by_field_name("alternative").is_some() {
                    return None;
                }
                let (mut inner, mut inner_copies) = (Vec::new(), Vec::new());
                merger_statements(
                    m,
                    statement.child_by_field_name("consequence")?,
                    &mut inner,
                    writes,
                    &mut inner_copies,
                )?;
                // Only assignments under a condition: a merge there may or may not run.
                if !inner.is_empty() || !inner_copies.is_empty() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(())
}

/// The merger `call` calls, a function of another project file, when it hands it the
/// config `object` itself (not a part of it).
fn handed_merger(m: &Module, object: &Object, call: &CallSite, depth: u32) -> Option<Merger> {
    // Asked of every call of a file that reads the config: a merger takes the config and
    // what to merge.
    if positional_args(call.node).len() < 2 {
        return None;
    }
    let merger = m.index.merger(m.path, call.qualified.as_deref()?)?;
    let handed = *positional_args(call.node).get(merger.config)?;
    match config_of(m, handed, call.scope, depth + 1)? {
        Config::Yacs {
            object: o, path, ..
        } if o == *object && path.is_empty() => Some(merger),
        _ => None,
    }
}

/// Whether a call runs only under a condition or in a loop of its function (the
/// `__main__` guard aside).
fn is_conditional(m: &Module, node: Node) -> bool {
    let mut current = node;
    while let Some(parent) = current.parent() {
        match parent.kind() {
            "function_definition" | "lambda" | "module" => return false,
            "if_statement" if m.is_main_guard(parent) => {}
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "case_clause"
            | "conditional_expression"
            | "boolean_operator" => return true,
            _ => {}
        }
        current = parent;
    }
    false
}

/// Whether the list a `merge_from_list` gets is empty on a run without options: `[]`, or
/// `args.opts` when the file's one `add_argument("opts", ...)` is a positional with
/// `nargs=argparse.REMAINDER` or `nargs="*"` and no default (argparse then gives an empty
/// list), every parse in the file reads the command line, and nothing writes `.opts`.
fn empty_by_default(m: &Module, argument: Node) -> bool {
    if argument.kind() == "list" && argument.named_child_count() == 0 {
        return true;
    }
    let Some(dest) = argument
        .child_by_field_name("attribute")
        .filter(|_| argument.kind() == "attribute")
    else {
        return false;
    };
    option_empty_by_default(m, m.text(dest))
}

/// Whether the option `dest` of this file's parser is empty when not given (a positional
/// `opts` with `nargs=argparse.REMAINDER` and no default), the command line being parsed.
fn option_empty_by_default(m: &Module, dest: &str) -> bool {
    let parses_command_line = m
        .calls()
        .iter()
        .filter(|c| matches!(c.method, Some("parse_args" | "parse_known_args")))
        .all(|c| {
            c.node
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0)
        });
    if !parses_command_line
        || m.attribute_assignments()
            .iter()
            .any(|w| w.attribute == dest)
    {
        return false;
    }
    let mut adds = m.calls().iter().filter(|c| {
        c.method == Some("add_argument")
            && positional_args(c.node)
                .first()
                .and_then(|flag| m.string_value(*flag))
                .is_some_and(|flag| flag == dest)
    });
    let (Some(add), None) = (adds.next(), adds.next()) else {
        return false;
    };
    let no_default = m
        .keyword_arg(add.node, "default")
        .is_none_or(|d| d.kind() == "none");
    let nargs = m.keyword_arg(add.node, "nargs").is_some_and(|n| {
        m.string_value(n).as_deref() == Some("*")
            || m.qualified_name(n).as_deref() == Some("argparse.REMAINDER")
    });
    no_default && nargs
}
