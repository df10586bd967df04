//! The questions the fork/spawn analyses ask of a file: walks that skip what does not run,
//! call arguments, the values a name or `self.attr` may hold (through the semantic model's
//! bindings), definitions visible from a place, enclosing scopes, statement order and the
//! `__main__` guard.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use tree_sitter::Node;

use crate::python::kinds::{FIELDS, Kind, kind};
use crate::python::model::{BindingKind, Module};
use crate::python::start_method::Method;
use crate::text::TextRange;

pub fn range(node: Node) -> TextRange {
    TextRange::new(node.start_byte(), node.end_byte())
}

pub fn node_text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Visits `node` and every descendant that runs when `node` runs, in source order: the
/// bodies of nested functions, classes and lambdas are skipped (defining them runs nothing we
/// look for). Iterative, so deeply nested input cannot exhaust the stack.
pub fn walk_executed<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    walk(node, visit, |child| {
        !matches!(
            kind(child),
            Kind::FunctionDefinition
                | Kind::ClassDefinition
                | Kind::Lambda
                | Kind::DecoratedDefinition
        )
    });
}

/// Every descendant of `node`, including nested scopes, in source order.
pub fn walk_all<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    walk(node, visit, |_| true);
}

fn walk<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>), enter: impl Fn(Node<'t>) -> bool) {
    let mut stack = vec![node];
    // One cursor for every node's children; each node's children are pushed in order and
    // then reversed in place, so nothing is allocated per node.
    let mut cursor = node.walk();
    while let Some(current) = stack.pop() {
        visit(current);
        let first = stack.len();
        cursor.reset(current);
        if cursor.goto_first_child() {
            loop {
                let child = cursor.node();
                if child.is_named() && enter(child) {
                    stack.push(child);
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        stack[first..].reverse();
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

/// One file as the fork/spawn analyses read it: the semantic model (imports, qualified names,
/// bindings, values) plus the syntax questions those analyses ask.
pub struct Scope<'a> {
    pub m: &'a Module<'a>,
    pub source: &'a str,
    /// Module-level functions and classes by name (the first of a name), built on first use.
    top_level: OnceCell<Definitions>,
    /// Per function (by node id): the functions and classes its body defines, built on first
    /// use, so a lookup per call costs a hash probe instead of a walk of the body.
    nested: RefCell<HashMap<usize, Rc<Definitions>>>,
    /// The file's process-wide `set_start_method(...)`, found on first use: every loader's
    /// start method asks for it.
    pub(crate) process_wide: OnceCell<Option<(TextRange, Option<Method>)>>,
    /// Calls by a plain name (`f(...)`): the name to indices into the model's calls, in source
    /// order, built on first use so finding a function's callers is a hash probe.
    calls_by_name: OnceCell<HashMap<String, Vec<usize>>>,
}

/// A definition table: names to the byte ranges of `def`/`class` nodes. Ranges rather than
/// nodes keep `Scope` covariant in its lifetime (a cell of nodes would pin it).
type Definitions = HashMap<String, (usize, usize)>;

impl<'a> Scope<'a> {
    pub fn new(m: &'a Module<'a>) -> Self {
        Self {
            m,
            source: m.source,
            top_level: OnceCell::new(),
            nested: RefCell::new(HashMap::new()),
            process_wide: OnceCell::new(),
            calls_by_name: OnceCell::new(),
        }
    }

    /// The name of a function or class definition (after unwrapping decorators).
    fn definition_name(&self, node: Node) -> Option<&'a str> {
        if matches!(kind(node), Kind::FunctionDefinition | Kind::ClassDefinition) {
            node.child_by_field_id(FIELDS.name).map(|n| self.text(n))
        } else {
            None
        }
    }

    fn top_level_definitions(&self) -> &Definitions {
        self.top_level.get_or_init(|| {
            let mut table = HashMap::new();
            for d in self
                .m
                .top_level_statements()
                .iter()
                .copied()
                .map(unwrap_decorated)
            {
                if let Some(name) = self.definition_name(d) {
                    table
                        .entry(name.to_owned())
                        .or_insert((d.start_byte(), d.end_byte()));
                }
            }
            table
        })
    }

    /// The definition node a table entry stands for: the deepest node spanning its range.
    fn definition_at(&self, (start, end): (usize, usize)) -> Option<Node<'a>> {
        let node = self.root().descendant_for_byte_range(start, end)?;
        (matches!(node.kind(), "function_definition" | "class_definition")
            && node.start_byte() == start
            && node.end_byte() == end)
            .then_some(node)
    }

    /// What `visible_definition` finds in one function's body: the walk visits the body's
    /// executed nodes in order; the first node that directly holds a definition of a name
    /// decides it, and among that node's children the last definition of the name wins.
    fn nested_definitions(&self, function: Node) -> Rc<Definitions> {
        if let Some(table) = self.nested.borrow().get(&function.id()) {
            return Rc::clone(table);
        }
        let mut table = Definitions::new();
        if let Some(body) = function.child_by_field_name("body") {
            let mut in_node = HashMap::new();
            walk_executed(body, &mut |n| {
                in_node.clear();
                let mut cursor = n.walk();
                for child in n.named_children(&mut cursor).map(unwrap_decorated) {
                    if let Some(name) = self.definition_name(child) {
                        in_node.insert(name, (child.start_byte(), child.end_byte()));
                    }
                }
                for (name, def) in in_node.drain() {
                    table.entry(name.to_owned()).or_insert(def);
                }
            });
        }
        let table = Rc::new(table);
        self.nested
            .borrow_mut()
            .insert(function.id(), Rc::clone(&table));
        table
    }

    pub fn root(&self) -> Node<'a> {
        self.m.tree.root_node()
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
        self.m.qualified_name(expr)
    }

    /// Whether `expr` names an imported module or something reached through one.
    pub fn is_module_reference(&self, expr: Node) -> bool {
        self.qualified_name(expr).is_some()
    }

    /// A string literal's value (no f-string interpolation).
    pub fn string_value(&self, node: Node) -> Option<String> {
        self.m.string_value(node)
    }

    /// The expressions a name (or `self.attr`) may be bound to where `expr` reads it, by
    /// Python's scoping rules; `self.attr` from assignments in the methods of the enclosing
    /// class. Empty when any binding is not a plain assignment (a parameter, a loop variable):
    /// the value is then unknown.
    pub fn bound_values(&self, expr: Node<'a>) -> Vec<Node<'a>> {
        match expr.kind() {
            "identifier" => {
                let Some(ids) = self.m.lookup(self.text(expr), self.m.scope_at(expr)) else {
                    return Vec::new();
                };
                let bindings = self.m.bindings();
                let mut values = Vec::new();
                for id in ids {
                    match bindings.get(*id) {
                        Some(b) if b.kind == BindingKind::Assign && b.value.is_some() => {
                            values.extend(b.value);
                        }
                        _ => return Vec::new(),
                    }
                }
                values
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
                for assignment in self.m.attribute_assignments() {
                    let in_class = assignment.target.start_byte() >= class.start_byte()
                        && assignment.target.end_byte() <= class.end_byte();
                    if in_class && assignment.object == Some("self") && assignment.attribute == name
                    {
                        match assignment.value {
                            Some(value) => values.push(value),
                            None => return Vec::new(),
                        }
                    }
                }
                values
            }
            _ => Vec::new(),
        }
    }

    /// The module-level function or class named `name`.
    pub fn top_level_definition(&self, name: &str) -> Option<Node<'a>> {
        let range = *self.top_level_definitions().get(name)?;
        self.definition_at(range)
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
            if let Some(range) = self.nested_definitions(function).get(name) {
                return self.definition_at(*range);
            }
            scope = enclosing_function(function);
        }
        self.top_level_definition(name)
    }

    /// The calls of `function` by its plain name from outside its own body, in source order
    /// (from the model's calls, not a walk of the tree).
    pub fn calls_from_outside(&self, function: Node<'a>) -> impl Iterator<Item = Node<'a>> {
        let calls = self.m.calls();
        let by_name = self.calls_by_name.get_or_init(|| {
            let mut map: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, call) in calls.iter().enumerate() {
                if call.callee.kind() == "identifier" {
                    map.entry(self.text(call.callee).to_owned())
                        .or_default()
                        .push(i);
                }
            }
            map
        });
        let same_name = function
            .child_by_field_name("name")
            .and_then(|n| by_name.get(self.text(n)))
            .map_or(&[][..], Vec::as_slice);
        let body = function.byte_range();
        same_name
            .iter()
            .filter_map(|&i| calls.get(i))
            .filter(move |c| {
                let n = c.node;
                !(body.start <= n.start_byte() && n.end_byte() <= body.end)
            })
            .map(|c| c.node)
    }

    /// Whether `node` lies in the body of `if __name__ == "__main__":`.
    pub fn is_under_main_guard(&self, node: Node) -> bool {
        self.m.is_under_main_guard(node)
    }

    pub fn is_main_guard(&self, if_statement: Node) -> bool {
        self.m.is_main_guard(if_statement)
    }
}

/// `@decorator def f` → the `def`.
pub fn unwrap_decorated(node: Node) -> Node {
    if kind(node) == Kind::DecoratedDefinition {
        node.child_by_field_id(FIELDS.definition).unwrap_or(node)
    } else {
        node
    }
}

/// The closest function definition (or lambda) around `node`, excluding `node` itself.
pub fn enclosing_function(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kind(n) == Kind::FunctionDefinition {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

pub fn enclosing_class(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kind(n) == Kind::ClassDefinition {
            return Some(n);
        }
        current = n.parent();
    }
    None
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

/// Runs `f` on the scope of `source` (parsed, with an empty project index).
#[cfg(test)]
pub(crate) fn with_scope<R>(source: &str, f: impl FnOnce(&Scope) -> R) -> R {
    let tree = crate::python::parse(source, None).expect("tree");
    let index = crate::python::index::ProjectIndex::default();
    let module = Module::build(source, &tree, std::path::Path::new("test.py"), &index);
    f(&Scope::new(&module))
}
