//! DL105 `unpicklable-worker-callable`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL105,
    name: "unpicklable-worker-callable",
    severity: Severity::Error,
    default_enabled: true,
    summary: "A lambda or locally defined function or class is passed to a loader whose workers must pickle it",
    docs: DOCS,
    kb: &["pytorch/spawn-unpicklable-object"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
