//! A namespace kept by a base class: `self.args` in a method of `Exp_Main(Exp_Basic)`, where
//! `Exp_Basic.__init__(self, args)` (in this file or another) does `self.args = args` and
//! `Exp_Main.__init__` hands its own `args` on through `super().__init__(args)`. What the
//! attribute holds is what the constructor of the class is given at that parameter.

use tree_sitter::Node;

use crate::python::defaults;
use crate::python::subclass;
use std::collections::{HashMap, HashSet};

use crate::python::model::{
    AttributeAssignment, BindingKind, ClassId, FunctionId, Module, ScopeId, positional_args,
};

use super::{ParamWrite, has_splat, parameter_position, writes_any_attribute_of};

/// How many base classes deep a kept parameter is followed.
const MAX_BASES: u32 = 8;

/// A parameter of a class's `__init__` that the class keeps as an attribute of `self`:
/// its position among the constructor's arguments (`self` not counted) and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptParameter {
    pub position: usize,
    pub keyword: String,
}

/// The parameter of the constructor of `class` that ends up as `self.<attribute>`: assigned
/// once, in `__init__`, from a parameter, by the class or (when it assigns none) by its one
/// base, which `__init__` calls with its own parameter. `None` when anything else may write the
/// attribute, the attribute's own attributes (`self.args.workers = 2`), or any attribute
/// of `self` by name (`setattr(self, ...)`): then the value is not the constructor's.
///
/// `for_other_files`: the attribute's own attributes written in this file count too (a file
/// that uses the namespace here finds those writes itself, through the name `self.args`).
pub(crate) fn kept_parameter(
    m: &Module,
    class: ClassId,
    attribute: &str,
    for_other_files: bool,
) -> Option<KeptParameter> {
    kept_in(m, &Writes::of(m), class, attribute, for_other_files, 0)
}

/// The writes of a file [`kept_parameter`] reads, grouped once: a file's summary asks it of
/// every class and every attribute of `self` the file assigns.
pub(crate) struct Writes<'m, 'a> {
    /// `x.attribute = ...`, by attribute.
    of: HashMap<&'a str, Vec<&'m AttributeAssignment<'a>>>,
    /// `x.attribute.y = ...`, by the attribute of the object written.
    under: HashMap<&'a str, Vec<&'m AttributeAssignment<'a>>>,
    /// `setattr(x.attribute, ...)`, `vars(x.attribute).update(...)`: the object and the
    /// call's scope, by attribute.
    opaque: HashMap<&'a str, Vec<(Node<'a>, ScopeId)>>,
    /// Classes whose methods set attributes by name (`setattr(self, ...)`).
    dynamic: HashSet<ClassId>,
}

impl<'m, 'a> Writes<'m, 'a> {
    pub(crate) fn of(m: &'m Module<'a>) -> Self {
        let attribute_of = |object: Node<'a>| {
            (object.kind() == "attribute")
                .then(|| object.child_by_field_name("attribute"))
                .flatten()
                .map(|a| m.text(a))
        };
        let mut writes = Writes {
            of: HashMap::new(),
            under: HashMap::new(),
            opaque: HashMap::new(),
            dynamic: HashSet::new(),
        };
        for write in m.attribute_assignments() {
            writes.of.entry(write.attribute).or_default().push(write);
            if let Some(object) = write.target.child_by_field_name("object")
                && let Some(attribute) = attribute_of(object)
            {
                writes.under.entry(attribute).or_default().push(write);
            }
        }
        for call in m.calls() {
            if let Some(object) = writes_any_attribute_of(m, call, None)
                && let Some(attribute) = attribute_of(object)
            {
                writes
                    .opaque
                    .entry(attribute)
                    .or_default()
                    .push((object, call.scope));
            }
        }
        for (id, _) in m.classes().iter().enumerate() {
            if defaults::sets_attributes_dynamically(m, id) {
                writes.dynamic.insert(id);
            }
        }
        writes
    }

    /// [`kept_parameter`] with these writes.
    pub(crate) fn kept(
        &self,
        m: &Module,
        class: ClassId,
        attribute: &str,
        for_other_files: bool,
    ) -> Option<KeptParameter> {
        kept_in(m, self, class, attribute, for_other_files, 0)
    }
}

fn kept_in(
    m: &Module,
    w: &Writes,
    class: ClassId,
    attribute: &str,
    strict: bool,
    hops: u32,
) -> Option<KeptParameter> {
    if hops > MAX_BASES || w.dynamic.contains(&class) {
        return None;
    }
    let def = m.class(class)?;
    let init = def
        .methods
        .iter()
        .copied()
        .find(|f| m.function(*f).is_some_and(|f| f.name == "__init__"));
    let is_self =
        |object: Node, scope| defaults::self_of(m, object, scope).is_some_and(|(c, _)| c == class);
    // `self.args.workers = 2`: the namespace kept is not what was given. In the class's own
    // constructor, such a write is reported to other files as the constructor's write of its
    // parameter ([`constructor_writes`]): a file handing it the namespace sees it there.
    let nested = |write: &&AttributeAssignment| {
        write
            .target
            .child_by_field_name("object")
            .and_then(|o| o.child_by_field_name("object"))
            .is_some_and(|o| is_self(o, write.scope))
            && (init.is_none() || write.function != init)
    };
    if strict && w.under.get(attribute).is_some_and(|u| u.iter().any(nested)) {
        return None;
    }
    let writes: Vec<&AttributeAssignment> =
        w.of.get(attribute)
            .into_iter()
            .flatten()
            .copied()
            .filter(|write| {
                write
                    .target
                    .child_by_field_name("object")
                    .is_some_and(|o| is_self(o, write.scope))
            })
            .collect();
    // `setattr(self.args, ...)`, `vars(self.args).update(...)`.
    let opaque = strict
        && w.opaque.get(attribute).is_some_and(|objects| {
            objects.iter().any(|(o, scope)| {
                o.child_by_field_name("object")
                    .is_some_and(|s| is_self(s, *scope))
            })
        });
    if opaque {
        return None;
    }
    match writes.as_slice() {
        [write] => {
            let init = init?;
            if write.function != Some(init) {
                return None;
            }
            constructor_parameter(m, init, write.value?)
        }
        [] => {
            // Lightning's `self.save_hyperparameters(hparams)`: one dict, namespace or
            // DictConfig given, `self.hparams` is it.
            if attribute == "hparams"
                && let Some(init) = init
                && let Some(saved) = defaults::saved_object(m, class, init)
            {
                return constructor_parameter(m, init, saved);
            }
            let from_base = base_kept(m, w, class, attribute, strict, hops)?;
            match init {
                // The constructor is the base's.
                None => Some(from_base),
                Some(init) => {
                    let given = passed_to_base(m, class, init, &from_base)?;
                    constructor_parameter(m, init, given)
                }
            }
        }
        _ => None,
    }
}

