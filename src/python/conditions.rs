//! Conditions the model can decide statically: comparisons, `not`, `and`/`or`, and the
//! conditional expression `a if cond else b` (a branch is chosen only when the condition is
//! known: `prefetch_factor if num_workers > 0 else 0` with `num_workers` resolved).

use tree_sitter::Node;

use crate::python::model::{Module, ScopeId};
use crate::python::values::{Provenance, Resolved, Value};

/// The value of a `conditional_expression`, `comparison_operator`, `not_operator` or
/// `boolean_operator`; unknown when any part it needs is.
pub(crate) fn value(m: &Module, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
    let computed = |value| Resolved {
        value,
        provenance: Provenance::Computed,
    };
    let operands: Vec<Node> = {
        let mut cursor = expr.walk();
        expr.named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect()
    };
    match expr.kind() {
        "conditional_expression" => {
            let [then, condition, otherwise] = operands.as_slice() else {
                return Resolved::unknown();
            };
            let chosen = match m.value_in(*condition, scope, depth + 1).value.truthy() {
                Some(true) => then,
                Some(false) => otherwise,
                None => return branches(m, [*then, *otherwise], *condition, scope, depth),
            };
            let inner = m.value_in(*chosen, scope, depth + 1);
            match inner.provenance {
                // The value depends on the condition: it is not simply written in place.
                Provenance::Literal => computed(inner.value),
                _ => inner,
            }
        }
        "not_operator" => match expr
            .child_by_field_name("argument")
            .and_then(|a| m.value_in(a, scope, depth + 1).value.truthy())
        {
            Some(b) => computed(Value::Bool(!b)),
            None => Resolved::unknown(),
        },
        "boolean_operator" => {
            let (Some(left), Some(op), Some(right)) = (
                expr.child_by_field_name("left"),
                expr.child_by_field_name("operator"),
                expr.child_by_field_name("right"),
            ) else {
                return Resolved::unknown();
            };
            let l = m.value_in(left, scope, depth + 1);
            // `a and b` is `a` when `a` is falsy, else `b`; `a or b` the other way round.
            let short = match (m.text(op), l.value.truthy()) {
                ("and", Some(t)) => !t,
                ("or", Some(t)) => t,
                _ => return Resolved::unknown(),
            };
            let chosen = if short {
                l
            } else {
                m.value_in(right, scope, depth + 1)
            };
            if chosen.value.is_known() {
                computed(chosen.value)
            } else {
                Resolved::unknown()
            }
        }
        "comparison_operator" => {
            // `a < b <= c`: operands and operators alternate; every link must hold.
            let mut cursor = expr.walk();
            let operators: Vec<&str> = expr
                .children_by_field_name("operators", &mut cursor)
                .map(|o| m.text(o))
                .collect();
            if operators.len() + 1 != operands.len() {
                return Resolved::unknown();
            }
            let values: Vec<Value> = operands
                .iter()
                .map(|o| m.value_in(*o, scope, depth + 1).value)
                .collect();
            let mut all = true;
            for (i, op) in operators.iter().enumerate() {
                let (Some(a), Some(b)) = (values.get(i), values.get(i + 1)) else {
                    return Resolved::unknown();
                };
                match compare(a, op, b) {
                    Some(holds) => all &= holds,
                    None => return Resolved::unknown(),
                }
            }
            computed(Value::Bool(all))
        }
        _ => Resolved::unknown(),
    }
}

/// `a op b` as Python evaluates it, for the values and operators it is certain about.
fn compare(a: &Value, op: &str, b: &Value) -> Option<bool> {
    let op = op.split_whitespace().collect::<Vec<_>>().join(" ");
    match op.as_str() {
        "is" | "is not" => {
            if !a.is_known() || !b.is_known() {
                return None;
            }
            let same = match (a, b) {
                (Value::None, _) | (_, Value::None) => a == b,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                _ => return None,
            };
            Some(same == (op == "is"))
        }
        "==" | "!=" => {
            let equal = match (a, b) {
                (Value::Str(x), Value::Str(y)) => x == y,
                (Value::None, other) | (other, Value::None) => match other {
                    Value::Unknown | Value::CpuCount { .. } => return None,
                    other => *other == Value::None,
                },
                (Value::Str(_), other) | (other, Value::Str(_)) => {
                    other.as_f64()?;
                    false
                }
                _ => a.as_f64()? == b.as_f64()?,
            };
            Some(equal == (op == "=="))
        }
        "<" | "<=" | ">" | ">=" => {
            let (x, y) = (a.as_f64()?, b.as_f64()?);
            Some(match op.as_str() {
                "<" => x < y,
                "<=" => x <= y,
                ">" => x > y,
                _ => x >= y,
            })
        }
        _ => None,
    }
}

/// A conditional expression whose condition is not known before the run (`0 if len(shards) >
/// 10 else 16`): the larger whole number of its sides, as what a run taking that side gets
/// ([`Value::OneCaller`], which only DL201 reads, for a count that may be too large); unknown
/// when neither side is one.
fn branches(
    m: &Module,
    [then, otherwise]: [Node; 2],
    condition: Node,
    scope: ScopeId,
    depth: u32,
) -> Resolved {
    let side = |node: Node, holds: bool| {
        let inner = m.value_in(node, scope, depth + 1);
        let (Value::Int(n) | Value::OneCaller(n)) = inner.value else {
            return None;
        };
        Some(Resolved {
            value: Value::OneCaller(n),
            provenance: Provenance::Branch {
                condition: crate::python::argparse::squeezed(m.text(condition)),
                holds,
                inner: Box::new(inner.provenance),
            },
        })
    };
    Resolved::largest_of_callers(side(then, true).into_iter().chain(side(otherwise, false)))
        .unwrap_or_else(Resolved::unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_python_decides_the_same_way() {
        assert_eq!(compare(&Value::Int(0), ">", &Value::Int(0)), Some(false));
        assert_eq!(
            compare(&Value::Int(2), ">=", &Value::Float(2.0)),
            Some(true)
        );
        assert_eq!(
            compare(&Value::Bool(true), "==", &Value::Int(1)),
            Some(true)
        );
        assert_eq!(compare(&Value::None, "is not", &Value::Int(0)), Some(true));
        assert_eq!(compare(&Value::None, "is   not", &Value::None), Some(false));
        assert_eq!(
            compare(&Value::Str("a".into()), "!=", &Value::Int(1)),
            Some(true)
        );
        assert_eq!(compare(&Value::Unknown, ">", &Value::Int(0)), None);
        assert_eq!(compare(&Value::Unknown, "is", &Value::None), None);
        assert_eq!(compare(&Value::Int(1), "in", &Value::Int(1)), None);
    }
}
