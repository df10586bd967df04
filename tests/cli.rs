//! The `dldoctor` binary end to end: formats, exit codes, config errors, unreadable files,
//! `--fix`. Each test works in its own temporary folder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn dldoctor(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dldoctor"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run dldoctor")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

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
        19
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
    assert_eq!(stdout(&out).lines().count(), 21);
    let out = dldoctor(dir.path(), &["rule", "DL999"]);
    assert_eq!(out.status.code(), Some(2));
}
