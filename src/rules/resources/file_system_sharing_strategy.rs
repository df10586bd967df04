//! DL204 `file-system-sharing-strategy`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL204,
    name: "file-system-sharing-strategy",
    severity: Severity::Info,
    default_enabled: true,
    summary: "set_sharing_strategy(\"file_system\") leaks shared memory when workers die",
    docs: DOCS,
    kb: &["pytorch/shm-open-failed", "pytorch/too-many-open-files"],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
