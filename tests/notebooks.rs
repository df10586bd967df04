//! `dldoctor check` on Jupyter notebooks end to end: discovery, cell-relative locations in
//! every format, IPython syntax, malformed notebooks, and `--fix` writing the JSON back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod cli_support;
use cli_support::{stderr, stdout};

/// `dldoctor ARGS` on an assumed machine, so findings do not depend on this one.
fn dldoctor(dir: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--assume-cpus", "8", "--assume-shm", "16GiB"]);
    cli_support::dldoctor(dir, &all)
}

/// A notebook as Jupyter saves it (one-space indentation, sources as lists of lines), with a
/// markdown cell first, an output holding an image, and metadata that must survive `--fix`.
const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Training, with an é"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "b2",
   "metadata": {
    "tags": ["setup"]
   },
   "outputs": [],
   "source": [
    "%matplotlib inline\n",
    "%load_ext autoreload\n",
    "import torch\n",
    "from torch.utils.data import DataLoader\n",
    "workers = 0"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "c3",
   "metadata": {},
   "outputs": [
    {
     "data": {
      "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "text/plain": [
       "<Figure size 640x480 with 1 Axes>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "!nvidia-smi\n",
    "files = !ls data\n",
    "ds = list(range(10))\n",
    "DataLoader?\n",
    "loader = DataLoader(ds, batch_size=2, num_workers=workers, prefetch_factor=4)\n",
    "await asyncio.sleep(0)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "d4",
   "metadata": {},
   "outputs": [],
   "source": "%%bash\necho DataLoader(ds, prefetch_factor=2)\n"
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.12.3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

const SCRIPT: &[u8] =
    b"from torch.utils.data import DataLoader\nDataLoader(ds, prefetch_factor=2)\n";

fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

#[test]
fn text_locations_name_the_cell_and_count_rows_inside_it() {
    let dir = project(&[("nb/train.ipynb", NOTEBOOK.as_bytes())]);
    // Found in a folder and named directly alike.
    for args in [&["check"][..], &["check", "nb/train.ipynb"]] {
        let out = dldoctor(dir.path(), args);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
        assert!(
            text.starts_with("nb/train.ipynb:cell 3:5:60: DL301 [*] prefetch_factor=4"),
            "{text}"
        );
        // The code frame numbers the cell's lines; the note points at the earlier cell.
        assert!(
            text.contains(
                "5 | loader = DataLoader(ds, batch_size=2, num_workers=workers, prefetch_factor=4)"
            ),
            "{text}"
        );
        assert!(
            text.contains("note: cell 3:5:39: num_workers is 0 here"),
            "{text}"
        );
        assert!(text.contains("workers (cell 2, line 5)"), "{text}");
        // The `%%bash` cell is not Python: nothing is reported in it, and no magic is a
        // syntax error.
        assert_eq!(text.matches("DL301").count(), 1, "{text}");
        assert!(text.contains("Found 1 issue"), "{text}");
    }
}

#[test]
fn json_sarif_and_github_carry_the_cell() {
    let dir = project(&[("train.ipynb", NOTEBOOK.as_bytes())]);
    let out = dldoctor(dir.path(), &["check", "--format", "json"]);
    let items: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(items.len(), 1, "{items:#?}");
    let d = &items[0];
    assert_eq!(d["filename"], "train.ipynb");
    assert_eq!(d["cell"], 3);
    assert_eq!(d["location"]["row"], 5);
    assert_eq!(d["location"]["column"], 60);
    assert_eq!(d["fix"]["edits"][0]["cell"], 3);
    assert_eq!(d["fix"]["edits"][0]["location"]["row"], 5);
    assert_eq!(d["related"][0]["cell"], 3);
    assert_eq!(d["related"][0]["location"]["row"], 5);
    // Lines named in messages count inside their cell too.
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("(the value of workers (cell 2, line 5))"),
        "{d:#}"
    );

    let out = dldoctor(dir.path(), &["check", "--format", "sarif"]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["properties"]["cell"], 3);
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 5);
    assert_eq!(region["properties"]["cell"], 3);

    let out = dldoctor(dir.path(), &["check", "--format", "github"]);
    assert!(
        stdout(&out)
            .starts_with("::error file=train.ipynb,title=DL301::cell 3:5:60: prefetch_factor=4"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn fix_rewrites_only_the_edited_source_line() {
    let dir = project(&[("train.ipynb", NOTEBOOK.as_bytes())]);
    let out = dldoctor(dir.path(), &["check", "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("train.ipynb: fixed DL301"),
        "{}",
        stderr(&out)
    );
    let written = std::fs::read_to_string(dir.path().join("train.ipynb")).unwrap();
    let expected = NOTEBOOK.replace(
        "num_workers=workers, prefetch_factor=4)\\n",
        "num_workers=workers)\\n",
    );
    assert_ne!(expected, NOTEBOOK);
    assert_eq!(written, expected);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(stdout(&out), "All checks passed!\n");
}

#[test]
fn malformed_notebooks_exit_2_and_the_other_files_are_checked() {
    let dir = project(&[
        (
            "a_broken.ipynb",
            b"{\"cells\": [\n  {\"cell_type\": \"code\"\n",
        ),
        (
            "b_old.ipynb",
            br#"{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}"#,
        ),
        ("c_not_a_notebook.ipynb", b"[]"),
        ("d.py", SCRIPT),
    ]);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    let errors = stderr(&out);
    assert!(
        errors.contains("a_broken.ipynb: not valid JSON: ") && errors.contains("on line 2"),
        "{errors}"
    );
    assert!(
        errors.contains("b_old.ipynb: nbformat 3 is not supported (dldoctor reads nbformat 4)"),
        "{errors}"
    );
    assert!(
        errors.contains("c_not_a_notebook.ipynb: not a Jupyter notebook"),
        "{errors}"
    );
    assert!(
        stdout(&out).contains("d.py:2:16: DL301"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("3 files could not be checked"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_notebook_larger_than_a_script_may_be_is_still_checked() {
    // 20 MiB of plot output around the same code: past the limit for `.py` files (16 MiB).
    let image = "A".repeat(20 << 20);
    let big = NOTEBOOK.replace(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
        &image,
    );
    let dir = project(&[("big.ipynb", big.as_bytes())]);
    let out = dldoctor(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("big.ipynb:cell 3:5:60: DL301"),
        "{}",
        stdout(&out)
    );
}
