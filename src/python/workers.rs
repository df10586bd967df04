//! Worker-side code: what runs inside a DataLoader worker. The dataset class's `__getitem__`,
//! `__getitems__` and `__iter__` and the same-file functions and methods they call
//! (transitively, bounded), the `collate_fn` and the `worker_init_fn`. The sampler runs in the
//! main process and is not worker-side.
//!
//! A dataset class or function imported from another file of the project is read from the
//! [`ProjectIndex`], which keeps the same facts for every indexed file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use crate::python::analysis::Analysis;
use crate::python::cuda::{self, Cudaness};
use crate::python::index::ProjectIndex;
use crate::python::kinds::{Kind, kind};
use crate::python::labels::{CodeLabel, CodePath, CudaCall};
use crate::python::model::{BindingKind, ClassId};
use crate::python::syntax;
use crate::text::TextRange;

const DATASET_METHODS: &[&str] = &["__getitem__", "__getitems__", "__iter__"];

/// How many bases up a constructor's default is looked for.
const MAX_BASE_DEPTH: usize = 4;

/// How deep calls from worker-side code are followed.
const MAX_CALL_DEPTH: u8 = 4;

/// One fact about worker-side code, located in the file that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `None`: the file being analysed.
    pub file: Option<PathBuf>,
    pub range: TextRange,
    /// The construct, e.g. `.cuda()`.
    pub what: CudaCall,
    /// The worker-side function it runs in, e.g. `GpuDataset.__getitem__`.
    pub within: CodePath,
    pub cudaness: Cudaness,
}

/// What the worker-side code of one callable or class does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Calls that initialise CUDA.
    pub cuda: Vec<Finding>,
    /// Calls into CUDA-capable libraries other than PyTorch (CuPy, DALI, ...).
    pub cuda_libraries: Vec<Finding>,
    /// Values returned to the loader that are CUDA tensors.
    pub returns_cuda: Vec<Finding>,
}

impl Facts {
    fn extend(&mut self, other: Facts) {
        self.cuda.extend(other.cuda);
        self.cuda_libraries.extend(other.cuda_libraries);
        self.returns_cuda.extend(other.returns_cuda);
    }

    /// The same facts, as seen from another file.
    pub fn in_file(mut self, file: &Path) -> Facts {
        for f in self
            .cuda
            .iter_mut()
            .chain(&mut self.cuda_libraries)
            .chain(&mut self.returns_cuda)
        {
            f.file.get_or_insert_with(|| file.to_owned());
        }
        self
    }
}

/// Which part of the loader a piece of worker-side code came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Dataset,
    CollateFn,
    WorkerInitFn,
}

impl Role {
    pub fn argument(self) -> &'static str {
        match self {
            Role::Dataset => "dataset",
            Role::CollateFn => "collate_fn",
            Role::WorkerInitFn => "worker_init_fn",
        }
    }
}

/// The worker-side facts of a DataLoader call, per role.
#[derive(Clone, Debug, Default)]
pub struct WorkerCode {
    pub parts: Vec<(Role, Facts)>,
}

impl WorkerCode {
    pub fn all(&self) -> impl Iterator<Item = &Facts> {
        self.parts.iter().map(|(_, f)| f)
    }

    pub fn cuda(&self) -> impl Iterator<Item = &Finding> {
        self.all().flat_map(|f| f.cuda.iter())
    }

    pub fn cuda_libraries(&self) -> impl Iterator<Item = &Finding> {
        self.all().flat_map(|f| f.cuda_libraries.iter())
    }

    pub fn returns_cuda(&self) -> impl Iterator<Item = &Finding> {
        self.all().flat_map(|f| f.returns_cuda.iter())
    }
}

/// Collects the worker-side code of the DataLoader `call` in the file at `path`.
pub fn worker_code(
    scope: &Analysis,
    dataset: Option<Node>,
    collate_fn: Option<Node>,
    worker_init_fn: Option<Node>,
    path: &Path,
    index: &ProjectIndex,
) -> WorkerCode {
    let mut code = WorkerCode::default();
    if let Some(facts) = dataset.and_then(|d| dataset_facts(scope, d, path, index)) {
        code.parts.push((Role::Dataset, facts));
    }
    for (role, value) in [
        (Role::CollateFn, collate_fn),
        (Role::WorkerInitFn, worker_init_fn),
    ] {
        if let Some(facts) = value.and_then(|v| callable_facts(scope, v, path, index)) {
            code.parts.push((role, facts));
        }
    }
    code
}

