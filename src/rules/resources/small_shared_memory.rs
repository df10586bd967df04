//! DL203 `small-shared-memory`.

use crate::diagnostic::Severity;
use crate::lang::Lang;
use crate::python::loaders::Param;
use crate::rules::resources::{GIB, never_iterated, possible_workers, shm_text, shm_text_zh};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL203,
    name: "small-shared-memory",
    severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::None,
    summary: "Workers on a machine whose /dev/shm is under 1 GiB",
    docs: DOCS,
    kb: &[
        "pytorch/dataloader-worker-bus-error-shm",
        "pytorch/dataloader-shm-exhausted",
        "pytorch/dataloader-worker-segfault-shm",
    ],
};

const DOCS: &str = r#"## What it does
Checks for a DataLoader with workers (`num_workers > 0`) on a machine whose `/dev/shm` is
smaller than 1 GiB. The message gives its size and free space.

## Why is this bad?
Workers hand every batch to the main process through shared memory, which lives in
`/dev/shm`. Docker gives a container 64 MiB there unless told otherwise; a few batches of
images fill it, and the worker dies:

```text
ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
```

The code is not wrong; the machine is too small for it. Lowering `num_workers` or the batch
size only moves the crash.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=8)  # in a container with 64 MiB /dev/shm
```

## Use instead
Give the machine more shared memory:

- Docker: `docker run --shm-size=8g ...` (or `--ipc=host`); Compose: `shm_size: "8gb"`.
- A running Linux host: `sudo mount -o remount,size=8G /dev/shm`.
- Kubernetes: mount an `emptyDir: {medium: Memory, sizeLimit: 8Gi}` volume at `/dev/shm`.

## Fix safety
There is no fix to the code: the remedy is the machine's configuration.
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let host = checker.ctx.host;
    let Some(shm) = host.shm.as_ref() else {
        return;
    };
    if shm.total_bytes >= GIB {
        return;
    }
    let (Some(facts), Some(facts_zh)) = (shm_text(host), shm_text_zh(host)) else {
        return;
    };
    for loader in m.loaders() {
        let Some((arg, _)) = possible_workers(loader) else {
            continue;
        };
        if never_iterated(checker, loader) {
            continue;
        }
        let fallback = || "num_workers > 0".to_owned();
        let described = loader
            .describe(Param::NumWorkers, Lang::En)
            .unwrap_or_else(fallback);
        let described_zh = loader
            .describe(Param::NumWorkers, Lang::Zh)
            .unwrap_or_else(fallback);
        let message = format!(
            "{described} on a machine whose {facts}, under 1 GiB: workers pass every batch \
             through /dev/shm and die with a bus error when it fills. Give it more: `docker run \
             --shm-size=8g`, `mount -o remount,size=8G /dev/shm`, or on Kubernetes an \
             `emptyDir: {{medium: Memory}}` volume at /dev/shm"
        );
        let message_zh = format!(
            "{described_zh}，而本机 {facts_zh}，不足 1 GiB：worker 通过 /dev/shm 传回每个批次，\
             /dev/shm 写满时会因 bus error 崩溃。请调大它：`docker run --shm-size=8g`、\
             `mount -o remount,size=8G /dev/shm`，或在 Kubernetes 上把 \
             `emptyDir: {{medium: Memory}}` 卷挂载到 /dev/shm"
        );
        checker.report(RULE.diagnostic(arg.anchor, message).zh(message_zh));
    }
}
