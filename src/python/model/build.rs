//! Building the model: one iterative walk over the tree records scopes, bindings,
//! definitions and calls; then callees are resolved and the argparse defaults and loaders
//! collected on top.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use tree_sitter::{Node, Tree, TreeCursor};

use super::{
    AttributeAssignment, Binding, BindingKind, CallSite, ClassDef, FunctionDef, FunctionId,
    MODULE_SCOPE, Module, NoAttributeValues, Scope, ScopeId, ScopeKind,
};
use crate::python::argparse::ArgparseDefaults;
use crate::python::catalogue::Catalogue;
use crate::python::index::ProjectIndex;
use crate::python::kinds::{self, FIELDS, Kind, kind};
use crate::python::loaders;
use crate::text::{LineIndex, TextRange};

impl<'a> Module<'a> {
    /// Builds the model with the built-in loader catalogue.
    pub fn build(source: &'a str, tree: &'a Tree, path: &'a Path, index: &'a ProjectIndex) -> Self {
        Self::build_with(source, tree, path, index, Catalogue::builtin_ref())
    }

    /// Builds the model with a catalogue extended by the user's query files.
    pub fn build_with(
        source: &'a str,
        tree: &'a Tree,
        path: &'a Path,
        index: &'a ProjectIndex,
        catalogue: &'a Catalogue,
    ) -> Self {
        let mut module = Self::build_definitions(source, tree, path, index, catalogue);
        module.loaders = loaders::collect(&module);
        module
    }

    /// Builds the model without its loaders, for reading another file's definitions (its
    /// summary in the project index, its calls of a helper): nothing there reads the loaders,
    /// and finding them asks the catalogue and the index about every call of the file.
    pub(crate) fn build_definitions(
        source: &'a str,
        tree: &'a Tree,
        path: &'a Path,
        index: &'a ProjectIndex,
        catalogue: &'a Catalogue,
    ) -> Self {
        let walked = Walker::walk(source, tree.root_node());
        let mut module = Self {
            source,
            tree,
            path,
            index,
            catalogue,
            lines: LineIndex::new(source),
            scopes: walked.scopes,
            bindings: walked.bindings,
            functions: walked.functions,
            classes: walked.classes,
            calls: walked.calls,
            attribute_assignments: walked.attribute_assignments,
            star_imports: walked.star_imports,
            attributes: Box::new(NoAttributeValues),
            loaders: Vec::new(),
            top_level: walked.top_level,
        };
        let qualified: Vec<Option<String>> = module
            .calls
            .iter()
            .map(|c| module.qualified_in(c.callee, c.scope, 0))
            .collect();
        for (call, q) in module.calls.iter_mut().zip(qualified) {
            call.qualified = q;
        }
        if index.reads_files() {
            module.reexported_callees();
        }
        module.attributes = Box::new(ArgparseDefaults::collect(&module));
        module
    }
}

impl Module<'_> {
    /// Loader callees that a module of the project re-exports (`from data import *`, or
    /// `from utils import DataLoader`, where that module imports `DataLoader` from torch):
    /// qualified by the name from outside the project, as the catalogue knows it. Only callees
    /// named as the catalogue's are looked up.
    fn reexported_callees(&mut self) {
        let Some(needles) = self.catalogue.needles() else {
            return;
        };
        let mut found: Vec<(usize, String)> = Vec::new();
        for (i, call) in self.calls.iter().enumerate() {
            let last = match call.callee.kind() {
                "identifier" => Some(call.callee),
                "attribute" => call.callee.child_by_field_name("attribute"),
                _ => None,
            };
            let Some(last) = last.map(|n| self.text(n)) else {
                continue;
            };
            if !needles.iter().any(|n| n == last) {
                continue;
            }
            let target = match &call.qualified {
                Some(q) if !self.catalogue.names_callee(q) => self.index.reexported(self.path, q),
                Some(_) => None,
                // `from utils import *` and `from data import *`: which one has it.
                None if call.callee.kind() == "identifier"
                    && self.star_imports.len() > 1
                    && self.lookup(last, call.scope).is_none() =>
                {
                    self.index
                        .star_imported(self.path, &self.star_imports, last)
                        .or_else(|| {
                            self.index
                                .star_catalogued(self.path, &self.star_imports, last, |q| {
                                    self.catalogue.names_callee(q)
                                })
                        })
                }
                None => None,
            };
            if let Some(target) = target {
                found.push((i, target));
            }
        }
        for (i, target) in found {
            if let Some(call) = self.calls.get_mut(i) {
                call.qualified = Some(target);
            }
        }
    }
}