/// The class of a dataset expression: a constructor call, a name bound to one, `self.x` set in
/// the class, in this file; or the facts of a class imported from another file.
fn dataset_facts(scope: &Analysis, expr: Node, path: &Path, index: &ProjectIndex) -> Option<Facts> {
    let constructor = constructor_of(scope, expr, 0)?;
    let function = constructor.child_by_field_name("function")?;
    let mut facts = if function.kind() == "identifier"
        && let Some(class) = scope.visible_definition(constructor, scope.text(function))
        && class.kind() == "class_definition"
    {
        Some(traced_class_facts(scope, class, Some(constructor)))
    } else {
        scope
            .qualified_name(function)
            .and_then(|q| index.class_facts(path, &q))
    };
    // Transforms handed to the dataset run in `__getitem__`, inside the worker.
    for keyword in TRANSFORM_KEYWORDS {
        if let Some(value) = scope.keyword_arg(constructor, keyword)
            && let Some(transform) = transform_facts(scope, value, path, index, 0)
        {
            facts.get_or_insert_with(Facts::default).extend(transform);
        }
    }
    facts
}

/// Dataset constructor arguments whose callables run on every sample (torchvision's names).
const TRANSFORM_KEYWORDS: &[&str] = &["transform", "target_transform", "transforms"];

/// The facts of a transform: a `Compose([...])` of transforms, an instance of a class of this
/// file (its `__call__` or `forward`), or a function or lambda.
fn transform_facts(
    scope: &Analysis,
    expr: Node,
    path: &Path,
    index: &ProjectIndex,
    depth: u8,
) -> Option<Facts> {
    if depth > 4 {
        return None;
    }
    match expr.kind() {
        "list" | "tuple" => {
            let mut cursor = expr.walk();
            let items: Vec<Node> = expr.named_children(&mut cursor).collect();
            let mut facts = None;
            for item in items {
                if let Some(f) = transform_facts(scope, item, path, index, depth + 1) {
                    facts.get_or_insert_with(Facts::default).extend(f);
                }
            }
            facts
        }
        "call" => {
            let function = expr.child_by_field_name("function")?;
            if scope
                .qualified_name(function)
                .is_some_and(|q| q.ends_with(".Compose"))
            {
                let transforms = syntax::positional_argument(expr, 0)
                    .or_else(|| scope.keyword_arg(expr, "transforms"))?;
                return transform_facts(scope, transforms, path, index, depth + 1);
            }
            if function.kind() == "identifier"
                && let Some(class) = scope.visible_definition(expr, scope.text(function))
                && class.kind() == "class_definition"
            {
                let class_name = scope.text(function);
                let (_, method, name) = ["__call__", "forward"].iter().find_map(|name| {
                    find_method(scope, class, name, 0).map(|(o, m)| (o, m, *name))
                })?;
                let mut tracer = Tracer::new(scope);
                let label = CodePath::new(CodeLabel::Named(format!("{class_name}.{name}")));
                return Some(tracer.function(method, &label, 0));
            }
            callable_facts(scope, expr, path, index)
        }
        "identifier" => match scope.bound_values(expr).as_slice() {
            [value] if value.kind() == "call" || value.kind() == "list" => {
                transform_facts(scope, *value, path, index, depth + 1)
            }
            _ => callable_facts(scope, expr, path, index),
        },
        _ => callable_facts(scope, expr, path, index),
    }
}

/// The call that built the value of `expr`, followed through names and `self.x`.
pub(crate) fn constructor_of<'t>(
    scope: &Analysis<'t>,
    expr: Node<'t>,
    depth: u8,
) -> Option<Node<'t>> {
    if depth > 4 {
        return None;
    }
    match expr.kind() {
        "call" => Some(expr),
        "identifier" | "attribute" => {
            let values = scope.bound_values(expr);
            // A name bound to different things on different paths is not followed.
            let [value] = values.as_slice() else {
                return None;
            };
            constructor_of(scope, *value, depth + 1)
        }
        _ => None,
    }
}

