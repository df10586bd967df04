//! Syntax questions that need no model: walks that skip what does not run, call arguments,
//! enclosing definitions and statement order.

use tree_sitter::Node;

use crate::python::kinds::{FIELDS, Kind, kind};
use crate::python::model::statement_of;
use crate::text::TextRange;

pub fn range(node: Node) -> TextRange {
    TextRange::new(node.start_byte(), node.end_byte())
}

pub fn node_text<'s>(node: Node, source: &'s str) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Visits `node` and every descendant that runs when `node` runs, in source order: the
/// bodies of nested functions, classes and lambdas are skipped (defining them runs nothing we
/// look for). Iterative, so deeply nested input cannot exhaust the stack.
pub fn walk_executed<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    walk(node, visit, |child| {
        !matches!(
            kind(child),
            Kind::FunctionDefinition
                | Kind::ClassDefinition
                | Kind::Lambda
                | Kind::DecoratedDefinition
        )
    });
}

/// The target and value of a statement that is a plain assignment (`x = value`,
/// `cfg.A.b = value`); `None` for any other statement.
pub fn assignment_sides(statement: Node) -> Option<(Node, Node)> {
    let assignment = statement
        .named_child(0)
        .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")?;
    Some((
        assignment.child_by_field_name("left")?,
        assignment.child_by_field_name("right")?,
    ))
}

/// Whether the text `rest`, which follows a target (`x.key`, `x["key"]`), assigns it: `=` or
/// an augmented assignment (`+=`, `//=`, `**=`, ...), not a comparison.
pub fn assigns_after(rest: &[u8]) -> bool {
    match rest.trim_ascii_start() {
        [b'=', b'=', ..] => false,
        [b'=', ..] => true,
        [b'/', b'/', b'=', ..] | [b'*', b'*', b'=', ..] | [b'<', b'<', b'=', ..] => true,
        [b'>', b'>', b'=', ..] => true,
        [op, b'=', ..] => b"+-*/%|&^@".contains(op),
        _ => false,
    }
}

/// The offsets of each `"key"]` or `'key']` of `source` that is assigned (`cfg["workers"] = 4`,
/// `cfg['workers'] //= n`): the mapping writes a text search can see without a tree.
pub fn key_writes<'s>(source: &'s [u8], key: &str) -> impl Iterator<Item = usize> + 's {
    let needles = ['"', '\''].map(|quote| format!("{quote}{key}{quote}]"));
    needles.into_iter().flat_map(move |needle| {
        let len = needle.len();
        memchr::memmem::find_iter(source, needle.as_bytes())
            .filter(|&at| assigns_after(&source[at + len..]))
            .collect::<Vec<_>>()
    })
}

/// Whether `text` holds `word` as a whole name: not part of a longer identifier (`test` is
/// not in `test_losses`).
pub fn contains_word(text: &str, word: &str) -> bool {
    contains_word_after(text, word, |before| !before.ends_with(is_name_char))
}

/// Whether `text` holds `word` not followed by a name character, where the text before it
/// passes `before` (`.run` of a method's name, `: AdapterTrainer` of a dict's value).
pub fn contains_word_after(text: &str, word: &str, before: impl Fn(&str) -> bool) -> bool {
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            before(&text[..at]) && !text[at + word.len()..].starts_with(is_name_char)
        })
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The `return` statements of a function body, not of functions or classes nested in it.
pub fn return_statements(body: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "return_statement" => out.push(node),
            "function_definition" | "class_definition" | "lambda" => {}
            _ => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
        }
    }
    out
}

/// Every descendant of `node`, including nested scopes, in source order.
pub fn walk_all<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    walk(node, visit, |_| true);
}

fn walk<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>), enter: impl Fn(Node<'t>) -> bool) {
    let mut stack = vec![node];
    // One cursor for every node's children; each node's children are pushed in order and
    // then reversed in place, so nothing is allocated per node.
    let mut cursor = node.walk();
    while let Some(current) = stack.pop() {
        visit(current);
        let first = stack.len();
        cursor.reset(current);
        if cursor.goto_first_child() {
            loop {
                let child = cursor.node();
                if child.is_named() && enter(child) {
                    stack.push(child);
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        stack[first..].reverse();
    }
}

/// The `index`-th positional argument (before any `*args`).
pub fn positional_argument(call: Node, index: usize) -> Option<Node> {
    let arguments = call.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    let mut positional = arguments
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .take_while(|a| {
            !matches!(
                a.kind(),
                "list_splat" | "dictionary_splat" | "keyword_argument"
            )
        });
    positional.nth(index)
}

/// The expression inside any parentheses around `node`.
pub fn unparenthesized(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// `@decorator def f` → the `def`.
pub fn unwrap_decorated(node: Node) -> Node {
    if kind(node) == Kind::DecoratedDefinition {
        node.child_by_field_id(FIELDS.definition).unwrap_or(node)
    } else {
        node
    }
}

/// The closest function definition (or lambda) around `node`, excluding `node` itself.
pub fn enclosing_function(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kind(n) == Kind::FunctionDefinition {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

pub fn enclosing_class(node: Node) -> Option<Node> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kind(n) == Kind::ClassDefinition {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// Statements that run before `node` in its function (or the module): the earlier siblings of
/// each statement that contains it, innermost block first, up to the function or module.
pub fn preceding_statements(node: Node) -> Vec<Node> {
    let mut statements = Vec::new();
    let mut current = node;
    while let Some(statement) = statement_of(current) {
        let mut sibling = statement.prev_named_sibling();
        while let Some(s) = sibling {
            statements.push(s);
            sibling = s.prev_named_sibling();
        }
        let Some(block) = statement.parent() else {
            break;
        };
        if block.kind() == "module" {
            break;
        }
        let Some(owner) = block.parent() else {
            break;
        };
        if matches!(owner.kind(), "function_definition" | "class_definition") {
            break;
        }
        current = owner;
    }
    statements
}

#[cfg(test)]
mod tests {
    use super::{contains_word, key_writes};

    #[test]
    fn key_writes_are_assignments_of_the_quoted_key() {
        let source = b"cfg['workers'] = 4\nif cfg[\"workers\"] == 2: pass\ncfg[\"workers\"] //= n\nn = cfg['workers']\n";
        let at: Vec<usize> = key_writes(source, "workers").collect();
        assert_eq!(at, [52, 4]);
        assert_eq!(key_writes(b"cfg['num_workers'] = 4", "workers").count(), 0);
    }

    #[test]
    fn a_word_is_a_whole_name() {
        assert!(contains_word("cfg.update(test=1)", "test"));
        assert!(contains_word("x.update({'test': 1})", "test"));
        assert!(!contains_word("test_losses.update(x)", "test"));
        assert!(!contains_word("latest.update(x)", "test"));
        assert!(contains_word("latest.update(test)", "test"));
        assert!(!contains_word("anything", ""));
        assert!(contains_word("é.update(test)", "test"));
    }
}
