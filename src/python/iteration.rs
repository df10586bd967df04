//! Where a loader's workers start: its first iteration. A DataLoader starts its worker
//! processes when it is first iterated (`for ... in loader`, `iter(loader)`,
//! `enumerate(loader)`, `next(iter(loader))`, a trainer's `fit(model, loader)`), not where it is
//! built. The loader is followed through the name or `self.` attribute it is stored in and into
//! the same-file functions it is passed to; anything else it is handed to is somewhere this
//! file does not show.

use tree_sitter::Node;

use crate::python::model::{Binding, BindingKind, Module};

/// How many same-file calls deep a loader passed as an argument is followed.
const MAX_DEPTH: u8 = 3;

/// Builtins and functions that iterate the loader they are given.
const ITERATING_FUNCTIONS: &[&str] = &[
    "builtins.iter",
    "builtins.next",
    "builtins.enumerate",
    "builtins.zip",
    "builtins.list",
    "builtins.tuple",
    "itertools.cycle",
    "itertools.islice",
    "itertools.chain",
    "tqdm.tqdm",
    "tqdm.auto.tqdm",
    "tqdm.notebook.tqdm",
];

/// Trainer methods that iterate the loaders passed to them (Lightning's `Trainer`, Ignite's
/// engines, Keras-like APIs).
const ITERATING_METHODS: &[&str] = &["fit", "validate", "test", "predict", "run"];

/// Calls that read a loader without iterating it.
const READING_FUNCTIONS: &[&str] = &[
    "builtins.len",
    "builtins.isinstance",
    "builtins.print",
    "builtins.id",
    "builtins.type",
    "builtins.hasattr",
    "builtins.getattr",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstIteration<'a> {
    /// The expression that first iterates the loader: the iterable of a `for`, or the
    /// `iter(...)`/`enumerate(...)`/`fit(...)` call.
    At(Node<'a>),
    /// The loader leaves what this file shows: returned, kept in a container, passed to a
    /// function the model cannot follow. Its workers may start there.
    Elsewhere,
    /// Every use of the loader is known and none iterates it (a test that only inspects it):
    /// its workers never start.
    Never,
}

/// The first iteration of the loader built by `call`; `starts` are the methods of what it
/// builds that iterate its loaders (a `Trainer`'s `train()`).
pub fn first_iteration<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    starts: &[String],
) -> FirstIteration<'a> {
    let mut uses = Uses {
        found: Vec::new(),
        escapes: false,
        starts,
    };
    uses.expression(m, call, call, 0);
    uses.found
        .sort_by_key(|(site, node)| (site.start_byte(), node.start_byte()));
    match uses.found.first() {
        Some((_, node)) => FirstIteration::At(*node),
        None if uses.escapes => FirstIteration::Elsewhere,
        None => FirstIteration::Never,
    }
}

struct Uses<'a, 's> {
    /// Iterations found, each with the node in the loader's own function that leads to it
    /// (itself, or the call into the function that iterates it): the first in that order is
    /// the first to run.
    found: Vec<(Node<'a>, Node<'a>)>,
    escapes: bool,
    /// Methods of the loader object that iterate it.
    starts: &'s [String],
}

