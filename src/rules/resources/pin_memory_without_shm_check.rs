//! DL202 `pin-memory-without-shm-check`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL202,
    name: "pin-memory-without-shm-check",
    severity: Severity::Warning,
    default_enabled: true,
    summary: "pin_memory=True with workers and no check of /dev/shm",
    docs: DOCS,
    kb: &[
        "pytorch/dataloader-worker-bus-error-shm",
        "pytorch/dataloader-shm-exhausted",
    ],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
