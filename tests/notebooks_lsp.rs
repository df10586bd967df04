//! Notebooks in the language server, driven over stdio by a real JSON-RPC client: LSP 3.17
//! notebook sync as VS Code sends it (cells analysed as one module, findings published on
//! their cell, edits, insertion and deletion of cells), and a notebook presented as one Python
//! buffer, as Neovim's notebook plugins (jupytext.nvim and the like) open an `.ipynb`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod lsp_client;

use lsp_client::*;
use std::io::Write as _;

use serde_json::{Value, json};

/// The notebook's cells in jupytext's percent format, magics commented out as it writes them.
const PERCENT: &str = r#"# %% [markdown]
# # Squares

# %%
# %matplotlib inline
import torch
from torch.utils.data import DataLoader, Dataset


# %%
class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i])


# %%
loader = DataLoader(Squares(), num_workers=2, multiprocessing_context="spawn")
for batch in loader:
    print(batch)
"#;

/// The same cells in jupytext's hydrogen format (jupytext.nvim's default): magics left as
/// they are, which Python cannot parse.
const HYDROGEN: &str = r#"# %% [markdown]
# # Squares

# %%
%matplotlib inline
import torch
from torch.utils.data import DataLoader, Dataset


# %%
class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i])


# %%
!nvidia-smi
loader = DataLoader(Squares(), num_workers=2, multiprocessing_context="spawn")
for batch in loader:
    print(batch)
"#;

#[test]
fn a_notebook_opened_as_a_python_buffer_gets_dl107_and_its_fix() {
    for text in [PERCENT, HYDROGEN] {
        a_python_buffer_named_ipynb(text);
    }
}

fn a_python_buffer_named_ipynb(text: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squares.ipynb");
    let uri = file_uri(&path);
    let mut lsp = start_in(dir.path());
    lsp.open(&uri, text);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(codes(&diagnostics), ["DL107"], "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(d["severity"], 1);
    let at = text.find("Squares(),").unwrap();
    assert_eq!(
        d["range"],
        lsp_range(text, at, at + "Squares()".len(), Enc::Utf16)
    );
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": d["range"],
            "context": {"diagnostics": [d]},
        }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(
        titles.contains(
            &"Set num_workers=0 and remove `multiprocessing_context=\"spawn\"` (changes behaviour)"
        ),
        "{titles:?}"
    );
}

/// A server for a workspace at `root`, with fixed host facts, pushing diagnostics.
fn start_in(root: &std::path::Path) -> Lsp {
    let mut lsp = Lsp::start();
    lsp.initialize(
        capabilities(&[], false),
        json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        Some(root),
    );
    lsp
}

fn cell(uri: &str, text: &str) -> Value {
    json!({"uri": uri, "languageId": "python", "version": 1, "text": text})
}

const IMPORTS: &str = "import torch\nfrom torch.utils.data import DataLoader, Dataset\n";
const CLASS: &str = "class Squares(Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.tensor([i * i])\n";
const LOADER: &str = "%time x = 1\nloader = DataLoader(Squares(), num_workers=2, multiprocessing_context=\"spawn\")\nbatches = list(loader)";

