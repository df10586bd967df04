//! DL202 `pin-memory-without-shm-check`.

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::python::edit;
use crate::python::loaders::{Loader, Param, Passing};
use crate::python::model::Module;
use crate::rules::resources::{GIB, atom_text, imports, possible_workers, shm_text, shm_text_zh};
use crate::rules::{Checker, Code, FixAvailability, Rule, zh};

pub const RULE: Rule = Rule {
    code: Code::DL202,
    name: "pin-memory-without-shm-check",
    severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "pin_memory=True with workers and no check of /dev/shm",
    docs: DOCS,
    kb: &[
        "pytorch/dataloader-worker-bus-error-shm",
        "pytorch/dataloader-shm-exhausted",
    ],
};

const DOCS: &str = r#"## What it does
Checks for a DataLoader with `pin_memory=True` and workers (`num_workers > 0`) in a file that
never looks at `/dev/shm` (`shutil.disk_usage`, `os.statvfs` or `psutil.disk_usage` on it).

It is a warning when this machine's `/dev/shm` is under 2 GiB or cannot be read, and
information otherwise; the message says which.

## Why is this bad?
This is the configuration of most training scripts, and it is fast where shared memory is
plentiful. Where it is not (Docker's default is 64 MiB), every batch the workers hand over
goes through `/dev/shm`, and the pinned copies add to the memory the run holds; the failure
arrives minutes into training as a worker killed by a bus error:

```text
RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
```

A script that checks `/dev/shm` before it builds its loaders can fall back to fewer workers
instead of dying, and says why.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)
```

## Use instead
```python
shm_ok = not os.path.isdir("/dev/shm") or shutil.disk_usage("/dev/shm").free >= 2 * 1024**3
loader = DataLoader(
    dataset, batch_size=64, num_workers=8 if shm_ok else 0, pin_memory=shm_ok
)
```

## Fix safety
Both fixes are unsafe. Inserting the check changes the number of workers where shared memory
is short; `pin_memory=False` changes the speed of host-to-GPU copies.
"#;

/// Functions that measure a file system; called on /dev/shm they are the check.
const SHM_CHECKS: &[&str] = &["shutil.disk_usage", "os.statvfs", "psutil.disk_usage"];

fn module_checks_shm(m: &Module) -> bool {
    m.calls_to(SHM_CHECKS).any(|call| {
        crate::python::model::positional_args(call.node)
            .first()
            .is_some_and(|arg| {
                m.value_of(*arg)
                    .value
                    .as_str()
                    .is_some_and(|p| p.starts_with("/dev/shm"))
                    // A path built elsewhere: the file mentions /dev/shm, so trust it.
                    || m.source.contains("/dev/shm")
            })
    })
}

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let host = checker.ctx.host;
    let mut checked: Option<bool> = None;
    for loader in m.loaders() {
        let Some(pin) = loader.argument(Param::PinMemory) else {
            continue;
        };
        if pin.value.value.truthy() != Some(true) {
            continue;
        }
        let Some((workers, _)) = possible_workers(loader) else {
            continue;
        };
        if *checked.get_or_insert_with(|| module_checks_shm(m)) {
            return;
        }
        let (severity, machine, machine_zh) = match (&host.shm, shm_text(host), shm_text_zh(host)) {
            (Some(shm), Some(facts), Some(facts_zh)) if shm.total_bytes < 2 * GIB => (
                Severity::Warning,
                format!("this machine's {facts}, under 2 GiB"),
                format!("本机 {facts_zh}，不足 2 GiB"),
            ),
            (Some(_), Some(facts), Some(facts_zh)) => (
                Severity::Info,
                format!(
                    "this machine's {facts}, enough here, but a container gets 64 MiB unless \
                     given more"
                ),
                format!("本机 {facts_zh}，在这里够用，但容器默认只有 64 MiB，除非另行调大"),
            ),
            _ => (
                Severity::Warning,
                "the size of /dev/shm is unknown on this machine".to_owned(),
                "本机 /dev/shm 的大小未知".to_owned(),
            ),
        };
        let pin_text = loader
            .describe(Param::PinMemory)
            .unwrap_or_else(|| "pin_memory=True".to_owned());
        let pin_text_zh =
            zh::describe(loader, Param::PinMemory).unwrap_or_else(|| "pin_memory=True".to_owned());
        let workers_text = loader
            .describe(Param::NumWorkers)
            .unwrap_or_else(|| "workers".to_owned());
        let workers_text_zh =
            zh::describe(loader, Param::NumWorkers).unwrap_or_else(|| "worker".to_owned());
        let message = format!(
            "{pin_text} with {workers_text} and no check of /dev/shm in this file: workers pass \
             every batch through /dev/shm and die with a bus error when it fills; {machine}"
        );
        let message_zh = format!(
            "{pin_text_zh} 与 {workers_text_zh} 同时使用，而此文件中没有检查 /dev/shm：worker 通过 \
             /dev/shm 传回每个批次，/dev/shm 写满时会因 bus error 崩溃；{machine_zh}"
        );
        let mut d = RULE
            .diagnostic(pin.anchor, message)
            .zh(message_zh)
            .with_severity(severity);
        if workers.anchor != pin.anchor {
            d = d.with_related(
                workers.anchor,
                "the workers that pass batches through /dev/shm",
                "通过 /dev/shm 传回批次的 worker",
            );
        }
        if let Some(fix) = shm_check_fix(m, loader) {
            d = d.with_fix(fix.preferred());
        }
        if pin.is_keyword() {
            d = d.with_fix(
                Fix::unsafe_(
                    "Set `pin_memory=False`",
                    vec![edit::replace(pin.value_node, "False")],
                )
                .zh("改为 `pin_memory=False`"),
            );
        }
        checker.report(d);
    }
}

/// Inserts `shm_ok = ...` before the loader's statement and makes the worker count and
/// `pin_memory` depend on it. Only where both arguments are written in the call and the
/// statement starts its own line.
fn shm_check_fix(m: &Module, loader: &Loader) -> Option<Fix> {
    const NAME: &str = "shm_ok";
    let pin = loader.argument(Param::PinMemory)?;
    let workers = loader.argument(Param::NumWorkers)?;
    let in_call = |passing| matches!(passing, Passing::Keyword | Passing::Positional(_));
    if !in_call(pin.passing) || !in_call(workers.passing) {
        return None;
    }
    if m.lookup(NAME, loader.scope).is_some() {
        return None;
    }
    let stmt = loader.statement;
    let line_start = m
        .source
        .get(..stmt.start_byte())?
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent = m.source.get(line_start..stmt.start_byte())?;
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let newline = edit::newline_of(m.source);
    let mut edits = imports(m, &["os", "shutil"])?;
    edits.push(Edit::insert(
        line_start,
        format!(
            "{indent}# Workers pass batches through /dev/shm; a container gets 64 MiB unless \
             given more.{newline}{indent}{NAME} = not os.path.isdir(\"/dev/shm\") or \
             shutil.disk_usage(\"/dev/shm\").free >= 2 * 1024**3{newline}"
        ),
    ));
    edits.push(edit::replace(
        workers.value_node,
        format!("{} if {NAME} else 0", atom_text(m, workers.value_node)),
    ));
    edits.push(edit::replace(pin.value_node, NAME));
    Some(
        Fix::unsafe_(
            "Check /dev/shm first and fall back to no workers when it is short",
            edits,
        )
        .zh("先检查 /dev/shm，空间不足时退回到不使用 worker"),
    )
}
