//! The semantic model of one Python file: scopes and bindings, imports and aliases, every call
//! with its fully qualified name where it has one, function and class definitions, statically
//! resolved values, argparse defaults, and the `torch.utils.data.DataLoader` calls with their
//! bound arguments and dataset.
//!
//! Built once per analysis in a single walk over the tree (iterative, so deep nesting cannot
//! overflow the stack), then resolved on top of the recorded bindings. Rules read this instead
//! of the raw syntax tree. Anything the model cannot resolve is unknown, never guessed.
//!
//! The questions it answers:
//! - names: [`Module::qualified_name`] (`tud.DataLoader` -> `torch.utils.data.DataLoader`;
//!   `None` for a local shadowing definition), [`Module::lookup`], [`Module::single_binding`],
//!   [`Module::scope_at`], [`Module::function_at`], [`Module::references`];
//! - calls: [`Module::calls`] (each a [`CallSite`] with `qualified` and `method`),
//!   [`Module::calls_to`], [`Module::call_site`], [`Module::keyword_arg`];
//! - definitions: [`Module::functions`], [`Module::classes`], [`Module::method`],
//!   [`Module::class_bases`], [`Module::attribute_assignments`] (`self.x = ...`);
//! - values: [`Module::value_of`] (a [`Resolved`] value with its [`Provenance`]),
//!   [`Module::string_value`], [`Module::is_not_none`];
//! - order and guards: [`Module::statement_of`], [`Module::is_under_main_guard`],
//!   [`Module::is_conditional_relative_to`], [`Module::top_level_statements`];
//! - loaders: [`Module::loaders`] (see [`crate::python::loaders`]).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use tree_sitter::{Node, Tree, TreeCursor};

use crate::python::argparse::ArgparseDefaults;
use crate::python::catalogue::Catalogue;
use crate::python::index::ProjectIndex;
use crate::python::kinds::{self, FIELDS, Kind, kind};
use crate::python::loaders::{self, Loader};
use crate::python::values::{CpuCountFn, Provenance, Resolved, Value, parse_float, parse_int};
use crate::text::{LineIndex, TextRange};

pub type ScopeId = usize;
pub type FunctionId = usize;
pub type ClassId = usize;
pub type BindingId = usize;

/// The module scope is always the first.
pub const MODULE_SCOPE: ScopeId = 0;

/// Value resolution follows at most this many names, calls and operators deep.
const MAX_DEPTH: u32 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Function,
    Class,
    Lambda,
    Comprehension,
}

#[derive(Debug)]
pub struct Scope<'a> {
    pub kind: ScopeKind,
    /// The module, `function_definition`, `class_definition`, `lambda` or comprehension node.
    pub node: Node<'a>,
    pub parent: Option<ScopeId>,
    /// The function this scope belongs to (itself, for a function scope).
    pub function: Option<FunctionId>,
    /// The class whose body this scope is.
    pub class: Option<ClassId>,
    /// Where names resolve in this scope: the body (a function's parameters' defaults and
    /// decorators belong to the enclosing scope).
    inner: TextRange,
    children: Vec<ScopeId>,
    /// Names are slices of the source: recording a binding allocates no key.
    bindings: HashMap<&'a str, Vec<BindingId>>,
    globals: HashSet<&'a str>,
}

/// How a name got bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `import a.b as c`, `from a import b`: the fully qualified name it stands for.
    Import {
        qualified: String,
    },
    /// `name = value` (with the value) or a destructuring target (without).
    Assign,
    AugAssign,
    Parameter,
    Function(FunctionId),
    Class(ClassId),
    /// A `for` target, a comprehension variable.
    Loop,
    /// `with ... as name`, `except ... as name`, a `match` capture.
    As,
    /// `name := value`
    Walrus,
    /// `del name`
    Delete,
}

#[derive(Debug)]
pub struct Binding<'a> {
    pub name: &'a str,
    pub kind: BindingKind,
    /// The bound name (or the import's alias).
    pub name_range: TextRange,
    /// The statement (or definition, or parameter) that binds it.
    pub node: Node<'a>,
    /// The assigned expression of a plain `name = value` or `name := value`.
    pub value: Option<Node<'a>>,
    pub scope: ScopeId,
    /// Bound inside an `except` clause (an import fallback, typically).
    pub in_except: bool,
}

