//! Transform wrappers that hand the dataset several views of one sample:
//! `TwoCropsTransform(base)` of MoCo, SimSiam and their descendants, whose `__call__` returns
//! `[self.base_transform(x), self.base_transform(x)]`. A sample then holds that many tensors of
//! the base transform's size.

use tree_sitter::Node;

use crate::python::model::{BindingKind, ClassId, Module};
use crate::python::syntax;

/// How many views of one input the class's instances return when called: `k` when `__call__`
/// has one `return` of a list or tuple of `k` (at least two) calls of the same attribute of
/// `self`, written there or bound once to names it returns.
pub fn copies(m: &Module, class: ClassId) -> Option<usize> {
    let call = m
        .class(class)?
        .methods
        .iter()
        .filter_map(|f| m.function(*f))
        .find(|f| f.name == "__call__")?;
    let returns = syntax::return_statements(call.body?);
    let [returned] = returns.as_slice() else {
        return None;
    };
    let value = returned.named_child(0)?;
    if !matches!(value.kind(), "list" | "tuple") {
        return None;
    }
    let mut cursor = value.walk();
    let views: Vec<Node> = value.named_children(&mut cursor).collect();
    // `q = self.base_transform(x)` then `return [q, k]`, or the calls in the list itself.
    let attribute = |view: &Node| {
        let view = match view.kind() {
            "identifier" => &m.single_binding(m.text(*view), call.scope)?.value?,
            _ => view,
        };
        let callee = view
            .child_by_field_name("function")
            .filter(|_| view.kind() == "call")?;
        let object = callee.child_by_field_name("object")?;
        if callee.kind() != "attribute" || m.text(object) != "self" {
            return None;
        }
        Some(m.text(callee.child_by_field_name("attribute")?))
    };
    let first = attribute(views.first()?)?;
    (views.len() >= 2 && views.iter().all(|v| attribute(v) == Some(first))).then_some(views.len())
}

/// How many views of its input the object `call` builds returns: a class of this file, or of
/// another file of the project, that [`copies`] describes.
pub fn copies_of_call(m: &Module, call: Node) -> Option<usize> {
    let callee = call.child_by_field_name("function")?;
    if callee.kind() == "identifier"
        && let Some(binding) = m.single_binding(m.text(callee), m.scope_at(callee))
        && let BindingKind::Class(class) = binding.kind
    {
        return copies(m, class);
    }
    let qualified = m.call_site(call)?.qualified.as_deref()?;
    m.index.transform_copies(m.path, qualified)
}
