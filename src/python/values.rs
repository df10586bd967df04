//! Values the model can resolve statically, and where each came from.
//!
//! A value is either known exactly (a literal, a name bound once to one, the `default=` of an
//! argparse option), a CPU count that depends on the machine, a multiprocessing context, or
//! unknown. Rules read unknown as "stay quiet": the model never guesses.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::lang::Lang;
use crate::python::labels::EntryName;
use crate::text::TextRange;

/// Which function counted the CPUs. Only `len(os.sched_getaffinity(0))` honours the affinity
/// mask; none of them honours a cgroup CPU quota (psutil's counts the machine's CPUs, logical
/// or physical).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuCountFn {
    /// `os.cpu_count()`
    OsCpuCount,
    /// `multiprocessing.cpu_count()` (also through `torch.multiprocessing`)
    MultiprocessingCpuCount,
    /// `psutil.cpu_count()` (also `logical=False`)
    PsutilCpuCount,
    /// `len(os.sched_getaffinity(0))`
    SchedGetaffinity,
}

impl CpuCountFn {
    /// The call as users write it, for messages.
    pub fn call_text(self) -> &'static str {
        match self {
            CpuCountFn::OsCpuCount => "os.cpu_count()",
            CpuCountFn::MultiprocessingCpuCount => "multiprocessing.cpu_count()",
            CpuCountFn::PsutilCpuCount => "psutil.cpu_count()",
            CpuCountFn::SchedGetaffinity => "len(os.sched_getaffinity(0))",
        }
    }

    /// Whether the count ignores the CPU affinity mask (taskset, cpusets, Slurm, Kubernetes).
    pub fn ignores_affinity(self) -> bool {
        !matches!(self, CpuCountFn::SchedGetaffinity)
    }
}

/// A statically resolved Python value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    /// A CPU count of the machine the code runs on, or a value bounded by one. `exact` is
    /// false when it went through arithmetic or `min`/`max` (`os.cpu_count() // 2`,
    /// `min(args.workers, os.cpu_count())`): then it is at most a multiple of the count, never
    /// a number a rule may compare with the machine's CPUs.
    CpuCount {
        func: CpuCountFn,
        exact: bool,
    },
    /// A `multiprocessing.get_context(method)` (or `torch.multiprocessing.get_context`)
    /// object; `method` is `None` for `get_context()` (the process-wide default) or a method
    /// that is not a literal string.
    Context {
        method: Option<String>,
    },
    /// A whole number one of a function's callers gives its parameter, while others give
    /// another or something unknown: what runs on that caller's path only. The largest such
    /// number, for the rules that warn of a value that may be too large (DL201); every other
    /// rule takes it for unknown, as a value for one path cannot be set beside another
    /// parameter's value for a different path.
    OneCaller(i64),
    /// An empty list, tuple, dict or set display (`default=[]`), spelled as written: false
    /// in a condition, nothing else known of it.
    Empty(&'static str),
    Unknown,
}

impl Value {
    pub fn is_known(&self) -> bool {
        !matches!(self, Value::Unknown)
    }

    /// The value as a number, as Python compares it (`False == 0`, `True == 1`).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    /// The value as an integer (bools count, as in Python).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python truthiness, where it is known.
    pub fn truthy(&self) -> Option<bool> {
        match self {
            Value::Int(i) => Some(*i != 0),
            Value::Float(f) => Some(*f != 0.0),
            Value::Str(s) => Some(!s.is_empty()),
            Value::Bool(b) => Some(*b),
            Value::None | Value::Empty(_) => Some(false),
            // A machine has at least one CPU; a context object is truthy.
            Value::CpuCount { exact: true, .. } | Value::Context { .. } => Some(true),
            Value::CpuCount { exact: false, .. } | Value::OneCaller(_) | Value::Unknown => None,
        }
    }

    /// `x is None`, where it is known.
    pub fn is_none(&self) -> Option<bool> {
        match self {
            Value::Unknown => None,
            Value::None => Some(true),
            _ => Some(false),
        }
    }
}

/// What a message adds to a [`Value::OneCaller`] whose provenance does not say which path
/// gives it (a [`Provenance::Branch`] does).
pub fn path_note(resolved: &Resolved, lang: Lang) -> Option<&'static str> {
    let one_caller = matches!(resolved.value, Value::OneCaller(_))
        && !matches!(resolved.provenance, Provenance::Branch { .. });
    one_caller.then(|| one_caller_note(lang))
}