impl<'a> Uses<'a, '_> {
    /// `node` evaluates to the loader; `site` is where that happens as seen from the loader's
    /// own function.
    fn expression(&mut self, m: &Module<'a>, node: Node<'a>, site: Node<'a>, depth: u8) {
        let mut node = node;
        while let Some(p) = node
            .parent()
            .filter(|p| p.kind() == "parenthesized_expression")
        {
            node = p;
        }
        let Some(parent) = node.parent() else {
            return;
        };
        let is_field = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|c| c.id() == node.id())
        };
        match parent.kind() {
            "for_statement" | "for_in_clause" if is_field("right") => {
                self.found.push((site, node));
            }
            // `yield from loader` iterates it; `yield loader` hands it on.
            "yield" if m.text(parent).starts_with("yield from") => {
                self.found.push((site, node));
            }
            "argument_list" => self.argument(m, parent, Argument::Position(node), site, depth),
            "keyword_argument" if is_field("value") => match parent.parent() {
                Some(list) if list.kind() == "argument_list" => {
                    let name = parent.child_by_field_name("name").map(|n| m.text(n));
                    self.argument(m, list, Argument::Keyword(name), site, depth)
                }
                _ => self.escapes = true,
            },
            "assignment" if is_field("right") => self.assigned(m, parent, site, depth),
            // `trainer.train()`, for a loader object whose methods iterate it.
            "attribute"
                if is_field("object")
                    && parent
                        .child_by_field_name("attribute")
                        .is_some_and(|a| self.starts.iter().any(|s| s == m.text(a)))
                    && parent.parent().is_some_and(|c| c.kind() == "call") =>
            {
                self.found.push((site, parent));
            }
            // `loader.dataset`, `loader is None`, `assert loader`, a bare expression: read,
            // not iterated.
            "attribute" if is_field("object") => {}
            "comparison_operator"
            | "not_operator"
            | "assert_statement"
            | "expression_statement" => {}
            _ => self.escapes = true,
        }
    }

    fn argument(
        &mut self,
        m: &Module<'a>,
        list: Node<'a>,
        argument: Argument<'a>,
        site: Node<'a>,
        depth: u8,
    ) {
        let Some(call) = list.parent().filter(|c| c.kind() == "call") else {
            self.escapes = true;
            return;
        };
        let Some(callee) = call.child_by_field_name("function") else {
            return;
        };
        let qualified = m.qualified_name(callee);
        let q = qualified.as_deref().unwrap_or("");
        let method = (callee.kind() == "attribute")
            .then(|| callee.child_by_field_name("attribute"))
            .flatten()
            .map(|a| m.text(a));
        if ITERATING_FUNCTIONS.contains(&q)
            || method.is_some_and(|name| ITERATING_METHODS.contains(&name))
        {
            let site = if depth == 0 { call } else { site };
            self.found.push((site, call));
            return;
        }
        if READING_FUNCTIONS.contains(&q) {
            return;
        }
        match self.same_file_parameter(m, call, callee, argument) {
            Some((function, parameter)) if depth < MAX_DEPTH => {
                let site = if depth == 0 { call } else { site };
                self.parameter(m, function, parameter, site, depth + 1);
            }
            _ => self.escapes = true,
        }
    }

    /// The function defined in this file that `call` calls, and the name of the parameter
    /// the argument binds.
    fn same_file_parameter(
        &self,
        m: &Module<'a>,
        call: Node<'a>,
        callee: Node<'a>,
        argument: Argument<'a>,
    ) -> Option<(Node<'a>, &'a str)> {
        if callee.kind() != "identifier" {
            return None;
        }
        let ids = m.lookup(m.text(callee), m.scope_at(call))?;
        let [id] = ids else {
            return None;
        };
        let BindingKind::Function(f) = m.bindings().get(*id)?.kind else {
            return None;
        };
        let function = m.function(f)?;
        let parameters = function.node.child_by_field_name("parameters")?;
        let mut cursor = parameters.walk();
        let names: Vec<(Node, &str)> = parameters
            .named_children(&mut cursor)
            .filter_map(|p| {
                let name = match p.kind() {
                    "identifier" => Some(p),
                    "default_parameter" | "typed_parameter" | "typed_default_parameter" => p
                        .child_by_field_name("name")
                        .or_else(|| p.named_child(0))
                        .filter(|n| n.kind() == "identifier"),
                    _ => None,
                }?;
                Some((p, m.text(name)))
            })
            .collect();
        let name = match argument {
            Argument::Keyword(Some(k)) => names.iter().find(|(_, n)| *n == k).map(|(_, n)| *n),
            Argument::Keyword(None) => None,
            Argument::Position(node) => {
                let list = node.parent()?;
                let mut cursor = list.walk();
                let before: Vec<Node> = list
                    .named_children(&mut cursor)
                    .take_while(|a| a.id() != node.id())
                    .collect();
                if before
                    .iter()
                    .any(|a| matches!(a.kind(), "list_splat" | "dictionary_splat"))
                {
                    return None;
                }
                names.get(before.len()).map(|(_, n)| *n)
            }
        }?;
        Some((function.node, name))
    }

    /// The uses of `parameter` in the body of `function`.
    fn parameter(
        &mut self,
        m: &Module<'a>,
        function: Node<'a>,
        parameter: &str,
        site: Node<'a>,
        depth: u8,
    ) {
        let Some(body) = function.child_by_field_name("body") else {
            return;
        };
        let own = m.function_at(body);
        for reference in m.references(parameter) {
            if body.byte_range().contains(&reference.start_byte())
                && m.function_at(reference) == own
                && !is_target(reference)
            {
                self.expression(m, reference, site, depth);
            }
        }
    }

    /// `name = loader` / `self.name = loader`: the uses of the name after the assignment.
    fn assigned(&mut self, m: &Module<'a>, assignment: Node<'a>, site: Node<'a>, depth: u8) {
        let Some(left) = assignment.child_by_field_name("left") else {
            return;
        };
        match left.kind() {
            "identifier" => {
                let name = m.text(left);
                for reference in m.references(name) {
                    // A function defined above a module-level loader reads it when it runs,
                    // after the assignment: only a read earlier in the same body comes first.
                    let earlier = reference.start_byte() <= assignment.end_byte()
                        && m.function_at(reference) == m.function_at(assignment);
                    if is_target(reference) {
                        continue;
                    }
                    // A loader rebuilt in a loop (`train_loader = DataLoader(...)` at a
                    // milestone epoch) is read by the loop's next pass, above it: it starts
                    // there, at no place this walk orders.
                    if earlier {
                        if in_same_loop(reference, assignment) {
                            self.escapes = true;
                        }
                        continue;
                    }
                    let sees = m
                        .lookup(name, m.scope_at(reference))
                        .is_some_and(|ids| sees_assignment(m, ids, assignment, reference));
                    if sees {
                        let site = if depth == 0 { reference } else { site };
                        self.expression(m, reference, site, depth);
                    }
                }
            }
            "attribute" if is_self(m, left) => self.self_attribute(m, left, site, depth),
            _ => self.escapes = true,
        }
    }

    /// `self.loader = ...`: every `self.loader` read in the methods of the class.
    fn self_attribute(&mut self, m: &Module<'a>, target: Node<'a>, site: Node<'a>, depth: u8) {
        let Some(name) = target.child_by_field_name("attribute").map(|a| m.text(a)) else {
            return;
        };
        let class = m
            .function_at(target)
            .and_then(|f| m.function(f))
            .and_then(|f| f.class)
            .and_then(|c| m.class(c));
        let Some(body) = class.and_then(|c| c.body) else {
            self.escapes = true;
            return;
        };
        let mut reads = Vec::new();
        crate::python::syntax::walk_all(body, &mut |n| {
            if n.kind() == "attribute"
                && n.id() != target.id()
                && is_self(m, n)
                && n.child_by_field_name("attribute").map(|a| m.text(a)) == Some(name)
                && !is_target(n)
            {
                reads.push(n);
            }
        });
        // The loader may also be read through the object from outside the class.
        self.escapes = true;
        for read in reads {
            let site = if depth == 0 { read } else { site };
            self.expression(m, read, site, depth);
        }
    }
}

