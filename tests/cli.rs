//! The `dldoctor` binary end to end: formats, exit codes, config errors, unreadable files,
//! `--fix`. Each test works in its own temporary folder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod cli_support;
use cli_support::{dldoctor, stderr, stdout};

fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

const CLEAN: &[u8] = b"from torch.utils.data import DataLoader\n\n\
def make(ds):\n    return DataLoader(ds, batch_size=32)\n";

#[test]
fn clean_project_exits_0_in_every_format() {
    let dir = project(&[("train.py", CLEAN)]);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "All checks passed!\n");

    let out = dldoctor(dir.path(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&out)).unwrap(),
        Value::Array(vec![])
    );

    let out = dldoctor(dir.path(), &["check", "--format", "github"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");

    let out = dldoctor(dir.path(), &["check", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(0));
    let sarif: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"], Value::Array(vec![]));
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        20
    );
}

#[test]
fn unknown_config_key_exits_2_naming_file_and_key() {
    let dir = project(&[
        ("train.py", CLEAN),
        (
            "pyproject.toml",
            b"[tool.dldoctor]\nselect = [\"DL\"]\nignroe = [\"DL201\"]\n",
        ),
    ]);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("pyproject.toml:3:1:"), "{err}");
    assert!(err.contains("unknown field `ignroe`"), "{err}");
}

#[test]
fn unknown_code_in_config_or_flag_exits_2() {
    let dir = project(&[
        ("train.py", CLEAN),
        ("pyproject.toml", b"[tool.dldoctor]\nignore = [\"DL999\"]\n"),
    ]);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("[tool.dldoctor] `ignore`: unknown rule code or prefix `DL999`"));

    let dir = project(&[("train.py", CLEAN)]);
    let out = dldoctor(dir.path(), &["check", "--select", "XY1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`XY1`"), "{}", stderr(&out));
}

