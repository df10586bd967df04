//! The one entry point both shells call: source text in, diagnostics out.

use std::path::Path;

use tree_sitter::Tree;

use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::host::HostFacts;
use crate::python::catalogue::Catalogue;
use crate::python::index::ProjectIndex;
use crate::python::{self, model::Module};
use crate::rules;

/// What an analysis needs besides the file itself.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub host: &'a HostFacts,
    pub index: &'a ProjectIndex,
}

/// A cheap byte test run before parsing: `false` means no rule can fire in this file. Every
/// rule but DL204 reports on a loader's construction, which names a loader in its file
/// ([`Catalogue::may_build_a_loader`]), wherever its dataset or worker code is defined; DL204
/// needs `set_sharing_strategy`.
pub fn may_have_findings(source: &[u8], catalogue: &Catalogue) -> bool {
    let found = |needle: &[u8]| memchr::memmem::find(source, needle).is_some();
    found(b"set_sharing_strategy") || catalogue.may_build_a_loader(source)
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
    let model = Module::build_with(source, tree, path, ctx.index, ctx.settings.catalogue());
    let mut diagnostics = rules::run(&model, ctx);
    // A configured severity replaces the one the rule chose; otherwise the rule's stands (a
    // rule may raise or lower its default, as DL102, DL105 and DL202 do).
    for d in &mut diagnostics {
        if let Some(severity) = ctx.settings.severity.get(&d.code) {
            d.severity = *severity;
        }
    }
    ctx.settings.filter_suppressed(
        source,
        |offset| python::is_in_comment(tree, offset),
        path,
        &mut diagnostics,
    );
    diagnostics.sort_by_key(|d| (d.range.start, d.code));
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_test_passes_files_that_name_a_loader_and_skips_mixins() {
        let catalogue = Catalogue::builtin_ref();
        let may = |text: &str| may_have_findings(text.as_bytes(), catalogue);
        assert!(may("from torch.utils.data import DataLoader\n"));
        assert!(may("loader = InfiniteDataLoader(ds)\n"));
        assert!(may("x = MyLoader\n"));
        // A dataset alone builds no loader: its loader's file is where a finding goes.
        assert!(!may("class D(Dataset):\n    pass\n"));
        assert!(may("mp.set_sharing_strategy('file_system')\n"));
        // A mixin beside a real loader still counts the loader.
        assert!(may("class P(LoraLoaderMixin):\n    pass\nDataLoader(ds)\n"));
        assert!(!may(
            "class P(StableDiffusionLoraLoaderMixin, UNet2DConditionLoadersMixin):\n    pass\n"
        ));
        assert!(!may("x = 1\n"));
    }
}
