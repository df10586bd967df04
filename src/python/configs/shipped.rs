//! A config merged from a file named only at run time (`update_config(args.cfg)`,
//! `cfg.merge_from_file(args.config_file)` with `--cfg` required): the config files the
//! project ships for it are what a run uses, and when every one of them gives a key the same
//! value (setting it, or keeping the default), that is the value. A file fits the config when
//! each of its top-level keys is one of the config's (yacs and the `update_config` helpers
//! refuse any other); a file that inherits another (`_BASE_`) is not read, so any such file
//! among them leaves the value unknown, as does a disagreement.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::{hydra, yaml};
use crate::python::model::{BindingKind, CallSite, Module, ScopeId, positional_args};
use crate::python::values::{Provenance, Resolved};

/// The value every shipped config file that fits gives `path` when merged over `before`, with
/// a provenance naming the merge `call` (and the default, when a file keeps it, else the first
/// file in path order); `None` when no file fits or they do not agree.
pub(super) fn agreed(
    m: &Module,
    config_file: &Path,
    before: &yaml::Node,
    path: &[String],
    shown: &str,
    call: &str,
) -> Option<Resolved> {
    let yaml::Node::Map(entries) = before else {
        return None;
    };
    let keys: HashSet<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    let mut agreed: Option<Resolved> = None;
    let mut files = 0usize;
    let fits = |k: &str| k == "_BASE_" || keys.contains(k);
    let mut candidates = fitting(m, &common_folder(m.path, config_file), fits);
    // The pytracking family keeps them in `experiments/` at the top, beside `lib/` that holds
    // both the code and the config's module.
    if candidates.is_empty()
        && let Some(root) = m.index.root_of(m.path)
    {
        candidates = fitting(m, &root, fits);
    }
    for top in candidates {
        if top.iter().any(|(k, _)| k == "_BASE_") {
            return None;
        }
        let mut tree = before.clone();
        tree.merge(yaml::Node::Map(top));
        let resolved = hydra::value_at(m, &tree, path, shown)?;
        if !resolved.value.is_known() {
            return None;
        }
        match &agreed {
            Some(first) if first.value != resolved.value => return None,
            // The default a file keeps is named before a file that sets the same.
            Some(first)
                if !matches!(first.provenance, Provenance::ConfigDefault { .. })
                    && matches!(resolved.provenance, Provenance::ConfigDefault { .. }) =>
            {
                agreed = Some(resolved);
            }
            Some(_) => {}
            None => agreed = Some(resolved),
        }
        files += 1;
    }
    let agreed = agreed?;
    Some(Resolved {
        value: agreed.value,
        provenance: Provenance::Shipped {
            base: Box::new(agreed.provenance),
            files,
            call: call.split_whitespace().collect::<Vec<_>>().join(" "),
        },
    })
}

/// The top-level entries of each config file under `base` that fits: not empty, and each of
/// its keys one `fits` accepts. In path order.
pub(super) fn fitting(
    m: &Module,
    base: &Path,
    fits: impl Fn(&str) -> bool,
) -> Vec<Vec<(String, yaml::Node)>> {
    m.index
        .config_files(base)
        .iter()
        .filter_map(|file| match yaml::load(file).as_ref() {
            Ok(yaml::Node::Map(top)) if !top.is_empty() && top.iter().all(|(k, _)| fits(k)) => {
                Some(top.clone())
            }
            _ => None,
        })
        .collect()
}

/// The deepest folder holding both files (empty when they share none).
fn common_folder(a: &Path, b: &Path) -> PathBuf {
    let (Some(a), Some(b)) = (a.parent(), b.parent()) else {
        return PathBuf::new();
    };
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// Folders whose Python files are config files (mmcv's and mmengine's `configs/`).
const CONFIG_FOLDERS: &[&str] = &["config", "configs", "cfg", "cfgs", "conf"];

/// More files than this under a folder and the words of its configs are not gathered.
const MAX_SHIPPED_FILES: usize = 5000;

/// Whether a change to `path` may change the words of the shipped configs: a YAML file, or a
/// Python file in a config folder.
pub(crate) fn is_shipped_config(path: &Path) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => true,
        Some("py") => in_config_folder(path),
        _ => false,
    }
}

fn in_config_folder(path: &Path) -> bool {
    path.parent().is_some_and(|folder| {
        folder.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|c| CONFIG_FOLDERS.contains(&c))
        })
    })
}

