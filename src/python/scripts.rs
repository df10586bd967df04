//! The commands a project gives to run its Python scripts: its shell scripts
//! (`scripts/train.sh`: `python main.py --num_workers=32 --lr 5e-5 ...`) and the shell code
//! blocks of its READMEs (a README's "to train, run ..."). A research repository's README
//! says to run one of these, so what they pass on the command line is what a run gets. Each
//! `*.sh` and `README*.md` file is read once per project: its commands that launch a Python
//! file (through `python`, `python3.x`, `torchrun`, `deepspeed`, `accelerate launch`, or
//! `python -m torch.distributed.launch`; or a module with `python -m pkg.train`), the file
//! found from the script's folder or one above it (scripts run from the folder of the code, or
//! from the top; a README's command also from a folder its blocks `cd` into), and the words
//! that follow it. `NAME=value` lines give `$NAME` and `${NAME}`; any other `$` leaves a word
//! unknown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::python::fs::{self, normalised};

/// A script larger than this is no launcher.
const MAX_SCRIPT_BYTES: u64 = 256 * 1024;

/// More shell scripts than this under a project and none is read.
const MAX_SCRIPTS: usize = 2000;

/// One command of a shell script that runs a Python file of the project.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    /// The script, as the project's listing names it.
    pub script: PathBuf,
    /// The 1-based line the command starts on.
    pub line: u32,
    /// The words after the Python file, up to the end of the command; `None` for a word
    /// holding a shell expansion that cannot be read.
    pub args: Vec<Option<String>>,
}

/// What a run passes for an option.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Given {
    /// The option is not on the command line.
    Absent,
    /// The option alone (`--fp16`).
    Flag,
    /// The option with a value (`--workers 20`, `--workers=20`).
    Value(String),
    /// The option with a value that cannot be read (`--workers $N`).
    Unknown,
}

impl Run {
    /// What this run passes for the option spelled any of `flags` (the last one given wins,
    /// as argparse takes it).
    pub(crate) fn passed(&self, flags: &[String], takes_value: bool) -> Given {
        let mut found = Given::Absent;
        let mut words = self.args.iter().peekable();
        while let Some(word) = words.next() {
            let Some(word) = word else {
                continue;
            };
            let (name, inline) = match word.split_once('=') {
                Some((name, value)) if name.starts_with('-') => (name, Some(value)),
                _ => (word.as_str(), None),
            };
            if !flags.iter().any(|f| f == name) {
                continue;
            }
            found = match (inline, takes_value) {
                (Some(value), _) => Given::Value(value.to_owned()),
                (None, false) => Given::Flag,
                (None, true) => match words.next() {
                    Some(Some(value)) if !is_option(value) => Given::Value(value.clone()),
                    Some(None) => Given::Unknown,
                    _ => Given::Unknown,
                },
            };
        }
        found
    }
}

/// `--x` or `-x`, but not a negative number.
fn is_option(word: &str) -> bool {
    word.starts_with('-') && word.parse::<f64>().is_err()
}

/// The runs of every shell script and README under `root`, by the Python file each runs (as
/// the listing names files: `root` joined with the path below it).
pub(crate) fn runs_under(root: &Path) -> HashMap<PathBuf, Vec<Run>> {
    let sources: Vec<PathBuf> = fs::files_under(root, None, true, |p| {
        p.extension().is_some_and(|e| e == "sh") || is_readme(p)
    })
    .take(MAX_SCRIPTS + 1)
    .collect();
    let mut runs: HashMap<PathBuf, Vec<Run>> = HashMap::new();
    if sources.len() > MAX_SCRIPTS {
        return runs;
    }
    for source in sources {
        let Some(text) = read_script(&source) else {
            continue;
        };
        let (found, folders) = match is_readme(&source) {
            true => readme_commands(&text),
            false => (commands(&text), Vec::new()),
        };
        for (line, words) in found {
            let Some((target, args)) = launched(&words) else {
                continue;
            };
            let Some(file) = find_target(&source, root, &target, &folders) else {
                continue;
            };
            runs.entry(file).or_default().push(Run {
                script: source.clone(),
                line,
                args,
            });
        }
    }
    runs
}

/// `README.md`, `readme.md`, `README_en.md`: a project's instructions.
fn is_readme(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    lower.starts_with("readme") && lower.ends_with(".md")
}

/// The info strings of a Markdown code block that holds shell commands (none counts: such
/// blocks usually do).
const SHELL_BLOCKS: &[&str] = &[
    "",
    "bash",
    "sh",
    "shell",
    "console",
    "zsh",
    "shell-session",
    "sh-session",
    "bash-session",
];

/// A command: the line it starts on, and its words (`None` for one that cannot be read).
type Command = (u32, Vec<Option<String>>);

