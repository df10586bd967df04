//! `dldoctor explain`: diagnoses crash output (a file or standard input) against the knowledge
//! base. Streams the input, so a multi-gigabyte log is read with flat memory.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use dldoctor::analyze::{self, Context};
use dldoctor::config::{ConfigResolver, Overrides};
use dldoctor::diagnostic::Diagnostic;
use dldoctor::host::HostFacts;
use dldoctor::kb::place::{self, Disk, PlacedFile};
use dldoctor::kb::{self, ExplainOptions, Finding, KnowledgeBase};
use dldoctor::python::index::ProjectIndex;

use crate::{ExplainArgs, PlainFormat};

pub fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    // Frames in crash output carry absolute paths, so a relative `--root` must become one to
    // mark them as the user's.
    let root = args.root.as_deref().map(absolute_root);
    let mut dirs = configured_kb_dirs(root.as_deref());
    dirs.extend(args.kb.iter().cloned());
    let kb = KnowledgeBase::with_dirs(&dirs).context("reading the knowledge base")?;
    let lang = args.lang;
    let options = ExplainOptions { root, lang };
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
                let placed = placed(&findings, options.root.as_deref());
                print!("{}", kb::render::render_text(&findings, &placed, &kb, lang));
            }
        }
    }
    Ok(if findings.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The findings on the user's files, with the fixes `check` offers there, analysed as `check`
/// would (each file's pyproject.toml, this machine).
fn placed(findings: &[Finding], root: Option<&Path>) -> Vec<PlacedFile> {
    let resolver = ConfigResolver::new(Overrides::default());
    let host = HostFacts::detect();
    let index = ProjectIndex::default();
    let analyze = |path: &Path, source: &str| -> Vec<Diagnostic> {
        let Ok(settings) = resolver.settings_for(path) else {
            return Vec::new();
        };
        let ctx = Context {
            settings: &settings,
            host: &host,
            index: &index,
        };
        analyze::analyze(source, path, &ctx)
    };
    place::place(findings, root, &Disk(analyze))
}

fn absolute_root(root: &Path) -> PathBuf {
    std::fs::canonicalize(root)
        .or_else(|_| std::path::absolute(root))
        .unwrap_or_else(|_| root.to_path_buf())
}

/// The `kb = [...]` folders of the nearest pyproject.toml with a `[tool.dldoctor]` table, found
/// from `--root` or the current directory. A broken config does not stop the diagnosis of a
/// crash: it is reported and skipped.
fn configured_kb_dirs(root: Option<&Path>) -> Vec<PathBuf> {
    let start = match root {
        Some(root) => root.to_path_buf(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let resolver = ConfigResolver::new(Overrides::default());
    // The resolver looks up the settings of a file; any name in the start folder will do.
    match resolver.settings_for(&start.join("pyproject.toml")) {
        Ok(settings) => settings.kb.clone(),
        Err(err) => {
            eprintln!("dldoctor: warning: {err}; using the built-in knowledge base");
            Vec::new()
        }
    }
}