#[derive(Clone, Copy)]
enum Argument<'a> {
    Position(Node<'a>),
    Keyword(Option<&'a str>),
}

/// Whether `reference` may read the value bound by `assignment`: the assignment ran before
/// it and no later binding in the same or an enclosing block replaced it (a binding in another
/// branch of an `if` does not). A reference in a function defined before the assignment sees
/// the module's bindings as they stand when the function runs: any of them.
fn sees_assignment(m: &Module, ids: &[usize], assignment: Node, reference: Node) -> bool {
    let bindings: Vec<&Binding> = ids.iter().filter_map(|id| m.bindings().get(*id)).collect();
    let Some(ours) = bindings.iter().find(|b| b.node.id() == assignment.id()) else {
        return false;
    };
    if !bound_before(ours, reference) {
        return m.function_at(reference) != m.function_at(assignment);
    }
    let our_statement = crate::python::model::statement_of(assignment);
    !bindings.iter().any(|b| {
        b.node.id() != assignment.id()
            && b.name_range.start > ours.name_range.start
            && bound_before(b, reference)
            && crate::python::model::statement_of(b.node)
                .and_then(|s| s.parent())
                .zip(our_statement)
                .is_some_and(|(block, ours)| block.byte_range().contains(&ours.start_byte()))
    })
}

/// Whether `binding` is in effect at `reference`: an assignment once its statement has run
/// (`x = f(x)` reads the earlier `x`), any other binding once its name is bound.
fn bound_before(binding: &Binding, reference: Node) -> bool {
    match binding.kind {
        BindingKind::Assign | BindingKind::AugAssign => {
            binding.node.end_byte() <= reference.start_byte()
        }
        _ => binding.name_range.start < reference.start_byte(),
    }
}

/// `self.x`.
fn is_self(m: &Module, attribute: Node) -> bool {
    attribute
        .child_by_field_name("object")
        .is_some_and(|o| m.text(o) == "self")
}

/// Whether `node` is assigned to (the left side of an assignment, a `for` target, a keyword
/// argument's name) rather than read.
fn is_target(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    let field_is = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|c| c.id() == node.id())
    };
    match parent.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            field_is("left")
        }
        "keyword_argument" | "default_parameter" | "typed_default_parameter" => field_is("name"),
        "parameters" | "lambda_parameters" | "typed_parameter" => true,
        "pattern_list" | "tuple_pattern" | "list_pattern" => true,
        _ => false,
    }
}

