//! The language server driven over stdio by a real JSON-RPC client, the way an editor drives
//! it: diagnostics, code actions applied and sent back, incremental edits with non-ASCII text
//! under both encodings, rapid edits, hover, commands, configuration, lifecycle.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod lsp_client;

use std::path::{Path, PathBuf};
use std::time::Duration;

use dldoctor::analyze::{self, Context};
use dldoctor::config::Settings;
use dldoctor::host::HostFacts;
use dldoctor::python::index::ProjectIndex;
use lsp_client::*;
use serde_json::{Value, json};

const TRAIN: &str = include_str!("fixtures/lsp/train.py");

fn options() -> Value {
    json!({"assumeCpus": 8, "assumeShm": "16GiB"})
}

/// A workspace folder holding `train.py`.
fn workspace() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.py");
    std::fs::write(&path, TRAIN).unwrap();
    let uri = file_uri(&path);
    (dir, path, uri)
}

fn start(encodings: &[&str], pull: bool, root: &Path) -> (Lsp, Value) {
    let mut lsp = Lsp::start();
    let caps = lsp.initialize(capabilities(encodings, pull), options(), Some(root));
    (lsp, caps)
}

/// What `check` would report for `text`, with the same assumed machine, as (code, range).
fn fresh(text: &str, path: &Path, enc: Enc) -> Vec<(String, Value)> {
    let settings = Settings::default();
    let host = HostFacts::detect().assume_cpus(8).assume_shm(16 << 30);
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &settings,
        host: &host,
        index: &index,
    };
    analyze::analyze(text, path, &ctx)
        .into_iter()
        .map(|d| {
            (
                d.code.as_str().to_owned(),
                lsp_range(text, d.range.start, d.range.end, enc),
            )
        })
        .collect()
}

fn published(diagnostics: &[Value]) -> Vec<(String, Value)> {
    diagnostics
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["range"].clone()))
        .collect()
}

fn find<'a>(diagnostics: &'a [Value], code: &str) -> &'a Value {
    diagnostics
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diagnostics:#?}"))
}

fn code_actions(lsp: &mut Lsp, uri: &str, diagnostic: &Value, only: Option<&[&str]>) -> Vec<Value> {
    let mut context = json!({"diagnostics": [diagnostic]});
    if let Some(only) = only {
        context["only"] = json!(only);
    }
    lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": context}),
    )
    .as_array()
    .cloned()
    .unwrap_or_default()
}

fn edits_of(action: &Value, uri: &str) -> Vec<Value> {
    action["edit"]["changes"][uri]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Open, see DL301 where it is, apply the preferred quick fix as an editor does (the edit to
/// its buffer, then `didChange` with the same edit), and see the diagnostic go.
fn quick_fix_round_trip(encodings: &[&str], expected: &str, enc: Enc) {
    let (dir, path, uri) = workspace();
    let (mut lsp, caps) = start(encodings, false, dir.path());
    assert_eq!(caps["positionEncoding"], expected);
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(published(&diagnostics), fresh(TRAIN, &path, enc));

    let dl301 = find(&diagnostics, "DL301").clone();
    let keyword = TRAIN.find("prefetch_factor").unwrap();
    assert_eq!(
        dl301["range"],
        lsp_range(TRAIN, keyword, keyword + "prefetch_factor".len(), enc)
    );
    assert_eq!(dl301["source"], "dldoctor");
    assert!(
        dl301["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("#dl301")
    );
    assert!(!dl301["message"].as_str().unwrap().trim().is_empty());
    assert_eq!(
        dl301["relatedInformation"][0]["location"]["uri"],
        uri.as_str()
    );
    assert_eq!(dl301["severity"], 1);

    let actions = code_actions(&mut lsp, &uri, &dl301, None);
    let preferred = actions
        .iter()
        .find(|a| a["kind"] == "quickfix" && a["isPreferred"] == true)
        .unwrap_or_else(|| panic!("no preferred quick fix in {actions:#?}"));
    assert_eq!(preferred["diagnostics"][0]["code"], "DL301");
    let edits = edits_of(preferred, &uri);
    let fixed = apply_text_edits(TRAIN, &edits, enc);
    assert!(!fixed.contains("prefetch_factor"), "{fixed}");
    assert!(fixed.contains("数据加载 😀") && fixed.contains("s = \"😀数据\"; loader"));

    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": as_content_changes(&edits)}),
    );
    let after = lsp.diagnostics_for_version(&uri, 2);
    assert!(!codes(&after).contains(&"DL301".to_owned()), "{after:#?}");
    assert_eq!(published(&after), fresh(&fixed, &path, enc));

    let (status, took) = lsp.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
    assert!(took < Duration::from_secs(2), "exit took {took:?}");
}

#[test]
fn quick_fix_round_trip_utf16() {
    quick_fix_round_trip(&[], "utf-16", Enc::Utf16);
}

#[test]
fn quick_fix_round_trip_utf8() {
    quick_fix_round_trip(&["utf-8", "utf-16", "utf-32"], "utf-8", Enc::Utf8);
}

#[test]
fn ignore_on_this_line_and_fix_all() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let dl301 = find(&diagnostics, "DL301").clone();
    let actions = code_actions(&mut lsp, &uri, &dl301, None);
    let ignore = actions
        .iter()
        .find(|a| a["title"] == "Ignore DL301 on this line")
        .unwrap_or_else(|| panic!("no ignore action in {actions:#?}"));
    let ignored = apply_text_edits(TRAIN, &edits_of(ignore, &uri), Enc::Utf16);
    // Merged into the line's existing `# noqa:` list.
    assert!(
        ignored.contains("prefetch_factor=4)  # noqa: DL205, DL301\n"),
        "{ignored}"
    );
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": ignored}]}),
    );
    let after = lsp.diagnostics_for_version(&uri, 2);
    assert!(!codes(&after).contains(&"DL301".to_owned()), "{after:#?}");
    let dl302 = find(&after, "DL302").clone();

    // Fix-all applies the safe fixes only.
    let all = code_actions(&mut lsp, &uri, &dl302, Some(&["source.fixAll"]));
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["kind"], "source.fixAll.dldoctor");
    let fixed = apply_text_edits(&ignored, &edits_of(&all[0], &uri), Enc::Utf16);
    assert!(!fixed.contains("persistent_workers"), "{fixed}");
    assert!(fixed.contains("prefetch_factor=4)  # noqa: DL205, DL301"));
    assert!(
        fixed.contains("num_workers=args.num_workers"),
        "unsafe fixes stay out"
    );
}

