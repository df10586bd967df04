//! The `dldoctor` binary: argument parsing and dispatch. Each command lives in `cmd/`.

mod cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use dldoctor::lang::Lang;

#[derive(Parser)]
#[command(
    name = "dldoctor",
    version,
    about = "Keeps PyTorch training runs from dying in their DataLoader workers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check Python files for risky DataLoader construction.
    Check(CheckArgs),
    /// Diagnose crash output (a log, a pasted traceback) against the knowledge base.
    Explain(ExplainArgs),
    /// Show the facts of this machine that decide DataLoader failures.
    Env(EnvArgs),
    /// Show every loader construction the analysis finds: by which catalogue entry, each
    /// argument's value and where it comes from, the start method and why, and what stayed
    /// unknown and why.
    Loaders(LoadersArgs),
    /// Show a rule's documentation, or the table of all rules.
    Rule(RuleArgs),
    /// List, show and validate knowledge-base entries.
    Kb(KbArgs),
    /// Run the language server on stdio.
    Lsp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlainFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (default: the current directory).
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: CheckFormat,
    /// Apply safe fixes.
    #[arg(long)]
    pub fix: bool,
    /// With --fix, also apply unsafe fixes (they change behaviour).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Rule codes or prefixes to run, replacing the configured selection.
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Rule codes or prefixes to add to the selection (opt-in rules such as DL103).
    #[arg(long, value_delimiter = ',')]
    pub extend_select: Vec<String>,
    /// Rule codes or prefixes to skip.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Use N usable CPUs instead of this machine's count.
    #[arg(long, value_name = "N")]
    pub assume_cpus: Option<u32>,
    /// Use this /dev/shm size instead of this machine's (e.g. 64MiB, 16GiB).
    #[arg(long, value_name = "SIZE")]
    pub assume_shm: Option<String>,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    pub exit_zero: bool,
    /// Use this pyproject.toml instead of the nearest one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A log file, or - for standard input (the default).
    pub file: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: PlainFormat,
    #[arg(long, default_value = "en", value_parser = lang_parser())]
    pub lang: Lang,
    /// The project root: frames under it are the user's code.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Extra knowledge-base folders.
    #[arg(long, value_name = "DIR")]
    pub kb: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct EnvArgs {
    #[arg(long, value_enum, default_value = "text")]
    pub format: PlainFormat,
}

#[derive(Args, Debug)]
pub struct LoadersArgs {
    /// Files or directories (default: the current directory).
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: PlainFormat,
}

#[derive(Args, Debug)]
pub struct RuleArgs {
    /// A rule code (DL101) or name (cuda-in-forked-worker); all rules without one.
    pub code: Option<String>,
}

#[derive(Args, Debug)]
pub struct KbArgs {
    #[command(subcommand)]
    pub command: KbCommand,
}

#[derive(Subcommand, Debug)]
pub enum KbCommand {
    /// List the entries.
    List {
        /// Extra knowledge-base folders.
        #[arg(long, value_name = "DIR")]
        kb: Vec<PathBuf>,
    },
    /// Show one entry.
    Show {
        id: String,
        #[arg(long, default_value = "en", value_parser = lang_parser())]
        lang: Lang,
        #[arg(long, value_name = "DIR")]
        kb: Vec<PathBuf>,
    },
    /// Validate entries: the embedded ones, or those in DIR.
    Validate { dir: Option<PathBuf> },
}

/// `--lang en|zh`, listed in the help as clap lists an enum's values.
fn lang_parser() -> impl TypedValueParser<Value = Lang> {
    PossibleValuesParser::new(["en", "zh"]).try_map(|s| s.parse::<Lang>())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Env(args) => cmd::env::run(args),
        Command::Loaders(args) => cmd::loaders::run(args),
        Command::Rule(args) => cmd::rule::run(args),
        Command::Kb(args) => cmd::kb::run(args),
        Command::Lsp => cmd::lsp::run(),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dldoctor: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