/// Whether a `for` or `while` loop of the same function holds both `a` and `b`.
fn in_same_loop(a: Node, b: Node) -> bool {
    std::iter::successors(b.parent(), |n| n.parent())
        .take_while(|n| {
            !matches!(
                n.kind(),
                "function_definition" | "class_definition" | "module"
            )
        })
        .filter(|n| matches!(n.kind(), "for_statement" | "while_statement"))
        .any(|l| l.byte_range().contains(&a.start_byte()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::python::index::ProjectIndex;

    /// The line of the first iteration of the file's first loader, "elsewhere" or "never".
    fn first(source: &str) -> String {
        let tree = crate::python::parse(source, None).expect("tree");
        let index = ProjectIndex::default();
        let m = Module::build(source, &tree, Path::new("t.py"), &index);
        let loader = m.loaders().first().expect("a loader");
        match first_iteration(&m, loader.call, &loader.signature.starts) {
            FirstIteration::At(n) => format!("{}: {}", n.start_position().row + 1, m.text(n)),
            FirstIteration::Elsewhere => "elsewhere".to_owned(),
            FirstIteration::Never => "never".to_owned(),
        }
    }

    const HEAD: &str = "from torch.utils.data import DataLoader\n";

    #[test]
    fn a_for_loop_over_the_name() {
        let src = format!(
            "{HEAD}def main():\n    loader = DataLoader(ds, num_workers=4)\n    if x:\n        print(len(loader))\n    for epoch in range(3):\n        for batch in loader:\n            pass\n"
        );
        assert_eq!(first(&src), "7: loader");
    }

    #[test]
    fn enumerate_and_next_iter() {
        let src =
            format!("{HEAD}loader = DataLoader(ds, num_workers=4)\nbatch = next(iter(loader))\n");
        assert_eq!(first(&src), "3: iter(loader)");
        let src = format!(
            "{HEAD}loader = DataLoader(ds, num_workers=4)\nfor i, b in enumerate(loader):\n    pass\n"
        );
        assert_eq!(first(&src), "3: enumerate(loader)");
    }

    #[test]
    fn through_a_same_file_function() {
        let src = format!(
            "{HEAD}from tqdm import tqdm\ndef train(model, data, epoch):\n    for x in tqdm(data):\n        pass\n\
             def main():\n    train_loader = DataLoader(ds, num_workers=4)\n    model = 1\n    \
             train(model, train_loader, 0)\n"
        );
        assert_eq!(first(&src), "4: tqdm(data)");
        let src = format!(
            "{HEAD}def train(model, data=None):\n    for x in data:\n        pass\n\
             def main():\n    loader = DataLoader(ds, num_workers=4)\n    train(1, data=loader)\n"
        );
        assert_eq!(first(&src), "3: data");
    }

    #[test]
    fn a_trainer_fit() {
        let src = format!(
            "{HEAD}loader = DataLoader(ds, num_workers=4)\ntrainer.fit(model, train_dataloaders=loader)\n"
        );
        assert_eq!(
            first(&src),
            "3: trainer.fit(model, train_dataloaders=loader)"
        );
    }

    #[test]
    fn returned_stored_or_passed_on_is_elsewhere() {
        let src = format!(
            "{HEAD}def build():\n    loader = DataLoader(ds, num_workers=4)\n    return loader, 1\n"
        );
        assert_eq!(first(&src), "elsewhere");
        let src = format!("{HEAD}def build():\n    return DataLoader(ds, num_workers=4)\n");
        assert_eq!(first(&src), "elsewhere");
        let src = format!(
            "{HEAD}loader = DataLoader(ds, num_workers=4)\nloader = accelerator.prepare(loader)\n"
        );
        assert_eq!(first(&src), "elsewhere");
    }

    #[test]
    fn a_self_attribute_iterated_in_another_method() {
        let src = format!(
            "{HEAD}class T:\n    def __init__(self):\n        self.dl = DataLoader(ds, num_workers=4)\n    \
             def train(self):\n        for b in self.dl:\n            pass\n"
        );
        assert_eq!(first(&src), "6: self.dl");
    }

    #[test]
    fn a_fixture_that_only_inspects_its_loader_never_starts_workers() {
        let src = format!(
            "{HEAD}def test_len():\n    loader = DataLoader(ds, num_workers=2, pin_memory=True)\n    \
             assert len(loader) == 3\n    assert loader.batch_size == 1\n"
        );
        assert_eq!(first(&src), "never");
        let src = format!("{HEAD}DataLoader(ds, num_workers=2)\n");
        assert_eq!(first(&src), "never");
    }

    #[test]
    fn a_loader_built_in_either_branch_and_yielded_from() {
        let src = format!(
            "{HEAD}def load(det):\n    if det:\n        loader = DataLoader(ds, num_workers=1)\n    else:\n        \
             loader = DataLoader(ds, num_workers=1, shuffle=True)\n    while True:\n        yield from loader\n"
        );
        assert_eq!(first(&src), "8: loader");
    }

    #[test]
    fn a_reassigned_name_is_not_the_loader() {
        let src = format!(
            "{HEAD}loader = DataLoader(ds, num_workers=2)\nloader = [1, 2]\nfor x in loader:\n    pass\n"
        );
        assert_eq!(first(&src), "never");
    }
}
