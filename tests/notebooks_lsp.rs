//! Notebooks in the language server, driven over stdio by a real JSON-RPC client: LSP 3.17
//! notebook sync as VS Code sends it (cells analysed as one module, findings published on
//! their cell, edits, insertion and deletion of cells), and a notebook presented as one Python
//! buffer, as Neovim's notebook plugins (jupytext.nvim and the like) open an `.ipynb`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod lsp_client;

use lsp_client::*;
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

#[test]
fn a_notebook_opened_as_a_python_buffer_gets_dl107_and_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squares.ipynb");
    let uri = file_uri(&path);
    let mut lsp = Lsp::start();
    lsp.initialize(
        capabilities(&[], false),
        json!({"assumeCpus": 8, "assumeShm": "16GiB"}),
        Some(dir.path()),
    );
    lsp.open(&uri, PERCENT);
    let diagnostics = lsp.diagnostics_for_version(&uri, 1);
    assert_eq!(codes(&diagnostics), ["DL107"], "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(d["severity"], 1);
    let at = PERCENT.find("Squares(),").unwrap();
    assert_eq!(
        d["range"],
        lsp_range(PERCENT, at, at + "Squares()".len(), Enc::Utf16)
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
