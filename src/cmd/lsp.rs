//! `dldoctor lsp`.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    anyhow::bail!("`dldoctor lsp` is not built yet")
}
