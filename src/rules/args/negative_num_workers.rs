//! DL304 `negative-num-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL304,
    name: "negative-num-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "num_workers is negative",
    docs: DOCS,
    kb: &["pytorch/negative-num-workers"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
