//! Small questions about the syntax tree that the fork/spawn analyses share: node text,
//! arguments of a call, string literals, names imported and bound in a file, enclosing
//! scopes, statement order and the `__main__` guard.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::text::TextRange;

pub fn range(node: Node) -> TextRange {
    TextRange::new(node.start_byte(), node.end_byte())
}

pub fn node_text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Visits `node` and every descendant that runs when `node` runs: the bodies of nested
/// functions, classes and lambdas are skipped (their headers' default values are kept).
pub fn walk_executed<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    visit(node);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" | "class_definition" | "lambda" => {}
            "decorated_definition" => {}
            _ => walk_executed(child, visit),
        }
    }
}

/// Every descendant of `node`, including nested scopes.
pub fn walk_all<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    visit(node);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        walk_all(child, visit);
    }
}

/// The `index`-th positional argument (before any `*args`).
pub fn positional_argument(call: Node, index: usize) -> Option<Node> {
    let arguments = call.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    let mut positional = arguments
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .take_while(|a| {
            !matches!(
                a.kind(),
                "list_splat" | "dictionary_splat" | "keyword_argument"
            )
        });
    positional.nth(index)
}

/// Where a name is bound: imports map local names to qualified dotted names.
#[derive(Debug, Default)]
struct Imports {
    names: HashMap<String, String>,
}

