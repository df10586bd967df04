//! DL303 `timeout-without-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL303,
    name: "timeout-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "timeout > 0 while num_workers is 0, or a negative timeout",
    docs: DOCS,
    kb: &["pytorch/timeout-without-workers"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
