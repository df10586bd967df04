//! Rule fixtures: every `tests/fixtures/rules/<CODE>_<case>.py` (or `.ipynb`, analysed as the
//! module its code cells make) is analysed with fixed host
//! facts and snapshotted: the diagnostics of that rule (code, 1-based row:col, severity,
//! message, related places, fixes) and, for each fix, the fixed source.
//!
//! A case whose name starts with `ok` must not fire its rule; any other case must. Every
//! fixed source must parse and fire the rule fewer times than before.
//!
//! Host facts default to 8 usable CPUs and a 16 GiB `/dev/shm`. Leading comment lines of the
//! form `# dldoctor-test: key=value ...` change them: `assume-cpus=N|unknown`,
//! `assume-shm=SIZE|unknown` (`64MiB`, `16GiB`), `max-workers=N`, `select=DL103,DL1`,
//! `target-version=3.14`.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::Path;

use dldoctor::analyze::{Context, analyze};
use dldoctor::config::Settings;
use dldoctor::diagnostic::Diagnostic;
use dldoctor::fix::apply_edits;
use dldoctor::host::HostFacts;
use dldoctor::python::index::ProjectIndex;
use dldoctor::python::parse;
use dldoctor::rules::Code;
use dldoctor::text::LineIndex;

const GIB: u64 = 1 << 30;

fn parse_size(text: &str) -> u64 {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().expect("size number");
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        other => panic!("unknown size unit {other}"),
    };
    (number * scale as f64) as u64
}

/// Settings and host facts for one fixture, from its `# dldoctor-test:` lines.
fn setup(source: &str) -> (Settings, HostFacts) {
    let mut settings = Settings::default();
    let mut cpus = Some(8);
    let mut shm = Some(16 * GIB);
    for line in source.lines().take_while(|l| l.starts_with('#')) {
        let Some(rest) = line.strip_prefix("# dldoctor-test:") else {
            continue;
        };
        for pair in rest.split_whitespace() {
            let (key, value) = pair.split_once('=').expect("key=value");
            match key {
                "assume-cpus" => cpus = (value != "unknown").then(|| value.parse().expect("cpus")),
                "assume-shm" => shm = (value != "unknown").then(|| parse_size(value)),
                "max-workers" => settings.max_workers = Some(value.parse().expect("max-workers")),
                "select" => settings.extend_select = value.split(',').map(str::to_owned).collect(),
                "target-version" => {
                    let (major, minor) = value.split_once('.').expect("3.14");
                    settings.target_version =
                        Some((major.parse().expect("major"), minor.parse().expect("minor")));
                }
                other => panic!("unknown fixture directive {other}"),
            }
        }
    }
    let mut host = HostFacts::unknown();
    if let Some(cpus) = cpus {
        host = host.assume_cpus(cpus);
    }
    if let Some(shm) = shm {
        host = host.assume_shm(shm);
    }
    (settings, host)
}

/// A fixture's Python: the file, or a notebook's code cells as one module.
fn read_fixture(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("fixture reads");
    if dldoctor::notebook::is_notebook(path) {
        let notebook = dldoctor::notebook::Notebook::parse(&text).expect("fixture notebook");
        return notebook.source().to_owned();
    }
    text
}

fn run(source: &str, path: &Path, settings: &Settings, host: &HostFacts) -> Vec<Diagnostic> {
    let index = ProjectIndex::default();
    let ctx = Context {
        settings,
        host,
        index: &index,
    };
    analyze(source, path, &ctx)
}

fn render(source: &str, diagnostics: &[Diagnostic]) -> String {
    let lines = LineIndex::new(source);
    let at = |offset| {
        let (row, col) = lines.row_column(source, offset);
        format!("{row}:{col}")
    };
    let mut out = String::new();
    for d in diagnostics {
        let _ = writeln!(
            out,
            "{} {}-{} {}: {}",
            d.code,
            at(d.range.start),
            at(d.range.end),
            d.severity.as_str(),
            d.message
        );
        for r in &d.related {
            let _ = writeln!(out, "    related {}: {}", at(r.range.start), r.message);
        }
        for f in &d.fixes {
            let preferred = if f.preferred { ", preferred" } else { "" };
            let applicability = serde_json::to_string(&f.applicability).expect("serialises");
            let _ = writeln!(out, "    fix ({applicability}{preferred}): {}", f.title);
        }
    }
    out
}

