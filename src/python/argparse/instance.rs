//! Why a value read through `self` in a method (`self.num_workers`, `self.hparams.workers`,
//! `self.args.workers`, `self.config["workers"]`) stays unknown: what the class does with the
//! attribute, rather than that `self` is a parameter. `loaders` and the hover answer "why
//! didn't it fire?" with it.

use tree_sitter::Node;

use crate::python::defaults::{
    saved_hyperparameters, self_of, sets_attributes_dynamically, subclass_constructors_differ,
    written_elsewhere,
};
use crate::python::model::{BindingKind, ClassId, Module, ScopeId};

/// How many writes of one attribute are listed by line.
const MAX_LINES_SHOWN: usize = 4;

/// Why `read`, an attribute or key read from `self` in a method, is unknown; `None` when it
/// is read from anything else.
pub(super) fn untraced(m: &Module, read: Node, scope: ScopeId) -> Option<String> {
    let root = root_of(read);
    let (class, self_name) = self_of(m, root, scope)?;
    let def = m.class(class)?;
    // Down from the read to `self.<attribute>`, keeping the key read from it next.
    let mut node = read;
    let mut key: Option<String> = None;
    let attribute = loop {
        let (object, name) = match node.kind() {
            "attribute" => (
                node.child_by_field_name("object")?,
                Some(m.text(node.child_by_field_name("attribute")?).to_owned()),
            ),
            "subscript" => (
                node.child_by_field_name("value")?,
                node.child_by_field_name("subscript")
                    .and_then(|s| m.string_value(s)),
            ),
            _ => return None,
        };
        if object.id() == root.id() {
            break name?;
        }
        key = name;
        node = object;
    };
    // `self.args.workers`: the attribute holds a namespace.
    let what = if node.id() == read.id() {
        "value"
    } else {
        "namespace"
    };
    let class_name = def.name;
    if attribute == "hparams"
        && let Some(key) = &key
        && let Some(saved) = saved_hyperparameters(m, class, self_name)
    {
        let line = m.line(saved.call.node.start_byte());
        let Some(ignored) = saved.ignored else {
            return Some(format!(
                "`{self_name}.hparams` is filled by `{}` (line {line}), whose arguments dldoctor \
                 does not read",
                super::squeezed(m.text(saved.call.node))
            ));
        };
        if ignored.contains(key) {
            return Some(format!(
                "`{key}` is left out of `{self_name}.hparams` (`ignore=`, line {line})"
            ));
        }
        let is_parameter = m
            .method_id(class, "__init__")
            .and_then(|init| m.function(init))
            .and_then(|init| m.single_binding(key, init.scope))
            .is_some_and(|b| b.kind == BindingKind::Parameter);
        if is_parameter {
            return Some(format!(
                "`{self_name}.hparams.{key}` is the `{key}` given to `{class_name}(...)` \
                 (`save_hyperparameters()`, line {line}), and {}",
                nobody(m, class, "value")
            ));
        }
        return Some(format!(
            "`{class_name}.__init__` has no parameter `{key}` for `save_hyperparameters()` \
             (line {line}) to keep"
        ));
    }
    if sets_attributes_dynamically(m, class) {
        return Some(format!(
            "`{class_name}` sets attributes by computed name (`setattr`), so \
             `{self_name}.{attribute}` may hold anything"
        ));
    }
    if written_elsewhere(m, class, &attribute) {
        return Some(format!(
            "another file of the project names `{class_name}` and may set `{attribute}` on its \
             instances (a subclass, or code holding one)"
        ));
    }
    Some(writes_of(m, class, self_name, &attribute, what))
}

/// The name an attribute or key is read from, however deep (`args` of `args.data["workers"]`).
fn root_of(node: Node) -> Node {
    let mut root = node;
    while let Some(inner) = match root.kind() {
        "attribute" => root.child_by_field_name("object"),
        "subscript" => root.child_by_field_name("value"),
        _ => None,
    } {
        root = inner;
    }
    root
}

