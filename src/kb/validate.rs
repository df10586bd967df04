//! The checks of `dldoctor kb validate`: every pattern compiles within a size limit and matches
//! the entry's own wording, ids are unique, rule codes and linked ids exist, both languages are
//! filled in, rates are probabilities. Each problem names the file and the field.

use std::collections::HashSet;
use std::str::FromStr;

use regex::{Regex, RegexBuilder};

use super::KbError;
use super::schema::Entry;
use crate::codes::Code;

/// The compiled-size limit of one pattern; a pattern over it is rejected, not truncated.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

pub fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}

/// Validates `entries` (origin, entry). Links may also point at `known_ids` (for a folder
/// checked on its own, the embedded entries).
pub fn validate(entries: &[(String, Entry)], known_ids: &[&str]) -> Vec<KbError> {
    let mut problems = Vec::new();
    let mut ids: HashSet<&str> = known_ids.iter().copied().collect();
    let mut seen: HashSet<&str> = HashSet::new();
    for (origin, entry) in entries {
        if !seen.insert(entry.id.as_str()) {
            problems.push(KbError::invalid(
                origin,
                "id",
                format!("duplicate id `{}`", entry.id),
            ));
        }
        ids.insert(entry.id.as_str());
    }
    for (origin, entry) in entries {
        check_entry(origin, entry, &ids, &mut problems);
    }
    problems
}

