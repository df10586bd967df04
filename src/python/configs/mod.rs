//! Loader arguments read from configuration objects rather than argparse: dataclass configs
//! (`cfg = TrainConfig()`, also through `HfArgumentParser(...).parse_args_into_dataclasses()`
//! or `tyro.cli(TrainConfig)`),
//! `@click.option` defaults, and Hydra / OmegaConf YAML files (`@hydra.main(config_path=...,
//! config_name=...)`, `OmegaConf.load("x.yaml")`, PyYAML's `yaml.safe_load` of a file opened
//! from a known path, also by a project helper handed the path, also turned into options and
//! back by asteroid's recipe helpers), yacs
//! `CfgNode` configs with the YAML files merged into them, and the module-level configs read
//! like them (a plain config class or its instance, a keyword bag of hyperparameters).
//!
//! What runs is what a run without command-line options gets: a dataclass field's default, a
//! click option's `default=`, the value in the config file Hydra composes by default. A config
//! is followed through names bound once, nested fields, copies (`copy.deepcopy`, or a project
//! function copying it key by key, `dict2namespace`), a
//! function's parameter that every call of the file passes the same config for, and
//! `self.cfg` set once in `__init__` (or kept by a base class's `__init__`). A mapping of a
//! YAML config unpacked into a call (`**cfg.dataloader`) gives its keys as arguments.
//! Anything else stays unknown; a config file's value that cannot be read (an interpolation,
//! `???`, a missing key or file, broken YAML) stays unknown with its reason.

mod absl;
mod asteroid;
mod classes;
mod click;
mod converters;
mod dataclass;
mod hf;
mod hydra;
mod pydict;
mod pyyaml;
mod shipped;
mod yacs;
mod yaml;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use tree_sitter::Node;

use crate::python::argparse::{External, has_splat, parameter_position};
use crate::python::defaults::{self, Passed, passed_for};
use crate::python::model::{
    AttributeAssignment, Binding, BindingId, BindingKind, CallSite, ClassId, FunctionId, MAX_DEPTH,
    MODULE_SCOPE, Module, ScopeId, positional_args,
};
use crate::python::syntax;
use crate::python::values::{ConfigGap, Provenance, Resolved};

pub(crate) use absl::flag_value;
pub(crate) use classes::instance_writers;
pub(crate) use click::{is_command, parameter_value};
pub(crate) use dataclass::{Record, record, record_fields};
pub(crate) use pydict::{handed_key, imported_constant};
pub(crate) use pyyaml::{SplatFile, YamlLoader, parser_defaults, returned_load, splat_file};
pub(crate) use shipped::{copied_config, copied_keys, is_shipped_config, shipped_words};
pub(crate) use yacs::{Merger, attribute_setter, dict_of, merger};

/// How many calls of a function are read before giving up.
const MAX_CALLS: usize = 16;

/// What a configuration expression holds.
#[derive(Clone, Debug)]
enum Config<'a> {
    /// An instance of a dataclass of this file; `call` is the construction, `None` for an
    /// instance built with every default (by `HfArgumentParser`, a `default_factory`).
    Dataclass {
        class: ClassId,
        call: Option<(Node<'a>, ScopeId)>,
    },
    /// An instance `HfArgumentParser` parses from the command line.
    Parsed(hf::Parsed),
    /// A mapping of a YAML configuration, at `path` under the file's root (`shown` is how
    /// the file is named for the file using it; `named` the commands that name the file, when
    /// a run must name it).
    Yaml {
        tree: Arc<yaml::Node>,
        path: Vec<String>,
        shown: String,
        named: Option<Arc<Named>>,
    },
    /// A yacs config node at `path` under the config `object`, whose defaults (`tree`) are
    /// set on the module-level node `name` of `file`; merges are read when a value is.
    Yacs {
        object: yacs::Object,
        tree: Arc<yaml::Node>,
        path: Vec<String>,
        file: std::path::PathBuf,
        name: String,
    },
}

/// The file of a YAML config that the commands of the project's shell scripts and READMEs
/// name for an option a run must give (`--cfg configs/res50.yaml`): the first such command,
/// and how many other files other commands name (the tree is then what they all agree on).
#[derive(Debug)]
pub(super) struct Named {
    run: crate::python::argparse::RunGiven,
    others: usize,
}

impl Named {
    /// What the config files the commands name (each with its tree, how it is shown, and
    /// the first command naming it) all agree on, shown as the first, with the commands.
    fn agreed(
        files: Vec<(yaml::Node, String, crate::python::argparse::RunGiven)>,
    ) -> Option<(yaml::Node, String, Arc<Named>)> {
        let count = files.len();
        let mut files = files.into_iter();
        let (mut tree, shown, run) = files.next()?;
        for (other, ..) in files {
            tree = tree.agreed(&other, "", count);
        }
        let others = count - 1;
        Some((tree, shown, Arc::new(Named { run, others })))
    }

