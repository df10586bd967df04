//! "Ignore DLxxx on this line" as a code action: the edit of [`suppression::ignore_edit`] in
//! the client's coordinates and language.

use tree_sitter::Tree;

use crate::diagnostic::Diagnostic;
use crate::fix::Applicability;
use crate::server::convert::{Coords, FixAction};
use crate::server::settings::Locale;
use crate::suppression;

pub fn ignore_action(
    text: &str,
    tree: &Tree,
    coords: &Coords,
    diagnostic: &Diagnostic,
    locale: Locale,
) -> Option<FixAction> {
    let code = diagnostic.code;
    let edit = suppression::ignore_edit(text, tree, coords.index, diagnostic.range.start, code)?;
    Some(FixAction {
        title: match locale {
            Locale::En => format!("Ignore {code} on this line"),
            Locale::Zh => format!("在此行忽略 {code}"),
        },
        applicability: Applicability::Safe,
        preferred: false,
        edits: vec![coords.text_edit(&edit)],
    })
}
