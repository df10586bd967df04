//! Hydra and OmegaConf configs: the config `@hydra.main(config_path=..., config_name=...)`
//! composes when the command line overrides nothing (the primary file, its `defaults:` list
//! of group files, `_self_`), and `OmegaConf.load("x.yaml")` of a literal path. A config
//! named `x.yml` is read from `x.yml` under Hydra's defaults before 1.2 (no `version_base`, or
//! an older one), as Hydra does; later ones look for `x.yml.yaml`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tree_sitter::Node;

use super::yaml::{self, Leaf, LoadError};
use super::{Config, Named};
use crate::python::argparse;
use crate::python::fs::normalised;
use crate::python::model::{BindingKind, FunctionDef, Module, ScopeId, positional_args};
use crate::python::scripts::Given;
use crate::python::values::{ConfigGap, Provenance, Resolved};

/// Decorators that run a function with a Hydra config (dora's wraps Hydra's, same arguments).
const HYDRA_MAIN: &[&str] = &["hydra.main", "dora.hydra_main"];

/// How deep `defaults:` lists are followed.
const MAX_NESTING: u32 = 4;

/// The config a Hydra entry point's first parameter receives.
pub(super) fn entry_config<'a>(
    m: &Module<'a>,
    function: &FunctionDef<'a>,
    param: &str,
) -> Option<Config<'a>> {
    let decorated = function
        .node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")?;
    let mut cursor = decorated.walk();
    let call = decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .find(|e| {
            e.kind() == "call"
                && e.child_by_field_name("function")
                    .and_then(|f| m.qualified_name(f))
                    .is_some_and(|q| HYDRA_MAIN.contains(&q.as_str()))
        })?;
    let first = function
        .node
        .child_by_field_name("parameters")
        .and_then(|p| p.named_child(0))?;
    let first = match first.kind() {
        "identifier" => first,
        "typed_parameter" => first.named_child(0)?,
        _ => return None,
    };
    if m.text(first) != param {
        return None;
    }
    let positional = positional_args(call);
    let argument = |name: &str, index: usize| {
        m.keyword_arg(call, name)
            .or_else(|| positional.get(index).copied())
    };
    // Both must be literal strings, or paths made from `__file__`
    // (`config_name=pathlib.Path(__file__).stem`); without a config path Hydra has no
    // config directory.
    let here = m.path.parent()?;
    let path_node = argument("config_path", 0)?;
    let dir = match m.string_value(path_node) {
        Some(literal) if literal.contains("://") => return None,
        Some(literal) => normalised(&here.join(literal)),
        None => normalised(&from_file(m, path_node, 0)?),
    };
    let name_node = argument("config_name", 1)?;
    let config_name = match m.string_value(name_node) {
        Some(literal) => literal,
        None => from_file(m, name_node, 0)?.to_str()?.to_owned(),
    };
    let name = config_name.strip_suffix(".yaml").unwrap_or(&config_name);
    let names = Names {
        yml: takes_yml(m, call),
    };
    if !dir.join(names.file(name)).is_file() {
        return run_named(m, here, &dir, names, None);
    }
    if leaves_a_choice(&dir, name, names) {
        return run_named(m, here, &dir, names, Some(name));
    }
    let tree = compose(here, &dir, &[], name, names, 0, &[]);
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown: shown(here, &dir.join(names.file(name))),
        named: None,
    })
}

