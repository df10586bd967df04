//! Language-server start-up in a large workspace: `initialize`, `initialized`, then the first
//! diagnostics of an opened training script whose dataset class lives in another file — the
//! time from starting the process until those diagnostics arrive, and the server's peak
//! resident memory (`VmHWM`) by then. The workspace is generated in a temporary folder: 2,500
//! Python files in 50 packages, about 60 lines each, that import each other. The named peer,
//! `ruff server`, starts in the same workspace and is timed to its first diagnostics of the
//! same file.
//!
//! `cargo bench --bench lsp_start`. A measurement, not a test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/lsp_client/mod.rs"]
mod lsp_client;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use lsp_client::{Lsp, capabilities, file_uri};
use serde_json::{Value, json};

const PACKAGES: usize = 50;
const MODULES: usize = 50;
const RUNS: usize = 5;

const MODULE: &str = r#"import os

import torch
from torch.utils.data import Dataset

from .m{prev} import helper_{prev}


class Images{m}(Dataset):
    """Images of shard {m}."""

    def __init__(self, root):
        self.root = root
        self.files = sorted(os.listdir(root))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        image = torch.load(os.path.join(self.root, self.files[i]))
        return helper_{prev}(image).to("cuda")


def helper_{m}(x):
    return (x - x.mean()) / x.std()


def scale_{m}(x, factor=2.0):
    y = x * factor
    if y.max() > 1:
        y = y / y.max()
    return y


class Config{m}:
    batch_size = 32
    workers = 4

    def describe(self):
        return f"{self.batch_size} x {self.workers}"
"#;

const TRAIN: &str = r#"import argparse

from torch.utils.data import DataLoader

from pkg7.m3 import Images3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    loader = DataLoader(Images3("/data"), batch_size=32, num_workers=args.workers)
    for batch in loader:
        print(batch.shape)


if __name__ == "__main__":
    main()
"#;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for p in 0..PACKAGES {
        let package = dir.path().join(format!("pkg{p}"));
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(package.join("__init__.py"), "").unwrap();
        for m in 0..MODULES - 1 {
            let prev = (m + MODULES - 2) % (MODULES - 1);
            let text = MODULE
                .replace("{m}", &m.to_string())
                .replace("{prev}", &prev.to_string());
            std::fs::write(package.join(format!("m{m}.py")), text).unwrap();
        }
    }
    std::fs::write(dir.path().join("train.py"), TRAIN).unwrap();
    dir
}

/// Starts a server, opens `train.py`, and returns the time to its first diagnostics and the
/// server's peak memory.
fn start_up(command: Command, root: &Path, options: Value) -> (Duration, u64) {
    let started = Instant::now();
    let mut lsp = Lsp::spawn(command);
    lsp.initialize(capabilities(&[], false), options, Some(root));
    let uri = file_uri(&root.join("train.py"));
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_where(&uri, |_| true);
    let elapsed = started.elapsed();
    let peak = peak_memory(lsp.pid());
    black_box_len(&diagnostics);
    lsp.shutdown_and_exit();
    (elapsed, peak)
}

fn black_box_len(diagnostics: &[Value]) {
    std::hint::black_box(diagnostics.len());
}

/// `VmHWM` of a live process, in bytes.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn median(mut runs: Vec<(Duration, u64)>) -> (Duration, u64) {
    runs.sort_by_key(|r| r.0);
    let time = runs[runs.len() / 2].0;
    runs.sort_by_key(|r| r.1);
    (time, runs[runs.len() / 2].1)
}

fn main() {
    let dir = workspace();
    println!(
        "workspace: {} Python files; median of {RUNS} start-ups",
        PACKAGES * (MODULES - 1) + PACKAGES + 1
    );
    let ours = |()| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dldoctor"));
        command.arg("lsp");
        start_up(
            command,
            dir.path(),
            json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        )
    };
    let (time, peak) = median((0..RUNS).map(|_| ours(())).collect());
    println!(
        "  dldoctor lsp   {:>6.1} ms {:>6.1} MiB",
        time.as_secs_f64() * 1e3,
        support::mib(peak)
    );
    let Some(ruff) = support::ruff() else {
        return;
    };
    let theirs = |()| {
        let mut command = Command::new(&ruff);
        command.arg("server");
        start_up(command, dir.path(), Value::Null)
    };
    let (peer_time, peer_peak) = median((0..RUNS).map(|_| theirs(())).collect());
    println!(
        "  ruff server    {:>6.1} ms {:>6.1} MiB",
        peer_time.as_secs_f64() * 1e3,
        support::mib(peer_peak)
    );
    println!(
        "  ratio          {:.2}x the time, {:.2}x the memory",
        time.as_secs_f64() / peer_time.as_secs_f64(),
        peak as f64 / peer_peak as f64
    );
}
