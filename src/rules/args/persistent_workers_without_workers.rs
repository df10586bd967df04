//! DL302 `persistent-workers-without-workers`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL302,
    name: "persistent-workers-without-workers",
    severity: Severity::Error,
    default_enabled: true,
    summary: "persistent_workers=True while num_workers is 0",
    docs: DOCS,
    kb: &["pytorch/persistent-workers-without-workers"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
