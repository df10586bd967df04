//! DL205 `cpu-count-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL205,
    name: "cpu-count-workers",
    severity: Severity::Info,
    default_enabled: true,
    summary: "num_workers from os.cpu_count(), which ignores CPU affinity and container quotas",
    docs: DOCS,
    kb: &["pytorch/worker-count-exceeds-suggested"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
