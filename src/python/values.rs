//! Values the model can resolve statically, and where each came from.
//!
//! A value is either known exactly (a literal, a name bound once to one, the `default=` of an
//! argparse option), a CPU count that depends on the machine, a multiprocessing context, or
//! unknown. Rules read unknown as "stay quiet": the model never guesses.

use std::fmt;

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
            Value::None => Some(false),
            // A machine has at least one CPU; a context object is truthy.
            Value::CpuCount { exact: true, .. } | Value::Context { .. } => Some(true),
            Value::CpuCount { exact: false, .. } | Value::Unknown => None,
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
            Value::Unknown => f.write_str("<unknown>"),
        }
    }
}

/// Where a resolved value came from, for messages and hover.
#[derive(Clone, Debug, PartialEq)]
pub enum Provenance {
    /// Written in place.
    Literal,
    /// A name bound once to the value; `line` is 1-based, `at` is the bound name.
    Constant {
        name: String,
        line: u32,
        at: TextRange,
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
    },
    /// The default of a function's parameter, where every call found leaves it out (a script's
    /// `main()`, a class constructed from a config): `function` is `main` or
    /// `MNISTLoader.__init__`; `at` is the default's expression.
    ParameterDefault {
        function: String,
        param: String,
        line: u32,
        at: TextRange,
    },
    /// What every call found passes for a function's parameter (`DigitsData(num_workers=4)`);
    /// `at` is the value in the first such call.
    ParameterPassed {
        function: String,
        param: String,
        line: u32,
        at: TextRange,
    },
    /// Computed from other values (arithmetic, `min`, `int(...)`).
    Computed,
    /// A parameter's default in DataLoader's signature (the argument was not passed).
    SignatureDefault,
    /// The default of the loader's own callee (a catalogue entry or a project subclass), which
    /// differs from DataLoader's.
    EntryDefault { entry: String },
}

impl Provenance {
    /// A short note for messages: "the default of --num_workers (line 12)". `None` for a
    /// literal written where it is used.
    pub fn note(&self) -> Option<String> {
        match self {
            Provenance::Literal | Provenance::Computed => None,
            Provenance::Constant { name, line, .. } => {
                Some(format!("the value of {name} (line {line})"))
            }
            Provenance::ArgparseDefault {
                flag,
                line,
                implicit: false,
                ..
            } => Some(format!("the default of {flag} (line {line})")),
            Provenance::ArgparseDefault {
                flag,
                line,
                implicit: true,
                ..
            } => Some(format!("argparse's default for {flag} (line {line})")),
            Provenance::ParameterDefault {
                function,
                param,
                line,
                ..
            } => Some(format!(
                "the default of {param} in {function} (line {line})"
            )),
            Provenance::ParameterPassed {
                function,
                param,
                line,
                ..
            } => Some(format!("passed for {param} to {function} (line {line})")),
            Provenance::SignatureDefault => Some("DataLoader's default".to_owned()),
            Provenance::EntryDefault { entry } => Some(format!("the default of {entry}")),
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

    pub fn literal(value: Value) -> Self {
        Self {
            value,
            provenance: Provenance::Literal,
        }
    }

    /// Where the value is written when that is not where it is used (a constant's
    /// assignment, an argparse option).
    pub fn defined_at(&self) -> Option<TextRange> {
        match &self.provenance {
            Provenance::Constant { at, .. }
            | Provenance::ArgparseDefault { at, .. }
            | Provenance::ParameterDefault { at, .. }
            | Provenance::ParameterPassed { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// "64 (the default of --num_workers (line 12))" style text: the value, then where it came
    /// from when it was not written in place.
    pub fn describe(&self) -> String {
        match self.provenance.note() {
            Some(note) => format!("{}, {note}", self.value),
            None => self.value.to_string(),
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
            },
        };
        assert_eq!(r.describe(), "64, the default of --num_workers (line 12)");
    }
}