/// A deterministic sequence of edits: typing Chinese and emoji in comments and strings,
/// deleting across them, adding and removing a `prefetch_factor=` argument.
fn scripted_edits(mut text: String, rounds: usize, enc: Enc) -> (Vec<Value>, String) {
    let mut changes = Vec::new();
    let mut seed = 0x2545_f491_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces = ["数", "😀", "a", "注释", "🧪x", "\n# 行 😀\n", "é"];
    for round in 0..rounds {
        let (start, end, new): (usize, usize, String) = if round % 50 == 49 {
            // Toggle a DataLoader argument that a rule cares about.
            match text.find(", prefetch_factor=2") {
                Some(at) => (at, at + ", prefetch_factor=2".len(), String::new()),
                None => {
                    let at = text.find("batch_size=2").unwrap() + "batch_size=2".len();
                    (at, at, ", prefetch_factor=2".to_owned())
                }
            }
        } else {
            // Somewhere inside the first comment line or the docstring, never in the code.
            let line_end = text.find('\n').unwrap();
            let limit = line_end - 3;
            let mut start = (next() as usize) % limit;
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            start = start.max(3);
            if next() % 3 == 0 {
                let mut end = start + (next() as usize % 6);
                end = end.min(limit);
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                (start, end, String::new())
            } else {
                let piece = pieces[next() as usize % pieces.len()];
                let piece = if piece.contains('\n') { "行" } else { piece };
                (start, start, piece.to_owned())
            }
        };
        let range = lsp_range(&text, start, end, enc);
        text.replace_range(start..end, &new);
        changes.push(json!({"range": range, "text": new}));
    }
    (changes, text)
}

fn rapid_edits(encodings: &[&str], enc: Enc, rounds: usize) {
    let (dir, path, uri) = workspace();
    let (mut lsp, _) = start(encodings, false, dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);
    let (changes, final_text) = scripted_edits(TRAIN.to_owned(), rounds, enc);
    // One change per notification, sent back to back without waiting, as fast typing does.
    for (i, change) in changes.iter().enumerate() {
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [change]}),
        );
    }
    let last = rounds as i64 + 1;
    let diagnostics = lsp.diagnostics_for_version(&uri, last);
    assert_eq!(published(&diagnostics), fresh(&final_text, &path, enc));
    // The server's text is the editor's: a fix computed on it applies cleanly here.
    if let Some(dl301) = diagnostics.iter().find(|d| d["code"] == "DL301") {
        let actions = code_actions(&mut lsp, &uri, dl301, Some(&["quickfix"]));
        let fixed = apply_text_edits(&final_text, &edits_of(&actions[0], &uri), enc);
        assert!(!fixed.contains("prefetch_factor"));
    }
    lsp.shutdown_and_exit();
}

#[test]
fn five_hundred_rapid_edits_utf16_apply_in_order() {
    rapid_edits(&[], Enc::Utf16, 500);
}

#[test]
fn five_hundred_rapid_edits_utf8_apply_in_order() {
    rapid_edits(&["utf-8"], Enc::Utf8, 500);
}