#[test]
fn notebook_cells_are_one_module_and_findings_land_in_their_cell() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = file_uri(&dir.path().join("squares.ipynb"));
    let [imports, class, loader, markdown, first] = ["W0", "W1", "W2", "W3", "W4"]
        .map(|id| format!("vscode-notebook-cell:{}#{id}", &notebook["file://".len()..]));
    let mut lsp = Lsp::start();
    let caps = lsp.initialize(
        capabilities(&[], false),
        json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        Some(dir.path()),
    );
    assert_eq!(
        caps["notebookDocumentSync"]["notebookSelector"][0]["notebook"],
        "jupyter-notebook"
    );
    lsp.notify(
        "notebookDocument/didOpen",
        json!({
            "notebookDocument": {"uri": notebook, "notebookType": "jupyter-notebook", "version": 1,
                "cells": [
                    {"kind": 1, "document": markdown},
                    {"kind": 2, "document": imports},
                    {"kind": 2, "document": class},
                    {"kind": 2, "document": loader},
                ]},
            "cellTextDocuments": [cell(&imports, IMPORTS), cell(&class, CLASS), cell(&loader, LOADER)],
        }),
    );
    // The class in one cell is seen by the loader in another; the finding is on the loader's
    // cell, at its own line (the magic line before it counts).
    let found = lsp.diagnostics_where(&loader, |d| !d.is_empty());
    assert_eq!(codes(&found), ["DL107"], "{found:#?}");
    let at = LOADER.find("Squares(),").unwrap();
    assert_eq!(
        found[0]["range"],
        lsp_range(LOADER, at, at + "Squares()".len(), Enc::Utf16)
    );

    // The quick fix edits the loader's cell.
    let actions = lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": loader}, "range": found[0]["range"],
               "context": {"diagnostics": [found[0]]}}),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Set num_workers=0")
        })
        .unwrap_or_else(|| panic!("{actions:#}"));
    let edits = fix["edit"]["changes"][&loader].as_array().unwrap().clone();
    let fixed = apply_text_edits(LOADER, &edits, Enc::Utf16);
    assert!(
        fixed.contains("DataLoader(Squares(), num_workers=0)"),
        "{fixed}"
    );

    // A cell inserted before all others moves nothing.
    lsp.drop_backlog();
    lsp.notify(
        "notebookDocument/didChange",
        json!({
            "notebookDocument": {"uri": notebook, "version": 2},
            "change": {"cells": {"structure": {
                "array": {"start": 0, "deleteCount": 0, "cells": [{"kind": 2, "document": first}]},
                "didOpen": [cell(&first, "import os\n")],
            }}},
        }),
    );
    let again = lsp.diagnostics_where(&loader, |d| !d.is_empty());
    assert_eq!(again[0]["range"], found[0]["range"]);

    // Editing the loader's cell: the finding follows the text.
    lsp.notify(
        "notebookDocument/didChange",
        json!({
            "notebookDocument": {"uri": notebook, "version": 3},
            "change": {"cells": {"textContent": [{
                "document": {"uri": loader, "version": 2},
                "changes": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# data\n"}],
            }]}},
        }),
    );
    let moved = lsp.diagnostics_where(&loader, |d| {
        d.first().is_some_and(|d| d["range"]["start"]["line"] == 2)
    });
    assert_eq!(codes(&moved), ["DL107"]);

    // Deleting the class's cell (now the fourth): the loader's cell has nothing more to say.
    lsp.notify(
        "notebookDocument/didChange",
        json!({
            "notebookDocument": {"uri": notebook, "version": 4},
            "change": {"cells": {"structure": {
                "array": {"start": 3, "deleteCount": 1},
                "didClose": [{"uri": class}],
            }}},
        }),
    );
    lsp.diagnostics_where(&loader, <[Value]>::is_empty);

    lsp.notify(
        "notebookDocument/didClose",
        json!({"notebookDocument": {"uri": notebook},
               "cellTextDocuments": [{"uri": first}, {"uri": imports}, {"uri": loader}]}),
    );
    lsp.diagnostics_where(&loader, <[Value]>::is_empty);
}

/// A notebook's cells as VS Code opens them: `cells` as (id, kind, text), kind 1 markdown and
/// 2 code; returns each cell's document URI.
fn open_notebook(lsp: &mut Lsp, notebook: &str, cells: &[(&str, u8, &str)]) -> Vec<String> {
    let uris: Vec<String> = cells
        .iter()
        .map(|(id, _, _)| format!("vscode-notebook-cell:{}#{id}", &notebook["file://".len()..]))
        .collect();
    let listed: Vec<Value> = cells
        .iter()
        .zip(&uris)
        .map(|((_, kind, _), uri)| json!({"kind": kind, "document": uri}))
        .collect();
    let documents: Vec<Value> = cells
        .iter()
        .zip(&uris)
        .map(|((_, _, text), uri)| cell(uri, text))
        .collect();
    lsp.notify(
        "notebookDocument/didOpen",
        json!({
            "notebookDocument": {"uri": notebook, "notebookType": "jupyter-notebook",
                "version": 1, "cells": listed},
            "cellTextDocuments": documents,
        }),
    );
    uris
}