#[derive(Debug)]
pub struct FunctionDef<'a> {
    pub name: &'a str,
    pub node: Node<'a>,
    pub name_range: TextRange,
    pub body: Option<Node<'a>>,
    /// The function's own scope.
    pub scope: ScopeId,
    /// The scope the definition sits in.
    pub parent_scope: ScopeId,
    /// Set when this is a method defined directly in a class body.
    pub class: Option<ClassId>,
    /// The function this one is nested in.
    pub parent_function: Option<FunctionId>,
}

#[derive(Debug)]
pub struct ClassDef<'a> {
    pub name: &'a str,
    pub node: Node<'a>,
    pub name_range: TextRange,
    pub body: Option<Node<'a>>,
    pub scope: ScopeId,
    pub parent_scope: ScopeId,
    /// Base class expressions, in order (`qualified_name` resolves them).
    pub bases: Vec<Node<'a>>,
    /// Methods defined directly in the body, in order.
    pub methods: Vec<FunctionId>,
    /// The function the class is defined in (a class defined in a function cannot be pickled).
    pub parent_function: Option<FunctionId>,
}

/// One call anywhere in the file.
#[derive(Debug)]
pub struct CallSite<'a> {
    pub node: Node<'a>,
    /// The called expression (`torch.cuda.set_device`, `x.cuda`).
    pub callee: Node<'a>,
    /// The scope the call is evaluated in.
    pub scope: ScopeId,
    /// The innermost function the call is in (`None` at module level or a class body).
    pub function: Option<FunctionId>,
    /// Fully qualified name of the callee when it resolves through imports
    /// (`torch.cuda.set_device`, `os.cpu_count`, `builtins.len`).
    pub qualified: Option<String>,
    /// The last attribute of the callee (`cuda` for `x.cuda()`), whether or not it resolves.
    pub method: Option<&'a str>,
}

/// An assignment to an attribute, `obj.attr = value` (or `obj.attr += value`).
#[derive(Debug)]
pub struct AttributeAssignment<'a> {
    pub target: Node<'a>,
    /// The object's name when it is a plain name (`self`, `args`).
    pub object: Option<&'a str>,
    pub attribute: &'a str,
    /// `None` for augmented assignments and destructuring.
    pub value: Option<Node<'a>>,
    pub scope: ScopeId,
    pub function: Option<FunctionId>,
}

