//! Dataclass configs: `@dataclass class TrainConfig: num_workers: int = 16` of this file,
//! built as `TrainConfig()` or `TrainConfig(num_workers=4)`, nested (`field(default_factory=
//! Data)`, `data: Data = Data()`), or parsed from the command line (see [`super::hf`]).

use tree_sitter::Node;

use super::{Config, placed};
use crate::python::argparse::has_splat;
use crate::python::model::{Binding, BindingKind, ClassId, Module, ScopeId, positional_args};
use crate::python::values::{Provenance, Resolved};

/// Decorators that make a class a dataclass.
const DATACLASS: &[&str] = &["dataclasses.dataclass", "pydantic.dataclasses.dataclass"];

/// The class a callee names when it is a dataclass of this file.
pub(super) fn local_dataclass(m: &Module, callee: Node, scope: ScopeId) -> Option<ClassId> {
    if callee.kind() != "identifier" {
        return None;
    }
    let binding = m.single_binding(m.text(callee), scope)?;
    let BindingKind::Class(class) = binding.kind else {
        return None;
    };
    is_dataclass(m, class).then_some(class)
}

/// A record class: a dataclass, a `NamedTuple` or a plain pydantic model, whose
/// constructor only sets its fields.
pub(crate) fn is_dataclass(m: &Module, class: ClassId) -> bool {
    is_pydantic_model(m, class) || is_decorated_dataclass(m, class) || is_named_tuple(m, class)
}

/// `class TrainerConfig(NamedTuple): workers: int`, with no `__new__` of its own.
fn is_named_tuple(m: &Module, class: ClassId) -> bool {
    let Some(def) = m.class(class) else {
        return false;
    };
    let [base] = def.bases.as_slice() else {
        return false;
    };
    m.qualified_name(*base)
        .is_some_and(|q| q == "typing.NamedTuple")
        && m.method_id(class, "__new__").is_none()
}

/// pydantic's models as a run without arguments builds them: one base, `BaseModel`, no
/// decorator, and nothing that may change a field's value on construction (a validator, an
/// `__init__` or `model_post_init` of the class). Settings classes read the environment and
/// are not among them.
fn is_pydantic_model(m: &Module, class: ClassId) -> bool {
    let Some(def) = m.class(class) else {
        return false;
    };
    let [base] = def.bases.as_slice() else {
        return false;
    };
    let is_model = m
        .qualified_name(*base)
        .is_some_and(|q| PYDANTIC_MODELS.contains(&q.as_str()));
    let changes_fields = def.methods.iter().filter_map(|f| m.function(*f)).any(|f| {
        matches!(f.name, "__init__" | "model_post_init" | "__post_init__")
            || f.node.parent().is_some_and(|p| {
                p.kind() == "decorated_definition"
                    && m.text(p)
                        .split("def ")
                        .next()
                        .is_some_and(|d| d.contains("validator"))
            })
    });
    let decorated = def
        .node
        .parent()
        .is_some_and(|p| p.kind() == "decorated_definition");
    is_model && !changes_fields && !decorated
}

/// pydantic's model base as it is imported.
const PYDANTIC_MODELS: &[&str] = &["pydantic.BaseModel", "pydantic.main.BaseModel"];

fn is_decorated_dataclass(m: &Module, class: ClassId) -> bool {
    let Some(decorated) = m
        .class(class)
        .and_then(|c| c.node.parent())
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return false;
    };
    let mut cursor = decorated.walk();
    decorated.named_children(&mut cursor).any(|d| {
        let Some(mut expr) = d.named_child(0).filter(|_| d.kind() == "decorator") else {
            return false;
        };
        if expr.kind() == "call" {
            match expr.child_by_field_name("function") {
                Some(f) => expr = f,
                None => return false,
            }
        }
        m.qualified_name(expr)
            .is_some_and(|q| DATACLASS.contains(&q.as_str()))
    })
}

