//! DL203 `small-shared-memory`.

use crate::diagnostic::Severity;
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

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
