//! DL305 `context-without-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL305,
    name: "context-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "multiprocessing_context is given while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/mp-context-without-workers"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
