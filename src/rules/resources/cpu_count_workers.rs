//! DL205 `cpu-count-workers`.

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::python::edit;
use crate::python::loaders::Param;
use crate::python::model::{CallSite, Module};
use crate::python::values::{Provenance, Value};
use crate::rules::resources::{assumed, assumed_zh, imports};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL205,
    name: "cpu-count-workers",
    severity: Severity::Info,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "num_workers from os.cpu_count(), which ignores CPU affinity and container quotas",
    docs: DOCS,
    kb: &["pytorch/worker-count-exceeds-suggested"],
};

const DOCS: &str = r#"## What it does
Checks for a `num_workers` computed from `os.cpu_count()`, `multiprocessing.cpu_count()` or
`psutil.cpu_count()`: directly, through a name, in arithmetic such as
`os.cpu_count() // world_size`, or as a bound such as `min(args.workers, os.cpu_count())`.

## Why is this bad?
Both count every CPU of the machine, not the CPUs this process may use. In a container with a
CPU quota, a Slurm job, or under `taskset`, a 128-core node reports 128 while the job may use
8: the loader starts 128 workers that fight over 8 cores, and PyTorch warns that the count
exceeds its suggestion. `len(os.sched_getaffinity(0))` honours the affinity mask (which is
what PyTorch's own suggestion uses); a cgroup quota is honoured by neither, so `dldoctor env`
shows this machine's usable count.

A count used as it is (`num_workers=os.cpu_count()`) is reported at info; one that is capped or
divided (`min(args.workers, os.cpu_count())`, `os.cpu_count() // world_size`) as a hint, since it
oversubscribes only where a quota is far below the machine's CPU count.

## Example
```python
loader = DataLoader(dataset, num_workers=os.cpu_count())
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=len(os.sched_getaffinity(0)))
```

`os.sched_getaffinity` exists on Linux only; code that also runs on macOS or Windows needs a
fallback to `os.cpu_count()` there.

## Fix safety
The fix replaces the call with `len(os.sched_getaffinity(0))` (adding `import os` if needed).
It is unsafe: it changes the number of workers, and fails on platforms without
`sched_getaffinity`.
"#;

const COUNTS: &[&str] = &[
    "os.cpu_count",
    "multiprocessing.cpu_count",
    "torch.multiprocessing.cpu_count",
    "psutil.cpu_count",
];

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let host = checker.ctx.host;
    for loader in m.loaders() {
        let Some(arg) = loader.argument(Param::NumWorkers) else {
            continue;
        };
        let Value::CpuCount { func, exact } = arg.value.value else {
            continue;
        };
        if !func.ignores_affinity() {
            continue;
        }
        let (usable, usable_zh) = match host.usable_cpus {
            Some(n) => (
                format!(
                    "; this machine lets it use {n}{}",
                    assumed(&host.cpus_source)
                ),
                format!(
                    "；本机允许它使用 {n} 个 CPU{}",
                    assumed_zh(&host.cpus_source)
                ),
            ),
            None => (String::new(), String::new()),
        };
        let message = format!(
            "num_workers from {} counts every CPU of the machine, not the CPUs this process may \
             use (affinity mask, container or Slurm quota){usable}; `len(os.sched_getaffinity(0))` \
             counts those",
            func.call_text()
        );
        let message_zh = format!(
            "num_workers 取自 {}，它统计的是整台机器的全部 CPU，而不是此进程可用的 CPU（受亲和性\
             掩码、容器或 Slurm 配额限制）{usable_zh}；`len(os.sched_getaffinity(0))` 统计的才是\
             可用的 CPU",
            func.call_text()
        );
        let mut d = RULE.diagnostic(arg.anchor, message).zh(message_zh);
        // A count that is capped or divided (`min(args.workers, os.cpu_count())`,
        // `os.cpu_count() // world_size`) oversubscribes only where a quota is far below the
        // machine's CPUs: advice, not a risk this code shows.
        if !exact {
            d = d.with_severity(Severity::Hint);
        }
        let call = count_call(m, arg.value_node).or_else(|| match &arg.value.provenance {
            Provenance::Constant { at, .. } => m
                .bindings()
                .iter()
                .find(|b| b.name_range == *at)
                .and_then(|b| b.value)
                .and_then(|v| count_call(m, v)),
            _ => None,
        });
        if let Some(call) = call {
            if arg.value_node.id() != call.node.id()
                && !arg
                    .value_node
                    .byte_range()
                    .contains(&call.node.start_byte())
            {
                d = d.with_related(
                    Module::range(call.node),
                    "the CPU count is taken here",
                    "CPU 数在此处获取",
                );
            }
            if let Some(mut edits) = imports(m, &["os"]) {
                edits.push(edit::replace(call.node, "len(os.sched_getaffinity(0))"));
                d = d.with_fix(
                    Fix::unsafe_("Use `len(os.sched_getaffinity(0))`", edits)
                        .zh("改用 `len(os.sched_getaffinity(0))`")
                        .preferred(),
                );
            }
        }
        checker.report(d);
    }
}

/// The `os.cpu_count()`-like call inside an expression.
fn count_call<'m, 'a>(m: &'m Module<'a>, expr: Node<'a>) -> Option<&'m CallSite<'a>> {
    let range = expr.byte_range();
    m.calls_to(COUNTS)
        .find(|c| range.start <= c.node.start_byte() && c.node.end_byte() <= range.end)
}
