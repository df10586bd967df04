//! Throughput of `explain`: a recorded crash output, and a 4 MiB log of training noise with the
//! crash at its end (the shape of real logs: almost every line matches nothing).
//!
//! Then, under `cargo bench` only, the named peer: `dldoctor explain` against `rg -c -f` with
//! every knowledge-base pattern, on the same generated noisy log (256 MiB, or
//! `DLDOCTOR_BENCH_LOG_MIB`), paired runs in one process, medians and their ratio. ripgrep is
//! installed from apt when it is missing.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use dldoctor::kb::{self, ExplainOptions, KnowledgeBase};

fn corpus(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(file);
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
}

fn noisy_log(crash: &str, size: usize) -> String {
    let mut log = String::with_capacity(size + crash.len());
    let mut step = 0u64;
    while log.len() < size {
        step += 1;
        log.push_str(&format!(
            "\x1b[32mINFO\x1b[0m epoch {} step {step} loss={:.4}\nEpoch {}: {:3}%|####      | {}/1000 [00:01<00:02, 9.5it/s]\r",
            step / 1000,
            1.0 / step as f64,
            step / 1000,
            step % 100,
            step % 1000
        ));
    }
    log.push_str(crash);
    log
}

fn bench(c: &mut Criterion) {
    let kb = KnowledgeBase::embedded();
    let options = ExplainOptions::default();
    let mut group = c.benchmark_group("explain");

    let crash = corpus("worker-sigbus.txt");
    group.throughput(Throughput::Bytes(crash.len() as u64));
    group.bench_function("recorded_bus_error", |b| {
        b.iter(|| kb::explain(black_box(&crash), &kb, &options))
    });

    let log = noisy_log(&crash, 4 << 20);
    group.throughput(Throughput::Bytes(log.len() as u64));
    group.sample_size(10);
    group.bench_function("noisy_log_4mib", |b| {
        b.iter(|| kb::explain(black_box(&log), &kb, &options))
    });
    group.finish();

    c.bench_function("knowledge_base_load", |b| b.iter(KnowledgeBase::embedded));
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo test --benches` runs the benchmarks once without `--bench`: skip the long peer run.
    if std::env::args().any(|a| a == "--bench")
        && let Err(err) = versus_ripgrep()
    {
        eprintln!("explain vs ripgrep: skipped: {err}");
    }
}

/// One measured run: wall time and the CPU time (user + system) of the child.
struct Run {
    wall: Duration,
    cpu: Duration,
}

fn versus_ripgrep() -> Result<(), String> {
    let mib: usize = std::env::var("DLDOCTOR_BENCH_LOG_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let rg = ripgrep()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let log = dir.path().join("train.log");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("python3")
        .arg(root.join("tests/corpus/make_big_log.py"))
        .arg(&log)
        .arg(mib.to_string())
        .status()
        .map_err(|e| format!("python3: {e}"))?;
    if !status.success() {
        return Err("make_big_log.py failed".into());
    }
    let patterns = dir.path().join("patterns.txt");
    let kb = KnowledgeBase::embedded();
    let all: Vec<&str> = kb.entries().iter().flat_map(|e| e.patterns()).collect();
    std::fs::write(&patterns, all.join("\n") + "\n").map_err(|e| e.to_string())?;

    let dldoctor = PathBuf::from(env!("CARGO_BIN_EXE_dldoctor"));
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..5 {
        ours.push(timed(
            Command::new(&dldoctor).arg("explain").arg(&log),
            Some(0),
        )?);
        theirs.push(timed(
            Command::new(&rg)
                .arg("-c")
                .arg("-f")
                .arg(&patterns)
                .arg(&log),
            Some(0),
        )?);
    }
    let (ow, oc) = medians(&ours);
    let (tw, tc) = medians(&theirs);
    println!(
        "explain vs ripgrep on a {mib} MiB noisy log, {} patterns, 5 paired runs, medians:",
        all.len()
    );
    println!("  dldoctor explain   wall {ow:>8.3?}  cpu {oc:>8.3?}");
    println!("  rg -c -f patterns  wall {tw:>8.3?}  cpu {tc:>8.3?}");
    println!(
        "  ratio (dldoctor / rg): wall {:.2}x, cpu {:.2}x",
        ow.as_secs_f64() / tw.as_secs_f64(),
        oc.as_secs_f64() / tc.as_secs_f64()
    );
    Ok(())
}

fn ripgrep() -> Result<PathBuf, String> {
    let found = |cmd: &str| {
        Command::new(cmd)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !found("rg") {
        eprintln!("ripgrep is missing: apt-get install -y ripgrep");
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "ripgrep"])
            .status();
    }
    found("rg")
        .then(|| PathBuf::from("rg"))
        .ok_or_else(|| "ripgrep is not installed".to_string())
}

fn timed(cmd: &mut Command, expect: Option<i32>) -> Result<Run, String> {
    let before = children_cpu();
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    let wall = start.elapsed();
    if expect.is_some() && status.code() != expect {
        return Err(format!("{cmd:?} exited with {status}"));
    }
    Ok(Run {
        wall,
        cpu: children_cpu().saturating_sub(before),
    })
}

/// User plus system time of the waited-for children so far.
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a `rusage` into the pointer it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn medians(runs: &[Run]) -> (Duration, Duration) {
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    (
        median(runs.iter().map(|r| r.wall).collect()),
        median(runs.iter().map(|r| r.cpu).collect()),
    )
}
