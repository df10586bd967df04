//! Code actions: a `quickfix` per fix a diagnostic carries (`isPreferred` on the recommended
//! one), "Ignore DLxxx on this line", and `source.fixAll.dldoctor` (safe fixes only, by the
//! same engine as `check --fix`).
//!
//! Quick fixes come from `Diagnostic.data`, so they need no server state; fix-all re-runs the
//! analysis on the current text.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::fix::{self, Applicability, Edit};
use crate::python;
use crate::server::convert::{DiagnosticData, FixAction};
use crate::server::session::{Session, guarded};
use crate::server::settings::Locale;
use crate::text::{TextRange, floor_char_boundary};

pub const FIX_ALL_KIND: &str = "source.fixAll.dldoctor";

pub fn code_action(
    session: &Session,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    guarded("codeAction", || actions(session, params))
}

fn wants(only: Option<&[CodeActionKind]>, kind: &str) -> bool {
    match only {
        None => true,
        Some(only) => only.iter().any(|o| {
            let o = o.as_str();
            kind == o || kind.starts_with(&format!("{o}."))
        }),
    }
}

fn actions(session: &Session, params: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let only = params.context.only.as_deref();
    let locale = session.config().locale;
    let mut out = Vec::new();
    if wants(only, CodeActionKind::QUICKFIX.as_str()) {
        for diagnostic in &params.context.diagnostics {
            let Some(data) = DiagnosticData::from_lsp(diagnostic) else {
                continue;
            };
            for fix in &data.fixes {
                out.push(quickfix(&uri, diagnostic, fix, fix.preferred, locale));
            }
            if let Some(ignore) = &data.ignore {
                out.push(quickfix(&uri, diagnostic, ignore, false, locale));
            }
        }
    }
    if wants(only, FIX_ALL_KIND)
        && let Some(action) = fix_all(session, &uri, locale)
    {
        out.push(CodeActionOrCommand::CodeAction(action));
    }
    Some(out)
}

fn quickfix(
    uri: &Uri,
    diagnostic: &Diagnostic,
    fix: &FixAction,
    preferred: bool,
    locale: Locale,
) -> CodeActionOrCommand {
    let mut title = fix.title.clone();
    if fix.applicability == Applicability::Unsafe {
        title.push_str(match locale {
            Locale::En => " (changes behaviour)",
            Locale::Zh => "（会改变行为）",
        });
    }
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic.clone()]),
        edit: Some(WorkspaceEdit::new(HashMap::from([(
            uri.clone(),
            fix.edits.clone(),
        )]))),
        is_preferred: preferred.then_some(true),
        ..Default::default()
    })
}

/// All safe fixes of the document at once, as one minimal edit.
fn fix_all(session: &Session, uri: &Uri, locale: Locale) -> Option<CodeAction> {
    let snapshot = session.snapshot(uri)?;
    let tree = snapshot.tree.as_ref()?;
    let diagnostics = session.analyze_document(uri, &snapshot, tree);
    // A notebook cell is not a module by itself: its findings come from the whole notebook,
    // so its fix-all is one round of them.
    let in_notebook = session.is_notebook_cell(uri);
    let fixed = fix::fix_all(&snapshot.text, diagnostics, false, |text| {
        if in_notebook {
            return Vec::new();
        }
        python::parse(text, None)
            .map(|tree| session.analyze_source(text, &tree, &snapshot.path))
            .unwrap_or_default()
    });
    let applied = fixed.applied.len();
    if applied == 0 || fixed.document == snapshot.text {
        return None;
    }
    let edit = minimal_edit(&snapshot.text, &fixed.document);
    let coords = snapshot.coords(session.encoding());
    Some(CodeAction {
        title: match locale {
            Locale::En => format!(
                "dldoctor: apply {applied} safe fix{}",
                if applied == 1 { "" } else { "es" }
            ),
            Locale::Zh => format!("dldoctor：应用 {applied} 个安全修复"),
        },
        kind: Some(CodeActionKind::new(FIX_ALL_KIND)),
        edit: Some(WorkspaceEdit::new(HashMap::from([(
            uri.clone(),
            vec![coords.text_edit(&edit)],
        )]))),
        ..Default::default()
    })
}

/// One edit turning `old` into `new`: the differing middle, cut on character boundaries, so
/// editors keep the cursor and folds outside it.
pub fn minimal_edit(old: &str, new: &str) -> Edit {
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let prefix = floor_char_boundary(old, prefix);
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    Edit::replace(
        TextRange::new(prefix, old.len() - suffix),
        &new[prefix..new.len() - suffix],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply_edits;

    #[test]
    fn minimal_edit_round_trips_on_non_ascii_text() {
        for (old, new) in [
            ("a = 1\n# 数据\n", "a = 2\n# 数据\n"),
            ("x 😀 y", "x 😁 y"),
            ("数据数据", "数据数"),
            ("", "new"),
            ("same", "same"),
            ("f(a)\n", "f(a, b=1)\n"),
        ] {
            let edit = minimal_edit(old, new);
            assert_eq!(
                apply_edits(old, std::slice::from_ref(&edit)).unwrap(),
                new,
                "{old:?} -> {new:?}"
            );
            assert!(edit.range.len() <= old.len());
        }
        assert_eq!(
            minimal_edit("a = 1\nb\n", "a = 2\nb\n").range,
            TextRange::new(4, 5)
        );
    }

    #[test]
    fn only_filters_by_kind_prefix() {
        let only = [CodeActionKind::new("source.fixAll")];
        assert!(wants(Some(&only), FIX_ALL_KIND));
        assert!(!wants(Some(&only), "quickfix"));
        assert!(wants(None, "quickfix"));
        assert!(wants(Some(&[CodeActionKind::SOURCE]), FIX_ALL_KIND));
    }
}