/// Every word (a name's characters) of the config files the project ships under `base`: its
/// YAML files, and with `python` its Python files in config folders. A superset of the keys
/// any of them gives. `None` when there is none, when there are too many, when one cannot be
/// read, or when one inherits (`_base_`) a file that is not among them.
pub(crate) fn shipped_words(
    reader: &crate::python::index::Reader,
    base: &Path,
    python: bool,
) -> Option<HashSet<String>> {
    let here = base.as_os_str().is_empty();
    let root = if here { Path::new(".") } else { base };
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in ignore::WalkBuilder::new(root).require_git(false).build() {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.into_path();
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let fits = match path.extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => true,
            Some("py") => python && in_config_folder(relative),
            _ => false,
        };
        if fits {
            files.push(path);
            if files.len() > MAX_SHIPPED_FILES {
                return None;
            }
        }
    }
    if files.is_empty() {
        return None;
    }
    let listed: HashSet<PathBuf> = files
        .iter()
        .map(|f| crate::python::fs::normalised(f))
        .collect();
    let mut words = HashSet::new();
    for file in &files {
        let text = reader(file)?;
        if text.contains("_base_") && !bases_listed(&text, file, &listed) {
            return None;
        }
        words.extend(
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
                .map(str::to_owned),
        );
    }
    Some(words)
}

/// Whether every file a config names in quotes (its `_base_` files) is one of `listed`.
fn bases_listed(text: &str, file: &Path, listed: &HashSet<PathBuf>) -> bool {
    let folder = file.parent().unwrap_or(Path::new(""));
    text.split(['\'', '"']).skip(1).step_by(2).all(|quoted| {
        let named = [".py", ".yaml", ".yml", ".json"]
            .iter()
            .any(|e| quoted.ends_with(e));
        !named || listed.contains(&crate::python::fs::normalised(&folder.join(quoted)))
    })
}

/// The keys a copy of a config read from a file named only at run time may write: `for k, v
/// in cfg.items(): setattr(args, k, v)` after `cfg = mmcv.Config.fromfile(args.config)` or
/// `cfg = yaml.safe_load(open(args.config))`, looping over its sections too (`for _, section
/// in cfg.items(): for k, v in section.items(): ...`), or `vars(args).update(cfg)`. A run
/// names one of the config files the project ships, so only a key one of them holds can be
/// written (DeiT-style `update_from_config(args)` with a required `--config`).
pub(crate) struct CopiedKeys(crate::python::index::ShippedWords);

impl CopiedKeys {
    pub(crate) fn may_write(&self, key: &str) -> bool {
        self.0
            .as_ref()
            .as_ref()
            .is_none_or(|words| words.contains(key))
    }

    /// Every key the copy may write (a superset: every word of the files).
    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.as_ref().iter().flatten()
    }
}

/// The keys `call` (a `setattr` or an `update` of an object's attributes) copies, when it
/// copies a config read at run time from a file no value names ([`CopiedKeys`]).
pub(crate) fn copied_keys(m: &Module, call: &CallSite) -> Option<CopiedKeys> {
    let python = copied_config(m, call)?;
    let words = m.index.shipped_words(m.path.parent()?, python);
    words.is_some().then(|| CopiedKeys(words))
}

/// Whether `call` copies a config read at run time from a file no value names
/// ([`CopiedKeys`]), and whether that file may be a Python config.
pub(crate) fn copied_config(m: &Module, call: &CallSite) -> Option<bool> {
    let (_, name) = super::attribute_setter(m, call)?;
    let mapping = match name {
        Some(name) if name.kind() == "identifier" => iterated_by(m, call.node, m.text(name))?,
        Some(_) => return None,
        None => match positional_args(call.node).as_slice() {
            [one]
                if call
                    .node
                    .child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() == 1) =>
            {
                *one
            }
            _ => return None,
        },
    };
    let (path, python) = loaded_from(m, mapping, call.scope, 0)?;
    // A path the analysis knows is read as the file it is, elsewhere. Reading the path
    // (`args.config`) asks what this very copy writes: it stays unknown meanwhile.
    let key = (m.source.as_ptr() as usize, call.node.id());
    if READING_PATH.with_borrow(|r| r.contains(&key)) {
        return None;
    }
    READING_PATH.with_borrow_mut(|r| r.push(key));
    let known = m.value_in(path, call.scope, 0).value.is_known();
    READING_PATH.with_borrow_mut(|r| r.pop());
    (!known).then_some(python)
}

