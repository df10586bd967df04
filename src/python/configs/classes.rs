//! Plain config classes: a class used as a holder of values (`class Config: input_threads =
//! 8`), read through the class itself or an instance built without arguments, and its
//! subclasses (`class ModelNet40Config(Config): input_threads = 10`), with the base in this
//! file or another of the project. The class attributes along the bases are the defaults, the
//! nearest class's value winning as in Python's attribute lookup.
//!
//! An attribute a method assigns on `self` or `cls`, or that a method of the same name hides,
//! is a gap: which value a run sees depends on the calls made. A method that sets attributes
//! by computed name (`setattr(self, key, value)`, `self.__dict__.update(...)`, KPConv's
//! `Config.load(path)`) makes every key unknown where a call of it may run; in `__init__` it
//! always runs.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

use tree_sitter::Node;

use super::yacs::{Cache, attribute_setter, leaf, memoised, set, with_module};
use super::yaml::{self, Leaf};
use crate::python::argparse;
use crate::python::model::{BindingKind, CallSite, ClassId, MODULE_SCOPE, Module, ScopeId};
use crate::python::values::ConfigGap;

/// How many bases up a config class is followed.
const MAX_BASES: u32 = 4;

/// The defaults a plain config class gives its instances, and the methods that set its
/// attributes by computed name.
#[derive(Clone)]
pub(super) struct ClassDefaults {
    tree: yaml::Node,
    free_writers: Vec<String>,
}

impl ClassDefaults {
    /// The defaults of the module-level config `name` as the calls of `m` leave them: a call
    /// of a method that sets attributes by computed name, where it may run, may change any of
    /// them, unless it is called on another module-level object.
    pub(super) fn in_file(self, m: &Module, name: &str) -> yaml::Node {
        let other_object = |call: &CallSite| {
            call.callee
                .child_by_field_name("object")
                .filter(|o| o.kind() == "identifier" && m.text(*o) != name)
                .and_then(|o| m.lookup(m.text(o), call.scope))
                .is_some_and(|ids| {
                    ids.iter().filter_map(|id| m.bindings().get(*id)).all(|b| {
                        b.scope == MODULE_SCOPE
                            && b.kind == BindingKind::Assign
                            && b.value.is_some_and(|v| v.kind() == "call")
                    })
                })
        };
        let writes = m.calls().iter().find(|call| {
            call.method
                .is_some_and(|method| self.free_writers.iter().any(|w| w == method))
                && !other_object(call)
                && argparse::branch_runs(m, call.node, None, 0) != Some(false)
        });
        match writes {
            Some(call) => yaml::Node::Gap(ConfigGap::Merged {
                call: m.text(call.callee).to_owned(),
                line: m.line(call.node.start_byte()),
            }),
            None => self.tree,
        }
    }
}

/// The defaults of another project file's plain config class, by its name there.
static BASES: LazyLock<Cache<String, Option<ClassDefaults>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The class `value` builds when it is `Class()` of a class of this file, without arguments.
pub(super) fn constructed(m: &Module, value: Node) -> Option<ClassId> {
    if value.kind() != "call"
        || value
            .child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() > 0)
    {
        return None;
    }
    let callee = value.child_by_field_name("function")?;
    if callee.kind() != "identifier" {
        return None;
    }
    match m.single_binding(m.text(callee), MODULE_SCOPE)?.kind {
        BindingKind::Class(id) => Some(id),
        _ => None,
    }
}

/// The defaults of `class` when it is a plain holder of values: no decorator, no
/// `__getattr__` or `__setattr__` that could answer or store any name, and at most one base
/// that is not `object`, itself such a class of this file or another of the project.
pub(super) fn defaults(m: &Module, class: ClassId) -> Option<ClassDefaults> {
    class_defaults(m, class, 0)
}

