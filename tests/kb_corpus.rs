//! The knowledge base against real PyTorch output: recorded runs and public bug reports
//! (tests/corpus, listed with their expected top entry in tests/corpus/expected.tsv).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly

use std::collections::BTreeSet;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use dldoctor::kb::{self, EvidenceKind, ExplainOptions, Finding, KnowledgeBase, Lang};
use dldoctor::rules::Code;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

struct Case {
    file: String,
    /// `None` for an unrelated crash that must give no finding.
    top: Option<String>,
    user_frame: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus_dir().join("expected.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "expected.tsv: 4 columns in {l:?}");
            Case {
                file: cols[0].to_string(),
                top: (cols[1] != "-").then(|| format!("pytorch/{}", cols[1])),
                user_frame: (cols[2] != "-").then(|| cols[2].to_string()),
            }
        })
        .collect()
}

fn explain_file(kb: &KnowledgeBase, path: &Path) -> Vec<Finding> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    kb::explain_reader(BufReader::new(file), kb, &ExplainOptions::default()).unwrap()
}

fn user_frame(finding: &Finding) -> Option<String> {
    finding
        .user_frame()
        .map(|f| format!("{}:{}", f.file, f.line))
}

#[test]
fn every_recorded_output_names_the_right_entry_first() {
    let kb = KnowledgeBase::embedded();
    let mut failures = Vec::new();
    let cases = cases();
    assert!(
        cases.len() >= 50,
        "the corpus lost outputs: {}",
        cases.len()
    );
    for case in &cases {
        let findings = explain_file(&kb, &corpus_dir().join(&case.file));
        let Some(expected) = &case.top else {
            if !findings.is_empty() {
                let ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
                failures.push(format!("{}: expected no finding, got {ids:?}", case.file));
            }
            continue;
        };
        let top = findings.first().map(|f| f.id.as_str()).unwrap_or("(none)");
        if top != expected {
            failures.push(format!("{}: expected {expected}, got {top}", case.file));
            continue;
        }
        if findings[0].evidence != EvidenceKind::Message && !case.file.contains("-frames-") {
            failures.push(format!("{}: diagnosed from frames only", case.file));
        }
        let frame = user_frame(&findings[0]);
        if frame != case.user_frame {
            failures.push(format!(
                "{}: expected user frame {:?}, got {frame:?}",
                case.file, case.user_frame
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_corpus_output_is_listed_with_its_expectation() {
    let listed: BTreeSet<String> = cases().into_iter().map(|c| c.file).collect();
    for dir in ["", "reports"] {
        for entry in std::fs::read_dir(corpus_dir().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "txt") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let rel = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                assert!(listed.contains(&rel), "{rel} is not in expected.tsv");
            }
        }
    }
}

#[test]
fn every_entry_is_matched_by_a_recorded_output_or_its_own_signature() {
    let kb = KnowledgeBase::embedded();
    let mut seen = BTreeSet::new();
    for case in cases() {
        for finding in explain_file(&kb, &corpus_dir().join(&case.file)) {
            seen.insert(finding.id);
        }
    }
    let mut missing = Vec::new();
    for entry in kb.entries() {
        let own = kb::explain(&entry.signature, &kb, &ExplainOptions::default());
        // Entries that need a traceback frame (`requires_frame`) cannot match a bare line; they
        // must be matched by recorded output instead.
        if entry.requires_frame.is_some() {
            if !seen.contains(&entry.id) {
                missing.push(format!("{}: matched by no recorded output", entry.id));
            }
        } else if !own.iter().any(|f| f.id == entry.id) {
            missing.push(format!("{}: its own signature is not matched", entry.id));
        }
        if !seen.contains(&entry.id) && own.is_empty() {
            missing.push(format!("{}: matched by nothing", entry.id));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // Most entries are backed by real output, not only by their own signature.
    assert!(
        seen.len() >= 34,
        "only {} entries matched by recorded output",
        seen.len()
    );
}

#[test]
fn embedded_knowledge_base_is_valid_and_complete() {
    let (entries, errors) = kb::embedded_entries();
    assert!(errors.is_empty(), "{errors:?}");
    let problems = kb::validate::validate(&entries, &[]);
    assert!(
        problems.is_empty(),
        "{}",
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let kb = KnowledgeBase::embedded();
    for id in [
        "dataloader-worker-bus-error-shm",
        "dataloader-shm-exhausted",
        "dataloader-worker-segfault-shm",
        "dataloader-worker-killed-oom",
        "dataloader-worker-killed-signal",
        "dataloader-worker-exited-unexpectedly",
        "dataset-worker-fork-cuda",
        "shm-open-failed",
        "too-many-open-files",
        "spawn-unpicklable-object",
        "spawn-missing-main-guard",
        "spawn-child-eof",
        "start-method-already-set",
        "dataloader-timeout",
        "prefetch-factor-without-workers",
        "persistent-workers-without-workers",
        "mp-context-without-workers",
        "invalid-mp-context",
        "negative-num-workers",
        "sampler-shuffle-exclusive",
        "batch-sampler-exclusive",
        "worker-count-exceeds-suggested",
        "worker-exception",
        "collate-size-mismatch",
        "collate-unsupported-type",
        "pin-memory-thread-exited",
        "cannot-pin-cuda-tensor",
        "cuda-ipc-producer-terminated",
        "cuda-ipc-windows-801",
        "windows-paging-file",
        "worker-connection-reset",
        "mp-spawn-process-killed",
        "iterator-wrong-process",
        "fork-threadpool-warning",
        "timeout-without-workers",
        "batch-size-none-drop-last",
    ] {
        let id = format!("pytorch/{id}");
        assert!(kb.entry(&id).is_some(), "missing {id}");
    }
}

#[test]
fn rule_links_exist_in_both_directions() {
    let kb = KnowledgeBase::embedded();
    for code in Code::all() {
        for id in code.rule().kb {
            let entry = kb
                .entry(id)
                .unwrap_or_else(|| panic!("{code} links to missing entry {id}"));
            assert!(
                entry.rules.iter().any(|r| r == code.as_str()),
                "{id} does not list {code} in `rules`"
            );
        }
    }
    for entry in kb.entries() {
        for rule in &entry.rules {
            assert!(
                Code::from_str(rule).is_ok(),
                "{}: unknown rule {rule}",
                entry.id
            );
        }
    }
}

#[test]
fn the_seeds_invented_segfault_wording_is_not_taken_for_pytorch_output() {
    // PyTorch never prints this line; matching it would teach users to trust invented output.
    let kb = KnowledgeBase::embedded();
    let findings = kb::explain(
        "RuntimeError: DataLoader worker (pid 12345) received signal 11 (Segmentation fault).",
        &kb,
        &ExplainOptions::default(),
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn ordinary_output_has_no_findings() {
    let kb = KnowledgeBase::embedded();
    let text = "Epoch 1/10 loss=0.31\nEOFError: Ran out of input\nsaved checkpoint.pt\n";
    // A bare EOFError outside a spawn bootstrap is not the spawn failure.
    assert!(kb::explain(text, &kb, &ExplainOptions::default()).is_empty());
}

/// What a terminal and a launcher add to output: colours, `[rank1]:` prefixes, CRLF line ends,
/// tqdm bars redrawn with carriage returns and one left on the line where the traceback starts.
fn noisy(text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i % 5 == 0 {
            out.push_str(" 40%|####      | 4/10 [00:01<00:02,  3.1it/s]\r 50%|#####     | 5/10 [00:01<00:01,  3.2it/s]\r\n");
        }
        let coloured = if line.contains("Error") {
            format!("\x1b[1;31m{line}\x1b[0m")
        } else {
            line.to_string()
        };
        out.push_str("[rank1]: ");
        if line.starts_with("Traceback") {
            out.push_str(" 60%|######    | 6/10 [00:02<00:01,  3.3it/s]");
        }
        out.push_str(&coloured);
        out.push_str("\r\n");
    }
    out
}

#[test]
fn terminal_noise_does_not_change_the_diagnosis() {
    let kb = KnowledgeBase::embedded();
    for file in [
        "worker-sigbus.txt",
        "key-error.txt",
        "ragged-batch.txt",
        "spawn-no-main-guard.txt",
    ] {
        let clean =
            String::from_utf8_lossy(&std::fs::read(corpus_dir().join(file)).unwrap()).into_owned();
        let plain = kb::explain(&clean, &kb, &ExplainOptions::default());
        let noisy = kb::explain(&noisy(&clean), &kb, &ExplainOptions::default());
        assert_eq!(plain[0].id, noisy[0].id, "{file}");
        assert_eq!(user_frame(&plain[0]), user_frame(&noisy[0]), "{file}");
    }
}

#[test]
fn interleaved_ranks_are_parsed_apart() {
    let kb = KnowledgeBase::embedded();
    let read = |f: &str| std::fs::read_to_string(corpus_dir().join(f)).unwrap();
    let (a, b) = (read("key-error.txt"), read("ragged-batch.txt"));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut text = String::new();
    for i in 0..a.len().max(b.len()) {
        if let Some(line) = a.get(i) {
            text.push_str(&format!("[rank0]: {line}\n"));
        }
        if let Some(line) = b.get(i) {
            text.push_str(&format!("[rank1]: {line}\n"));
        }
    }
    let findings = kb::explain(&text, &kb, &ExplainOptions::default());
    let ids: Vec<&str> = findings.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        ids,
        ["pytorch/collate-size-mismatch", "pytorch/worker-exception"]
    );
    assert_eq!(
        user_frame(&findings[1]).as_deref(),
        Some("/srv/project/key_error.py:14")
    );
}

#[test]
fn a_generic_wrapper_yields_to_the_specific_cause_of_the_same_traceback() {
    let kb = KnowledgeBase::embedded();
    let findings = explain_file(&kb, &corpus_dir().join("ragged-batch.txt"));
    assert_eq!(findings.len(), 1, "{findings:?}");
    let findings = explain_file(&kb, &corpus_dir().join("worker-sigkill.txt"));
    assert!(
        findings
            .iter()
            .all(|f| f.id != "pytorch/dataloader-worker-exited-unexpectedly")
    );
}

#[test]
fn root_decides_which_frames_are_the_users() {
    let kb = KnowledgeBase::embedded();
    let text = std::fs::read_to_string(corpus_dir().join("key-error.txt")).unwrap();
    let inside = ExplainOptions {
        root: Some(PathBuf::from("/srv/project")),
        lang: Lang::En,
    };
    let outside = ExplainOptions {
        root: Some(PathBuf::from("/home/elsewhere")),
        lang: Lang::En,
    };
    assert!(kb::explain(&text, &kb, &inside)[0].user_frame().is_some());
    assert!(kb::explain(&text, &kb, &outside)[0].user_frame().is_none());
}

#[test]
fn chinese_findings_use_the_chinese_fields() {
    let kb = KnowledgeBase::embedded();
    let text = std::fs::read_to_string(corpus_dir().join("worker-sigbus.txt")).unwrap();
    let zh = ExplainOptions {
        root: None,
        lang: Lang::Zh,
    };
    let finding = &kb::explain(&text, &kb, &zh)[0];
    let entry = kb.entry(&finding.id).unwrap();
    assert_eq!(finding.title, entry.title_zh);
    assert_eq!(finding.root_cause, entry.root_cause_zh);
    assert_eq!(finding.workarounds[0].action, entry.workarounds_zh[0]);
    assert_eq!(finding.dead_ends[0].action, entry.dead_ends_zh[0].action);
}

#[test]
fn findings_serialize_in_the_contract_shape() {
    let kb = KnowledgeBase::embedded();
    let text = std::fs::read_to_string(corpus_dir().join("key-error.txt")).unwrap();
    let findings = kb::explain(&text, &kb, &ExplainOptions::default());
    let json = serde_json::to_value(&findings[0]).unwrap();
    let keys: BTreeSet<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let expected: BTreeSet<&str> = [
        "id",
        "title",
        "line",
        "matched",
        "root_cause",
        "workarounds",
        "dead_ends",
        "rules",
        "frames",
        "evidence",
    ]
    .into_iter()
    .collect();
    assert_eq!(keys, expected);
    let frame = &json["frames"][0];
    let frame_keys: BTreeSet<&str> = frame
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        frame_keys,
        ["file", "function", "line", "user"].into_iter().collect()
    );
    assert_eq!(json["evidence"], "message");
    let wrapper_line = text
        .lines()
        .position(|l| l.contains("Caught KeyError in DataLoader worker process"))
        .unwrap()
        + 1;
    assert_eq!(json["line"], wrapper_line);
    assert!(
        json["matched"]
            .as_str()
            .unwrap()
            .starts_with("KeyError: Caught KeyError")
    );
}

/// Every kind `explain` knows from its message is also diagnosed from an excerpt that lost that
/// line (pasted outputs often do): the frames and source lines left point at the same failure,
/// marked as frame evidence and ranked below any message.
#[test]
fn excerpts_that_lost_the_message_line_are_diagnosed_from_their_frames() {
    let kb = KnowledgeBase::embedded();
    // `Cut`: the excerpt ends before the message; `Drop`: every line the message was found on
    // is missing (it was printed elsewhere, or more than once).
    #[derive(Clone, Copy)]
    enum Lost {
        Cut,
        Drop,
    }
    let cases = [
        ("empty-dataset.txt", "empty-dataset-sampler", Lost::Cut),
        (
            "ragged-in-worker.txt",
            "collate-resize-not-resizable",
            Lost::Cut,
        ),
        ("ragged-batch.txt", "collate-size-mismatch", Lost::Cut),
        (
            "spawn-pickle-module.txt",
            "spawn-unpicklable-object",
            Lost::Drop,
        ),
        (
            "spawn-pickle-lock.txt",
            "spawn-unpicklable-object",
            Lost::Drop,
        ),
        (
            "spawn-pickle-h5py.txt",
            "spawn-unpicklable-object",
            Lost::Drop,
        ),
        ("mmap-map-count.txt", "mmap-map-count", Lost::Cut),
        (
            "spawn-no-main-guard.txt",
            "spawn-missing-main-guard",
            Lost::Cut,
        ),
        ("key-error.txt", "worker-exception", Lost::Cut),
        (
            "reports/signal-macos-78924.txt",
            "dataloader-worker-exited-unexpectedly",
            Lost::Cut,
        ),
        (
            "reports/shared-file-mapping-1455-ultralytics.txt",
            "windows-paging-file",
            Lost::Drop,
        ),
        (
            "reports/broken-pipe-win32-mhformer.txt",
            "spawn-worker-broken-pipe",
            Lost::Cut,
        ),
        (
            "reports/fork-enomem-reid.txt",
            "worker-fork-enomem",
            Lost::Cut,
        ),
        (
            "reports/pin-thread-mmagic.txt",
            "pin-memory-thread-exited",
            Lost::Drop,
        ),
    ];
    let mut failures = Vec::new();
    for (file, expected, lost) in cases {
        let mut lines: Vec<String> = std::fs::read_to_string(corpus_dir().join(file))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let full = kb::explain(&(lines.join("\n") + "\n"), &kb, &ExplainOptions::default());
        let Some(top) = full.first().map(|f| f.id.clone()) else {
            failures.push(format!("{file}: no finding in the full output"));
            continue;
        };
        // Lose the lines the top entry's message is found on, until it is found on none.
        let found = loop {
            let found = kb::explain(&(lines.join("\n") + "\n"), &kb, &ExplainOptions::default());
            let hit = found
                .iter()
                .find(|f| f.id == top && f.evidence == EvidenceKind::Message)
                .map(|f| f.line as usize);
            match (hit, lost) {
                (Some(line), Lost::Cut) => {
                    // The whole message goes, with its first line (`RuntimeError:` above an
                    // indented paragraph).
                    lines.truncate(line - 1);
                    while lines
                        .last()
                        .is_some_and(|l| !l.is_empty() && !l.starts_with(' '))
                    {
                        lines.pop();
                    }
                }
                (Some(line), Lost::Drop) => {
                    lines.remove(line - 1);
                }
                (None, _) => break found,
            }
        };
        let id = format!("pytorch/{expected}");
        let Some(at) = found.iter().position(|f| f.id == id) else {
            let ids: Vec<&str> = found.iter().map(|f| f.id.as_str()).collect();
            failures.push(format!("{file}: expected {id} from frames, got {ids:?}"));
            continue;
        };
        if found[at].evidence != EvidenceKind::Frames {
            failures.push(format!("{file}: {id} not marked as frame evidence"));
        }
        // Only generic wrappers that kept their message may rank above it.
        for f in &found[..at] {
            let generic = kb.entry(&f.id).is_some_and(|e| e.generic);
            if !(generic && f.evidence == EvidenceKind::Message) {
                failures.push(format!("{file}: {} ranks above {id}", f.id));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_traceback_whose_final_message_matched_nothing_is_not_read_from_its_frames() {
    // An unrelated exception raised inside the pin-memory thread's frames: the message is
    // there and unknown, so the frames must not be taken for the pin-memory failure.
    let kb = KnowledgeBase::embedded();
    let text = "Traceback (most recent call last):\n  File \"/x/torch/utils/data/_utils/pin_memory.py\", line 49, in _pin_memory_loop\n    do_one_step()\nValueError: something else\n";
    assert!(kb::explain(text, &kb, &ExplainOptions::default()).is_empty());
    let cut = "Traceback (most recent call last):\n  File \"/x/torch/utils/data/_utils/pin_memory.py\", line 49, in _pin_memory_loop\n    do_one_step()\n";
    let found = kb::explain(cut, &kb, &ExplainOptions::default());
    assert_eq!(found[0].id, "pytorch/pin-memory-thread-exited");
    assert_eq!(found[0].evidence, EvidenceKind::Frames);
}

#[test]
fn every_entry_is_listed_in_the_kb_readme() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("kb/README.md"))
            .unwrap();
    let kb = KnowledgeBase::embedded();
    for entry in kb.entries() {
        let row = format!("| `{}` | {} | {} |", entry.id, entry.title, entry.title_zh);
        assert!(readme.contains(&row), "kb/README.md does not list {row}");
    }
}
