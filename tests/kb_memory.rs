//! `explain` streams: a long log is read with flat memory. Alone in its test binary so that the
//! process's peak RSS belongs to this test only.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly

use std::io::{BufReader, Read};
use std::path::Path;

use dldoctor::kb::{self, ExplainOptions, KnowledgeBase};

/// A training log produced on the fly: progress and loss lines with ANSI colours and tqdm
/// redraws, every recorded output mixed in, and the bus-error output last.
struct GeneratedLog {
    outputs: Vec<Vec<u8>>,
    last: Vec<u8>,
    remaining: usize,
    block: Vec<u8>,
    pos: usize,
    step: usize,
    done: bool,
}

impl GeneratedLog {
    fn new(size: usize) -> Self {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut outputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        outputs.sort();
        let last = std::fs::read(dir.join("worker-sigbus.txt")).unwrap();
        GeneratedLog {
            outputs,
            last,
            remaining: size,
            block: Vec::new(),
            pos: 0,
            step: 0,
            done: false,
        }
    }

    fn refill(&mut self) {
        self.block.clear();
        self.pos = 0;
        if self.remaining <= self.last.len() {
            if !self.done {
                self.block.extend_from_slice(&self.last);
                self.done = true;
            }
            return;
        }
        for _ in 0..200 {
            self.step += 1;
            let s = self.step;
            self.block.extend_from_slice(
                format!(
                    "\x1b[32mINFO\x1b[0m epoch {} step {s} loss={:.4}\nEpoch {}: {:3}%|####      | {}/1000 [00:01<00:02, 9.5it/s]\r",
                    s / 1000,
                    1.0 / s as f64,
                    s / 1000,
                    s % 100,
                    s % 1000
                )
                .as_bytes(),
            );
        }
        let output = &self.outputs[self.step % self.outputs.len()];
        self.block.extend_from_slice(output);
        self.remaining = self.remaining.saturating_sub(self.block.len());
    }
}

impl Read for GeneratedLog {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.block.len() {
            self.refill();
        }
        let n = buf.len().min(self.block.len() - self.pos);
        buf[..n].copy_from_slice(&self.block[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn peak_rss_kib() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss
}

#[test]
fn a_long_log_is_explained_with_flat_memory() {
    const SIZE: usize = 32 * 1024 * 1024;
    let kb = KnowledgeBase::embedded();
    // Warm up: compile the patterns' lazy automata on a first small log.
    kb::explain_reader(
        BufReader::new(GeneratedLog::new(1 << 20)),
        &kb,
        &ExplainOptions::default(),
    )
    .unwrap();
    let before = peak_rss_kib();
    let findings = kb::explain_reader(
        BufReader::new(GeneratedLog::new(SIZE)),
        &kb,
        &ExplainOptions::default(),
    )
    .unwrap();
    let grown_mib = (peak_rss_kib() - before) / 1024;
    assert_eq!(findings[0].id, "pytorch/dataloader-worker-bus-error-shm");
    assert!(
        findings[0].user_frame().is_some(),
        "the last traceback's frames are kept"
    );
    // Reading the log into memory would grow by at least its 32 MiB.
    eprintln!("peak RSS grew by {grown_mib} MiB on a 32 MiB log");
    assert!(
        grown_mib < 12,
        "peak RSS grew by {grown_mib} MiB on a 32 MiB log"
    );
}
