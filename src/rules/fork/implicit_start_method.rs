//! DL103 `implicit-start-method`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL103,
    name: "implicit-start-method",
    severity: Severity::Hint,
    default_enabled: false,
    summary: "A multi-process loader relies on the platform's default start method",
    docs: DOCS,
    kb: &[
        "pytorch/dataset-worker-fork-cuda",
        "pytorch/spawn-unpicklable-object",
    ],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
