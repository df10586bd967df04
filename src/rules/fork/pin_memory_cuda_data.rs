//! DL106 `pin-memory-cuda-data`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL106,
    name: "pin-memory-cuda-data",
    severity: Severity::Error,
    default_enabled: true,
    summary: "pin_memory=True while worker-side code returns CUDA tensors",
    docs: DOCS,
    kb: &["pytorch/cannot-pin-cuda-tensor"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
