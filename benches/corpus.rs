//! `dldoctor check` against its named peer, `ruff check --select E9` (syntax errors only: the
//! cheapest whole-tree pass ruff makes), on real code, in the same run:
//!
//! - torch's own Python sources: the `.py` files of the `torch` package installed for
//!   `DLDOCTOR_BENCH_PYTHON` (default `python3`), copied into the target folder at bench time;
//! - training code: each folder of `DLDOCTOR_BENCH_CORPUS` (a `:`-separated list), e.g.
//!   checkouts of public training repositories.
//!
//! Each command runs once to warm the page cache, then `DLDOCTOR_BENCH_RUNS` times (default
//! 5), interleaved; the medians of wall time, of CPU time (user + system: on a shared machine
//! wall time mostly measures the wait for a core) and of peak resident memory are reported with
//! the ratios. Both tools get the same files: the `.py` and `.ipynb` files of the tree, honouring
//! `.gitignore`; ruff without its cache (`--no-cache`) or configuration (`--isolated`). A measurement, not a test: nothing fails on a slow figure.
//!
//! `cargo bench --bench corpus`

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::{Run, mib};

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, is ignored.
    let runs = std::env::var("DLDOCTOR_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5usize);
    let Some(ruff) = support::ruff() else {
        return;
    };
    let mut corpora: Vec<(String, PathBuf)> = Vec::new();
    match torch_sources() {
        Ok(tree) => corpora.push(("torch's sources".into(), tree)),
        Err(why) => eprintln!("torch's sources skipped: {why}"),
    }
    if let Some(dirs) = std::env::var_os("DLDOCTOR_BENCH_CORPUS") {
        for dir in std::env::split_paths(&dirs) {
            corpora.push((dir.display().to_string(), dir));
        }
    }
    for (name, tree) in corpora {
        let (files, lines, notebooks) = size_of(&tree);
        let mut dldoctor = Command::new(env!("CARGO_BIN_EXE_dldoctor"));
        dldoctor
            .args(["check", "--exit-zero", "--assume-cpus", "8"])
            .args(["--assume-shm", "16GiB"])
            .arg(&tree);
        let mut peer = Command::new(&ruff);
        peer.args(["check", "--select", "E9", "--no-cache", "--isolated"])
            .args(["--exit-zero", "--quiet"])
            .arg(&tree);
        let mut commands = [
            ("dldoctor check", dldoctor),
            ("ruff check --select E9", peer),
        ];
        let results = support::compare(&mut commands, runs);
        println!(
            "{name}: {files} .py files ({lines} lines), {notebooks} notebooks; median of {runs} runs"
        );
        for ((label, _), run) in commands.iter().zip(&results) {
            println!("  {label:<24} {}", show(run));
        }
        let (ours, theirs) = (results[0], results[1]);
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        println!(
            "  ratio                    {:.2}x the wall time, {:.2}x the CPU time, {:.2}x the memory",
            ratio(ours.wall, theirs.wall),
            ratio(ours.cpu, theirs.cpu),
            ours.peak_bytes as f64 / theirs.peak_bytes as f64
        );
    }
}

fn show(run: &Run) -> String {
    format!(
        "{:>7.3} s wall {:>7.3} s CPU {:>7.1} MiB",
        run.wall.as_secs_f64(),
        run.cpu.as_secs_f64(),
        mib(run.peak_bytes)
    )
}

/// A copy of the installed torch package's `.py` files under the target folder.
fn torch_sources() -> Result<PathBuf, String> {
    let python = std::env::var("DLDOCTOR_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = Command::new(&python)
        .args([
            "-c",
            "import os, torch; print(os.path.dirname(torch.__file__))",
        ])
        .output()
        .map_err(|e| format!("{python}: {e}"))?;
    if !found.status.success() {
        return Err(format!(
            "{python} cannot import torch (set DLDOCTOR_BENCH_PYTHON to an interpreter that can)"
        ));
    }
    let package = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    let tree = support::target_dir().join("bench-corpus/torch");
    let _ = std::fs::remove_dir_all(&tree);
    copy_python_files(&package, &tree).map_err(|e| format!("copying torch: {e}"))?;
    Ok(tree)
}

fn copy_python_files(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_python_files(&path, &to.join(entry.file_name()))?;
            }
        } else if path.extension().is_some_and(|e| e == "py") {
            std::fs::create_dir_all(to)?;
            std::fs::copy(&path, to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// How many `.py` files and lines, and how many notebooks, a tree holds (the files both tools
/// check: `.gitignore` is honoured).
fn size_of(tree: &Path) -> (usize, usize, usize) {
    let (mut files, mut lines, mut notebooks) = (0, 0, 0);
    for entry in ignore::WalkBuilder::new(tree).require_git(false).build() {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "ipynb") {
            notebooks += 1;
        } else if path.extension().is_some_and(|e| e == "py")
            && let Ok(bytes) = std::fs::read(path)
        {
            files += 1;
            lines += bytes.iter().filter(|b| **b == b'\n').count();
        }
    }
    (files, lines, notebooks)
}