/// What a message adds to a value one caller gives.
pub fn one_caller_note(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "on one caller's path, where other callers give another value or one not known",
        Lang::Zh => "某一调用方路径上的值，其他调用方给出别的值或未知值",
    }
}

impl fmt::Display for Value {
    /// Python's spelling (`True`, `None`, `'spawn'`), as a user would write the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::None => f.write_str("None"),
            Value::CpuCount { func, .. } => f.write_str(func.call_text()),
            Value::Context {
                method: Some(method),
            } => write!(f, "get_context({method:?})"),
            Value::Context { method: None } => f.write_str("get_context()"),
            Value::OneCaller(i) => write!(f, "{i}"),
            Value::Empty(spelled) => f.write_str(spelled),
            Value::Unknown => f.write_str("<unknown>"),
        }
    }
}

/// A call that hands a value on to another file: `Exp(args)` on line 17 of `run.py`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Via {
    /// The call as written, squeezed to one line.
    pub call: String,
    pub file: PathBuf,
    pub line: u32,
}

impl Via {
    fn place(&self) -> String {
        self.file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }
}

/// "line 12", or "options.py line 12" for another file.
fn place_en(file: Option<&Path>, line: u32) -> String {
    match file.and_then(Path::file_name) {
        Some(name) => format!("{} line {line}", name.to_string_lossy()),
        None => format!("line {line}"),
    }
}

fn place_zh(file: Option<&Path>, line: u32) -> String {
    match file.and_then(Path::file_name) {
        Some(name) => format!("{} 第 {line} 行", name.to_string_lossy()),
        None => format!("第 {line} 行"),
    }
}

/// `what`, and the call that hands it on to another file.
fn through_en(what: String, via: Option<&Via>) -> String {
    match via {
        Some(via) => format!(
            "{what}, through `{}` ({} line {})",
            via.call,
            via.place(),
            via.line
        ),
        None => what,
    }
}

fn through_zh(what: String, via: Option<&Via>) -> String {
    match via {
        Some(via) => format!(
            "{what}，经 {} 第 {} 行的 `{}` 传入",
            via.place(),
            via.line,
            via.call
        ),
        None => what,
    }
}