/// The facts of a `collate_fn`/`worker_init_fn` value: a lambda, a function of this file, a
/// `functools.partial` of one, or a function imported from another file.
fn callable_facts(
    scope: &Analysis,
    expr: Node,
    path: &Path,
    index: &ProjectIndex,
) -> Option<Facts> {
    match expr.kind() {
        "lambda" => {
            let body = expr.child_by_field_name("body")?;
            let mut tracer = Tracer::new(scope);
            Some(tracer.expression(body, &CodePath::new(CodeLabel::Lambda)))
        }
        "identifier" => {
            let name = scope.text(expr);
            if let Some(def) = scope.visible_definition(expr, name)
                && def.kind() == "function_definition"
            {
                let mut tracer = Tracer::new(scope);
                let label = CodePath::new(CodeLabel::Named(name.to_owned()));
                return Some(tracer.function(def, &label, 0));
            }
            if let [value] = scope.bound_values(expr).as_slice() {
                return callable_facts(scope, *value, path, index);
            }
            let qualified = scope.qualified_name(expr)?;
            index.function_facts(path, &qualified)
        }
        "call" => {
            let function = expr.child_by_field_name("function")?;
            // An instance of a class of this file (`collate_fn=Collator(device)`): its
            // `__call__` runs in the worker.
            if function.kind() == "identifier"
                && let Some(class) = scope.visible_definition(expr, scope.text(function))
                && class.kind() == "class_definition"
            {
                return instance_facts(scope, class, expr);
            }
            // `functools.partial(f, ...)`
            let qualified = scope.qualified_name(function)?;
            if qualified != "functools.partial" {
                return None;
            }
            let target = syntax::positional_argument(expr, 0)?;
            callable_facts(scope, target, path, index)
        }
        // `collators["train"]` of a dict display bound once (`collators = {"train": ...}`).
        "subscript" => callable_facts(scope, dict_item(scope, expr)?, path, index),
        _ => None,
    }
}

/// The value at a literal key of a dict display a name is bound to once
/// (`collators["train"]` after `collators = {"train": Collator(...)}`).
fn dict_item<'t>(scope: &Analysis<'t>, subscript: Node<'t>) -> Option<Node<'t>> {
    let object = subscript.child_by_field_name("value")?;
    let key = scope.string_value(subscript.child_by_field_name("subscript")?)?;
    let [dict] = scope.bound_values(object)[..] else {
        return None;
    };
    if dict.kind() != "dictionary" {
        return None;
    }
    let mut cursor = dict.walk();
    let pairs: Vec<Node> = dict.named_children(&mut cursor).collect();
    let mut found = None;
    for pair in pairs {
        if pair.kind() != "pair" {
            // `**other`: any key may come from it.
            if pair.kind() == "dictionary_splat" {
                return None;
            }
            continue;
        }
        if pair
            .child_by_field_name("key")
            .and_then(|k| scope.string_value(k))
            .is_some_and(|k| k == key)
        {
            found = pair.child_by_field_name("value");
        }
    }
    found
}

/// The worker-side facts of an instance of a class of this file used as a callable: its
/// `__call__` and what that calls, with `.to(self.device)` read against the device the
/// construction hands `__init__` (`Collator(device="cuda")`).
fn instance_facts<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    construction: Node<'t>,
) -> Option<Facts> {
    traced_methods(scope, class, &["__call__"], Some(construction))
}

/// The CUDA uses of the functions `tracer` went through that only the construction's
/// arguments show (see [`constructed_device_use`]).
fn constructed_device_uses<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    construction: Node<'t>,
    tracer: &mut Tracer<'_, 't>,
) -> Vec<Finding> {
    let mut found = Vec::new();
    for (def, within) in std::mem::take(&mut tracer.traced) {
        let Some(body) = def.child_by_field_name("body") else {
            continue;
        };
        syntax::walk_executed(body, &mut |call| {
            found.extend(constructed_device_use(
                scope,
                class,
                construction,
                call,
                &within,
            ));
        });
    }
    found
}

