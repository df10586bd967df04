//! absl's flags: `flags.DEFINE_integer("num_workers", 16, "...")` at the top of the module,
//! read as `FLAGS.num_workers` (`FLAGS = flags.FLAGS`): a run without options gets the
//! default. A flag defined twice, assigned anywhere in the file or given another default
//! (`FLAGS.set_default(...)`), or flags parsed from a list of the code's own (`FLAGS([...])`),
//! stay unknown; flags defined in another module are not followed.

use tree_sitter::Node;

use super::placed;
use crate::python::model::{MODULE_SCOPE, Module, ScopeId, positional_args};
use crate::python::values::{Provenance, Resolved};

/// The functions that define a flag with a default, as they are imported.
const DEFINES: &[&str] = &[
    "absl.flags.DEFINE_integer",
    "absl.flags.DEFINE_float",
    "absl.flags.DEFINE_bool",
    "absl.flags.DEFINE_boolean",
    "absl.flags.DEFINE_string",
    "absl.flags.DEFINE_enum",
];

/// The default of flag `attribute` when `object` is absl's `FLAGS`.
pub(crate) fn flag_value(
    m: &Module,
    object: Node,
    attribute: &str,
    scope: ScopeId,
    depth: u32,
) -> Option<Resolved> {
    if m.qualified_in(object, scope, depth + 1).as_deref() != Some("absl.flags.FLAGS") {
        return None;
    }
    if m.attribute_assignments()
        .iter()
        .any(|w| w.attribute == attribute)
        || reset(m, attribute)
    {
        return None;
    }
    let mut defines = m.calls().iter().filter(|c| {
        c.scope == MODULE_SCOPE
            && c.qualified.as_deref().is_some_and(|q| DEFINES.contains(&q))
            && positional_args(c.node)
                .first()
                .and_then(|n| m.string_value(*n))
                .as_deref()
                == Some(attribute)
    });
    let define = defines.next()?;
    if defines.next().is_some() {
        return None;
    }
    let default = m
        .keyword_arg(define.node, "default")
        .or_else(|| positional_args(define.node).get(1).copied())?;
    let inner = m.value_in(default, MODULE_SCOPE, depth + 1);
    inner.value.is_known().then(|| {
        placed(
            inner,
            Provenance::FlagDefault {
                flag: format!("--{attribute}"),
                line: m.line(default.start_byte()),
                at: Module::range(default),
            },
        )
    })
}

/// Whether the file may give flag `name` another value than its default before a read:
/// `FLAGS.set_default("name", ...)` (or with a name not written out), or `FLAGS(argv)` on
/// a command line of its own.
fn reset(m: &Module, name: &str) -> bool {
    m.calls().iter().any(|c| {
        let parses = c.qualified.as_deref() == Some("absl.flags.FLAGS");
        let sets = matches!(
            c.method,
            Some("set_default" | "__setattr__" | "__setitem__")
        ) && positional_args(c.node)
            .first()
            .is_none_or(|n| m.string_value(*n).is_none_or(|s| s == name));
        parses || sets
    })
}
