//! LSP <-> dldoctor: positions through [`crate::text`] only, diagnostics and fixes into their
//! LSP shapes. Fix edits travel in `Diagnostic.data` already converted to the negotiated
//! encoding, so a code action needs no server state.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::{
    self as lsp, CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString,
    Position, Range, TextEdit, Uri,
};

use crate::diagnostic::{Diagnostic, Severity};
use crate::fix::{Applicability, Edit, Fix};
use crate::lang::Lang;
use crate::text::{Encoding, LineCol, LineIndex, TextRange};

pub const SOURCE: &str = "dldoctor";

/// Byte offsets of one text <-> LSP positions in one encoding.
#[derive(Clone, Copy)]
pub struct Coords<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub encoding: Encoding,
}

impl<'a> Coords<'a> {
    pub fn new(text: &'a str, index: &'a LineIndex, encoding: Encoding) -> Self {
        Self {
            text,
            index,
            encoding,
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let pos = self.index.position(self.text, offset, self.encoding);
        Position::new(pos.line, pos.col)
    }

    pub fn range(&self, range: TextRange) -> Range {
        Range::new(self.position(range.start), self.position(range.end))
    }

    /// Clamped: a position past a line's end is its end, past the text the text's end.
    pub fn offset(&self, position: Position) -> usize {
        self.index
            .offset(self.text, line_col(position), self.encoding)
    }

    pub fn text_range(&self, range: Range) -> TextRange {
        TextRange::new(self.offset(range.start), self.offset(range.end))
    }

    pub fn text_edit(&self, edit: &Edit) -> TextEdit {
        TextEdit::new(self.range(edit.range), edit.content.clone())
    }
}

pub fn line_col(position: Position) -> LineCol {
    LineCol {
        line: position.line,
        col: position.character,
    }
}

/// A fix as it travels in `Diagnostic.data`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixAction {
    pub title: String,
    pub applicability: Applicability,
    pub preferred: bool,
    pub edits: Vec<TextEdit>,
}

impl FixAction {
    pub fn from_fix(fix: &Fix, coords: &Coords, locale: Lang) -> Self {
        Self {
            title: localized(locale, &fix.title, fix.title_zh.as_deref()).to_owned(),
            applicability: fix.applicability,
            preferred: fix.preferred,
            edits: fix.edits.iter().map(|e| coords.text_edit(e)).collect(),
        }
    }
}

/// Everything a code action needs, carried by the diagnostic itself.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticData {
    #[serde(default)]
    pub fixes: Vec<FixAction>,
    /// "Ignore DLxxx on this line", absent where no comment can go (inside a string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<FixAction>,
    /// The knowledge-base entries whose failures the rule prevents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kb: Vec<String>,
}

impl DiagnosticData {
    pub fn from_lsp(diagnostic: &lsp::Diagnostic) -> Option<Self> {
        serde_json::from_value(diagnostic.data.clone()?).ok()
    }
}

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

/// The text for `locale`: the Chinese where the client speaks it and the rule gave one, else
/// the English.
pub fn localized<'a>(locale: Lang, en: &'a str, zh: Option<&'a str>) -> &'a str {
    locale.pick(en, zh)
}

/// One dldoctor diagnostic in LSP form, in the client's `locale`. `uri` is the document's, for
/// related locations in the same file; `other_text` gives the text of another file a related
/// location points into; `ignore` is the "ignore on this line" edit, if one can be made.
pub fn diagnostic(
    diagnostic: &Diagnostic,
    uri: &Uri,
    coords: &Coords,
    locale: Lang,
    other_text: &dyn Fn(&Path) -> Option<String>,
    ignore: Option<FixAction>,
) -> lsp::Diagnostic {
    let rule = diagnostic.code.rule();
    let related = diagnostic
        .related
        .iter()
        .filter_map(|related| {
            let (uri, range) = match &related.file {
                None => (uri.clone(), coords.range(related.range)),
                Some(path) => {
                    let text = other_text(path)?;
                    let index = LineIndex::new(&text);
                    let other = Coords::new(&text, &index, coords.encoding);
                    (Uri::from_file_path(path)?, other.range(related.range))
                }
            };
            Some(DiagnosticRelatedInformation {
                location: lsp::Location::new(uri, range),
                message: non_empty(
                    localized(locale, &related.message, related.message_zh.as_deref()),
                    rule.summary,
                ),
            })
        })
        .collect::<Vec<_>>();
    let data = DiagnosticData {
        fixes: diagnostic
            .fixes
            .iter()
            .map(|f| FixAction::from_fix(f, coords, locale))
            .collect(),
        ignore,
        kb: diagnostic
            .code
            .rule()
            .kb
            .iter()
            .map(|id| (*id).to_owned())
            .collect(),
    };
    lsp::Diagnostic {
        range: coords.range(diagnostic.range),
        severity: Some(severity(diagnostic.severity)),
        code: Some(NumberOrString::String(diagnostic.code.as_str().to_owned())),
        code_description: rule.url().parse().ok().map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message: non_empty(
            localized(
                locale,
                &diagnostic.message,
                diagnostic.message_zh.as_deref(),
            ),
            rule.summary,
        ),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: serde_json::to_value(data).ok(),
    }
}