#[test]
fn explicit_config_file_is_used() {
    let dir = project(&[
        ("src/train.py", CLEAN),
        ("ci.toml", b"[tool.dldoctor]\nbogus = 1\n"),
    ]);
    let out = dldoctor(dir.path(), &["check", "--config", "ci.toml", "src"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ci.toml"), "{}", stderr(&out));
}

#[test]
fn non_utf8_file_is_reported_and_the_rest_still_checked() {
    let dir = project(&[("a_bad.py", b"x = '\xff\xfe'\n"), ("b_good.py", CLEAN)]);
    let out = dldoctor(dir.path(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a_bad.py: not valid UTF-8"),
        "{}",
        stderr(&out)
    );
    // The other file was still checked: the document is complete and valid.
    assert!(
        serde_json::from_str::<Value>(&stdout(&out))
            .unwrap()
            .is_array()
    );
}

#[test]
fn missing_path_and_bad_size_exit_2() {
    let dir = project(&[("train.py", CLEAN)]);
    let out = dldoctor(dir.path(), &["check", "nope.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope.py"));
    let out = dldoctor(dir.path(), &["check", "--assume-shm", "64 parsecs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown unit `parsecs`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn gitignored_and_non_python_files_are_skipped() {
    let dir = project(&[
        (".gitignore", b"build/\n"),
        ("build/generated.py", b"\xff\n"),
        ("notes.txt", b"\xff\n"),
        ("train.py", CLEAN),
    ]);
    // .gitignore counts even outside a git repository (an unpacked tarball, a Docker context).
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn env_reports_this_machine() {
    let dir = project(&[]);
    let out = dldoctor(dir.path(), &["env", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let env: Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in ["os", "cpus", "shm", "nofile", "container", "notes"] {
        assert!(env.get(key).is_some(), "missing {key}: {env}");
    }
    if cfg!(target_os = "linux") {
        assert!(env["cpus"]["usable"].as_u64().unwrap() >= 1);
    }
    let out = dldoctor(dir.path(), &["env"]);
    assert!(stdout(&out).contains("usable CPUs:"));
}

#[test]
fn rule_prints_docs_and_the_table() {
    let dir = project(&[]);
    let out = dldoctor(dir.path(), &["rule", "DL301"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("# prefetch-factor-without-workers (DL301)"));
    let out = dldoctor(dir.path(), &["rule", "cuda-in-forked-worker"]);
    assert!(stdout(&out).starts_with("# cuda-in-forked-worker (DL101)"));
    let out = dldoctor(dir.path(), &["rule"]);
    assert_eq!(stdout(&out).lines().count(), 22);
    let out = dldoctor(dir.path(), &["rule", "DL999"]);
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// With findings: the Done-means scenario of the foundation issue.

const TRAIN: &[u8] = br#"import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default=64)
args = parser.parse_args()

train = DataLoader(ds, batch_size=32, num_workers=args.num_workers)
val = DataLoader(ds, prefetch_factor=4)
for batch in train:
    pass
"#;

const USER_CLASS: &[u8] = br#"class DataLoader:
    def __init__(self, dataset, **options):
        self.dataset = dataset


loader = DataLoader(ds, prefetch_factor=4, num_workers=-1)
"#;

fn findings(dir: &Path, extra: &[&str]) -> (Output, Vec<Value>) {
    let mut args = vec!["check", "--format", "json", "--assume-cpus", "8"];
    args.extend_from_slice(extra);
    let out = dldoctor(dir, &args);
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json output");
    (out, value.as_array().cloned().unwrap_or_default())
}

/// `check` with this host's facts fixed: 8 CPUs, 16 GiB of /dev/shm.
fn check_on_big_host(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["check", "--assume-cpus", "8", "--assume-shm", "16GiB"];
    args.extend_from_slice(extra);
    dldoctor(dir, &args)
}

fn codes(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|d| {
            format!(
                "{}:{}",
                d["filename"].as_str().unwrap(),
                d["code"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn json_reports_the_done_means_findings() {
    let dir = project(&[("train.py", TRAIN), ("user.py", USER_CLASS)]);
    let (out, items) = findings(dir.path(), &["--assume-shm", "16GiB"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Nothing for a user's own class named DataLoader.
    assert!(
        items.iter().all(|d| d["filename"] == "train.py"),
        "{items:#?}"
    );

    let dl301 = items.iter().find(|d| d["code"] == "DL301").expect("DL301");
    // At the keyword: `val = DataLoader(ds, prefetch_factor=4)` is line 11, column 22.
    assert_eq!(
        dl301["location"],
        serde_json::json!({"row": 11, "column": 22})
    );
    assert_eq!(
        dl301["end_location"],
        serde_json::json!({"row": 11, "column": 37})
    );
    assert_eq!(dl301["severity"], "error");
    assert_eq!(dl301["fix"]["applicability"], "safe");
    let edit = &dl301["fix"]["edits"][0];
    for key in ["content", "location", "end_location"] {
        assert!(edit.get(key).is_some(), "edit lacks {key}: {edit}");
    }
    assert!(dl301["kb"].as_array().is_some_and(|kb| !kb.is_empty()));

    let dl201 = items.iter().find(|d| d["code"] == "DL201").expect("DL201");
    let message = dl201["message"].as_str().unwrap();
    assert!(message.contains("64") && message.contains('8'), "{message}");

    for d in &items {
        for key in [
            "code",
            "message",
            "severity",
            "filename",
            "location",
            "end_location",
            "fix",
            "kb",
        ] {
            assert!(d.get(key).is_some(), "{key} missing in {d}");
        }
        assert!(d["location"]["row"].as_u64().unwrap() >= 1);
        assert!(d["location"]["column"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn small_shm_gives_dl203_naming_the_size() {
    let dir = project(&[("train.py", TRAIN)]);
    let (_, items) = findings(dir.path(), &["--assume-shm", "64MiB"]);
    let dl203 = items.iter().find(|d| d["code"] == "DL203").expect("DL203");
    assert!(
        dl203["message"].as_str().unwrap().contains("64 MiB"),
        "{dl203}"
    );
    let (_, items) = findings(dir.path(), &["--assume-shm", "16GiB"]);
    assert!(items.iter().all(|d| d["code"] != "DL203"));
}

#[test]
fn findings_exit_1_unless_exit_zero() {
    let dir = project(&[("train.py", TRAIN)]);
    let out = dldoctor(dir.path(), &["check", "--assume-cpus", "8"]);
    assert_eq!(out.status.code(), Some(1));
    let out = dldoctor(dir.path(), &["check", "--assume-cpus", "8", "--exit-zero"]);
    assert_eq!(out.status.code(), Some(0));
    // An unreadable file still wins over --exit-zero: something was not checked.
    let dir = project(&[("train.py", TRAIN), ("bad.py", b"\xff")]);
    let out = dldoctor(dir.path(), &["check", "--exit-zero"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn text_lines_are_ruff_like_and_in_path_order() {
    let dir = project(&[
        ("b/train.py", TRAIN),
        ("a/train.py", TRAIN),
        ("c.py", CLEAN),
    ]);
    let out = check_on_big_host(dir.path(), &[]);
    let text = stdout(&out);
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("a/") || l.starts_with("b/"))
        .collect();
    assert!(!headers.is_empty(), "{text}");
    let files: Vec<&str> = headers.iter().map(|l| &l[..1]).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "not in path order:\n{text}");
    assert!(
        headers.contains(&"a/train.py:11:22: DL301 [*] prefetch_factor=4 with num_workers=0 (DataLoader's default): DataLoader raises \"ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.\""),
        "{text}"
    );
    assert!(
        text.contains("11 | val = DataLoader(ds, prefetch_factor=4)"),
        "{text}"
    );
    assert!(
        text.contains("= help: Remove `prefetch_factor=4`"),
        "{text}"
    );
    let summary = text.trim_end().lines().last().unwrap();
    assert_eq!(
        summary,
        "Found 4 issues (2 fixable with --fix; 2 more with --fix --unsafe-fixes)."
    );
    assert!(!text.contains('\x1b'), "colour without a terminal");
}

#[test]
fn github_format_is_one_workflow_command_per_finding() {
    let dir = project(&[("train.py", TRAIN)]);
    let out = check_on_big_host(dir.path(), &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with(
            "::error file=train.py,line=11,col=22,endLine=11,endColumn=37,title=DL301::prefetch_factor=4"
        )),
        "{text}"
    );
    assert!(text.lines().all(|l| l.starts_with("::")), "{text}");
}

#[test]
fn sarif_is_structurally_valid() {
    let dir = project(&[("train.py", TRAIN)]);
    let out = check_on_big_host(dir.path(), &["--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for rule in rules {
        assert!(rule["id"].as_str().unwrap().starts_with("DL"));
        assert!(rule["helpUri"].as_str().unwrap().contains("#dl"));
    }
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(!r["message"]["text"].as_str().unwrap().is_empty());
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "train.py");
        let region = &loc["region"];
        assert!(region["startLine"].as_u64().unwrap() <= region["endLine"].as_u64().unwrap());
        for fix in r["fixes"].as_array().unwrap() {
            assert!(fix["artifactChanges"][0]["replacements"].is_array());
        }
    }
}

#[test]
fn fix_changes_the_file_and_a_second_run_is_clean_for_that_rule() {
    let dir = project(&[("train.py", TRAIN)]);
    let out = check_on_big_host(dir.path(), &["--fix"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "DL201 remains: its fix is unsafe"
    );
    assert!(
        stderr(&out).contains("train.py: fixed DL301"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("fixed"), "{}", stdout(&out));
    let fixed = std::fs::read_to_string(dir.path().join("train.py")).unwrap();
    assert!(fixed.contains("val = DataLoader(ds)\n"), "{fixed}");
    let (_, items) = findings(dir.path(), &["--assume-shm", "16GiB"]);
    assert!(
        codes(&items).iter().all(|c| c != "train.py:DL301"),
        "{items:#?}"
    );
    assert!(codes(&items).iter().any(|c| c == "train.py:DL201"));
}

#[test]
fn select_ignore_noqa_and_per_file_ignores() {
    let dir = project(&[("train.py", TRAIN)]);
    let (_, items) = findings(dir.path(), &["--select", "DL301"]);
    assert_eq!(codes(&items), ["train.py:DL301"]);
    let (_, items) = findings(dir.path(), &["--ignore", "DL3"]);
    assert!(codes(&items).iter().all(|c| !c.contains("DL3")));

    let suppressed = String::from_utf8_lossy(TRAIN).replace(
        "val = DataLoader(ds, prefetch_factor=4)",
        "val = DataLoader(ds, prefetch_factor=4)  # noqa: DL301",
    );
    let dir = project(&[
        ("train.py", suppressed.as_bytes()),
        ("tests/test_loader.py", TRAIN),
        (
            "pyproject.toml",
            b"[tool.dldoctor]\nper-file-ignores = { \"tests/*\" = [\"DL2\", \"DL3\"] }\n",
        ),
    ]);
    let (_, items) = findings(dir.path(), &["--assume-shm", "16GiB"]);
    let found = codes(&items);
    assert!(!found.contains(&"train.py:DL301".to_owned()), "{found:?}");
    assert!(found.contains(&"train.py:DL201".to_owned()), "{found:?}");
    assert!(found.iter().all(|c| !c.starts_with("tests/")), "{found:?}");
}

#[test]
fn noqa_inside_a_string_is_not_a_suppression() {
    let in_string = String::from_utf8_lossy(TRAIN).replace(
        "val = DataLoader(ds, prefetch_factor=4)",
        "val = DataLoader(ds, prefetch_factor=4, collate_fn=log('# noqa'))",
    );
    let dir = project(&[("train.py", in_string.as_bytes())]);
    let (_, items) = findings(dir.path(), &["--select", "DL301"]);
    assert_eq!(codes(&items), ["train.py:DL301"]);
}

#[test]
fn config_max_workers_and_severity_apply() {
    let dir = project(&[
        ("train.py", TRAIN),
        (
            "pyproject.toml",
            b"[tool.dldoctor]\nseverity = { DL301 = \"warning\" }\n",
        ),
    ]);
    let (_, items) = findings(dir.path(), &["--assume-shm", "16GiB"]);
    let dl301 = items.iter().find(|d| d["code"] == "DL301").unwrap();
    assert_eq!(dl301["severity"], "warning");
}

#[test]
fn per_file_ignores_hold_for_absolute_and_nested_paths() {
    let dir = project(&[
        ("proj/tests/test_loader.py", TRAIN),
        (
            "proj/pyproject.toml",
            b"[tool.dldoctor]\nper-file-ignores = { \"tests/*\" = [\"DL\"] }\n",
        ),
    ]);
    let absolute = dir.path().join("proj/tests/test_loader.py");
    for target in [
        absolute.to_str().unwrap(),
        "proj",
        "proj/tests/test_loader.py",
    ] {
        let (out, items) = findings(dir.path(), &[target]);
        assert_eq!(out.status.code(), Some(0), "{target}: {items:#?}");
    }
}