#[test]
fn hover_explains_arguments_loader_rules_and_process_wide_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hover.py");
    let text = format!(
        "{TRAIN}import torch.multiprocessing as mp\nmp.set_start_method(\"spawn\")\nmp.set_sharing_strategy(\"file_system\")\n"
    );
    std::fs::write(&path, &text).unwrap();
    let uri = file_uri(&path);
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, &text);
    lsp.diagnostics_for_version(&uri, 1);
    let mut hover_at = |needle: &str, nth: usize| -> String {
        let at = text.match_indices(needle).nth(nth).unwrap().0 + 1;
        let (line, character) = position_of(&text, at, Enc::Utf16);
        let result = lsp.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        result["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let workers = hover_at("num_workers=", 0);
    assert!(
        workers.contains("64, the default of --num_workers (line 8)"),
        "{workers}"
    );
    assert!(workers.contains("8 usable CPUs"), "{workers}");
    assert!(workers.contains("/dev/shm 16 GiB"), "{workers}");
    let prefetch = hover_at("prefetch_factor", 0);
    assert!(
        prefetch.contains("None (2 when num_workers > 0)"),
        "{prefetch}"
    );
    let loader = hover_at("DataLoader(ds, batch", 0);
    assert!(loader.contains("`DL301`"), "{loader}");
    assert!(
        loader.contains("start by spawn (`set_start_method`) (line 16)"),
        "{loader}"
    );
    let noqa = hover_at("DL205", 0);
    assert!(noqa.contains("cpu-count-workers"), "{noqa}");
    let start_method = hover_at("set_start_method", 0);
    assert!(
        start_method.contains("process-wide start method"),
        "{start_method}"
    );
    let sharing = hover_at("set_sharing_strategy", 0);
    assert!(sharing.contains("file_descriptor"), "{sharing}");
    assert_eq!(hover_at("parser", 0), "");
}

/// The hover on an argument read from a config says where the value is written, or why it
/// stays unknown.
#[test]
fn hover_names_the_config_a_value_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("conf")).unwrap();
    std::fs::write(
        dir.path().join("conf/config.yaml"),
        "loader:\n  workers: 24\n  prefetch: ${oc.env:PREFETCH}\n",
    )
    .unwrap();
    let path = dir.path().join("train.py");
    let text = "\
from dataclasses import dataclass

import hydra
from torch.utils.data import DataLoader


@dataclass
class TrainConfig:
    num_workers: int = 16


@hydra.main(config_path=\"conf\", config_name=\"config\")
def main(cfg):
    small = TrainConfig()
    for b in DataLoader(ds, num_workers=small.num_workers):
        pass
    for b in DataLoader(ds, num_workers=cfg.loader.workers, prefetch_factor=cfg.loader.prefetch):
        pass


if __name__ == \"__main__\":
    main()
";
    std::fs::write(&path, text).unwrap();
    let uri = file_uri(&path);
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, text);
    lsp.diagnostics_for_version(&uri, 1);
    let mut hover_at = |needle: &str, nth: usize| -> String {
        let at = text.match_indices(needle).nth(nth).unwrap().0 + 1;
        let (line, character) = position_of(text, at, Enc::Utf16);
        let result = lsp.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        result["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let field = hover_at("num_workers=", 0);
    assert!(
        field.contains("16, the default of TrainConfig.num_workers (line 9)"),
        "{field}"
    );
    let yaml = hover_at("num_workers=", 1);
    assert!(
        yaml.contains("24, loader.workers in conf/config.yaml line 2"),
        "{yaml}"
    );
    let prefetch = hover_at("prefetch_factor=", 0);
    assert!(
        prefetch.contains("loader.prefetch in conf/config.yaml line 3 is an interpolation"),
        "{prefetch}"
    );
}

#[test]
fn hover_on_a_loader_shows_its_count_on_each_callers_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.py");
    let text = "\
from torch.utils.data import DataLoader


def make_dataloader(dataset, split):
    if split == \"train\":
        num_workers = 4
    else:
        num_workers = 16
    return DataLoader(dataset, num_workers=num_workers)


def main(dataset):
    for loader in [make_dataloader(dataset, \"train\"), make_dataloader(dataset, \"test\")]:
        for batch in loader:
            pass
";
    std::fs::write(&path, text).unwrap();
    let uri = file_uri(&path);
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, text);
    lsp.diagnostics_for_version(&uri, 1);
    let at = text.find("DataLoader(dataset").unwrap() + 1;
    let (line, character) = position_of(text, at, Enc::Utf16);
    let result = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    );
    let hover = result["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        hover.contains(
            "depends on the caller: 4 when `split` is \"train\", passed for split to \
             make_dataloader (line 13); 16 when `split` is \"test\""
        ),
        "{hover}"
    );
}

/// A client whose `initialize` says its locale is `zh-cn`.
fn start_chinese(root: &Path) -> Lsp {
    let mut lsp = Lsp::start();
    lsp.request(
        "initialize",
        json!({"capabilities": capabilities(&[], false), "locale": "zh-cn",
               "rootUri": file_uri(root), "initializationOptions": options()}),
    );
    lsp.notify("initialized", json!({}));
    lsp
}

#[test]
fn hover_speaks_chinese_to_a_chinese_client() {
    let (dir, _path, uri) = workspace();
    let mut lsp = start_chinese(dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);
    let mut hover_at = |needle: &str| {
        let at = TRAIN.find(needle).unwrap();
        let (line, character) = position_of(TRAIN, at, Enc::Utf16);
        let result = lsp.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        result["contents"]["value"].as_str().unwrap().to_owned()
    };
    let text = hover_at("num_workers=");
    assert!(text.contains("加载数据的 worker 进程数"), "{text}");
    assert!(text.contains("本机"), "{text}");
    // The resolved value says where it comes from in Chinese too.
    assert!(
        text.contains("64（第 8 行 --num_workers 的默认值）"),
        "{text}"
    );
    let setup = hover_at("DataLoader(ds, num_workers");
    assert!(setup.contains("worker 以 fork 方式启动"), "{setup}");
    assert!(!setup.contains("the default"), "{setup}");
}

