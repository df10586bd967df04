//! `dldoctor explain`.

use std::process::ExitCode;

pub fn run(_args: crate::ExplainArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor explain` is not built yet")
}