fn hover_text(lsp: &mut Lsp, uri: &str, text: &str, at: usize) -> (String, Value) {
    let (line, character) = position_of(text, at, Enc::Utf16);
    let hover = lsp.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    );
    assert!(hover.is_object(), "no hover at {at} in {text:?}");
    (
        hover["contents"]["value"].as_str().unwrap().to_owned(),
        hover["range"].clone(),
    )
}

const SETUP: &str = "import multiprocessing as mp\nimport torch\nfrom torch.utils.data import DataLoader, Dataset\n\nNUM_WORKERS = 16\nmp.set_start_method(\"spawn\")\n";
const HOVERED: &str =
    "%time x = 1\nloader = DataLoader(Squares(), num_workers=NUM_WORKERS, pin_memory=True)\n";

/// The cells as an `.ipynb` file, for `dldoctor loaders`.
fn ipynb(cells: &[(&str, u8, &str)]) -> String {
    let cells: Vec<Value> = cells
        .iter()
        .map(|(_, kind, text)| {
            if *kind == 1 {
                json!({"cell_type": "markdown", "metadata": {}, "source": text})
            } else {
                json!({"cell_type": "code", "metadata": {}, "execution_count": null,
                       "outputs": [], "source": text})
            }
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }))
    .unwrap()
}