/// Where a resolved value came from, for messages and hover.
#[derive(Clone, Debug, PartialEq)]
pub enum Provenance {
    /// Written in place.
    Literal,
    /// One side of a conditional expression whose condition is not known before the run
    /// (`0 if len(shards) > 10 else 16`): what a run that takes it gets, and where that side's
    /// value comes from. Its value is a [`Value::OneCaller`].
    Branch {
        /// The condition as written, on one line.
        condition: String,
        /// Whether the side is taken when the condition holds.
        holds: bool,
        inner: Box<Provenance>,
    },
    /// A name bound once to the value; `line` is 1-based, `at` is the bound name.
    Constant {
        name: String,
        line: u32,
        at: TextRange,
    },
    /// A name another module of the project binds once to the value (`NUM_WORKERS = 64` in
    /// `settings.py`, imported or read as `settings.NUM_WORKERS`): `shown` is that file as the
    /// file using it names it.
    ImportedConstant {
        name: String,
        shown: String,
        line: u32,
    },
    /// The `default=` of an argparse option (or argparse's own default when there is none).
    ArgparseDefault {
        /// The option as written, e.g. `--num_workers` or `--num-workers`.
        flag: String,
        line: u32,
        /// The `add_argument(...)` call.
        at: TextRange,
        /// No `default=` was written: argparse's own (`None`, or `False` for `store_true`).
        implicit: bool,
        /// The file of the `add_argument` when it is not the file the value is used in (a
        /// namespace parsed in an entry script and handed to a helper of another file).
        file: Option<PathBuf>,
        /// The call of that file that hands the namespace on towards the use.
        via: Option<Box<Via>>,
        /// The other count every command of the project's shell scripts that runs the file
        /// passes for the option, when they agree on one (the value stays the default: a run
        /// without the scripts gets it).
        passed: Option<Box<ScriptPass>>,
    },
    /// The default of a function's parameter, where every call found leaves it out (a script's
    /// `main()`, a class constructed from a config): `function` is `main` or
    /// `MNISTLoader.__init__`; `at` is the default's expression.
    ParameterDefault {
        function: String,
        param: String,
        line: u32,
        at: TextRange,
        /// The file of the function when it is not the file the value is used in (a caller
        /// of another module hands the default on).
        file: Option<PathBuf>,
        /// The call of that file that hands it on towards the use.
        via: Option<Box<Via>>,
    },
    /// What every call found passes for a function's parameter (`DigitsData(num_workers=4)`);
    /// `at` is the value in the first such call.
    ParameterPassed {
        function: String,
        param: String,
        line: u32,
        at: TextRange,
        /// The file of the call when it is not the file the value is used in.
        file: Option<PathBuf>,
    },
    /// The default of a dataclass field (`num_workers: int = 16`, `field(default=16)`), the
    /// value an instance built without it holds (and the command-line default of an
    /// `HfArgumentParser` over the class): `class` and `field` name it, `at` is the default.
    FieldDefault {
        class: String,
        field: String,
        line: u32,
        at: TextRange,
        /// The file of the class when it is not the file the value is used in.
        file: Option<PathBuf>,
    },
    /// The default of a command-line flag the code declares: the `default=` of a
    /// `@click.option` on the entry function, or of an absl `flags.DEFINE_integer(...)`.
    FlagDefault {
        flag: String,
        line: u32,
        at: TextRange,
    },
    /// A value of a YAML configuration file (Hydra's primary config and its defaults list,
    /// `OmegaConf.load("x.yaml")`): `key` is its dotted path, `shown` the file as the code
    /// names it relative to the file using it.
    ConfigFile {
        key: String,
        shown: String,
        line: u32,
    },
    /// A default of a configuration set in Python code (a yacs `_C.TRAIN.workers = 16`),
    /// not changed by a merge the analysis reads: `name` as assigned there, `shown` its file
    /// as the file using it names it.
    ConfigDefault {
        name: String,
        shown: String,
        line: u32,
    },
    /// A configuration value merged from a file named only at run time, that every config
    /// file of the project the merge may load gives alike: `base` is where it comes from (the
    /// default they keep, or the first file that sets it), `files` how many there are, `call`
    /// the merge as written.
    Shipped {
        base: Box<Provenance>,
        files: usize,
        call: String,
    },
    /// A configuration value merged from the file every run of the project's shell scripts
    /// and READMEs names for an option a run must give (`--cfg experiments/res50.yaml`):
    /// `base` is where in the merged config it comes from, `written` the option as the first
    /// such command writes it, at `script` line `line`; `others` more files named by other
    /// commands give the same value.
    RunConfig {
        base: Box<Provenance>,
        written: String,
        script: PathBuf,
        line: u32,
        others: usize,
    },
    /// A default (`base`) the command line may change, with the other count every command of
    /// the project's shell scripts and READMEs that runs the file passes for it (an
    /// `HfArgumentParser` field, `--dataloader_num_workers 32`): the value stays the default,
    /// which a run without them gets.
    RunPassed {
        base: Box<Provenance>,
        passed: Box<ScriptPass>,
    },
    /// What a command of the project's shell scripts and READMEs sets a key of a Hydra config
    /// to (`model.num_workers=32`): `written` as it writes it, at `script` line `line`.
    RunOverride {
        written: String,
        script: PathBuf,
        line: u32,
    },
    /// A configuration value that stays unknown, and why (the value is unknown).
    ConfigGap(ConfigGap),
    /// Computed from other values (arithmetic, `min`, `int(...)`).
    Computed,
    /// A parameter's default in DataLoader's signature (the argument was not passed).
    SignatureDefault,
    /// The default of the loader's own callee (a catalogue entry or a project subclass), which
    /// differs from DataLoader's.
    EntryDefault { entry: EntryName },
}

/// An option's value as the project's shell scripts pass it (`--workers 20` in
/// `scripts/train.sh`), every command of them that runs the file agreeing.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptPass {
    pub value: i64,
    /// The option and value as the first command writes them.
    pub written: String,
    /// That command's script and line.
    pub script: PathBuf,
    pub line: u32,
    /// How many commands run the file, and its name.
    pub runs: usize,
    pub runs_file: String,
}