#[test]
fn rule_fixtures() {
    // The base is the fixtures folder, not `tests/`: insta walks the whole base (following
    // links), and a local `tests/editors/vscode-e2e/node_modules` would be walked too.
    insta::glob!("fixtures/rules", "DL*.{py,ipynb}", |path| {
        let source = read_fixture(path);
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("name");
        let (code, case) = stem.split_once('_').expect("<CODE>_<case>.py");
        let code: Code = code.parse().expect("fixture named after a rule code");
        let (settings, host) = setup(&source);
        let diagnostics = run(&source, path, &settings, &host);
        let fired = diagnostics.iter().filter(|d| d.code == code).count();
        if case.starts_with("ok") {
            assert_eq!(
                fired,
                0,
                "{stem}: {code} must not fire\n{}",
                render(&source, &diagnostics)
            );
        } else {
            assert!(
                fired > 0,
                "{stem}: {code} must fire\n{}",
                render(&source, &diagnostics)
            );
        }

        // Only the fixture's rule: other rules have their own fixtures, and their findings
        // here would tie these snapshots to every change of theirs.
        let own: Vec<Diagnostic> = diagnostics
            .iter()
            .filter(|d| d.code == code)
            .cloned()
            .collect();
        let mut out = render(&source, &own);
        for d in diagnostics.iter().filter(|d| d.code == code) {
            for fix in &d.fixes {
                let fixed = apply_edits(&source, &fix.edits)
                    .unwrap_or_else(|e| panic!("{stem}: fix {:?} does not apply: {e}", fix.title));
                let tree = parse(&fixed, None).expect("tree");
                assert!(
                    !tree.root_node().has_error(),
                    "{stem}: fix {:?} leaves a syntax error:\n{fixed}",
                    fix.title
                );
                let after = run(&fixed, path, &settings, &host)
                    .iter()
                    .filter(|x| x.code == code)
                    .count();
                assert!(
                    after < fired,
                    "{stem}: fix {:?} does not remove a {code}:\n{fixed}",
                    fix.title
                );
                let lines = LineIndex::new(&source);
                let (row, col) = lines.row_column(&source, d.range.start);
                let _ = write!(
                    out,
                    "\n---- fix {code} at {row}:{col}: {} ----\n{fixed}",
                    fix.title
                );
            }
        }
        insta::assert_snapshot!(out);
    });
}

/// The DL3xx messages quote PyTorch: each recorded real failure of
/// `tests/corpus/scripts/bad_argument.py` (one `tests/corpus/arg-*.txt` per case, captured from
/// a real PyTorch run) ends in an exception whose message a diagnostic on that script quotes.
#[test]
fn dl3xx_messages_match_recorded_pytorch_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let script = root.join("scripts/bad_argument.py");
    let source = std::fs::read_to_string(&script).expect("script reads");
    let (settings, host) = setup("");
    let messages: Vec<String> = run(&source, &script, &settings, &host)
        .into_iter()
        .filter(|d| d.code.as_str().starts_with("DL3"))
        .map(|d| d.message)
        .collect();
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).expect("corpus lists") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name.starts_with("arg-") && name.ends_with(".txt")) {
            continue;
        }
        let output = std::fs::read_to_string(&path).expect("recording reads");
        let last = output
            .lines()
            .rev()
            .find(|l| l.starts_with("ValueError: ") || l.starts_with("AssertionError: "))
            .unwrap_or_else(|| panic!("{name}: no final exception"));
        assert!(
            messages.iter().any(|m| m.contains(last)),
            "{name}: no DL3xx diagnostic quotes {last:?}\n{messages:#?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 10, "one recording per argument check");
}

/// English wording the model (`python::`) writes into labels and descriptions: a Chinese
/// message that still holds one was assembled from an untranslated piece.
const ENGLISH_PIECES: &[&str] = &[
    ", called from ",
    ", which calls ",
    "inherited by",
    "the lambda",
    "DataLoader's default",
    "the default of",
    "the value of",
    "(line ",
    "set under a condition",
    "passed through",
    "the workers start by",
    "(assumed)",
];

fn speaks_chinese(what: &str, english: &str, chinese: Option<&str>) -> Result<(), String> {
    let Some(chinese) = chinese else {
        return Err(format!("{what} has no Chinese: {english:?}"));
    };
    if !chinese
        .chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    {
        return Err(format!("{what} is not Chinese: {chinese:?}"));
    }
    if let Some(piece) = ENGLISH_PIECES.iter().find(|p| chinese.contains(*p)) {
        return Err(format!("{what} keeps the English {piece:?}: {chinese:?}"));
    }
    Ok(())
}

/// Every message, related message and fix title every rule produces on the fixtures has a
/// Chinese text (the language server's `zh` locale), with every rule enabled.
#[test]
fn every_rule_speaks_chinese() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    let mut seen = std::collections::BTreeSet::new();
    let mut problems = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures list")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py" || e == "ipynb"))
        .collect();
    paths.sort();
    for path in paths {
        let source = read_fixture(&path);
        let (mut settings, host) = setup(&source);
        settings.extend_select = Code::all().map(|c| c.as_str().to_owned()).collect();
        for d in run(&source, &path, &settings, &host) {
            seen.insert(d.code);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let mut check = |what: String, english: &str, chinese: Option<&str>| {
                if let Err(e) = speaks_chinese(&what, english, chinese) {
                    problems.push(format!("{name}: {e}"));
                }
            };
            check(
                format!("{} message", d.code),
                &d.message,
                d.message_zh.as_deref(),
            );
            for r in &d.related {
                check(
                    format!("{} related", d.code),
                    &r.message,
                    r.message_zh.as_deref(),
                );
            }
            for f in &d.fixes {
                check(format!("{} fix", d.code), &f.title, f.title_zh.as_deref());
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let missing: Vec<Code> = Code::all().filter(|c| !seen.contains(c)).collect();
    assert!(missing.is_empty(), "no fixture makes {missing:?} fire");
}