/// The value of field `name` of an instance of `class` built by `call` (or with every
/// default). `None` when the analysis cannot say.
pub(super) fn field_value(
    m: &Module,
    class: ClassId,
    call: Option<(Node, ScopeId)>,
    name: &str,
    depth: u32,
) -> Option<Resolved> {
    if written(m, class, name) {
        return None;
    }
    let class_name = m.class(class)?.name;
    if let Some((call, scope)) = call
        && let Some(value) = passed(m, class, call, name)?
    {
        let inner = m.value_in(value, scope, depth + 1);
        return Some(placed(
            inner,
            Provenance::ParameterPassed {
                function: class_name.to_owned(),
                param: name.to_owned(),
                line: m.line(value.start_byte()),
                at: Module::range(value),
                file: None,
            },
        ));
    }
    let (owner, default) = field_default(m, class, name, 0)?;
    let Default::Value(value) = default else {
        return None;
    };
    let owner = m.class(owner)?;
    let inner = m.value_in(value, owner.scope, depth + 1);
    inner.value.is_known().then(|| {
        placed(
            inner,
            Provenance::FieldDefault {
                class: owner.name.to_owned(),
                field: name.to_owned(),
                line: m.line(value.start_byte()),
                at: Module::range(value),
                file: None,
            },
        )
    })
}

/// The config a field of an instance holds: a nested dataclass.
pub(super) fn nested<'a>(
    m: &Module<'a>,
    class: ClassId,
    call: Option<(Node<'a>, ScopeId)>,
    name: &str,
    depth: u32,
) -> Option<Config<'a>> {
    if written(m, class, name) {
        return None;
    }
    if let Some((call, scope)) = call
        && let Some(value) = passed(m, class, call, name)?
    {
        return super::config_of(m, value, scope, depth + 1);
    }
    let (owner, default) = field_default(m, class, name, 0)?;
    let owner_scope = m.class(owner)?.scope;
    match default {
        Default::Value(value) => super::config_of(m, value, owner_scope, depth + 1),
        Default::Factory(factory) => match factory.kind() {
            "lambda" => super::config_of(
                m,
                factory.child_by_field_name("body")?,
                owner_scope,
                depth + 1,
            ),
            _ => local_dataclass(m, factory, owner_scope)
                .map(|class| Config::Dataclass { class, call: None }),
        },
    }
}

/// What the construction passes for field `name`: `Some(Some(value))`, `Some(None)` when it
/// leaves it out, `None` when it cannot be told (`**kwargs`, positional arguments of a class
/// with inherited fields).
fn passed<'a>(
    m: &Module<'a>,
    class: ClassId,
    call: Node<'a>,
    name: &str,
) -> Option<Option<Node<'a>>> {
    if let Some(value) = m.keyword_arg(call, name) {
        return Some(Some(value));
    }
    if has_splat(call) {
        return None;
    }
    let positional = positional_args(call);
    if positional.is_empty() {
        return Some(None);
    }
    if !own_fields_only(m, class) {
        return None;
    }
    let index = fields(m, class).iter().position(|f| *f == name)?;
    Some(positional.get(index).copied())
}

/// Whether every field of the class is declared in its own body (no base may add fields
/// before them), so positional arguments follow its fields.
fn own_fields_only(m: &Module, class: ClassId) -> bool {
    m.class(class)
        .is_some_and(|c| c.bases.is_empty() || is_named_tuple(m, class))
}

enum Default<'a> {
    Value(Node<'a>),
    Factory(Node<'a>),
}

/// The annotated fields of a class body, in order (`ClassVar`s are not fields).
fn fields<'a>(m: &Module<'a>, class: ClassId) -> Vec<&'a str> {
    field_statements(m, class)
        .into_iter()
        .filter(|(_, assignment)| {
            assignment
                .child_by_field_name("type")
                .is_some_and(|t| !m.text(t).contains("ClassVar"))
        })
        .map(|(name, _)| name)
        .collect()
}

