//! `dldoctor env`.

use std::process::ExitCode;

pub fn run(_args: crate::EnvArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor env` is not built yet")
}
