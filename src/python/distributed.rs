//! The world size of a plain run. Training scripts share worker counts and batch sizes out
//! among their processes (`args.workers = int((args.workers + world_size - 1) / world_size)`),
//! reading the number of processes from a helper that answers 1 when `torch.distributed` is
//! not initialised, as DETR's, DeiT's and MAE's `utils.get_world_size()` do. Run as its
//! defaults run it (`python main.py`, no launcher), such a script has a world size of 1; on one
//! node with N processes each gets a share and the node runs about the same total, so what
//! the rules say of the total holds either way.
//!
//! The same holds of a count shared by any count of the processes (the node's GPUs, the
//! launcher's `WORLD_SIZE`): `args.workers = int((args.workers + ngpus_per_node - 1) /
//! ngpus_per_node)` or `cfg.num_workers //= world_size` leaves each of N processes a share,
//! and the node about the whole count, so the whole count is what is checked.

use tree_sitter::Node;

use crate::python::argparse::{self, parameter_position};
use crate::python::defaults::{self, Passed};
use crate::python::model::{
    Binding, BindingKind, FunctionId, MAX_DEPTH, Module, ScopeId, positional_args,
};
use crate::python::syntax;

/// Calls that count the processes of a run, or the GPUs of a node that runs one on each.
const PROCESS_COUNTS: &[&str] = &["torch.cuda.device_count", GET_WORLD_SIZE];

/// The environment variables a launcher (`torchrun`) sets to a count of processes.
const PROCESS_COUNT_VARIABLES: &[&str] = &["WORLD_SIZE", "LOCAL_WORLD_SIZE"];

/// How many calls of a function are read for what they pass.
const MAX_CALLS: usize = 16;

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

/// Whether `expr` counts the processes a worker count is shared among: the node's GPUs
/// (`torch.cuda.device_count()`), `torch.distributed`'s world size or a helper that answers
/// it, the launcher's `WORLD_SIZE` (`int(os.environ["WORLD_SIZE"])`), an attribute
/// `world_size` (`args.world_size`), or a name bound to one of these, a parameter included when every call of the file passes one
/// (`mp.spawn(main_worker, args=(ngpus_per_node, args))`).
pub(crate) fn is_process_count(m: &Module, expr: Node, scope: ScopeId, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match expr.kind() {
        "parenthesized_expression" => expr
            .named_child(0)
            .is_some_and(|inner| is_process_count(m, inner, scope, depth + 1)),
        "call" => {
            let Some(callee) = expr.child_by_field_name("function") else {
                return false;
            };
            let qualified = m.qualified_in(callee, scope, depth + 1);
            match qualified.as_deref() {
                Some(q) if PROCESS_COUNTS.contains(&q) => true,
                Some("builtins.int") => match positional_args(expr).as_slice() {
                    [inner] => {
                        reads_process_variable(m, *inner, scope, depth)
                            || is_process_count(m, *inner, scope, depth + 1)
                    }
                    _ => false,
                },
                q => names_world_size_helper(m, callee, scope, q),
            }
        }
        // `args.world_size`, which a distributed setup (`init_distributed_mode(args)`, MAE's)
        // sets from the launcher's `WORLD_SIZE`: its default is what a plain run keeps.
        "attribute" => expr
            .child_by_field_name("attribute")
            .is_some_and(|a| m.text(a) == "world_size"),
        "identifier" => {
            let Some(binding) = m.binding_read(m.text(expr), scope, expr, depth + 1) else {
                return false;
            };
            match (&binding.kind, binding.value) {
                (BindingKind::Assign, Some(value)) => {
                    is_process_count(m, value, binding.scope, depth + 1)
                }
                (BindingKind::Parameter, _) => passed_process_count(m, binding, depth + 1),
                _ => false,
            }
        }
        _ => false,
    }
}

/// `os.environ["WORLD_SIZE"]`, `os.environ.get("WORLD_SIZE", 1)`, `os.getenv("WORLD_SIZE")`.
fn reads_process_variable(m: &Module, expr: Node, scope: ScopeId, depth: u32) -> bool {
    let variable = match expr.kind() {
        "subscript" => {
            let is_environ = expr.child_by_field_name("value").is_some_and(|v| {
                m.qualified_in(v, scope, depth + 1).as_deref() == Some("os.environ")
            });
            if !is_environ {
                return false;
            }
            expr.child_by_field_name("subscript")
                .and_then(|key| m.string_value(key))
        }
        "call" => {
            let reads = expr.child_by_field_name("function").is_some_and(|f| {
                matches!(
                    m.qualified_in(f, scope, depth + 1).as_deref(),
                    Some("os.environ.get" | "os.getenv")
                )
            });
            if !reads {
                return false;
            }
            positional_args(expr)
                .first()
                .and_then(|key| m.string_value(*key))
        }
        _ => None,
    };
    variable.is_some_and(|v| PROCESS_COUNT_VARIABLES.contains(&v.as_str()))
}

