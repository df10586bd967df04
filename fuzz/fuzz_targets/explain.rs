//! `explain` on any text: the matcher, the text report in both languages and the placement
//! on the user's frames (every frame's file reads as one small training script, analysed for
//! real) must not panic, and every place must lie in its file.

#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use dldoctor::analyze::{self, Context};
use dldoctor::config::Settings;
use dldoctor::diagnostic::Diagnostic;
use dldoctor::host::HostFacts;
use dldoctor::kb::place::{self, Workspace};
use dldoctor::kb::{self, ExplainOptions, KnowledgeBase};
use dldoctor::lang::Lang;
use dldoctor::python::index::ProjectIndex;
use libfuzzer_sys::fuzz_target;

static KB: LazyLock<KnowledgeBase> = LazyLock::new(KnowledgeBase::embedded);

const SCRIPT: &str = include_str!("../../tests/corpus/scripts/bad_argument.py");

struct OneScript;

impl Workspace for OneScript {
    fn text(&self, _: &Path) -> Option<String> {
        Some(SCRIPT.to_owned())
    }

    fn analyze(&self, path: &Path, source: &str) -> Vec<Diagnostic> {
        let (settings, host, index) = (
            Settings::default(),
            HostFacts::unknown(),
            ProjectIndex::default(),
        );
        let ctx = Context {
            settings: &settings,
            host: &host,
            index: &index,
        };
        analyze::analyze(source, path, &ctx)
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for lang in [Lang::En, Lang::Zh] {
        let options = ExplainOptions {
            root: Some("/srv/project".into()),
            lang,
        };
        let findings = kb::explain(&text, &KB, &options);
        let placed = place::place(&findings, options.root.as_deref(), &OneScript);
        for file in &placed {
            for p in &file.places {
                assert!(p.range.start <= p.range.end && p.range.end <= file.source.len());
                assert!(p.finding < findings.len());
            }
        }
        let report = kb::render::render_text(&findings, &placed, &KB, lang);
        assert!(findings.is_empty() || !report.is_empty());
    }
});