impl ScriptPass {
    /// Where the value comes from, in `lang`, naming the option's `default` (as the default's
    /// provenance says it) beside it.
    pub fn note(&self, lang: Lang, default: Option<&str>) -> String {
        match lang {
            Lang::En => self.note_en(default),
            Lang::Zh => self.note_zh(default),
        }
    }

    fn note_en(&self, default: Option<&str>) -> String {
        let shown = shown_script(&self.script);
        let every = match self.runs {
            1 => format!(
                "the one command of the project's shell scripts and READMEs that runs {}",
                self.runs_file
            ),
            n => format!(
                "as every one of the {n} commands of the project's shell scripts and READMEs \
                 that run {} passes it",
                self.runs_file
            ),
        };
        let passed = format!("`{}` in {shown} line {}, {every}", self.written, self.line);
        match default {
            Some(default) => format!("{passed}, while a run without them gets {default}"),
            None => passed,
        }
    }

    fn note_zh(&self, default: Option<&str>) -> String {
        let shown = shown_script(&self.script);
        let every = match self.runs {
            1 => format!(
                "项目的 shell 脚本与 README 中运行 {} 的唯一一条命令",
                self.runs_file
            ),
            n => format!(
                "项目的 shell 脚本与 README 中运行 {} 的全部 {n} 条命令都这样传入",
                self.runs_file
            ),
        };
        let passed = format!("{shown} 第 {} 行的 `{}`，{every}", self.line, self.written);
        match default {
            Some(default) => format!("{passed}；不经脚本运行时为{default}"),
            None => passed,
        }
    }
}

/// A script's path as its project's listing gives it, without a leading `./`.
fn shown_script(script: &Path) -> String {
    let shown = script.strip_prefix(".").unwrap_or(script);
    shown.to_string_lossy().into_owned()
}

/// Why a value read from a configuration file stays unknown.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigGap {
    /// `${...}`: resolved by OmegaConf at run time.
    Interpolation {
        key: String,
        shown: String,
        line: u32,
    },
    /// `???`: a mandatory value the command line must give.
    Mandatory {
        key: String,
        shown: String,
        line: u32,
    },
    /// The key is not in the file (a command-line `+key=` may add it).
    NoKey { key: String, shown: String },
    /// The file is not there.
    NoFile { shown: String },
    /// The file is not YAML the parser can read.
    Unreadable { shown: String, line: u32 },
    /// A defaults list or package directive the analysis does not follow.
    Composed { shown: String },
    /// A merge into a yacs config (`cfg.merge_from_list(args.opts)`, a `merge_from_file` of a
    /// path known only at run time) that may change it: `call` as written, on `line`.
    Merged { call: String, line: u32 },
    /// The file that hands the config to another writes the key (`cfg.num_workers = 2`):
    /// the value read there may not be the file's.
    Written { key: String, shown: String },
    /// A value of a Python dict config that is no literal (`'num_workers': os.cpu_count()`).
    Computed {
        key: String,
        shown: String,
        line: u32,
    },
    /// The config files the project's commands name for a run (`--cfg a.yaml`, `--cfg
    /// b.yaml`) do not all give the key the same value: `files` of them.
    Disagree { key: String, files: usize },
}

