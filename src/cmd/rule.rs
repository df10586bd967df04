//! `dldoctor rule`.

use std::process::ExitCode;

pub fn run(_args: crate::RuleArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor rule` is not built yet")
}