/// Nodes with at most this many named children have them read by index rather than with a
/// cursor.
const FEW_CHILDREN: usize = 6;

/// Calls `f` with each named child of `node`, in order.
///
/// tree-sitter's cursor pays a few hundred instructions per step, anonymous children
/// (punctuation) included; reading a few named children by index is cheaper, though each
/// read scans from the first child, so many children still go through the cursor.
pub(super) fn for_each_named_child<'a>(
    cursor: &mut TreeCursor<'a>,
    node: Node<'a>,
    mut f: impl FnMut(Node<'a>),
) {
    let count = node.named_child_count();
    if count <= FEW_CHILDREN {
        for i in 0..count {
            if let Some(child) = u32::try_from(i).ok().and_then(|i| node.named_child(i)) {
                f(child);
            }
        }
        return;
    }
    cursor.reset(node);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                f(child);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

struct Walked<'a> {
    scopes: Vec<Scope<'a>>,
    bindings: Vec<Binding<'a>>,
    functions: Vec<FunctionDef<'a>>,
    classes: Vec<ClassDef<'a>>,
    calls: Vec<CallSite<'a>>,
    attribute_assignments: Vec<AttributeAssignment<'a>>,
    star_imports: Vec<String>,
    top_level: Vec<Node<'a>>,
}

#[derive(Clone, Copy)]
struct Frame<'a> {
    node: Node<'a>,
    scope: ScopeId,
    in_except: bool,
}

struct Walker<'a> {
    source: &'a str,
    out: Walked<'a>,
    stack: Vec<Frame<'a>>,
    /// One cursor reused for every node's children (a new cursor allocates).
    cursor: TreeCursor<'a>,
    /// A list of children reused by the visits that read them all before acting.
    scratch: Vec<Node<'a>>,
}

