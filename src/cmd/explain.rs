//! `dldoctor explain`: diagnoses crash output (a file or standard input) against the knowledge
//! base. Streams the input, so a multi-gigabyte log is read with flat memory.

use std::fs::File;
use std::io::{self, BufReader};
use std::process::ExitCode;

use anyhow::Context as _;
use dldoctor::kb::{self, ExplainOptions, KnowledgeBase};

use crate::{ExplainArgs, PlainFormat};

pub fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    let kb = KnowledgeBase::with_dirs(&args.kb).context("reading the knowledge base")?;
    let lang = super::kb::lang(args.lang);
    let options = ExplainOptions {
        root: args.root.clone(),
        lang,
    };
    let findings = match args.file.as_deref() {
        None => kb::explain_reader(io::stdin().lock(), &kb, &options),
        Some(path) if path.as_os_str() == "-" => {
            kb::explain_reader(io::stdin().lock(), &kb, &options)
        }
        Some(path) => {
            let file =
                File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
            kb::explain_reader(BufReader::with_capacity(1 << 16, file), &kb, &options)
        }
    }
    .context("reading the input")?;

    match args.format {
        PlainFormat::Json => {
            let json = serde_json::json!({ "findings": findings });
            println!("{}", serde_json::to_string_pretty(&json)?);
        }
        PlainFormat::Text => {
            if findings.is_empty() {
                match lang {
                    kb::Lang::En => println!("no known failure found"),
                    kb::Lang::Zh => println!("没有找到已知故障"),
                }
            } else {
                print!("{}", kb::render::render_text(&findings, &kb, lang));
            }
        }
    }
    Ok(if findings.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
