//! DL307 `invalid-start-method`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL307,
    name: "invalid-start-method",
    severity: Severity::Error,
    default_enabled: true,
    summary: "multiprocessing_context names no start method",
    docs: DOCS,
    kb: &["pytorch/invalid-mp-context"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
