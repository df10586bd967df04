//! Conditions: `not`, `and`/`or` and comparisons, evaluated where their operands are known,
//! so that a branch (`if args.distributed:`) can be decided under the defaults.

use tree_sitter::Node;

use super::{Module, ScopeId};
use crate::python::values::{Provenance, Resolved, Value};

impl Module<'_> {
    /// `not x`: the negation of a known truthiness.
    pub(super) fn not_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let Some(arg) = expr.child_by_field_name("argument") else {
            return Resolved::unknown();
        };
        match self.value_in(arg, scope, depth + 1).value.truthy() {
            Some(t) => computed(Value::Bool(!t)),
            None => Resolved::unknown(),
        }
    }

    /// `a or b` / `a and b`: Python's result is one of the operands, chosen by the left one's
    /// truthiness.
    pub(super) fn boolean_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let (Some(left), Some(op), Some(right)) = (
            expr.child_by_field_name("left"),
            expr.child_by_field_name("operator"),
            expr.child_by_field_name("right"),
        ) else {
            return Resolved::unknown();
        };
        let left = self.value_in(left, scope, depth + 1);
        let take_left = match (self.text(op), left.value.truthy()) {
            ("or", Some(t)) => t,
            ("and", Some(t)) => !t,
            _ => return Resolved::unknown(),
        };
        let chosen = if take_left {
            left
        } else {
            self.value_in(right, scope, depth + 1)
        };
        if chosen.value.is_known() {
            computed(chosen.value)
        } else {
            Resolved::unknown()
        }
    }

    /// `a < b`, `a == b`, `x is None`, chained (`0 < a <= b`); unknown when any link is.
    pub(super) fn comparison_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let mut cursor = expr.walk();
        let mut operands = Vec::new();
        let mut operators = Vec::new();
        for child in expr.children(&mut cursor) {
            if child.is_named() {
                if child.kind() != "comment" {
                    operands.push(child);
                }
            } else {
                operators.push(
                    self.text(child)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
        if operands.len() != operators.len() + 1 || operators.is_empty() {
            return Resolved::unknown();
        }
        let mut left = self.value_in(operands[0], scope, depth + 1).value;
        for (op, right) in operators.iter().zip(&operands[1..]) {
            let right = self.value_in(*right, scope, depth + 1).value;
            match compare(op, &left, &right) {
                Some(true) => left = right,
                Some(false) => return computed(Value::Bool(false)),
                None => return Resolved::unknown(),
            }
        }
        computed(Value::Bool(true))
    }
}

fn computed(value: Value) -> Resolved {
    Resolved {
        value,
        provenance: Provenance::Computed,
    }
}

/// One comparison of two known values, as Python makes it; `None` when either is unknown or
/// the comparison is not one of plain numbers, strings or `None`.
fn compare(op: &str, left: &Value, right: &Value) -> Option<bool> {
    match op {
        "is" | "is not" => {
            // Only `x is None` is an identity the model can decide.
            let same = match (left, right) {
                (_, Value::None) => left.is_none()?,
                (Value::None, _) => right.is_none()?,
                _ => return None,
            };
            Some(same == (op == "is"))
        }
        "==" | "!=" => {
            let equal = equal(left, right)?;
            Some(equal == (op == "=="))
        }
        "<" | "<=" | ">" | ">=" => {
            let ordering = match (left, right) {
                (Value::Str(a), Value::Str(b)) => a.cmp(b),
                _ => left.as_f64()?.partial_cmp(&right.as_f64()?)?,
            };
            Some(match op {
                "<" => ordering.is_lt(),
                "<=" => ordering.is_le(),
                ">" => ordering.is_gt(),
                _ => ordering.is_ge(),
            })
        }
        _ => None,
    }
}

fn equal(left: &Value, right: &Value) -> Option<bool> {
    match (left, right) {
        (Value::Str(a), Value::Str(b)) => Some(a == b),
        (Value::None, Value::None) => Some(true),
        (Value::None, v) | (v, Value::None) => v.is_none(),
        (Value::Str(_), v) | (v, Value::Str(_)) => v.as_f64().map(|_| false),
        _ => Some(left.as_f64()? == right.as_f64()?),
    }
}
