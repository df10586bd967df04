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
//! - values: [`Module::value_of`] (a [`Resolved`](crate::python::values::Resolved) value with
//!   its [`Provenance`](crate::python::values::Provenance)),
//!   [`Module::string_value`], [`Module::is_not_none`];
//! - order and guards: [`Module::statement_of`], [`Module::is_under_main_guard`],
//!   [`Module::is_conditional_relative_to`], [`Module::top_level_statements`];
//! - loaders: [`Module::loaders`] (see [`crate::python::loaders`]).
//!
//! The types and the name, call, definition and order queries live here; the value
//! evaluator in `eval.rs`, the walk that builds the model in `build.rs`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use tree_sitter::{Node, Tree};

use crate::python::catalogue::Catalogue;
use crate::python::index::ProjectIndex;
use crate::python::kinds::{FIELDS, Kind, kind};
use crate::python::loaders::Loader;
use crate::python::values::Resolved;
use crate::text::{LineIndex, TextRange};

mod assigned;
mod build;
mod eval;

pub type ScopeId = usize;
pub type FunctionId = usize;
pub type ClassId = usize;
pub type BindingId = usize;

/// The module scope is always the first.
pub const MODULE_SCOPE: ScopeId = 0;

/// Value resolution follows at most this many names, calls and operators deep.
pub(crate) const MAX_DEPTH: u32 = 24;

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

/// Where the evaluator turns for `object.attribute` when the file's bindings cannot say: a
/// layer above the model (the argparse defaults, [`crate::python::argparse`]) answers.
pub trait AttributeValues {
    fn attribute_value(
        &self,
        m: &Module,
        object: Node,
        attribute: &str,
        scope: ScopeId,
        depth: u32,
    ) -> Option<Resolved>;

    /// Why `expr` (`args.workers`, `cfg["workers"]`, `workers`), which the evaluator leaves
    /// unknown, is unknown, where the source can say.
    fn why_unknown(&self, _m: &Module, _expr: Node, _scope: ScopeId) -> Option<String> {
        None
    }

    /// The value source itself, for the layer that attached it to read back its own type.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// Knows no attribute values: what the evaluator sees until a layer above is attached.
pub(crate) struct NoAttributeValues;

impl AttributeValues for NoAttributeValues {
    fn attribute_value(
        &self,
        _: &Module,
        _: Node,
        _: &str,
        _: ScopeId,
        _: u32,
    ) -> Option<Resolved> {
        None
    }
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
    /// What `obj.attr` holds when the file's bindings cannot say (argparse defaults).
    attributes: Box<dyn AttributeValues + 'a>,
    loaders: Vec<Loader<'a>>,
    /// The named children of the root but comments: [`Module::top_level_statements`].
    top_level: Vec<Node<'a>>,
}

impl<'a> Module<'a> {
    /// The source of attribute values the layer above attached (see [`AttributeValues`]).
    pub(crate) fn attribute_values(&self) -> &dyn AttributeValues {
        self.attributes.as_ref()
    }

    // ---- text and positions -------------------------------------------------------------

    /// The source text of `node` (empty if the node's range is not valid UTF-8 boundaries).
    pub fn text(&self, node: Node) -> &'a str {
        self.source.get(node.byte_range()).unwrap_or("")
    }

    /// The root of the file's tree.
    pub fn root(&self) -> Node<'a> {
        self.tree.root_node()
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

