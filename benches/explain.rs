//! Throughput of `explain`: a recorded crash output, and a 4 MiB log of training noise with the
//! crash at its end (the shape of real logs: almost every line matches nothing).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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
criterion_main!(benches);
