//! DL206 `python-objects-in-dataset`.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::python::loaders::DatasetClass;
use crate::python::model::{AttributeAssignment, BindingKind, ClassId, Module};
use crate::rules::resources::possible_workers;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL206,
    name: "python-objects-in-dataset",
    severity: Severity::Info,
    default_enabled: true,
    fix: FixAvailability::None,
    summary: "The dataset keeps a large Python list or dict of per-sample objects",
    docs: DOCS,
    kb: &[
        "pytorch/dataloader-worker-killed-oom",
        "pytorch/worker-fork-enomem",
    ],
};

const DOCS: &str = r#"## What it does
Checks the dataset class of a loader with workers for a Python list or dict built in
`__init__` that grows with the dataset and holds Python objects: a comprehension over a
listing or a file read (`os.listdir`, `glob`, `os.walk`, `Path.glob`, `open(...)`,
`readlines()`, `csv.reader`, `pandas.read_csv`), a list or dict filled by `.append` or
`[key] = ...` in a loop over one, the result of `json.load`/`pickle.load`, or `.tolist()` of an
array read from the data.

Lists that do not grow with the data (filled from a config, a parameter, one entry per class
or concept folder, `range(...)`) and lists of arrays or tensors (`np.load`, `torch.from_numpy`)
are not reported: a few objects cost nothing, and an array is one object, not one per element.

## Why is this bad?
Forked workers share the parent's memory pages until a page is written. Reading a Python
object writes its reference count, so every worker that indexes the list gradually copies
the pages of every object it touches ("copy-on-read"). Memory then grows with
workers × dataset size over the epoch, and the kernel's OOM killer ends a worker:

```text
RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.
```

This is pytorch/pytorch#13246, the most commented DataLoader issue. It is not a leak, and
`gc.collect()` does not help.

## Example
```python
class Captions(Dataset):
    def __init__(self, path):
        self.items = [json.loads(line) for line in open(path)]
```

## Use instead
Keep per-sample data in objects without per-element reference counts: a numpy array (of
numbers, or of fixed-width strings), a torch tensor, an Arrow table, or one serialized bytes
buffer with an offsets array.

## Fix safety
There is no automatic fix: the right layout depends on the data.
"#;

/// Calls whose result is a structure of Python objects read from a file.
const LOADERS: &[&str] = &["json.load", "json.loads", "pickle.load", "pickle.loads"];

/// Calls that list or read the data: iterating what they return grows a container with the
/// dataset.
const DATA_SOURCES: &[&str] = &[
    "os.listdir",
    "os.scandir",
    "os.walk",
    "glob.glob",
    "glob.iglob",
    "builtins.open",
    "io.open",
    "json.load",
    "json.loads",
    "pickle.load",
    "pickle.loads",
    "csv.reader",
    "csv.DictReader",
    "pandas.read_csv",
    "pandas.read_json",
    "pandas.read_parquet",
    "pandas.read_table",
];

/// Methods that list or read the data (`Path.glob`, `f.readlines()`, `df.iterrows()`).
const DATA_METHODS: &[&str] = &[
    "glob",
    "rglob",
    "iterdir",
    "readlines",
    "splitlines",
    "iterrows",
    "itertuples",
];

/// Calls whose result is an array or tensor: one object, not one per element.
const ARRAY_PREFIXES: &[&str] = &["numpy.", "torch.", "np."];
const ARRAY_METHODS: &[&str] = &["numpy", "to", "float", "long", "half", "contiguous"];

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let mut seen: HashSet<(ClassId, &str)> = HashSet::new();
    for loader in m.loaders() {
        let Some((workers, n)) = possible_workers(loader) else {
            continue;
        };
        let Some(DatasetClass::Local(class)) = loader.dataset.as_ref().map(|d| d.class.clone())
        else {
            continue;
        };
        let Some(init) = m.method_id(class, "__init__") else {
            continue;
        };
        let class_name = m.class(class).map_or("", |c| c.name);
        for assignment in m.attribute_assignments() {
            if assignment.function != Some(init) || assignment.object != Some("self") {
                continue;
            }
            let Some(kind) = per_sample_container(m, assignment, init) else {
                continue;
            };
            if !seen.insert((class, assignment.attribute)) {
                continue;
            }
            let message = format!(
                "{class_name}.__init__ keeps self.{}, {} with a Python object per sample: each \
                 of the {n} workers touches the objects' reference counts and copies their \
                 memory (copy-on-read), so memory grows with workers × dataset size until the \
                 OOM killer ends a worker; a numpy array, tensor or Arrow table avoids it",
                assignment.attribute,
                kind.en()
            );
            let message_zh = format!(
                "{class_name}.__init__ 在 self.{} 中保存了{}，每个样本一个 Python 对象：{n} 个 \
                 worker 都会改动这些对象的引用计数，从而复制它们所在的内存页（读取也会触发复制），\
                 内存随 worker 数 × 数据集大小增长，直到 OOM killer 杀掉某个 worker；改用 numpy \
                 数组、张量或 Arrow 表可以避免",
                assignment.attribute,
                kind.zh()
            );
            checker.report(
                RULE.diagnostic(Module::range(assignment.target), message)
                    .zh(message_zh)
                    .with_related(
                        workers.anchor,
                        format!("{n} workers start here"),
                        format!("{n} 个 worker 在此处启动"),
                    ),
            );
        }
    }
}

