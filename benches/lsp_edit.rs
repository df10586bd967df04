//! How fast an edit of a 10,000-line file is answered with fresh diagnostics.
//!
//! - `in_process`: one keystroke applied to the server's document (text, `Tree::edit`,
//!   incremental re-parse), then the full analysis and the conversion of every diagnostic to
//!   its LSP form — the work the server does per edit.
//! - `stdio_round_trip`: the real `dldoctor lsp` process, driven over stdio in pull mode:
//!   `didChange` + `textDocument/diagnostic` naming the last answer's `resultId` (as VS Code's
//!   client does), timed until the answer is read back. Pull mode has no debounce, so this is
//!   the whole latency an editor sees.
//! - `stdio_round_trip/ruff server`: the same keystrokes answered by ruff's language server, the
//!   named peer (installed from PyPI under the target folder when missing).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/big_module.rs"]
mod big_module;
#[path = "../tests/lsp_client/mod.rs"]
mod lsp_client;
mod support;

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use dldoctor::analyze::{self, Context};
use dldoctor::config::Settings;
use dldoctor::host::HostFacts;
use dldoctor::lang::Lang;
use dldoctor::python::index::ProjectIndex;
use dldoctor::server::convert::{self, Coords};
use dldoctor::server::document::{Change, Document};
use dldoctor::text::{Encoding, LineCol};
use lsp_client::{Lsp, capabilities, file_uri};
use serde_json::{Value, json};

/// A place in the middle of the file (a default argument's digit) for one-character edits.
fn middle_edit_point(text: &str) -> LineCol {
    let lines: Vec<&str> = text.lines().collect();
    let middle = lines.len() / 2;
    let (line, content) = lines
        .iter()
        .enumerate()
        .skip(middle)
        .find(|(_, l)| l.contains("mean=0.5"))
        .unwrap();
    let col = content.find("mean=0.5").unwrap() + "mean=0.".len();
    LineCol {
        line: line as u32,
        col: col as u32,
    }
}

/// Types a digit at `at` on even versions and deletes it on odd ones: the text stays 10,000
/// lines and the diagnostics stay the same.
fn keystroke(at: LineCol, version: i32) -> Change<'static> {
    if version % 2 == 0 {
        Change {
            range: Some((at, at)),
            text: "2",
        }
    } else {
        let end = LineCol {
            line: at.line,
            col: at.col + 1,
        };
        Change {
            range: Some((at, end)),
            text: "",
        }
    }
}

/// One keystroke in the middle of the file: text, `Tree::edit` and the incremental re-parse.
fn reparse(c: &mut Criterion) {
    let text = big_module::big_file();
    let at = middle_edit_point(&text);
    let mut doc = Document::new(text, 1, Path::new("train.py").to_path_buf());
    let mut version = 1;
    let mut group = c.benchmark_group("edit_10k_lines");
    group.bench_function("reparse", |b| {
        b.iter(|| {
            version += 1;
            let change = keystroke(at, version);
            doc.apply_changes(&[change], version, Encoding::Utf16);
            black_box(doc.tree.as_ref().map(|t| t.root_node().end_byte()))
        })
    });
    group.finish();
}

fn in_process(c: &mut Criterion) {
    let text = big_module::big_file();
    assert_eq!(text.lines().count(), 10_000);
    let at = middle_edit_point(&text);
    let path = Path::new("train.py");
    let mut doc = Document::new(text, 1, path.to_path_buf());
    let settings = Settings::default();
    let host = HostFacts::unknown().assume_cpus(8).assume_shm(16 << 30);
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &settings,
        host: &host,
        index: &index,
    };
    let uri = "file:///train.py".parse().unwrap();
    let mut version = 1;
    let mut group = c.benchmark_group("edit_10k_lines");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("in_process", |b| {
        b.iter(|| {
            version += 1;
            let change = keystroke(at, version);
            doc.apply_changes(&[change], version, Encoding::Utf16);
            let tree = doc.tree.as_ref().unwrap();
            let found = analyze::analyze_tree(&doc.text, tree, path, &ctx);
            let coords = Coords::new(&doc.text, &doc.index, Encoding::Utf16);
            let lsp: Vec<_> = found
                .iter()
                .map(|d| convert::diagnostic(d, &uri, &coords, Lang::En, &|_| None, None))
                .collect();
            assert!(!lsp.is_empty());
            black_box(lsp)
        })
    });
    group.finish();
}

/// Keystrokes answered over stdio: `didChange` + `textDocument/diagnostic`, timed until the
/// answer is read back, for `dldoctor lsp` and the named peer `ruff server` (ruff's own
/// language server, linting the same file with its default rules; `RUFF`, else `ruff` on
/// `PATH`, else installed from PyPI under the target folder).
fn stdio_round_trip(c: &mut Criterion) {
    let text = big_module::big_file();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.py");
    std::fs::write(&path, &text).unwrap();
    let mut group = c.benchmark_group("edit_10k_lines");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));

    let mut dldoctor = Lsp::start();
    dldoctor.initialize(
        capabilities(&[], true),
        json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        Some(dir.path()),
    );
    keystrokes(&mut group, "stdio_round_trip", &mut dldoctor, &path, &text);
    dldoctor.shutdown_and_exit();

    match support::ruff() {
        Some(ruff) => {
            let mut command = Command::new(ruff);
            command.arg("server");
            let mut peer = Lsp::spawn(command);
            peer.initialize(capabilities(&[], true), Value::Null, Some(dir.path()));
            keystrokes(
                &mut group,
                "stdio_round_trip/ruff server",
                &mut peer,
                &path,
                &text,
            );
            peer.shutdown_and_exit();
        }
        None => eprintln!("ruff could not be found or installed: peer skipped"),
    }
    group.finish();
}

fn keystrokes(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    lsp: &mut Lsp,
    path: &Path,
    text: &str,
) {
    let uri = file_uri(path);
    let at = middle_edit_point(text);
    lsp.open(&uri, text);
    let first = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(!first["items"].as_array().unwrap().is_empty());
    // As VS Code's client does: each pull names the last answer's id (ruff's is null).
    let mut previous = first["resultId"].clone();
    let mut version = 1;
    group.bench_function(name, |b| {
        b.iter(|| {
            version += 1;
            let range = if version % 2 == 0 {
                json!({"start": {"line": at.line, "character": at.col}, "end": {"line": at.line, "character": at.col}})
            } else {
                json!({"start": {"line": at.line, "character": at.col}, "end": {"line": at.line, "character": at.col + 1}})
            };
            let text = if version % 2 == 0 { "2" } else { "" };
            lsp.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": range, "text": text}]}),
            );
            let report = lsp.request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": uri}, "previousResultId": previous}),
            );
            assert!(report["kind"] == "full" || report["kind"] == "unchanged", "{report}");
            previous = report["resultId"].clone();
            black_box(report)
        })
    });
}

criterion_group!(benches, reparse, in_process, stdio_round_trip);
criterion_main!(benches);
