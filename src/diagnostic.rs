//! What a rule reports: one finding at one place, with its fixes and the other half of the story.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::codes::Code;
use crate::fix::Fix;
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

/// Chinese text assembled from pieces, with the spaces that pieces leave next to full-width
/// punctuation removed ("num_workers=4（…） 与" becomes "num_workers=4（…）与"). Spaces between
/// Latin words and Chinese stay, as the hover docs write them.
pub fn tidy_zh(text: String) -> String {
    let full_width = |c: Option<&char>| {
        c.is_some_and(|c| matches!(c, '\u{3000}'..='\u{303f}' | '\u{ff00}'..='\u{ffef}'))
    };
    if !text.contains(' ') {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, c) in chars.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|p| chars.get(p));
        if *c == ' ' && (full_width(previous) || full_width(chars.get(i + 1))) {
            continue;
        }
        out.push(*c);
    }
    out
}

/// A place that explains a diagnostic: the CUDA call, the lambda, the `set_start_method`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// `None` means the file the diagnostic is in.
    pub file: Option<PathBuf>,
    pub range: TextRange,
    pub message: String,
    /// The message for a Chinese editor; the CLI prints only `message`.
    pub message_zh: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    /// The message for a Chinese editor (the language server's `zh` locale); the CLI and its
    /// JSON stay English.
    pub message_zh: Option<String>,
    pub severity: Severity,
    /// Where the squiggle goes: the offending keyword argument, else the callee name.
    pub range: TextRange,
    pub related: Vec<Related>,
    /// The first fix marked `preferred` is the one editors offer first.
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// A finding of `code`; rules build theirs with [`Rule::diagnostic`](crate::rules::Rule::diagnostic),
    /// which passes the rule's default severity.
    pub fn new(
        code: Code,
        severity: Severity,
        range: TextRange,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code,
            message: message.into(),
            message_zh: None,
            severity,
            range,
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The Chinese of the message given to [`Diagnostic::new`].
    pub fn zh(mut self, message: impl Into<String>) -> Self {
        self.message_zh = Some(tidy_zh(message.into()));
        self
    }

    /// A related place in this file, in English and Chinese.
    pub fn with_related(
        self,
        range: TextRange,
        message: impl Into<String>,
        zh: impl Into<String>,
    ) -> Self {
        self.with_related_in(None, range, message, zh)
    }

    /// A related place in `file` (`None`: this file), in English and Chinese.
    pub fn with_related_in(
        mut self,
        file: Option<PathBuf>,
        range: TextRange,
        message: impl Into<String>,
        zh: impl Into<String>,
    ) -> Self {
        self.related.push(Related {
            file,
            range,
            message: message.into(),
            message_zh: Some(tidy_zh(zh.into())),
        });
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fixes.push(fix);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_zh_drops_spaces_at_full_width_punctuation_only() {
        assert_eq!(
            tidy_zh("num_workers=4（第 3 行 N 的值） 与 worker：x".to_owned()),
            "num_workers=4（第 3 行 N 的值）与 worker：x"
        );
        assert_eq!(
            tidy_zh("报 \"Can't pickle local object\"".to_owned()),
            "报 \"Can't pickle local object\""
        );
    }
}
