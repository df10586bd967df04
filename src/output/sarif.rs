//! `--format sarif`: SARIF 2.1.0 for code-scanning services. The rules come from the registry
//! with their docs and help URIs; columns are Unicode code points (`columnKind`), as the other
//! formats count them.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::diagnostic::{Diagnostic, Severity};
use crate::output::{Emitter, FileReport, Location, Summary, display_path};
use crate::rules::all_rules;
use crate::text::TextRange;

#[derive(Default)]
pub struct Sarif {
    results: Vec<Value>,
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

/// A relative file URI (RFC 3986): forward slashes, reserved bytes percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char);
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn region(file: &FileReport, range: TextRange) -> Value {
    let (start, end) = Location::range(file, range);
    let mut region = json!({
        "startLine": start.row,
        "startColumn": start.column,
        "endLine": end.row,
        "endColumn": end.column,
    });
    // In a notebook the lines count inside this cell.
    if let Some(cell) = file.cell(range.start) {
        region["properties"] = json!({ "cell": cell });
    }
    region
}

fn result(file: &FileReport, d: &Diagnostic) -> Value {
    let artifact = json!({ "uri": uri(&display_path(file.path)) });
    let related: Vec<Value> = d
        .related
        .iter()
        .filter(|r| r.file.as_deref().is_none_or(|f| f == file.path))
        .enumerate()
        .map(|(i, r)| {
            json!({
                "id": i,
                "message": { "text": r.message },
                "physicalLocation": { "artifactLocation": artifact, "region": region(file, r.range) },
            })
        })
        .collect();
    let fixes: Vec<Value> = d
        .fixes
        .iter()
        .map(|fix| {
            let replacements: Vec<Value> = fix
                .edits
                .iter()
                .map(|e| {
                    json!({
                        "deletedRegion": region(file, e.range),
                        "insertedContent": { "text": e.content },
                    })
                })
                .collect();
            json!({
                "description": { "text": fix.title },
                "artifactChanges": [{ "artifactLocation": artifact, "replacements": replacements }],
                "properties": { "applicability": fix.applicability },
            })
        })
        .collect();
    let mut result = json!({
        "ruleId": d.code,
        "ruleIndex": d.code as usize,
        "level": level(d.severity),
        "message": { "text": d.message },
        "locations": [{
            "physicalLocation": { "artifactLocation": artifact, "region": region(file, d.range) },
        }],
        "relatedLocations": related,
        "fixes": fixes,
        "properties": { "kb": d.code.rule().kb },
    });
    if let Some(cell) = file.cell(d.range.start) {
        result["properties"]["cell"] = cell.into();
    }
    result
}

fn rules() -> Vec<Value> {
    all_rules()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.summary },
                "help": { "text": r.docs, "markdown": r.docs },
                "helpUri": r.url(),
                "defaultConfiguration": { "level": level(r.severity), "enabled": r.default_enabled },
                "properties": { "kb": r.kb },
            })
        })
        .collect()
}

impl Emitter for Sarif {
    fn file(&mut self, _out: &mut dyn Write, file: &FileReport) -> io::Result<()> {
        self.results
            .extend(file.diagnostics.iter().map(|d| result(file, d)));
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        let doc = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": { "driver": {
                    "name": "dldoctor",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": crate::rules::DOCS_BASE,
                    "rules": rules(),
                }},
                "columnKind": "unicodeCodePoints",
                "results": std::mem::take(&mut self.results),
            }],
        });
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::output::test_support::{render, summary};

    #[test]
    fn document_is_sarif_2_1_0_with_rules_and_results() {
        let out = render(&mut Sarif::default(), &summary());
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["version"], "2.1.0");
        let run = &doc["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), Code::all().count());
        for result in run["results"].as_array().unwrap() {
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
        }
        insta::assert_json_snapshot!(run["results"]);
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri("my dir/train#1.py"), "my%20dir/train%231.py");
        assert_eq!(uri("é.py"), "%C3%A9.py");
    }
}