#[test]
fn hover_in_a_cell_reads_the_whole_notebook() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hover.ipynb");
    let notebook = file_uri(&path);
    let cells = [
        ("A", 2, SETUP),
        ("B", 1, "# The data"),
        ("C", 2, CLASS),
        ("D", 2, HOVERED),
    ];
    std::fs::write(&path, ipynb(&cells)).unwrap();
    let mut lsp = start_in(dir.path());
    let uris = open_notebook(&mut lsp, &notebook, &cells);
    let loader = &uris[3];
    lsp.diagnostics_where(loader, |d| !d.is_empty());

    // On `DataLoader`: the constant and the start method from the first cell, the finding of
    // this cell, lines counted in the notebook's cells.
    let at = HOVERED.find("DataLoader").unwrap() + 3;
    let (md, range) = hover_text(&mut lsp, loader, HOVERED, at);
    let start = HOVERED.find("DataLoader").unwrap();
    assert_eq!(
        range,
        lsp_range(HOVERED, start, start + "DataLoader".len(), Enc::Utf16)
    );
    assert!(
        md.contains("- workers: 16, the value of NUM_WORKERS (cell 1, line 5)"),
        "{md}"
    );
    assert!(
        md.contains("spawn") && md.contains("(cell 1, line 6)"),
        "{md}"
    );
    assert!(md.contains("`DL107`"), "{md}");

    // The same facts as `dldoctor loaders` on the notebook's file, which counts the module's
    // lines where the hover counts the cell's.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
        .args(["loaders", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = &listed[0]["loaders"][0];
    let workers = facts["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "num_workers")
        .unwrap();
    assert_eq!(workers["value"], "16");
    assert!(md.contains(&format!("workers: {}", workers["value"].as_str().unwrap())));
    assert_eq!(facts["start_method"]["method"], "spawn");

    // On a keyword whose value is a name of another cell.
    let at = HOVERED.find("num_workers").unwrap() + 2;
    let (md, _) = hover_text(&mut lsp, loader, HOVERED, at);
    assert!(
        md.contains("16, the value of NUM_WORKERS (cell 1, line 5)"),
        "{md}"
    );

    // On the start method's call in the first cell.
    let at = SETUP.find("set_start_method").unwrap() + 1;
    let (md, _) = hover_text(&mut lsp, &uris[0], SETUP, at);
    assert!(md.contains("process-wide start method"), "{md}");
}

#[test]
fn typing_in_a_cell_ends_in_one_publish_of_the_last_text() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = file_uri(&dir.path().join("typing.ipynb"));
    let setup = format!("{IMPORTS}{CLASS}");
    let first =
        "loader = DataLoader(Squares(), num_workers=2, multiprocessing_context=\"spawn\")\n";
    let cells = [("A", 2, setup.as_str()), ("B", 2, first)];
    let mut lsp = start_in(dir.path());
    let uris = open_notebook(&mut lsp, &notebook, &cells);
    let found = lsp.diagnostics_where(&uris[1], |d| !d.is_empty());
    assert_eq!(codes(&found), ["DL107"]);
    lsp.diagnostics_where(&uris[0], <[Value]>::is_empty);
    lsp.drop_backlog();

    // A second loader typed one character per change, all changes arriving together as an
    // editor sends them while the user types.
    let typed = "other = DataLoader(Squares(), prefetch_factor=4)\n";
    let mut burst = Vec::new();
    let mut version = 1;
    for (i, ch) in typed.chars().enumerate() {
        version += 1;
        let message = json!({"jsonrpc": "2.0", "method": "notebookDocument/didChange", "params": {
            "notebookDocument": {"uri": notebook, "version": version},
            "change": {"cells": {"textContent": [{
                "document": {"uri": uris[1], "version": version},
                "changes": [{"range": {"start": {"line": 1, "character": i}, "end": {"line": 1, "character": i}},
                             "text": ch.to_string()}],
            }]}},
        }});
        let body = message.to_string();
        write!(burst, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }
    lsp.send_raw(&burst);

    // One publish per code cell, for the last version, with what the last text holds.
    let published = lsp.diagnostics_for_version(&uris[1], version);
    assert_eq!(codes(&published), ["DL107", "DL301"], "{published:#?}");
    assert_eq!(published[1]["range"]["start"]["line"], 1);
    let is_publish = |m: &Value| m["method"] == "textDocument/publishDiagnostics";
    lsp.wait_notification("the other cell's publish", |m| {
        is_publish(m) && m["params"]["uri"] == uris[0]
    });
    lsp.assert_no_notification(std::time::Duration::from_millis(500), is_publish);
}

/// A client that pulls diagnostics (VS Code) pulls on text-document events and for its tabs,
/// which notebook cells are not: the cells' findings are pushed, and a pull for a cell finds
/// nothing more, so nothing shows twice.
#[test]
fn a_pulling_client_gets_cell_findings_pushed_once() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = file_uri(&dir.path().join("pulled.ipynb"));
    let mut lsp = Lsp::start();
    lsp.initialize(
        capabilities(&[], true),
        json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        Some(dir.path()),
    );
    let setup = format!("{IMPORTS}{CLASS}");
    let cells = [("A", 2, setup.as_str()), ("B", 2, LOADER)];
    let uris = open_notebook(&mut lsp, &notebook, &cells);
    let found = lsp.diagnostics_where(&uris[1], |d| !d.is_empty());
    assert_eq!(codes(&found), ["DL107"]);
    let pulled = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uris[1]}}),
    );
    assert_eq!(pulled["items"], json!([]));

    // A plain file is still pulled, not pushed.
    let path = dir.path().join("plain.py");
    let uri = file_uri(&path);
    let text = format!("{IMPORTS}loader = DataLoader([1], prefetch_factor=4)\n");
    lsp.open(&uri, &text);
    let pulled = lsp.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(codes(pulled["items"].as_array().unwrap()), ["DL301"]);
    lsp.assert_no_notification(std::time::Duration::from_millis(300), |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] != json!([])
    });
}
