//! Settings: `[tool.dldoctor]` in pyproject.toml, the same keys from the CLI and LSP settings,
//! and suppression comments.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diagnostic::Severity;
use crate::rules::{Code, all_rules};

/// Effective settings for one analysis. Built from pyproject.toml, then CLI flags or LSP
/// settings layered on top.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Code prefixes or codes ("DL", "DL1", "DL201"). Empty means the default set.
    pub select: Vec<String>,
    /// Added to `select` (or to the default set), e.g. opt-in rules like DL103.
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// (glob, code prefixes) pairs, matched against the path relative to the project root.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    pub severity: BTreeMap<Code, Severity>,
    /// Overrides this machine's CPU count for DL201.
    pub max_workers: Option<u32>,
    /// Extra knowledge-base folders.
    pub kb: Vec<PathBuf>,
    /// The project's Python version (from `requires-python` or `target-version`), which
    /// decides the implicit start method on Linux (forkserver from 3.14).
    pub target_version: Option<(u8, u8)>,
}

fn matches(code: Code, selector: &str) -> bool {
    let sel = selector.trim();
    sel.eq_ignore_ascii_case("ALL") || code.as_str().starts_with(&sel.to_ascii_uppercase())
}

impl Settings {
    /// Whether `code` runs at all (before per-file ignores and `# noqa`). An explicit selector
    /// naming the exact code beats a shorter prefix, as in ruff.
    pub fn is_enabled(&self, code: Code) -> bool {
        let specificity = |list: &[String]| {
            list.iter()
                .filter(|s| matches(code, s))
                .map(|s| s.trim().len())
                .max()
        };
        let selected = if self.select.is_empty() {
            code.rule().default_enabled.then_some(0)
        } else {
            specificity(&self.select)
                .filter(|_| code.rule().default_enabled || self.names_exactly(&self.select, code))
        };
        let selected = selected.max(specificity(&self.extend_select));
        match (selected, specificity(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(sel), Some(ign)) => sel > ign,
        }
    }

    fn names_exactly(&self, list: &[String], code: Code) -> bool {
        list.iter()
            .any(|s| s.trim().eq_ignore_ascii_case(code.as_str()))
    }

    pub fn severity_of(&self, code: Code) -> Severity {
        self.severity
            .get(&code)
            .copied()
            .unwrap_or(code.rule().severity)
    }
}

/// Every code `selector` names; empty when it names none (an unknown code in a config).
pub fn codes_matching(selector: &str) -> Vec<Code> {
    all_rules()
        .map(|r| r.code)
        .filter(|c| matches(*c, selector))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_set_leaves_out_opt_in_rules() {
        let s = Settings::default();
        assert!(s.is_enabled(Code::DL101));
        assert!(!s.is_enabled(Code::DL103));
    }

    #[test]
    fn opt_in_by_exact_code_and_ignore_by_prefix() {
        let s = Settings {
            extend_select: vec!["DL103".into()],
            ignore: vec!["DL2".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL103));
        assert!(!s.is_enabled(Code::DL201));
        let s = Settings {
            select: vec!["DL1".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL101));
        assert!(!s.is_enabled(Code::DL103));
        assert!(!s.is_enabled(Code::DL301));
    }

    #[test]
    fn specific_select_beats_broad_ignore() {
        let s = Settings {
            select: vec!["DL201".into()],
            ignore: vec!["DL2".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL201));
        assert!(!s.is_enabled(Code::DL202));
    }
}
