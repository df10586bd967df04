//! DL101–DL106 on their fixtures: the diagnostics and the fixed sources are snapshotted, and
//! every fix must leave code that parses and no longer fires its rule.

#![allow(clippy::expect_used)] // a fixture that cannot be read is a broken test

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dldoctor::analyze::{Context, analyze};
use dldoctor::config::Settings;
use dldoctor::diagnostic::Diagnostic;
use dldoctor::fix::apply_edits;
use dldoctor::host::HostFacts;
use dldoctor::python::index::ProjectIndex;
use dldoctor::rules::Code;
use dldoctor::text::LineIndex;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

/// Linux with an unknown Python version: the implicit start method is fork, assumed.
fn host() -> HostFacts {
    HostFacts {
        os: "linux".to_owned(),
        ..HostFacts::unknown()
    }
}

fn settings_for(code: Code) -> Settings {
    Settings {
        select: vec![code.as_str().to_owned()],
        ..Settings::default()
    }
}

fn run(source: &str, path: &Path, code: Code, index: &ProjectIndex) -> Vec<Diagnostic> {
    let settings = settings_for(code);
    let host = host();
    let ctx = Context {
        settings: &settings,
        host: &host,
        index,
    };
    analyze(source, path, &ctx)
        .into_iter()
        .filter(|d| d.code == code)
        .collect()
}

fn render(source: &str, diagnostics: &[Diagnostic], root: &Path) -> String {
    let lines = LineIndex::new(source);
    let mut out = String::new();
    for d in diagnostics {
        let (row, col) = lines.row_column(source, d.range.start);
        let _ = writeln!(
            out,
            "{}:{row}:{col} {} [{}] {}",
            d.code,
            d.severity.as_str(),
            &source[d.range.start..d.range.end]
                .lines()
                .next()
                .unwrap_or(""),
            d.message
        );
        for r in &d.related {
            match &r.file {
                None => {
                    let (row, col) = lines.row_column(source, r.range.start);
                    let _ = writeln!(out, "    related {row}:{col} {}", r.message);
                }
                Some(file) => {
                    let shown = file.strip_prefix(root).unwrap_or(file);
                    let _ = writeln!(
                        out,
                        "    related {}@{} {}",
                        shown.display(),
                        r.range.start,
                        r.message
                    );
                }
            }
        }
        for f in &d.fixes {
            let _ = writeln!(
                out,
                "    fix ({:?}{}) {}",
                f.applicability,
                if f.preferred { ", preferred" } else { "" },
                f.title
            );
        }
    }
    out
}

/// Applies each fix of each diagnostic on its own; the result must parse cleanly, and the
/// preferred (or only) fix must make the diagnostic go away.
fn check_fixes(
    source: &str,
    path: &Path,
    code: Code,
    diagnostics: &[Diagnostic],
    index: &ProjectIndex,
) -> String {
    let mut out = String::new();
    for d in diagnostics {
        for fix in &d.fixes {
            let fixed = apply_edits(source, &fix.edits).expect("fix edits apply");
            let tree = dldoctor::python::parse(&fixed, None).expect("tree");
            assert!(
                !tree.root_node().has_error(),
                "{}: fix `{}` leaves invalid Python:\n{fixed}",
                path.display(),
                fix.title
            );
            let after = run(&fixed, path, code, index);
            assert!(
                after.len() < diagnostics.len(),
                "{}: fix `{}` does not remove the {code} diagnostic:\n{fixed}",
                path.display(),
                fix.title
            );
            if fix.preferred || d.fixes.len() == 1 {
                let _ = writeln!(out, "--- {} ---\n{fixed}", fix.title);
            }
        }
    }
    out
}

fn code_of(name: &str) -> Code {
    name.split('_')
        .next()
        .and_then(|c| c.parse().ok())
        .expect("fixture names start with a rule code")
}

#[test]
fn single_file_fixtures() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("DL1") && n.ends_with(".py"))
        .collect();
    names.sort();
    assert!(names.len() > 20, "fixtures found: {names:?}");
    let index = ProjectIndex::new();
    for name in names {
        let path = fixtures_dir().join(&name);
        let source = std::fs::read_to_string(&path).expect("fixture");
        let code = code_of(&name);
        let diagnostics = run(&source, &path, code, &index);
        if name.contains("_quiet") {
            assert!(
                diagnostics.is_empty(),
                "{name} must stay quiet:\n{}",
                render(&source, &diagnostics, &fixtures_dir())
            );
            continue;
        }
        assert!(!diagnostics.is_empty(), "{name} must fire {code}");
        let mut snapshot = render(&source, &diagnostics, &fixtures_dir());
        snapshot.push_str(&check_fixes(&source, &path, code, &diagnostics, &index));
        insta::assert_snapshot!(name.trim_end_matches(".py"), snapshot);
    }
}

#[test]
fn dataset_in_another_file() {
    let root = fixtures_dir().join("DL101_cross_file");
    let data = root.join("pkg/data.py");
    let train = root.join("pkg/train.py");
    let mut index = ProjectIndex::new();
    index.add_file(
        &data,
        &std::fs::read_to_string(&data).expect("data fixture"),
    );
    let source = std::fs::read_to_string(&train).expect("train fixture");
    let diagnostics = run(&source, &train, Code::DL101, &index);
    assert_eq!(diagnostics.len(), 1, "only the CUDA dataset fires");
    assert_eq!(
        diagnostics[0].related[0].file.as_deref(),
        Some(data.as_path())
    );
    insta::assert_snapshot!("DL101_cross_file", render(&source, &diagnostics, &root));
    // Without the other file the dataset is unknown: quiet, never a guess.
    assert!(run(&source, &train, Code::DL101, &ProjectIndex::new()).is_empty());
}
