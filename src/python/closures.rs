//! What a lambda captures: the local variables of its enclosing functions that it reads, which
//! moving it to module level (or pickling it by name) would leave undefined.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::python::model::Module;
use crate::python::syntax;

/// Local variables of the enclosing functions that a lambda reads: moving it to module level
/// would leave them undefined.
pub fn captured_names(m: &Module, lambda: Node) -> Vec<String> {
    let mut own: HashSet<String> = parameter_names(m, lambda).into_iter().collect();
    let Some(body) = lambda.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut read = Vec::new();
    // Default values (`lambda b, s=scale: ...`) are evaluated where the lambda is defined.
    if let Some(parameters) = lambda.child_by_field_name("parameters") {
        let mut cursor = parameters.walk();
        for parameter in parameters.named_children(&mut cursor) {
            if let Some(value) = parameter.child_by_field_name("value") {
                syntax::walk_all(value, &mut |n| {
                    if n.kind() == "identifier" {
                        read.push(m.text(n).to_owned());
                    }
                });
            }
        }
    }
    // Attribute names and keyword names are not variables. Collected on the way down (the
    // parent is always visited first), because asking a node for its parent costs a walk
    // from the root.
    let mut not_variables = HashSet::new();
    syntax::walk_all(body, &mut |n| match n.kind() {
        "attribute" => not_variables.extend(n.child_by_field_name("attribute").map(|a| a.id())),
        "keyword_argument" => not_variables.extend(n.child_by_field_name("name").map(|a| a.id())),
        "lambda" => own.extend(parameter_names(m, n)),
        "for_in_clause" => {
            if let Some(left) = n.child_by_field_name("left") {
                syntax::walk_all(left, &mut |t| {
                    if t.kind() == "identifier" {
                        own.insert(m.text(t).to_owned());
                    }
                });
            }
        }
        "identifier" if !not_variables.contains(&n.id()) => read.push(m.text(n).to_owned()),
        _ => {}
    });
    let mut local = HashSet::new();
    let mut function = syntax::enclosing_function(lambda);
    while let Some(f) = function {
        local.extend(parameter_names(m, f));
        if let Some(body) = f.child_by_field_name("body") {
            syntax::walk_executed(body, &mut |n| bound_names(m, n, &mut local));
        }
        function = syntax::enclosing_function(f);
    }
    let mut captured: Vec<String> = read
        .into_iter()
        .filter(|name| !own.contains(name) && local.contains(name))
        .collect();
    captured.sort();
    captured.dedup();
    captured
}

/// An identifier that reads a variable (not an attribute or keyword name).
fn is_read(identifier: Node) -> bool {
    let Some(parent) = identifier.parent() else {
        return true;
    };
    let is_field = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|f| f.id() == identifier.id())
    };
    match parent.kind() {
        "attribute" => !is_field("attribute"),
        "keyword_argument" => !is_field("name"),
        _ => true,
    }
}

fn bound_names(m: &Module, node: Node, names: &mut HashSet<String>) {
    let target = match node.kind() {
        "assignment" | "augmented_assignment" | "for_statement" => node.child_by_field_name("left"),
        "named_expression" => node.child_by_field_name("name"),
        "as_pattern_target" => Some(node),
        "function_definition" | "class_definition" => node.child_by_field_name("name"),
        "aliased_import" => node.child_by_field_name("alias"),
        "import_statement" | "import_from_statement" => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                if name.kind() == "dotted_name"
                    && let Some(first) = name.named_child(0)
                {
                    names.insert(m.text(first).to_owned());
                }
            }
            None
        }
        _ => None,
    };
    if let Some(target) = target {
        if target.kind() == "identifier" {
            names.insert(m.text(target).to_owned());
            return;
        }
        if matches!(
            target.kind(),
            "pattern_list" | "tuple_pattern" | "list_pattern" | "as_pattern_target"
        ) {
            syntax::walk_all(target, &mut |t| {
                if t.kind() == "identifier" && is_read(t) {
                    names.insert(m.text(t).to_owned());
                }
            });
        }
    }
}

/// The names a function's (or lambda's) parameters bind.
pub(crate) fn parameter_names(m: &Module, function: Node) -> Vec<String> {
    let Some(parameters) = function.child_by_field_name("parameters") else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut cursor = parameters.walk();
    for p in parameters.named_children(&mut cursor) {
        let name = match p.kind() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let mut c = p.walk();
                p.named_children(&mut c).find(|n| n.kind() == "identifier")
            }
            _ => None,
        };
        if let Some(n) = name {
            names.push(m.text(n).to_owned());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::python::index::ProjectIndex;
    use crate::python::parse;

    /// The names the first lambda of `source` captures.
    fn captures(source: &str) -> Vec<String> {
        let tree = parse(source, None).expect("tree");
        let index = ProjectIndex::default();
        let m = Module::build(source, &tree, Path::new("t.py"), &index);
        let mut lambda = None;
        syntax::walk_all(m.root(), &mut |n| {
            if n.kind() == "lambda" && lambda.is_none() {
                lambda = Some(n);
            }
        });
        captured_names(&m, lambda.expect("a lambda"))
    }

    #[test]
    fn a_local_variable_read_in_the_body_is_captured() {
        let src = "def main():\n    scale = 2\n    f = lambda b: b * scale\n";
        assert_eq!(captures(src), ["scale"]);
    }

    #[test]
    fn default_values_are_read_where_the_lambda_is_defined() {
        let src = "def main(n):\n    s = 1\n    f = lambda b, k=s: b + k + n\n";
        assert_eq!(captures(src), ["n", "s"]);
    }

    #[test]
    fn module_level_names_and_builtins_are_not_captured() {
        let src = "scale = 2\ndef main():\n    f = lambda b: len(b) * scale\n";
        assert!(captures(src).is_empty());
        assert!(captures("f = lambda b: b\n").is_empty());
    }

    #[test]
    fn attribute_and_keyword_names_are_not_variables() {
        let src = "def main(cfg):\n    size = 1\n    f = lambda b: g(b.size, size=b)\n";
        assert!(captures(src).is_empty());
    }

    #[test]
    fn names_the_lambda_binds_itself_are_its_own() {
        let src = "def main():\n    x = 1\n    y = 2\n    f = lambda b: [x for x in b] + (lambda y: y)(b)\n";
        assert!(captures(src).is_empty());
    }

    #[test]
    fn unpacked_targets_and_imports_of_every_enclosing_function_count() {
        let src = "\
def outer():
    import numpy as np
    a, (b, c) = 1, (2, 3)
    def inner():
        f = lambda t: np.add(a, c) + t
";
        assert_eq!(captures(src), ["a", "c", "np"]);
    }
}