/// `x.to(self.device)` (or `device=self.device`) in a method of an instance built by
/// `construction`, where `__init__` sets `self.device` from its parameter: a CUDA use when the
/// construction hands that parameter a CUDA device. `None` for any other call, and for a
/// device the model already reads (found by the trace itself).
fn constructed_device_use<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    construction: Node<'t>,
    call: Node<'t>,
    within: &CodePath,
) -> Option<Finding> {
    if kind(call) != Kind::Call {
        return None;
    }
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "attribute" || scope.text(callee.child_by_field_name("attribute")?) != "to"
    {
        return None;
    }
    let device = scope
        .keyword_arg(call, "device")
        .or_else(|| syntax::positional_argument(call, 0))?;
    if device.kind() != "attribute"
        || device
            .child_by_field_name("object")
            .is_none_or(|o| scope.text(o) != "self")
        || cuda::device_cudaness(scope, device).is_some()
    {
        return None;
    }
    // `self.device = device` kept by the constructor of the class built (its own `__init__`
    // or a base's it hands the parameter to).
    let attribute = scope.text(device.child_by_field_name("attribute")?);
    let class_id = scope.classes().iter().position(|c| c.node == class)?;
    let kept = crate::python::argparse::kept_parameter(scope, class_id, attribute, false)?;
    let given = scope
        .keyword_arg(construction, &kept.keyword)
        .or_else(|| {
            syntax::positional_argument(construction, kept.position)
                .filter(|_| !crate::python::argparse::has_splat(construction))
        })
        .or_else(|| constructor_default(scope, class_id, &kept.keyword))?;
    let cudaness = cuda::device_cudaness(scope, given)?;
    Some(Finding {
        file: None,
        range: syntax::range(call),
        what: CudaCall::Code(format!(".to({})", scope.text(device))),
        within: within.clone(),
        cudaness,
    })
}

/// The default of the parameter `name` of the constructor instances of `class` run (its
/// own `__init__`, or the first of its same-file bases' that defines one).
fn constructor_default<'t>(scope: &Analysis<'t>, class: ClassId, name: &str) -> Option<Node<'t>> {
    let mut class = class;
    for _ in 0..=MAX_BASE_DEPTH {
        if let Some(init) = scope.method_id(class, "__init__") {
            let init = scope.function(init)?;
            let param = scope.single_binding(name, init.scope)?;
            return crate::python::argparse::parameter_default(param.node);
        }
        let base = crate::python::subclass::one_base(scope, class)?;
        let BindingKind::Class(base) = scope
            .single_binding(scope.text(base), scope.class(class)?.parent_scope)?
            .kind
        else {
            return None;
        };
        class = base;
    }
    None
}

/// The worker-side facts of a dataset class of this file: its `__getitem__`, `__getitems__`
/// and `__iter__`, found on the class or its same-file base classes.
pub fn class_facts(scope: &Analysis, class: Node) -> Facts {
    traced_class_facts(scope, class, None)
}

/// [`class_facts`], with `.to(self.device)` read against what `construction`, when known,
/// hands `__init__` (see [`constructed_device_use`]).
fn traced_class_facts<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    construction: Option<Node<'t>>,
) -> Facts {
    traced_methods(scope, class, DATASET_METHODS, construction).unwrap_or_default()
}

/// The facts of the `methods` of `class` (found on it or its same-file bases) and what they
/// call; `None` when it has none of them.
fn traced_methods<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    methods: &[&str],
    construction: Option<Node<'t>>,
) -> Option<Facts> {
    let mut tracer = Tracer::new(scope);
    let mut facts = None;
    let class_name = class
        .child_by_field_name("name")
        .map_or("", |n| scope.text(n));
    for method_name in methods {
        if let Some((owner, method)) = find_method(scope, class, method_name, 0) {
            let owner_name = owner
                .child_by_field_name("name")
                .map_or("", |n| scope.text(n));
            let qualified = format!("{owner_name}.{method_name}");
            let label = CodePath::new(if owner_name == class_name {
                CodeLabel::Named(qualified)
            } else {
                CodeLabel::Inherited {
                    method: qualified,
                    by: class_name.to_owned(),
                }
            });
            facts
                .get_or_insert_with(Facts::default)
                .extend(tracer.function(method, &label, 0));
        }
    }
    if let (Some(facts), Some(construction)) = (facts.as_mut(), construction) {
        facts.cuda.extend(constructed_device_uses(
            scope,
            class,
            construction,
            &mut tracer,
        ));
    }
    facts
}

/// The facts of a module-level function of this file, as the index keeps them.
pub fn function_facts(scope: &Analysis, function: Node) -> Facts {
    let name = function
        .child_by_field_name("name")
        .map_or("", |n| scope.text(n));
    let label = CodePath::new(CodeLabel::Named(name.to_owned()));
    Tracer::new(scope).function(function, &label, 0)
}