/// The titles of the code actions offered for `diagnostic`.
fn action_titles(lsp: &mut Lsp, uri: &str, diagnostic: &Value) -> Vec<String> {
    code_actions(lsp, uri, diagnostic, Some(&["quickfix"]))
        .iter()
        .map(|a| a["title"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn diagnostics_and_quick_fixes_speak_the_clients_language() {
    let (dir, _path, uri) = workspace();
    let mut lsp = start_chinese(dir.path());
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let dl301 = find(&diagnostics, "DL301").clone();
    let message = dl301["message"].as_str().unwrap();
    assert!(
        message.contains("与 num_workers=0（DataLoader 的默认值）同时使用"),
        "{message}"
    );
    // PyTorch's own words stay as PyTorch prints them.
    assert!(
        message.contains("\"ValueError: prefetch_factor option could only be specified"),
        "{message}"
    );
    assert_eq!(
        dl301["relatedInformation"][0]["message"],
        "未设置 num_workers，因此为 0"
    );
    let titles = action_titles(&mut lsp, &uri, &dl301);
    assert_eq!(titles, ["删除 `prefetch_factor=4`", "在此行忽略 DL301"]);
    let dl201 = find(&diagnostics, "DL201").clone();
    assert!(
        dl201["message"]
            .as_str()
            .unwrap()
            .contains("超过了本机可用的 8 个 CPU")
    );
    let titles = action_titles(&mut lsp, &uri, &dl201);
    assert!(
        titles.contains(&"改为 `num_workers=8`（会改变行为）".to_owned()),
        "{titles:?}"
    );

    // An English client, the same file: English as before.
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let dl301 = find(&diagnostics, "DL301").clone();
    assert!(dl301["message"].as_str().unwrap().starts_with(
        "prefetch_factor=4 with num_workers=0 (DataLoader's default): DataLoader raises"
    ));
    assert_eq!(
        dl301["relatedInformation"][0]["message"],
        "num_workers is not set, so it is 0"
    );
    let titles = action_titles(&mut lsp, &uri, &dl301);
    assert_eq!(
        titles,
        ["Remove `prefetch_factor=4`", "Ignore DL301 on this line"]
    );
}

#[test]
fn pulled_diagnostics_are_never_pushed() {
    let (dir, path, uri) = workspace();
    let (mut lsp, caps) = start(&[], true, dir.path());
    assert_eq!(caps["diagnosticProvider"]["identifier"], "dldoctor");
    lsp.open(&uri, TRAIN);
    let report = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(report["kind"], "full");
    let items = report["items"].as_array().unwrap();
    assert_eq!(published(items), fresh(TRAIN, &path, Enc::Utf16));
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# x\n"}]}),
    );
    lsp.assert_no_notification(Duration::from_millis(400), |m| {
        m["method"] == "textDocument/publishDiagnostics"
    });
}

#[test]
fn a_pull_that_would_repeat_the_last_answer_is_answered_unchanged() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], true, dir.path());
    lsp.open(&uri, TRAIN);
    let pull = |lsp: &mut Lsp, previous: &Value| {
        lsp.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}, "previousResultId": previous}),
        )
    };
    let first = pull(&mut lsp, &Value::Null);
    assert_eq!(first["kind"], "full");
    assert!(!first["items"].as_array().unwrap().is_empty());
    let id = first["resultId"].clone();
    assert!(id.is_string(), "{first}");

    // A comment typed at the end of the file moves no diagnostic.
    let end = TRAIN.lines().count();
    let edit = |lsp: &mut Lsp, version: i64, text: &str| {
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}}, "text": text}]}),
        );
    };
    edit(&mut lsp, 2, "# a comment\n");
    let same = pull(&mut lsp, &id);
    assert_eq!(same, json!({"kind": "unchanged", "resultId": id}));

    // A line added at the top moves every diagnostic: a full answer with a new id, and the
    // old id is no longer current.
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# x\n"}]}),
    );
    let moved = pull(&mut lsp, &id);
    assert_eq!(moved["kind"], "full");
    assert_ne!(moved["resultId"], id);
    assert_eq!(
        moved["items"].as_array().unwrap().len(),
        first["items"].as_array().unwrap().len()
    );
    // A client that sends no previous id always gets the items.
    assert_eq!(pull(&mut lsp, &Value::Null)["kind"], "full");
}