impl Imports {
    fn collect(source: &str, root: Node) -> Self {
        let mut imports = Imports::default();
        walk_all(root, &mut |n| match n.kind() {
            "import_statement" => {
                let mut cursor = n.walk();
                for name in n.children_by_field_name("name", &mut cursor) {
                    match name.kind() {
                        "dotted_name" => {
                            // `import torch.cuda` binds `torch`.
                            let full = node_text(name, source);
                            let top = full.split('.').next().unwrap_or(full).trim();
                            imports.names.insert(top.to_owned(), top.to_owned());
                        }
                        "aliased_import" => {
                            if let (Some(module), Some(alias)) = (
                                name.child_by_field_name("name"),
                                name.child_by_field_name("alias"),
                            ) {
                                imports.names.insert(
                                    node_text(alias, source).to_owned(),
                                    dotted(node_text(module, source)),
                                );
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = n.child_by_field_name("module_name") else {
                    return;
                };
                let module = dotted(node_text(module, source));
                let mut cursor = n.walk();
                for name in n.children_by_field_name("name", &mut cursor) {
                    let (imported, local) = match name.kind() {
                        "dotted_name" => (node_text(name, source), node_text(name, source)),
                        "aliased_import" => match (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) {
                            (Some(i), Some(a)) => (node_text(i, source), node_text(a, source)),
                            _ => continue,
                        },
                        _ => continue,
                    };
                    let separator = if module.ends_with('.') { "" } else { "." };
                    imports.names.insert(
                        local.to_owned(),
                        format!("{module}{separator}{}", dotted(imported)),
                    );
                }
            }
            _ => {}
        });
        imports
    }
}

/// A dotted name without the spaces and comments Python allows inside it.
fn dotted(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// One file's source and tree, with the names it imports.
pub struct Scope<'a> {
    pub source: &'a str,
    pub tree: &'a Tree,
    imports: Imports,
}

impl<'a> Scope<'a> {
    pub fn new(source: &'a str, tree: &'a Tree) -> Self {
        Self {
            source,
            tree,
            imports: Imports::collect(source, tree.root_node()),
        }
    }

    pub fn root(&self) -> Node<'a> {
        self.tree.root_node()
    }

    pub fn text(&self, node: Node) -> &'a str {
        node_text(node, self.source)
    }

    /// The value of `name=` in a call.
    pub fn keyword<'t>(&self, call: Node<'t>, name: &str) -> Option<Node<'t>> {
        let arguments = call.child_by_field_name("arguments")?;
        let mut cursor = arguments.walk();
        let found = arguments.named_children(&mut cursor).find(|arg| {
            arg.kind() == "keyword_argument"
                && arg
                    .child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == name)
        });
        found.and_then(|arg| arg.child_by_field_name("value"))
    }

    /// The fully qualified name an expression refers to through the file's imports
    /// (`cuda.set_device` → `torch.cuda.set_device` after `from torch import cuda`).
    pub fn qualified_name(&self, expr: Node) -> Option<String> {
        match expr.kind() {
            "identifier" => self.imports.names.get(self.text(expr)).cloned(),
            "attribute" => {
                let object = expr.child_by_field_name("object")?;
                let attribute = expr.child_by_field_name("attribute")?;
                let base = self.qualified_name(object)?;
                Some(format!("{base}.{}", self.text(attribute)))
            }
            _ => None,
        }
    }

    /// Whether `expr` names an imported module or something reached through one.
    pub fn is_module_reference(&self, expr: Node) -> bool {
        self.qualified_name(expr).is_some()
    }

    /// A plain string literal's value (no f-string interpolation, no implicit concatenation).
    pub fn string_value(&self, node: Node) -> Option<String> {
        if node.kind() != "string" {
            return None;
        }
        let mut value = String::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "string_start" | "string_end" => {}
                "string_content" => value.push_str(self.text(child)),
                _ => return None,
            }
        }
        Some(value)
    }

    /// The expressions a name (or `self.attr`) may be bound to where `expr` reads it: the
    /// enclosing function's assignments, else the module's; `self.attr` from assignments in
    /// the enclosing class. Empty when the name is a parameter or is not bound by assignment.
    pub fn bound_values(&self, expr: Node<'a>) -> Vec<Node<'a>> {
        match expr.kind() {
            "identifier" => {
                let name = self.text(expr);
                let mut scope = enclosing_function(expr);
                while let Some(function) = scope {
                    if function_binds_parameter(self, function, name) {
                        return Vec::new();
                    }
                    let values = self.assignments_in(function, |target| {
                        target.kind() == "identifier" && self.text(target) == name
                    });
                    if !values.is_empty() {
                        return values;
                    }
                    scope = enclosing_function(function);
                }
                self.assignments_in(self.root(), |target| {
                    target.kind() == "identifier" && self.text(target) == name
                })
            }
            "attribute" => {
                let (Some(object), Some(attribute)) = (
                    expr.child_by_field_name("object"),
                    expr.child_by_field_name("attribute"),
                ) else {
                    return Vec::new();
                };
                if self.text(object) != "self" {
                    return Vec::new();
                }
                let Some(class) = enclosing_class(expr) else {
                    return Vec::new();
                };
                let name = self.text(attribute);
                let mut values = Vec::new();
                walk_all(class, &mut |n| {
                    if n.kind() == "assignment"
                        && let (Some(left), Some(right)) = (
                            n.child_by_field_name("left"),
                            n.child_by_field_name("right"),
                        )
                        && left.kind() == "attribute"
                        && left
                            .child_by_field_name("object")
                            .is_some_and(|o| self.text(o) == "self")
                        && left
                            .child_by_field_name("attribute")
                            .is_some_and(|a| self.text(a) == name)
                    {
                        values.push(right);
                    }
                });
                values
            }
            _ => Vec::new(),
        }
    }

    /// Right-hand sides of plain assignments in `scope`'s own body (not nested functions or
    /// classes) whose target matches.
    fn assignments_in(&self, scope: Node<'a>, target: impl Fn(Node) -> bool) -> Vec<Node<'a>> {
        let body = if scope.kind() == "module" {
            scope
        } else {
            match scope.child_by_field_name("body") {
                Some(b) => b,
                None => return Vec::new(),
            }
        };
        let mut values = Vec::new();
        walk_executed(body, &mut |n| {
            if n.kind() == "assignment"
                && let (Some(left), Some(right)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                )
                && target(left)
            {
                values.push(right);
            }
        });
        values
    }

    /// The module-level function or class named `name`.
    pub fn top_level_definition(&self, name: &str) -> Option<Node<'a>> {
        let root = self.root();
        let mut cursor = root.walk();
        root.named_children(&mut cursor)
            .map(unwrap_decorated)
            .find(|d| {
                matches!(d.kind(), "function_definition" | "class_definition")
                    && d.child_by_field_name("name")
                        .is_some_and(|n| self.text(n) == name)
            })
    }

    /// The method `name` of a class definition.
    pub fn method(&self, class: Node<'a>, name: &str) -> Option<Node<'a>> {
        let body = class.child_by_field_name("body")?;
        let mut cursor = body.walk();
        body.named_children(&mut cursor)
            .map(unwrap_decorated)
            .find(|d| {
                d.kind() == "function_definition"
                    && d.child_by_field_name("name")
                        .is_some_and(|n| self.text(n) == name)
            })
    }

    /// The function or class definition named `name` that is visible where `at` is: one
    /// defined in an enclosing function first, then at module level.
    pub fn visible_definition(&self, at: Node<'a>, name: &str) -> Option<Node<'a>> {
        let mut scope = enclosing_function(at);
        while let Some(function) = scope {
            if let Some(body) = function.child_by_field_name("body") {
                let mut found = None;
                walk_executed(body, &mut |n| {
                    if found.is_none() {
                        let mut cursor = n.walk();
                        for child in n.named_children(&mut cursor).map(unwrap_decorated) {
                            if matches!(child.kind(), "function_definition" | "class_definition")
                                && child
                                    .child_by_field_name("name")
                                    .is_some_and(|c| self.text(c) == name)
                            {
                                found = Some(child);
                            }
                        }
                    }
                });
                if found.is_some() {
                    return found;
                }
            }
            scope = enclosing_function(function);
        }
        self.top_level_definition(name)
    }

    /// Whether `node` lies in the body of `if __name__ == "__main__":` (either spelling, either
    /// side of `==`).
    pub fn is_under_main_guard(&self, node: Node) -> bool {
        let mut current = node.parent();
        while let Some(n) = current {
            if n.kind() == "if_statement" && self.is_main_guard(n) {
                let in_consequence = n.child_by_field_name("consequence").is_some_and(|c| {
                    c.start_byte() <= node.start_byte() && node.end_byte() <= c.end_byte()
                });
                if in_consequence {
                    return true;
                }
            }
            current = n.parent();
        }
        false
    }

    pub fn is_main_guard(&self, if_statement: Node) -> bool {
        let Some(condition) = if_statement.child_by_field_name("condition") else {
            return false;
        };
        if condition.kind() != "comparison_operator" {
            return false;
        }
        let compact: String = self
            .text(condition)
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if c == '\'' { '"' } else { c })
            .collect();
        compact == "__name__==\"__main__\"" || compact == "\"__main__\"==__name__"
    }
}

/// `@decorator def f` → the `def`.
pub fn unwrap_decorated(node: Node) -> Node {
    if node.kind() == "decorated_definition" {
        node.child_by_field_name("definition").unwrap_or(node)
    } else {
        node
    }
}

/// The closest function definition (or lambda) around `node`, excluding `node` itself.
pub fn enclosing_function(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

pub fn enclosing_class(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "class_definition" {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

fn function_binds_parameter(scope: &Scope, function: Node, name: &str) -> bool {
    parameter_names(scope, function).iter().any(|p| p == name)
}

/// The names a function's (or lambda's) parameters bind.
pub fn parameter_names(scope: &Scope, function: Node) -> Vec<String> {
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
            names.push(scope.text(n).to_owned());
        }
    }
    names
}

/// The statement directly inside a block (or the module) that contains `node`.
pub fn statement_of(node: Node) -> Option<Node> {
    let mut current = node;
    loop {
        let parent = current.parent()?;
        if matches!(parent.kind(), "block" | "module") {
            return Some(current);
        }
        current = parent;
    }
}

/// Statements that run before `node` in its function (or the module): the earlier siblings of
/// each statement that contains it, innermost block first, up to the function or module.
pub fn preceding_statements(node: Node) -> Vec<Node> {
    let mut statements = Vec::new();
    let mut current = node;
    while let Some(statement) = statement_of(current) {
        let mut sibling = statement.prev_named_sibling();
        while let Some(s) = sibling {
            statements.push(s);
            sibling = s.prev_named_sibling();
        }
        let Some(block) = statement.parent() else {
            break;
        };
        if block.kind() == "module" {
            break;
        }
        let Some(owner) = block.parent() else {
            break;
        };
        if matches!(owner.kind(), "function_definition" | "class_definition") {
            break;
        }
        current = owner;
    }
    statements
}
