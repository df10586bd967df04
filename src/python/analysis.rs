//! A file as the analyses above the model read it: the semantic model plus the lookup tables
//! they build on first use (definitions visible from a place, callers of a function by name,
//! the process-wide start method), shared by every rule of one analysis.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;

use tree_sitter::Node;

use crate::python::kinds::{FIELDS, Kind, kind};
use crate::python::model::{BindingKind, Module};
use crate::python::start_method::Method;
use crate::python::syntax::{enclosing_class, enclosing_function, unwrap_decorated, walk_executed};
use crate::text::TextRange;

/// One file as the fork/spawn analyses read it: the semantic model (which it dereferences to,
/// for names, values and guards) plus the tables those analyses build on first use.
pub struct Analysis<'a> {
    pub m: &'a Module<'a>,
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
/// nodes keep `Analysis` covariant in its lifetime (a cell of nodes would pin it).
type Definitions = HashMap<String, (usize, usize)>;

impl<'a> Analysis<'a> {
    pub fn new(m: &'a Module<'a>) -> Self {
        Self {
            m,
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

    /// The method `name` of a class definition (the first of that name in its body).
    pub fn method_in(&self, class: Node<'a>, name: &str) -> Option<Node<'a>> {
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
}

impl<'a> Deref for Analysis<'a> {
    type Target = Module<'a>;

    fn deref(&self) -> &Module<'a> {
        self.m
    }
}

/// Runs `f` on the analysis of `source` (parsed, with an empty project index).
#[cfg(test)]
pub(crate) fn with_analysis<R>(source: &str, f: impl FnOnce(&Analysis) -> R) -> R {
    let tree = crate::python::parse(source, None).expect("tree");
    let index = crate::python::index::ProjectIndex::default();
    let module = Module::build(source, &tree, std::path::Path::new("test.py"), &index);
    f(&Analysis::new(&module))
}