/// Everything rules need to know about one file, resolved once per analysis.
pub struct Module<'a> {
    pub source: &'a str,
    pub tree: &'a Tree,
    pub path: &'a Path,
    pub index: &'a ProjectIndex,
    /// What constructs a loader: the built-in catalogue and the user's query files.
    pub catalogue: &'a Catalogue,
    pub lines: LineIndex,
    scopes: Vec<Scope<'a>>,
    bindings: Vec<Binding<'a>>,
    functions: Vec<FunctionDef<'a>>,
    classes: Vec<ClassDef<'a>>,
    calls: Vec<CallSite<'a>>,
    attribute_assignments: Vec<AttributeAssignment<'a>>,
    /// Modules of `from m import *` at any level.
    star_imports: Vec<String>,
    pub(crate) argparse: ArgparseDefaults,
    loaders: Vec<Loader<'a>>,
    /// The named children of the root but comments: [`Module::top_level_statements`].
    top_level: Vec<Node<'a>>,
}

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
            argparse: ArgparseDefaults::default(),
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
        module.argparse = ArgparseDefaults::collect(&module);
        module.loaders = loaders::collect(&module);
        module
    }

    // ---- text and positions -------------------------------------------------------------

    /// The source text of `node` (empty if the node's range is not valid UTF-8 boundaries).
    pub fn text(&self, node: Node) -> &'a str {
        self.source.get(node.byte_range()).unwrap_or("")
    }

    pub fn range(node: Node) -> TextRange {
        TextRange::new(node.start_byte(), node.end_byte())
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> u32 {
        self.lines.line_of(offset) + 1
    }

    // ---- definitions and calls ----------------------------------------------------------

    pub fn functions(&self) -> &[FunctionDef<'a>] {
        &self.functions
    }

    pub fn classes(&self) -> &[ClassDef<'a>] {
        &self.classes
    }

    pub fn scopes(&self) -> &[Scope<'a>] {
        &self.scopes
    }

    pub fn bindings(&self) -> &[Binding<'a>] {
        &self.bindings
    }

    pub fn function(&self, id: FunctionId) -> Option<&FunctionDef<'a>> {
        self.functions.get(id)
    }

    pub fn class(&self, id: ClassId) -> Option<&ClassDef<'a>> {
        self.classes.get(id)
    }

    /// A method of a class by name (`__getitem__`, `__init__`).
    pub fn method(&self, class: ClassId, name: &str) -> Option<&FunctionDef<'a>> {
        let class = self.classes.get(class)?;
        class
            .methods
            .iter()
            .rev()
            .filter_map(|id| self.functions.get(*id))
            .find(|f| f.name == name)
    }

    /// The id of a method of a class by name.
    pub fn method_id(&self, class: ClassId, name: &str) -> Option<FunctionId> {
        let class = self.classes.get(class)?;
        class
            .methods
            .iter()
            .rev()
            .copied()
            .find(|id| self.functions.get(*id).is_some_and(|f| f.name == name))
    }

    /// Fully qualified names of a class's bases, `None` where a base does not resolve.
    pub fn class_bases(&self, class: ClassId) -> Vec<Option<String>> {
        let Some(class) = self.classes.get(class) else {
            return Vec::new();
        };
        class
            .bases
            .iter()
            .map(|b| self.qualified_in(*b, class.parent_scope, 0))
            .collect()
    }

    /// Every call in the file, in source order.
    pub fn calls(&self) -> &[CallSite<'a>] {
        &self.calls
    }

    /// Calls whose callee resolves to one of `names` (fully qualified).
    pub fn calls_to<'s>(
        &'s self,
        names: &'s [&'s str],
    ) -> impl Iterator<Item = &'s CallSite<'a>> + 's {
        self.calls
            .iter()
            .filter(move |c| c.qualified.as_deref().is_some_and(|q| names.contains(&q)))
    }

    /// The call record of a `call` node.
    pub fn call_site(&self, node: Node) -> Option<&CallSite<'a>> {
        let i = self
            .calls
            .binary_search_by_key(&(node.start_byte(), node.id()), |c| {
                (c.node.start_byte(), c.node.id())
            })
            .ok()?;
        self.calls.get(i)
    }

    pub fn attribute_assignments(&self) -> &[AttributeAssignment<'a>] {
        &self.attribute_assignments
    }

    /// The loader constructions of the file (DataLoader, the catalogue's loaders, the
    /// project's loader classes), in source order.
    pub fn loaders(&self) -> &[Loader<'a>] {
        &self.loaders
    }

    // ---- scopes and names ---------------------------------------------------------------

    /// The innermost scope `node` is evaluated in.
    pub fn scope_at(&self, node: Node) -> ScopeId {
        let target = Self::range(node);
        let mut current = MODULE_SCOPE;
        'descend: loop {
            let Some(scope) = self.scopes.get(current) else {
                return MODULE_SCOPE;
            };
            // Children are recorded in source order and do not overlap: the only candidate
            // is the last one starting at or before the target.
            let after = scope.children.partition_point(|&child| {
                self.scopes
                    .get(child)
                    .is_some_and(|c| c.inner.start <= target.start)
            });
            if let Some(&child) = after.checked_sub(1).and_then(|i| scope.children.get(i))
                && self
                    .scopes
                    .get(child)
                    .is_some_and(|c| c.inner.contains_range(target))
            {
                current = child;
                continue 'descend;
            }
            return current;
        }
    }

    /// The innermost function `node` lies in.
    pub fn function_at(&self, node: Node) -> Option<FunctionId> {
        self.scopes.get(self.scope_at(node))?.function
    }

    /// The bindings of `name` visible from `scope`, with Python's rules: a class body is
    /// visible only to code directly in it, `global` sends a name to the module.
    pub fn lookup(&self, name: &str, scope: ScopeId) -> Option<&[BindingId]> {
        let mut current = Some(scope);
        let mut first = true;
        while let Some(id) = current {
            let s = self.scopes.get(id)?;
            if s.globals.contains(name) {
                return self
                    .scopes
                    .get(MODULE_SCOPE)?
                    .bindings
                    .get(name)
                    .map(Vec::as_slice);
            }
            if (first || s.kind != ScopeKind::Class)
                && let Some(ids) = s.bindings.get(name)
            {
                return Some(ids);
            }
            first = false;
            current = s.parent;
        }
        None
    }

    /// Whether `name` resolves to an import of `qualified` at module level (for import
    /// insertion: `import os` is needed only when `os` is not already the module `os`).
    pub fn module_imports(&self, name: &str, qualified: &str) -> bool {
        self.lookup(name, MODULE_SCOPE).is_some_and(|ids| {
            ids.iter().any(|id| {
                self.bindings.get(*id).is_some_and(|b| {
                    !b.in_except
                        && matches!(&b.kind, BindingKind::Import { qualified: q } if q == qualified)
                })
            })
        })
    }

    /// Whether `name` is bound to anything at module level.
    pub fn module_binds(&self, name: &str) -> bool {
        self.lookup(name, MODULE_SCOPE).is_some()
    }

    /// The fully qualified name an expression stands for, through imports, aliases and
    /// attribute chains: `tud.DataLoader` -> `torch.utils.data.DataLoader`. `None` for a
    /// name bound locally to anything else (a user's own `class DataLoader`, a parameter
    /// named `torch`).
    pub fn qualified_name(&self, expr: Node) -> Option<String> {
        self.qualified_in(expr, self.scope_at(expr), 0)
    }

    pub(crate) fn qualified_in(&self, expr: Node, scope: ScopeId, depth: u32) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        match kind(expr) {
            Kind::Identifier => {
                let name = self.text(expr);
                let Some(ids) = self.lookup(name, scope) else {
                    if BUILTINS.contains(&name) {
                        return Some(format!("builtins.{name}"));
                    }
                    // `from m import *` may define it; with exactly one star import we know
                    // where it would come from.
                    return match self.star_imports.as_slice() {
                        [module] => Some(format!("{module}.{name}")),
                        _ => None,
                    };
                };
                let mut found: Option<&str> = None;
                for &id in ids {
                    let b = self.bindings.get(id)?;
                    match &b.kind {
                        BindingKind::Import { qualified } => match found {
                            Some(q) if q != qualified => return None,
                            _ => found = Some(qualified),
                        },
                        // `except ImportError: torch = None` does not change what it is.
                        _ if b.in_except => {}
                        BindingKind::Assign if ids.len() == 1 => {
                            let value = b.value?;
                            return match kind(value) {
                                Kind::Identifier | Kind::Attribute => {
                                    self.qualified_in(value, b.scope, depth + 1)
                                }
                                _ => None,
                            };
                        }
                        _ => return None,
                    }
                }
                found.map(str::to_owned)
            }
            Kind::Attribute => {
                let f = &*FIELDS;
                let object = expr.child_by_field_id(f.object)?;
                let attribute = expr.child_by_field_id(f.attribute)?;
                let base = self.qualified_in(object, scope, depth + 1)?;
                Some(format!("{base}.{}", self.text(attribute)))
            }
            Kind::ParenthesizedExpression => {
                let inner = expr.named_child(0)?;
                self.qualified_in(inner, scope, depth + 1)
            }
            _ => None,
        }
    }

    /// Every identifier in the file spelled `name`, in source order (references and
    /// definitions alike; [`Module::lookup`] tells which binding each one sees).
    pub fn references(&self, name: &str) -> Vec<Node<'a>> {
        // Finding the spelling in the text and asking the tree what is there costs a few node
        // lookups per occurrence, where walking every node of the tree cost a sixth of the
        // analysis of a 2,000-line training script.
        if name.is_empty() {
            return Vec::new();
        }
        let root = self.tree.root_node();
        memchr::memmem::find_iter(self.source.as_bytes(), name.as_bytes())
            .filter_map(|start| {
                let end = start + name.len();
                let node = root.descendant_for_byte_range(start, end)?;
                (node.kind() == "identifier"
                    && node.start_byte() == start
                    && node.end_byte() == end)
                    .then_some(node)
            })
            .collect()
    }

    /// The one binding of a name, when it is bound exactly once where it is looked up.
    pub fn single_binding(&self, name: &str, scope: ScopeId) -> Option<&Binding<'a>> {
        match self.lookup(name, scope)? {
            [id] => self.bindings.get(*id),
            _ => None,
        }
    }

    // ---- values -------------------------------------------------------------------------

    /// Resolves an expression to a value with its provenance; unknown when it cannot.
    pub fn value_of(&self, expr: Node) -> Resolved {
        self.value_in(expr, self.scope_at(expr), 0)
    }

    pub(crate) fn value_in(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        if depth > MAX_DEPTH {
            return Resolved::unknown();
        }
        let literal = Resolved::literal;
        match expr.kind() {
            "integer" => parse_int(self.text(expr))
                .map(|i| literal(Value::Int(i)))
                .unwrap_or_else(Resolved::unknown),
            "float" => parse_float(self.text(expr))
                .map(|f| literal(Value::Float(f)))
                .unwrap_or_else(Resolved::unknown),
            "true" => literal(Value::Bool(true)),
            "false" => literal(Value::Bool(false)),
            "none" => literal(Value::None),
            "string" | "concatenated_string" => self
                .string_value(expr)
                .map(|s| literal(Value::Str(s)))
                .unwrap_or_else(Resolved::unknown),
            "parenthesized_expression" => match expr.named_child(0) {
                Some(inner) if inner.kind() != "comment" => self.value_in(inner, scope, depth + 1),
                _ => Resolved::unknown(),
            },
            "unary_operator" => self.unary_value(expr, scope, depth),
            "binary_operator" => self.binary_value(expr, scope, depth),
            "identifier" => self.name_value(expr, scope, depth),
            "attribute" => {
                let (Some(object), Some(attribute)) = (
                    expr.child_by_field_name("object"),
                    expr.child_by_field_name("attribute"),
                ) else {
                    return Resolved::unknown();
                };
                self.argparse
                    .value(self, object, self.text(attribute), scope, depth)
                    .unwrap_or_else(Resolved::unknown)
            }
            "call" => self.call_value(expr, scope, depth),
            _ => Resolved::unknown(),
        }
    }

    /// Whether an expression is certainly not `None`: a known non-None value, a class
    /// construction (`DistributedSampler(ds)`), a lambda, a container literal, or a name
    /// bound once to one of those.
    pub fn is_not_none(&self, expr: Node) -> bool {
        self.not_none_in(expr, self.scope_at(expr), 0)
    }

    fn not_none_in(&self, expr: Node, scope: ScopeId, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if self.value_in(expr, scope, depth).value.is_none() == Some(false) {
            return true;
        }
        match expr.kind() {
            "lambda"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression" => true,
            "call" => {
                let Some(callee) = expr.child_by_field_name("function") else {
                    return false;
                };
                let last = match callee.kind() {
                    "attribute" => callee.child_by_field_name("attribute"),
                    "identifier" => Some(callee),
                    _ => None,
                };
                // Calling a class makes an instance; by convention classes are CapWords.
                last.is_some_and(|n| self.text(n).starts_with(|c: char| c.is_ascii_uppercase()))
            }
            "identifier" => match self.single_binding(self.text(expr), scope) {
                Some(Binding {
                    kind: BindingKind::Assign,
                    value: Some(value),
                    scope: bound_in,
                    ..
                }) => self.not_none_in(*value, *bound_in, depth + 1),
                Some(Binding {
                    kind: BindingKind::Function(_) | BindingKind::Class(_),
                    ..
                }) => true,
                _ => false,
            },
            _ => false,
        }
    }

    /// The text of a plain string literal (no f-string interpolation, no bytes).
    pub fn string_value(&self, node: Node) -> Option<String> {
        match node.kind() {
            "concatenated_string" => {
                let mut out = String::new();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    if part.kind() == "string" {
                        out.push_str(&self.string_value(part)?);
                    }
                }
                Some(out)
            }
            "string" => {
                let mut cursor = node.walk();
                let mut out = String::new();
                for part in node.children(&mut cursor) {
                    match part.kind() {
                        "string_start" => {
                            let prefix = self.text(part).to_ascii_lowercase();
                            if prefix.contains('b') || prefix.contains('f') && prefix.contains('{')
                            {
                                return None;
                            }
                        }
                        "string_content" => out.push_str(self.text(part)),
                        "escape_sequence" => out.push_str(&unescape(self.text(part))?),
                        "interpolation" => return None,
                        _ => {}
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    fn unary_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let (Some(op), Some(arg)) = (
            expr.child_by_field_name("operator"),
            expr.child_by_field_name("argument"),
        ) else {
            return Resolved::unknown();
        };
        let inner = self.value_in(arg, scope, depth + 1);
        let value = match (self.text(op), &inner.value) {
            ("-", Value::Int(i)) => i.checked_neg().map(Value::Int),
            ("-", Value::Float(f)) => Some(Value::Float(-f)),
            ("+", Value::Int(_) | Value::Float(_)) => Some(inner.value.clone()),
            _ => None,
        };
        match value {
            Some(value) => Resolved {
                value,
                provenance: if inner.provenance == Provenance::Literal {
                    Provenance::Literal
                } else {
                    Provenance::Computed
                },
            },
            None => Resolved::unknown(),
        }
    }

    fn binary_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let (Some(left), Some(op), Some(right)) = (
            expr.child_by_field_name("left"),
            expr.child_by_field_name("operator"),
            expr.child_by_field_name("right"),
        ) else {
            return Resolved::unknown();
        };
        let l = self.value_in(left, scope, depth + 1).value;
        let r = self.value_in(right, scope, depth + 1).value;
        let op = self.text(op);
        let value = match (&l, &r) {
            (Value::Int(a), Value::Int(b)) => match op {
                "+" => a.checked_add(*b),
                "-" => a.checked_sub(*b),
                "*" => a.checked_mul(*b),
                "//" if *b != 0 => Some(a.div_euclid(*b)),
                _ => None,
            }
            .map(Value::Int),
            (Value::CpuCount { func, .. }, Value::Int(_))
            | (Value::Int(_), Value::CpuCount { func, .. })
                if matches!(op, "+" | "-" | "*" | "//" | "/") =>
            {
                Some(Value::CpuCount {
                    func: *func,
                    exact: false,
                })
            }
            // `os.cpu_count() // world_size`: a share of the count, whatever the divisor.
            (Value::CpuCount { func, .. }, _) if matches!(op, "//" | "/" | "-") => {
                Some(Value::CpuCount {
                    func: *func,
                    exact: false,
                })
            }
            _ => None,
        };
        value
            .map(|value| Resolved {
                value,
                provenance: Provenance::Computed,
            })
            .unwrap_or_else(Resolved::unknown)
    }

    fn name_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let name = self.text(expr);
        let Some(binding) = self.single_binding(name, scope) else {
            return Resolved::unknown();
        };
        let (BindingKind::Assign | BindingKind::Walrus, Some(value)) =
            (&binding.kind, binding.value)
        else {
            return Resolved::unknown();
        };
        let inner = self.value_in(value, binding.scope, depth + 1);
        if !inner.value.is_known() {
            return inner;
        }
        match inner.provenance {
            Provenance::Literal | Provenance::Computed => Resolved {
                value: inner.value,
                provenance: Provenance::Constant {
                    name: name.to_owned(),
                    line: self.line(binding.name_range.start),
                    at: binding.name_range,
                },
            },
            _ => inner,
        }
    }

    fn call_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let Some(callee) = expr.child_by_field_name("function") else {
            return Resolved::unknown();
        };
        let Some(qualified) = self.qualified_in(callee, scope, depth + 1) else {
            return Resolved::unknown();
        };
        let args = positional_args(expr);
        let computed = |value| Resolved {
            value,
            provenance: Provenance::Computed,
        };
        match qualified.as_str() {
            "os.cpu_count" => computed(Value::CpuCount {
                func: CpuCountFn::OsCpuCount,
                exact: true,
            }),
            "multiprocessing.cpu_count" | "torch.multiprocessing.cpu_count" => {
                computed(Value::CpuCount {
                    func: CpuCountFn::MultiprocessingCpuCount,
                    exact: true,
                })
            }
            "psutil.cpu_count" => computed(Value::CpuCount {
                func: CpuCountFn::PsutilCpuCount,
                exact: true,
            }),
            "builtins.len" => match args.as_slice() {
                [inner] if inner.kind() == "call" => {
                    let affinity = inner
                        .child_by_field_name("function")
                        .and_then(|f| self.qualified_in(f, scope, depth + 1));
                    if affinity.as_deref() == Some("os.sched_getaffinity") {
                        computed(Value::CpuCount {
                            func: CpuCountFn::SchedGetaffinity,
                            exact: true,
                        })
                    } else {
                        Resolved::unknown()
                    }
                }
                _ => Resolved::unknown(),
            },
            "multiprocessing.get_context" | "torch.multiprocessing.get_context" => {
                let method = self
                    .keyword_arg(expr, "method")
                    .or_else(|| args.first().copied());
                let method = match method {
                    None => None,
                    Some(m) => match self.value_in(m, scope, depth + 1).value {
                        Value::Str(s) => Some(s),
                        Value::None => None,
                        _ => return computed(Value::Context { method: None }),
                    },
                };
                computed(Value::Context { method })
            }
            "builtins.int" => match args.as_slice() {
                [inner] => {
                    let r = self.value_in(*inner, scope, depth + 1);
                    let value = match r.value {
                        Value::Int(i) => Some(Value::Int(i)),
                        Value::Bool(b) => Some(Value::Int(i64::from(b))),
                        Value::Float(f) if f.is_finite() && f.abs() < 9.0e18 => {
                            Some(Value::Int(f.trunc() as i64))
                        }
                        Value::Str(ref s) => s.trim().parse().ok().map(Value::Int),
                        Value::CpuCount { .. } => Some(r.value.clone()),
                        _ => None,
                    };
                    match value {
                        Some(value) => Resolved {
                            value,
                            provenance: r.provenance,
                        },
                        None => Resolved::unknown(),
                    }
                }
                _ => Resolved::unknown(),
            },
            "builtins.min" | "builtins.max" if !args.is_empty() => {
                // `min(a, b)` or `min([a, b])`.
                let items = match args.as_slice() {
                    [list] if matches!(list.kind(), "list" | "tuple") => {
                        match literal_items(*list) {
                            Some(items) => items,
                            None => return Resolved::unknown(),
                        }
                    }
                    [_] => return Resolved::unknown(),
                    _ => args,
                };
                if items.is_empty() || self.keyword_arg(expr, "key").is_some() {
                    return Resolved::unknown();
                }
                let values: Vec<Value> = items
                    .iter()
                    .map(|a| self.value_in(*a, scope, depth + 1).value)
                    .collect();
                let cpu = values.iter().find_map(|v| match v {
                    Value::CpuCount { func, .. } => Some(*func),
                    _ => None,
                });
                let ints: Option<Vec<i64>> = values
                    .iter()
                    .filter(|v| !matches!(v, Value::CpuCount { .. }))
                    .map(Value::as_int)
                    .collect();
                match (cpu, ints) {
                    (Some(func), Some(_)) => computed(Value::CpuCount { func, exact: false }),
                    // The minimum is at most the CPU count, whatever the other values are.
                    (Some(func), None) if qualified == "builtins.min" => {
                        computed(Value::CpuCount { func, exact: false })
                    }
                    (None, Some(ints)) => {
                        let pick = if qualified == "builtins.min" {
                            ints.iter().min()
                        } else {
                            ints.iter().max()
                        };
                        pick.map(|i| computed(Value::Int(*i)))
                            .unwrap_or_else(Resolved::unknown)
                    }
                    _ => Resolved::unknown(),
                }
            }
            _ => Resolved::unknown(),
        }
    }

    /// The value of the keyword argument `name` of a call.
    pub fn keyword_arg<'n>(&self, call: Node<'n>, name: &str) -> Option<Node<'n>> {
        let args = call.child_by_field_name("arguments")?;
        let mut cursor = args.walk();
        let found = args.named_children(&mut cursor).find(|n| {
            n.kind() == "keyword_argument"
                && n.child_by_field_name("name")
                    .is_some_and(|k| self.source.get(k.byte_range()) == Some(name))
        });
        found.and_then(|n| n.child_by_field_name("value"))
    }

    // ---- statements and guards ----------------------------------------------------------

    /// The statement `node` belongs to: the ancestor (or itself) that is a direct child of a
    /// block or of the module.
    pub fn statement_of<'n>(&self, node: Node<'n>) -> Node<'n> {
        let mut current = node;
        while let Some(parent) = current.parent() {
            if matches!(parent.kind(), "block" | "module") {
                return current;
            }
            current = parent;
        }
        current
    }

    /// Whether `node` runs only under `if __name__ == "__main__":`.
    pub fn is_under_main_guard(&self, node: Node) -> bool {
        let mut current = node;
        while let Some(parent) = current.parent() {
            if parent.kind() == "if_statement"
                && parent
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.id() == current.id())
                && parent
                    .child_by_field_name("condition")
                    .is_some_and(|c| self.is_main_check(c))
            {
                return true;
            }
            current = parent;
        }
        false
    }

    /// Whether an `if` statement is `if __name__ == "__main__":`.
    pub fn is_main_guard(&self, if_statement: Node) -> bool {
        if_statement.kind() == "if_statement"
            && if_statement
                .child_by_field_name("condition")
                .is_some_and(|c| self.is_main_check(c))
    }

    fn is_main_check(&self, condition: Node) -> bool {
        if condition.kind() != "comparison_operator" || condition.named_child_count() != 2 {
            return false;
        }
        let mut cursor = condition.walk();
        let operator_is_eq = condition
            .children(&mut cursor)
            .any(|c| !c.is_named() && c.kind() == "==");
        let (Some(a), Some(b)) = (condition.named_child(0), condition.named_child(1)) else {
            return false;
        };
        let is_name = |n: Node| n.kind() == "identifier" && self.text(n) == "__name__";
        let is_main = |n: Node| self.string_value(n).as_deref() == Some("__main__");
        operator_is_eq && (is_name(a) && is_main(b) || is_main(a) && is_name(b))
    }

    /// Whether `node` runs only under a condition, a loop or an exception handler that does not
    /// also contain `other` (both in the same scope): "possible, not certain" from `other`'s
    /// point of view.
    pub fn is_conditional_relative_to(&self, node: Node, other: Node) -> bool {
        let other_range = Self::range(other);
        let mut current = node;
        while let Some(parent) = current.parent() {
            if matches!(
                parent.kind(),
                "function_definition" | "class_definition" | "lambda" | "module"
            ) {
                return false;
            }
            if Self::range(parent).contains_range(other_range) {
                return false;
            }
            if matches!(
                parent.kind(),
                "if_statement"
                    | "elif_clause"
                    | "else_clause"
                    | "for_statement"
                    | "while_statement"
                    | "except_clause"
                    | "except_group_clause"
                    | "case_clause"
                    | "conditional_expression"
                    | "boolean_operator"
            ) {
                return true;
            }
            current = parent;
        }
        false
    }

    /// Top-level statements of the module, in order (kept by the walk, which pushes them
    /// first).
    pub fn top_level_statements(&self) -> &[Node<'a>] {
        &self.top_level
    }
}