fn check_entry(origin: &str, e: &Entry, ids: &HashSet<&str>, out: &mut Vec<KbError>) {
    let mut problem = |field: &str, message: String| {
        out.push(KbError::invalid(origin, field, message));
    };

    if !is_valid_id(&e.id) {
        problem(
            "id",
            format!(
                "`{}` is not `domain/kebab-case-name` (lowercase letters, digits, `-`)",
                e.id
            ),
        );
    }
    for (field, value) in [
        ("title", &e.title),
        ("signature", &e.signature),
        ("root_cause", &e.root_cause),
        ("domain", &e.domain),
        ("category", &e.category),
        ("verification_tier", &e.verification_tier),
    ] {
        if value.trim().is_empty() {
            problem(field, "must not be empty".into());
        }
    }
    for (field, value) in [
        ("title_zh", &e.title_zh),
        ("signature_zh", &e.signature_zh),
        ("root_cause_zh", &e.root_cause_zh),
    ] {
        if !has_cjk(value) {
            problem(field, "must be written in Chinese".into());
        }
    }

    // Patterns: compile, and each one matches a real line of the entry.
    let mut compiled = Vec::new();
    for (i, pattern) in e.patterns().enumerate() {
        let field = if i == 0 {
            "regex".to_string()
        } else {
            format!("regexes[{}]", i - 1)
        };
        match compile_pattern(pattern) {
            Ok(re) => compiled.push((field, re)),
            Err(err) => problem(&field, format!("does not compile: {err}")),
        }
    }
    for (i, (field, re)) in compiled.iter().enumerate() {
        let own = re.is_match(&e.signature);
        if i == 0 && !own {
            problem(field, "does not match the entry's `signature`".into());
        } else if i > 0 && !own && !e.examples.iter().any(|x| re.is_match(x)) {
            problem(
                field,
                "matches neither `signature` nor any of `examples`".into(),
            );
        }
    }
    if let Some(pattern) = &e.requires_frame
        && let Err(err) = compile_pattern(pattern)
    {
        problem("requires_frame", format!("does not compile: {err}"));
    }
    for (i, evidence) in e.frame_evidence.iter().enumerate() {
        if evidence.steps.is_empty() {
            problem(
                &format!("frame_evidence[{i}].steps"),
                "at least one step is required".into(),
            );
        }
        for (j, step) in evidence.steps.iter().enumerate() {
            if step.patterns().next().is_none() {
                problem(
                    &format!("frame_evidence[{i}].steps[{j}]"),
                    "give at least one of `function`, `file`, `source`".into(),
                );
            }
            for (name, pattern) in step.patterns() {
                if let Err(err) = compile_pattern(pattern) {
                    problem(
                        &format!("frame_evidence[{i}].steps[{j}].{name}"),
                        format!("does not compile: {err}"),
                    );
                }
            }
        }
    }
    for (i, example) in e.examples.iter().enumerate() {
        if !compiled.iter().any(|(_, re)| re.is_match(example)) {
            problem(
                &format!("examples[{i}]"),
                "no pattern of the entry matches it".into(),
            );
        }
    }

    // Both languages, the same number of items.
    if e.workarounds.is_empty() {
        problem("workarounds", "at least one workaround is required".into());
    }
    if e.workarounds_zh.len() != e.workarounds.len() {
        problem(
            "workarounds_zh",
            format!(
                "has {} items, `workarounds` has {}",
                e.workarounds_zh.len(),
                e.workarounds.len()
            ),
        );
    }
    if e.dead_ends_zh.len() != e.dead_ends.len() {
        problem(
            "dead_ends_zh",
            format!(
                "has {} items, `dead_ends` has {}",
                e.dead_ends_zh.len(),
                e.dead_ends.len()
            ),
        );
    }
    for (i, zh) in e.workarounds_zh.iter().enumerate() {
        if !has_cjk(zh) {
            problem(
                &format!("workarounds_zh[{i}]"),
                "must be written in Chinese".into(),
            );
        }
    }
    for (i, zh) in e.dead_ends_zh.iter().enumerate() {
        if !has_cjk(&zh.action) || !has_cjk(&zh.why_fails) {
            problem(
                &format!("dead_ends_zh[{i}]"),
                "must be written in Chinese".into(),
            );
        }
    }

    // Rates are probabilities or null.
    let mut rate = |field: String, value: Option<f64>| {
        if let Some(v) = value
            && !(0.0..=1.0).contains(&v)
        {
            out.push(KbError::invalid(
                origin,
                field,
                format!("{v} is not between 0 and 1"),
            ));
        }
    };
    rate("confidence".into(), e.confidence);
    rate("fix_success_rate".into(), e.fix_success_rate);
    for (i, w) in e.workarounds.iter().enumerate() {
        rate(format!("workarounds[{i}].success_rate"), w.success_rate);
    }
    for (i, d) in e.dead_ends.iter().enumerate() {
        rate(format!("dead_ends[{i}].fail_rate"), d.fail_rate);
    }

    // Rules and fixes.
    let mut problem = |field: &str, message: String| {
        out.push(KbError::invalid(origin, field, message));
    };
    for (i, rule) in e.rules.iter().enumerate() {
        if Code::from_str(rule).is_err() {
            problem(&format!("rules[{i}]"), format!("unknown rule `{rule}`"));
        }
    }
    let mut check_fix = |field: &str, fix: &super::schema::FixRef| {
        if Code::from_str(&fix.rule).is_err() {
            problem(field, format!("unknown rule `{}`", fix.rule));
        } else if !e.rules.iter().any(|r| r.eq_ignore_ascii_case(&fix.rule)) {
            problem(field, format!("rule `{}` is not in `rules`", fix.rule));
        }
        if fix.title.trim().is_empty() {
            problem(field, "the code action's title must not be empty".into());
        }
    };
    for (i, w) in e.workarounds.iter().enumerate() {
        if let Some(fix) = &w.fix {
            check_fix(&format!("workarounds[{i}].fix"), fix);
        }
    }
    if let Some(fix) = &e.fix {
        check_fix("fix", fix);
        if !e.workarounds.iter().any(|w| w.fix.as_ref() == Some(fix)) {
            out.push(KbError::invalid(
                origin,
                "fix",
                "is not the `fix` of any workaround",
            ));
        }
    }

    // Links and sources.
    let graph = &e.transition_graph;
    for (name, list) in [
        ("leads_to", &graph.leads_to),
        ("preceded_by", &graph.preceded_by),
        ("frequently_confused_with", &graph.frequently_confused_with),
    ] {
        for (i, id) in list.iter().enumerate() {
            if !ids.contains(id.as_str()) {
                out.push(KbError::invalid(
                    origin,
                    format!("transition_graph.{name}[{i}]"),
                    format!("unknown entry `{id}`"),
                ));
            } else if id == &e.id {
                out.push(KbError::invalid(
                    origin,
                    format!("transition_graph.{name}[{i}]"),
                    "an entry cannot link to itself",
                ));
            }
        }
    }
    if e.evidence.is_empty() {
        out.push(KbError::invalid(
            origin,
            "evidence",
            "cite at least one public source",
        ));
    }
    for (i, ev) in e.evidence.iter().enumerate() {
        if !ev.url.starts_with("https://") {
            out.push(KbError::invalid(
                origin,
                format!("evidence[{i}].url"),
                format!("`{}` is not an https URL", ev.url),
            ));
        }
    }
}

fn is_valid_id(id: &str) -> bool {
    let Some((domain, name)) = id.split_once('/') else {
        return false;
    };
    let part = |s: &str| {
        !s.is_empty()
            && !s.starts_with('-')
            && !s.ends_with('-')
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    part(domain) && part(name)
}

fn has_cjk(s: &str) -> bool {
    s.chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(is_valid_id("pytorch/dataloader-timeout"));
        assert!(!is_valid_id("pytorch/DataLoader"));
        assert!(!is_valid_id("dataloader-timeout"));
        assert!(!is_valid_id("pytorch/-x"));
    }

    #[test]
    fn oversized_pattern_is_rejected() {
        assert!(compile_pattern(r"\w{1000}\w{1000}\w{1000}").is_err());
        assert!(compile_pattern(r"is killed by signal: Bus error").is_ok());
    }
}