/// A Markdown code block being read.
struct Block {
    /// The fence that opened it (a closing fence is at least as long).
    fence: String,
    /// Whether its info string names a shell (or nothing).
    shell: bool,
    /// The line of its first line of text.
    first: u32,
    text: String,
}

/// The commands of a README's shell code blocks, as [`commands`] reads each block, with the
/// README's line numbers; and the folders its blocks `cd` into (relative ones only), where
/// its commands may run from.
fn readme_commands(text: &str) -> (Vec<Command>, Vec<String>) {
    let mut out = Vec::new();
    let mut folders = Vec::new();
    let mut open: Option<Block> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = raw.trim_start();
        let fence: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        // One kind of fence character, three or more.
        let is_fence = fence.len() >= 3 && !(fence.contains('`') && fence.contains('~'));
        let rest = trimmed[fence.len()..].trim();
        match open.as_mut() {
            None if is_fence => {
                let lang = rest.split_whitespace().next().unwrap_or("");
                open = Some(Block {
                    shell: SHELL_BLOCKS.contains(&lang.to_ascii_lowercase().as_str()),
                    fence,
                    first: line.saturating_add(1),
                    text: String::new(),
                });
            }
            None => {}
            Some(block) if is_fence && fence.starts_with(&block.fence) && rest.is_empty() => {
                let block = open.take();
                for (at, words) in block.map(|b| block_commands(&b)).unwrap_or_default() {
                    if let [Some(cd), Some(dir)] = words.as_slice()
                        && cd == "cd"
                        && !dir.starts_with(['/', '~', '-'])
                        && !dir.split('/').any(|part| part == "..")
                    {
                        folders.push(dir.clone());
                    }
                    out.push((at, words));
                }
            }
            // `$ python train.py`: the prompt is a word no launcher takes.
            Some(block) if block.shell => {
                // A line of options alone goes on with the command above it: READMEs wrap
                // long commands without the `\` a shell needs (`python train.py ... -b 128`,
                // then `--gd 20 -j 40`), and no command starts with an option.
                if trimmed.starts_with('-')
                    && let Some(previous) = block.text.strip_suffix('\n')
                    && previous
                        .rsplit('\n')
                        .next()
                        .is_some_and(|l| !l.trim().is_empty() && !l.trim_end().ends_with('\\'))
                {
                    block.text.truncate(previous.len());
                    block.text.push_str(" \\\n");
                }
                block.text.push_str(raw);
                block.text.push('\n');
            }
            Some(_) => {}
        }
    }
    (out, folders)
}

/// The commands of a shell code block, at the README's lines; none for another language.
fn block_commands(block: &Block) -> Vec<Command> {
    if !block.shell {
        return Vec::new();
    }
    commands(&block.text)
        .into_iter()
        .map(|(at, words)| (block.first.saturating_add(at.saturating_sub(1)), words))
        .collect()
}

