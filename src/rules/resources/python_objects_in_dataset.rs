//! DL206 `python-objects-in-dataset`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL206,
    name: "python-objects-in-dataset",
    severity: Severity::Info,
    default_enabled: true,
    summary: "The dataset keeps a large Python list or dict of per-sample objects",
    docs: DOCS,
    kb: &["pytorch/dataloader-worker-killed-oom"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