#[test]
fn settings_from_the_client_change_the_findings() {
    let (dir, _path, uri) = workspace();
    let mut lsp = Lsp::start();
    lsp.configuration = json!({"ignore": ["DL301"], "assumeCpus": 8, "assumeShm": "16GiB"});
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&uri, TRAIN);
    // workspace/configuration was asked and answered: DL301 is ignored.
    lsp.diagnostics_where(&uri, |d| {
        d.iter().any(|x| x["code"] == "DL302") && !d.iter().any(|x| x["code"] == "DL301")
    });
    assert!(
        lsp.server_requests
            .contains(&"workspace/configuration".to_owned())
    );
    // The editor changes its settings: DL302 ignored, DL301 back, another machine assumed.
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"dldoctor": {"ignore": ["DL302"], "assumeCpus": 128, "assumeShm": "16GiB"}}}),
    );
    lsp.diagnostics_where(&uri, |d| {
        d.iter().any(|x| x["code"] == "DL301") && !d.iter().any(|x| x["code"] == "DL302")
    });
    let env = lsp.request(
        "workspace/executeCommand",
        json!({"command": "dldoctor.env", "arguments": []}),
    );
    assert_eq!(env["cpus"]["usable"], 128);
    assert_eq!(env["shm"]["total_bytes"], 16u64 << 30);
}

#[test]
fn close_clears_the_diagnostics() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    assert!(!lsp.diagnostics_for_version(&uri, 1).is_empty());
    lsp.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    lsp.diagnostics_where(&uri, |d| d.is_empty());
}

#[test]
fn bad_positions_and_unknown_documents_get_answers_not_crashes() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);
    let hover = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 99999, "character": 99999}}),
    );
    assert!(hover.is_null());
    let hover = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nowhere.py"}, "position": {"line": 0, "character": 0}}),
    );
    assert!(hover.is_null());
    // An edit far past the end is clamped to the end of the text.
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 5000, "character": 7}, "end": {"line": 4000, "character": 0}}, "text": "x = 1\n"}]}),
    );
    let after = lsp.diagnostics_for_version(&uri, 2);
    assert_eq!(
        published(&after),
        fresh(
            &format!("{TRAIN}x = 1\n"),
            &dir.path().join("train.py"),
            Enc::Utf16
        )
    );
    let unknown = lsp.request_raw(
        "workspace/executeCommand",
        json!({"command": "dldoctor.nothing", "arguments": []}),
    );
    assert!(unknown.get("error").is_some());
    let (status, _) = lsp.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_panicking_handler_is_answered_with_an_error_and_the_server_goes_on() {
    let (dir, _path, uri) = workspace();
    let mut lsp = Lsp::start_with_env(&[("DLDOCTOR_LSP_FAULT", "hover")]);
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&uri, TRAIN);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let failed = lsp.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(lsp.stderr_shows("hover panicked"), "{}", lsp.stderr());
    let actions = code_actions(&mut lsp, &uri, find(&diagnostics, "DL301"), None);
    assert!(!actions.is_empty());
    let (status, _) = lsp.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn the_process_ends_when_stdin_closes() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);
    let (status, took) = lsp.close_stdin();
    assert_eq!(status.code(), Some(1), "no shutdown was asked for");
    assert!(took < Duration::from_secs(2), "exit took {took:?}");
}

#[test]
fn logs_never_reach_stdout() {
    // Everything on stdout is a framed JSON-RPC message: the client would have failed to
    // parse anything else, and `initialize` would not have been answered.
    let (dir, _path, _uri) = workspace();
    let mut lsp = Lsp::start_with_env(&[("DLDOCTOR_LOG", "debug")]);
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    let (status, _) = lsp.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

/// A workspace with the DL101 cross-file fixture's package: a CUDA dataset in `pkg/data.py`
/// used by `pkg/train.py`.
fn cross_file_workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/DL101_cross_file/pkg");
    for name in ["__init__.py", "data.py", "train.py"] {
        std::fs::copy(fixtures.join(name), pkg.join(name)).unwrap();
    }
    (dir, pkg)
}

#[test]
fn a_dataset_in_another_workspace_file_is_seen() {
    let (dir, pkg) = cross_file_workspace();
    let train = std::fs::read_to_string(pkg.join("train.py")).unwrap();
    let uri = file_uri(&pkg.join("train.py"));
    let mut lsp = Lsp::start();
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&uri, &train);
    // Nothing is indexed up front: the first diagnostics already follow the import.
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let dl101 = find(&diagnostics, "DL101");
    let related = &dl101["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], file_uri(&pkg.join("data.py")).as_str());
    let data = std::fs::read_to_string(pkg.join("data.py")).unwrap();
    let at = data.find(".to(\"cuda\"").unwrap();
    assert_eq!(
        related["range"]["start"]["line"],
        position_of(&data, at, Enc::Utf16).0
    );
}

/// Editing the dataset's file, unsaved, re-analyses the open file that uses it: the CUDA call
/// removed from `__getitem__`, the training file's DL101 goes.
#[test]
fn editing_a_dataset_file_updates_the_files_that_use_it() {
    let (dir, pkg) = cross_file_workspace();
    let train = std::fs::read_to_string(pkg.join("train.py")).unwrap();
    let data = std::fs::read_to_string(pkg.join("data.py")).unwrap();
    let (train_uri, data_uri) = (
        file_uri(&pkg.join("train.py")),
        file_uri(&pkg.join("data.py")),
    );
    let mut lsp = Lsp::start();
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&train_uri, &train);
    lsp.diagnostics_where(&train_uri, |d| d.iter().any(|x| x["code"] == "DL101"));
    lsp.open(&data_uri, &data);
    let cuda = ".to(\"cuda\", non_blocking=True)";
    let at = data.find(cuda).unwrap();
    lsp.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": data_uri, "version": 2},
            "contentChanges": [{"range": lsp_range(&data, at, at + cuda.len(), Enc::Utf16), "text": ""}],
        }),
    );
    let after = lsp.diagnostics_where(&train_uri, |d| !d.iter().any(|x| x["code"] == "DL101"));
    assert!(codes(&after).iter().all(|c| c != "DL101"), "{after:?}");
}