    /// A value read from the config, with the command that names the file when known.
    fn read(named: Option<&Named>, resolved: Resolved) -> Resolved {
        // A key the commands set themselves names its command already.
        if matches!(resolved.provenance, Provenance::RunOverride { .. }) {
            return resolved;
        }
        match named {
            Some(named) if resolved.value.is_known() => Resolved {
                value: resolved.value,
                provenance: Provenance::RunConfig {
                    base: Box::new(resolved.provenance),
                    written: named.run.written.clone(),
                    script: named.run.script.clone(),
                    line: named.run.line,
                    others: named.others,
                },
            },
            _ => resolved,
        }
    }
}

impl Config<'_> {
    /// Whether two configs are the same object (two calls passing the same config), or YAML
    /// documents equal where read (each call loading the file again, `config =
    /// edict(load_yaml(args.cfg))` built anew by the helper for each read).
    fn same(&self, other: &Config) -> bool {
        match (self, other) {
            (
                Config::Dataclass { class: a, call: ca },
                Config::Dataclass { class: b, call: cb },
            ) => a == b && ca.map(|c| c.0.id()) == cb.map(|c| c.0.id()),
            (Config::Parsed(a), Config::Parsed(b)) => a == b,
            (
                Config::Yaml {
                    tree: a, path: pa, ..
                },
                Config::Yaml {
                    tree: b, path: pb, ..
                },
            ) => (Arc::ptr_eq(a, b) || a == b) && pa == pb,
            (
                Config::Yacs {
                    object: a,
                    path: pa,
                    ..
                },
                Config::Yacs {
                    object: b,
                    path: pb,
                    ..
                },
            ) => a == b && pa == pb,
            _ => false,
        }
    }
}

/// What each mapping of the project's Hydra configs that instantiates the module-level class
/// `class` of `m` (`_target_: ...<module>.<class>`) gives its constructor's parameter `param`:
/// `None` when the mapping leaves it out (the constructor's default), else the value, unknown
/// where the mapping cannot say (an interpolation of the whole config).
pub(crate) fn instantiated_values(m: &Module, class: &str, param: &str) -> Vec<Option<Resolved>> {
    let module = match m.path.file_stem().and_then(|s| s.to_str()) {
        Some("__init__") => m
            .path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str()),
        stem => stem,
    };
    let Some(module) = module else {
        return Vec::new();
    };
    hydra::instantiated(m, module, class)
        .into_iter()
        .map(|(tree, shown)| {
            tree.get(param)?;
            let key = [param.to_owned()];
            Some(hydra::value_at(m, &tree, &key, &shown).unwrap_or_else(Resolved::unknown))
        })
        .collect()
}

/// The fields `fields` of the object `expr` holds, each as reading it gives it (`None` where
/// the analysis cannot say), when it holds arguments `HfArgumentParser` parses from the
/// command line (a `Trainer`'s `args=training_args`). `None` when it holds no such object
/// (`TrainingArguments(...)` is a loader of its own).
pub(crate) fn parsed_fields(
    m: &Module,
    expr: Node,
    scope: ScopeId,
    fields: &[&str],
) -> Option<Vec<Option<Resolved>>> {
    let Config::Parsed(parsed) = config_of(m, expr, scope, 1)? else {
        return None;
    };
    Some(
        fields
            .iter()
            .map(|f| hf::field_value(m, &parsed, f, 1))
            .collect(),
    )
}

/// `object.attribute` (or `object["attribute"]`) when `object` holds a configuration.
pub(crate) fn attribute_value(
    m: &Module,
    object: Node,
    attribute: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    let config = config_of(m, object, scope, depth + 1)?;
    match &config {
        Config::Dataclass { class, call } => {
            dataclass::field_value(m, *class, *call, attribute, depth + 1)
        }
        Config::Parsed(parsed) => hf::field_value(m, parsed, attribute, depth + 1),
        Config::Yaml {
            tree,
            path,
            shown,
            named,
        } => {
            // `cfg.loader.num_workers = ...` (or under `open_dict`) anywhere in the file: the
            // file's value may not be what runs.
            if written_in_file(m, attribute) {
                return None;
            }
            let mut path = path.clone();
            path.push(attribute.to_owned());
            let read = hydra::value_at(m, tree, &path, shown)?;
            Some(Named::read(named.as_deref(), read))
        }
        Config::Yacs {
            object,
            tree,
            path,
            file,
            name,
        } => {
            let mut path = path.clone();
            path.push(attribute.to_owned());
            let defaults = yacs::Defaults { tree, file, name };
            yacs::value(m, object, &defaults, &path, depth + 1)
        }
    }
}