fn find_method<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    name: &str,
    depth: u8,
) -> Option<(Node<'t>, Node<'t>)> {
    if let Some(method) = scope.method_in(class, name) {
        return Some((class, method));
    }
    if depth > 3 {
        return None;
    }
    base_method(scope, class, name, depth + 1)
}

/// The method `name` that `super().name` reaches from `class`: the first of its same-file
/// bases to define or inherit it (`depth`: how many bases deep `class` already is).
fn base_method<'t>(
    scope: &Analysis<'t>,
    class: Node<'t>,
    name: &str,
    depth: u8,
) -> Option<(Node<'t>, Node<'t>)> {
    let bases = class.child_by_field_name("superclasses")?;
    let mut cursor = bases.walk();
    let base_names: Vec<Node> = bases
        .named_children(&mut cursor)
        .filter(|b| b.kind() == "identifier")
        .collect();
    base_names.into_iter().find_map(|base| {
        let base_class = scope.top_level_definition(scope.text(base))?;
        (base_class.kind() == "class_definition")
            .then(|| find_method(scope, base_class, name, depth))
            .flatten()
    })
}

/// Follows worker-side code through the calls it makes into the same file.
struct Tracer<'s, 'a> {
    scope: &'s Analysis<'a>,
    visited: HashSet<usize>,
    /// The functions traced, each with the path that reached it.
    traced: Vec<(Node<'a>, CodePath)>,
}

impl<'s, 'a> Tracer<'s, 'a> {
    fn new(scope: &'s Analysis<'a>) -> Self {
        Self {
            scope,
            visited: HashSet::new(),
            traced: Vec::new(),
        }
    }

    /// A lambda's body: everything it evaluates runs in the worker, and its value is returned.
    fn expression(&mut self, body: Node<'a>, label: &CodePath) -> Facts {
        let mut facts = self.calls_in(body, label, 0);
        facts
            .returns_cuda
            .extend(self.returned_cuda(body, label, 0));
        facts
    }

    fn function(&mut self, def: Node<'a>, label: &CodePath, depth: u8) -> Facts {
        if !self.visited.insert(def.start_byte()) {
            return Facts::default();
        }
        self.traced.push((def, label.clone()));
        let Some(body) = def.child_by_field_name("body") else {
            return Facts::default();
        };
        let mut facts = self.calls_in(body, label, depth);
        // Only the entry points' returns reach the loader; a helper's return value is followed
        // from the `return helper(...)` that hands it on.
        if depth == 0 {
            let mut returns = Vec::new();
            syntax::walk_executed(body, &mut |n| {
                if matches!(n.kind(), "return_statement" | "yield")
                    && let Some(value) = n.named_child(0)
                {
                    returns.push(value);
                }
            });
            for value in returns {
                facts
                    .returns_cuda
                    .extend(self.returned_cuda(value, label, 0));
            }
        }
        facts
    }

    /// CUDA calls in `node` and in the same-file functions and methods it calls.
    fn calls_in(&mut self, node: Node<'a>, label: &CodePath, depth: u8) -> Facts {
        let scope = self.scope;
        let mut facts = Facts {
            cuda: finding(cuda::cuda_inits(scope, node), label),
            cuda_libraries: finding(cuda::cuda_library_uses(scope, node), label),
            returns_cuda: Vec::new(),
        };
        if depth >= MAX_CALL_DEPTH {
            return facts;
        }
        let mut callees = Vec::new();
        syntax::walk_executed(node, &mut |n| {
            if kind(n) == Kind::Call
                && let Some(callee) = self.same_file_callee(n)
            {
                callees.push(callee);
            }
        });
        for (def, callee) in callees {
            let callee_label = label.calling(callee);
            let inner = self.function(def, &callee_label, depth + 1);
            facts.cuda.extend(inner.cuda);
            facts.cuda_libraries.extend(inner.cuda_libraries);
        }
        facts
    }