/// Whether every call of the file to the module-level function of `param` passes it a count
/// of processes (at least one call, a `torch.multiprocessing.spawn` of it included).
fn passed_process_count(m: &Module, param: &Binding, depth: u32) -> bool {
    let Some(function_id) = m.scopes().get(param.scope).and_then(|s| s.function) else {
        return false;
    };
    let Some(function) = m.function(function_id).filter(|f| f.class.is_none()) else {
        return false;
    };
    let Some((position, keyword_only)) = parameter_position(m, function.node, param.name) else {
        return false;
    };
    let references = defaults::references_to(
        m,
        function.name,
        function.name_range,
        Some(function_id),
        None,
    );
    // A module-level function no code of its file calls: what its callers in other files
    // pass (`build_contrast_loader(args, ngpus_per_node)` in the training script).
    if references.is_empty() && function.parent_scope == crate::python::model::MODULE_SCOPE {
        let external = argparse::External {
            callee: function.name.to_owned(),
            position: (!keyword_only).then_some(position),
            keyword: param.name.to_owned(),
            method: None,
            splat: false,
        };
        return m.index.process_count_passed(m.path, &external);
    }
    if references.is_empty() || references.len() > MAX_CALLS {
        return false;
    }
    references.into_iter().all(|(reference, scope)| {
        let called = reference
            .parent()
            .filter(|p| p.kind() == "call" && p.child_by_field_name("function") == Some(reference));
        let passed = match called {
            Some(call) => {
                match defaults::passed_for(
                    m,
                    call,
                    scope,
                    position,
                    keyword_only,
                    false,
                    param.name,
                ) {
                    Some(Passed::Value(value, value_scope)) => Some((value, value_scope)),
                    _ => None,
                }
            }
            None if keyword_only => None,
            // `torch.multiprocessing.spawn(f, args=(...))`.
            None => argparse::call_of(m, reference)
                .and_then(|call| argparse::spawned_argument(m, call, position))
                .map(|value| (value, scope)),
        };
        passed.is_some_and(|(value, value_scope)| is_process_count(m, value, value_scope, depth))
    })
}

/// For `left / right` or `left // right` with `right` a count of processes, the count being
/// shared: `left`, or `w` of the ceiling `(w + right - 1)`.
pub(crate) fn shared_count<'a>(
    m: &Module<'a>,
    left: Node<'a>,
    right: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Node<'a>> {
    if !is_process_count(m, right, scope, depth + 1) {
        return None;
    }
    let left = syntax::unparenthesized(left);
    let ceiling = (|| {
        let (sum, op, one) = binary(left)?;
        if m.text(op) != "-" || m.text(one) != "1" {
            return None;
        }
        let (a, plus, b) = binary(syntax::unparenthesized(sum))?;
        let divisor = m.text(syntax::unparenthesized(right));
        match m.text(plus) {
            "+" if m.text(b) == divisor => Some(a),
            "+" if m.text(a) == divisor => Some(b),
            _ => None,
        }
    })();
    Some(ceiling.unwrap_or(left))
}

fn binary(node: Node) -> Option<(Node, Node, Node)> {
    if node.kind() != "binary_operator" {
        return None;
    }
    Some((
        node.child_by_field_name("left")?,
        node.child_by_field_name("operator")?,
        node.child_by_field_name("right")?,
    ))
}

/// Whether `target` of an augmented assignment shares its value among the processes
/// (`cfg.num_workers //= num_gpus`): the processes of a node run about the value it had.
pub(crate) fn shares_out(m: &Module, target: Node, depth: u32) -> bool {
    let Some(statement) = target
        .parent()
        .filter(|p| p.kind() == "augmented_assignment")
    else {
        return false;
    };
    let (Some(operator), Some(right)) = (
        statement.child_by_field_name("operator"),
        statement.child_by_field_name("right"),
    ) else {
        return false;
    };
    statement.child_by_field_name("left") == Some(target)
        && matches!(m.text(operator), "//=" | "/=")
        && is_process_count(m, right, m.scope_at(target), depth + 1)
}
