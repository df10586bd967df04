//! DL301 `prefetch-factor-without-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL301,
    name: "prefetch-factor-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "prefetch_factor is set while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/prefetch-factor-without-workers"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