fn class_defaults(m: &Module, class: ClassId, depth: u32) -> Option<ClassDefaults> {
    if depth > MAX_BASES {
        return None;
    }
    let def = m.class(class)?;
    // A decorator (`@dataclass`) may give the class fields of its own.
    if def
        .node
        .parent()
        .is_some_and(|p| p.kind() == "decorated_definition")
    {
        return None;
    }
    let methods: Vec<&str> = def
        .methods
        .iter()
        .filter_map(|f| m.function(*f))
        .map(|f| f.name)
        .collect();
    if methods
        .iter()
        .any(|name| matches!(*name, "__getattr__" | "__getattribute__" | "__setattr__"))
    {
        return None;
    }
    let mut bases = def.bases.iter().filter(|b| m.text(**b) != "object");
    let base = bases.next();
    // Several bases: the lookup order (the MRO) is not read.
    if bases.next().is_some() {
        return None;
    }
    let mut found = match base {
        Some(base) => base_defaults(m, *base, def.parent_scope, depth)?,
        None => ClassDefaults {
            tree: yaml::Node::Map(Vec::new()),
            free_writers: Vec::new(),
        },
    };
    let file: Arc<Path> = Arc::from(m.path);
    let body = def.body?;
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let Some((left, right)) = crate::python::syntax::assignment_sides(statement) else {
            continue;
        };
        if left.kind() != "identifier" {
            continue;
        }
        let key = m.text(left);
        let node = yaml::Node::Scalar {
            text: format!("{}.{key}", def.name),
            leaf: leaf(m, right),
            file: file.clone(),
            line: m.line(left.start_byte()),
        };
        set(&mut found.tree, &[key.to_owned()], node);
    }
    let gap = |target: Node| yaml::Node::Scalar {
        text: m.text(target).to_owned(),
        leaf: Leaf::Unreadable,
        file: file.clone(),
        line: m.line(target.start_byte()),
    };
    // A method of the same name hides the attribute, here or in a base.
    for method in def.methods.iter().filter_map(|f| m.function(*f)) {
        if found.tree.get(method.name).is_some() {
            set(&mut found.tree, &[method.name.to_owned()], gap(method.node));
        }
    }
    for write in m.attribute_assignments() {
        let in_method = write.function.is_some_and(|f| def.methods.contains(&f));
        if in_method && matches!(write.object, Some("self" | "cls")) {
            set(
                &mut found.tree,
                &[write.attribute.to_owned()],
                gap(write.target),
            );
        }
    }
    for call in m.calls() {
        let Some(method) = call
            .function
            .filter(|f| def.methods.contains(f))
            .and_then(|f| m.function(f))
        else {
            continue;
        };
        if !sets_computed_names(m, call, class) {
            continue;
        }
        // `__init__` runs with every construction.
        if method.name == "__init__" {
            found.tree = yaml::Node::Gap(ConfigGap::Merged {
                call: m.text(call.callee).to_owned(),
                line: m.line(call.node.start_byte()),
            });
        } else if !found.free_writers.iter().any(|w| w == method.name) {
            found.free_writers.push(method.name.to_owned());
        }
    }
    Some(found)
}

/// Whether `call` (of a method of `class`) sets attributes of `self` or `cls`, or of the
/// module-level instance of the class (`setattr(cfg, k, v)` in `Config.update` after `cfg =
/// Config()`), by computed name: `setattr(self, key, value)` with a key that is not a literal,
/// `self.__dict__.update` or `vars(self).update`.
pub(super) fn sets_computed_names(m: &Module, call: &CallSite, class: ClassId) -> bool {
    attribute_setter(m, call).is_some_and(|(object, name)| {
        let instance = || {
            object.kind() == "identifier"
                && m.single_binding(m.text(object), MODULE_SCOPE)
                    .is_some_and(|b| {
                        b.kind == BindingKind::Assign
                            && b.value.is_some_and(|v| constructed(m, v) == Some(class))
                    })
        };
        (matches!(m.text(object), "self" | "cls") || instance())
            && name.is_none_or(|k| m.string_value(k).is_none())
    })
}

/// The methods of the class whose instance the module-level `name` holds (`cfg = Config()`)
/// that set its attributes by computed name (`cfg.update(path)`): a call of one, where it may
/// run, may change any key.
pub(crate) fn instance_writers(m: &Module, name: &str) -> Vec<String> {
    let class = m
        .single_binding(name, MODULE_SCOPE)
        .filter(|b| b.kind == BindingKind::Assign)
        .and_then(|b| constructed(m, b.value?));
    class
        .and_then(|class| defaults(m, class))
        .map(|d| d.free_writers)
        .unwrap_or_default()
}

/// The defaults of the base `base` of a class: a plain config class of this file, or of
/// another file of the project.
fn base_defaults(m: &Module, base: Node, scope: ScopeId, depth: u32) -> Option<ClassDefaults> {
    if base.kind() == "identifier"
        && let Some(binding) = m.single_binding(m.text(base), MODULE_SCOPE)
        && let BindingKind::Class(id) = binding.kind
    {
        return class_defaults(m, id, depth + 1);
    }
    let qualified = m.qualified_in(base, scope, 0)?;
    let found = m.index.binding(m.path, &qualified)?;
    if found.file == m.path {
        return None;
    }
    let read = |source: &str| {
        if !source.contains("class ") {
            return None;
        }
        with_module(m, source, &found.file, |other| {
            match other.single_binding(&found.name, MODULE_SCOPE)?.kind {
                BindingKind::Class(id) => class_defaults(other, id, depth + 1),
                _ => None,
            }
        })
    };
    memoised(&BASES, m, &found.file, found.name.clone(), read).flatten()
}
