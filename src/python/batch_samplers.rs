//! The length of the batches a `batch_sampler=` hands a DataLoader, where it is provable:
//! torch's `BatchSampler(sampler, batch_size, drop_last)` yields lists of `batch_size`
//! indices (the last one may be shorter), and so does a subclass of it in the same file that
//! keeps torch's `__iter__` and passes `batch_size` on to torch's `__init__` unchanged.
//!
//! Any other batch sampler (a bucketing sampler, a per-rank division of a global batch size,
//! a class of another file) leaves the length unknown.

use tree_sitter::Node;

use crate::python::argparse::has_splat;
use crate::python::kinds::{Kind, kind};
use crate::python::model::{BindingKind, ClassId, Module, ScopeId, positional_args};
use crate::python::subclass::{Forward, init_summary};
use crate::python::syntax::{range, walk_all};
use crate::python::values::{Provenance, Resolved};

/// torch's batch sampler, as the model qualifies it.
const TORCH_BATCH_SAMPLER: &[&str] = &[
    "torch.utils.data.BatchSampler",
    "torch.utils.data.sampler.BatchSampler",
];

/// `BatchSampler.__init__(self, sampler, batch_size, drop_last)`: `batch_size` is its second
/// argument.
const BATCH_SIZE_POSITION: usize = 1;

/// How many names bound to names are followed.
const MAX_DEPTH: u32 = 4;

/// The batch size a batch sampler was built with, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerBatch {
    pub batch_size: i64,
    /// How the batch size resolved (its provenance for messages).
    pub resolved: Resolved,
    /// The sampler's class as written (`BatchSampler`, `ShuffledBatchSampler`).
    pub class: String,
    /// 1-based line of the sampler's construction.
    pub line: u32,
}

/// The batch size of the batch sampler `expr` (a construction, or a name bound once to one).
pub fn batch_size(m: &Module, expr: Node, scope: ScopeId) -> Option<SamplerBatch> {
    construction(m, expr, scope, 0)
}

fn construction(m: &Module, expr: Node, scope: ScopeId, depth: u32) -> Option<SamplerBatch> {
    if depth > MAX_DEPTH {
        return None;
    }
    match kind(expr) {
        Kind::Identifier => {
            let binding = m.single_binding(m.text(expr), scope)?;
            if binding.kind != BindingKind::Assign {
                return None;
            }
            construction(m, binding.value?, binding.scope, depth + 1)
        }
        Kind::Call => {
            let callee = expr.child_by_field_name("function")?;
            let (position, keyword, default) = batch_size_argument(m, callee, scope)?;
            let argument = m
                .keyword_arg(expr, &keyword)
                .or_else(|| position.and_then(|p| positional_args(expr).get(p).copied()));
            // A splat may pass the batch size.
            if argument.is_none() && has_splat(expr) {
                return None;
            }
            let resolved = match argument {
                Some(node) => m.value_in(node, scope, 0),
                None => default?,
            };
            let batch_size = resolved.value.as_int().filter(|n| *n > 0)?;
            Some(SamplerBatch {
                batch_size,
                resolved,
                class: m.text(callee).to_owned(),
                line: m.line(expr.start_byte()),
            })
        }
        _ => None,
    }
}

/// Where a call of `callee` takes the batch size: its position, its keyword, and its default
/// when the call leaves it out (`None` inside: required).
fn batch_size_argument(
    m: &Module,
    callee: Node,
    scope: ScopeId,
) -> Option<(Option<usize>, String, Option<Resolved>)> {
    if m.qualified_in(callee, scope, 0)
        .is_some_and(|q| TORCH_BATCH_SAMPLER.contains(&q.as_str()))
    {
        return Some((Some(BATCH_SIZE_POSITION), "batch_size".to_owned(), None));
    }
    if kind(callee) != Kind::Identifier {
        return None;
    }
    let binding = m.single_binding(m.text(callee), scope)?;
    let BindingKind::Class(class) = binding.kind else {
        return None;
    };
    subclass_argument(m, class)
}

/// A subclass of torch's BatchSampler in this file that keeps its `__iter__` and its
/// `batch_size`: where its constructor takes the batch size.
fn subclass_argument(
    m: &Module,
    class: ClassId,
) -> Option<(Option<usize>, String, Option<Resolved>)> {
    let def = m.class(class)?;
    let [base] = def.bases.as_slice() else {
        return None;
    };
    let is_torch = m
        .qualified_in(*base, def.parent_scope, 0)
        .is_some_and(|q| TORCH_BATCH_SAMPLER.contains(&q.as_str()));
    if !is_torch
        || def
            .node
            .parent()
            .is_some_and(|p| kind(p) == Kind::DecoratedDefinition)
        || m.method_id(class, "__iter__").is_some()
        || writes_batch_size(m, def.node)
    {
        return None;
    }
    let Some(init_id) = m.method_id(class, "__init__") else {
        return Some((Some(BATCH_SIZE_POSITION), "batch_size".to_owned(), None));
    };
    let init = init_summary(m, class);
    let call = init.call.as_ref()?;
    if call.unknown_splat {
        return None;
    }
    let forward = call
        .keywords
        .iter()
        .find(|(k, _)| k == "batch_size")
        .map(|(_, f)| f)
        .or_else(|| call.positional.get(BATCH_SIZE_POSITION))?;
    match forward {
        Forward::Param(name) => {
            let position = init.params.iter().position(|(n, _)| n == name)?;
            let function = m.function(init_id)?;
            let default = default_of(m, function.node, name).map(|node| {
                let mut resolved = m.value_in(node, function.parent_scope, 0);
                if resolved.provenance == Provenance::Literal {
                    resolved.provenance = Provenance::ParameterDefault {
                        function: format!("{}.__init__", def.name),
                        param: name.clone(),
                        line: m.line(node.start_byte()),
                        at: range(node),
                        file: None,
                        via: None,
                    };
                }
                resolved
            });
            Some((Some(position), name.clone(), default))
        }
        // A literal batch size: no argument of the call sets it.
        Forward::Literal(text) => {
            let value = crate::python::catalogue::parse_literal(text)?;
            Some((
                None,
                String::new(),
                Some(Resolved {
                    value,
                    provenance: Provenance::Literal,
                }),
            ))
        }
        Forward::Unknown => None,
    }
}

/// `self.batch_size = ...` (or `+=`) anywhere in the class: torch's `__iter__` would then use
/// another length than the one passed.
fn writes_batch_size(m: &Module, class: Node) -> bool {
    let mut found = false;
    walk_all(class, &mut |n| {
        if matches!(kind(n), Kind::Assignment | Kind::AugmentedAssignment)
            && n.child_by_field_name("left").is_some_and(|l| {
                kind(l) == Kind::Attribute
                    && l.child_by_field_name("attribute")
                        .is_some_and(|a| m.text(a) == "batch_size")
            })
        {
            found = true;
        }
    });
    found || m.text(class).contains("setattr(")
}

/// The default's expression of the parameter `name` of the function `def`.
fn default_of<'t>(m: &Module, def: Node<'t>, name: &str) -> Option<Node<'t>> {
    let params = def.child_by_field_name("parameters")?;
    let mut cursor = params.walk();
    let found = params.named_children(&mut cursor).find(|p| {
        matches!(
            kind(*p),
            Kind::DefaultParameter | Kind::TypedDefaultParameter
        ) && p
            .child_by_field_name("name")
            .is_some_and(|n| m.text(n) == name)
    })?;
    found.child_by_field_name("value")
}