/// VS Code drops a diagnostic whose message is empty: fall back to the rule's summary.
pub fn non_empty(message: &str, fallback: &str) -> String {
    if message.trim().is_empty() {
        fallback.to_owned()
    } else {
        message.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;

    #[test]
    fn positions_follow_the_encoding_and_clamp() {
        let text = "s = '😀'; DataLoader\n";
        let index = LineIndex::new(text);
        let at = text.find("DataLoader").unwrap();
        let utf16 = Coords::new(text, &index, Encoding::Utf16);
        let utf8 = Coords::new(text, &index, Encoding::Utf8);
        assert_eq!(utf16.position(at), Position::new(0, 10));
        assert_eq!(utf8.position(at), Position::new(0, 12));
        assert_eq!(utf16.offset(Position::new(0, 10)), at);
        assert_eq!(utf8.offset(Position::new(0, 12)), at);
        assert_eq!(utf16.offset(Position::new(7, 3)), text.len());
        assert_eq!(utf16.offset(Position::new(0, 999)), text.len() - 1);
    }

    #[test]
    fn a_chinese_client_gets_the_chinese_where_there_is_one() {
        let text = "DataLoader(ds, prefetch_factor=2)\n";
        let index = LineIndex::new(text);
        let coords = Coords::new(text, &index, Encoding::Utf16);
        let d = Diagnostic::new(
            Code::DL301,
            Code::DL301.rule().severity,
            TextRange::new(15, 30),
            "english",
        )
        .zh("中文")
        .with_related(TextRange::new(0, 10), "the loader", "加载器")
        .with_fix(Fix::safe("Remove", vec![]).zh("删除"))
        .with_fix(Fix::safe("Only English", vec![]));
        let uri: Uri = "file:///t.py".parse().unwrap();
        let zh = diagnostic(&d, &uri, &coords, Lang::Zh, &|_| None, None);
        assert_eq!(zh.message, "中文");
        assert_eq!(
            zh.related_information.as_ref().unwrap()[0].message,
            "加载器"
        );
        let titles: Vec<String> = DiagnosticData::from_lsp(&zh)
            .unwrap()
            .fixes
            .into_iter()
            .map(|f| f.title)
            .collect();
        assert_eq!(titles, ["删除", "Only English"]);
        let en = diagnostic(&d, &uri, &coords, Lang::En, &|_| None, None);
        assert_eq!(en.message, "english");
        assert_eq!(
            en.related_information.as_ref().unwrap()[0].message,
            "the loader"
        );
    }

    #[test]
    fn diagnostic_carries_code_href_source_and_fixes() {
        let text = "DataLoader(ds, prefetch_factor=2)\n";
        let index = LineIndex::new(text);
        let coords = Coords::new(text, &index, Encoding::Utf16);
        let d = Diagnostic::new(
            Code::DL301,
            Code::DL301.rule().severity,
            TextRange::new(15, 30),
            "",
        )
        .with_related(TextRange::new(0, 10), "the loader", "加载器")
        .with_fix(
            Fix::safe(
                "Remove prefetch_factor",
                vec![Edit::delete(TextRange::new(13, 32))],
            )
            .preferred(),
        );
        let uri: Uri = "file:///t.py".parse().unwrap();
        let lsp = diagnostic(&d, &uri, &coords, Lang::En, &|_| None, None);
        assert_eq!(lsp.code, Some(NumberOrString::String("DL301".into())));
        assert_eq!(lsp.source.as_deref(), Some("dldoctor"));
        assert_eq!(lsp.message, Code::DL301.rule().summary);
        assert!(
            lsp.code_description
                .as_ref()
                .unwrap()
                .href
                .as_str()
                .ends_with("#dl301")
        );
        assert_eq!(
            lsp.related_information.as_ref().unwrap()[0]
                .location
                .range
                .end
                .character,
            10
        );
        let data = DiagnosticData::from_lsp(&lsp).unwrap();
        assert_eq!(data.fixes.len(), 1);
        assert!(data.fixes[0].preferred);
        assert_eq!(
            data.kb,
            vec!["pytorch/prefetch-factor-without-workers".to_owned()]
        );
        assert_eq!(
            data.fixes[0].edits[0].range,
            Range::new(Position::new(0, 13), Position::new(0, 32))
        );
    }
}
