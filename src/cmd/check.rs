//! `dldoctor check`.

use std::process::ExitCode;

pub fn run(_args: crate::CheckArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor check` is not built yet")
}