/// The keys and values of the YAML mapping `**expr` unpacks (`DataLoader(ds,
/// **cfg.dataloader)`), each value as reading `expr.key` gives it (unknown for an
/// interpolation, or a key the file assigns somewhere). `None` when `expr` is not a mapping
/// of a configuration file the analysis reads.
pub(crate) fn mapping_entries(
    m: &Module,
    expr: Node,
    scope: ScopeId,
    depth: u32,
) -> Option<Vec<(String, Resolved)>> {
    let Config::Yaml {
        tree,
        path,
        shown,
        named,
    } = config_of(m, expr, scope, depth + 1)?
    else {
        return None;
    };
    let entries = mapping_at(&tree, &path)?;
    let mut keys: Vec<&str> = Vec::new();
    for (key, _) in entries {
        if !keys.contains(&key.as_str()) {
            keys.push(key);
        }
    }
    Some(
        keys.into_iter()
            .map(|key| {
                let written = written_in_file(m, key);
                let mut at = path.clone();
                at.push(key.to_owned());
                let value = if written {
                    Resolved::unknown()
                } else {
                    let read =
                        hydra::value_at(m, &tree, &at, &shown).unwrap_or_else(Resolved::unknown);
                    Named::read(named.as_deref(), read)
                };
                (key.to_owned(), value)
            })
            .collect(),
    )
}

/// The entries of the mapping at `path` of `tree`; `None` when there is none.
fn mapping_at<'t>(tree: &'t yaml::Node, path: &[String]) -> Option<&'t [(String, yaml::Node)]> {
    let mut node = tree;
    for part in path {
        node = node.get(part)?;
    }
    match node {
        yaml::Node::Map(entries) => Some(entries),
        _ => None,
    }
}

/// `object.get(key, default)` when `object` holds a mapping of a YAML config the analysis
/// reads whole: the file's value when the mapping has the key, else the default (`None`
/// without one). `None` when `object` is no such mapping, or the file writes the key.
pub(crate) fn get_value(
    m: &Module,
    object: Node,
    key: &str,
    default: Option<Node>,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    let Config::Yaml { tree, path, .. } = config_of(m, object, scope, depth + 1)? else {
        return None;
    };
    let entries = mapping_at(&tree, &path)?;
    if written_in_file(m, key) {
        return None;
    }
    if entries.iter().any(|(k, _)| k == key) {
        return attribute_value(m, object, key, scope, depth);
    }
    Some(match default {
        Some(default) => m.value_in(default, scope, depth + 1),
        None => Resolved {
            value: crate::python::values::Value::None,
            provenance: crate::python::values::Provenance::Computed,
        },
    })
}

/// The entries of every section of the YAML mapping `expr` holds, flattened into one mapping
/// (`for key in config: for k, v in config[key].items(): setattr(args, k, v)`), each value as
/// the file gives it, a later section's winning. `None` when `expr` is not a YAML config the
/// analysis reads, or a section is not a mapping.
pub(crate) fn flattened_sections(
    m: &Module,
    expr: Node,
    scope: ScopeId,
) -> Option<HashMap<String, Resolved>> {
    let Config::Yaml {
        tree,
        path,
        shown,
        named,
    } = config_of(m, expr, scope, 0)?
    else {
        return None;
    };
    let sections = mapping_at(&tree, &path)?;
    let mut out = HashMap::new();
    for (section, entries) in sections {
        let yaml::Node::Map(entries) = entries else {
            return None;
        };
        for (key, _) in entries {
            let mut at = path.clone();
            at.extend([section.clone(), key.clone()]);
            let value = hydra::value_at(m, &tree, &at, &shown).unwrap_or_else(Resolved::unknown);
            out.insert(key.clone(), Named::read(named.as_deref(), value));
        }
    }
    Some(out)
}

/// Whether the file may write the config key `key`: `x.key = ...`, `x["key"] = ...` (or an
/// augmented assignment), or an `update(...)` on a line that names it (as a whole name). The file's value is
/// then not known to be what runs.
pub(super) fn written_in_file(m: &Module, key: &str) -> bool {
    // `cfg.num_workers //= world_size` shares it among the processes, which run it all;
    // `self.num_workers = ...` in a method sets an instance's attribute, not a config's.
    let writes = |w: &AttributeAssignment| {
        w.attribute == key
            && !crate::python::distributed::shares_out(m, w.target, 0)
            && w.target
                .child_by_field_name("object")
                .is_none_or(|o| defaults::self_of(m, o, w.scope).is_none())
    };
    if m.attribute_assignments().iter().any(writes) {
        return true;
    }
    syntax::key_writes(m.source.as_bytes(), key)
        .next()
        .is_some()
        || m.source
            .lines()
            .any(|line| line.contains("update(") && syntax::contains_word(line, key))
}

