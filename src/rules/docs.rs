//! Rule documentation as markdown: one rule (`dldoctor rule CODE`, hover), the table of all
//! rules (`dldoctor rule`), and the whole of `docs/rules.md`, whose `#dl101` anchors
//! [`Rule::url`](super::Rule::url) points at. A test keeps `docs/rules.md` in step with the
//! registry (`UPDATE_DOCS=1 cargo test` rewrites it).

use std::fmt::Write as _;

use super::{FixAvailability, Rule, all_rules};

impl FixAvailability {
    pub fn sentence(self) -> &'static str {
        match self {
            FixAvailability::Sometimes => "Fix is sometimes available.",
            FixAvailability::None => "Fix is not available.",
        }
    }
}

/// Finds a rule by code (`DL101`, `dl101`) or name (`cuda-in-forked-worker`).
pub fn lookup(query: &str) -> Option<&'static Rule> {
    let query = query.trim();
    all_rules().find(|r| r.code.as_str().eq_ignore_ascii_case(query) || r.name == query)
}

fn docs_or_placeholder(rule: &Rule) -> &str {
    if rule.docs.trim().is_empty() {
        rule.summary
    } else {
        rule.docs.trim()
    }
}

/// The line under a rule's title: severity, fix availability, selection, KB entries.
fn facts(rule: &Rule) -> String {
    let mut out = format!(
        "Default severity: {}. {} {}\n",
        rule.severity.as_str(),
        rule.fix.sentence(),
        if rule.default_enabled {
            "Enabled by default."
        } else if super::EVIDENCE_WITHOUT_OPT_IN.contains(&rule.code) {
            "Opt-in: enable with `extend-select = [\"{code}\"]`; without it, only findings with \
             evidence of a crash are reported."
        } else {
            "Opt-in: enable with `extend-select = [\"{code}\"]`."
        }
        .replace("{code}", rule.code.as_str()),
    );
    if !rule.kb.is_empty() {
        let ids: Vec<String> = rule.kb.iter().map(|id| format!("`{id}`")).collect();
        let _ = writeln!(
            out,
            "\nPrevents the failures of the knowledge-base entries {} (`dldoctor kb show ID`).",
            ids.join(", ")
        );
    }
    out
}

/// `dldoctor rule CODE`: the title line, the facts, then the rule's docs.
pub fn rule_markdown(rule: &Rule) -> String {
    format!(
        "# {} ({})\n\n{}\n{}\n",
        rule.name,
        rule.code,
        facts(rule),
        docs_or_placeholder(rule)
    )
}

/// The table of all rules; `link` makes each code a link to its `#dl101` anchor.
pub fn table_markdown(link: bool) -> String {
    let mut out = String::from(
        "| Code | Name | Severity | Fix | Default | Summary |\n|---|---|---|---|---|---|\n",
    );
    for r in all_rules() {
        let code = if link {
            format!("[{}](#{})", r.code, r.code.as_str().to_ascii_lowercase())
        } else {
            r.code.to_string()
        };
        let fix = match r.fix {
            FixAvailability::Sometimes => "yes",
            FixAvailability::None => "no",
        };
        let default = if r.default_enabled { "on" } else { "opt-in" };
        let _ = writeln!(
            out,
            "| {code} | `{}` | {} | {fix} | {default} | {} |",
            r.name,
            r.severity.as_str(),
            r.summary.replace('|', "\\|")
        );
    }
    out
}

/// The whole of `docs/rules.md`.
pub fn rules_document() -> String {
    let mut out = String::from(
        "# Rules\n\n\
         <!-- Generated from the rule registry (src/rules/); do not edit by hand. \
         Regenerate with `UPDATE_DOCS=1 cargo test rules_md`. -->\n\n\
         Every rule of dldoctor, as `dldoctor rule CODE` prints it. Severities are defaults; \
         change them with `severity = { DL202 = \"info\" }` under `[tool.dldoctor]`.\n\n",
    );
    out.push_str(&table_markdown(true));
    for r in all_rules() {
        let _ = write!(
            out,
            "\n## {}\n\n`{}` — {}\n\n{}\n",
            r.code,
            r.name,
            r.summary,
            facts(r)
        );
        // The rule's own headings sit one level below its `## DL101` anchor heading.
        for line in docs_or_placeholder(r).lines() {
            if line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Code;

    #[test]
    fn lookup_by_code_or_name() {
        assert_eq!(lookup("dl301").map(|r| r.code), Some(Code::DL301));
        assert_eq!(
            lookup("prefetch-factor-without-workers").map(|r| r.code),
            Some(Code::DL301)
        );
        assert!(lookup("DL999").is_none());
    }

    #[test]
    fn one_rule_has_its_title_and_facts() {
        let md = rule_markdown(Code::DL103.rule());
        assert!(md.starts_with("# implicit-start-method (DL103)\n"), "{md}");
        assert!(md.contains("Default severity: hint."), "{md}");
        assert!(
            md.contains("Opt-in: enable with `extend-select = [\"DL103\"]`"),
            "{md}"
        );
        let md = rule_markdown(Code::DL203.rule());
        assert!(md.contains("Fix is not available."), "{md}");
        assert!(
            md.contains("`pytorch/dataloader-worker-bus-error-shm`"),
            "{md}"
        );
    }

    #[test]
    fn table_lists_every_rule() {
        let table = table_markdown(false);
        assert_eq!(table.lines().count(), Code::all().count() + 2);
    }

    /// `docs/rules.md` is generated; this fails when it is out of date.
    #[test]
    fn rules_md_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
        let expected = rules_document();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &expected).unwrap();
            return;
        }
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/rules.md is out of date: regenerate it with `UPDATE_DOCS=1 cargo test rules_md`"
        );
        for code in Code::all() {
            let anchor = code.rule().url();
            let fragment = anchor.rsplit('#').next().unwrap();
            assert!(actual.contains(&format!("\n## {}\n", fragment.to_ascii_uppercase())));
        }
    }

    /// The README's rules table is `dldoctor rule`'s output; this fails, printing the table to
    /// paste, when a rule is added or changed without it.
    #[test]
    fn readme_rules_table_matches_the_registry() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let expected = table_markdown(false);
        let start = readme
            .find("| Code | Name |")
            .expect("README.md has a rules table");
        let end = readme[start..]
            .find("\n\n")
            .map_or(readme.len(), |n| start + n + 1);
        assert!(
            readme[start..end] == expected,
            "README.md's rules table is out of date; replace it with:\n\n{expected}"
        );
    }
}
