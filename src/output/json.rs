//! `--format json`: one array of ruff-style objects, the contract in DESIGN.md ("CLI contract").
//! `url`, `name` and `related` are extras beyond ruff's fields.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::diagnostic::Diagnostic;
use crate::fix::primary_fix;
use crate::output::{Emitter, FileReport, Location, Summary, display_path};

#[derive(Default)]
pub struct Json {
    items: Vec<Value>,
}

/// One diagnostic as a JSON object.
pub fn diagnostic_json(file: &FileReport, d: &Diagnostic) -> Value {
    let filename = display_path(file.path);
    let (location, end_location) = Location::range(file, d.range);
    let fix = primary_fix(d).map(|fix| {
        let edits: Vec<Value> = fix
            .edits
            .iter()
            .map(|e| {
                let (location, end_location) = Location::range(file, e.range);
                let mut edit = json!({"content": e.content, "location": location, "end_location": end_location});
                with_cell(&mut edit, file, e.range.start);
                edit
            })
            .collect();
        json!({"message": fix.title, "applicability": fix.applicability, "edits": edits})
    });
    let related: Vec<Value> = d
        .related
        .iter()
        .map(|r| {
            // A related place in another file has no line index here: give the file only.
            match &r.file {
                Some(other) if other.as_path() != file.path => json!({
                    "filename": display_path(other),
                    "location": null,
                    "end_location": null,
                    "message": r.message,
                }),
                _ => {
                    let (location, end_location) = Location::range(file, r.range);
                    let mut related = json!({
                        "filename": filename,
                        "location": location,
                        "end_location": end_location,
                        "message": r.message,
                    });
                    with_cell(&mut related, file, r.range.start);
                    related
                }
            }
        })
        .collect();
    let mut object = json!({
        "code": d.code,
        "name": d.code.rule().name,
        "message": d.message,
        "severity": d.severity,
        "filename": filename,
        "location": location,
        "end_location": end_location,
        "fix": fix,
        "kb": d.code.rule().kb,
        "url": d.code.rule().url(),
        "related": related,
    });
    with_cell(&mut object, file, d.range.start);
    object
}

/// In a notebook, `"cell": N` beside the location (rows are then inside that cell).
fn with_cell(object: &mut Value, file: &FileReport, offset: usize) {
    if let (Some(cell), Some(map)) = (file.cell(offset), object.as_object_mut()) {
        map.insert("cell".to_owned(), cell.into());
    }
}

impl Emitter for Json {
    fn file(&mut self, _out: &mut dyn Write, file: &FileReport) -> io::Result<()> {
        self.items
            .extend(file.diagnostics.iter().map(|d| diagnostic_json(file, d)));
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &self.items)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_support::{render, summary};

    #[test]
    fn objects_have_the_contract_fields() {
        let out = render(&mut Json::default(), &summary());
        let value: Value = serde_json::from_str(&out).unwrap();
        insta::assert_json_snapshot!(value);
    }

    #[test]
    fn no_findings_is_an_empty_array() {
        let mut out = Vec::new();
        Json::default()
            .finish(&mut out, &Summary::default())
            .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "[]\n");
    }
}
