//! DL102 `cuda-before-fork`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL102,
    name: "cuda-before-fork",
    severity: Severity::Info,
    default_enabled: true,
    summary: "CUDA is initialised in the parent before a fork-started loader starts its workers",
    docs: DOCS,
    kb: &["pytorch/dataset-worker-fork-cuda"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
