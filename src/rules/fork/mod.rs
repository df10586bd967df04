//! DL1xx: start methods, CUDA and pickling across the fork/spawn boundary.
//!
//! The rules share one view of each DataLoader call ([`Loader`]): its arguments, worker count,
//! start method, worker-side code, and where its workers start.

pub mod cuda_before_fork;
pub mod cuda_in_forked_worker;
pub mod implicit_start_method;
pub mod pin_memory_cuda_data;
pub mod spawn_without_main_guard;
pub mod unpicklable_worker_callable;

use tree_sitter::Node;

use crate::diagnostic::Diagnostic;
use crate::fix::{Edit, Fix};
use crate::python::start_method::{self, Origin, StartMethod};
use crate::python::syntax::{self, Scope};
use crate::python::workers::{self, WorkerCode};
use crate::rules::Checker;
use crate::text::TextRange;

const DATALOADER: &[&str] = &[
    "torch.utils.data.DataLoader",
    "torch.utils.data.dataloader.DataLoader",
];

/// One `torch.utils.data.DataLoader(...)` call as the DL1xx rules see it.
pub(crate) struct Loader<'a> {
    pub call: Node<'a>,
    /// The callee (`DataLoader`, `tud.DataLoader`), where diagnostics go by default.
    pub callee: Node<'a>,
    /// `**kwargs` may bind any argument not written out.
    pub has_splat: bool,
    pub start: StartMethod,
}

impl<'a> Loader<'a> {
    /// The expression bound to `name`, by keyword or by position.
    pub fn argument(&self, scope: &Scope<'a>, name: &str) -> Option<Node<'a>> {
        scope.keyword(self.call, name).or_else(|| {
            let index = start_method::DATALOADER_SIGNATURE
                .iter()
                .position(|p| *p == name)?;
            syntax::positional_argument(self.call, index)
        })
    }

    /// The whole argument (`name=value`, or the positional expression) for squiggles.
    pub fn argument_range(&self, scope: &Scope<'a>, name: &str) -> Option<TextRange> {
        let value = self.argument(scope, name)?;
        let node = value
            .parent()
            .filter(|p| p.kind() == "keyword_argument")
            .unwrap_or(value);
        Some(syntax::range(node))
    }

    /// `num_workers` when it is known: written as an integer (or a name bound once to one),
    /// or absent (0) with no `**kwargs` that could bind it.
    pub fn num_workers(&self, scope: &Scope<'a>) -> Option<i64> {
        match self.argument(scope, "num_workers") {
            Some(value) => int_value(scope, value),
            None if self.has_splat => None,
            None => Some(0),
        }
    }

    /// Whether worker processes start at all (`num_workers` known and above 0).
    pub fn has_workers(&self, scope: &Scope<'a>) -> bool {
        self.num_workers(scope).is_some_and(|n| n > 0)
    }

    /// `pin_memory` is known to be true.
    pub fn pins_memory(&self, scope: &Scope<'a>) -> bool {
        self.argument(scope, "pin_memory")
            .is_some_and(|v| bool_value(scope, v) == Some(true))
    }

    pub fn worker_code(&self, scope: &Scope<'a>, checker: &Checker) -> WorkerCode {
        workers::worker_code(
            scope,
            self.call,
            self.argument(scope, "dataset"),
            self.argument(scope, "collate_fn"),
            self.argument(scope, "worker_init_fn"),
            checker.model.path,
            checker.model.index,
        )
    }

    /// The statement at which the workers start: the first later statement of the same block
    /// that uses the name the loader is assigned to (a `for`, `iter()`, `zip()`, a `fit()`),
    /// else the statement that builds the loader.
    pub fn start_statement(&self, scope: &Scope<'a>) -> Option<Node<'a>> {
        let statement = syntax::statement_of(self.call)?;
        let Some(name) = assigned_name(scope, self.call) else {
            return Some(statement);
        };
        let mut sibling = statement.next_named_sibling();
        while let Some(s) = sibling {
            if mentions(scope, s, name) {
                return Some(s);
            }
            sibling = s.next_named_sibling();
        }
        Some(statement)
    }

    /// An edit list adding `multiprocessing_context="<method>"` (or replacing the value that
    /// is there).
    pub fn set_context_edits(&self, scope: &Scope<'a>, method: &str) -> Vec<Edit> {
        let value = format!("\"{method}\"");
        if let Some(existing) = self.argument(scope, "multiprocessing_context") {
            return vec![Edit::replace(syntax::range(existing), value)];
        }
        add_keyword_edits(scope, self.call, "multiprocessing_context", &value)
    }
}

/// Every DataLoader call of the file, with its start method.
pub(crate) fn loaders<'a>(scope: &Scope<'a>, checker: &Checker) -> Vec<Loader<'a>> {
    let platform =
        start_method::platform_default(&checker.ctx.host.os, checker.ctx.settings.target_version);
    let mut found = Vec::new();
    syntax::walk_all(scope.root(), &mut |n| {
        if n.kind() != "call" {
            return;
        }
        let Some(callee) = n.child_by_field_name("function") else {
            return;
        };
        let Some(qualified) = scope.qualified_name(callee) else {
            return;
        };
        if !DATALOADER.contains(&qualified.as_str()) {
            return;
        }
        let has_splat = n.child_by_field_name("arguments").is_some_and(|args| {
            let mut cursor = args.walk();
            args.named_children(&mut cursor)
                .any(|a| a.kind() == "dictionary_splat")
        });
        let mut start = start_method::start_method(scope, n, platform);
        // `**kwargs` may carry its own `multiprocessing_context`.
        if has_splat && !matches!(start.origin, Origin::Argument(_)) {
            start.method = None;
        }
        found.push(Loader {
            call: n,
            callee: callee.child_by_field_name("attribute").unwrap_or(callee),
            has_splat,
            start,
        });
    });
    found
}