/// The configuration `expr` holds, if it is one the analysis can read.
fn config_of<'a>(m: &Module<'a>, expr: Node<'a>, scope: ScopeId, depth: u32) -> Option<Config<'a>> {
    if depth > MAX_DEPTH {
        return None;
    }
    match expr.kind() {
        "parenthesized_expression" => config_of(m, expr.named_child(0)?, scope, depth + 1),
        "identifier" => name_config(m, expr, scope, depth),
        "attribute" => {
            let object = expr.child_by_field_name("object")?;
            let attribute = m.text(expr.child_by_field_name("attribute")?);
            if let Some(config) = self_config(m, object, attribute, scope, depth) {
                return Some(config);
            }
            // A config of an imported module, named through it (`cfgs.dataset_cfgs` after
            // `import cfgs.cfgs_LF_1 as cfgs`).
            if m.names_an_import(object, scope)
                && let Some(qualified) = m.qualified_in(expr, scope, depth + 1)
                && let Some(config) = yacs::imported(m, &qualified)
                    .or_else(|| pydict::imported(m, &qualified, attribute))
            {
                return Some(config);
            }
            let base = config_of(m, object, scope, depth + 1)?;
            nested(m, base, attribute, depth)
        }
        "subscript" => {
            let object = expr.child_by_field_name("value")?;
            let key = m.string_value(expr.child_by_field_name("subscript")?)?;
            let base = config_of(m, object, scope, depth + 1)?;
            nested(m, base, &key, depth)
        }
        "call" => {
            let callee = expr.child_by_field_name("function")?;
            if let Some(class) = dataclass::local_dataclass(m, callee, scope) {
                return Some(Config::Dataclass {
                    class,
                    call: Some((expr, scope)),
                });
            }
            match m.qualified_in(callee, scope, depth + 1).as_deref() {
                Some("omegaconf.OmegaConf.load") => hydra::load_literal(m, expr, scope),
                // `tyro.cli(TrainConfig)`: the command line's defaults are the fields' (not
                // with `default=` an instance, nor `args=` a command line of the code's own).
                Some("tyro.cli") => {
                    let [class] = positional_args(expr)[..] else {
                        return None;
                    };
                    let class = dataclass::local_dataclass(m, class, scope)?;
                    let plain = m.keyword_arg(expr, "default").is_none()
                        && m.keyword_arg(expr, "args").is_none()
                        && !has_splat(expr);
                    plain.then_some(Config::Dataclass { class, call: None })
                }
                Some(q) if asteroid::parses(q) => asteroid::parsed(m, expr, None, scope, depth),
                Some(q) if pyyaml::LOADS.contains(&q) => pyyaml::load(m, expr, scope),
                // A copy, or a wrapper giving attribute access, holds what the original holds
                // (writes to either are checked where a value is read).
                Some(q) if pyyaml::WRAPPERS.contains(&q) => {
                    match positional_args(expr).as_slice() {
                        [original] => config_of(m, *original, scope, depth + 1),
                        _ => None,
                    }
                }
                // `SimpleNamespace(**cfg)`: the mapping's keys as attributes.
                Some("argparse.Namespace" | "types.SimpleNamespace") => {
                    config_of(m, only_splat(expr)?, scope, depth + 1)
                }
                // `create_edict(cfg)`: a function of the file copying it key by key.
                _ if let Some(original) = converters::converted(m, expr, scope) => {
                    config_of(m, original, scope, depth + 1)
                }
                // `config = update(config, args)`: the config given back.
                _ if let Some(original) = converters::passed_through(m, expr, scope) => {
                    config_of(m, original, scope, depth + 1)
                }
                _ => yacs::copied(m, expr, scope, depth)
                    .or_else(|| yacs::instance(m, expr))
                    .or_else(|| pyyaml::helper_load(m, expr, scope, depth)),
            }
        }
        _ => None,
    }
}

/// `x` of a call whose one argument is `**x`.
fn only_splat(call: Node) -> Option<Node> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let mut named = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment");
    match (named.next(), named.next()) {
        (Some(splat), None) if splat.kind() == "dictionary_splat" => splat.named_child(0),
        _ => None,
    }
}

/// The config a field of `base` holds: a nested dataclass, a YAML mapping.
fn nested<'a>(m: &Module<'a>, base: Config<'a>, attribute: &str, depth: u32) -> Option<Config<'a>> {
    match base {
        Config::Dataclass { class, call } => {
            dataclass::nested(m, class, call, attribute, depth + 1)
        }
        // `HfArgumentParser` reads no nested dataclass.
        Config::Parsed(_) => None,
        Config::Yaml {
            tree,
            mut path,
            shown,
            named,
        } => {
            path.push(attribute.to_owned());
            Some(Config::Yaml {
                tree,
                path,
                shown,
                named,
            })
        }
        Config::Yacs {
            object,
            tree,
            mut path,
            file,
            name,
        } => {
            path.push(attribute.to_owned());
            Some(Config::Yacs {
                object,
                tree,
                path,
                file,
                name,
            })
        }
    }
}