/// A copy of a fixture project (folders and files) in a temporary folder.
fn copy_project(fixture: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture),
        dir.path(),
    );
    dir
}

/// The DL101 findings of `diagnostics`, by the file their related place is in.
fn dl101_sources(diagnostics: &[Value]) -> Vec<String> {
    let mut files: Vec<String> = diagnostics
        .iter()
        .filter(|d| d["code"] == "DL101")
        .map(|d| {
            let uri = d["relatedInformation"][0]["location"]["uri"].as_str();
            uri.unwrap_or_default()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    files.sort();
    files
}

/// The dataset class and the worker_init_fn each live two imports away (a package that
/// re-exports a module that re-exports them), and nothing else of the workspace is read: the
/// first diagnostics of the opened script already have both.
#[test]
fn definitions_two_imports_away_are_found_on_demand() {
    let dir = copy_project("tests/fixtures/rules/DL101_two_imports_away");
    // Workspace files nobody imports, one of them not even Python that parses.
    for i in 0..50 {
        let other = dir.path().join(format!("videoproj/other_{i}.py"));
        std::fs::write(other, "import torch\nx = torch.zeros(1).cuda(\n").unwrap();
    }
    let script = dir.path().join("scripts/train.py");
    let uri = file_uri(&script);
    let mut lsp = Lsp::start();
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&uri, &std::fs::read_to_string(&script).unwrap());
    let first = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(
        dl101_sources(&first),
        ["gpu_decode.py", "seeding.py"],
        "{first:#?}"
    );
}

/// A file that is not open changes on disk: the client's file watcher (registered by the
/// server) reports it, and the open file that imports it is analysed again.
#[test]
fn a_change_on_disk_reaches_the_open_files_that_import_it() {
    let dir = copy_project("tests/fixtures/rules/DL101_two_imports_away");
    let script = dir.path().join("scripts/train.py");
    let decoder = dir.path().join("videoproj/data/gpu_decode.py");
    let uri = file_uri(&script);
    let mut caps = capabilities(&[], false);
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    let mut lsp = Lsp::start();
    lsp.initialize(caps, options(), Some(dir.path()));
    lsp.open(&uri, &std::fs::read_to_string(&script).unwrap());
    let first = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(dl101_sources(&first), ["gpu_decode.py", "seeding.py"]);
    // The watcher is registered after `initialized`, possibly after the first diagnostics.
    lsp.wait_server_request("client/registerCapability");

    let on_cpu = std::fs::read_to_string(&decoder)
        .unwrap()
        .replace("[: self.frames].cuda()", "[: self.frames]");
    std::fs::write(&decoder, on_cpu).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&decoder), "type": 2}]}),
    );
    let after = lsp.diagnostics_where(&uri, |d| dl101_sources(d) == ["seeding.py"]);
    assert_eq!(dl101_sources(&after), ["seeding.py"]);

    // A change to a file nothing imports does not re-analyse anything.
    let unrelated = dir.path().join("videoproj/unrelated.py");
    std::fs::write(&unrelated, "x = 1\n").unwrap();
    lsp.drop_backlog();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&unrelated), "type": 2}]}),
    );
    lsp.assert_no_notification(Duration::from_millis(300), |m| {
        m["method"] == "textDocument/publishDiagnostics"
    });
}

/// A config file changes on disk: the watcher the server registers covers YAML too, and what
/// the open file read from the project's shipped configs is read again.
#[test]
fn a_change_to_a_shipped_config_reaches_the_open_files() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("train.py");
    std::fs::write(
        &script,
        "import argparse\n\nimport yaml\nfrom torch.utils.data import DataLoader\n\n\n\
         def get_args():\n    parser = argparse.ArgumentParser()\n    \
         parser.add_argument('--config', required=True)\n    \
         parser.add_argument('--workers', type=int, default=16)\n    \
         args = parser.parse_args()\n    with open(args.config) as f:\n        \
         cfg = yaml.safe_load(f)\n    for k, v in cfg.items():\n        \
         setattr(args, k, v)\n    return args\n\n\nargs = get_args()\n\
         for _ in DataLoader(list(range(10)), num_workers=args.workers):\n    pass\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("configs")).unwrap();
    let config = dir.path().join("configs/small.yaml");
    std::fs::write(&config, "lr: 0.1\n").unwrap();
    let uri = file_uri(&script);
    let mut caps = capabilities(&[], false);
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    let mut lsp = Lsp::start();
    lsp.initialize(caps, options(), Some(dir.path()));
    lsp.open(&uri, &std::fs::read_to_string(&script).unwrap());
    let first = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(codes(&first), ["DL201"], "{first:#?}");
    lsp.wait_server_request("client/registerCapability");

    // The config now sets the count: which file a run names is not known, so DL201 goes.
    std::fs::write(&config, "lr: 0.1\nworkers: 4\n").unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&config), "type": 2}]}),
    );
    let after = lsp.diagnostics_where(&uri, |d| !codes(d).contains(&"DL201".to_owned()));
    assert!(codes(&after).iter().all(|c| c != "DL201"), "{after:?}");
}

