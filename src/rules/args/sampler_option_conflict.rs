//! DL306 `sampler-option-conflict`.

use crate::diagnostic::Severity;
use crate::rules::{Checker, Code, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL306,
    name: "sampler-option-conflict",
    severity: Severity::Error,
    default_enabled: true,
    summary: "sampler, batch_sampler, shuffle, batch_size and drop_last in a combination DataLoader rejects",
    docs: DOCS,
    kb: &[
        "pytorch/sampler-shuffle-exclusive",
        "pytorch/batch-sampler-exclusive",
        "pytorch/batch-size-none-drop-last",
    ],
};

// TODO(rule author): What it does / Why is this bad? / Example / Use instead / Fix safety.
const DOCS: &str = "";

pub fn check(_checker: &mut Checker) {}
