//! `dldoctor kb list|show|validate`.

use std::process::ExitCode;

use anyhow::Context as _;
use dldoctor::kb::{self, KnowledgeBase};

use crate::{KbArgs, KbCommand};

pub fn run(args: KbArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        KbCommand::List { kb: dirs } => {
            let kb = KnowledgeBase::with_dirs(&dirs).context("reading the knowledge base")?;
            for entry in kb.entries() {
                println!(
                    "{:<48} {:<8} {:<24} {}",
                    entry.id,
                    entry.severity.as_str(),
                    entry.rules.join(","),
                    entry.title
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        KbCommand::Show {
            id,
            lang: l,
            kb: dirs,
        } => {
            let kb = KnowledgeBase::with_dirs(&dirs).context("reading the knowledge base")?;
            let Some(entry) = kb.entry(&id) else {
                anyhow::bail!("no entry `{id}` (see `dldoctor kb list`)");
            };
            print!("{}", kb::render::render_entry(entry, &kb, l));
            Ok(ExitCode::SUCCESS)
        }
        KbCommand::Validate { dir } => {
            let (entries, mut problems, known) = match &dir {
                Some(dir) => {
                    let (entries, problems) = kb::load_dir(dir)?;
                    let (embedded, _) = kb::embedded_entries();
                    let known: Vec<String> = embedded.into_iter().map(|(_, e)| e.id).collect();
                    (entries, problems, known)
                }
                None => {
                    let (entries, problems) = kb::embedded_entries();
                    (entries, problems, Vec::new())
                }
            };
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            problems.extend(kb::validate::validate(&entries, &known));
            for problem in &problems {
                eprintln!("error: {problem}");
            }
            if problems.is_empty() {
                println!("{} entries valid", entries.len());
                Ok(ExitCode::SUCCESS)
            } else {
                println!("{} problem(s) in {} entries", problems.len(), entries.len());
                Ok(ExitCode::from(1))
            }
        }
    }
}
