//! Rules that read more than one file: a DataLoader in one file whose Dataset is defined in
//! another, resolved through the [`ProjectIndex`]. (Single-file fixtures run in `rules.rs`.)

#![allow(clippy::expect_used)] // a fixture that cannot be read is a broken test

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dldoctor::analyze::{Context, analyze};
use dldoctor::config::Settings;
use dldoctor::diagnostic::Diagnostic;
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
    let mut settings = Settings::default();
    settings.select = vec![code.as_str().to_owned()];
    settings
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
    // The other file's labels reach the Chinese text too.
    let related_zh = diagnostics[0].related[0]
        .message_zh
        .as_deref()
        .unwrap_or("");
    assert!(related_zh.contains("在每个 worker 中运行"), "{related_zh}");
    insta::assert_snapshot!("DL101_cross_file", render(&source, &diagnostics, &root));
    // Without the other file the dataset is unknown: quiet, never a guess.
    assert!(run(&source, &train, Code::DL101, &ProjectIndex::new()).is_empty());
}

/// `dldoctor check` follows the imports of the checked files, so the same finding comes from the
/// CLI.
#[test]
fn check_sees_the_dataset_in_another_file() {
    let root = fixtures_dir().join("DL101_cross_file");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
        .args(["check", "--format", "json", "--select", "DL101"])
        .arg(&root)
        .output()
        .expect("dldoctor runs");
    let findings: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let findings = findings.as_array().expect("an array");
    let mut files: Vec<&str> = findings
        .iter()
        .map(|f| {
            assert_eq!(f["code"], "DL101");
            f["filename"].as_str().expect("a filename")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{findings:?}");
    assert!(files[0].ends_with("evaluate.py"), "{files:?}");
    assert!(files[1].ends_with("train.py"), "{files:?}");
    assert_eq!(output.status.code(), Some(1));
}

/// The dataset class and the `worker_init_fn` are each two imports away from the script (the
/// package re-exports a module that re-exports them): `check` follows the imports to the files
/// that define them, whether it is given the project or the script alone.
#[test]
fn check_follows_imports_two_away() {
    let root = fixtures_dir().join("DL101_two_imports_away");
    for target in [root.clone(), root.join("scripts/train.py")] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
            .args(["check", "--format", "json", "--select", "DL101"])
            .arg(&target)
            .output()
            .expect("dldoctor runs");
        let findings: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON on stdout");
        let findings = findings.as_array().expect("an array");
        let mut related: Vec<String> = findings
            .iter()
            .map(|f| {
                assert_eq!(f["code"], "DL101");
                let file = f["filename"].as_str().expect("a filename");
                assert!(file.ends_with("scripts/train.py"), "{file}");
                f["related"][0]["filename"]
                    .as_str()
                    .expect("the defining file")
                    .to_owned()
            })
            .collect();
        related.sort();
        assert_eq!(related.len(), 2, "{target:?}: {findings:?}");
        assert!(
            related[0].ends_with("videoproj/data/gpu_decode.py"),
            "{related:?}"
        );
        assert!(
            related[1].ends_with("videoproj/data/seeding.py"),
            "{related:?}"
        );
    }
}

/// Pathological input (deep nesting, a lambda nested in itself) is analysed without a crash.
#[test]
fn deep_nesting_does_not_crash() {
    let depth = 3000;
    let nested = format!("{}0{}", "(".repeat(depth), ")".repeat(depth));
    let lambdas = format!("{}b", "lambda b: ".repeat(depth));
    let source = format!(
        "import torch\nfrom torch.utils.data import DataLoader\nX = {nested}\n\
         DataLoader(torch.zeros(X), num_workers=2, multiprocessing_context='spawn', collate_fn={lambdas})\n"
    );
    let path = Path::new("deep.py");
    let index = ProjectIndex::new();
    for code in [Code::DL101, Code::DL104, Code::DL105] {
        let _ = run(&source, path, code, &index);
    }
}

/// Malformed Python gets a best-effort analysis and never a crash.
#[test]
fn malformed_input_does_not_crash() {
    let sources = [
        "import torch\nfrom torch.utils.data import DataLoader, Dataset\nclass D(Dataset):\n    def __getitem__(self, i:\n        return torch.ones(2).cuda(\nloader = DataLoader(D(), num_workers=\n",
        "from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=2, multiprocessing_context='spawn', collate_fn=lambda:\nfor x in\n",
        "from torch.utils.data import DataLoader\nif __name__ == '__main__'\n    DataLoader(\n",
        "from torch.utils.data import DataLoader as DL\nDL(*, **)\nlambda lambda\n\"\"\"unterminated\n",
        "\u{feff}from torch.utils.data import DataLoader\nDataLoader(D(), num_workers=2, pin_memory=True)\nclass D:\n    def __getitem__(self, i): return 'é'.cuda()\n",
    ];
    let index = ProjectIndex::new();
    for source in sources {
        for code in [
            Code::DL101,
            Code::DL102,
            Code::DL103,
            Code::DL104,
            Code::DL105,
            Code::DL106,
        ] {
            for d in run(source, Path::new("broken.py"), code, &index) {
                assert!(d.range.end <= source.len());
                for fix in &d.fixes {
                    assert!(dldoctor::fix::apply_edits(source, &fix.edits).is_ok());
                }
            }
        }
    }
}
