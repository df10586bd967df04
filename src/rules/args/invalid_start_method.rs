//! DL307 `invalid-start-method`.

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::python::edit;
use crate::python::loaders::Param;
use crate::python::values::Value;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL307,
    name: "invalid-start-method",
    severity: Severity::Error,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "multiprocessing_context names no start method",
    docs: DOCS,
    kb: &["pytorch/invalid-mp-context"],
};

const DOCS: &str = r#"## What it does
Checks for `DataLoader(..., multiprocessing_context="...")` (or `get_context("...")`) naming a
start method that does not exist.

## Why is this bad?
The start methods are `fork`, `spawn` and `forkserver` (on Windows only `spawn`). A misspelt
one is refused when the loader is built:

```text
ValueError: multiprocessing_context option should specify a valid start method in ['fork', 'spawn', 'forkserver'], but got multiprocessing_context='sapwn'
```

(`multiprocessing.get_context('sapwn')` raises `ValueError: cannot find context for 'sapwn'`
itself).

## Example
```python
loader = DataLoader(dataset, num_workers=4, multiprocessing_context="Spawn")
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=4, multiprocessing_context="spawn")
```

## Fix safety
The fix replaces the string with the nearest valid name. It is unsafe: it picks a start method,
and the nearest spelling may not be the one meant.
"#;

const METHODS: [&str; 3] = ["fork", "spawn", "forkserver"];

/// Levenshtein distance over lower-cased characters (the names are short).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let next = (prev + cost).min(row[j + 1] + 1).min(row[j] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn nearest(name: &str) -> &'static str {
    METHODS
        .into_iter()
        .min_by_key(|m| distance(name, m))
        .unwrap_or("spawn")
}

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    for loader in m.loaders() {
        // Without workers DataLoader raises DL305's error first.
        if loader.certainly_single_process() {
            continue;
        }
        let Some(context) = loader.argument(Param::MultiprocessingContext) else {
            continue;
        };
        if context.conditional {
            continue;
        }
        let (name, message, message_zh) = match &context.value.value {
            Value::Str(name) if !METHODS.contains(&name.as_str()) => (
                name,
                format!(
                    "multiprocessing_context={name:?} is not a start method: DataLoader raises \
                     \"ValueError: multiprocessing_context option should specify a valid start \
                     method in ['fork', 'spawn', 'forkserver'], but got \
                     multiprocessing_context='{name}'\""
                ),
                format!(
                    "multiprocessing_context={name:?} 不是有效的启动方式：DataLoader 会抛出 \
                     \"ValueError: multiprocessing_context option should specify a valid start \
                     method in ['fork', 'spawn', 'forkserver'], but got \
                     multiprocessing_context='{name}'\""
                ),
            ),
            Value::Context { method: Some(name) } if !METHODS.contains(&name.as_str()) => (
                name,
                format!(
                    "get_context({name:?}) names no start method: it raises \"ValueError: \
                     cannot find context for '{name}'\""
                ),
                format!(
                    "get_context({name:?}) 给出的不是有效的启动方式：它会抛出 \"ValueError: \
                     cannot find context for '{name}'\""
                ),
            ),
            _ => continue,
        };
        let suggestion = nearest(name);
        let mut d = RULE.diagnostic(context.anchor, message).zh(message_zh);
        if let Some(at) = context.value.defined_at() {
            d = d.with_related_in(
                context.value.defined_in(),
                at,
                "the start method is named here",
                "启动方式在此处指定",
            );
        }
        let literal = find_literal(m, context.value_node, name);
        if let Some(literal) = literal {
            d = d.with_fix(
                Fix::unsafe_(
                    format!("Use {suggestion:?}"),
                    vec![edit::replace(literal, format!("{suggestion:?}"))],
                )
                .zh(format!("改用 {suggestion:?}"))
                .preferred(),
            );
        }
        checker.report(d);
    }
}

/// The string literal holding `name` inside the argument (`"sapwn"` or the argument of
/// `get_context("sapwn")`), when it is written in the call.
fn find_literal<'a>(
    m: &crate::python::model::Module<'a>,
    value: tree_sitter::Node<'a>,
    name: &str,
) -> Option<tree_sitter::Node<'a>> {
    match value.kind() {
        "string" => (m.string_value(value).as_deref() == Some(name)).then_some(value),
        "call" => {
            let args = value.child_by_field_name("arguments")?;
            (0..args.named_child_count())
                .filter_map(|i| args.named_child(i as u32))
                .map(|a| a.child_by_field_name("value").unwrap_or(a))
                .find(|a| a.kind() == "string" && m.string_value(*a).as_deref() == Some(name))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_start_method() {
        assert_eq!(distance("sapwn", "spawn"), 2);
        assert_eq!(nearest("sapwn"), "spawn");
        assert_eq!(nearest("Forkserver"), "forkserver");
        assert_eq!(nearest("frok"), "fork");
        assert_eq!(nearest("fork_server"), "forkserver");
    }
}