fn read_script(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_SCRIPT_BYTES {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// A Python file or module a command names.
#[derive(Debug, PartialEq)]
enum Target {
    File(String),
    Module(String),
}

/// The commands of a script, each with the line it starts on and its words (`None` for a
/// word with an expansion the script's own `NAME=value` lines do not give). A line ending
/// in `\` goes on on the next; `;`, `&&`, `||`, `|` and `&` end a command.
fn commands(text: &str) -> Vec<Command> {
    let mut out = Vec::new();
    let mut variables: HashMap<String, String> = HashMap::new();
    let mut logical = String::new();
    let mut start = 0u32;
    // The empty line after the last ends a command its last line continues.
    for (i, raw) in text.lines().chain(std::iter::once("")).enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if logical.is_empty() {
            start = line;
        }
        match raw.trim_end().strip_suffix('\\') {
            Some(rest) => {
                logical.push_str(rest);
                logical.push(' ');
                continue;
            }
            None => logical.push_str(raw),
        }
        let Some(words) = shlex::split(&logical) else {
            logical.clear();
            continue;
        };
        logical.clear();
        // `NAME=value` (or `export NAME=value`) alone on its line: a variable later commands
        // may expand.
        let assignment = match words.as_slice() {
            [word] => Some(word),
            [export, word] if export == "export" => Some(word),
            _ => None,
        };
        if let Some(word) = assignment
            && let Some((name, value)) = word.split_once('=')
            && is_shell_name(name)
        {
            match expand(value, &variables) {
                Some(value) => variables.insert(name.to_owned(), value),
                None => variables.remove(name),
            };
            continue;
        }
        let mut command = Vec::new();
        for mut word in words {
            // `done;`: the separator written against the word.
            let ends = word.len() > 1 && word.ends_with(';');
            if ends {
                word.pop();
            }
            if ends || matches!(word.as_str(), ";" | "&&" | "||" | "|" | "&") {
                if ends {
                    command.push(expand(&word, &variables));
                }
                if !command.is_empty() {
                    out.push((start, std::mem::take(&mut command)));
                }
                continue;
            }
            command.push(expand(&word, &variables));
        }
        if !command.is_empty() {
            out.push((start, command));
        }
    }
    out
}

fn is_shell_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `word` with `$NAME` and `${NAME}` replaced by the script's own values; `None` when it
/// holds another expansion (`$1`, `$(...)`, a name the script does not set) or a backquote.
fn expand(word: &str, variables: &HashMap<String, String>) -> Option<String> {
    if word.contains('`') {
        return None;
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(braced) => {
                let end = braced.find('}')?;
                (&braced[..end], &braced[end + 1..])
            }
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if !is_shell_name(name) {
            return None;
        }
        out.push_str(variables.get(name)?);
        rest = tail;
    }
    out.push_str(rest);
    Some(out)
}

/// The Python file or module a command launches, and the words after it; `None` for a
/// command that launches none.
fn launched(words: &[Option<String>]) -> Option<(Target, Vec<Option<String>>)> {
    let mut launcher = false;
    let mut module_next = false;
    for (i, word) in words.iter().enumerate() {
        let Some(word) = word else {
            // An expansion the script does not give may be the file itself, unless it is
            // the value of a launcher's option (`--nproc_per_node $NGPUS`).
            let value_of_option = i
                .checked_sub(1)
                .and_then(|p| words[p].as_deref())
                .is_some_and(|p| LAUNCHER_OPTIONS.contains(&p.trim_start_matches('-')));
            if launcher && !value_of_option {
                return None;
            }
            continue;
        };
        let rest = || words[i + 1..].to_vec();
        if module_next {
            module_next = false;
            // A launcher module runs the file named after it.
            if matches!(
                word.as_str(),
                "torch.distributed.launch" | "torch.distributed.run"
            ) {
                continue;
            }
            return Some((Target::Module(word.clone()), rest()));
        }
        if launcher {
            if word == "-m" {
                module_next = true;
                continue;
            }
            if word.ends_with(".py") && !word.starts_with('-') {
                return Some((Target::File(word.clone()), rest()));
            }
            continue;
        }
        let program = word.rsplit('/').next().unwrap_or(word);
        launcher = is_python(program)
            || matches!(
                program,
                "torchrun" | "deepspeed" | "accelerate" | "horovodrun"
            );
    }
    None
}

/// Options of the launchers (`torch.distributed.launch`, `torchrun`, `accelerate launch`,
/// `deepspeed`) that take a value, without their dashes.
const LAUNCHER_OPTIONS: &[&str] = &[
    "nproc_per_node",
    "nproc-per-node",
    "nnodes",
    "node_rank",
    "node-rank",
    "master_addr",
    "master-addr",
    "master_port",
    "master-port",
    "rdzv_endpoint",
    "rdzv-endpoint",
    "num_processes",
    "num-processes",
    "num_machines",
    "num-machines",
    "machine_rank",
    "machine-rank",
    "main_process_port",
    "main-process-port",
    "num_gpus",
    "num-gpus",
    "include",
];

/// `python`, `python3`, `python3.11`.
fn is_python(program: &str) -> bool {
    program
        .strip_prefix("python")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The file of the project `target` names, from the script's folder or a folder above it up
/// to `root`, nearest first, as the listing would name it.
fn find_target(script: &Path, root: &Path, target: &Target, folders: &[String]) -> Option<PathBuf> {
    let relative: PathBuf = match target {
        Target::File(file) => {
            let path = Path::new(file);
            if path.is_absolute() {
                return None;
            }
            path.to_path_buf()
        }
        Target::Module(module) => {
            let parts: Vec<&str> = module.split('.').collect();
            if !parts.iter().all(|p| is_shell_name(p)) {
                return None;
            }
            let mut path: PathBuf = parts.iter().collect();
            path.set_extension("py");
            path
        }
    };
    let mut folder = script.parent();
    while let Some(dir) = folder {
        let candidate = normalised(&dir.join(&relative));
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir == root || dir.as_os_str().is_empty() {
            break;
        }
        folder = dir.parent();
    }
    // The folders are relative and never go up (see [`readme_commands`]): below the README.
    let here = script.parent()?;
    folders.iter().find_map(|folder| {
        let candidate = normalised(&here.join(folder).join(&relative));
        candidate.is_file().then_some(candidate)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<(u32, Vec<Option<String>>)> {
        commands(text)
    }

    #[test]
    fn commands_join_continued_lines_and_expand_the_scripts_own_variables() {
        let text = "#!/bin/bash\nNW=16\nCUDA_VISIBLE_DEVICES=0 python main.py --gpus \"0\" \\\n   \
                    --num_workers=$NW \\\n   --lr ${LR}\necho done; python eval.py -j 4\n";
        let found = words(text);
        let (line, command) = &found[0];
        assert_eq!(*line, 3);
        let (target, args) = launched(command).unwrap();
        assert_eq!(target, Target::File("main.py".into()));
        assert_eq!(args[2], Some("--num_workers=16".into()));
        // `LR` is not set by the script.
        assert_eq!(args[4], None);
        let (target, args) = launched(&found[2].1).unwrap();
        assert_eq!(target, Target::File("eval.py".into()));
        assert_eq!(args, [Some("-j".into()), Some("4".into())]);
        assert!(launched(&found[1].1).is_none());
    }

    #[test]
    fn readme_blocks_of_shell_give_commands_at_the_readmes_lines() {
        let text = "# T\n\n```python\npython a.py --x 1\n```\n\n  ~~~console\n$ python b.py \\\n  \
                    --workers 9 \\\n  ~~~\n\n```\ncd src/app\ncd ../up\npython c.py\n```\n\n\
                    ````sh\n```\npython d.py\n````\n";
        let (found, folders) = readme_commands(text);
        let lines: Vec<u32> = found.iter().map(|(line, _)| *line).collect();
        // The Python block gives nothing; the console block's command starts on line 8, the
        // bare block's on lines 13 to 15; the four-backtick block holds a three-backtick line.
        assert_eq!(lines, [8, 13, 14, 15, 19, 20]);
        let (target, args) = launched(&found[0].1).unwrap();
        assert_eq!(target, Target::File("b.py".into()));
        assert_eq!(args, [Some("--workers".into()), Some("9".into())]);
        assert_eq!(folders, ["src/app"]);
        // Options wrapped onto lines of their own without `\` go on with the command above;
        // not across an empty line.
        let wrapped = "```\npython t.py --lr 0.1\n--gd 20 -j 40\n\n-x 1\n```\n";
        let (found, _) = readme_commands(wrapped);
        assert_eq!(found.len(), 2);
        let (target, args) = launched(&found[0].1).unwrap();
        assert_eq!(target, Target::File("t.py".into()));
        assert_eq!(args.len(), 6);
        assert_eq!(found[0].0, 2);
        assert!(is_readme(Path::new("docs/README_en.md")));
        assert!(!is_readme(Path::new("docs/readme.txt")));
    }

    #[test]
    fn launchers_and_modules() {
        let launch = |text: &str| launched(&words(text)[0].1).map(|(t, _)| t);
        assert_eq!(
            launch("torchrun --nproc_per_node=8 tools/train.py --workers 4"),
            Some(Target::File("tools/train.py".into()))
        );
        assert_eq!(
            launch("python -m torch.distributed.launch --nproc_per_node 2 train.py"),
            Some(Target::File("train.py".into()))
        );
        assert_eq!(
            launch("python3.10 -m src.train --workers 4"),
            Some(Target::Module("src.train".into()))
        );
        assert_eq!(
            launch("accelerate launch --config_file a.yaml train.py"),
            Some(Target::File("train.py".into()))
        );
        assert_eq!(launch("cp train.py backup.py"), None);
        assert_eq!(launch("$PYTHON train.py"), None);
        // An unknown value of a launcher's option is not the file; an unknown word elsewhere
        // may be.
        assert_eq!(
            launch("python -m torch.distributed.launch --nproc_per_node $NPROC run.py --x 1"),
            Some(Target::File("run.py".into()))
        );
        assert_eq!(launch("python -u $SCRIPT run.py"), None);
    }

    #[test]
    fn what_a_run_passes() {
        let run = |line: &str| Run {
            script: PathBuf::from("run.sh"),
            line: 1,
            args: launched(&words(line)[0].1).unwrap().1,
        };
        let flags = ["--workers".to_owned(), "-j".to_owned()];
        assert_eq!(
            run("python t.py --workers 20 --lr 0.1").passed(&flags, true),
            Given::Value("20".into())
        );
        assert_eq!(
            run("python t.py -j=3 --workers=5").passed(&flags, true),
            Given::Value("5".into())
        );
        assert_eq!(
            run("python t.py --lr 0.1").passed(&flags, true),
            Given::Absent
        );
        assert_eq!(
            run("python t.py --workers $N").passed(&flags, true),
            Given::Unknown
        );
        assert_eq!(
            run("python t.py --workers --lr 1").passed(&flags, true),
            Given::Unknown
        );
        assert_eq!(
            run("python t.py --workers").passed(&flags, false),
            Given::Flag
        );
        assert_eq!(
            run("python t.py --shift -1 --workers 2").passed(&["--shift".to_owned()], true),
            Given::Value("-1".into())
        );
    }
}
