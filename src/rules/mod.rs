//! The rule catalogue: one module per rule, grouped by family, each with its docs beside its code.
//!
//! Codes are a stable contract (configs, `# noqa` comments and CI scripts name them). A rule is
//! a [`Rule`] (metadata and docs) plus a `check` function that reads the semantic model through
//! a [`Checker`] and reports diagnostics; rules never walk raw syntax trees when the model can
//! answer.

pub mod args;
pub mod docs;
pub mod fork;
pub mod resources;
pub(crate) mod zh;

use std::cell::OnceCell;
use std::fmt;
use std::str::FromStr;

use crate::analyze::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::python::analysis::Analysis;
use crate::python::model::Module;
use crate::text::TextRange;

/// Declares the rule table: the [`Code`] enum, its strings and the registry of rules and check
/// functions, all from one line per rule (`CODE: family::module`, the module holding `RULE` and
/// `check`). Lines are in code order; a rule's `RULE.code` must name the code of its line, which
/// the compiler checks.
macro_rules! rule_table {
    ($($code:ident: $($module:ident)::+,)+) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($code,)+
        }

        impl Code {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)+
                }
            }
        }

        static REGISTRY: &[(Rule, CheckFn)] = &[$(($($module)::+::RULE, $($module)::+::check),)+];

        const _: () = {
            let mut i = 0;
            $(
                assert!(
                    $($module)::+::RULE.code as usize == Code::$code as usize
                        && Code::$code as usize == i,
                    concat!("the rule table's line for ", stringify!($code), " is out of order or names another rule's module"),
                );
                i += 1;
            )+
            let _ = i;
        };
    };
}

rule_table! {
    DL101: fork::cuda_in_forked_worker,
    DL102: fork::cuda_before_fork,
    DL103: fork::implicit_start_method,
    DL104: fork::spawn_without_main_guard,
    DL105: fork::unpicklable_worker_callable,
    DL106: fork::pin_memory_cuda_data,
    DL107: fork::interactive_main_under_spawn,
    DL201: resources::num_workers_exceeds_cpus,
    DL202: resources::pin_memory_without_shm_check,
    DL203: resources::small_shared_memory,
    DL204: resources::file_system_sharing_strategy,
    DL205: resources::cpu_count_workers,
    DL206: resources::python_objects_in_dataset,
    DL301: args::prefetch_factor_without_workers,
    DL302: args::persistent_workers_without_workers,
    DL303: args::timeout_without_workers,
    DL304: args::negative_num_workers,
    DL305: args::context_without_workers,
    DL306: args::sampler_option_conflict,
    DL307: args::invalid_start_method,
}

impl Code {
    pub fn rule(self) -> &'static Rule {
        // The registry is ordered by code, one entry per variant (checked when compiling).
        &REGISTRY[self as usize].0
    }

    pub fn all() -> impl Iterator<Item = Code> {
        REGISTRY.iter().map(|(rule, _)| rule.code)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Code {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Code::all()
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown rule code `{s}`"))
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A rule's metadata. `docs` is markdown in ruff's shape (What it does / Why is this bad? /
/// Example / Use instead / Fix safety) and serves `dldoctor rule`, hover and the docs site.
#[derive(Debug)]
pub struct Rule {
    pub code: Code,
    pub name: &'static str,
    pub severity: Severity,
    /// Opt-in rules (DL103) run only when selected explicitly.
    pub default_enabled: bool,
    pub fix: FixAvailability,
    pub summary: &'static str,
    pub docs: &'static str,
    /// Knowledge-base entries whose failures this rule prevents.
    pub kb: &'static [&'static str],
}

impl Rule {
    /// The anchor of the rule's documentation (`codeDescription.href`).
    pub fn url(&self) -> String {
        format!("{DOCS_BASE}#{}", self.code.as_str().to_ascii_lowercase())
    }

    /// A finding of this rule at its default severity.
    pub fn diagnostic(&self, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.code, self.severity, range, message)
    }
}

/// Whether a rule offers a fix, as the catalogue in DESIGN.md says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixAvailability {
    /// Offered where the code allows it (most rules: the fix needs a keyword to edit, a value
    /// to replace, a place for an import).
    Sometimes,
    /// The remedy lies outside the code (a container's `--shm-size`) or needs judgement.
    None,
}

pub const DOCS_BASE: &str = "https://github.com/dldoctor/dldoctor/blob/main/docs/rules.md";

pub type CheckFn = fn(&mut Checker);

/// Opt-in rules that run without opting in, to report only findings with evidence of a crash
/// (the rule asks [`crate::config::Settings::is_enabled`] before reporting the rest): DL102
/// when worker-side code uses a CUDA-capable library.
pub const EVIDENCE_WITHOUT_OPT_IN: &[Code] = &[Code::DL102];

pub fn all_rules() -> impl Iterator<Item = &'static Rule> {
    REGISTRY.iter().map(|(rule, _)| rule)
}

/// What a rule sees: the file's semantic model and the analysis context.
pub struct Checker<'a> {
    pub model: &'a Module<'a>,
    pub ctx: &'a Context<'a>,
    /// Name lookups over the model, shared by every rule so its tables are built once per
    /// analysis rather than once per rule.
    pub scope: Analysis<'a>,
    /// The DL1xx rules' view of the file's loaders, built by the first that asks.
    pub(crate) fork_loaders: OnceCell<Vec<fork::Loader<'a>>>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

/// Runs every enabled rule over one model. Filtering by select/ignore, severity overrides and
/// `# noqa` are applied by the caller (`analyze`).
pub fn run(model: &Module, ctx: &Context) -> Vec<Diagnostic> {
    let mut checker = Checker {
        model,
        ctx,
        scope: Analysis::new(model),
        fork_loaders: OnceCell::new(),
        diagnostics: Vec::new(),
    };
    for (rule, check) in REGISTRY {
        if ctx.settings.is_enabled(rule.code)
            || EVIDENCE_WITHOUT_OPT_IN.contains(&rule.code)
                && ctx.settings.is_enabled_by_evidence(rule.code)
        {
            check(&mut checker);
        }
    }
    checker.diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_ordered_by_code_and_complete() {
        for (i, (rule, _)) in REGISTRY.iter().enumerate() {
            assert_eq!(rule.code as usize, i, "{} is out of order", rule.code);
            assert_eq!(rule.code.rule().name, rule.name);
            assert_eq!(rule.code.as_str().parse::<Code>(), Ok(rule.code));
        }
    }

    #[test]
    fn names_are_kebab_case_and_unique() {
        let mut names: Vec<_> = all_rules().map(|r| r.name).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        names.sort();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
    }
}
