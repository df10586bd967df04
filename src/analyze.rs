//! The one entry point both shells call: source text in, diagnostics out.

use std::path::Path;

use tree_sitter::Tree;

use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::host::HostFacts;
use crate::python::index::ProjectIndex;
use crate::python::{self, model::Module};
use crate::rules;

/// What an analysis needs besides the file itself.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub host: &'a HostFacts,
    pub index: &'a ProjectIndex,
}

/// Parses and analyses one file.
pub fn analyze(source: &str, path: &Path, ctx: &Context) -> Vec<Diagnostic> {
    match python::parse(source, None) {
        Some(tree) => analyze_tree(source, &tree, path, ctx),
        None => Vec::new(),
    }
}

/// Analyses an already parsed file (the server keeps trees for incremental re-parsing).
pub fn analyze_tree(source: &str, tree: &Tree, path: &Path, ctx: &Context) -> Vec<Diagnostic> {
    let model = Module::build(source, tree, path, ctx.index);
    let mut diagnostics = rules::run(&model, ctx);
    for d in &mut diagnostics {
        d.severity = ctx.settings.severity_of(d.code);
    }
    ctx.settings
        .filter_suppressed(source, path, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.code));
    diagnostics
}