/// A recorded crash (tests/corpus, from a real PyTorch run) handed to `dldoctor.explain`, as
/// the editors do with terminal output: the findings come back as the explain JSON, and a
/// diagnostic lands on the user's own line with the rule's fix.
#[test]
fn explain_puts_the_crash_on_the_users_line_with_the_rules_fix() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad_argument.py");
    std::fs::copy(corpus.join("scripts/bad_argument.py"), &script).unwrap();
    let source = std::fs::read_to_string(&script).unwrap();
    // The recording ran the script from /srv/project; here it lives in the workspace.
    let output = std::fs::read_to_string(corpus.join("arg-prefetch-factor.txt"))
        .unwrap()
        .replace("/srv/project/", &format!("{}/", dir.path().display()));
    let uri = file_uri(&script);

    let (mut lsp, caps) = start(&["utf-8"], false, dir.path());
    let commands = caps["executeCommandProvider"]["commands"]
        .as_array()
        .unwrap();
    assert!(
        commands.contains(&json!("dldoctor.explain")) && commands.contains(&json!("dldoctor.env"))
    );
    let report = lsp.request(
        "workspace/executeCommand",
        json!({"command": "dldoctor.explain", "arguments": [{"text": output, "cwd": dir.path()}]}),
    );
    let top = &report["findings"][0];
    assert_eq!(
        top["id"], "pytorch/prefetch-factor-without-workers",
        "{report:#}"
    );
    assert!(top["rules"].as_array().unwrap().contains(&json!("DL301")));
    let user_line = top["frames"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|f| f["user"] == true)
        .unwrap()["line"]
        .clone();
    assert_eq!(user_line, 9);

    // Published for a file that is not even open, under its own source.
    let placed = lsp.diagnostics_where(&uri, |d| !d.is_empty());
    let on_line = placed
        .iter()
        .find(|d| d["range"]["start"]["line"] == 8)
        .unwrap_or_else(|| panic!("nothing on line 9: {placed:#?}"));
    assert_eq!(on_line["source"], "dldoctor-explain");
    assert_eq!(on_line["severity"], 1);
    assert_eq!(on_line["code"], "pytorch/prefetch-factor-without-workers");
    // The callers' lines are marked too, as information.
    assert!(
        placed
            .iter()
            .any(|d| d["range"]["start"]["line"] == 26 && d["severity"] == 3)
    );

    // Its quick fix is DL301's: remove the argument on that line.
    let actions = code_actions(&mut lsp, &uri, on_line, None);
    let fix = actions
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("no quick fix in {actions:#?}"));
    let fixed = apply_text_edits(&source, &edits_of(fix, &uri), Enc::Utf8);
    assert!(
        fixed.contains("\"prefetch_factor\": lambda: DataLoader(data, num_workers=0),"),
        "{fixed}"
    );

    // The user opens the file and applies it: the explain diagnostics go with the change.
    lsp.open(&uri, &source);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": as_content_changes(&edits_of(fix, &uri))}),
    );
    let after = lsp.diagnostics_for_version(&uri, 2);
    assert!(
        after.iter().all(|d| d["source"] == "dldoctor"),
        "{after:#?}"
    );
    assert!(
        !after
            .iter()
            .any(|d| d["code"] == "DL301" && d["range"]["start"]["line"] == 8)
    );

    // The next explain replaces the previous one's diagnostics everywhere.
    let none = lsp.request(
        "workspace/executeCommand",
        json!({"command": "dldoctor.explain", "arguments": [{"text": "all good\n"}]}),
    );
    assert_eq!(none["findings"], json!([]));
}

/// Waits for the error answer (`code`, with `id`) to a message the server could not read.
fn error_answer(lsp: &mut Lsp, code: i64, id: Value) -> Value {
    lsp.wait_notification(&format!("a {code} error"), |m| {
        m["error"]["code"] == code && m["id"] == id && m.get("method").is_none()
    })
}

/// The server still serves: a request is answered and a document is analysed.
fn still_serving(lsp: &mut Lsp, uri: &str, version: i64) {
    let env = lsp.request(
        "workspace/executeCommand",
        json!({"command": "dldoctor.env", "arguments": []}),
    );
    assert!(env.is_object(), "{env}");
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": TRAIN}]}),
    );
    let diagnostics = lsp.diagnostics_for_version(uri, version);
    assert!(codes(&diagnostics).contains(&"DL301".to_owned()));
}

