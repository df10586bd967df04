//! DL101 `cuda-in-forked-worker`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL101,
    name: "cuda-in-forked-worker",
    severity: Severity::Error,
    default_enabled: true,
    summary: "Worker-side code uses CUDA while the loader's workers start by fork",
    docs: DOCS,
    kb: &["pytorch/dataset-worker-fork-cuda"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