/// A name: bound once to a config, a destructuring of `parse_args_into_dataclasses()`, the
/// config parameter of a Hydra entry point, or a parameter every call passes one config for.
fn name_config<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Config<'a>> {
    let ids = m.lookup(m.text(expr), scope)?;
    let mut found: Option<Config> = None;
    for id in ids {
        let binding = m.bindings().get(*id)?;
        if ids.len() > 1 && never_bound(m, *id, binding.node, depth) {
            continue;
        }
        // `config = update(config, args)`: what the name's other bindings hold, given back.
        if ids.len() > 1
            && let Some(value) = binding.value.filter(|v| v.kind() == "call")
            && converters::passed_through(m, value, binding.scope)
                .is_some_and(|a| a.kind() == "identifier" && m.text(a) == binding.name)
        {
            continue;
        }
        let config = match (&binding.kind, binding.value) {
            (BindingKind::Assign, Some(value)) if binding.scope == MODULE_SCOPE => {
                match yacs::global(m, binding.name) {
                    Some(config) => config,
                    None => pydict::literal(m, value, binding.name)
                        .or_else(|| config_of(m, value, binding.scope, depth + 1))?,
                }
            }
            (BindingKind::Class(_), _) if binding.scope == MODULE_SCOPE => {
                yacs::global(m, binding.name)?
            }
            (BindingKind::Import { qualified }, _) => yacs::imported(m, qualified)
                .or_else(|| pydict::imported(m, qualified, binding.name))?,
            (BindingKind::Assign | BindingKind::Walrus, Some(value)) => {
                pydict::literal(m, value, binding.name)
                    .or_else(|| config_of(m, value, binding.scope, depth + 1))?
            }
            (BindingKind::Assign, None) if let Some(config) = asteroid_pair(m, binding, depth) => {
                config
            }
            (BindingKind::Assign, None) => match hf::destructured(m, binding, depth)? {
                hf::Destructured::Parsed(parsed) => Config::Parsed(parsed),
                // `parser.parse_json_file(sys.argv[1])`: a file chosen on the command line.
                hf::Destructured::CommandLineFile => continue,
            },
            (BindingKind::Parameter, _) => parameter_config(m, binding, depth)?,
            _ => return None,
        };
        let config = updated(m, config, binding.name, *id, depth);
        match &found {
            Some(f) if !f.same(&config) => return None,
            Some(_) => {}
            None => found = Some(config),
        }
    }
    found
}

/// The header of `for k, v in mapping.items():` (no `else`): the mapping, and the names bound
/// to each key and value. Both configs copied key by key ([`converters`]) and namespaces copied
/// into a config ([`yacs`]) start so.
pub(super) struct ItemsLoop<'a> {
    pub(super) mapping: Node<'a>,
    pub(super) key: Node<'a>,
    pub(super) value: Node<'a>,
}

pub(super) fn items_loop<'a>(m: &Module<'a>, statement: Node<'a>) -> Option<ItemsLoop<'a>> {
    if statement.kind() != "for_statement" || statement.child_by_field_name("alternative").is_some()
    {
        return None;
    }
    let target = statement.child_by_field_name("left")?;
    if !matches!(target.kind(), "pattern_list" | "tuple_pattern") || target.named_child_count() != 2
    {
        return None;
    }
    let (key, value) = (target.named_child(0)?, target.named_child(1)?);
    let items = statement.child_by_field_name("right")?;
    let method = items.child_by_field_name("function")?;
    let called_items = items.kind() == "call"
        && method.kind() == "attribute"
        && method
            .child_by_field_name("attribute")
            .is_some_and(|a| m.text(a) == "items")
        && positional_args(items).is_empty();
    (called_items && key.kind() == "identifier" && value.kind() == "identifier").then_some(
        ItemsLoop {
            mapping: method.child_by_field_name("object")?,
            key,
            value,
        },
    )
}

/// Whether the binding `id` (at `node`) sits in a branch that does not run under the defaults
/// (`if cfg.wandb: cfg = DictConfig(wandb.config.as_dict())` with `wandb: false`), its
/// condition read without it; also while such a test of it is under way.
fn never_bound(m: &Module, id: BindingId, node: Node, depth: u32) -> bool {
    use crate::python::argparse::{branch_runs, set_aside, setting_aside};
    set_aside(m, id)
        || setting_aside(m, id, || branch_runs(m, node, None, depth + 1)) == Some(false)
}

