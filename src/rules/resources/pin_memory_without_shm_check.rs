//! DL202 `pin-memory-without-shm-check`.

use tree_sitter::Node;

use crate::diagnostic::Severity;
use crate::fix::{Edit, Fix};
use crate::lang::Lang;
use crate::python::batch_samplers;
use crate::python::edit;
use crate::python::loaders::{ArgState, Loader, Param, Passing};
use crate::python::model::Module;
use crate::python::values::Value;
use crate::rules::resources::{
    GIB, atom_text, human_size, imports, never_iterated, possible_workers, shm_text, shm_text_zh,
};
use crate::rules::{Checker, Code, FixAvailability, Rule};

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

It weighs the evidence of this machine (or of `--assume-shm`): a warning when `/dev/shm` has
under 2 GiB, or when the estimated demand does not fit in its free space; a hint when the
estimate fits, when there is no estimate and `/dev/shm` has 2 GiB or more (the message says
so, not that it fits), or when the size of `/dev/shm` is unknown (macOS, Windows). The demand is
workers × prefetch_factor × batch_size × the sample size, estimated where every factor
resolves: the sample size from the dataset's torchvision transforms (a final
`RandomResizedCrop`/`CenterCrop`/`RandomCrop`/`Resize((h, w))` and `ToTensor()`, three
channels, also through a list of transforms bound in each branch of a condition to the same
size, and times the views of a wrapper whose `__call__` returns several calls of one base
transform, as MoCo's `TwoCropsTransform` does); with a `batch_sampler=` the batch size is the one torch's `BatchSampler` (or a
subclass of it in the file that keeps its `__iter__`) was built with, and unknown for any
other batch sampler. The message says which and why. A loader that
is never iterated in the file (a test that only inspects it) starts no workers and gets
nothing.

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
        let Some((workers, workers_n)) = possible_workers(loader) else {
            continue;
        };
        // The estimate needs the count the workers certainly have.
        let workers_n = (!workers.conditional).then_some(workers_n);
        if *checked.get_or_insert_with(|| module_checks_shm(m)) {
            return;
        }
        if never_iterated(checker, loader) {
            continue;
        }
        let demand = workers_n.and_then(|n| demand(m, loader, n));
        let (severity, machine, machine_zh) = match (&host.shm, shm_text(host), shm_text_zh(host)) {
            (Some(shm), Some(facts), Some(facts_zh))
                if shm.free_bytes.min(shm.total_bytes) < 2 * GIB =>
            {
                (
                    Severity::Warning,
                    format!("this machine's {facts}, under 2 GiB, so this can fail here"),
                    format!("本机 {facts_zh}，不足 2 GiB，因此在本机可能失败"),
                )
            }
            (Some(shm), Some(facts), Some(facts_zh))
                if demand.as_ref().is_some_and(|d| d.bytes > shm.free_bytes) =>
            {
                let d = demand.as_ref().map_or_else(String::new, |d| d.en.clone());
                let d_zh = demand.as_ref().map_or_else(String::new, |d| d.zh.clone());
                (
                    Severity::Warning,
                    format!("{d} does not fit: this machine's {facts}"),
                    format!("{d_zh}，放不下：本机 {facts_zh}"),
                )
            }
            (Some(_), Some(facts), Some(facts_zh)) => {
                // Without an estimate nothing says the batches fit: only that 2 GiB or more
                // is what most loaders need.
                let (here, here_zh) = match &demand {
                    Some(d) => (
                        format!("{} fits: this machine's {facts}, so this works here", d.en),
                        format!("{}，放得下：本机 {facts_zh}，所以在本机能正常运行", d.zh),
                    ),
                    None => (
                        format!(
                            "this machine's {facts}, 2 GiB or more, enough for most loaders (the \
                             size of this one's batches is not known), so nothing shows it \
                             failing here"
                        ),
                        format!(
                            "本机 {facts_zh}，不少于 2 GiB，对多数加载器足够（此加载器的批次大小未知），\
                             没有迹象表明它会在本机失败"
                        ),
                    ),
                };
                (
                    Severity::Hint,
                    format!("{here}; a container gets 64 MiB unless given more"),
                    format!("{here_zh}；但容器默认只有 64 MiB，除非另行调大"),
                )
            }
            _ => (
                Severity::Hint,
                "the size of /dev/shm is unknown on this machine, so nothing shows it failing \
                 here"
                    .to_owned(),
                "本机 /dev/shm 的大小未知，没有迹象表明它会在本机失败".to_owned(),
            ),
        };
        let pin_text = loader
            .describe(Param::PinMemory, Lang::En)
            .unwrap_or_else(|| "pin_memory=True".to_owned());
        let pin_text_zh = loader
            .describe(Param::PinMemory, Lang::Zh)
            .unwrap_or_else(|| "pin_memory=True".to_owned());
        let workers_text = loader
            .describe(Param::NumWorkers, Lang::En)
            .unwrap_or_else(|| "workers".to_owned());
        let workers_text_zh = loader
            .describe(Param::NumWorkers, Lang::Zh)
            .unwrap_or_else(|| "worker".to_owned());
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

