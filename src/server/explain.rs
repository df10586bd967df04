//! `dldoctor.explain` in the server: the same diagnosis as `dldoctor explain` and the same
//! placement on the user's frames ([`kb::place`]), turned into LSP diagnostics.

use std::collections::HashMap;
use std::path::Path;

use tower_lsp_server::ls_types::*;

use crate::diagnostic::Diagnostic as RuleDiagnostic;
use crate::kb::place::{self, PlacedFile};
use crate::kb::{self, ExplainOptions, Finding};
use crate::lang::Lang;
use crate::server::capabilities::EXPLAIN_SOURCE;
use crate::server::convert::{self, Coords, DiagnosticData, FixAction};
use crate::server::session::Session;
use crate::text::{Encoding, LineIndex};

/// The findings in `text`, best first, in the session's language.
pub fn diagnose(session: &Session, text: &str, root: Option<&Path>) -> Vec<Finding> {
    let config = session.config();
    let options = ExplainOptions {
        root: root.map(Path::to_path_buf),
        lang: config.locale,
    };
    kb::explain(text, &config.kb, &options)
}

/// The open documents' text over the disk, analysed with the session's settings and index.
impl place::Workspace for Session {
    fn text(&self, path: &Path) -> Option<String> {
        self.text_of(path)
    }

    fn analyze(&self, path: &Path, source: &str) -> Vec<RuleDiagnostic> {
        match crate::python::parse(source, None) {
            Some(tree) => self.analyze_source(source, &tree, path),
            None => Vec::new(),
        }
    }
}

/// Diagnostics on the user's frames of every finding, per file. The innermost user frame of a
/// finding is an error carrying the rule's fixes; the frames that led there are information.
pub fn diagnostics(
    session: &Session,
    findings: &[Finding],
    root: Option<&Path>,
) -> HashMap<Uri, Vec<Diagnostic>> {
    let encoding = session.encoding();
    let lang = session.config().locale;
    place::place(findings, root, session)
        .iter()
        .filter_map(|file| {
            let uri = Uri::from_file_path(&file.path)?;
            Some((uri, file_diagnostics(file, findings, encoding, lang)))
        })
        .collect()
}

fn file_diagnostics(
    file: &PlacedFile,
    findings: &[Finding],
    encoding: Encoding,
    lang: Lang,
) -> Vec<Diagnostic> {
    let index = LineIndex::new(&file.source);
    let coords = Coords::new(&file.source, &index, encoding);
    file.places
        .iter()
        .filter_map(|place| {
            let finding = findings.get(place.finding)?;
            let fixes = place
                .rule_fix
                .iter()
                .flat_map(|r| &r.fixes)
                .map(|f| FixAction::from_fix(f, &coords, lang))
                .collect();
            let data = DiagnosticData {
                fixes,
                ignore: None,
                kb: vec![finding.id.clone()],
            };
            Some(Diagnostic {
                range: coords.range(place.range),
                severity: Some(match place.innermost {
                    true => DiagnosticSeverity::ERROR,
                    false => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(finding.id.clone())),
                code_description: None,
                source: Some(EXPLAIN_SOURCE.to_owned()),
                message: convert::non_empty(&place.message(finding, lang), &finding.id),
                related_information: None,
                tags: None,
                data: serde_json::to_value(data).ok(),
            })
        })
        .collect()
}
