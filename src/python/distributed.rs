//! The world size of a plain run. Training scripts share worker counts and batch sizes out
//! among their processes (`args.workers = int((args.workers + world_size - 1) / world_size)`),
//! reading the number of processes from a helper that answers 1 when `torch.distributed` is
//! not initialised, as DETR's, DeiT's and MAE's `utils.get_world_size()` do. Run as its
//! defaults run it (`python main.py`, no launcher), such a script has a world size of 1; on one
//! node with N processes each gets a share and the node runs about the same total, so what
//! the rules say of the total holds either way.

use tree_sitter::Node;

use crate::python::model::{BindingKind, FunctionId, Module, ScopeId};
use crate::python::syntax;

/// `torch.distributed`'s own answer, which raises unless the process group exists: only a
/// helper that guards it answers 1 in a plain run.
const GET_WORLD_SIZE: &str = "torch.distributed.get_world_size";

/// Whether the function `id` is such a helper: it takes no argument it needs, and every
/// `return` gives `1` or `torch.distributed.get_world_size()` (both appear), directly or as
/// the two sides of a conditional expression.
pub(crate) fn answers_world_size(m: &Module, id: FunctionId) -> bool {
    let Some(function) = m.function(id) else {
        return false;
    };
    if function.class.is_some() || !takes_no_required_argument(function.node) {
        return false;
    }
    let Some(body) = function.body else {
        return false;
    };
    let (mut one, mut asked) = (false, false);
    let all_known = syntax::return_statements(body).into_iter().all(|ret| {
        ret.named_child(0)
            .is_some_and(|value| returned(m, value, function.scope, &mut one, &mut asked))
    });
    all_known && one && asked
}

/// Whether `value` is `1`, the guarded call, or a conditional expression of the two, noting
/// which it saw.
fn returned(m: &Module, value: Node, scope: ScopeId, one: &mut bool, asked: &mut bool) -> bool {
    match value.kind() {
        "integer" => {
            let is_one = m.text(value) == "1";
            *one |= is_one;
            is_one
        }
        "call" => {
            let is_call = value.child_by_field_name("function").is_some_and(|callee| {
                m.qualified_in(callee, scope, 0).as_deref() == Some(GET_WORLD_SIZE)
            }) && value
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0);
            *asked |= is_call;
            is_call
        }
        "conditional_expression" => {
            let mut cursor = value.walk();
            let parts: Vec<Node> = value.named_children(&mut cursor).collect();
            // `a if condition else b`: the two values are the first and the last.
            matches!(parts.as_slice(), [a, _, b]
                if returned(m, *a, scope, one, asked) && returned(m, *b, scope, one, asked))
        }
        "parenthesized_expression" => value
            .named_child(0)
            .is_some_and(|inner| returned(m, inner, scope, one, asked)),
        _ => false,
    }
}

fn takes_no_required_argument(def: Node) -> bool {
    let Some(params) = def.child_by_field_name("parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    params.named_children(&mut cursor).all(|p| {
        matches!(
            p.kind(),
            "default_parameter"
                | "typed_default_parameter"
                | "list_splat_pattern"
                | "dictionary_splat_pattern"
                | "comment"
        )
    })
}

/// Whether `callee` (called in `scope`, `qualified` as the model names it) names such a
/// helper: a function of this file, or one imported from another file of the project.
pub(crate) fn names_world_size_helper(
    m: &Module,
    callee: Node,
    scope: ScopeId,
    qualified: Option<&str>,
) -> bool {
    if let Some(qualified) = qualified {
        return m.index.answers_world_size(m.path, qualified);
    }
    callee.kind() == "identifier"
        && m.lookup(m.text(callee), scope)
            .and_then(|ids| match ids {
                [id] => m.bindings().get(*id),
                _ => None,
            })
            .is_some_and(|b| matches!(b.kind, BindingKind::Function(f) if answers_world_size(m, f)))
}