impl ConfigGap {
    fn note(&self, lang: Lang) -> String {
        match (self, lang) {
            (ConfigGap::Interpolation { key, shown, line }, Lang::En) => format!(
                "{key} in {shown} line {line} is an interpolation, resolved only when the code runs"
            ),
            (ConfigGap::Interpolation { key, shown, line }, Lang::Zh) => {
                format!("{shown} 第 {line} 行的 {key} 是插值，运行时才能求出")
            }
            (ConfigGap::Mandatory { key, shown, line }, Lang::En) => {
                format!("{key} in {shown} line {line} is `???`, a value the command line must give")
            }
            (ConfigGap::Mandatory { key, shown, line }, Lang::Zh) => {
                format!("{shown} 第 {line} 行的 {key} 为 `???`，须由命令行给出")
            }
            (ConfigGap::NoKey { key, shown }, Lang::En) => {
                format!("{shown} has no {key} (the command line may add it)")
            }
            (ConfigGap::NoKey { key, shown }, Lang::Zh) => {
                format!("{shown} 中没有 {key}（可能由命令行添加）")
            }
            (ConfigGap::NoFile { shown }, Lang::En) => {
                format!("the config file {shown} is not there")
            }
            (ConfigGap::NoFile { shown }, Lang::Zh) => format!("配置文件 {shown} 不存在"),
            (ConfigGap::Unreadable { shown, line }, Lang::En) => {
                format!("the config file {shown} is not readable YAML (line {line})")
            }
            (ConfigGap::Unreadable { shown, line }, Lang::Zh) => {
                format!("配置文件 {shown} 不是可读的 YAML（第 {line} 行）")
            }
            (ConfigGap::Composed { shown }, Lang::En) => {
                format!("{shown} is composed in a way the analysis does not follow")
            }
            (ConfigGap::Composed { shown }, Lang::Zh) => {
                format!("{shown} 的组合方式超出了分析范围")
            }
            (ConfigGap::Merged { call, line }, Lang::En) => {
                format!("{call} (line {line}) may change it when the code runs")
            }
            (ConfigGap::Merged { call, line }, Lang::Zh) => {
                format!("第 {line} 行的 {call} 在运行时可能改变它")
            }
            (ConfigGap::Written { key, shown }, Lang::En) => {
                format!("{shown}, which hands the config on, writes {key}")
            }
            (ConfigGap::Written { key, shown }, Lang::Zh) => {
                format!("传出该配置的 {shown} 改写了 {key}")
            }
            (ConfigGap::Computed { key, shown, line }, Lang::En) => {
                format!("{key} in {shown} line {line} is computed when the code runs")
            }
            (ConfigGap::Computed { key, shown, line }, Lang::Zh) => {
                format!("{shown} 第 {line} 行的 {key} 在运行时计算")
            }
            (ConfigGap::Disagree { key, files }, Lang::En) => format!(
                "the {files} config files the project's commands name do not all give {key} the \
                 same value"
            ),
            (ConfigGap::Disagree { key, files }, Lang::Zh) => {
                format!("项目命令指定的 {files} 个配置文件给出的 {key} 不尽相同")
            }
        }
    }
}

impl Provenance {
    /// A short note for messages: "the default of --num_workers (line 12)", in Chinese "第 12
    /// 行 --num_workers 的默认值". `None` for a literal written where it is used.
    pub fn note(&self, lang: Lang) -> Option<String> {
        match lang {
            Lang::En => self.note_en(),
            Lang::Zh => self.note_zh(),
        }
    }

    fn note_en(&self) -> Option<String> {
        match self {
            Provenance::Literal | Provenance::Computed => None,
            Provenance::Branch {
                condition,
                holds,
                inner,
            } => {
                let when = match holds {
                    true => format!("when `{condition}` holds"),
                    false => format!("when `{condition}` does not hold"),
                };
                Some(match inner.note_en() {
                    Some(note) => format!("{note}, {when}"),
                    None => when,
                })
            }
            Provenance::Constant { name, line, .. } => {
                Some(format!("the value of {name} (line {line})"))
            }
            Provenance::ImportedConstant { name, shown, line } => {
                Some(format!("the value of {name} ({shown} line {line})"))
            }
            Provenance::ArgparseDefault {
                flag,
                line,
                implicit,
                file,
                via,
                ..
            } => {
                let place = place_en(file.as_deref(), *line);
                let what = if *implicit {
                    format!("argparse's default for {flag} ({place})")
                } else {
                    format!("the default of {flag} ({place})")
                };
                Some(through_en(what, via.as_deref()))
            }
            Provenance::ParameterDefault {
                function,
                param,
                line,
                file,
                via,
                ..
            } => {
                let place = place_en(file.as_deref(), *line);
                let what = format!("the default of {param} in {function} ({place})");
                Some(through_en(what, via.as_deref()))
            }
            Provenance::ParameterPassed {
                function,
                param,
                line,
                file,
                ..
            } => Some(format!(
                "passed for {param} to {function} ({})",
                place_en(file.as_deref(), *line)
            )),
            Provenance::FieldDefault {
                class,
                field,
                line,
                file,
                ..
            } => Some(format!(
                "the default of {class}.{field} ({})",
                place_en(file.as_deref(), *line)
            )),
            Provenance::FlagDefault { flag, line, .. } => {
                Some(format!("the default of {flag} (line {line})"))
            }
            Provenance::ConfigFile { key, shown, line } => {
                Some(format!("{key} in {shown} line {line}"))
            }
            Provenance::ConfigDefault { name, shown, line } => {
                Some(format!("the default of {name} ({shown} line {line})"))
            }
            Provenance::Shipped { base, files, call } => Some(format!(
                "{}, as every one of the {files} config files of the project that `{call}` may \
                 load gives it",
                base.note(Lang::En).unwrap_or_default()
            )),
            Provenance::RunConfig {
                base,
                written,
                script,
                line,
                others,
            } => Some(format!(
                "{}, the config `{written}` names in {} line {line}{}",
                base.note(Lang::En).unwrap_or_default(),
                shown_script(script),
                match others {
                    0 => String::new(),
                    1 => ", as does the other config file the project's commands name".to_owned(),
                    n => format!(", as do the {n} other config files the project's commands name"),
                }
            )),
            Provenance::RunPassed { base, .. } => base.note(Lang::En),
            Provenance::RunOverride {
                written,
                script,
                line,
            } => Some(format!(
                "`{written}` in {} line {line}",
                shown_script(script)
            )),
            Provenance::ConfigGap(gap) => Some(gap.note(Lang::En)),
            Provenance::SignatureDefault => Some("DataLoader's default".to_owned()),
            Provenance::EntryDefault { entry } => {
                Some(format!("the default of {}", entry.render(Lang::En)))
            }
        }
    }

