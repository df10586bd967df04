//! Reading Python: parsing with tree-sitter (incremental), the loader catalogue (the queries of
//! `queries/`, embedded at build time, and the user's own), and the semantic
//! model every rule reads. Everything that reads Python goes through here.

pub mod analysis;
pub mod argparse;
pub mod batch_samplers;
pub mod catalogue;
pub mod closures;
pub mod conditions;
pub mod configs;
pub mod cuda;
pub mod decorators;
pub mod defaults;
pub mod distributed;
pub mod edit;
pub mod facts;
pub mod fs;
pub mod index;
pub mod iteration;
pub mod kinds;
pub mod labels;
pub mod loaders;
pub mod model;
pub mod paths;
pub mod scripts;
pub mod start_method;
pub mod subclass;
pub mod syntax;
pub mod transforms;
pub mod values;
pub mod workers;

use std::cell::RefCell;

use tree_sitter::{Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub fn language() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

/// Parses `source`, reusing `old` (already `Tree::edit`ed) for an incremental re-parse.
/// tree-sitter recovers from any syntax error, so a tree always comes back for real input;
/// `None` only if the parser could not be set up.
pub fn parse(source: &str, old: Option<&Tree>) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&language()).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(source, old)
    })
}

/// Whether the byte at `offset` lies in a comment (so `# noqa` inside a string is not one).
pub fn is_in_comment(tree: &Tree, offset: usize) -> bool {
    tree.root_node()
        .descendant_for_byte_range(offset, offset.saturating_add(1))
        .is_some_and(|n| n.kind() == "comment")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_loads_and_parses() {
        let tree = parse("from torch.utils.data import DataLoader\n", None).expect("tree");
        assert_eq!(tree.root_node().kind(), "module");
        assert!(!tree.root_node().has_error());
    }

    #[test]
    fn comments_are_told_from_strings() {
        let src = "x = '# noqa'  # noqa\n";
        let tree = parse(src, None).expect("tree");
        assert!(!is_in_comment(&tree, src.find("# noqa").unwrap()));
        assert!(is_in_comment(&tree, src.rfind("# noqa").unwrap()));
    }

    #[test]
    fn malformed_input_still_gives_a_tree() {
        let tree = parse("def f(:\n  DataLoader(ds, num_workers=\n", None).expect("tree");
        assert!(tree.root_node().has_error());
    }
}