/// Every `name: type = value` (or `name = value`) statement of the class body.
fn field_statements<'a>(m: &Module<'a>, class: ClassId) -> Vec<(&'a str, Node<'a>)> {
    let Some(body) = m.class(class).and_then(|c| c.body) else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter(|s| s.kind() == "expression_statement")
        .filter_map(|s| s.named_child(0))
        .filter(|a| a.kind() == "assignment")
        .filter_map(|a| {
            let left = a.child_by_field_name("left")?;
            (left.kind() == "identifier").then(|| (m.text(left), a))
        })
        .collect()
}

/// Field `name`'s default in `class` or, when it does not declare it, its dataclass bases of
/// this file (the class that declares it, and the default).
fn field_default<'a>(
    m: &Module<'a>,
    class: ClassId,
    name: &str,
    hops: u32,
) -> Option<(ClassId, Default<'a>)> {
    if hops > 8 || !is_dataclass(m, class) {
        return None;
    }
    if let Some((_, assignment)) = field_statements(m, class)
        .into_iter()
        .rev()
        .find(|(n, _)| *n == name)
    {
        // `num_workers: int` has no default: the constructor must be given one.
        let value = assignment.child_by_field_name("right")?;
        let c = m.class(class)?;
        let is_field = value.kind() == "call"
            && value
                .child_by_field_name("function")
                .and_then(|f| m.qualified_in(f, c.scope, 0))
                .is_some_and(|q| q == "dataclasses.field" || q == "pydantic.Field");
        if !is_field {
            return Some((class, Default::Value(value)));
        }
        if let Some(default) = m.keyword_arg(value, "default") {
            return Some((class, Default::Value(default)));
        }
        return m
            .keyword_arg(value, "default_factory")
            .map(|f| (class, Default::Factory(f)));
    }
    // The last base that declares it wins, as in the MRO of single inheritance.
    let c = m.class(class)?;
    c.bases.iter().rev().find_map(|base| {
        let base = local_dataclass(m, *base, c.parent_scope)?;
        field_default(m, base, name, hops + 1)
    })
}

/// Where field `name` of a dataclass of this file is declared.
pub(super) enum Declared {
    /// By the class or a dataclass base of this file.
    Here,
    /// By neither: by the one base of another module the chain ends in, if any (its
    /// qualified name).
    Base(String),
}

/// [`Declared`] for field `name` of `class`; `None` when the class's ancestry cannot be
/// followed (several bases, a base that is not a name).
pub(super) fn external_base(m: &Module, class: ClassId, name: &str) -> Option<Declared> {
    let mut class = class;
    for _ in 0..8 {
        if field_statements(m, class).iter().any(|(n, _)| *n == name) {
            return Some(Declared::Here);
        }
        let c = m.class(class)?;
        let [base] = c.bases.as_slice() else {
            return None;
        };
        match local_dataclass(m, *base, c.parent_scope) {
            Some(local) => class = local,
            None => return m.qualified_in(*base, c.parent_scope, 0).map(Declared::Base),
        }
    }
    None
}

/// Whether the file may change field `name` after construction: `obj.name = ...` on anything
/// but the `self` of another class's method, a `__post_init__` of the class (or a base) that
/// writes it, or a `setattr`.
fn written(m: &Module, class: ClassId, name: &str) -> bool {
    written_but_by(m, Some(class), name)
}

/// [`written`], for an instance of `class` (`None`: a class of another file, whose own
/// methods are not in this one).
pub(super) fn written_but_by(m: &Module, class: Option<ClassId>, name: &str) -> bool {
    let writes = m.attribute_assignments().iter().any(|w| {
        if w.attribute != name {
            return false;
        }
        let object = w.target.child_by_field_name("object");
        let other_self = object
            .and_then(|o| crate::python::defaults::self_of(m, o, w.scope))
            .is_some_and(|(owner, _)| Some(owner) != class && !is_dataclass(m, owner));
        !other_self
    });
    writes
        || m.calls()
            .iter()
            .any(|c| c.qualified.as_deref() == Some("builtins.setattr"))
}

