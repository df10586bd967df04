//! `dldoctor rule [CODE|NAME]`: a rule's documentation as markdown, or the table of all rules.

use std::process::ExitCode;

use dldoctor::rules::docs;

pub fn run(args: crate::RuleArgs) -> anyhow::Result<ExitCode> {
    match args.code {
        None => print!("{}", docs::table_markdown(false)),
        Some(query) => match docs::lookup(&query) {
            Some(rule) => print!("{}", docs::rule_markdown(rule)),
            None => anyhow::bail!(
                "unknown rule `{query}`: give a code (DL101) or a name (cuda-in-forked-worker); \
                 `dldoctor rule` lists them all"
            ),
        },
    }
    Ok(ExitCode::SUCCESS)
}