/// The config of an entry point whose runs must complete it: its primary config is not
/// shipped (`config_name="train"` without `train.yaml`), and each command of the project's
/// shell scripts and READMEs that runs the file names one (`--config-name=train_kitchen`); or
/// its `defaults:` leave a group to choose (`- model: ???`), which each command chooses
/// (`model=vq_gan_3d`). Composed as each command makes it (its choices of groups, its
/// overrides `model.num_workers=32`), what every one gives. `None` when a command does not
/// complete it, or names a file that is not there.
fn run_named<'a>(
    m: &Module<'a>,
    here: &Path,
    dir: &Path,
    names: Names,
    primary: Option<&str>,
) -> Option<Config<'a>> {
    let flags = ["--config-name".to_owned(), "-cn".to_owned()];
    let mut files: Vec<(yaml::Node, String, argparse::RunGiven)> = Vec::new();
    for run in m.index.script_runs(m.path) {
        let (text, written) = match (run.passed(&flags, true), primary) {
            (Given::Value(text), _) => {
                let written = argparse::written_option(&run, &flags);
                (text, written)
            }
            (Given::Absent, Some(primary)) => (primary.to_owned(), String::new()),
            _ => return None,
        };
        let name = text.strip_suffix(".yaml").unwrap_or(&text);
        let file = dir.join(names.file(name));
        if !file.is_file() {
            return None;
        }
        let words: Vec<&str> = run.args.iter().flatten().map(String::as_str).collect();
        let choices: Vec<(String, String)> = words
            .iter()
            .filter_map(|w| w.split_once('='))
            .filter(|(k, _)| {
                k.split('/').all(|part| {
                    !part.is_empty()
                        && part
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                }) && !k.starts_with('-')
                    && dir.join(k).is_dir()
            })
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let mut tree = compose(here, dir, &[], name, names, 0, &choices);
        for word in &words {
            // `key=value`, or a deletion `~key`.
            let (key, value) = word.split_once('=').unwrap_or((word, ""));
            if word.starts_with('-') || !(word.contains('=') || word.starts_with('~')) {
                continue;
            }
            if choices.iter().any(|(k, _)| k == key) {
                continue;
            }
            override_key(&mut tree, word, key, value, &run);
        }
        let written = match written.is_empty() {
            true => choices
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            false => written,
        };
        // The same file named again with other overrides is another run of it.
        if !files.iter().any(|(t, _, r)| r.text == text && *t == tree) {
            files.push((
                tree,
                shown(here, &file),
                argparse::RunGiven {
                    written,
                    text,
                    script: run.script.clone(),
                    line: run.line,
                },
            ));
        }
    }
    let (tree, shown, named) = Named::agreed(files)?;
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown,
        named: Some(named),
    })
}

/// Whether the primary config's `defaults:` leave a group for the command line to choose
/// (`- model: ???`).
fn leaves_a_choice(dir: &Path, name: &str, names: Names) -> bool {
    let loaded = yaml::load(&dir.join(names.file(name)));
    let Ok(tree) = &*loaded else {
        return false;
    };
    let Some(yaml::Node::Seq(items)) = tree.get("defaults") else {
        return false;
    };
    items.iter().any(|item| match item {
        yaml::Node::Map(choice) => choice.iter().any(|(_, option)| {
            matches!(
                option,
                yaml::Node::Scalar {
                    leaf: Leaf::Mandatory,
                    ..
                }
            )
        }),
        _ => false,
    })
}

/// A command's override of a key (`model.num_workers=32`, `+trainer.x=1`): its value at that
/// path when it is a plain scalar; else (a list, a deletion `~key`) the key is what that
/// command makes it, unknown here.
fn override_key(
    tree: &mut yaml::Node,
    word: &str,
    key: &str,
    value: &str,
    run: &crate::python::scripts::Run,
) {
    let deleted = key.starts_with('~');
    let key = key.trim_start_matches(['+', '~']);
    let path: Vec<&str> = key.split('.').collect();
    let read = yaml::parse(value, &run.script).ok();
    let set = match read {
        Some(yaml::Node::Scalar {
            leaf: Leaf::Value(value),
            ..
        }) if !deleted && value.is_known() => yaml::Node::Scalar {
            text: value.to_string(),
            leaf: Leaf::Resolved(Box::new(Resolved {
                value,
                provenance: Provenance::RunOverride {
                    written: word.to_owned(),
                    script: run.script.clone(),
                    line: run.line,
                },
            })),
            file: Arc::from(run.script.as_path()),
            line: run.line,
        },
        _ => yaml::Node::Gap(ConfigGap::Merged {
            call: format!(
                "`{word}` of {}",
                run.script
                    .file_name()
                    .map_or_else(|| "a command".into(), |f| f.to_string_lossy())
            ),
            line: run.line,
        }),
    };
    tree.merge(set.under(&path));
}

/// How Hydra turns a config's name into its file.
#[derive(Clone, Copy)]
struct Names {
    /// A name ending in `.yml` is the file's whole name, as it is for Hydra before 1.2's
    /// defaults; else `.yaml` is added to every name (`x.yml.yaml`).
    yml: bool,
}

impl Names {
    fn file(self, name: &str) -> String {
        match self.yml && name.ends_with(".yml") {
            true => name.to_owned(),
            false => format!("{name}.yaml"),
        }
    }
}

