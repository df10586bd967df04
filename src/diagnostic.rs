//! What a rule reports: one finding at one place, with its fixes and the other half of the story.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::fix::Fix;
use crate::rules::Code;
use crate::text::TextRange;

/// Default severities follow the risk: an error certainly crashes, a warning crashes under
/// conditions this machine or this code shows, info is worth knowing, a hint is opt-in advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "error" => Ok(Severity::Error),
            "warning" | "warn" => Ok(Severity::Warning),
            "info" | "information" => Ok(Severity::Info),
            "hint" => Ok(Severity::Hint),
            other => Err(format!(
                "unknown severity `{other}` (expected error, warning, info or hint)"
            )),
        }
    }
}

/// A place that explains a diagnostic: the CUDA call, the lambda, the `set_start_method`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// `None` means the file the diagnostic is in.
    pub file: Option<PathBuf>,
    pub range: TextRange,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    pub severity: Severity,
    /// Where the squiggle goes: the offending keyword argument, else the callee name.
    pub range: TextRange,
    pub related: Vec<Related>,
    /// The first fix marked `preferred` is the one editors offer first.
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            severity: code.rule().severity,
            range,
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Self {
        self.related.push(Related {
            file: None,
            range,
            message: message.into(),
        });
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fixes.push(fix);
        self
    }

    /// Knowledge-base entries whose failures this rule prevents.
    pub fn kb(&self) -> &'static [&'static str] {
        self.code.rule().kb
    }
}