    fn note_zh(&self) -> Option<String> {
        match self {
            Provenance::Literal | Provenance::Computed => None,
            Provenance::Branch {
                condition,
                holds,
                inner,
            } => {
                let when = match holds {
                    true => format!("`{condition}` 成立时"),
                    false => format!("`{condition}` 不成立时"),
                };
                Some(match inner.note_zh() {
                    Some(note) => format!("{note}，{when}"),
                    None => when,
                })
            }
            Provenance::Constant { name, line, .. } => Some(format!("第 {line} 行 {name} 的值")),
            Provenance::ImportedConstant { name, shown, line } => {
                Some(format!("{shown} 第 {line} 行 {name} 的值"))
            }
            Provenance::ArgparseDefault {
                flag,
                line,
                implicit,
                file,
                via,
                ..
            } => {
                let place = place_zh(file.as_deref(), *line);
                let what = if *implicit {
                    format!("{place} argparse 为 {flag} 给出的默认值")
                } else {
                    format!("{place} {flag} 的默认值")
                };
                Some(through_zh(what, via.as_deref()))
            }
            Provenance::ParameterDefault {
                function,
                param,
                line,
                file,
                via,
                ..
            } => {
                let place = place_zh(file.as_deref(), *line);
                let what = format!("{place} {function} 的参数 {param} 的默认值");
                Some(through_zh(what, via.as_deref()))
            }
            Provenance::ParameterPassed {
                function,
                param,
                line,
                file,
                ..
            } => Some(format!(
                "{}传给 {function} 的参数 {param} 的值",
                place_zh(file.as_deref(), *line)
            )),
            Provenance::FieldDefault {
                class,
                field,
                line,
                file,
                ..
            } => Some(format!(
                "{} {class}.{field} 的默认值",
                place_zh(file.as_deref(), *line)
            )),
            Provenance::FlagDefault { flag, line, .. } => {
                Some(format!("第 {line} 行 {flag} 的默认值"))
            }
            Provenance::ConfigFile { key, shown, line } => {
                Some(format!("{shown} 第 {line} 行 {key} 的值"))
            }
            Provenance::ConfigDefault { name, shown, line } => {
                Some(format!("{shown} 第 {line} 行 {name} 的默认值"))
            }
            Provenance::Shipped { base, files, call } => Some(format!(
                "{}，`{call}` 可能加载的项目内 {files} 个配置文件都给出此值",
                base.note(Lang::Zh).unwrap_or_default()
            )),
            Provenance::RunConfig {
                base,
                written,
                script,
                line,
                others,
            } => Some(format!(
                "{}，即 {} 第 {line} 行 `{written}` 指定的配置{}",
                base.note(Lang::Zh).unwrap_or_default(),
                shown_script(script),
                match others {
                    0 => String::new(),
                    n => format!("（项目命令指定的其他 {n} 个配置文件给出同一值）"),
                }
            )),
            Provenance::RunPassed { base, .. } => base.note(Lang::Zh),
            Provenance::RunOverride {
                written,
                script,
                line,
            } => Some(format!(
                "{} 第 {line} 行的 `{written}`",
                shown_script(script)
            )),
            Provenance::ConfigGap(gap) => Some(gap.note(Lang::Zh)),
            Provenance::SignatureDefault => Some("DataLoader 的默认值".to_owned()),
            Provenance::EntryDefault { entry } => {
                Some(format!("{} 的默认值", entry.render(Lang::Zh)))
            }
        }
    }
}

