use super::*;
use crate::diagnostic::Severity;
use crate::fix::Edit;

/// A notebook as Jupyter writes it: one-space indentation, `source` as a list of lines.
fn notebook(cells: &[(&str, &[&str])]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|(kind, lines)| {
            let mut cell = serde_json::json!({
                "cell_type": kind,
                "metadata": {},
                "source": lines,
            });
            if *kind == "code" {
                cell["execution_count"] = serde_json::Value::Null;
                cell["outputs"] = serde_json::json!([]);
            }
            cell
        })
        .collect();
    let value = serde_json::json!({
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&value, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

#[test]
fn code_cells_in_order_make_one_module() {
    let json = notebook(&[
        ("markdown", &["# Title\n", "text"]),
        ("code", &["import torch\n", "x = 1"]),
        ("raw", &["raw"]),
        ("code", &["y = x\n"]),
    ]);
    let nb = Notebook::parse(&json).unwrap();
    assert_eq!(nb.source(), "import torch\nx = 1\ny = x\n");
    let map = nb.cell_map();
    let numbers: Vec<usize> = map.cells().iter().map(|c| c.number).collect();
    assert_eq!(numbers, [2, 4]);
    let index = LineIndex::new(nb.source());
    let y = nb.source().find("y = x").unwrap();
    assert_eq!(
        cell_location(map, &index, nb.source(), y + 4),
        Some((4, 1, 5))
    );
    let x = nb.source().find("x = 1").unwrap();
    assert_eq!(cell_location(map, &index, nb.source(), x), Some((2, 2, 1)));
}

#[test]
fn source_may_be_one_string() {
    let json = r#"{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
        "source": "a = 1\nb = 2"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"#;
    let nb = Notebook::parse(json).unwrap();
    assert_eq!(nb.source(), "a = 1\nb = 2\n");
}

#[test]
fn ipython_syntax_is_masked_without_moving_anything() {
    let cell = "%matplotlib inline\n!pip install x \\\n  y\nfiles = !ls *.py\nDataLoader?\n??torch.cuda\nt = %timeit f()\n  %time g()\nawait main()\nprint('ok?')\n# why?\n";
    let masked = mask(cell);
    assert_eq!(masked.len(), cell.len());
    assert_eq!(
        masked,
        "#matplotlib inline\n#pip install x \\\n  #\nfiles = 0       \n#ataLoader?\n#?torch.cuda\nt = 0          \n  #time g()\nawait main()\nprint('ok?')\n# why?\n"
    );
    let tree = crate::python::parse(&masked, None).unwrap();
    assert!(!tree.root_node().has_error(), "{masked}");
}

#[test]
fn cell_magics_mask_the_cell_unless_its_body_is_python() {
    let bash = "%%bash\nfor f in *; do\n  echo $f\ndone\n";
    let masked = mask(bash);
    assert_eq!(masked, "#%bash\n#or f in *; do\n  #cho $f\n#one\n");
    let timed = "%%time\nloader = DataLoader(ds)\n";
    assert_eq!(mask(timed), "#%time\nloader = DataLoader(ds)\n");
}

#[test]
fn malformed_notebooks_are_clear_errors() {
    assert!(matches!(
        Notebook::parse("{\"cells\": [}"),
        Err(NotebookError::Json(m)) if m.contains("line 1")
    ));
    assert_eq!(
        Notebook::parse(r#"{"cells": [], "nbformat": 3}"#).unwrap_err(),
        NotebookError::Version("3".into())
    );
    assert!(matches!(
        Notebook::parse("[1, 2]"),
        Err(NotebookError::Shape(_))
    ));
    assert!(matches!(
        Notebook::parse(r#"{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}"#),
        Err(NotebookError::Shape(m)) if m.contains("cell 1")
    ));
    assert!(matches!(
        Notebook::parse(r#"{"cells": [], "nbformat": 4,}"#),
        Err(NotebookError::Json(_))
    ));
}

#[test]
fn other_kernel_languages_have_no_code_cells() {
    let json = r#"{"cells": [{"cell_type": "code", "source": "x <- 1"}],
        "metadata": {"kernelspec": {"language": "R", "name": "ir"}}, "nbformat": 4}"#;
    assert_eq!(Notebook::parse(json).unwrap().source(), "");
}

#[test]
fn edits_rewrite_only_the_edited_source_lines() {
    let json = notebook(&[
        ("code", &["import torch\n"]),
        ("markdown", &["é text"]),
        (
            "code",
            &[
                "%time x = 1\n",
                "loader = DataLoader(ds, prefetch_factor=4)\n",
                "y = 2",
            ],
        ),
    ]);
    let nb = Notebook::parse(&json).unwrap();
    let at = nb.source().find(", prefetch_factor=4").unwrap();
    let fixed = nb
        .with_edits(&[Edit::delete(TextRange::new(
            at,
            at + ", prefetch_factor=4".len(),
        ))])
        .unwrap();
    let expected = json.replace(
        "\"loader = DataLoader(ds, prefetch_factor=4)\\n\"",
        "\"loader = DataLoader(ds)\\n\"",
    );
    assert_ne!(expected, json);
    assert_eq!(fixed.json(), expected);
    assert_eq!(
        fixed.source(),
        "import torch\n#time x = 1\nloader = DataLoader(ds)\ny = 2\n"
    );
}

#[test]
fn an_edit_across_cells_is_refused() {
    let json = notebook(&[("code", &["a = 1\n"]), ("code", &["b = 2\n"])]);
    let nb = Notebook::parse(&json).unwrap();
    let across = Fix::safe("x", vec![Edit::delete(TextRange::new(2, 9))]);
    assert!(!nb.can_apply(&across));
    let inside = Fix::safe("x", vec![Edit::insert(6, "import os\n")]);
    assert!(nb.can_apply(&inside));
    // An insertion where the second cell starts goes into the second cell.
    let fixed = nb.with_edits(&inside.edits).unwrap();
    assert!(
        fixed.json().contains("\"import os\\n\",\n    \"b = 2\\n\""),
        "{}",
        fixed.json()
    );
}

#[test]
fn a_string_source_stays_a_string() {
    let json = r#"{"cells": [{"cell_type": "code", "source": "x = 1\ny = 2", "metadata": {"k": [1,2]}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 0}"#;
    let nb = Notebook::parse(json).unwrap();
    let fixed = nb
        .with_edits(&[Edit::replace(TextRange::new(4, 5), "3")])
        .unwrap();
    assert_eq!(fixed.json(), json.replace("x = 1", "x = 3"));
}

#[test]
fn lines_named_in_messages_count_inside_their_cell() {
    use crate::codes::Code;
    use crate::diagnostic::Diagnostic;
    let json = notebook(&[
        ("code", &["workers = 0\n"]),
        ("markdown", &["text"]),
        ("code", &["import torch\n", "DataLoader(ds)\n"]),
    ]);
    let nb = Notebook::parse(&json).unwrap();
    let mut d = vec![
        Diagnostic::new(
            Code::DL301,
            Severity::Error,
            TextRange::new(0, 1),
            "num_workers=0 (the value of workers (line 1)), used on line 3; line 9 is past the end",
        )
        .zh("num_workers=0（第 1 行 workers 的值），用于第 3 行"),
    ];
    relabel_lines(&mut d, nb.source(), nb.cell_map());
    assert_eq!(
        d[0].message,
        "num_workers=0 (the value of workers (cell 1, line 1)), used in cell 3, line 2; line 9 is past the end"
    );
    assert_eq!(
        d[0].message_zh.as_deref(),
        Some("num_workers=0（第 1 个单元格第 1 行 workers 的值），用于第 3 个单元格第 2 行")
    );
}