/// The attributes the constructor of `class` assigns on what it keeps from a parameter
/// (`self.args = args; self.args.device = ...` in `Exp_Basic.__init__`), as writes of that
/// parameter, positions among a call's arguments: what a construction, or a subclass's
/// `super().__init__(args)`, does to the namespace it hands over.
pub(crate) fn constructor_writes(m: &Module, class: ClassId) -> Vec<ParamWrite> {
    let Some(init) = m.method_id(class, "__init__") else {
        return Vec::new();
    };
    let w = Writes::of(m);
    let mut out = Vec::new();
    for write in m.attribute_assignments() {
        if write.function != Some(init) {
            continue;
        }
        let Some(kept_object) = write
            .target
            .child_by_field_name("object")
            .filter(|o| o.kind() == "attribute")
        else {
            continue;
        };
        let (Some(owner), Some(kept_name)) = (
            kept_object.child_by_field_name("object"),
            kept_object.child_by_field_name("attribute"),
        ) else {
            continue;
        };
        if defaults::self_of(m, owner, write.scope).is_none_or(|(c, _)| c != class) {
            continue;
        }
        if let Some(kept) = kept_in(m, &w, class, m.text(kept_name), false, 0) {
            out.push(ParamWrite {
                position: kept.position,
                param: kept.keyword,
                attribute: write.attribute.to_owned(),
                shipped: None,
            });
        }
    }
    out
}

/// What the one base of `class` keeps: a class of this file, or of another file of the project
/// as its summary records.
fn base_kept(
    m: &Module,
    w: &Writes,
    class: ClassId,
    attribute: &str,
    strict: bool,
    hops: u32,
) -> Option<KeptParameter> {
    let def = m.class(class)?;
    let base = &subclass::one_base(m, class)?;
    if base.kind() == "identifier"
        && let Some(binding) = m.single_binding(m.text(*base), def.parent_scope)
        && let BindingKind::Class(local) = binding.kind
    {
        return kept_in(m, w, local, attribute, strict, hops + 1);
    }
    let qualified = m.qualified_in(*base, def.parent_scope, 0)?;
    m.index.kept_parameter(m.path, &qualified, attribute)
}

/// The argument `__init__` of `class` hands its base at the base's kept parameter:
/// `super().__init__(args)`, `super(Exp_Main, self).__init__(args)` or
/// `Exp_Basic.__init__(self, args)`, called once, unconditionally.
fn passed_to_base<'a>(
    m: &Module<'a>,
    class: ClassId,
    init: FunctionId,
    kept: &KeptParameter,
) -> Option<Node<'a>> {
    let def = m.class(class)?;
    let body = m.function(init)?.body?;
    let named_base = |object: &str| def.bases.iter().any(|b| m.text(*b) == object);
    let mut calls = subclass::base_init_calls(m, init, named_base);
    let (Some((call, through_super)), None) = (calls.next(), calls.next()) else {
        return None;
    };
    if has_splat(call.node) || !unconditional(body, call.node) {
        return None;
    }
    // `Base.__init__(self, args)` passes `self` first.
    let shift = usize::from(!through_super);
    m.keyword_arg(call.node, &kept.keyword).or_else(|| {
        positional_args(call.node)
            .get(kept.position + shift)
            .copied()
    })
}

/// Whether `node` runs whenever `body` does: a statement of the body itself, not in a branch,
/// loop, `try` or nested function.
fn unconditional(body: Node, node: Node) -> bool {
    let mut at = node;
    while let Some(parent) = at.parent() {
        if parent.id() == body.id() {
            return true;
        }
        if !matches!(
            parent.kind(),
            "expression_statement" | "call" | "argument_list" | "attribute"
        ) {
            return false;
        }
        at = parent;
    }
    false
}

/// The constructor parameter `value` names in `init`: a parameter of `__init__` other than
/// `self`, never assigned again, that may be given by position or keyword.
fn constructor_parameter(m: &Module, init: FunctionId, value: Node) -> Option<KeptParameter> {
    if value.kind() != "identifier" {
        return None;
    }
    let def = m.function(init)?;
    let name = m.text(value);
    let binding = m.single_binding(name, def.scope)?;
    if binding.kind != BindingKind::Parameter {
        return None;
    }
    let (position, keyword_only) = parameter_position(m, def.node, name)?;
    if keyword_only || position == 0 {
        return None;
    }
    Some(KeptParameter {
        position: position - 1,
        keyword: name.to_owned(),
    })
}