/// A value with its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub value: Value,
    pub provenance: Provenance,
}

impl Resolved {
    pub fn unknown() -> Self {
        Self {
            value: Value::Unknown,
            provenance: Provenance::Computed,
        }
    }

    /// The value as one caller's ([`Value::OneCaller`]), when it is a whole number; the
    /// rest say nothing once callers disagree.
    pub fn for_one_caller(self) -> Option<Resolved> {
        match self.value {
            Value::Int(n) | Value::OneCaller(n) => Some(Resolved {
                value: Value::OneCaller(n),
                provenance: self.provenance,
            }),
            _ => None,
        }
    }

    /// What callers that disagree give together: the largest whole number as one caller's,
    /// the first such caller's when several give it.
    pub fn largest_of_callers(values: impl IntoIterator<Item = Resolved>) -> Option<Resolved> {
        let number = |r: &Resolved| match r.value {
            Value::OneCaller(n) => n,
            _ => i64::MIN,
        };
        values
            .into_iter()
            .filter_map(Resolved::for_one_caller)
            .reduce(|best, r| if number(&r) > number(&best) { r } else { best })
    }

    pub fn literal(value: Value) -> Self {
        Self {
            value,
            provenance: Provenance::Literal,
        }
    }

    /// The other count the project's shell scripts pass for the argparse option the value is
    /// the default of.
    pub fn script_pass(&self) -> Option<&ScriptPass> {
        match &self.provenance {
            Provenance::ArgparseDefault {
                passed: Some(passed),
                ..
            }
            | Provenance::RunPassed { passed, .. } => Some(passed),
            _ => None,
        }
    }

    /// The value with another provenance (a wrapper's base).
    fn with_provenance(&self, provenance: &Provenance) -> Resolved {
        Resolved {
            value: self.value.clone(),
            provenance: provenance.clone(),
        }
    }