/// What the workers may hold in /dev/shm at once: workers × prefetch_factor batches of
/// batch_size samples each.
struct Demand {
    bytes: u64,
    en: String,
    zh: String,
}

/// The demand when every factor is known: the batch size and prefetch factor resolved (or
/// DataLoader's defaults) and the sample size read from the dataset's torchvision transforms.
fn demand(m: &Module, loader: &Loader, workers: i64) -> Option<Demand> {
    let prefetch = match loader.certain(Param::PrefetchFactor)?.value {
        Value::Int(n) if n > 0 => n,
        // DataLoader's default with workers.
        Value::None => 2,
        _ => return None,
    };
    let (batch, from_en, from_zh) = batch(m, loader)?;
    let constructor = loader.dataset.as_ref()?.constructor?;
    let (sample, shape) = sample_bytes(m, constructor)?;
    let bytes = u64::try_from(workers.checked_mul(prefetch)?.checked_mul(batch)?)
        .ok()?
        .checked_mul(sample)?;
    Some(Demand {
        bytes,
        en: format!(
            "the estimated demand of {} ({workers} workers × prefetch_factor {prefetch} × \
             batch_size {batch}{from_en} × {shape} samples of {})",
            human_size(bytes),
            human_size(sample)
        ),
        zh: format!(
            "估计需求为 {}（{workers} 个 worker × prefetch_factor {prefetch} × batch_size {batch}{from_zh} \
             × 每个 {} 的 {shape} 样本）",
            human_size(bytes),
            human_size(sample)
        ),
    })
}

/// The samples of one batch, with where they come from when a batch sampler gives them
/// (" (the batch_size of the BatchSampler on line 12)"): the loader's `batch_size`, or the
/// batch size of its `batch_sampler=` (with which DataLoader's own `batch_size` stays 1).
fn batch(m: &Module, loader: &Loader) -> Option<(i64, String, String)> {
    let sampler = match loader.state(Param::BatchSampler) {
        ArgState::Default => None,
        ArgState::Passed(a) if a.value.value == Value::None => None,
        ArgState::Passed(a) if !a.conditional => Some(a),
        _ => return None,
    };
    let Some(sampler) = sampler else {
        return match loader.certain(Param::BatchSize)?.value {
            Value::Int(n) if n > 0 => Some((n, String::new(), String::new())),
            _ => None,
        };
    };
    let found = batch_samplers::batch_size(m, sampler.value_node, loader.scope)?;
    let (class, line) = (&found.class, found.line);
    let en = match found.resolved.provenance.note(Lang::En) {
        Some(note) => format!(" ({note}, the batch_size of the {class} on line {line})"),
        None => format!(" (the batch_size of the {class} on line {line})"),
    };
    let zh = match found.resolved.provenance.note(Lang::Zh) {
        Some(note) => format!("（{note}，第 {line} 行 {class} 的 batch_size）"),
        None => format!("（第 {line} 行 {class} 的 batch_size）"),
    };
    Some((found.batch_size, en, zh))
}

/// torchvision transforms that fix an image's final height and width.
const SIZING_TRANSFORMS: &[&str] = &["RandomResizedCrop", "CenterCrop", "RandomCrop", "Resize"];