/// Whether the `@hydra.main(...)` call keeps Hydra's older defaults, under which a config
/// named `x.yml` is read from `x.yml`: no `version_base` (Hydra then behaves as 1.1), or one
/// before 1.2. `version_base=None` means the installed version's defaults.
fn takes_yml(m: &Module, call: Node) -> bool {
    let Some(base) = m.keyword_arg(call, "version_base") else {
        return true;
    };
    let Some(base) = m.string_value(base) else {
        return false;
    };
    let mut parts = base.split('.').map(|p| p.parse::<u32>().ok());
    matches!(
        (parts.next().flatten(), parts.next().flatten()),
        (Some(major), Some(minor)) if (major, minor) < (1, 2)
    )
}

/// A path computed from the file's own path: `pathlib.Path(__file__)` with `.parent`,
/// `.stem`, `.name`, `.joinpath("x")`, `/ "x"`, `.resolve()`, and `os.path.dirname`,
/// `os.path.join`, `os.path.abspath` over `__file__`, inside `str(...)` or not, with
/// `os.path.splitext(p)[0] + ".yaml"` (RawNet's config beside its script), through names
/// bound once.
pub(super) fn from_file(m: &Module, expr: Node, depth: u32) -> Option<PathBuf> {
    if depth > 12 {
        return None;
    }
    let literal = |n: Node| m.string_value(n).map(PathBuf::from);
    match expr.kind() {
        "identifier" if m.text(expr) == "__file__" => Some(m.path.to_path_buf()),
        "identifier" => {
            let binding = m.single_binding(m.text(expr), m.scope_at(expr))?;
            match (&binding.kind, binding.value) {
                (BindingKind::Assign, Some(value)) => from_file(m, value, depth + 1),
                _ => None,
            }
        }
        // `os.path.splitext(path)[0]`: the path without its extension.
        "subscript" => {
            let value = expr.child_by_field_name("value")?;
            let index = expr.child_by_field_name("subscript")?;
            let callee = value.child_by_field_name("function")?;
            if value.kind() != "call"
                || m.text(index) != "0"
                || m.qualified_name(callee).as_deref() != Some("os.path.splitext")
            {
                return None;
            }
            let [path] = positional_args(value)[..] else {
                return None;
            };
            Some(from_file(m, path, depth + 1)?.with_extension(""))
        }
        "parenthesized_expression" => from_file(m, expr.named_child(0)?, depth + 1),
        "attribute" => {
            let inner = from_file(m, expr.child_by_field_name("object")?, depth + 1)?;
            match m.text(expr.child_by_field_name("attribute")?) {
                "parent" => inner.parent().map(Path::to_path_buf),
                "stem" => inner.file_stem().map(PathBuf::from),
                "name" => inner.file_name().map(PathBuf::from),
                _ => None,
            }
        }
        "binary_operator" => {
            let operator = expr.child_by_field_name("operator")?;
            let left = from_file(m, expr.child_by_field_name("left")?, depth + 1)?;
            let right = literal(expr.child_by_field_name("right")?)?;
            match m.text(operator) {
                "/" => Some(left.join(right)),
                // `stem + ".yaml"`
                "+" => {
                    let mut joined = left.into_os_string();
                    joined.push(right.as_os_str());
                    Some(PathBuf::from(joined))
                }
                _ => None,
            }
        }
        "call" => {
            let callee = expr.child_by_field_name("function")?;
            let args = positional_args(expr);
            // A method of a path (`Path(__file__).parent.joinpath("config")`), not a function
            // of a module (`os.path.join`, `pathlib.Path`).
            if callee.kind() == "attribute" && m.qualified_name(callee).is_none() {
                let inner = from_file(m, callee.child_by_field_name("object")?, depth + 1)?;
                return match m.text(callee.child_by_field_name("attribute")?) {
                    "joinpath" => args
                        .iter()
                        .try_fold(inner, |path, a| Some(path.join(literal(*a)?))),
                    "resolve" | "absolute" if args.is_empty() => Some(inner),
                    _ => None,
                };
            }
            let first = from_file(m, *args.first()?, depth + 1)?;
            match m.qualified_name(callee)?.as_str() {
                "pathlib.Path" | "pathlib.PurePath" | "builtins.str" | "os.path.abspath"
                | "os.path.realpath" | "os.path.normpath"
                    if args.len() == 1 =>
                {
                    Some(first)
                }
                "os.path.dirname" if args.len() == 1 => first.parent().map(Path::to_path_buf),
                "os.path.join" => args[1..]
                    .iter()
                    .try_fold(first, |path, a| Some(path.join(literal(*a)?))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `OmegaConf.load("configs/x.yaml")`: a path relative to where the script runs, looked for
/// from the file's folder up (the nearest found).
pub(super) fn load_literal<'a>(m: &Module<'a>, call: Node, _scope: ScopeId) -> Option<Config<'a>> {
    let arguments = positional_args(call);
    let [argument] = arguments.as_slice() else {
        return None;
    };
    let relative = m.string_value(*argument)?;
    let (tree, shown) = load_relative(m, &relative)?;
    Some(Config::Yaml {
        tree: Arc::new(tree),
        path: Vec::new(),
        shown,
        named: None,
    })
}

/// The YAML file at `relative`, a path relative to where the script runs, looked for from the
/// file's folder up (the nearest found), with how the file names it; a file that cannot be
/// read is a gap saying why.
pub(super) fn load_relative(m: &Module, relative: &str) -> Option<(yaml::Node, String)> {
    let here = m.path.parent()?;
    let candidates: Vec<PathBuf> = if Path::new(&relative).is_absolute() {
        vec![PathBuf::from(relative)]
    } else {
        here.ancestors()
            .take(5)
            .map(|d| normalised(&d.join(relative)))
            .collect()
    };
    let path = candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| normalised(&here.join(relative)));
    let shown = shown(here, &path);
    let tree = match &*yaml::load(&path) {
        Ok(tree) => tree.clone(),
        Err(e) => gap(e, &shown),
    };
    Some((tree, shown))
}

/// How many `${...}` references in a row are followed.
const MAX_REFERENCES: u32 = 8;

/// The value at a dotted path of a config tree.
pub(super) fn value_at(
    m: &Module,
    tree: &yaml::Node,
    path: &[String],
    shown: &str,
) -> Option<Resolved> {
    value_following(m, tree, path, shown, 0)
}

fn value_following(
    m: &Module,
    tree: &yaml::Node,
    path: &[String],
    shown: &str,
    references: u32,
) -> Option<Resolved> {
    let key = path.join(".");
    let mut node = tree;
    for part in path {
        node = match node {
            yaml::Node::Gap(gap) => return Some(unknown(gap.clone())),
            yaml::Node::Map(_) => match node.get(part) {
                Some(next) => next,
                None => {
                    return Some(unknown(ConfigGap::NoKey {
                        key,
                        shown: shown.to_owned(),
                    }));
                }
            },
            _ => return None,
        };
    }
    let here = m.path.parent()?;
    match node {
        yaml::Node::Gap(gap) => Some(unknown(gap.clone())),
        yaml::Node::Scalar {
            text,
            leaf,
            file,
            line,
        } => {
            let shown = self::shown(here, file);
            let line = *line;
            Some(match leaf {
                // A default set in Python code (a yacs `_C.TRAIN.workers = 16`).
                Leaf::Value(value) if file.extension().is_some_and(|e| e == "py") => Resolved {
                    value: value.clone(),
                    provenance: Provenance::ConfigDefault {
                        name: text.clone(),
                        shown,
                        line,
                    },
                },
                Leaf::Value(value) => Resolved {
                    value: value.clone(),
                    provenance: Provenance::ConfigFile { key, shown, line },
                },
                // `num_workers: ${num_workers}`: the key it names, read when the value is
                // (so a write of that key in the file makes it unknown).
                Leaf::Interpolation => match reference(text, path) {
                    Some(target)
                        if references < MAX_REFERENCES
                            && target
                                .last()
                                .is_some_and(|last| !super::written_in_file(m, last)) =>
                    {
                        return value_following(m, tree, &target, &shown, references + 1)
                            .filter(|r| r.value.is_known())
                            .or_else(|| {
                                Some(unknown(ConfigGap::Interpolation { key, shown, line }))
                            });
                    }
                    _ => unknown(ConfigGap::Interpolation { key, shown, line }),
                },
                Leaf::Mandatory => unknown(ConfigGap::Mandatory { key, shown, line }),
                Leaf::Unreadable => unknown(ConfigGap::Unreadable { shown, line }),
                Leaf::Resolved(resolved) => (**resolved).clone(),
            })
        }
        _ => None,
    }
}

/// The path a value that is only a reference to another key names: `${loader.num_workers}`
/// from the root, `${.batch_size}` beside the key at `path` (each further dot one level up).
/// `None` for a resolver (`${oc.env:X}`, `${eval:...}`), a nested or partial interpolation.
fn reference(text: &str, path: &[String]) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix("${")?.strip_suffix('}')?;
    let is_name = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    let dots = inner.chars().take_while(|c| *c == '.').count();
    let rest = &inner[dots..];
    if !rest.split('.').all(is_name) {
        return None;
    }
    let mut target: Vec<String> = match dots {
        0 => Vec::new(),
        _ => path.get(..path.len().checked_sub(dots)?)?.to_vec(),
    };
    target.extend(rest.split('.').map(str::to_owned));
    Some(target)
}

pub(super) fn unknown(gap: ConfigGap) -> Resolved {
    Resolved {
        value: crate::python::values::Value::Unknown,
        provenance: Provenance::ConfigGap(gap),
    }
}

pub(super) fn gap(error: &LoadError, shown: &str) -> yaml::Node {
    yaml::Node::Gap(match error {
        LoadError::NoFile => ConfigGap::NoFile {
            shown: shown.to_owned(),
        },
        LoadError::Unreadable { line } => ConfigGap::Unreadable {
            shown: shown.to_owned(),
            line: *line,
        },
    })
}

/// The config Hydra composes from `dir/group/name.yaml` when the command line overrides
/// nothing: its `defaults:` entries in order (`group: option` files under the group's
/// package, plain names at this package), with the file's own content at `_self_` (last when
/// it is not listed). Parts it cannot follow become gaps, never guesses.
fn compose(
    here: &Path,
    dir: &Path,
    group: &[String],
    name: &str,
    names: Names,
    nesting: u32,
    choices: &[(String, String)],
) -> yaml::Node {
    let mut file = dir.to_path_buf();
    file.extend(group);
    let file = file.join(names.file(name));
    let shown = shown(here, &file);
    let loaded = yaml::load(&file);
    let own = match &*loaded {
        Ok(tree) => tree.clone(),
        Err(e) => return gap(e, &shown),
    };
    if package_directive(&file, group) {
        return yaml::Node::Gap(ConfigGap::Composed { shown });
    }
    let yaml::Node::Map(entries) = own else {
        return own;
    };
    let (defaults, body): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|(k, _)| k == "defaults");
    let body = yaml::Node::Map(body);
    let Some((_, list)) = defaults.into_iter().last() else {
        return body;
    };
    let yaml::Node::Seq(items) = list else {
        return yaml::Node::Gap(ConfigGap::Composed { shown });
    };
    if nesting >= MAX_NESTING {
        return yaml::Node::Gap(ConfigGap::Composed { shown });
    }
    let mut out = yaml::Node::Map(Vec::new());
    let mut body = Some(body);
    for item in items {
        match item {
            yaml::Node::Scalar { text, .. } if text == "_self_" => {
                if let Some(body) = body.take() {
                    out.merge(body);
                }
            }
            // A config of the same group, merged at this package.
            yaml::Node::Scalar {
                text,
                leaf: Leaf::Value(_),
                ..
            } => {
                let part = compose(here, dir, group, &text, names, nesting + 1, choices);
                out.merge(part);
            }
            yaml::Node::Map(choice) if choice.len() == 1 => {
                let Some((key, option)) = choice.into_iter().next() else {
                    continue;
                };
                let (optional, key) = match key.strip_prefix("optional ") {
                    Some(rest) => (true, rest.trim().to_owned()),
                    None => (false, key),
                };
                // Hydra's own groups (launchers, logging) are not the task's config.
                if key.starts_with("hydra/") || key.starts_with("override hydra") {
                    continue;
                }
                if key.starts_with("override ") || key.contains('@') {
                    return yaml::Node::Gap(ConfigGap::Composed { shown });
                }
                let mut sub_group = group.to_vec();
                sub_group.extend(key.split('/').map(str::to_owned));
                // A command's `model=vq_gan_3d` chooses the group's option.
                let chosen = choices
                    .iter()
                    .find(|(g, _)| *g == sub_group.join("/"))
                    .map(|(_, option)| option.clone());
                let option = match (chosen, option) {
                    (Some(chosen), _) => chosen,
                    (
                        None,
                        yaml::Node::Scalar {
                            leaf: Leaf::Value(crate::python::values::Value::None),
                            ..
                        },
                    ) => continue,
                    (
                        None,
                        yaml::Node::Scalar {
                            text,
                            leaf: Leaf::Value(_),
                            ..
                        },
                    ) => text,
                    _ => return yaml::Node::Gap(ConfigGap::Composed { shown }),
                };
                let part = compose(here, dir, &sub_group, &option, names, nesting + 1, choices);
                if optional && matches!(part, yaml::Node::Gap(ConfigGap::NoFile { .. })) {
                    continue;
                }
                let package: Vec<&str> = sub_group.iter().map(String::as_str).collect();
                out.merge(part.under(&package));
            }
            _ => return yaml::Node::Gap(ConfigGap::Composed { shown }),
        }
    }
    if let Some(body) = body {
        out.merge(body);
    }
    out
}

