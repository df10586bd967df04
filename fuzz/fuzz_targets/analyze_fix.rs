//! The Python analysis and the fix engine on any text, with every rule selected and a small
//! machine assumed (so the DL2xx rules fire too). The text is checked as a Python file and as
//! a notebook whose cells are its `# %%` sections (or, when it is one, as the notebook it is),
//! and fixed by `fix::fix_document`, the rounds loop `check --fix` runs, with unsafe fixes
//! when the input's length is odd. It must not panic; every fix's edits must apply to the text
//! they were made for; a safe fix must keep a file that parsed parsing; the rounds must leave a
//! file that parsed parsing, and a notebook that reads back as the module it was fixed into.

#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use dldoctor::analyze::{self, Context};
use dldoctor::config::{Overrides, Settings};
use dldoctor::diagnostic::Diagnostic;
use dldoctor::fix::{self, Applicability};
use dldoctor::host::HostFacts;
use dldoctor::notebook::Notebook;
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

/// Every finding lies in `text`, and each of its fixes applies to it alone; a safe one keeps
/// a parsing file parsing.
fn check_findings(text: &str, diagnostics: &[Diagnostic]) {
    let parsed = parses(text);
    for d in diagnostics {
        assert!(
            d.range.start <= d.range.end && d.range.end <= text.len(),
            "{d:?}"
        );
        for f in &d.fixes {
            let fixed = match fix::apply_edits(text, &f.edits) {
                Ok(fixed) => fixed,
                Err(err) => panic!("{} `{}`: {err}", d.code, f.title),
            };
            assert!(
                f.applicability != Applicability::Safe || !parsed || parses(&fixed),
                "{} `{}` broke the file:\n{fixed}",
                d.code,
                f.title
            );
        }
    }
}

/// The notebook of `text`: the text itself when it is one, else one code cell per `# %%`
/// section.
fn notebook_of(text: &str) -> Option<Notebook> {
    if let Ok(nb) = Notebook::parse(text) {
        return Some(nb);
    }
    let mut cells: Vec<String> = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.starts_with("# %%") {
            cells.push(String::new());
        }
        cells.last_mut()?.push_str(line);
    }
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|source| {
            serde_json::json!({
                "cell_type": "code",
                "execution_count": null,
                "metadata": {},
                "outputs": [],
                "source": source.split_inclusive('\n').collect::<Vec<_>>(),
            })
        })
        .collect();
    let json = serde_json::json!({
        "cells": cells,
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    Notebook::parse(&json.to_string()).ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let unsafe_fixes = data.len() % 2 == 1;
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &SETTINGS,
        host: &HOST,
        index: &index,
    };

    // A Python file, as `check --fix` fixes it.
    let path = Path::new("train.py");
    let analyse = |source: &str| analyze::analyze(source, path, &ctx);
    let diagnostics = analyse(text);
    check_findings(text, &diagnostics);
    let fixed = fix::fix_all(text, diagnostics, unsafe_fixes, analyse);
    assert!(
        !parses(text) || parses(&fixed.document),
        "the fixes broke the file:\n{}",
        fixed.document
    );
    check_findings(&fixed.document, &fixed.diagnostics);

    // A notebook, as `check --fix` fixes one.
    let Some(nb) = notebook_of(text) else {
        return;
    };
    let path = Path::new("train.ipynb");
    let analyse = |source: &str| analyze::analyze(source, path, &ctx);
    let diagnostics = analyse(nb.source());
    check_findings(nb.source(), &diagnostics);
    let parsed = parses(nb.source());
    let fixed = match fix::fix_document(nb, diagnostics, unsafe_fixes, analyse) {
        Ok(fixed) => fixed,
        Err(err) => panic!("fixing the notebook failed: {err}"),
    };
    let nb = fixed.document;
    assert!(
        !parsed || parses(nb.source()),
        "the fixes broke the notebook:\n{}",
        nb.source()
    );
    match Notebook::parse(nb.json()) {
        Ok(again) => assert_eq!(again.source(), nb.source(), "the notebook reads back otherwise"),
        Err(err) => panic!("the fixed notebook does not read back: {err}\n{}", nb.json()),
    }
});