    /// Where the value is written when that is not where it is used (a constant's
    /// assignment, an argparse option).
    pub fn defined_at(&self) -> Option<TextRange> {
        match &self.provenance {
            Provenance::RunPassed { base, .. } => self.with_provenance(base).defined_at(),
            Provenance::Constant { at, .. }
            | Provenance::ArgparseDefault { at, .. }
            | Provenance::ParameterDefault { at, .. }
            | Provenance::ParameterPassed { at, .. }
            | Provenance::FieldDefault { at, .. }
            | Provenance::FlagDefault { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// The file [`Resolved::defined_at`] is in, when it is another file than the one the value
    /// is used in.
    pub fn defined_in(&self) -> Option<PathBuf> {
        match &self.provenance {
            Provenance::RunPassed { base, .. } => self.with_provenance(base).defined_in(),
            Provenance::ArgparseDefault { file, .. }
            | Provenance::ParameterDefault { file, .. }
            | Provenance::ParameterPassed { file, .. }
            | Provenance::FieldDefault { file, .. } => file.clone(),
            _ => None,
        }
    }

    /// The value resolved in the file `path`, as another file reads it: where it was
    /// written names `path` unless it names a file already.
    pub(crate) fn written_in(mut self, path: &Path) -> Resolved {
        if let Provenance::ArgparseDefault { file, .. }
        | Provenance::ParameterDefault { file, .. }
        | Provenance::ParameterPassed { file, .. }
        | Provenance::FieldDefault { file, .. } = &mut self.provenance
            && file.is_none()
        {
            *file = Some(path.to_path_buf());
        }
        self
    }

    /// "64 (the default of --num_workers (line 12))" style text: the value, then where it came
    /// from when it was not written in place.
    pub fn describe(&self, lang: Lang) -> String {
        match (self.provenance.note(lang), lang) {
            (Some(note), Lang::En) => format!("{}, {note}", self.value),
            (Some(note), Lang::Zh) => format!("{}（{note}）", self.value),
            (None, _) => self.value.to_string(),
        }
    }
}

/// Parses a Python integer literal (`1_000`, `0x10`, `0o7`, `0b1`).
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let lower = cleaned.to_ascii_lowercase();
    let (digits, radix) = if let Some(rest) = lower.strip_prefix("0x") {
        (rest, 16)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (rest, 8)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (rest, 2)
    } else {
        (lower.as_str(), 10)
    };
    i64::from_str_radix(digits, radix).ok()
}

/// Parses a Python float literal (`1.5`, `1e3`, `1_0.0`); imaginary literals are not floats.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    if text.ends_with(['j', 'J']) {
        return None;
    }
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    cleaned.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_literals_in_every_base() {
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("0O7"), Some(7));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("99999999999999999999999"), None);
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float("2j"), None);
    }

    #[test]
    fn config_values_name_their_file_field_or_option_in_both_languages() {
        let file = Provenance::ConfigFile {
            key: "misc.num_workers".into(),
            shown: "../conf/config.yaml".into(),
            line: 81,
        };
        let r = Resolved {
            value: Value::Int(10),
            provenance: file,
        };
        assert_eq!(
            r.describe(Lang::En),
            "10, misc.num_workers in ../conf/config.yaml line 81"
        );
        assert_eq!(
            r.describe(Lang::Zh),
            "10（../conf/config.yaml 第 81 行 misc.num_workers 的值）"
        );
        let field = Provenance::FieldDefault {
            class: "TrainConfig".into(),
            field: "num_workers".into(),
            line: 12,
            at: TextRange::default(),
            file: None,
        };
        assert_eq!(
            field.note(Lang::En).as_deref(),
            Some("the default of TrainConfig.num_workers (line 12)")
        );
        assert_eq!(
            field.note(Lang::Zh).as_deref(),
            Some("第 12 行 TrainConfig.num_workers 的默认值")
        );
        let gap = Provenance::ConfigGap(ConfigGap::Mandatory {
            key: "data.workers".into(),
            shown: "conf/config.yaml".into(),
            line: 3,
        });
        assert_eq!(
            gap.note(Lang::En).as_deref(),
            Some(
                "data.workers in conf/config.yaml line 3 is `???`, a value the command line must give"
            )
        );
        assert!(gap.note(Lang::Zh).is_some_and(|n| n.contains("第 3 行")));
    }

    #[test]
    fn python_spelling_and_truthiness() {
        assert_eq!(Value::Bool(true).to_string(), "True");
        assert_eq!(Value::Str("spawn".into()).to_string(), "\"spawn\"");
        assert_eq!(Value::Int(0).truthy(), Some(false));
        assert_eq!(Value::Unknown.truthy(), None);
        assert_eq!(Value::Bool(false).as_int(), Some(0));
        let r = Resolved {
            value: Value::Int(64),
            provenance: Provenance::ArgparseDefault {
                flag: "--num_workers".into(),
                line: 12,
                at: TextRange::default(),
                implicit: false,
                file: None,
                via: None,
                passed: None,
            },
        };
        assert_eq!(
            r.describe(Lang::En),
            "64, the default of --num_workers (line 12)"
        );
        let elsewhere = Resolved {
            provenance: Provenance::ArgparseDefault {
                flag: "--workers".into(),
                line: 8,
                at: TextRange::default(),
                implicit: false,
                file: Some(PathBuf::from("/p/main.py")),
                via: None,
                passed: None,
            },
            ..r
        };
        assert_eq!(
            elsewhere.describe(Lang::En),
            "64, the default of --workers (main.py line 8)"
        );
        let through = Resolved {
            provenance: Provenance::ArgparseDefault {
                flag: "--workers".into(),
                line: 8,
                at: TextRange::default(),
                implicit: false,
                file: Some(PathBuf::from("/p/run.py")),
                via: Some(Box::new(Via {
                    call: "Exp(args)".into(),
                    file: PathBuf::from("/p/run.py"),
                    line: 17,
                })),
                passed: None,
            },
            ..elsewhere
        };
        assert_eq!(
            through.describe(Lang::En),
            "64, the default of --workers (run.py line 8), through `Exp(args)` (run.py line 17)"
        );
        assert_eq!(
            through.describe(Lang::Zh),
            "64（run.py 第 8 行 --workers 的默认值，经 run.py 第 17 行的 `Exp(args)` 传入）"
        );
    }
}
