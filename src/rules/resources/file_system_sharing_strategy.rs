//! DL204 `file-system-sharing-strategy`.

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::python::edit;
use crate::python::model::positional_args;
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL204,
    name: "file-system-sharing-strategy",
    severity: Severity::Info,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "set_sharing_strategy(\"file_system\") leaks shared memory when workers die",
    docs: DOCS,
    kb: &["pytorch/shm-open-failed", "pytorch/too-many-open-files"],
};

const DOCS: &str = r#"## What it does
Checks for `torch.multiprocessing.set_sharing_strategy("file_system")`.

## Why is this bad?
It is the usual answer to `RuntimeError: Too many open files. Communication with the workers
is no longer possible.` and PyTorch's own message suggests it. But with `file_system` every
shared tensor is a named file in `/dev/shm`, kept alive by the `torch_shm_manager` process:
files of a worker that is killed are never removed, `/dev/shm` fills over long runs, and the
run ends with

```text
RuntimeError: unable to open shared memory object </torch_547_2991312382> in read-write mode: Too many open files (24)
```

or a bus error. The default strategy on Linux, `file_descriptor`, passes open file
descriptors instead and only needs a higher open-file limit (`ulimit -n 65535`, or
`resource.setrlimit(resource.RLIMIT_NOFILE, ...)` at start-up).

## Example
```python
torch.multiprocessing.set_sharing_strategy("file_system")
```

## Use instead
```python
import resource

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
```

## Fix safety
The fix switches to `"file_descriptor"` and is unsafe: a run that opens many descriptors then
needs a higher `ulimit -n`.
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let host = checker.ctx.host;
    for call in m.calls_to(&["torch.multiprocessing.set_sharing_strategy"]) {
        let Some(arg) = m
            .keyword_arg(call.node, "new_strategy")
            .or_else(|| positional_args(call.node).first().copied())
        else {
            continue;
        };
        if m.value_of(arg).value.as_str() != Some("file_system") {
            continue;
        }
        let (limit, limit_zh) = match host.nofile_soft {
            Some(n) => (
                format!(" (this machine's open-file limit is {n})"),
                format!("（本机的打开文件数上限为 {n}）"),
            ),
            None => (String::new(), String::new()),
        };
        let message = format!(
            "set_sharing_strategy(\"file_system\") keeps every shared tensor as a named file in \
             /dev/shm: files of a worker that dies are never removed and /dev/shm fills; the \
             default \"file_descriptor\" only needs a higher `ulimit -n`{limit}"
        );
        let mut d = RULE
            .diagnostic(crate::python::model::Module::range(arg), message)
            .zh(format!(
                "set_sharing_strategy(\"file_system\") 会把每个共享张量作为具名文件放在 /dev/shm \
             中：异常退出的 worker 留下的文件永远不会被删除，/dev/shm 会被占满；默认的 \
             \"file_descriptor\" 只需调高 `ulimit -n`{limit_zh}"
            ));
        if arg.kind() == "string" {
            d = d.with_fix(
                Fix::unsafe_(
                    "Use \"file_descriptor\" (raise `ulimit -n` if workers report \"Too many open files\")",
                    vec![edit::replace(arg, "\"file_descriptor\"")],
                )
                .zh("改用 \"file_descriptor\"（若 worker 报 \"Too many open files\"，请调高 `ulimit -n`）")
                .preferred(),
            );
        }
        checker.report(d);
    }
}
