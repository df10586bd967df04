//! `dldoctor env`: the facts of this machine that decide DataLoader failures.

use std::process::ExitCode;

use dldoctor::host::HostFacts;

use crate::PlainFormat;

pub fn run(args: crate::EnvArgs) -> anyhow::Result<ExitCode> {
    let facts = HostFacts::detect();
    match args.format {
        PlainFormat::Text => print!("{}", facts.to_text()),
        PlainFormat::Json => println!("{}", serde_json::to_string_pretty(&facts.to_json())?),
    }
    Ok(ExitCode::SUCCESS)
}