/// A YAML mapping held by `name`, as the file's `name.update(other)` calls leave it: the
/// top-level keys of another YAML mapping replace its own (`config = default_config;
/// config.update(user_config)`, visualnav-transformer's two files); an update from anything
/// else may change any key.
fn updated<'a>(
    m: &Module<'a>,
    config: Config<'a>,
    name: &str,
    binding: BindingId,
    depth: u32,
) -> Config<'a> {
    let Config::Yaml {
        tree,
        path,
        shown,
        named,
    } = config
    else {
        return config;
    };
    // `name.update(...)` where `name` may be this binding.
    let updates: Vec<&CallSite> = m
        .calls()
        .iter()
        .filter(|call| {
            call.method == Some("update")
                && call
                    .callee
                    .child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "identifier" && m.text(o) == name)
                && m.lookup(name, call.scope)
                    .is_some_and(|ids| ids.contains(&binding))
        })
        .collect();
    if updates.is_empty() {
        return Config::Yaml {
            tree,
            path,
            shown,
            named,
        };
    }
    let mut merged = (*tree).clone();
    for call in updates {
        let from = match positional_args(call.node).as_slice() {
            [argument]
                if call
                    .node
                    .child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() == 1) =>
            {
                config_of(m, *argument, call.scope, depth + 1)
            }
            _ => None,
        };
        let gap = || {
            yaml::Node::Gap(ConfigGap::Merged {
                call: m.text(call.callee).to_owned(),
                line: m.line(call.node.start_byte()),
            })
        };
        let other = match &from {
            Some(Config::Yaml {
                tree: other,
                path: other_path,
                ..
            }) => mapping_at(other, other_path),
            _ => None,
        };
        let (Some(into), Some(entries)) = (mapping_at_mut(&mut merged, &path), other) else {
            // What the update brings, or where it goes, is not read: any key may change.
            let at_path = path.split_last().and_then(|(last, parent)| {
                mapping_at_mut(&mut merged, parent)?
                    .iter_mut()
                    .rev()
                    .find(|(k, _)| k == last)
                    .map(|(_, value)| value)
            });
            match at_path {
                Some(value) => *value = gap(),
                None => merged = gap(),
            }
            continue;
        };
        // `dict.update`: a key's value is replaced whole, not merged.
        for (key, value) in entries {
            match into.iter_mut().rev().find(|(k, _)| k == key) {
                Some((_, existing)) => *existing = value.clone(),
                None => into.push((key.clone(), value.clone())),
            }
        }
    }
    Config::Yaml {
        tree: Arc::new(merged),
        path,
        shown,
        named,
    }
}

/// The entries of the mapping at `path` of `tree`, to change.
fn mapping_at_mut<'t>(
    tree: &'t mut yaml::Node,
    path: &[String],
) -> Option<&'t mut Vec<(String, yaml::Node)>> {
    let mut node = tree;
    for part in path {
        let yaml::Node::Map(entries) = node else {
            return None;
        };
        node = entries
            .iter_mut()
            .rev()
            .find(|(k, _)| k == part)
            .map(|(_, v)| v)?;
    }
    match node {
        yaml::Node::Map(entries) => Some(entries),
        _ => None,
    }
}

/// `conf, args = parse_args_as_dict(parser, return_plain_args=True)`: `conf`.
fn asteroid_pair<'a>(m: &Module<'a>, binding: &Binding<'a>, depth: u32) -> Option<Config<'a>> {
    let (call, index) = crate::python::argparse::destructured(binding)?;
    let callee = call.child_by_field_name("function")?;
    let qualified = m.qualified_in(callee, binding.scope, depth + 1)?;
    if !asteroid::parses(&qualified) {
        return None;
    }
    asteroid::parsed(m, call, Some(index), binding.scope, depth)
}

