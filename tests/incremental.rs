//! The server's analysis of an edited document (text spliced, tree edited and re-parsed
//! incrementally, whatever it keeps from the previous analysis) must find exactly what a fresh
//! parse and analysis of the same text finds. Seeded random edit sequences are applied to
//! every rule fixture and to the keystroke benchmark's 10,000-line module, and the two are
//! compared after every `didChange`.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../benches/support/big_module.rs"]
mod big_module;

use std::path::{Path, PathBuf};

use dldoctor::analyze::{self, Context};
use dldoctor::config::Settings;
use dldoctor::host::HostFacts;
use dldoctor::python::index::ProjectIndex;
use dldoctor::server::document::{Change, Document};
use dldoctor::text::{Encoding, LineIndex, TextRange};

/// What an edit may insert: the characters of ordinary typing, and pieces of code the rules
/// care about (loaders and their arguments, guards, imports, suppressions, definitions).
const SNIPPETS: &[&str] = &[
    "2",
    "0",
    "-1",
    "x",
    " ",
    "\n",
    "    ",
    "(",
    ")",
    ",",
    ":",
    "=",
    "\"",
    "'",
    "#",
    "  # noqa",
    "😀",
    "数据",
    "num_workers=",
    "pin_memory=True, ",
    "import torch\n",
    "import multiprocessing as mp\n",
    "from torch.utils.data import DataLoader\n",
    "DataLoader(ds, num_workers=4, prefetch_factor=2)\n",
    "torch.cuda.set_device(0)\n",
    "mp.set_start_method(\"spawn\")\n",
    "if __name__ == \"__main__\":\n    ",
    "def f(x):\n    return x\n",
    "class D(torch.utils.data.Dataset):\n    pass\n",
    "lambda b: b",
];

/// One random change to `text`: an insertion, a deletion, a replacement, or a piece of the
/// text itself copied elsewhere (which keeps the code shaped like code).
fn random_change(rng: &mut fastrand::Rng, text: &str) -> (TextRange, String) {
    let boundary = |offset: usize| {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    };
    let start = boundary(rng.usize(0..=text.len()));
    let end = match rng.u8(0..4) {
        0 => start,
        _ => boundary(start + rng.usize(0..24)),
    };
    let insert = match rng.u8(0..5) {
        0 => String::new(),
        1 => {
            let from = boundary(rng.usize(0..=text.len()));
            let to = boundary(from + rng.usize(0..80));
            text[from..to].to_owned()
        }
        _ => SNIPPETS[rng.usize(0..SNIPPETS.len())].to_owned(),
    };
    (TextRange::new(start, end), insert)
}

/// Applies `edits` random `didChange` notifications (one to three changes each, positions in
/// UTF-16 as editors send them) to a document holding `source`; after each, the document's
/// analysis must equal a fresh one. Fails naming the seed and the step.
fn check_edit_sequence(source: &str, path: &Path, seed: u64, edits: usize) {
    let mut settings = Settings::default();
    settings.extend_select = vec!["ALL".to_owned()];
    let host = HostFacts::unknown().assume_cpus(8).assume_shm(16 << 30);
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &settings,
        host: &host,
        index: &index,
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut doc = Document::new(source.to_owned(), 1, path.to_path_buf());
    let mut shadow = source.to_owned();
    for step in 0..edits {
        let mut inserted = Vec::new();
        let mut ranges = Vec::new();
        for _ in 0..rng.usize(1..=3) {
            let lines = LineIndex::new(&shadow);
            let (range, insert) = random_change(&mut rng, &shadow);
            let start = lines.position(&shadow, range.start, Encoding::Utf16);
            let end = lines.position(&shadow, range.end, Encoding::Utf16);
            shadow.replace_range(range.start..range.end, &insert);
            ranges.push((start, end));
            inserted.push(insert);
        }
        let changes: Vec<Change> = ranges
            .iter()
            .zip(&inserted)
            .map(|(&range, text)| Change {
                range: Some(range),
                text,
            })
            .collect();
        doc.apply_changes(&changes, step as i32 + 2, Encoding::Utf16);
        assert_eq!(
            doc.text, shadow,
            "seed {seed}, step {step}: text out of step"
        );
        let tree = doc.tree.as_ref().expect("a tree");
        let incremental = analyze::analyze_tree(&doc.text, tree, path, &ctx);
        let fresh = analyze::analyze(&doc.text, path, &ctx);
        assert_eq!(
            incremental,
            fresh,
            "{}: seed {seed}, step {step}: incremental analysis differs from a fresh one on:\n{}",
            path.display(),
            doc.text
        );
    }
}

#[test]
fn edits_of_every_rule_fixture_analyse_like_a_fresh_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    fixtures.sort();
    assert!(
        fixtures.len() > 100,
        "fixtures not found in {}",
        dir.display()
    );
    for (seed, fixture) in fixtures.iter().enumerate() {
        let source = std::fs::read_to_string(fixture).unwrap();
        check_edit_sequence(&source, fixture, seed as u64, 12);
    }
}

#[test]
fn edits_of_the_benchmark_module_analyse_like_a_fresh_parse() {
    let source = big_module::big_file();
    check_edit_sequence(&source, Path::new("train.py"), 13, 12);
}