/// The positional (non-keyword, non-splat) arguments of a call.
pub(crate) fn positional_args(call: Node) -> Vec<Node> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|n| {
            !matches!(
                n.kind(),
                "keyword_argument" | "list_splat" | "dictionary_splat" | "comment"
            )
        })
        .collect()
}

/// The elements of a list or tuple literal; `None` when one is unpacked (`[*a, b]`).
pub(crate) fn literal_items(list: Node) -> Option<Vec<Node>> {
    let mut cursor = list.walk();
    let items: Vec<Node> = list
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    (!items.iter().any(|n| n.kind() == "list_splat")).then_some(items)
}

fn unescape(seq: &str) -> Option<String> {
    let s = match seq {
        "\\n" => "\n",
        "\\t" => "\t",
        "\\\\" => "\\",
        "\\'" => "'",
        "\\\"" => "\"",
        "\\r" => "\r",
        "\\0" => "\0",
        _ => return None,
    };
    Some(s.to_owned())
}

/// Names Python resolves from `builtins` when nothing in the file binds them.
const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "callable",
    "dict",
    "enumerate",
    "filter",
    "float",
    "getattr",
    "hasattr",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "open",
    "print",
    "range",
    "reversed",
    "round",
    "set",
    "setattr",
    "sorted",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "zip",
];

// ---- the walk -----------------------------------------------------------------------------

/// Nodes with at most this many named children have them read by index rather than with a
/// cursor.
const FEW_CHILDREN: usize = 6;

/// Calls `f` with each named child of `node`, in order.
///
/// tree-sitter's cursor pays a few hundred instructions per step, anonymous children
/// (punctuation) included; reading a few named children by index is cheaper, though each
/// read scans from the first child, so many children still go through the cursor.
fn for_each_named_child<'a>(
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

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
