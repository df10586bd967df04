//! `dldoctor kb`.

use std::process::ExitCode;

pub fn run(_args: crate::KbArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor kb` is not built yet")
}
