//! The value evaluator: what an expression statically evaluates to, over the model's
//! bindings (and, for attributes, [`super::AttributeValues`]), or unknown.

use tree_sitter::Node;

use super::{
    Binding, BindingKind, MAX_DEPTH, MODULE_SCOPE, Module, ScopeId, ancestors_in_function,
    exits_before, in_loop_around, is_loop, literal_items, positional_args,
};
use crate::python::values::{CpuCountFn, Provenance, Resolved, Value, parse_float, parse_int};
use crate::python::{argparse, conditions, configs, defaults, distributed};

/// A name bound more often than this is not sorted out by branch.
const MAX_BRANCH_BINDINGS: usize = 4;

impl<'a> Module<'a> {
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
            // `[]`, `()`, `{}`: empty, so false in a condition.
            "list" | "tuple" | "dictionary" | "set" if expr.named_child_count() == 0 => {
                literal(Value::Empty(match expr.kind() {
                    "list" => "[]",
                    "tuple" => "()",
                    _ => "{}",
                }))
            }
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
                let attribute = self.text(attribute);
                self.attributes
                    .attribute_value(self, object, attribute, scope, depth)
                    .or_else(|| {
                        defaults::self_attribute_value(self, object, attribute, scope, depth)
                    })
                    .or_else(|| self.assigned_before(expr, object, attribute, scope, depth))
                    .or_else(|| configs::attribute_value(self, object, attribute, scope, depth))
                    .or_else(|| configs::flag_value(self, object, attribute, scope, depth))
                    .or_else(|| self.module_constant(expr, object, scope, depth))
                    .unwrap_or_else(Resolved::unknown)
            }
            "subscript" => {
                let (Some(object), Some(key)) = (
                    expr.child_by_field_name("value"),
                    expr.child_by_field_name("subscript"),
                ) else {
                    return Resolved::unknown();
                };
                let Some(key) = self.string_value(key) else {
                    return Resolved::unknown();
                };
                // `self.hparams["num_workers"]`, `cfg["num_workers"]`
                let hparams = object
                    .child_by_field_name("object")
                    .filter(|_| {
                        object.kind() == "attribute"
                            && object
                                .child_by_field_name("attribute")
                                .is_some_and(|a| self.text(a) == "hparams")
                    })
                    .and_then(|inner| defaults::hparams_value(self, inner, &key, scope, depth));
                // `cfg["num_workers"]` after `cfg = vars(args)`: the namespace's attribute.
                // Only in a file that takes a namespace's dict: following every dict read
                // back to a namespace costs a search of callers in other files.
                let namespace = || {
                    (matches!(object.kind(), "identifier" | "attribute")
                        && (memchr::memmem::find(self.source.as_bytes(), b"vars(").is_some()
                            || self.is_splat_parameter(object, scope)))
                    .then(|| {
                        self.attributes
                            .attribute_value(self, object, &key, scope, depth)
                    })
                    .flatten()
                };
                hparams
                    .or_else(namespace)
                    .or_else(|| configs::attribute_value(self, object, &key, scope, depth))
                    .or_else(|| configs::handed_key(self, object, &key, scope, depth))
                    .unwrap_or_else(Resolved::unknown)
            }
            "conditional_expression"
            | "comparison_operator"
            | "not_operator"
            | "boolean_operator" => conditions::value(self, expr, scope, depth),
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
                // Calling a class makes an instance; by convention classes are CapWords, and a
                // class of the project is one whatever its name (`randomSequentialSampler`).
                last.is_some_and(|n| self.text(n).starts_with(|c: char| c.is_ascii_uppercase()))
                    || self.names_a_class(callee, scope, depth)
            }
            "identifier" => match self.binding_read(self.text(expr), scope, expr, depth) {
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

    /// Whether `callee` names a class of this file or of another file of the project.
    fn names_a_class(&self, callee: Node, scope: ScopeId, depth: u32) -> bool {
        if callee.kind() == "identifier"
            && let Some(binding) = self.binding_read(self.text(callee), scope, callee, depth)
            && matches!(binding.kind, BindingKind::Class(_))
        {
            return true;
        }
        self.qualified_in(callee, scope, depth + 1)
            .is_some_and(|q| self.index.class_shape(self.path, &q).is_some())
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
        let r = self.value_in(right, scope, depth + 1).value;
        let op = self.text(op);
        // A whole number shared among a count of processes: the node runs about all of it.
        if matches!(op, "/" | "//")
            && !r.is_known()
            && let Some(shared) = distributed::shared_count(self, left, right, scope, depth + 1)
        {
            let whole = self.value_in(shared, scope, depth + 1).value;
            if let Value::Int(_) = whole {
                return Resolved {
                    value: whole,
                    provenance: Provenance::Computed,
                };
            }
        }
        let l = self.value_in(left, scope, depth + 1).value;
        let value = match (&l, &r) {
            (Value::Int(a), Value::Int(b)) => match op {
                "+" => a.checked_add(*b),
                "-" => a.checked_sub(*b),
                "*" => a.checked_mul(*b),
                "//" if *b != 0 => Some(a.div_euclid(*b)),
                _ => None,
            }
            .map(Value::Int)
            .or_else(|| (op == "/" && *b != 0).then(|| Value::Float(*a as f64 / *b as f64))),
            // `int(1.5 * args.batch_size)`: floats as Python computes them.
            (Value::Float(_), Value::Int(_) | Value::Float(_))
            | (Value::Int(_), Value::Float(_)) => {
                let (Some(a), Some(b)) = (l.as_f64(), r.as_f64()) else {
                    return Resolved::unknown();
                };
                match op {
                    "+" => Some(a + b),
                    "-" => Some(a - b),
                    "*" => Some(a * b),
                    "/" if b != 0.0 => Some(a / b),
                    _ => None,
                }
                .filter(|x| x.is_finite())
                .map(Value::Float)
            }
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

    /// The binding of `name` that the read `at` sees: the only one, or the only one left
    /// once those in branches the defaults never take are set aside (`if not args.random:
    /// sampler = Seq(ds) else: sampler = None`).
    pub(crate) fn binding_read(
        &self,
        name: &str,
        scope: ScopeId,
        at: Node,
        depth: u32,
    ) -> Option<&Binding<'a>> {
        let ids = self.lookup(name, scope)?;
        if let [id] = ids {
            return self.bindings.get(*id);
        }
        if let Some(id) = self.reaching_binding(ids, at, scope) {
            return self.bindings.get(id);
        }
        if ids.len() > MAX_BRANCH_BINDINGS {
            return None;
        }
        let mut left: Vec<(&Binding<'a>, Option<bool>)> = Vec::new();
        for id in ids {
            let binding = self.bindings.get(*id)?;
            // A binding in a branch that returns before the use never reaches it.
            if exits_before(binding.node, at) {
                continue;
            }
            let runs = argparse::branch_runs(self, binding.node, Some(at), depth + 1);
            if runs != Some(false) {
                left.push((binding, runs));
            }
        }
        match left.as_slice() {
            [] => None,
            [(one, _)] => Some(*one),
            // `def setup(num_workers=None): if num_workers is None: num_workers = 12`: the
            // last binding before the use, in straight-line code of the use's scope, runs
            // whenever the use does, so the others never reach it.
            [.., (last, Some(true))]
                if left.iter().all(|(b, _)| {
                    b.scope == scope
                        && (b.kind == BindingKind::Parameter || self.scope_at(b.node) == scope)
                        && (b.kind == BindingKind::Parameter
                            || self.statement_of(b.node).end_byte() <= at.start_byte())
                        && b.node.start_byte() <= last.node.start_byte()
                }) && !left.iter().any(|(b, _)| in_loop_around(b.node, at)) =>
            {
                Some(*last)
            }
            _ => None,
        }
    }

    /// The one binding that reaches a use in straight-line code of the same function:
    /// `args = get_args_parser(); args = args.parse_args()` reads the parser in the second line
    /// and the namespace after it. `None` (all bindings count) when a binding in a branch, a later
    /// one inside a loop around the use, or another scope may reach it (a `global` bound by
    /// another function).
    pub(crate) fn reaching_binding(
        &self,
        ids: &[usize],
        used: Node,
        scope: ScopeId,
    ) -> Option<usize> {
        let bindings: Vec<(usize, &Binding)> = ids
            .iter()
            .filter_map(|id| self.bindings().get(*id).map(|b| (*id, b)))
            .collect();
        // A name the function declares `global` is bound in the module by statements of the
        // function: those are straight-line code of it too. Bound by another function's
        // statements (`global` there), it may change at any time.
        let straight = |b: &Binding| {
            let of_scope = b.scope == scope || self.scope_at(b.node) == scope;
            let written_here =
                matches!(b.kind, BindingKind::Parameter) || self.scope_at(b.node) == scope;
            of_scope && written_here
        };
        if bindings.len() < 2 {
            return None;
        }
        if let Some(id) = self.last_module_binding(&bindings, used, scope) {
            return Some(id);
        }
        if bindings.iter().any(|(_, b)| !straight(b)) {
            return None;
        }
        // A parameter is bound before the body runs.
        let is_parameter = |b: &Binding| matches!(b.kind, BindingKind::Parameter);
        let before = |b: &Binding| {
            is_parameter(b) || self.statement_of(b.node).end_byte() <= used.start_byte()
        };
        let in_loop = ancestors_in_function(used).any(is_loop);
        if in_loop && bindings.iter().any(|(_, b)| !before(b)) {
            return None;
        }
        let (id, last) = bindings
            .iter()
            .filter(|(_, b)| before(b))
            .max_by_key(|(_, b)| b.node.start_byte())?;
        let unconditional = is_parameter(last) || !self.is_conditional_relative_to(last.node, used);
        unconditional.then_some(*id)
    }

    /// The binding a read inside a function sees of a name the module binds several times at
    /// its top level (`config_parser = parser = ArgumentParser(...)`, then `parser =
    /// ArgumentParser(...)`): the last, when every binding is an unconditional top-level
    /// statement and the function is defined after all of them, so no call of it can run
    /// before the last.
    fn last_module_binding(
        &self,
        bindings: &[(usize, &Binding)],
        used: Node,
        scope: ScopeId,
    ) -> Option<usize> {
        if scope == MODULE_SCOPE {
            return None;
        }
        // The top-level statement holding the read.
        let mut definition = used;
        while let Some(parent) = definition.parent() {
            if parent.kind() == "module" {
                break;
            }
            definition = parent;
        }
        if !matches!(
            definition.kind(),
            "function_definition" | "decorated_definition"
        ) {
            return None;
        }
        let mut last: Option<(usize, usize)> = None;
        for (id, b) in bindings {
            let statement = self.statement_of(b.node);
            let unconditional = b.scope == MODULE_SCOPE
                && matches!(b.kind, BindingKind::Assign)
                && statement.parent().is_some_and(|p| p.kind() == "module");
            if !unconditional {
                return None;
            }
            if last.is_none_or(|(_, end)| statement.end_byte() > end) {
                last = Some((*id, statement.end_byte()));
            }
        }
        let (id, end) = last?;
        (definition.start_byte() >= end).then_some(id)
    }

    fn name_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let name = self.text(expr);
        let Some(binding) = self.binding_read(name, scope, expr, depth) else {
            // `from settings import *`: a constant of that module of the project.
            return self
                .qualified_in(expr, scope, depth + 1)
                .filter(|_| self.lookup(name, scope).is_none())
                .and_then(|q| configs::imported_constant(self, &q))
                .unwrap_or_else(Resolved::unknown);
        };
        if let BindingKind::Import { qualified } = &binding.kind {
            return configs::imported_constant(self, qualified).unwrap_or_else(Resolved::unknown);
        }
        if binding.kind == BindingKind::Parameter {
            return defaults::parameter_value(self, binding, depth)
                .or_else(|| configs::parameter_value(self, binding, depth))
                .unwrap_or_else(Resolved::unknown);
        }
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

    /// Whether `object` names the `**kwargs` parameter of its function: a mapping of the
    /// keywords its callers pass, read by key as a namespace when a call unpacks one whole.
    fn is_splat_parameter(&self, object: Node, scope: ScopeId) -> bool {
        if object.kind() != "identifier" {
            return false;
        }
        self.single_binding(self.text(object), scope)
            .is_some_and(|b| {
                let pattern = match b.node.kind() {
                    "typed_parameter" => b.node.named_child(0),
                    _ => Some(b.node),
                };
                b.kind == BindingKind::Parameter
                    && pattern.is_some_and(|p| p.kind() == "dictionary_splat_pattern")
            })
    }

    /// `settings.NUM_WORKERS` after `import settings` (or `import cfg.settings as settings`):
    /// a constant of that module of the project ([`configs::imported_constant`]).
    fn module_constant(
        &self,
        expr: Node,
        object: Node,
        scope: ScopeId,
        depth: u32,
    ) -> Option<Resolved> {
        if !self.names_an_import(object, scope) {
            return None;
        }
        configs::imported_constant(self, &self.qualified_in(expr, scope, depth + 1)?)
    }

    fn call_value(&self, expr: Node, scope: ScopeId, depth: u32) -> Resolved {
        let Some(callee) = expr.child_by_field_name("function") else {
            return Resolved::unknown();
        };
        // `config.get("num_workers", 8)` of a YAML config.
        if callee.kind() == "attribute"
            && callee
                .child_by_field_name("attribute")
                .is_some_and(|a| self.text(a) == "get")
            && let Some(object) = callee.child_by_field_name("object")
            && let [key, rest @ ..] = positional_args(expr).as_slice()
            && rest.len() <= 1
            && expr.child_by_field_name("arguments").is_some_and(|a| {
                let mut cursor = a.walk();
                a.named_children(&mut cursor).all(|n| {
                    !matches!(
                        n.kind(),
                        "keyword_argument" | "list_splat" | "dictionary_splat"
                    )
                })
            })
            && let Some(key) = self.string_value(*key)
            && let Some(found) =
                configs::get_value(self, object, &key, rest.first().copied(), scope, depth)
        {
            return found;
        }
        let computed = |value| Resolved {
            value,
            provenance: Provenance::Computed,
        };
        // A world-size helper of this file has no qualified name; one imported from another
        // file is asked of the index only when no known callee matches (below).
        let world_size = |qualified: Option<&str>| {
            if distributed::names_world_size_helper(self, callee, scope, qualified) {
                computed(Value::Int(1))
            } else {
                Resolved::unknown()
            }
        };
        let Some(qualified) = self.qualified_in(callee, scope, depth + 1) else {
            return world_size(None);
        };
        let args = positional_args(expr);
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
            // A run without options: `sys.argv` is the script's name alone.
            "builtins.len"
                if matches!(args.as_slice(), [inner]
                    if self.qualified_in(*inner, scope, depth + 1).as_deref() == Some("sys.argv")) =>
            {
                computed(Value::Int(1))
            }
            "sys.argv.__len__" if args.is_empty() => computed(Value::Int(1)),
            // Nor does it set a variable of its own: `os.environ.get("SMOKE_TEST", 0)` gives
            // its default, unless a launcher, a scheduler or the system sets the variable.
            "os.environ.get" | "os.getenv" => match args.as_slice() {
                [name, default] if self.string_value(*name).is_some_and(|n| !set_for_runs(&n)) => {
                    self.value_in(*default, scope, depth + 1)
                }
                [name] if self.string_value(*name).is_some_and(|n| !set_for_runs(&n)) => {
                    computed(Value::None)
                }
                _ => Resolved::unknown(),
            },
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
            "builtins.bool" => match args.as_slice() {
                [] => computed(Value::Bool(false)),
                [inner] => match self.value_in(*inner, scope, depth + 1).value.truthy() {
                    Some(truth) => computed(Value::Bool(truth)),
                    None => Resolved::unknown(),
                },
                _ => Resolved::unknown(),
            },
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
            _ => world_size(Some(&qualified)),
        }
    }
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

/// Whether the environment variable `name` is one a launcher (`torchrun`, `mpirun`), a
/// scheduler (Slurm), a container or the system sets for the processes it starts: a run of the
/// script may well have it.
fn set_for_runs(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "WORLD_SIZE",
        "LOCAL_WORLD_SIZE",
        "RANK",
        "LOCAL_RANK",
        "GROUP_RANK",
        "NODE_RANK",
        "MASTER_ADDR",
        "MASTER_PORT",
        "CUDA_VISIBLE_DEVICES",
        "OMP_NUM_THREADS",
        "HOME",
        "USER",
        "PATH",
        "TMPDIR",
        "HOSTNAME",
        "PWD",
        "SHELL",
        "LANG",
    ];
    const PREFIXES: &[&str] = &[
        "SLURM_",
        "OMPI_",
        "PMI_",
        "PMIX_",
        "TORCHELASTIC_",
        "KUBERNETES_",
        "MV2_",
        "NCCL_",
        "CUDA_",
        "PBS_",
        "LSB_",
        "SGE_",
        "JOB_",
        "XDG_",
        "LC_",
        "CONDA_",
        "VIRTUAL_ENV",
    ];
    NAMES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}