/// An integer literal, or a name bound once to one.
fn int_value(scope: &Scope, node: Node) -> Option<i64> {
    match node.kind() {
        "integer" => scope.text(node).replace('_', "").parse().ok(),
        "unary_operator" if scope.text(node).starts_with('-') => {
            int_value(scope, node.named_child(0)?).map(|v| -v)
        }
        "identifier" => match scope.bound_values(node).as_slice() {
            [value] => int_value(scope, *value),
            _ => None,
        },
        _ => None,
    }
}

fn bool_value(scope: &Scope, node: Node) -> Option<bool> {
    match node.kind() {
        "true" => Some(true),
        "false" => Some(false),
        "identifier" => match scope.bound_values(node).as_slice() {
            [value] => bool_value(scope, *value),
            _ => None,
        },
        _ => None,
    }
}

/// `loader` in `loader = DataLoader(...)`.
fn assigned_name<'a>(scope: &Scope<'a>, call: Node<'a>) -> Option<&'a str> {
    let assignment = call.parent().filter(|p| p.kind() == "assignment")?;
    let left = assignment.child_by_field_name("left")?;
    (left.kind() == "identifier").then(|| scope.text(left))
}

fn mentions(scope: &Scope, node: Node, name: &str) -> bool {
    let mut found = false;
    syntax::walk_all(node, &mut |n| {
        found |= n.kind() == "identifier" && scope.text(n) == name;
    });
    found
}

