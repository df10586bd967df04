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
use crate::python::model::Module;
use crate::python::syntax::Scope;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    DL101,
    DL102,
    DL103,
    DL104,
    DL105,
    DL106,
    DL201,
    DL202,
    DL203,
    DL204,
    DL205,
    DL206,
    DL301,
    DL302,
    DL303,
    DL304,
    DL305,
    DL306,
    DL307,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::DL101 => "DL101",
            Code::DL102 => "DL102",
            Code::DL103 => "DL103",
            Code::DL104 => "DL104",
            Code::DL105 => "DL105",
            Code::DL106 => "DL106",
            Code::DL201 => "DL201",
            Code::DL202 => "DL202",
            Code::DL203 => "DL203",
            Code::DL204 => "DL204",
            Code::DL205 => "DL205",
            Code::DL206 => "DL206",
            Code::DL301 => "DL301",
            Code::DL302 => "DL302",
            Code::DL303 => "DL303",
            Code::DL304 => "DL304",
            Code::DL305 => "DL305",
            Code::DL306 => "DL306",
            Code::DL307 => "DL307",
        }
    }

    pub fn rule(self) -> &'static Rule {
        // The registry is ordered by code, one entry per variant.
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
}

pub const DOCS_BASE: &str = "https://github.com/dldoctor/dldoctor/blob/main/docs/rules.md";

pub type CheckFn = fn(&mut Checker);

/// Opt-in rules that run without opting in, to report only findings with evidence of a crash
/// (the rule asks [`crate::config::Settings::is_enabled`] before reporting the rest): DL102
/// when worker-side code uses a CUDA-capable library.
pub const EVIDENCE_WITHOUT_OPT_IN: &[Code] = &[Code::DL102];

static REGISTRY: &[(Rule, CheckFn)] = &[
    (
        fork::cuda_in_forked_worker::RULE,
        fork::cuda_in_forked_worker::check,
    ),
    (fork::cuda_before_fork::RULE, fork::cuda_before_fork::check),
    (
        fork::implicit_start_method::RULE,
        fork::implicit_start_method::check,
    ),
    (
        fork::spawn_without_main_guard::RULE,
        fork::spawn_without_main_guard::check,
    ),
    (
        fork::unpicklable_worker_callable::RULE,
        fork::unpicklable_worker_callable::check,
    ),
    (
        fork::pin_memory_cuda_data::RULE,
        fork::pin_memory_cuda_data::check,
    ),
    (
        resources::num_workers_exceeds_cpus::RULE,
        resources::num_workers_exceeds_cpus::check,
    ),
    (
        resources::pin_memory_without_shm_check::RULE,
        resources::pin_memory_without_shm_check::check,
    ),
    (
        resources::small_shared_memory::RULE,
        resources::small_shared_memory::check,
    ),
    (
        resources::file_system_sharing_strategy::RULE,
        resources::file_system_sharing_strategy::check,
    ),
    (
        resources::cpu_count_workers::RULE,
        resources::cpu_count_workers::check,
    ),
    (
        resources::python_objects_in_dataset::RULE,
        resources::python_objects_in_dataset::check,
    ),
    (
        args::prefetch_factor_without_workers::RULE,
        args::prefetch_factor_without_workers::check,
    ),
    (
        args::persistent_workers_without_workers::RULE,
        args::persistent_workers_without_workers::check,
    ),
    (
        args::timeout_without_workers::RULE,
        args::timeout_without_workers::check,
    ),
    (
        args::negative_num_workers::RULE,
        args::negative_num_workers::check,
    ),
    (
        args::context_without_workers::RULE,
        args::context_without_workers::check,
    ),
    (
        args::sampler_option_conflict::RULE,
        args::sampler_option_conflict::check,
    ),
    (
        args::invalid_start_method::RULE,
        args::invalid_start_method::check,
    ),
];

pub fn all_rules() -> impl Iterator<Item = &'static Rule> {
    REGISTRY.iter().map(|(rule, _)| rule)
}

/// What a rule sees: the file's semantic model and the analysis context.
pub struct Checker<'a> {
    pub model: &'a Module<'a>,
    pub ctx: &'a Context<'a>,
    /// Name lookups over the model, shared by every rule so its tables are built once per
    /// analysis rather than once per rule.
    pub scope: Scope<'a>,
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
        scope: Scope::new(model),
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
