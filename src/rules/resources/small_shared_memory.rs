//! DL203 `small-shared-memory`.

use crate::diagnostic::{Diagnostic, Severity};
use crate::python::loaders::Param;
use crate::rules::resources::{GIB, possible_workers, shm_text};
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL203,
    name: "small-shared-memory",
    severity: Severity::Warning,
    default_enabled: true,
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
    let Some(facts) = shm_text(host) else {
        return;
    };
    for loader in m.loaders() {
        let Some((arg, _)) = possible_workers(loader) else {
            continue;
        };
        let described = loader
            .describe(Param::NumWorkers)
            .unwrap_or_else(|| "num_workers > 0".to_owned());
        let message = format!(
            "{described} on a machine whose {facts}, under 1 GiB: workers pass every batch \
             through /dev/shm and die with a bus error when it fills. Give it more: `docker run \
             --shm-size=8g`, `mount -o remount,size=8G /dev/shm`, or on Kubernetes an \
             `emptyDir: {{medium: Memory}}` volume at /dev/shm"
        );
        checker.report(Diagnostic::new(Code::DL203, arg.anchor, message));
    }
}