/// Edits that add `name=value` as the call's last argument, keeping the call's layout: on its
/// own line before a closing parenthesis that sits on its own line, else inline.
pub(crate) fn add_keyword_edits(scope: &Scope, call: Node, name: &str, value: &str) -> Vec<Edit> {
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let source = scope.source;
    let close = arguments.end_byte().saturating_sub(1);
    if source.as_bytes().get(close) != Some(&b')') {
        return Vec::new();
    }
    let mut cursor = arguments.walk();
    let last = arguments
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .last();
    let Some(last) = last else {
        return vec![Edit::insert(close, format!("{name}={value}"))];
    };
    let between = &source[last.end_byte()..close];
    let trailing_comma = between.trim_start().starts_with(',');
    let close_line_start = source[..close].rfind('\n').map_or(0, |i| i + 1);
    let close_on_own_line =
        source[close_line_start..close].trim().is_empty() && close_line_start > last.end_byte();
    if close_on_own_line {
        let last_line_start = source[..last.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = source[last_line_start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let mut edits = Vec::new();
        if !trailing_comma {
            edits.push(Edit::insert(last.end_byte(), ","));
        }
        edits.push(Edit::insert(
            close_line_start,
            format!("{indent}{name}={value},\n"),
        ));
        return edits;
    }
    if trailing_comma {
        let comma = last.end_byte() + between.find(',').unwrap_or(0) + 1;
        return vec![Edit::insert(comma, format!(" {name}={value}"))];
    }
    vec![Edit::insert(last.end_byte(), format!(", {name}={value}"))]
}

/// Adds the fixes DL101 and DL102 offer, spawn (preferred) and forkserver, and points at where
/// the loader's start method is chosen. When the file would then also need a main guard, or
/// passes a callable spawn cannot pickle, the fix titles say so and `relatedInformation`
/// points at it, so a fix never silently trades one crash for another.
pub(crate) fn with_start_method_fixes(
    mut diagnostic: Diagnostic,
    scope: &Scope,
    loader: &Loader,
) -> Diagnostic {
    if let Some(range) = loader.start.range() {
        diagnostic = diagnostic.with_related(range, "the start method is chosen here");
    }
    let consequences = spawn_consequences(scope, loader);
    let suffix = if consequences.is_empty() {
        String::new()
    } else {
        let notes: Vec<&str> = consequences.iter().map(|(_, note)| note.as_str()).collect();
        format!(" ({})", notes.join("; "))
    };
    for (i, method) in ["spawn", "forkserver"].iter().enumerate() {
        let edits = loader.set_context_edits(scope, method);
        if edits.is_empty() {
            continue;
        }
        let fix = Fix::unsafe_(
            format!("Add multiprocessing_context=\"{method}\"{suffix}"),
            edits,
        );
        diagnostic = diagnostic.with_fix(if i == 0 { fix.preferred() } else { fix });
    }
    for (range, note) in consequences {
        diagnostic = diagnostic.with_related(range, format!("with spawn, {note}"));
    }
    diagnostic
}

/// What switching this loader to spawn would also require: a main guard around module-level
/// code that starts the workers, and module-level versions of lambdas and local callables.
pub(crate) fn spawn_consequences(scope: &Scope, loader: &Loader) -> Vec<(TextRange, String)> {
    let mut notes = Vec::new();
    if let Some(site) = spawn_without_main_guard::unguarded_start(scope, loader) {
        notes.push((
            syntax::range(site),
            "the script then also needs an `if __name__ == \"__main__\":` guard".to_owned(),
        ));
    }
    for local in unpicklable_worker_callable::unpicklable_arguments(scope, loader) {
        notes.push((
            local.range,
            format!(
                "the {} passed as `{}` must then move to module level",
                local.kind.noun(),
                local.argument
            ),
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply_edits;

    fn add(source: &str) -> String {
        let tree = crate::python::parse(source, None).expect("tree");
        let scope = Scope::new(source, &tree);
        let call = tree
            .root_node()
            .named_child(0)
            .and_then(|s| s.named_child(0))
            .expect("call");
        let edits = add_keyword_edits(&scope, call, "multiprocessing_context", "\"spawn\"");
        apply_edits(source, &edits).expect("edits apply")
    }

    #[test]
    fn adds_a_keyword_keeping_the_layout() {
        assert_eq!(add("f(a)"), "f(a, multiprocessing_context=\"spawn\")");
        assert_eq!(add("f()"), "f(multiprocessing_context=\"spawn\")");
        assert_eq!(add("f(a, )"), "f(a, multiprocessing_context=\"spawn\" )");
        assert_eq!(
            add("f(\n    a,\n    b=1,  # note\n)\n"),
            "f(\n    a,\n    b=1,  # note\n    multiprocessing_context=\"spawn\",\n)\n"
        );
        assert_eq!(
            add("f(\n    a,\n    **kwargs\n)\n"),
            "f(\n    a,\n    **kwargs,\n    multiprocessing_context=\"spawn\",\n)\n"
        );
        assert_eq!(
            add("f(a,\n  b)\n"),
            "f(a,\n  b, multiprocessing_context=\"spawn\")\n"
        );
    }
}
