//! DL206 `python-objects-in-dataset`.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::python::loaders::DatasetClass;
use crate::python::model::{AttributeAssignment, ClassId, Module};
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
    kb: &["pytorch/dataloader-worker-killed-oom"],
};

const DOCS: &str = r#"## What it does
Checks the dataset class of a loader with workers for a Python list or dict of per-sample
objects built in `__init__`: a comprehension, a list filled by `.append` in a loop, or the
result of `json.load`/`pickle.load`/`.tolist()`.

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

const LOADERS: &[&str] = &[
    "json.load",
    "json.loads",
    "pickle.load",
    "pickle.loads",
    "torch.load",
];

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

/// The container when the assignment builds a per-sample one.
fn per_sample_container(
    m: &Module,
    assignment: &AttributeAssignment,
    init: usize,
) -> Option<Container> {
    let value = assignment.value?;
    match value.kind() {
        "list_comprehension" | "dictionary_comprehension" if small_range(m, value) => None,
        "list_comprehension" => Some(Container::List),
        "dictionary_comprehension" => Some(Container::Dict),
        "list" | "dictionary" if value.named_child_count() == 0 => {
            filled_in_loop(m, assignment.attribute, init).then_some(if value.kind() == "list" {
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
                Some(Container::List)
            } else if matches!(
                qualified.as_deref(),
                Some("builtins.list" | "builtins.dict")
            ) && value
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0)
                && filled_in_loop(m, assignment.attribute, init)
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

/// A comprehension over `range(n)` with a literal `n` below 10,000: a small table, not one
/// object per sample of a dataset.
fn small_range(m: &Module, comprehension: Node) -> bool {
    let mut cursor = comprehension.walk();
    let clause = comprehension
        .named_children(&mut cursor)
        .find(|n| n.kind() == "for_in_clause");
    let Some(iterable) = clause.and_then(|c| c.child_by_field_name("right")) else {
        return false;
    };
    if iterable.kind() != "call"
        || iterable
            .child_by_field_name("function")
            .and_then(|f| m.qualified_name(f))
            .as_deref()
            != Some("builtins.range")
    {
        return false;
    }
    let bounds: Option<Vec<i64>> = crate::python::model::positional_args(iterable)
        .into_iter()
        .map(|a| m.value_of(a).value.as_int())
        .collect();
    bounds.is_some_and(|b| !b.is_empty() && b.iter().all(|n| *n < 10_000))
}

/// `self.<attribute>.append(...)` / `.extend(...)` / `self.<attribute>[k] = v` inside a loop
/// of the method `init`.
fn filled_in_loop(m: &Module, attribute: &str, init: usize) -> bool {
    let in_loop = |node: Node| {
        let mut current = node;
        while let Some(parent) = current.parent() {
            match parent.kind() {
                "for_statement" | "while_statement" => return true,
                "function_definition" => return false,
                _ => current = parent,
            }
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
            && in_loop(call.node)
    });
    appended || subscript_stored(m, attribute, init, &in_loop)
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
