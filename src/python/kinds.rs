//! Node kinds and field ids of the Python grammar, resolved once from the compiled-in
//! language so hot walks compare small integers instead of strings.
//!
//! `Node::kind()` costs a C call, `strlen` and UTF-8 validation per node, and
//! `child_by_field_name` searches the field names on every call; [`kind`] is one table
//! lookup and [`FIELDS`] holds the field ids.

use std::sync::LazyLock;

use tree_sitter::Node;

macro_rules! kinds {
    ($($variant:ident = $name:literal,)*) => {
        /// The node kinds the model tells apart; everything else is `Other`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Kind {
            Other,
            $($variant,)*
        }

        impl Kind {
            /// The kind of a node kind name (what `Node::kind()` returns).
            pub fn from_name(name: &str) -> Kind {
                match name {
                    $($name => Kind::$variant,)*
                    _ => Kind::Other,
                }
            }
        }
    };
}

kinds! {
    AliasedImport = "aliased_import",
    AsPattern = "as_pattern",
    AsPatternTarget = "as_pattern_target",
    Assignment = "assignment",
    Attribute = "attribute",
    AugmentedAssignment = "augmented_assignment",
    Call = "call",
    ClassDefinition = "class_definition",
    Comment = "comment",
    ConditionalExpression = "conditional_expression",
    DecoratedDefinition = "decorated_definition",
    DefaultParameter = "default_parameter",
    DeleteStatement = "delete_statement",
    DictionarySplat = "dictionary_splat",
    DictionaryComprehension = "dictionary_comprehension",
    DictionarySplatPattern = "dictionary_splat_pattern",
    ExceptClause = "except_clause",
    ExceptGroupClause = "except_group_clause",
    ExpressionList = "expression_list",
    ForInClause = "for_in_clause",
    ForStatement = "for_statement",
    FunctionDefinition = "function_definition",
    GeneratorExpression = "generator_expression",
    GlobalStatement = "global_statement",
    Identifier = "identifier",
    ImportFromStatement = "import_from_statement",
    ImportStatement = "import_statement",
    KeywordArgument = "keyword_argument",
    Lambda = "lambda",
    List = "list",
    ListComprehension = "list_comprehension",
    ListPattern = "list_pattern",
    ListSplat = "list_splat",
    ListSplatPattern = "list_splat_pattern",
    NamedExpression = "named_expression",
    ParenthesizedExpression = "parenthesized_expression",
    PatternList = "pattern_list",
    SetComprehension = "set_comprehension",
    String = "string",
    Tuple = "tuple",
    TuplePattern = "tuple_pattern",
    TypedDefaultParameter = "typed_default_parameter",
    TypedParameter = "typed_parameter",
    WildcardImport = "wildcard_import",
}

/// `Kind` by kind id. Ids are public symbols, and every symbol of one name (a named node,
/// an anonymous keyword, an alias) gets that name's `Kind`, so this agrees with matching on
/// `Node::kind()`.
static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let language = super::language();
    (0..language.node_kind_count())
        .map(|id| {
            u16::try_from(id)
                .ok()
                .and_then(|id| language.node_kind_for_id(id))
                .map_or(Kind::Other, Kind::from_name)
        })
        .collect()
});

/// The kind of a node, as [`Kind::from_name`] of `node.kind()` would give it.
pub fn kind(node: Node) -> Kind {
    // `ERROR` has an id past the table: `Other`, as its name is.
    KINDS
        .get(usize::from(node.kind_id()))
        .copied()
        .unwrap_or(Kind::Other)
}

macro_rules! fields {
    ($($field:ident = $name:literal,)*) => {
        /// Field ids for `Node::child_by_field_id`; 0 (which finds no child) for a name the
        /// grammar does not have.
        pub struct Fields {
            $(pub $field: u16,)*
        }

        impl Fields {
            #[cfg(test)]
            fn all(&self) -> Vec<(&'static str, u16)> {
                vec![$(($name, self.$field),)*]
            }
        }

        /// The field ids of the Python grammar.
        pub static FIELDS: LazyLock<Fields> = LazyLock::new(|| {
            let language = super::language();
            Fields {
                $($field: language.field_id_for_name($name).map_or(0, |id| id.get()),)*
            }
        });
    };
}

fields! {
    alias = "alias",
    alternative = "alternative",
    attribute = "attribute",
    body = "body",
    definition = "definition",
    function = "function",
    left = "left",
    module_name = "module_name",
    name = "name",
    object = "object",
    parameters = "parameters",
    return_type = "return_type",
    right = "right",
    superclasses = "superclasses",
    ty = "type",
    value = "value",
}

/// Every Python file in the repository, whole and cut at seven points (for `ERROR` and
/// `MISSING` nodes), parsed: for tests that check a shortcut against tree-sitter's own answer
/// on every node.
#[cfg(test)]
pub(crate) fn corpus_trees() -> Vec<tree_sitter::Tree> {
    use std::path::{Path, PathBuf};

    fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                python_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "py") {
                out.push(path);
            }
        }
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests", "examples", "benches"] {
        python_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut trees = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("readable file");
        let cuts = (1..8).map(|i| source.len() * i / 8);
        for cut in cuts.chain([source.len()]) {
            if let Some(prefix) = source.get(..cut) {
                trees.push(super::parse(prefix, None).expect("tree"));
            }
        }
    }
    trees
}

/// Calls `f` with every node of `tree`, anonymous ones included.
#[cfg(test)]
pub(crate) fn for_each_node<'t>(tree: &'t tree_sitter::Tree, mut f: impl FnMut(Node<'t>)) {
    let mut cursor = tree.walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_ids_agree_with_kind_names() {
        let mut nodes = 0usize;
        for tree in corpus_trees() {
            for_each_node(&tree, |node| {
                assert_eq!(kind(node), Kind::from_name(node.kind()), "{}", node.kind());
                nodes += 1;
            });
        }
        assert!(nodes > 10_000, "checked only {nodes} nodes");
    }

    #[test]
    fn every_field_is_in_the_grammar() {
        for (name, id) in FIELDS.all() {
            assert_ne!(id, 0, "{name}");
        }
    }
}