impl<'a> Walker<'a> {
    fn walk(source: &'a str, root: Node<'a>) -> Walked<'a> {
        let module_scope = Scope {
            kind: ScopeKind::Module,
            node: root,
            parent: None,
            function: None,
            class: None,
            inner: Module::range(root),
            children: Vec::new(),
            bindings: HashMap::default(),
            globals: HashSet::default(),
        };
        let mut walker = Walker {
            source,
            out: Walked {
                scopes: vec![module_scope],
                bindings: Vec::new(),
                functions: Vec::new(),
                classes: Vec::new(),
                calls: Vec::new(),
                attribute_assignments: Vec::new(),
                star_imports: Vec::new(),
                top_level: Vec::new(),
            },
            stack: Vec::new(),
            cursor: root.walk(),
            scratch: Vec::new(),
        };
        // The root (a `module`, or an `ERROR`) has no visit of its own: its children are
        // pushed as any node's are, and they are the top-level statements.
        walker.push_children(root, MODULE_SCOPE, false);
        walker.out.top_level = walker.stack.iter().rev().map(|f| f.node).collect();
        while let Some(frame) = walker.stack.pop() {
            walker.visit(frame);
        }
        // A function's defaults are visited after its body's scope is created: order every
        // scope's children by where their bodies start, for the binary search of `scope_at`.
        let starts: Vec<usize> = walker.out.scopes.iter().map(|s| s.inner.start).collect();
        for scope in &mut walker.out.scopes {
            scope
                .children
                .sort_by_key(|c| starts.get(*c).copied().unwrap_or(0));
        }
        // Calls are sorted for the binary search of `call_site`; the key is read once per call
        // (it costs two calls into tree-sitter).
        walker
            .out
            .calls
            .sort_by_cached_key(|c| (c.node.start_byte(), c.node.id()));
        walker.out
    }

    fn text(&self, node: Node) -> &'a str {
        self.source.get(node.byte_range()).unwrap_or("")
    }

    fn push(&mut self, node: Node<'a>, scope: ScopeId, in_except: bool) {
        self.stack.push(Frame {
            node,
            scope,
            in_except,
        });
    }

    /// Pushes the named children of `node` so they are visited in source order.
    fn push_children(&mut self, node: Node<'a>, scope: ScopeId, in_except: bool) {
        // Pushed in order, then the new frames reversed in place: no list per node.
        let first = self.stack.len();
        let stack = &mut self.stack;
        for_each_named_child(&mut self.cursor, node, |child| {
            if kind(child) != Kind::Comment {
                stack.push(Frame {
                    node: child,
                    scope,
                    in_except,
                });
            }
        });
        self.stack[first..].reverse();
    }

    /// Fills `self.scratch` with the named children of `node`, in order; the caller takes it
    /// (so it can push and bind meanwhile) and gives it back with [`Walker::give_back`].
    fn take_named_children(&mut self, node: Node<'a>) -> Vec<Node<'a>> {
        let mut children = std::mem::take(&mut self.scratch);
        children.clear();
        for_each_named_child(&mut self.cursor, node, |child| children.push(child));
        children
    }

    fn give_back(&mut self, children: Vec<Node<'a>>) {
        self.scratch = children;
    }

    fn function_of(&self, scope: ScopeId) -> Option<FunctionId> {
        self.out.scopes.get(scope).and_then(|s| s.function)
    }

    fn new_scope(
        &mut self,
        kind: ScopeKind,
        node: Node<'a>,
        parent: ScopeId,
        inner: TextRange,
    ) -> ScopeId {
        let id = self.out.scopes.len();
        let function = self.function_of(parent);
        self.out.scopes.push(Scope {
            kind,
            node,
            parent: Some(parent),
            function,
            class: None,
            inner,
            children: Vec::new(),
            bindings: HashMap::default(),
            globals: HashSet::default(),
        });
        if let Some(p) = self.out.scopes.get_mut(parent) {
            p.children.push(id);
        }
        id
    }

    fn bind(
        &mut self,
        name_node: Node<'a>,
        kind: BindingKind,
        node: Node<'a>,
        value: Option<Node<'a>>,
        frame: Frame<'a>,
    ) {
        let name = self.text(name_node);
        if name.is_empty() {
            return;
        }
        self.bind_name(name, Module::range(name_node), kind, node, value, frame);
    }

    fn bind_name(
        &mut self,
        name: &'a str,
        name_range: TextRange,
        kind: BindingKind,
        node: Node<'a>,
        value: Option<Node<'a>>,
        frame: Frame<'a>,
    ) {
        let scope = match self.out.scopes.get(frame.scope) {
            Some(s) if s.globals.contains(name) => MODULE_SCOPE,
            _ => frame.scope,
        };
        let id = self.out.bindings.len();
        self.out.bindings.push(Binding {
            name,
            kind,
            name_range,
            node,
            value,
            scope,
            in_except: frame.in_except,
        });
        if let Some(s) = self.out.scopes.get_mut(scope) {
            s.bindings.entry(name).or_default().push(id);
        }
    }

    /// Binds every name in an assignment target; walks what is evaluated in it.
    fn bind_target(
        &mut self,
        target: Node<'a>,
        kind: BindingKind,
        stmt: Node<'a>,
        value: Option<Node<'a>>,
        frame: Frame<'a>,
    ) {
        match kinds::kind(target) {
            Kind::Identifier => self.bind(target, kind, stmt, value, frame),
            Kind::PatternList
            | Kind::TuplePattern
            | Kind::ListPattern
            | Kind::Tuple
            | Kind::List
            | Kind::ParenthesizedExpression
            | Kind::ListSplatPattern
            | Kind::ListSplat => {
                let parts = self.take_named_children(target);
                for &part in &parts {
                    self.bind_target(part, kind.clone(), stmt, None, frame);
                }
                self.give_back(parts);
            }
            Kind::Attribute => {
                let f = &*FIELDS;
                if let (Some(object), Some(attribute)) = (
                    target.child_by_field_id(f.object),
                    target.child_by_field_id(f.attribute),
                ) {
                    let function = self.function_of(frame.scope);
                    self.out.attribute_assignments.push(AttributeAssignment {
                        target,
                        object: (kinds::kind(object) == Kind::Identifier)
                            .then(|| self.text(object)),
                        attribute: self.text(attribute),
                        value,
                        scope: frame.scope,
                        function,
                    });
                    self.push(object, frame.scope, frame.in_except);
                }
            }
            _ => self.push(target, frame.scope, frame.in_except),
        }
    }

    fn bind_parameters(&mut self, params: Node<'a>, inner: ScopeId, outer: Frame<'a>) {
        let f = &*FIELDS;
        let inner_frame = Frame {
            node: params,
            scope: inner,
            in_except: false,
        };
        let list = self.take_named_children(params);
        for &param in &list {
            let name = match kind(param) {
                Kind::Identifier => Some(param),
                Kind::DefaultParameter | Kind::TypedDefaultParameter => {
                    if let Some(value) = param.child_by_field_id(f.value) {
                        self.push(value, outer.scope, outer.in_except);
                    }
                    param.child_by_field_id(f.name)
                }
                Kind::TypedParameter | Kind::ListSplatPattern | Kind::DictionarySplatPattern => (0
                    ..param.named_child_count())
                    .filter_map(|i| param.named_child(i as u32))
                    .find(|n| kind(*n) == Kind::Identifier),
                _ => None,
            };
            if let Some(name) = name.filter(|n| kind(*n) == Kind::Identifier) {
                self.bind(name, BindingKind::Parameter, param, None, inner_frame);
            }
        }
        self.give_back(list);
    }

    fn visit(&mut self, frame: Frame<'a>) {
        let node = frame.node;
        let scope = frame.scope;
        let in_except = frame.in_except;
        let f = &*FIELDS;
        match kind(node) {
            Kind::FunctionDefinition => {
                let id = self.out.functions.len();
                let body = node.child_by_field_id(f.body);
                let inner = body.map(Module::range).unwrap_or_default();
                let new = self.new_scope(ScopeKind::Function, node, scope, inner);
                if let Some(s) = self.out.scopes.get_mut(new) {
                    s.function = Some(id);
                }
                let class = self
                    .out
                    .scopes
                    .get(scope)
                    .filter(|s| s.kind == ScopeKind::Class)
                    .and_then(|s| s.class);
                let name = node.child_by_field_id(f.name);
                self.out.functions.push(FunctionDef {
                    name: name.map(|n| self.text(n)).unwrap_or_default(),
                    node,
                    name_range: name.map(Module::range).unwrap_or_default(),
                    body,
                    scope: new,
                    parent_scope: scope,
                    class,
                    parent_function: self.function_of(scope),
                });
                if let Some(class) = class.and_then(|c| self.out.classes.get_mut(c)) {
                    class.methods.push(id);
                }
                if let Some(name) = name {
                    self.bind(name, BindingKind::Function(id), node, None, frame);
                }
                if let Some(body) = body {
                    self.push(body, new, false);
                }
                if let Some(ret) = node.child_by_field_id(f.return_type) {
                    self.push(ret, scope, in_except);
                }
                if let Some(params) = node.child_by_field_id(f.parameters) {
                    self.bind_parameters(params, new, frame);
                }
            }
            Kind::ClassDefinition => {
                let id = self.out.classes.len();
                let body = node.child_by_field_id(f.body);
                let inner = body.map(Module::range).unwrap_or_default();
                let new = self.new_scope(ScopeKind::Class, node, scope, inner);
                if let Some(s) = self.out.scopes.get_mut(new) {
                    s.class = Some(id);
                }
                let name = node.child_by_field_id(f.name);
                let supers = node.child_by_field_id(f.superclasses);
                let mut bases = Vec::new();
                if let Some(supers) = supers {
                    let children = self.take_named_children(supers);
                    bases.extend(
                        children
                            .iter()
                            .copied()
                            .filter(|n| !matches!(kind(*n), Kind::KeywordArgument | Kind::Comment)),
                    );
                    self.give_back(children);
                }
                self.out.classes.push(ClassDef {
                    name: name.map(|n| self.text(n)).unwrap_or_default(),
                    node,
                    name_range: name.map(Module::range).unwrap_or_default(),
                    body,
                    scope: new,
                    parent_scope: scope,
                    bases,
                    methods: Vec::new(),
                    parent_function: self.function_of(scope),
                });
                if let Some(name) = name {
                    self.bind(name, BindingKind::Class(id), node, None, frame);
                }
                if let Some(body) = body {
                    self.push(body, new, false);
                }
                if let Some(supers) = supers {
                    self.push(supers, scope, in_except);
                }
            }
            Kind::Lambda => {
                let body = node.child_by_field_id(f.body);
                let inner = body.map(Module::range).unwrap_or_default();
                let new = self.new_scope(ScopeKind::Lambda, node, scope, inner);
                if let Some(body) = body {
                    self.push(body, new, false);
                }
                if let Some(params) = node.child_by_field_id(f.parameters) {
                    self.bind_parameters(params, new, frame);
                }
            }
            Kind::ListComprehension
            | Kind::SetComprehension
            | Kind::DictionaryComprehension
            | Kind::GeneratorExpression => {
                let new =
                    self.new_scope(ScopeKind::Comprehension, node, scope, Module::range(node));
                self.push_children(node, new, in_except);
            }
            Kind::ForInClause => {
                if let Some(left) = node.child_by_field_id(f.left) {
                    self.bind_target(left, BindingKind::Loop, node, None, frame);
                }
                if let Some(right) = node.child_by_field_id(f.right) {
                    self.push(right, scope, in_except);
                }
            }
            Kind::ImportStatement => {
                let mut cursor = node.walk();
                let names: Vec<Node<'a>> =
                    node.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    self.bind_import(name, None, node, frame);
                }
            }
            Kind::ImportFromStatement => {
                let Some(module) = node.child_by_field_id(f.module_name) else {
                    return;
                };
                let module_text = self.text(module).to_owned();
                let mut cursor = node.walk();
                if node
                    .named_children(&mut cursor)
                    .any(|c| kind(c) == Kind::WildcardImport)
                {
                    self.out.star_imports.push(module_text.clone());
                }
                let mut cursor = node.walk();
                let names: Vec<Node<'a>> =
                    node.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    self.bind_import(name, Some(&module_text), node, frame);
                }
            }
            Kind::Assignment => {
                let right = node.child_by_field_id(f.right);
                // `a = b = 1`: the value of every target is the innermost right-hand side.
                let mut value = right;
                while let Some(v) = value.filter(|v| kind(*v) == Kind::Assignment) {
                    value = v.child_by_field_id(f.right);
                }
                if let Some(right) = right {
                    self.push(right, scope, in_except);
                }
                if let Some(ty) = node.child_by_field_id(f.ty) {
                    self.push(ty, scope, in_except);
                }
                if let (Some(left), Some(_)) = (node.child_by_field_id(f.left), right) {
                    let value =
                        value.filter(|_| matches!(kind(left), Kind::Identifier | Kind::Attribute));
                    self.bind_target(left, BindingKind::Assign, node, value, frame);
                }
            }
            Kind::AugmentedAssignment => {
                if let Some(right) = node.child_by_field_id(f.right) {
                    self.push(right, scope, in_except);
                }
                if let Some(left) = node.child_by_field_id(f.left) {
                    self.bind_target(left, BindingKind::AugAssign, node, None, frame);
                }
            }
            Kind::ForStatement => {
                if let Some(alt) = node.child_by_field_id(f.alternative) {
                    self.push(alt, scope, in_except);
                }
                if let Some(body) = node.child_by_field_id(f.body) {
                    self.push(body, scope, in_except);
                }
                if let Some(right) = node.child_by_field_id(f.right) {
                    self.push(right, scope, in_except);
                }
                if let Some(left) = node.child_by_field_id(f.left) {
                    self.bind_target(left, BindingKind::Loop, node, None, frame);
                }
            }
            Kind::AsPattern => {
                if let Some(alias) = node.child_by_field_id(f.alias) {
                    self.bind_target(alias, BindingKind::As, node, None, frame);
                }
                let children = self.take_named_children(node);
                for &child in children.iter().rev() {
                    if !matches!(kind(child), Kind::AsPatternTarget | Kind::Comment) {
                        self.push(child, scope, in_except);
                    }
                }
                self.give_back(children);
            }
            Kind::AsPatternTarget => {
                let parts = self.take_named_children(node);
                for &part in &parts {
                    self.bind_target(part, BindingKind::As, node, None, frame);
                }
                self.give_back(parts);
            }
            Kind::NamedExpression => {
                let value = node.child_by_field_id(f.value);
                if let Some(v) = value {
                    self.push(v, scope, in_except);
                }
                if let Some(name) = node.child_by_field_id(f.name) {
                    self.bind(name, BindingKind::Walrus, node, value, frame);
                }
            }
            Kind::GlobalStatement => {
                let children = self.take_named_children(node);
                let source = self.source;
                if let Some(s) = self.out.scopes.get_mut(scope) {
                    s.globals.extend(
                        children
                            .iter()
                            .filter(|n| kind(**n) == Kind::Identifier)
                            .map(|n| source.get(n.byte_range()).unwrap_or("")),
                    );
                }
                self.give_back(children);
            }
            Kind::DeleteStatement => {
                let mut cursor = node.walk();
                let targets: Vec<Node<'a>> = node.named_children(&mut cursor).collect();
                for target in targets {
                    let names: Vec<Node<'a>> = if kind(target) == Kind::ExpressionList {
                        let mut c = target.walk();
                        target.named_children(&mut c).collect()
                    } else {
                        vec![target]
                    };
                    for name in names {
                        if kind(name) == Kind::Identifier {
                            self.bind(name, BindingKind::Delete, node, None, frame);
                        } else {
                            self.push(name, scope, in_except);
                        }
                    }
                }
            }
            Kind::ExceptClause | Kind::ExceptGroupClause => {
                self.push_children(node, scope, true);
            }
            Kind::Call => {
                let callee = node.child_by_field_id(f.function);
                if let Some(callee) = callee {
                    let method = (kind(callee) == Kind::Attribute)
                        .then(|| callee.child_by_field_id(f.attribute))
                        .flatten()
                        .map(|a| self.text(a));
                    let function = self.function_of(scope);
                    self.out.calls.push(CallSite {
                        node,
                        callee,
                        scope,
                        function,
                        qualified: None,
                        method,
                    });
                }
                self.push_children(node, scope, in_except);
            }
            Kind::KeywordArgument => {
                if let Some(value) = node.child_by_field_id(f.value) {
                    self.push(value, scope, in_except);
                }
            }
            // Below, shortcuts for nodes without a syntax error inside, whose shape the grammar
            // fixes. `a.b`: the attribute is a bare name, so only the object can hold anything
            // the model records.
            Kind::Attribute if !node.has_error() => {
                if let Some(object) = node.child_by_field_id(f.object) {
                    self.push(object, scope, in_except);
                }
            }
            // Only an interpolation, which starts with `{`, can hold anything inside a string.
            Kind::String if !node.has_error() && !self.text(node).contains('{') => {}
            // A node without named children has nothing to visit (most nodes are leaves).
            _ if node.named_child_count() == 0 => {}
            _ => self.push_children(node, scope, in_except),
        }
    }

    /// `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`; `from m import x as y`
    /// binds `y` to `m.x`.
    fn bind_import(
        &mut self,
        name: Node<'a>,
        from_module: Option<&str>,
        stmt: Node<'a>,
        frame: Frame<'a>,
    ) {
        let f = &*FIELDS;
        let (dotted, alias) = match kind(name) {
            Kind::AliasedImport => (
                name.child_by_field_id(f.name),
                name.child_by_field_id(f.alias),
            ),
            _ => (Some(name), None),
        };
        let Some(dotted) = dotted else { return };
        let dotted_text = self.text(dotted);
        let full = match from_module {
            // `from . import x` is `.x`, not `..x` (which is `from .. import x`).
            Some(module) if module.ends_with('.') => format!("{module}{dotted_text}"),
            Some(module) => format!("{module}.{dotted_text}"),
            None => dotted_text.to_owned(),
        };
        match (alias, from_module) {
            (Some(alias), _) => self.bind(
                alias,
                BindingKind::Import { qualified: full },
                stmt,
                None,
                frame,
            ),
            (None, Some(_)) => self.bind(
                dotted,
                BindingKind::Import { qualified: full },
                stmt,
                None,
                frame,
            ),
            (None, None) => {
                let first = dotted_text.split('.').next().unwrap_or(dotted_text);
                let start = dotted.start_byte();
                self.bind_name(
                    first,
                    TextRange::new(start, start + first.len()),
                    BindingKind::Import {
                        qualified: first.to_owned(),
                    },
                    stmt,
                    None,
                    frame,
                );
            }
        }
    }
}