    /// The same-file function (`helper(...)`) or method (`self.helper(...)`) a call runs.
    fn same_file_callee(&self, call: Node<'a>) -> Option<(Node<'a>, CodeLabel)> {
        let scope = self.scope;
        let function = call.child_by_field_name("function")?;
        match function.kind() {
            "identifier" => {
                let name = scope.text(function);
                let def = scope.visible_definition(call, name)?;
                (def.kind() == "function_definition")
                    .then(|| (def, CodeLabel::Named(name.to_owned())))
            }
            "attribute" => {
                let object = function.child_by_field_name("object")?;
                let name = scope.text(function.child_by_field_name("attribute")?);
                let class = syntax::enclosing_class(call)?;
                // `super().__call__(batch)`: the method of a base class of this file.
                let (owner, def) = if kind(object) == Kind::Call
                    && object
                        .child_by_field_name("function")
                        .is_some_and(|f| scope.text(f) == "super")
                {
                    base_method(scope, class, name, 1)?
                } else if scope.text(object) == "self" {
                    find_method(scope, class, name, 0)?
                } else {
                    return None;
                };
                let owner_name = owner
                    .child_by_field_name("name")
                    .map_or("", |n| scope.text(n));
                Some((def, CodeLabel::Named(format!("{owner_name}.{name}"))))
            }
            _ => None,
        }
    }