    /// Why an expression the evaluator leaves unknown is unknown, where the attached value
    /// source can say ([`AttributeValues::why_unknown`]).
    pub fn why_unknown(&self, expr: Node) -> Option<String> {
        self.attribute_values()
            .why_unknown(self, expr, self.scope_at(expr))
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
                    // `from m import *` may define it: a name from outside the project that
                    // a star-imported module of the project imports (`import argparse` in
                    // `utils.py`) is that name; else, with exactly one star import, we know
                    // where it would come from.
                    if !self.star_imports.is_empty() {
                        // Summarised for another file, the star-imported modules are not
                        // read: a module the analysis knows, named but bound by no statement
                        // here, can only have come through them, under its own name.
                        if !self.index.reads_files() {
                            if STAR_MODULES.contains(&name) {
                                return Some(name.to_owned());
                            }
                        } else if let Some(outside) =
                            self.index
                                .star_imported(self.path, &self.star_imports, name)
                        {
                            return Some(outside);
                        } else if self.star_imports.len() > 1
                            && let Some(own) =
                                self.index.star_module(self.path, &self.star_imports, name)
                        {
                            return Some(own);
                        }
                    }
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
                                Kind::Call => self.imported_module(value, b.scope, depth + 1),
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
            // `getattr(module, "build_dataloaders")`: the attribute by a literal name.
            Kind::Call => {
                let callee = expr.child_by_field_name("function")?;
                if self.text(callee) != "getattr"
                    || self.qualified_in(callee, scope, depth + 1)? != "builtins.getattr"
                {
                    return None;
                }
                let [object, name] = only_positional(expr)?[..] else {
                    return None;
                };
                let name = self.string_value(name).filter(|n| is_dotted_name(n))?;
                if name.contains('.') {
                    return None;
                }
                let base = self.qualified_in(object, scope, depth + 1)?;
                Some(format!("{base}.{name}"))
            }
            _ => None,
        }
    }

    /// The module `importlib.import_module(NAME)` imports: a literal name, or a name with one
    /// part computed at run time (`"lib.config.%s.config" % args.script`, an f-string,
    /// `.format`, `+`) that exactly one module of the project fits.
    fn imported_module(&self, call: Node, scope: ScopeId, depth: u32) -> Option<String> {
        let callee = call.child_by_field_name("function")?;
        if !self.text(callee).ends_with("import_module")
            || self.qualified_in(callee, scope, depth)? != "importlib.import_module"
        {
            return None;
        }
        // A `package=` makes the name relative to a package named at run time.
        let [name] = only_positional(call)?[..] else {
            return None;
        };
        if let Some(literal) = self.string_value(name) {
            return is_dotted_name(&literal).then_some(literal);
        }
        let (before, after) = self.one_computed_part(name)?;
        let prefix = before.strip_suffix('.')?;
        let suffix = match after.as_str() {
            "" => "",
            after => after.strip_prefix('.')?,
        };
        if !is_dotted_name(prefix) || !(suffix.is_empty() || is_dotted_name(suffix)) {
            return None;
        }
        let prefix: Vec<&str> = prefix.split('.').collect();
        let suffix: Vec<&str> = suffix.split('.').filter(|p| !p.is_empty()).collect();
        self.index.module_with_one_part(self.path, &prefix, &suffix)
    }

    /// The literal text before and after the one part of a string built at run time:
    /// `"a.%s.b" % x`, `f"a.{x}.b"`, `"a.{}.b".format(x)`, `"a." + x + ".b"`.
    fn one_computed_part(&self, expr: Node) -> Option<(String, String)> {
        match expr.kind() {
            "binary_operator" => {
                let left = expr.child_by_field_name("left")?;
                let right = expr.child_by_field_name("right")?;
                match self.text(expr.child_by_field_name("operator")?) {
                    "%" => {
                        let template = self.string_value(left)?;
                        let (before, after) = template.split_once("%s")?;
                        (!before.contains('%') && !after.contains('%'))
                            .then(|| (before.to_owned(), after.to_owned()))
                    }
                    "+" => {
                        // `"a." + x + ".b"` parses as `("a." + x) + ".b"`.
                        if let Some(after) = self.string_value(right) {
                            let (before, rest) = match self.string_value(left) {
                                Some(_) => return None,
                                None if left.kind() == "binary_operator" => {
                                    self.one_computed_part(left)?
                                }
                                None => (String::new(), String::new()),
                            };
                            return Some((before, rest + &after));
                        }
                        let before = self.string_value(left)?;
                        Some((before, String::new()))
                    }
                    _ => None,
                }
            }
            "string" => {
                let mut cursor = expr.walk();
                let mut texts = vec![String::new()];
                for part in expr.children(&mut cursor) {
                    match part.kind() {
                        "string_content" => texts.last_mut()?.push_str(self.text(part)),
                        "interpolation" => texts.push(String::new()),
                        "escape_sequence" => return None,
                        _ => {}
                    }
                }
                match <[String; 2]>::try_from(texts) {
                    Ok([before, after]) => Some((before, after)),
                    Err(_) => None,
                }
            }
            "call" => {
                let callee = expr.child_by_field_name("function")?;
                let object = callee.child_by_field_name("object")?;
                let method = callee.child_by_field_name("attribute")?;
                if callee.kind() != "attribute" || self.text(method) != "format" {
                    return None;
                }
                let template = self.string_value(object)?;
                let (before, after) = template.split_once("{}")?;
                (!before.contains('{') && !after.contains('{'))
                    .then(|| (before.to_owned(), after.to_owned()))
            }
            _ => None,
        }
    }

    /// The qualified names a name may stand for when every binding that reaches it is an
    /// import, one per branch (`if aug == 'node': from dataset.node import Wrapper` / `elif
    /// ...: from dataset.mix import Wrapper`); the one name otherwise, as
    /// [`Module::qualified_in`] gives it.
    pub(crate) fn qualified_alternatives(&self, expr: Node, scope: ScopeId) -> Vec<String> {
        if let Some(one) = self.qualified_in(expr, scope, 0) {
            return vec![one];
        }
        if kind(expr) != Kind::Identifier {
            return Vec::new();
        }
        let Some(ids) = self.lookup(self.text(expr), scope) else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for &id in ids {
            match self.bindings.get(id).map(|b| &b.kind) {
                Some(BindingKind::Import { qualified }) => {
                    if !names.contains(qualified) {
                        names.push(qualified.clone());
                    }
                }
                _ => return Vec::new(),
            }
        }
        names
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

    /// Whether `expr` is a name every binding of which is an import (`cfgs` after `import
    /// cfgs.cfgs_LF_1 as cfgs`, `settings` after `import settings`).
    pub(crate) fn names_an_import(&self, expr: Node, scope: ScopeId) -> bool {
        expr.kind() == "identifier"
            && self.lookup(self.text(expr), scope).is_some_and(|ids| {
                ids.iter().filter_map(|id| self.bindings.get(*id)).all(|b| {
                    match (&b.kind, b.value) {
                        (BindingKind::Import { .. }, _) => true,
                        // `config_module = importlib.import_module(...)`.
                        (BindingKind::Assign, Some(value)) if ids.len() == 1 => {
                            value.kind() == "call"
                                && self.imported_module(value, b.scope, 0).is_some()
                        }
                        _ => false,
                    }
                })
            })
    }

    /// The one binding of a name, when it is bound exactly once where it is looked up.
    pub fn single_binding(&self, name: &str, scope: ScopeId) -> Option<&Binding<'a>> {
        match self.lookup(name, scope)? {
            [id] => self.bindings.get(*id),
            _ => None,
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
    /// block or of the module; the root when there is none (an `ERROR` root).
    pub fn statement_of(&self, node: Node<'a>) -> Node<'a> {
        statement_of(node).unwrap_or_else(|| self.root())
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
        for parent in ancestors_in_function(node) {
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
        }
        false
    }

    /// Whether a `from m import *` follows `node` (and may bind its names again).
    pub(crate) fn star_import_after(&self, node: Node) -> bool {
        !self.star_imports.is_empty()
            && self
                .source
                .get(node.end_byte()..)
                .is_some_and(|rest| memchr::memmem::find(rest.as_bytes(), b"import *").is_some())
    }

    /// Top-level statements of the module, in order (kept by the walk, which pushes them
    /// first).
    pub fn top_level_statements(&self) -> &[Node<'a>] {
        &self.top_level
    }
}

/// The nodes above `node`, innermost first, up to (not including) the function, class,
/// lambda or module it is in.
pub(crate) fn ancestors_in_function(node: Node) -> impl Iterator<Item = Node> {
    std::iter::successors(node.parent(), |n| n.parent()).take_while(|p| {
        !matches!(
            p.kind(),
            "function_definition" | "class_definition" | "lambda" | "module"
        )
    })
}

/// Whether `node` is a `for` or `while` loop.
pub(crate) fn is_loop(node: Node) -> bool {
    matches!(node.kind(), "for_statement" | "while_statement")
}

/// Whether a `for` or `while` loop of the same function holds both `node` and `other`.
pub(crate) fn in_loop_around(node: Node, other: Node) -> bool {
    ancestors_in_function(other).any(|p| {
        is_loop(p) && p.start_byte() <= node.start_byte() && node.end_byte() <= p.end_byte()
    })
}

/// Whether the code at `node` leaves its function before it reaches `at`: a block around
/// `node`, not around `at`, ends in `return` or `raise` (`if bucket: sampler = ...; return
/// DataLoader(...)`, then a use of `sampler` after the `if`).
pub(crate) fn exits_before(node: Node, at: Node) -> bool {
    ancestors_in_function(node)
        .take_while(|a| !(a.start_byte() <= at.start_byte() && at.end_byte() <= a.end_byte()))
        // A `try:` body may be left by an exception after the binding, into its handlers.
        .filter(|a| a.kind() == "block" && a.parent().is_none_or(|p| p.kind() != "try_statement"))
        .any(|block| {
            let mut cursor = block.walk();
            block
                .named_children(&mut cursor)
                .filter(|s| s.kind() != "comment")
                .last()
                .is_some_and(|last| {
                    matches!(last.kind(), "return_statement" | "raise_statement")
                        && last.start_byte() >= node.end_byte()
                })
        })
}

/// The statement directly inside a block (or the module) that contains `node` (or is it).
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

/// The positional (non-keyword, non-splat) arguments of a call.
/// The arguments of `call` when every one is positional (no keyword, no `*` or `**`).
pub(crate) fn only_positional(call: Node) -> Option<Vec<Node>> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let all = args
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .count();
    let positional = positional_args(call);
    (positional.len() == all).then_some(positional)
}

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

/// Names Python resolves from `builtins` when nothing in the file binds them.
/// Modules the analysis reads names of, which a star import of a project module (`from utils
/// import *` where `utils.py` does `import argparse`) may hand on under their own names.
const STAR_MODULES: &[&str] = &["argparse", "multiprocessing", "os", "sys", "torch", "yaml"];

/// `a.b.c`: identifiers joined by dots.
pub(crate) fn is_dotted_name(text: &str) -> bool {
    text.split('.').all(|part| {
        !part.is_empty()
            && !part.starts_with(|c: char| c.is_ascii_digit())
            && part.chars().all(|c| c.is_alphanumeric() || c == '_')
    })
}

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
    "vars",
    "zip",
];

#[cfg(test)]
mod tests;
