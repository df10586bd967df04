//! DL201 `num-workers-exceeds-cpus`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL201,
    name: "num-workers-exceeds-cpus",
    severity: Severity::Warning,
    default_enabled: true,
    summary: "num_workers is larger than this machine's usable CPUs",
    docs: DOCS,
    kb: &["pytorch/worker-count-exceeds-suggested"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