    /// Whether a returned expression is a CUDA tensor: a CUDA-producing call, a name bound to
    /// one in the function, a container holding one, or a same-file call that returns one.
    fn returned_cuda(&mut self, value: Node<'a>, label: &CodePath, depth: u8) -> Vec<Finding> {
        let scope = self.scope;
        if depth > MAX_CALL_DEPTH {
            return Vec::new();
        }
        match value.kind() {
            "call" => {
                if let Some(use_) = cuda::call_initialises_cuda(scope, value) {
                    return finding(vec![use_], label);
                }
                let Some((def, callee)) = self.same_file_callee(value) else {
                    return Vec::new();
                };
                let Some(body) = def.child_by_field_name("body") else {
                    return Vec::new();
                };
                let mut returns = Vec::new();
                syntax::walk_executed(body, &mut |n| {
                    if n.kind() == "return_statement"
                        && let Some(v) = n.named_child(0)
                    {
                        returns.push(v);
                    }
                });
                let callee_label = label.calling(callee);
                returns
                    .into_iter()
                    .flat_map(|v| self.returned_cuda(v, &callee_label, depth + 1))
                    .collect()
            }
            "identifier" => {
                if syntax::enclosing_function(value).is_none()
                    && value.parent().is_some_and(|p| p.kind() == "lambda")
                {
                    return Vec::new();
                }
                // Only bindings in the same function: a module-level tensor is not the worker's.
                let values = scope.bound_values(value);
                values
                    .into_iter()
                    .filter(|v| syntax::enclosing_function(*v) == syntax::enclosing_function(value))
                    .flat_map(|v| self.returned_cuda(v, label, depth + 1))
                    .collect()
            }
            "tuple"
            | "list"
            | "expression_list"
            | "parenthesized_expression"
            | "dictionary"
            | "pair" => {
                let mut cursor = value.walk();
                let children: Vec<Node> = value.named_children(&mut cursor).collect();
                children
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .map(|c| match c.kind() {
                        "pair" => c.child_by_field_name("value").unwrap_or(c),
                        _ => c,
                    })
                    .flat_map(|c| self.returned_cuda(c, label, depth + 1))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

fn finding(uses: Vec<cuda::CudaUse>, label: &CodePath) -> Vec<Finding> {
    uses.into_iter()
        .map(|u| Finding {
            file: None,
            range: u.range,
            what: u.what,
            within: label.clone(),
            cudaness: u.cudaness,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::python::loaders::Param;

    fn facts_of(source: &str) -> WorkerCode {
        let source = format!("from torch.utils.data import DataLoader\n{source}");
        crate::python::analysis::with_analysis(&source, |scope| {
            let loader = scope.m.loaders().first().expect("a DataLoader call");
            let argument = |param| loader.argument(param).map(|a| a.value_node);
            worker_code(
                scope,
                argument(Param::Dataset),
                argument(Param::CollateFn),
                argument(Param::WorkerInitFn),
                Path::new("t.py"),
                &ProjectIndex::default(),
            )
        })
    }

    #[test]
    fn dataset_method_and_transitive_helpers() {
        let code = facts_of(
            "import torch\nGPU = 'cuda:0'\ndef load(p):\n    return torch.zeros(1, device=GPU)\n\
             class Base:\n    def __getitem__(self, i):\n        return self._read(i)\n    def _read(self, i):\n        return load(i)\n\
             class Files(Base):\n    pass\n\
             ds = Files()\nDataLoader(ds, num_workers=2)\n",
        );
        let cuda: Vec<_> = code
            .cuda()
            .map(|f| (f.what.render(Lang::En), f.within.render(Lang::En)))
            .collect();
        assert_eq!(
            cuda,
            [(
                "`zeros(..., device=GPU)`".to_owned(),
                "`load`, called from `Base._read`, called from `Base.__getitem__` (inherited by \
                 `Files`)"
                    .to_owned()
            )]
        );
        assert_eq!(code.returns_cuda().count(), 1);
    }

    #[test]
    fn lambda_collate_and_cpu_dataset() {
        let code = facts_of(
            "import torch\nclass Cpu:\n    def __getitem__(self, i):\n        return torch.zeros(1)\n\
             DataLoader(Cpu(), collate_fn=lambda b: torch.stack(b).cuda())\n",
        );
        assert_eq!(code.cuda().count(), 1);
        assert_eq!(code.parts.len(), 2);
        assert_eq!(code.returns_cuda().count(), 1);
    }

    #[test]
    fn returns_through_names_and_tuples() {
        let code = facts_of(
            "import torch\nclass D:\n    def __getitem__(self, i):\n        x = torch.randn(2)\n        y = x.cuda()\n        return x, {'y': y}\n\
             DataLoader(D())\n",
        );
        assert_eq!(code.returns_cuda().count(), 1);
    }

    /// A callable instance as `collate_fn`: its `__call__` (and `super().__call__`) with
    /// `.to(self.device)` read against what the construction hands `__init__`, through a
    /// subclass's `super().__init__` and a dict of collators.
    #[test]
    fn collator_instances_with_the_device_their_construction_gives() {
        let classes = "import torch\n\
             class Collator:\n    def __init__(self, field, device='cpu'):\n        self.device = device\n    \
             def __call__(self, batch):\n        return torch.stack(batch).to(self.device)\n\
             class Paired(Collator):\n    def __init__(self, field, device='cpu', max_len=5):\n        \
             super().__init__(field, device)\n        self.max_len = max_len\n    \
             def __call__(self, batch):\n        return super().__call__(batch)\n";
        let cuda = |build: &str| {
            facts_of(&format!("{classes}{build}"))
                .cuda()
                .map(|f| (f.what.render(Lang::En), f.within.render(Lang::En)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            cuda("DataLoader([1], num_workers=2, collate_fn=Collator(None, 'cuda:0'))\n"),
            [(
                "`.to(self.device)`".to_owned(),
                "`Collator.__call__`".to_owned()
            )]
        );
        assert_eq!(
            cuda(
                "c = {'train': Paired(None, device=torch.device('cuda'))}\n\
                  DataLoader([1], num_workers=2, collate_fn=c['train'])\n"
            )
            .len(),
            1
        );
        assert!(cuda("DataLoader([1], num_workers=2, collate_fn=Collator(None))\n").is_empty());
        assert!(
            cuda("DataLoader([1], num_workers=2, collate_fn=Paired(None, device='cpu'))\n")
                .is_empty()
        );
        // A key the dict does not hold, or a dict that may hold any key.
        assert!(
            cuda(
                "c = {'train': Collator(None, 'cuda'), **extra}\n\
                  DataLoader([1], num_workers=2, collate_fn=c['train'])\n"
            )
            .is_empty()
        );
    }

    /// A dataset whose `__getitem__` moves samples to the device its construction gives.
    #[test]
    fn dataset_device_from_its_construction() {
        let cuda = |device: &str| {
            facts_of(&format!(
                "import torch\nclass Images:\n    def __init__(self, device):\n        \
                 self.device = device\n    def __getitem__(self, i):\n        \
                 return torch.zeros(3).to(self.device)\n\
                 DataLoader(Images({device}), num_workers=2)\n"
            ))
            .cuda()
            .count()
        };
        assert_eq!(cuda("torch.device('cuda')"), 1);
        assert_eq!(cuda("'cpu'"), 0);
    }

    #[test]
    fn cuda_checks_only_do_not_count() {
        let code = facts_of(
            "import torch\nclass D:\n    def __getitem__(self, i):\n        return torch.tensor([torch.cuda.is_available()])\nDataLoader(D(), num_workers=2)\n",
        );
        assert_eq!(code.cuda().count(), 0);
    }
}