/// Whatever bytes arrive, the server answers what it can, skips the rest and goes on serving:
/// a body that is not JSON, a message that is not JSON-RPC, a bad or missing length, a frame
/// cut short by the next one, and bytes between frames.
#[test]
fn malformed_messages_are_answered_and_the_server_goes_on() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);

    lsp.send_raw(b"Content-Length: 10\r\n\r\n{not json}");
    let answer = error_answer(&mut lsp, -32700, Value::Null);
    assert_eq!(answer["jsonrpc"], "2.0");
    still_serving(&mut lsp, &uri, 2);

    lsp.send_raw(b"Content-Length: 21\r\n\r\n{\"id\":7,\"method\":\"x\"}");
    error_answer(&mut lsp, -32600, json!(7));
    still_serving(&mut lsp, &uri, 3);

    lsp.send_raw(b"Content-Length: ten\r\n\r\n");
    error_answer(&mut lsp, -32700, Value::Null);
    still_serving(&mut lsp, &uri, 4);

    lsp.send_raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}");
    error_answer(&mut lsp, -32700, Value::Null);
    still_serving(&mut lsp, &uri, 5);

    // A length longer than the body swallows the start of the next frame; the rest of that
    // frame is skipped.
    lsp.send_raw(b"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\"");
    lsp.send_raw(
        b"Content-Length: 45\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"shutdown\"}",
    );
    error_answer(&mut lsp, -32700, Value::Null);
    still_serving(&mut lsp, &uri, 6);

    lsp.send_raw(b"\r\n\x00\xff garbage between frames \x1b[0m\r\n\r\n");
    still_serving(&mut lsp, &uri, 7);

    assert!(
        lsp.stderr().contains("skipped"),
        "the log says what was skipped:\n{}",
        lsp.stderr()
    );
    let (status, _) = lsp.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn input_ending_inside_a_frame_ends_the_session_cleanly() {
    let (dir, _path, uri) = workspace();
    let (mut lsp, _) = start(&[], false, dir.path());
    lsp.open(&uri, TRAIN);
    lsp.diagnostics_for_version(&uri, 1);
    lsp.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":5,");
    let (status, took) = lsp.close_stdin();
    assert_eq!(status.code(), Some(1), "no shutdown was asked for");
    assert!(took < Duration::from_secs(2), "exit took {took:?}");
}

/// `check --fix` and the editor's fix-all share one engine: on every rule fixture, the text the
/// CLI writes is the text the server's `source.fixAll` edit makes.
#[test]
fn fix_all_writes_what_check_fix_writes_on_every_rule_fixture() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    paths.sort();
    assert!(paths.len() > 20, "fixtures in {}", fixtures.display());
    // The server's workspace holds nothing: each fixture is checked on its own, as the CLI
    // checks a single file.
    let root = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let (mut lsp, _) = start(&[], false, root.path());
    let mut changed = 0;
    for (i, fixture) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(fixture).unwrap();
        let dir = files.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join(fixture.file_name().unwrap());
        std::fs::write(&path, &text).unwrap();

        let status = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
            .args([
                "check",
                "--fix",
                "--assume-cpus",
                "8",
                "--assume-shm",
                "16GiB",
            ])
            .arg(&path)
            .output()
            .unwrap();
        assert_ne!(
            status.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let by_cli = std::fs::read_to_string(&path).unwrap();

        let uri = file_uri(&path);
        lsp.open(&uri, &text);
        lsp.diagnostics_for_version(&uri, 1);
        let actions = lsp.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": lsp_range(&text, 0, 0, Enc::Utf16),
                "context": {"diagnostics": [], "only": ["source.fixAll"]},
            }),
        );
        let actions = actions.as_array().cloned().unwrap_or_default();
        let by_server = match actions.first() {
            Some(action) => apply_text_edits(&text, &edits_of(action, &uri), Enc::Utf16),
            None => text.clone(),
        };
        assert_eq!(by_server, by_cli, "{}", fixture.display());
        changed += usize::from(by_cli != text);
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
    }
    assert!(changed > 10, "only {changed} fixtures had safe fixes");
}

/// An open helper file whose DataLoader reads `args.workers` from a parameter: the server
/// finds the entry scripts that call it, as `check` does, and relates the value to their
/// `add_argument` (for `get_val_loader`, whose callers disagree, to the one that gives 16).
#[test]
fn values_passed_from_other_files_reach_an_open_helper() {
    let dir = copy_project("tests/fixtures/rules/DL201_args_in_another_file");
    let helper = dir.path().join("pretrain/utils/data_utils.py");
    let text = std::fs::read_to_string(&helper).unwrap();
    let uri = file_uri(&helper);
    let mut lsp = Lsp::start();
    lsp.initialize(capabilities(&[], false), options(), Some(dir.path()));
    lsp.open(&uri, &text);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    let dl201: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "DL201")
        .collect();
    let lines: Vec<&Value> = dl201.iter().map(|d| &d["range"]["start"]["line"]).collect();
    assert_eq!(lines, [16, 23], "{diagnostics:#?}");
    for d in dl201 {
        let related = &d["relatedInformation"][0]["location"];
        assert_eq!(
            related["uri"],
            file_uri(&dir.path().join("pretrain/main.py")).as_str()
        );
        assert_eq!(related["range"]["start"]["line"], 12);
    }
}
