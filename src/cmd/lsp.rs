//! `dldoctor lsp`: the language server on stdio. Logs go to stderr (stdout carries the
//! protocol); `DLDOCTOR_LOG` sets the level (`info` by default).

use std::process::ExitCode;

use anyhow::Context as _;
use tracing_subscriber::EnvFilter;

pub fn run() -> anyhow::Result<ExitCode> {
    let filter = EnvFilter::try_from_env("DLDOCTOR_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let code = runtime.block_on(dldoctor::server::serve_stdio());
    // The stdin reader is a blocking thread that would keep the runtime (and the process)
    // alive until the next byte arrives: end the process now.
    std::process::exit(code)
}
