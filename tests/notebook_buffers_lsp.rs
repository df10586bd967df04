//! A notebook presented to the language server as a Python buffer, as Neovim's notebook
//! plugins (jupytext.nvim and the like) open an `.ipynb`: the server is driven over stdio by a
//! real JSON-RPC client and treats the buffer as a notebook's code (DL107, no DL104).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod lsp_client;

use lsp_client::*;
use serde_json::json;

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
