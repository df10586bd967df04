//! The Python analysis on any text, with every rule selected and a small machine assumed (so
//! the DL2xx rules fire too): it must not panic, every fix's edits must apply to the text they
//! were made for, and a safe fix must keep a file that parsed parsing, alone or with the
//! other safe fixes of the same pass (what `check --fix` and fix-all apply).

#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use dldoctor::analyze::{self, Context};
use dldoctor::config::{Overrides, Settings};
use dldoctor::fix::{self, Applicability};
use dldoctor::host::HostFacts;
use dldoctor::python::{self, index::ProjectIndex};
use libfuzzer_sys::fuzz_target;

static SETTINGS: LazyLock<Settings> = LazyLock::new(|| {
    let opt_in = Overrides {
        extend_select: vec!["DL102".into(), "DL103".into()],
        ..Overrides::default()
    };
    opt_in.apply(Settings::default())
});
static HOST: LazyLock<HostFacts> =
    LazyLock::new(|| HostFacts::unknown().assume_cpus(2).assume_shm(64 << 20));

fn parses(source: &str) -> bool {
    python::parse(source, None).is_some_and(|tree| !tree.root_node().has_error())
}

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &SETTINGS,
        host: &HOST,
        index: &index,
    };
    let path = Path::new("train.py");
    let diagnostics = analyze::analyze(source, path, &ctx);
    let parsed = parses(source);
    let mut safe = Vec::new();
    for d in &diagnostics {
        assert!(
            d.range.start <= d.range.end && d.range.end <= source.len(),
            "{d:?}"
        );
        for f in &d.fixes {
            let fixed = match fix::apply_edits(source, &f.edits) {
                Ok(fixed) => fixed,
                Err(err) => panic!("{} `{}`: {err}", d.code, f.title),
            };
            if f.applicability == Applicability::Safe {
                assert!(
                    !parsed || parses(&fixed),
                    "{} `{}` broke the file:\n{fixed}",
                    d.code,
                    f.title
                );
                safe.push(f);
            }
        }
    }
    let (fixed, _) = fix::apply_fixes(source, safe);
    assert!(
        !parsed || parses(&fixed),
        "the safe fixes together broke the file:\n{fixed}"
    );
});