/// The mappings of the project's config files that Hydra's `instantiate` turns into the
/// class `class` of the module `module` (`_target_: matcha.data.text_mel_datamodule.
/// TextMelDataModule`), each file composed with its own `defaults:` (options of its group), with
/// how the file is shown from `m`'s folder. A target spelled through a shorter import path
/// (`_target_: data.TextMelDataModule`) counts when it ends with the class and its module's
/// last name.
pub(crate) fn instantiated(m: &Module, module: &str, class: &str) -> Vec<(yaml::Node, String)> {
    let Some(root) = m.index.root_of(m.path) else {
        return Vec::new();
    };
    let Some(here) = m.path.parent() else {
        return Vec::new();
    };
    let wanted = format!("{module}.{class}");
    let names_class = |target: &str| target == wanted || target.ends_with(&format!(".{wanted}"));
    let mut out = Vec::new();
    for file in m.index.config_files(&root).iter() {
        // Hydra's config names are `.yaml` files; the file as it stands (loaded once for the
        // run) must name the class before it is composed.
        let (Some(dir), Some(stem)) = (file.parent(), file.file_stem().and_then(|s| s.to_str()))
        else {
            continue;
        };
        let mut named = Vec::new();
        match (
            file.extension().is_some_and(|e| e == "yaml"),
            &*yaml::load(file),
        ) {
            (true, Ok(tree)) => collect_targets(tree, &names_class, "", &mut named),
            _ => continue,
        }
        if named.is_empty() {
            continue;
        }
        let tree = compose(here, dir, &[], stem, Names { yml: false }, 0, &[]);
        collect_targets(&tree, &names_class, &shown(here, file), &mut out);
    }
    out
}