/// A parameter's config: Hydra's for an entry point's first parameter, else what every call
/// in the file passes (`train(cfg)`, `Trainer(cfg)` for `__init__`).
fn parameter_config<'a>(m: &Module<'a>, param: &Binding<'a>, depth: u32) -> Option<Config<'a>> {
    let function_id = m.scopes().get(param.scope)?.function?;
    let function = m.function(function_id)?;
    if let Some(config) = hydra::entry_config(m, function, param.name) {
        return Some(config);
    }
    if !crate::python::decorators::passes_arguments(m, function) {
        return None;
    }
    let (position, keyword_only) = parameter_position(m, function.node, param.name)?;
    let (name, name_range, class) = match function.class {
        Some(class) if function.name == "__init__" => {
            let c = m.class(class)?;
            (c.name, c.name_range, Some(class))
        }
        Some(class) => return method_config(m, function_id, class, param.name),
        None => (function.name, function.name_range, None),
    };
    let mut found: Option<Config> = None;
    let mut calls = 0;
    let mut references = defaults::references_to(m, name, name_range, Some(function_id), class);
    if class.is_some() {
        references.retain(|(reference, scope)| {
            let call = reference.parent().filter(|p| {
                p.kind() == "call" && p.child_by_field_name("function") == Some(*reference)
            });
            let passed = call.and_then(|call| {
                passed_for(m, call, *scope, position, keyword_only, true, param.name)
            });
            !matches!(passed, Some(Passed::Value(value, value_scope))
                if defaults::hands_on_own(m, function_id, param.name, value, value_scope))
        });
    }
    // A module-level function or class no code of its file calls: what its callers in other
    // files pass (`setup_data(cfg)` in a Hydra entry point, `Model(cfg)` in `train.py`).
    let top_level = match class {
        Some(class) => m.class(class)?.parent_scope == MODULE_SCOPE,
        None => function.parent_scope == MODULE_SCOPE,
    };
    if references.is_empty() && top_level {
        let external = External {
            callee: name.to_owned(),
            // A constructor's call does not pass `self`.
            position: (!keyword_only)
                .then(|| position.checked_sub(usize::from(class.is_some())))
                .flatten(),
            keyword: param.name.to_owned(),
            method: None,
            splat: false,
        };
        return passed_config(m, &external);
    }
    for (reference, scope) in references {
        calls += 1;
        if calls > MAX_CALLS {
            return None;
        }
        let call = reference
            .parent()
            .filter(|p| p.kind() == "call" && p.child_by_field_name("function") == Some(reference));
        let (value, value_scope) = match call {
            Some(call) => {
                let Passed::Value(value, value_scope) = passed_for(
                    m,
                    call,
                    scope,
                    position,
                    keyword_only,
                    class.is_some(),
                    param.name,
                )?
                else {
                    return None;
                };
                (value, value_scope)
            }
            // `mp.spawn(main, args=(cfg,))` in a Hydra entry point: `main(i, cfg)`.
            None if class.is_none() && !keyword_only => {
                let spawn = crate::python::argparse::call_of(m, reference)?;
                (
                    crate::python::argparse::spawned_argument(m, spawn, position)?,
                    scope,
                )
            }
            None => return None,
        };
        let config = config_of(m, value, value_scope, depth + 1)?;
        match &found {
            Some(f) if !f.same(&config) => return None,
            Some(_) => {}
            None => found = Some(config),
        }
    }
    found
}

/// A method's config: what callers in other files pass (`solver = Solver(); solver.run(cfg)`,
/// see [`crate::python::argparse::Method`]), when no code of the method's own file names it
/// (`self.run(cfg)`, `Solver.run`) and its class is at module level.
fn method_config<'a>(
    m: &Module<'a>,
    function: FunctionId,
    class: ClassId,
    param: &str,
) -> Option<Config<'a>> {
    let name = m.function(function)?.name;
    if m.class(class)?.parent_scope != MODULE_SCOPE {
        return None;
    }
    if syntax::contains_word_after(m.text(m.root()), name, |before| before.ends_with('.')) {
        return None;
    }
    passed_config(m, &External::of_method(m, function, param)?)
}

/// The YAML config the callers in other files pass the parameter `external` of `m`.
fn passed_config<'a>(m: &Module<'a>, external: &External) -> Option<Config<'a>> {
    let passed = m.index.config_passed(m.path, external)?;
    Some(Config::Yaml {
        tree: Arc::clone(&passed.tree),
        path: passed.path.clone(),
        shown: passed.shown.clone(),
        named: None,
    })
}

/// A YAML config a call in one file passes a function of another: its tree (the keys the
/// caller's file writes left unknown), the path of the mapping passed, and how the caller
/// names the file.
#[derive(Debug, PartialEq)]
pub(crate) struct PassedConfig {
    tree: Arc<yaml::Node>,
    path: Vec<String>,
    shown: String,
}

impl PassedConfig {
    /// What two callers that load the same file pass, taken together: a key either one's
    /// file writes (or that differs between them) is unknown. `None` for different files or
    /// mappings.
    pub(crate) fn met(&self, other: &PassedConfig) -> Option<PassedConfig> {
        if self.path != other.path || self.shown != other.shown {
            return None;
        }
        Some(PassedConfig {
            tree: Arc::new(met_nodes(&self.tree, &other.tree, "", &self.shown)),
            path: self.path.clone(),
            shown: self.shown.clone(),
        })
    }
}

/// [`PassedConfig::met`] of two trees of one file: equal parts kept, the rest unknown.
fn met_nodes(a: &yaml::Node, b: &yaml::Node, key: &str, shown: &str) -> yaml::Node {
    match (a, b) {
        _ if a == b => a.clone(),
        (yaml::Node::Map(x), yaml::Node::Map(y))
            if x.len() == y.len() && x.iter().zip(y).all(|((k, _), (l, _))| k == l) =>
        {
            yaml::Node::Map(
                x.iter()
                    .zip(y)
                    .map(|((k, u), (_, v))| (k.clone(), met_nodes(u, v, k, shown)))
                    .collect(),
            )
        }
        (yaml::Node::Gap(_), _) => a.clone(),
        (_, yaml::Node::Gap(_)) => b.clone(),
        _ => yaml::Node::Gap(ConfigGap::Written {
            key: key.to_owned(),
            shown: shown.to_owned(),
        }),
    }
}