thread_local! {
    /// The copies whose config path [`copied_keys`] is reading on this thread.
    static READING_PATH: std::cell::RefCell<Vec<(usize, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The mapping whose keys the `for` around `node` binds to `key`: `cfg` of `for key, value
/// in cfg.items():`, `for key in cfg.keys():` or `for key in cfg:`.
fn iterated_by<'a>(m: &Module<'a>, node: Node<'a>, key: &str) -> Option<Node<'a>> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if matches!(
            parent.kind(),
            "function_definition" | "class_definition" | "lambda" | "module"
        ) {
            return None;
        }
        let body = parent.child_by_field_name("body");
        if parent.kind() == "for_statement" && body.is_some_and(|b| b.id() == current.id()) {
            let left = parent.child_by_field_name("left")?;
            let first = match left.kind() {
                "pattern_list" | "tuple_pattern" => left.named_child(0)?,
                _ => left,
            };
            if first.kind() == "identifier" && m.text(first) == key {
                let right = parent.child_by_field_name("right")?;
                return Some(called_on(m, right, &["items", "keys"]).unwrap_or(right));
            }
        }
        current = parent;
    }
    None
}

/// `x` of `x.method()` (no arguments) for one of `methods`.
fn called_on<'a>(m: &Module<'a>, expr: Node<'a>, methods: &[&str]) -> Option<Node<'a>> {
    let callee = expr
        .child_by_field_name("function")
        .filter(|c| expr.kind() == "call" && c.kind() == "attribute")?;
    let method = m.text(callee.child_by_field_name("attribute")?);
    let bare = expr
        .child_by_field_name("arguments")
        .is_some_and(|a| a.named_child_count() == 0);
    (bare && methods.contains(&method))
        .then(|| callee.child_by_field_name("object"))
        .flatten()
}

/// Calls that read a config file whose path is their first argument: mmcv's and mmengine's
/// (`true`: Python config files too), OmegaConf's.
const PATH_READERS: &[(&str, bool)] = &[
    ("mmcv.Config.fromfile", true),
    ("mmcv.utils.Config.fromfile", true),
    ("mmengine.Config.fromfile", true),
    ("mmengine.config.Config.fromfile", true),
    ("omegaconf.OmegaConf.load", false),
];

/// YAML loads of an opened file.
const STREAM_READERS: &[&str] = &[
    "yaml.load",
    "yaml.safe_load",
    "yaml.full_load",
    "yaml.unsafe_load",
];

/// The path of the config file `expr` holds (part of) and whether it may be a Python config:
/// through attributes, subscripts, `.items()`, wrappers and loop variables, to the call that
/// read the file.
fn loaded_from<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<(Node<'a>, bool)> {
    if depth > 8 {
        return None;
    }
    let next = |inner: Node<'a>| loaded_from(m, inner, scope, depth + 1);
    match expr.kind() {
        "attribute" => next(expr.child_by_field_name("object")?),
        "subscript" => next(expr.child_by_field_name("value")?),
        "parenthesized_expression" => next(expr.named_child(0)?),
        "call" => {
            if let Some(object) = called_on(m, expr, &["items", "values", "keys", "copy"]) {
                return next(object);
            }
            let callee = expr.child_by_field_name("function")?;
            let qualified = m.qualified_in(callee, scope, 0)?;
            let first = *positional_args(expr).first()?;
            if let Some((_, python)) = PATH_READERS.iter().find(|(q, _)| *q == qualified) {
                return Some((first, *python));
            }
            if STREAM_READERS.contains(&qualified.as_str()) {
                let open = super::pyyaml::opened_by(m, first, scope)?;
                return Some((*positional_args(open).first()?, false));
            }
            let wraps = super::pyyaml::WRAPPERS.contains(&qualified.as_str())
                || matches!(qualified.as_str(), "builtins.dict" | "builtins.vars");
            wraps.then(|| next(first)).flatten()
        }
        "identifier" => {
            let binding = m.single_binding(m.text(expr), scope)?;
            match binding.kind {
                BindingKind::Assign => next(binding.value?),
                BindingKind::Loop => {
                    let mut statement = binding.node;
                    while statement.kind() != "for_statement" {
                        statement = statement.parent()?;
                    }
                    let right = statement.child_by_field_name("right")?;
                    next(called_on(m, right, &["items", "values"]).unwrap_or(right))
                }
                _ => None,
            }
        }
        _ => None,
    }
}
