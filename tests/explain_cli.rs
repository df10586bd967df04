//! `dldoctor explain` and `dldoctor kb` through the real binary: exit codes, text and JSON output,
//! languages, extra KB folders.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dldoctor"))
}

fn corpus(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(file)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut cmd = bin();
    cmd.args(args);
    feed(cmd, input)
}

/// Runs `cmd` with `input` on its standard input.
fn feed(mut cmd: Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn text_report_names_cause_fix_dead_ends_and_the_users_line() {
    let path = corpus("worker-sigbus.txt");
    let out = run(&["explain", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("pytorch/dataloader-worker-bus-error-shm: "),
        "{text}"
    );
    for expected in [
        "change: /srv/project/worker_signal.py:28 in main",
        "why: Workers hand each batch",
        "--shm-size=8g",
        "code action: DL202",
        "prevented by (dldoctor check): DL202, DL203",
        "don't: Set pin_memory=False, because pinned memory",
        "docs: https://pytorch.org/docs/stable/data.html#multi-process-data-loading",
        "1 known failure found",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

#[test]
fn text_report_shows_where_a_fix_may_lead() {
    let path = corpus("reports/fork-cuda-2971.txt");
    let text = stdout(&run(&["explain", path.to_str().unwrap()]));
    assert!(
        text.contains("this fix may lead to: pytorch/spawn-missing-main-guard"),
        "{text}"
    );
    assert!(
        text.contains("code action: DL101 \"Use the spawn start method\""),
        "{text}"
    );
}

#[test]
fn json_output_follows_the_contract() {
    let path = corpus("key-error.txt");
    let out = run(&["explain", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings[0]["id"], "pytorch/worker-exception");
    let user: Vec<&serde_json::Value> = findings[0]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["user"] == true)
        .collect();
    assert_eq!(user.last().unwrap()["file"], "/srv/project/key_error.py");
    assert_eq!(user.last().unwrap()["line"], 14);
    assert_eq!(user.last().unwrap()["function"], "__getitem__");
}

#[test]
fn standard_input_without_a_known_failure_exits_1() {
    let out = run_stdin(
        &["explain", "-"],
        "epoch 1 loss 0.2\nepoch 2 loss 0.1\ndone\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out).trim(), "no known failure found");
    let out = run_stdin(&["explain"], "");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn standard_input_with_a_failure_exits_0() {
    let text = std::fs::read_to_string(corpus("timeout.txt")).unwrap();
    let out = run_stdin(&["explain", "--format", "json"], &text);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["findings"][0]["id"], "pytorch/dataloader-timeout");
}

#[test]
fn unreadable_input_exits_2_with_a_message() {
    let out = run(&["explain", "/nonexistent/train.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/train.log"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn chinese_report_uses_the_chinese_fields() {
    let path = corpus("worker-sigkill.txt");
    let out = run(&["explain", path.to_str().unwrap(), "--lang", "zh"]);
    let text = stdout(&out);
    assert!(text.contains("原因: SIGKILL 无法被捕获"), "{text}");
    assert!(text.contains("不要: 扩大 /dev/shm，因为SIGKILL"), "{text}");
    assert!(text.contains("找到 1 个已知故障"), "{text}");
}

#[test]
fn root_marks_only_frames_under_it() {
    let path = corpus("key-error.txt");
    let path = path.to_str().unwrap();
    let elsewhere = stdout(&run(&["explain", path, "--root", "/home/elsewhere"]));
    assert!(
        elsewhere.contains("no frame of your code in this output"),
        "{elsewhere}"
    );
    let inside = stdout(&run(&["explain", path, "--root", "/srv/project"]));
    assert!(
        inside.contains("change: /srv/project/key_error.py:14"),
        "{inside}"
    );
}

#[test]
fn a_relative_root_is_taken_from_the_working_directory() {
    let project = tempfile::tempdir().unwrap();
    let project_dir = std::fs::canonicalize(project.path()).unwrap();
    let log = std::fs::read_to_string(corpus("key-error.txt"))
        .unwrap()
        .replace("/srv/project", project_dir.to_str().unwrap());
    let mut cmd = bin();
    cmd.args(["explain", "--root", ".", "--format", "json"])
        .current_dir(&project_dir);
    let out = feed(cmd, &log);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = json["findings"][0]["frames"].as_array().unwrap();
    assert!(
        frames
            .iter()
            .any(|f| f["user"] == true && f["file"].as_str().unwrap().ends_with("key_error.py")),
        "{frames:?}"
    );
}

/// An embedded entry as the starting point of an extra one, renamed to `team/slow-nfs`.
fn extra_entry() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("kb/dataloader-timeout.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["id"] = "team/slow-nfs".into();
    json
}

fn broken_kb_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut json = extra_entry();
    json["workarounds"][0]["success_rate"] = "high".into();
    std::fs::write(
        dir.path().join("slow-nfs.json"),
        serde_json::to_string_pretty(&json).unwrap(),
    )
    .unwrap();
    dir
}

#[test]
fn a_broken_extra_entry_is_reported_with_file_and_field() {
    let dir = broken_kb_dir();
    let dir_arg = dir.path().to_str().unwrap();
    let out = run(&["kb", "validate", dir_arg]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("slow-nfs.json"), "{err}");
    assert!(err.contains("workarounds[0].success_rate"), "{err}");

    let path = corpus("timeout.txt");
    let out = run(&["explain", path.to_str().unwrap(), "--kb", dir_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("slow-nfs.json"), "{}", stderr(&out));
}

#[test]
fn an_extra_entry_joins_the_embedded_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut json = extra_entry();
    json["title"] = "Our NFS mount stalls the loader".into();
    json["regex"] = "nfs: server \\S+ not responding".into();
    json["regexes"] = serde_json::json!([]);
    json["signature"] = "nfs: server storage01 not responding, still trying".into();
    json["transition_graph"]["leads_to"] = serde_json::json!(["pytorch/dataloader-timeout"]);
    std::fs::write(dir.path().join("slow-nfs.json"), json.to_string()).unwrap();
    let dir_arg = dir.path().to_str().unwrap();

    let out = run(&["kb", "validate", dir_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_stdin(
        &["explain", "--kb", dir_arg],
        "step 10\nnfs: server storage01 not responding, still trying\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("team/slow-nfs: Our NFS mount stalls the loader"));
    let list = stdout(&run(&["kb", "list", "--kb", dir_arg]));
    assert!(list.contains("team/slow-nfs"));
}

#[test]
fn kb_list_show_and_validate() {
    let list = run(&["kb", "list"]);
    assert_eq!(list.status.code(), Some(0));
    assert!(stdout(&list).lines().count() >= 36);
    assert!(stdout(&list).contains("pytorch/dataset-worker-fork-cuda"));

    let show = run(&[
        "kb",
        "show",
        "pytorch/dataset-worker-fork-cuda",
        "--lang",
        "zh",
    ]);
    assert_eq!(show.status.code(), Some(0));
    let text = stdout(&show);
    assert!(
        text.contains("在 fork 出的 DataLoader 工作进程中使用了 CUDA"),
        "{text}"
    );
    assert!(text.contains("regex: Cannot re-initialize CUDA in forked subprocess"));
    assert!(text.contains("source: https://github.com/pytorch/pytorch/issues/40403"));

    let missing = run(&["kb", "show", "pytorch/no-such-entry"]);
    assert_eq!(missing.status.code(), Some(2));

    let validate = run(&["kb", "validate"]);
    assert_eq!(validate.status.code(), Some(0), "{}", stderr(&validate));
    assert!(stdout(&validate).contains("entries valid"));
}

#[test]
fn kb_folders_of_pyproject_are_used() {
    let project = tempfile::tempdir().unwrap();
    let kb_dir = project.path().join("ops/kb");
    std::fs::create_dir_all(&kb_dir).unwrap();
    let mut json = extra_entry();
    json["regex"] = "nfs: server \\S+ not responding".into();
    json["regexes"] = serde_json::json!([]);
    json["signature"] = "nfs: server storage01 not responding, still trying".into();
    std::fs::write(kb_dir.join("slow-nfs.json"), json.to_string()).unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[tool.dldoctor]\nkb = [\"ops/kb\"]\n",
    )
    .unwrap();
    let root = project.path().to_str().unwrap();
    let out = run_stdin(
        &["explain", "--root", root, "--format", "json"],
        "nfs: server storage01 not responding, still trying\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["findings"][0]["id"], "team/slow-nfs");
}

/// A recorded crash whose script is on disk: the report names the fix `check --fix` applies to
/// the user's line, found by analysing that file, in English and Chinese.
#[test]
fn text_report_names_the_rule_fix_on_the_users_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad_argument.py");
    std::fs::copy(corpus("scripts/bad_argument.py"), &script).unwrap();
    let output = std::fs::read_to_string(corpus("arg-prefetch-factor.txt"))
        .unwrap()
        .replace("/srv/project/", &format!("{}/", dir.path().display()));
    let root = dir.path().to_str().unwrap();
    let out = run_stdin(&["explain", "--root", root], &output);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let expected = format!(
        "fix at {}:9 (dldoctor check --fix): DL301 \"Remove `prefetch_factor=2`\"",
        script.display()
    );
    assert!(text.contains(&expected), "missing {expected:?} in\n{text}");

    let zh = stdout(&run_stdin(
        &["explain", "--root", root, "--lang", "zh"],
        &output,
    ));
    assert!(
        zh.contains(&format!(
            "修复位置 {}:9（dldoctor check --fix）：DL301",
            script.display()
        )),
        "{zh}"
    );

    // A script that is not on this machine: no fix is claimed.
    let missing = output.replace(root, &format!("{root}/gone"));
    let elsewhere = stdout(&run_stdin(&["explain"], &missing));
    assert!(elsewhere.contains("change: "), "{elsewhere}");
    assert!(!elsewhere.contains("fix at"), "{elsewhere}");
}