/// A record class of a file as other files see it (see [`is_dataclass`]): its own fields in
/// order, those its file may change after construction, and the defaults known.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Record {
    fields: Vec<String>,
    /// Whether positional arguments follow `fields`.
    positional: bool,
    written: Vec<String>,
    defaults: Vec<(String, Resolved)>,
}

impl Record {
    /// Field `name` as the class declares it: `None` when it does not, `Some(None)` when its
    /// value is not known (no default the analysis reads, or its file may change it).
    pub(crate) fn field(&self, name: &str) -> Option<Option<&Resolved>> {
        if !self.fields.iter().any(|f| f == name) {
            return None;
        }
        if self.written.iter().any(|f| f == name) {
            return Some(None);
        }
        Some(
            self.defaults
                .iter()
                .find(|(f, _)| f == name)
                .map(|(_, r)| r),
        )
    }
}

/// The [`Record`] of the module-level class `class`, if it is a record class.
pub(crate) fn record(m: &Module, class: ClassId) -> Option<Record> {
    if !is_dataclass(m, class) {
        return None;
    }
    let fields: Vec<String> = fields(m, class).into_iter().map(str::to_owned).collect();
    let written = fields
        .iter()
        .filter(|f| written(m, class, f))
        .cloned()
        .collect();
    let defaults = fields
        .iter()
        .filter_map(|f| Some((f.clone(), field_value(m, class, None, f, 0)?)))
        .collect();
    Some(Record {
        fields,
        positional: own_fields_only(m, class),
        written,
        defaults,
    })
}

/// What a record built in this file holds, field by field, where `arg` (its construction, or
/// a name bound once to it) is handed to a callee in another file (`cfg = TrainerConfig(
/// workers=workers); Trainer(cfg)`): each field the construction passes, else its class's
/// default; a field the file may change after construction is left out. `None` when `arg`
/// is not such a record.
pub(crate) fn record_fields(
    m: &Module,
    arg: Node,
    scope: ScopeId,
) -> Option<Vec<(String, Resolved)>> {
    let (call, scope) = match arg.kind() {
        "call" => (arg, scope),
        "identifier" => match m.single_binding(m.text(arg), scope)? {
            Binding {
                kind: BindingKind::Assign,
                value: Some(value),
                scope: bound_in,
                ..
            } if value.kind() == "call" => (*value, *bound_in),
            _ => return None,
        },
        _ => return None,
    };
    let callee = call.child_by_field_name("function")?;
    if let Some(class) = local_dataclass(m, callee, scope) {
        let out = fields(m, class)
            .into_iter()
            .filter_map(|f| {
                let value = field_value(m, class, Some((call, scope)), f, 0)?;
                Some((f.to_owned(), value.written_in(m.path)))
            })
            .collect();
        return Some(out);
    }
    let qualified = m.qualified_in(callee, scope, 0)?;
    let (file, record) = m.index.record(m.path, &qualified)?;
    let class_name = qualified.rsplit('.').next().unwrap_or(&qualified);
    let positional = positional_args(call);
    if has_splat(call) || (!positional.is_empty() && !record.positional) {
        return None;
    }
    let mut out = Vec::new();
    for (i, field) in record.fields.iter().enumerate() {
        if record.written.contains(field) || written_but_by(m, None, field) {
            continue;
        }
        let passed = m
            .keyword_arg(call, field)
            .or_else(|| positional.get(i).copied());
        match passed {
            Some(value) => {
                let inner = m.value_in(value, scope, 1);
                let value = placed(
                    inner,
                    Provenance::ParameterPassed {
                        function: class_name.to_owned(),
                        param: field.clone(),
                        line: m.line(value.start_byte()),
                        at: Module::range(value),
                        file: None,
                    },
                );
                out.push((field.clone(), value.written_in(m.path)));
            }
            None => {
                if let Some((_, default)) = record.defaults.iter().find(|(f, _)| f == field) {
                    out.push((field.clone(), default.clone().written_in(&file)));
                }
            }
        }
    }
    Some(out)
}