/// The end of a reason about a parameter of the constructor of `class`.
fn nobody(m: &Module, class: ClassId, what: &str) -> String {
    let name = m.class(class).map_or("", |c| c.name);
    if subclass_constructors_differ(m, class) {
        return format!("`{name}` has subclasses here, whose constructors may pass it anything");
    }
    format!("no construction of `{name}` dldoctor found passes it a {what} it can resolve")
}

/// What the methods of `class` write to `self.<attribute>`, said as the reason.
fn writes_of(m: &Module, class: ClassId, self_name: &str, attribute: &str, what: &str) -> String {
    let shown = format!("{self_name}.{attribute}");
    let class_name = m.class(class).map_or("", |c| c.name);
    let writes: Vec<_> = m
        .attribute_assignments()
        .iter()
        .filter(|w| {
            w.attribute == attribute
                && w.object == Some(self_name)
                && w.function
                    .and_then(|f| m.function(f))
                    .is_some_and(|f| f.class == Some(class))
        })
        .collect();
    let init = m.method_id(class, "__init__");
    match writes.as_slice() {
        [] => match m.class(class).map(|c| c.bases.as_slice()) {
            Some(bases) if !bases.is_empty() => {
                let bases: Vec<String> =
                    bases.iter().map(|b| format!("`{}`", m.text(*b))).collect();
                format!(
                    "`{shown}` is not set in `{class_name}`: a base class ({}) or the code that \
                     makes the instance sets it",
                    bases.join(", ")
                )
            }
            _ => format!(
                "`{shown}` is not set in `{class_name}`: the code that makes the instance sets it"
            ),
        },
        [write] => {
            let line = m.line(write.target.start_byte());
            let method = write.function.and_then(|f| m.function(f));
            let in_init = write.function.is_some() && write.function == init;
            let conditional = method
                .and_then(|f| f.body)
                .is_some_and(|body| m.is_conditional_relative_to(write.target, body));
            let Some(value) = write.value else {
                return format!("`{shown}` is changed in place on line {line}");
            };
            if !in_init {
                let name = method.map_or("a method", |f| f.name);
                return format!(
                    "`{shown}` is set in `{name}` on line {line}, which may run before or after \
                     this read"
                );
            }
            if conditional {
                return format!("`{shown}` is set under a condition on line {line}");
            }
            // `self.workers = workers`, or `self.workers = args.workers`: a parameter of
            // `__init__` (the value, or what it is read from).
            let root = root_of(value);
            let parameter = (root.kind() == "identifier")
                .then(|| m.single_binding(m.text(root), write.scope))
                .flatten()
                .filter(|b| b.kind == BindingKind::Parameter);
            match parameter {
                Some(param) if root.id() == value.id() => format!(
                    "`{shown}` is the `{}` given to `{class_name}(...)` (line {line}), and {}",
                    param.name,
                    nobody(m, class, what)
                ),
                Some(param) => format!(
                    "`{shown}` is set on line {line} from `{}`, the `{}` given to \
                     `{class_name}(...)`, and {}",
                    super::squeezed(m.text(value)),
                    param.name,
                    nobody(m, class, "namespace")
                ),
                None => format!(
                    "`{shown}` is set on line {line} to `{}`, which dldoctor cannot follow to a \
                     value",
                    super::squeezed(m.text(value))
                ),
            }
        }
        many => {
            let mut lines: Vec<u32> = many.iter().map(|w| m.line(w.target.start_byte())).collect();
            lines.dedup();
            let more = lines.len() > MAX_LINES_SHOWN;
            let listed: Vec<String> = lines
                .iter()
                .take(MAX_LINES_SHOWN)
                .map(ToString::to_string)
                .collect();
            format!(
                "`{shown}` is set in more than one place (lines {}{})",
                listed.join(", "),
                if more { ", ..." } else { "" }
            )
        }
    }
}
