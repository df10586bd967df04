//! The entry schema: the seed entries' fields, plus the extensions this project adds
//! (`title`, `regexes`, `examples`, `severity`, `generic`, `rules`, `fix`, `evidence`).
//!
//! Unknown fields are rejected, so a misspelt field in an extra KB folder is reported by name
//! instead of being silently ignored.

use serde::{Deserialize, Serialize};

/// The language of the human-readable fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        if lower == "en" || lower.starts_with("en-") || lower.starts_with("en_") {
            Ok(Lang::En)
        } else if lower == "zh" || lower.starts_with("zh-") || lower.starts_with("zh_") {
            Ok(Lang::Zh)
        } else {
            Err(format!("unknown language `{s}` (expected en or zh)"))
        }
    }
}

/// A fatal error ends the run; a warning is printed and the run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntrySeverity {
    Warning,
    Fatal,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    /// A short name of the failure (an extension; the seeds had none).
    pub title: String,
    pub title_zh: String,
    /// The failure's line as PyTorch prints it.
    pub signature: String,
    pub signature_zh: String,
    /// The primary pattern; it must match `signature`.
    pub regex: String,
    /// More wordings (older or newer releases, other platforms); each must match `signature` or
    /// one of `examples`.
    #[serde(default)]
    pub regexes: Vec<String>,
    /// Real lines in the other wordings, for validation of `regexes`.
    #[serde(default)]
    pub examples: Vec<String>,
    /// For wordings that other programs print too (`EOFError: Ran out of input`): a match counts
    /// only inside a traceback with a frame whose file path (with `/` separators) matches this.
    #[serde(default)]
    pub requires_frame: Option<String>,
    /// Tracebacks whose frames point at this failure when the final message line is missing
    /// (a pasted excerpt cut short): used only then, ranked below any message match.
    #[serde(default)]
    pub frame_evidence: Vec<FrameEvidence>,
    pub domain: String,
    pub category: String,
    #[serde(default)]
    pub subcategory: Option<String>,
    pub severity: EntrySeverity,
    /// A wrapper or a symptom whose specific cause is usually printed elsewhere in the same
    /// output (`Caught X in DataLoader worker`, `exited unexpectedly`); ranked below specific
    /// entries and dropped when one of them explains the same traceback.
    #[serde(default)]
    pub generic: bool,
    pub root_cause: String,
    #[serde(default)]
    pub root_cause_type: Option<String>,
    pub root_cause_zh: String,
    #[serde(default)]
    pub versions: Vec<Version>,
    #[serde(default)]
    pub os_specific: serde_json::Map<String, serde_json::Value>,
    pub dead_ends: Vec<DeadEnd>,
    pub dead_ends_zh: Vec<DeadEndZh>,
    pub workarounds: Vec<Workaround>,
    pub workarounds_zh: Vec<String>,
    pub transition_graph: TransitionGraph,
    pub official_doc_url: Option<String>,
    #[serde(default)]
    pub official_doc_section: Option<String>,
    pub error_code: Option<String>,
    pub verification_tier: String,
    /// Null unless a source gives it.
    pub confidence: Option<f64>,
    #[serde(default)]
    pub fix_success_rate: Option<f64>,
    #[serde(default)]
    pub resolvable: Option<String>,
    #[serde(default)]
    pub first_seen: Option<String>,
    #[serde(default)]
    pub last_confirmed: Option<String>,
    #[serde(default)]
    pub last_updated: Option<String>,
    #[serde(default)]
    pub evidence_count: Option<u32>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub locale: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The DL codes whose diagnostics prevent this failure.
    pub rules: Vec<String>,
    /// The code action that applies the preferred workaround, if one does.
    pub fix: Option<FixRef>,
    /// Public sources: PyTorch docs and source, bug reports with the failure's output.
    pub evidence: Vec<Evidence>,
}

/// Frames that, in this order (not necessarily adjacent), point at an entry's failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameEvidence {
    pub steps: Vec<FrameStep>,
    /// The last step must be the innermost frame shown (where the exception was raised).
    #[serde(default)]
    pub innermost: bool,
}

/// One frame of [`FrameEvidence`]: every pattern given must match (Rust `regex` syntax).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameStep {
    /// The function name (`_pin_memory_loop`).
    #[serde(default)]
    pub function: Option<String>,
    /// The file path, with `/` separators.
    #[serde(default)]
    pub file: Option<String>,
    /// The source line the traceback shows under the frame.
    #[serde(default)]
    pub source: Option<String>,
}

impl FrameStep {
    /// The patterns of the step with their field names.
    pub fn patterns(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("function", &self.function),
            ("file", &self.file),
            ("source", &self.source),
        ]
        .into_iter()
        .filter_map(|(name, p)| p.as_deref().map(|p| (name, p)))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Version {
    pub version: String,
    #[serde(default)]
    pub introduced: Option<String>,
    #[serde(default)]
    pub deprecated: Option<String>,
    #[serde(default)]
    pub removed: Option<String>,
    #[serde(default)]
    pub behavior_change: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadEnd {
    pub action: String,
    pub why_fails: String,
    pub fail_rate: Option<f64>,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadEndZh {
    pub action: String,
    pub why_fails: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workaround {
    pub action: String,
    pub success_rate: Option<f64>,
    pub how: String,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub sources: Vec<String>,
    /// The code action that applies this workaround.
    #[serde(default)]
    pub fix: Option<FixRef>,
}

/// A code action of a rule: `{"rule": "DL101", "title": "Use the spawn start method"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixRef {
    pub rule: String,
    pub title: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionGraph {
    #[serde(default)]
    pub leads_to: Vec<String>,
    #[serde(default)]
    pub preceded_by: Vec<String>,
    #[serde(default)]
    pub frequently_confused_with: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub url: String,
    #[serde(default)]
    pub note: String,
}

impl Entry {
    /// Every pattern of the entry: `regex` first, then `regexes`.
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.regex.as_str()).chain(self.regexes.iter().map(String::as_str))
    }

    pub fn title_in(&self, lang: Lang) -> &str {
        pick(lang, &self.title, &self.title_zh)
    }

    pub fn signature_in(&self, lang: Lang) -> &str {
        pick(lang, &self.signature, &self.signature_zh)
    }

    pub fn root_cause_in(&self, lang: Lang) -> &str {
        pick(lang, &self.root_cause, &self.root_cause_zh)
    }

    /// Workarounds as (action, how, fix) in `lang`; `how` is mostly code and stays as written.
    pub fn workarounds_in(&self, lang: Lang) -> Vec<(&str, &str, Option<&FixRef>)> {
        self.workarounds
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let action = match (lang, self.workarounds_zh.get(i)) {
                    (Lang::Zh, Some(zh)) if !zh.is_empty() => zh.as_str(),
                    _ => w.action.as_str(),
                };
                (action, w.how.as_str(), w.fix.as_ref())
            })
            .collect()
    }

    /// Dead ends as (action, why it fails) in `lang`.
    pub fn dead_ends_in(&self, lang: Lang) -> Vec<(&str, &str)> {
        self.dead_ends
            .iter()
            .enumerate()
            .map(|(i, d)| match (lang, self.dead_ends_zh.get(i)) {
                (Lang::Zh, Some(zh)) => (zh.action.as_str(), zh.why_fails.as_str()),
                _ => (d.action.as_str(), d.why_fails.as_str()),
            })
            .collect()
    }
}

fn pick<'a>(lang: Lang, en: &'a str, zh: &'a str) -> &'a str {
    match lang {
        Lang::Zh if !zh.is_empty() => zh,
        _ => en,
    }
}