/// The bytes of one sample of a dataset built with torchvision transforms that end in a fixed
/// size and convert to a tensor (`ToTensor()`: float32; `PILToTensor()`: uint8), with its
/// shape, e.g. `3×224×224 float32`. Three channels are assumed (RGB images). A wrapper that
/// returns several views of the image (`TwoCropsTransform(base)`) multiplies the size
/// (`2×3×224×224 float32`).
fn sample_bytes(m: &Module, constructor: Node) -> Option<(u64, String)> {
    sample_bytes_within(m, constructor, 0)
}

fn sample_bytes_within(m: &Module, constructor: Node, depth: u32) -> Option<(u64, String)> {
    if depth > 4 {
        return None;
    }
    let mut calls = Vec::new();
    let mut names = Vec::new();
    crate::python::syntax::walk_executed(constructor, &mut |n| match n.kind() {
        "call" => calls.push(n),
        "identifier" => names.push(n),
        _ => {}
    });
    // `transform = transforms.Compose([...])` (or the list of transforms) passed by name:
    // bound once, or bound in each branch of a condition to transforms of the same size.
    let mut named: Option<(u64, String)> = None;
    for name in names {
        let Some(ids) = m.lookup(m.text(name), m.scope_at(name)) else {
            continue;
        };
        let values: Vec<Node> = ids
            .iter()
            .filter_map(|id| m.bindings().get(*id))
            .filter_map(|b| b.value)
            .filter(|v| matches!(v.kind(), "call" | "list"))
            .collect();
        match values.as_slice() {
            [] => {}
            [value] => crate::python::syntax::walk_executed(*value, &mut |n| {
                if n.kind() == "call" {
                    calls.push(n);
                }
            }),
            _ if values.len() == ids.len() => {
                let sizes: Vec<Option<(u64, String)>> = values
                    .iter()
                    .map(|v| sample_bytes_within(m, *v, depth + 1))
                    .collect();
                if let Some(Some(first)) = sizes.first()
                    && sizes.iter().all(|s| s.as_ref() == Some(first))
                {
                    named = Some(first.clone());
                }
            }
            _ => {}
        }
    }
    calls.sort_by_key(|c| c.start_byte());
    let mut size = None;
    let mut element = None;
    let mut views = 1u64;
    for call in calls {
        if let Some(k) = crate::python::transforms::copies_of_call(m, call) {
            views = views.checked_mul(u64::try_from(k).ok()?)?;
            continue;
        }
        let Some(q) = m.call_site(call).and_then(|c| c.qualified.as_deref()) else {
            continue;
        };
        let Some(name) = q
            .strip_prefix("torchvision.transforms.")
            .map(|rest| rest.rsplit('.').next().unwrap_or(rest))
        else {
            continue;
        };
        match name {
            "ToTensor" => element = Some((4, "float32")),
            "PILToTensor" => element = Some((1, "uint8")),
            _ if SIZING_TRANSFORMS.contains(&name) => size = final_size(m, call, name),
            _ => {}
        }
    }
    let (sample, shape) = match (size, element) {
        (Some((height, width)), Some((bytes, dtype))) => {
            let sample = 3u64
                .checked_mul(height)?
                .checked_mul(width)?
                .checked_mul(bytes)?;
            (sample, format!("3×{height}×{width} {dtype}"))
        }
        _ => named?,
    };
    match views {
        1 => Some((sample, shape)),
        k => Some((sample.checked_mul(k)?, format!("{k}×{shape}"))),
    }
}

/// The (height, width) a sizing transform produces; `None` for `Resize(n)`, which keeps the
/// aspect ratio, and for sizes that do not resolve.
fn final_size(m: &Module, call: Node, name: &str) -> Option<(u64, u64)> {
    let size = m
        .keyword_arg(call, "size")
        .or_else(|| crate::python::model::positional_args(call).first().copied())?;
    let int = |n: Node| u64::try_from(m.value_of(n).value.as_int()?).ok();
    match size.kind() {
        "tuple" | "list" => {
            let mut cursor = size.walk();
            let dims: Vec<Node> = size.named_children(&mut cursor).collect();
            match dims.as_slice() {
                [h, w] => Some((int(*h)?, int(*w)?)),
                [s] => Some((int(*s)?, int(*s)?)),
                _ => None,
            }
        }
        _ if name == "Resize" => None,
        _ => int(size).map(|s| (s, s)),
    }
}
