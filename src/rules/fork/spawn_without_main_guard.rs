//! DL104 `spawn-without-main-guard`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL104,
    name: "spawn-without-main-guard",
    severity: Severity::Error,
    default_enabled: true,
    summary: "Spawn or forkserver workers start from module-level code outside a `__main__` guard",
    docs: DOCS,
    kb: &[
        "pytorch/spawn-missing-main-guard",
        "pytorch/spawn-child-eof",
    ],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