/// What holds one Python object per sample.
#[derive(Clone, Copy)]
enum Container {
    List,
    Dict,
    Loaded,
}

impl Container {
    fn en(self) -> &'static str {
        match self {
            Container::List => "a list",
            Container::Dict => "a dict",
            Container::Loaded => "a structure loaded from a file",
        }
    }

    fn zh(self) -> &'static str {
        match self {
            Container::List => "列表",
            Container::Dict => "字典",
            Container::Loaded => "从文件加载的结构",
        }
    }
}

/// The container when the assignment builds a per-sample one: it grows with the dataset
/// (filled from a listing, a file read or a loop over what they return) and holds Python
/// objects (not arrays or tensors).
fn per_sample_container(
    m: &Module,
    assignment: &AttributeAssignment,
    init: usize,
) -> Option<Container> {
    let value = assignment.value?;
    match value.kind() {
        "list_comprehension" | "dictionary_comprehension" => {
            let grows = comprehension_source(value).is_some_and(|i| reads_data(m, i, 0));
            let element = value.child_by_field_name("body");
            if !grows || element.is_some_and(|e| is_array(m, e)) {
                return None;
            }
            Some(if value.kind() == "list_comprehension" {
                Container::List
            } else {
                Container::Dict
            })
        }
        "list" | "dictionary" if value.named_child_count() == 0 => {
            filled_from_data(m, assignment.attribute, init).then_some(if value.kind() == "list" {
                Container::List
            } else {
                Container::Dict
            })
        }
        "call" => {
            let callee = value.child_by_field_name("function")?;
            let qualified = m.qualified_name(callee);
            let method = (callee.kind() == "attribute")
                .then(|| callee.child_by_field_name("attribute"))
                .flatten()
                .map(|a| m.text(a));
            if qualified.as_deref().is_some_and(|q| LOADERS.contains(&q)) {
                Some(Container::Loaded)
            } else if method == Some("tolist") {
                // An array read from the data, turned into one Python object per element.
                let receiver = callee.child_by_field_name("object")?;
                reads_data(m, receiver, 0).then_some(Container::List)
            } else if matches!(
                qualified.as_deref(),
                Some("builtins.list" | "builtins.dict")
            ) && value
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0)
                && filled_from_data(m, assignment.attribute, init)
            {
                Some(if qualified.as_deref() == Some("builtins.list") {
                    Container::List
                } else {
                    Container::Dict
                })
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The iterable of a comprehension's first `for` clause.
fn comprehension_source(comprehension: Node) -> Option<Node> {
    let mut cursor = comprehension.walk();
    let clause = comprehension
        .named_children(&mut cursor)
        .find(|n| n.kind() == "for_in_clause");
    clause.and_then(|c| c.child_by_field_name("right"))
}

/// Whether evaluating `expr` lists or reads the data: a call to a listing or reading function
/// in it, or a name bound (in the same function) to one, such as the `f` of
/// `with open(path) as f`.
fn reads_data(m: &Module, expr: Node, depth: u8) -> bool {
    if depth > 3 {
        return false;
    }
    let mut found = false;
    let mut names = Vec::new();
    crate::python::syntax::walk_executed(expr, &mut |n| match n.kind() {
        "call" => {
            if let Some(site) = m.call_site(n) {
                found |= site
                    .qualified
                    .as_deref()
                    .is_some_and(|q| DATA_SOURCES.contains(&q))
                    || site.method.is_some_and(|name| DATA_METHODS.contains(&name));
            }
        }
        "identifier" => names.push(n),
        // `self.items` built earlier in the method from the data.
        "attribute" if m.text(n).starts_with("self.") => {
            let attribute = n.child_by_field_name("attribute").map(|a| m.text(a));
            found |= m.attribute_assignments().iter().any(|a| {
                a.object == Some("self")
                    && Some(a.attribute) == attribute
                    && a.function == m.function_at(n)
                    && a.target.end_byte() < n.start_byte()
                    && a.value
                        .is_some_and(|v| v.id() != expr.id() && reads_data(m, v, depth + 1))
            });
        }
        _ => {}
    });
    found
        || names.into_iter().any(|name| {
            let Some(ids) = m.lookup(m.text(name), m.scope_at(name)) else {
                return false;
            };
            ids.iter().filter_map(|id| m.bindings().get(*id)).any(|b| {
                b.node.id() != expr.id()
                    && !b.node.byte_range().contains(&expr.start_byte())
                    && match b.kind {
                        BindingKind::Assign | BindingKind::Walrus => {
                            b.value.is_some_and(|v| reads_data(m, v, depth + 1))
                        }
                        // `with open(path) as f`, `for line in f`.
                        BindingKind::As | BindingKind::Loop => {
                            bound_from(b.node).is_some_and(|v| reads_data(m, v, depth + 1))
                        }
                        _ => false,
                    }
            })
        })
}

/// The expression an `as` or loop binding takes its value from: the `with` item's value, the
/// loop's iterable.
fn bound_from(node: Node) -> Option<Node> {
    match node.kind() {
        "for_statement" | "for_in_clause" => node.child_by_field_name("right"),
        "as_pattern" => node.named_child(0),
        _ => None,
    }
}

/// An array or tensor: `np.array(...)`, `torch.from_numpy(x)`, `x.numpy()`, `t.to(float)`.
fn is_array(m: &Module, expr: Node) -> bool {
    if expr.kind() != "call" {
        return false;
    }
    let Some(site) = m.call_site(expr) else {
        return false;
    };
    site.qualified
        .as_deref()
        .is_some_and(|q| ARRAY_PREFIXES.iter().any(|p| q.starts_with(p)))
        || site
            .method
            .is_some_and(|name| ARRAY_METHODS.contains(&name))
}

/// `self.<attribute>.append(x)` / `.extend(...)` / `self.<attribute>[k] = x` inside a loop of
/// the method `init` over a listing or a file read, with `x` not an array.
fn filled_from_data(m: &Module, attribute: &str, init: usize) -> bool {
    // Some loop around `node` iterates what lists or reads the data.
    let in_data_loop = |node: Node| {
        let mut current = node;
        while let Some(parent) = current.parent() {
            let source = match parent.kind() {
                "for_statement" => parent.child_by_field_name("right"),
                "while_statement" => parent.child_by_field_name("condition"),
                "function_definition" => return false,
                _ => None,
            };
            if source.is_some_and(|s| reads_data(m, s, 0)) {
                return true;
            }
            current = parent;
        }
        false
    };
    let is_self_attr = |node: Option<Node>| {
        node.is_some_and(|n| {
            n.kind() == "attribute"
                && n.child_by_field_name("object").map(|o| m.text(o)) == Some("self")
                && n.child_by_field_name("attribute").map(|a| m.text(a)) == Some(attribute)
        })
    };
    let appended = m.calls().iter().any(|call| {
        call.function == Some(init)
            && matches!(call.method, Some("append" | "extend"))
            && is_self_attr(call.callee.child_by_field_name("object"))
            && !crate::python::model::positional_args(call.node)
                .first()
                .is_some_and(|a| is_array(m, *a))
            && in_data_loop(call.node)
    });
    appended || subscript_stored(m, attribute, init, &in_data_loop)
}

fn subscript_stored(
    m: &Module,
    attribute: &str,
    init: usize,
    in_loop: &dyn Fn(Node) -> bool,
) -> bool {
    let Some(body) = m.function(init).and_then(|f| f.body) else {
        return false;
    };
    let pattern = format!("self.{attribute}[");
    let text = m.text(body);
    if !text.contains(&pattern) {
        return false;
    }
    let mut cursor = body.walk();
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        if node.kind() == "assignment"
            && let Some(left) = node.child_by_field_name("left")
            && left.kind() == "subscript"
            && m.text(left).starts_with(&pattern)
            && !node
                .child_by_field_name("right")
                .is_some_and(|r| is_array(m, r))
            && in_loop(node)
        {
            return true;
        }
        if matches!(node.kind(), "function_definition" | "class_definition")
            && node.id() != body.id()
        {
            continue;
        }
        stack.extend(node.named_children(&mut cursor));
    }
    false
}
