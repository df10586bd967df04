//! What the benchmarks share: the named peers, installed when missing, and timing a command
//! with its peak memory.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The target folder this benchmark was built into (`target/release/deps/<bench>` → `target`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench's own path");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir)
}

/// ruff, the peer of `check` and of the language server: `RUFF`, else `ruff` on `PATH`, else
/// installed from PyPI into a virtual environment under the target folder.
pub fn ruff() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RUFF") {
        return Some(PathBuf::from(path));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("ruff"))
            .find(|candidate| candidate.is_file())
    });
    if on_path.is_some() {
        return on_path;
    }
    let venv = target_dir().join("bench-peers/venv");
    let ruff = venv.join("bin/ruff");
    if !ruff.is_file() {
        eprintln!("installing ruff into {}", venv.display());
        let made = Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success());
        let installed = made
            && Command::new(venv.join("bin/pip"))
                .args(["install", "-q", "ruff"])
                .status()
                .is_ok_and(|s| s.success());
        if !installed {
            eprintln!("could not install ruff: peer skipped");
            return None;
        }
    }
    Some(ruff)
}

/// One run of a command: its wall time, its CPU time (user + system, all threads) and the
/// peak resident memory of the process.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub wall: Duration,
    /// On a loaded machine wall time mostly measures waiting for a core; CPU time does not.
    pub cpu: Duration,
    pub peak_bytes: u64,
}

/// Runs `command` to completion, output discarded, and measures it.
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which also gives its peak memory
pub fn measure(command: &mut Command) -> Run {
    let started = Instant::now();
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the command starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; the pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1,
        "{command:?} failed: status {status}"
    );
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    // Linux reports ru_maxrss in KiB.
    Run {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        peak_bytes: usage.ru_maxrss as u64 * 1024,
    }
}

/// The median of each measure (wall, CPU, memory, each on its own) over `runs` runs, the commands interleaved run by run so that a
/// change of load on the machine affects both alike.
pub fn compare(commands: &mut [(&str, Command)], runs: usize) -> Vec<Run> {
    for (_, command) in commands.iter_mut() {
        measure(command); // warm the page cache
    }
    let mut results: Vec<Vec<Run>> = vec![Vec::new(); commands.len()];
    for _ in 0..runs {
        for (i, (_, command)) in commands.iter_mut().enumerate() {
            results[i].push(measure(command));
        }
    }
    results
        .into_iter()
        .map(|mut runs| {
            let mid = runs.len() / 2;
            runs.sort_by_key(|r| r.wall);
            let wall = runs[mid].wall;
            runs.sort_by_key(|r| r.cpu);
            let cpu = runs[mid].cpu;
            runs.sort_by_key(|r| r.peak_bytes);
            Run {
                wall,
                cpu,
                peak_bytes: runs[mid].peak_bytes,
            }
        })
        .collect()
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