/// The mappings of `tree` (itself or nested) whose `_target_` `names_class` accepts.
fn collect_targets(
    tree: &yaml::Node,
    names_class: &dyn Fn(&str) -> bool,
    shown: &str,
    out: &mut Vec<(yaml::Node, String)>,
) {
    let yaml::Node::Map(entries) = tree else {
        return;
    };
    let target = tree.get("_target_").and_then(|t| match t {
        yaml::Node::Scalar { text, .. } => Some(text.as_str()),
        _ => None,
    });
    if target.is_some_and(names_class) {
        out.push((tree.clone(), shown.to_owned()));
        return;
    }
    for (_, child) in entries {
        collect_targets(child, names_class, shown, out);
    }
}

/// Whether a config file starts with a `# @package` directive placing it elsewhere than its
/// group (not followed). `_group_`, and `_global_` on a primary config (no group), name where
/// the file goes anyway.
fn package_directive(file: &Path, group: &[String]) -> bool {
    std::fs::read_to_string(file).is_ok_and(|text| {
        text.lines()
            .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            .filter_map(|l| l.split_once("@package").map(|(_, package)| package.trim()))
            .any(|package| !(package == "_group_" || package == "_global_" && group.is_empty()))
    })
}

/// A config file as the Python file in `here` would name it: relative to its folder or one
/// of the folders above (`../conf/config.yaml`).
pub(super) fn shown(here: &Path, file: &Path) -> String {
    let here = normalised(here);
    let file = &normalised(file);
    let mut up = String::new();
    for base in here.ancestors().take(4) {
        if let Ok(rest) = file.strip_prefix(base) {
            return format!("{up}{}", rest.to_string_lossy());
        }
        up.push_str("../");
    }
    file.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_files_are_named_from_the_file_using_them() {
        let here = Path::new("/p/src/demucs");
        assert_eq!(
            shown(here, &normalised(&here.join("../../conf/config.yaml"))),
            "../../conf/config.yaml"
        );
        assert_eq!(shown(here, Path::new("/p/src/demucs/c.yaml")), "c.yaml");
    }
}