/// What each call of `m` to `external.callee` of `helper` passes its parameter, when that is a
/// YAML config the analysis reads (`None` for anything else).
pub(crate) fn passed_in(
    m: &Module,
    helper: &Path,
    external: &External,
) -> Vec<Option<PassedConfig>> {
    let file = m.path.file_name().unwrap_or_default().to_string_lossy();
    crate::python::argparse::calls_passing(m, helper, external)
        .into_iter()
        .map(|(call, arg)| {
            let (tree, path, shown) = match config_of(m, arg?, call.scope, 0)? {
                Config::Yaml {
                    tree, path, shown, ..
                } => (tree, path, shown),
                Config::Yacs {
                    object,
                    tree,
                    path,
                    file,
                    name,
                } => {
                    let defaults = yacs::Defaults {
                        tree: &tree,
                        file: &file,
                        name: &name,
                    };
                    let helper_text = m.index.source(helper)?;
                    let named = |key: &str| {
                        memchr::memmem::find(helper_text.as_bytes(), key.as_bytes()).is_some()
                    };
                    let handed = yacs::as_handed(m, &object, &defaults, &path, &named)?;
                    let shown = hydra::shown(m.path.parent()?, &file);
                    return Some(PassedConfig {
                        tree: Arc::new(handed),
                        path: Vec::new(),
                        shown,
                    });
                }
                _ => return None,
            };
            let mut tree = (*tree).clone();
            forget_written(m, &mut tree, &file);
            Some(PassedConfig {
                tree: Arc::new(tree),
                path,
                shown,
            })
        })
        .collect()
}

/// Makes unknown every entry of `node` whose key the file of `m` (named `file`) writes.
fn forget_written(m: &Module, node: &mut yaml::Node, file: &str) {
    forget_where(node, &|key| written_in_file(m, key), file);
}

/// Makes unknown every entry of `node`, at any depth, whose key `written` accepts: written by
/// `writer` (a file, or a helper's file), which hands the config on.
pub(super) fn forget_where(node: &mut yaml::Node, written: &dyn Fn(&str) -> bool, writer: &str) {
    forget_as(node, written, &|key| ConfigGap::Written {
        key: key.to_owned(),
        shown: writer.to_owned(),
    });
}

/// Makes unknown every entry of `node`, at any depth, whose key `forget` accepts, with the
/// reason `gap` gives for that key.
pub(super) fn forget_as(
    node: &mut yaml::Node,
    forget: &dyn Fn(&str) -> bool,
    gap: &dyn Fn(&str) -> ConfigGap,
) {
    match node {
        yaml::Node::Map(entries) => {
            for (key, value) in entries {
                if forget(key) {
                    *value = yaml::Node::Gap(gap(key));
                } else {
                    forget_as(value, forget, gap);
                }
            }
        }
        yaml::Node::Seq(items) => {
            for item in items {
                forget_as(item, forget, gap);
            }
        }
        yaml::Node::Scalar { .. } | yaml::Node::Gap(_) => {}
    }
}

/// `self.cfg` in a method: the config `__init__` stores in it, once and unconditionally.
fn self_config<'a>(
    m: &Module<'a>,
    object: Node<'a>,
    attribute: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Config<'a>> {
    let (class, self_name) = defaults::self_of(m, object, scope)?;
    let init = m.method_id(class, "__init__")?;
    let mut writes = m.attribute_assignments().iter().filter(|w| {
        w.attribute == attribute
            && w.object == Some(self_name)
            && w.function
                .and_then(|f| m.function(f))
                .is_some_and(|f| f.class == Some(class))
    });
    let Some(write) = writes.next() else {
        // Kept by a base class's `__init__` (`super().__init__(cfg)`), of this file or another.
        let kept = crate::python::argparse::kept_parameter(m, class, attribute, false)?;
        let init_scope = m.function(init)?.scope;
        let param = m.single_binding(&kept.keyword, init_scope)?;
        if param.kind != BindingKind::Parameter || param.scope != init_scope {
            return None;
        }
        return parameter_config(m, param, depth + 1);
    };
    if writes.next().is_some() || write.function != Some(init) {
        return None;
    }
    if m.is_conditional_relative_to(write.target, m.function(init)?.body?) {
        return None;
    }
    config_of(m, write.value?, write.scope, depth + 1)
}

/// A value read from a config, with where it is written: a literal or a computation there is
/// named by `provenance`, anything else keeps its own.
fn placed(inner: Resolved, provenance: Provenance) -> Resolved {
    match inner.provenance {
        Provenance::Literal | Provenance::Computed if inner.value.is_known() => Resolved {
            value: inner.value,
            provenance,
        },
        _ => inner,
    }
}
