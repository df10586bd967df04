//! Writes to a parsed namespace: whether a branch holding one runs under the defaults,
//! whether a `setattr` loop can replace an option's value, and why a write leaves a value
//! unknown.

use tree_sitter::Node;

use crate::python::model::{
    AttributeAssignment, BindingId, BindingKind, CallSite, FunctionDef, FunctionId, MODULE_SCOPE,
    Module, ScopeId, in_loop_around, positional_args,
};

/// Deeper than this, conditions are not evaluated (each may read more of the namespace).
const MAX_CONDITION_DEPTH: u32 = 8;

thread_local! {
    /// The bindings whose branch condition is being read on this thread (the source's address
    /// and the binding): the condition runs before them, so it is read without them.
    static SET_ASIDE: std::cell::RefCell<Vec<(usize, BindingId)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether the binding `id` of `m` is set aside while the condition of its branch is read
/// (see [`setting_aside`]).
pub(crate) fn set_aside(m: &Module, id: BindingId) -> bool {
    SET_ASIDE.with_borrow(|s| s.contains(&(m.source.as_ptr() as usize, id)))
}

/// `read` with the binding `id` of `m` set aside: the condition of a branch that rebinds a
/// name (`if args.resume: args = checkpoint["opt"]`) reads the name as it was before.
pub(crate) fn setting_aside<T>(m: &Module, id: BindingId, read: impl FnOnce() -> T) -> T {
    SET_ASIDE.with_borrow_mut(|s| s.push((m.source.as_ptr() as usize, id)));
    let out = read();
    SET_ASIDE.with_borrow_mut(|s| s.pop());
    out
}

/// Whether the code at `node` runs, as far as the branches around it (up to its function, or
/// up to the statement that also holds `stop`) decide: `Some(false)` when a condition on the
/// way is false under the defaults, `Some(true)` when every one is true (or there is none),
/// `None` when a condition does not resolve or a loop, `try` or `match` may skip it.
pub(crate) fn branch_runs(m: &Module, node: Node, stop: Option<Node>, depth: u32) -> Option<bool> {
    let truth = |condition: Node| {
        if depth > MAX_CONDITION_DEPTH {
            return None;
        }
        let read = || {
            m.value_in(condition, m.scope_at(condition), depth + 1)
                .value
                .truthy()
        };
        match super::ArgparseDefaults::of(m) {
            Some(defaults) => defaults.condition(condition, depth, read),
            None => read(),
        }
    };
    // Whether the `if` and `elif` conditions before `upto` (a clause of `statement`) are all
    // false: only then does that clause get its turn.
    let earlier_all_false = |statement: Node, upto: Node| -> Option<bool> {
        let mut all_false = Some(true);
        let mut conditions = vec![statement.child_by_field_name("condition")?];
        let mut cursor = statement.walk();
        for clause in statement.children_by_field_name("alternative", &mut cursor) {
            if clause.id() == upto.id() {
                break;
            }
            if clause.kind() == "elif_clause" {
                conditions.push(clause.child_by_field_name("condition")?);
            }
        }
        for condition in conditions {
            match truth(condition) {
                Some(true) => return Some(false),
                Some(false) => {}
                None => all_false = None,
            }
        }
        all_false
    };
    let mut runs = Some(true);
    let mut current = node;
    while let Some(parent) = current.parent() {
        if stop.is_some_and(|s| Module::range(parent).contains_range(Module::range(s))) {
            break;
        }
        // A function defined in a branch that never runs never runs either (`if args.cv:
        // def folds(): args.workers = 0`); one that is defined may still not be called.
        if matches!(parent.kind(), "function_definition" | "lambda") {
            if stop.is_none()
                && (branch_runs(m, parent, None, depth + 1) == Some(false)
                    || never_called(m, parent, depth + 1))
            {
                return Some(false);
            }
            break;
        }
        if matches!(parent.kind(), "class_definition" | "module") {
            break;
        }
        let in_body = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|c| c.id() == current.id())
        };
        let here = match parent.kind() {
            "if_statement" if in_body("consequence") => {
                parent.child_by_field_name("condition").and_then(truth)
            }
            "elif_clause" if in_body("consequence") => {
                let statement = parent.parent()?;
                match earlier_all_false(statement, parent) {
                    Some(false) => Some(false),
                    earlier => match (
                        earlier,
                        parent.child_by_field_name("condition").and_then(truth),
                    ) {
                        (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    },
                }
            }
            "else_clause" => match parent.parent() {
                Some(s) if s.kind() == "if_statement" => earlier_all_false(s, parent),
                // `for ... else`, `try ... else`.
                _ => None,
            },
            // What a loop iterates over, and a `while` loop's condition, are evaluated
            // whenever the loop statement runs (`for batch in DataLoader(...)`).
            "for_statement" if in_body("right") => Some(true),
            "while_statement" if in_body("condition") => Some(true),
            "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "match_statement"
            | "case_clause"
            | "conditional_expression" => None,
            _ => Some(true),
        };
        match here {
            Some(false) => return Some(false),
            Some(true) => {}
            None => runs = None,
        }
        current = parent;
    }
    runs
}

/// Whether the function `definition` (not a method) is named in the file, and only in code
/// that does not run under the defaults: `main_worker` handed to `mp.spawn` under
/// `if args.multi_gpu:` when `--multi_gpu` is off. A function never named in the file may be
/// called from another one, so it is not concluded dead.
fn never_called(m: &Module, definition: Node, depth: u32) -> bool {
    let statement = definition
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(definition);
    if depth > MAX_CONDITION_DEPTH
        || definition.kind() != "function_definition"
        || statement
            .parent()
            .and_then(|block| block.parent())
            .is_some_and(|p| p.kind() == "class_definition")
    {
        return false;
    }
    let Some(name) = definition.child_by_field_name("name") else {
        return false;
    };
    let references: Vec<Node> = m
        .references(m.text(name))
        .into_iter()
        // A recursive call does not call it.
        .filter(|r| !definition.byte_range().contains(&r.start_byte()))
        .filter(|r| super::names_a_binding(*r))
        .collect();
    !references.is_empty()
        && references
            .iter()
            .all(|r| branch_runs(m, *r, None, depth + 1) == Some(false))
}

/// Whether `setattr(object, name, ...)` only ever adds attributes: it runs under
/// `if not hasattr(object, name):` (or `name not in vars(object)`), or after an
/// `if hasattr(object, name): raise/continue/return` or an `assert not hasattr(...)` in the
/// same block or one around it.
pub(super) fn never_overwrites(m: &Module, call: Node, object: Node, name: Node) -> bool {
    let (o, k) = (squeeze(m.text(object)), squeeze(m.text(name)));
    let present = [
        format!("hasattr({o},{k})"),
        format!("{k}in{o}.__dict__"),
        format!("{k}invars({o})"),
        format!("{k}invars({o}).keys()"),
    ];
    let absent = [
        format!("nothasattr({o},{k})"),
        format!("{k}notin{o}.__dict__"),
        format!("{k}notinvars({o})"),
        format!("{k}notinvars({o}).keys()"),
    ];
    fn bare(mut node: Node) -> Option<Node> {
        while node.kind() == "parenthesized_expression" {
            node = node.named_child(0)?;
        }
        Some(node)
    }
    let spelled = |node: Node, forms: &[String]| {
        bare(node).is_some_and(|n| forms.contains(&squeeze(&spelled_out(m, n))))
    };
    // `not (key in vars(args))` is `key not in vars(args)`.
    let negated = |node: Node, forms: &[String]| {
        bare(node)
            .filter(|n| n.kind() == "not_operator")
            .and_then(|n| n.child_by_field_name("argument"))
            .is_some_and(|a| spelled(a, forms))
    };
    let is_absent = |node: Node| spelled(node, &absent) || negated(node, &present);
    let is_present = |node: Node| spelled(node, &present) || negated(node, &absent);
    let leaves = |block: Node| {
        let mut cursor = block.walk();
        block.named_children(&mut cursor).last().is_some_and(|s| {
            matches!(
                s.kind(),
                "raise_statement" | "continue_statement" | "return_statement"
            )
        })
    };
    let mut current = call;
    while let Some(parent) = current.parent() {
        match parent.kind() {
            "function_definition" | "class_definition" | "lambda" | "module" => return false,
            "if_statement"
                if parent
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.id() == current.id())
                    && parent
                        .child_by_field_name("condition")
                        .is_some_and(is_absent) =>
            {
                return true;
            }
            "block" => {
                let mut sibling = current.prev_named_sibling();
                while let Some(s) = sibling {
                    let guards = match s.kind() {
                        "if_statement" => {
                            s.child_by_field_name("alternative").is_none()
                                && s.child_by_field_name("condition").is_some_and(is_present)
                                && s.child_by_field_name("consequence").is_some_and(leaves)
                        }
                        "assert_statement" => s.named_child(0).is_some_and(is_absent),
                        _ => false,
                    };
                    if guards {
                        return true;
                    }
                    sibling = s.prev_named_sibling();
                }
            }
            _ => {}
        }
        current = parent;
    }
    false
}

/// The text of a condition, with a name that holds the namespace's attributes spelled as
/// what it holds (`k not in args_vars` after `args_vars = vars(args)` is `k not in
/// vars(args)`: `vars` gives the live `__dict__`, so the test sees every `setattr` before it).
fn spelled_out(m: &Module, condition: Node) -> String {
    let text = m.text(condition).to_owned();
    if condition.kind() != "comparison_operator" {
        return text;
    }
    let mut cursor = condition.walk();
    let Some(last) = condition
        .named_children(&mut cursor)
        .last()
        .filter(|n| n.kind() == "identifier")
    else {
        return text;
    };
    let held = m
        .single_binding(m.text(last), m.scope_at(last))
        .filter(|b| b.kind == BindingKind::Assign)
        .and_then(|b| b.value)
        .map(|v| m.text(v))
        .filter(|v| squeeze(v).starts_with("vars(") || squeeze(v).ends_with(".__dict__"));
    match held {
        Some(held) => {
            let start = last.start_byte() - condition.start_byte();
            format!("{}{held}", text.get(..start).unwrap_or_default())
        }
        None => text,
    }
}

/// The keys a `.update(...)` call writes when it names them all: a dict literal with string
/// keys, keyword arguments, or both. `None` when any key is computed or a dict is passed.
pub(super) fn update_keys(m: &Module, call: Node) -> Option<Vec<String>> {
    let args = call.child_by_field_name("arguments")?;
    let mut keys = Vec::new();
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => keys.push(m.text(arg.child_by_field_name("name")?).to_owned()),
            "dictionary" => {
                let mut inner = arg.walk();
                for pair in arg.named_children(&mut inner) {
                    match pair.kind() {
                        "pair" => keys.push(m.string_value(pair.child_by_field_name("key")?)?),
                        "comment" => {}
                        _ => return None,
                    }
                }
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(keys)
}

/// Why a write that may or may not run before the read leaves it unknown.
pub(super) fn why_may_run(m: &Module, write: &AttributeAssignment, read: Node) -> String {
    let line = m.line(write.target.start_byte());
    let function = m.function_at(read);
    if write.function == function && write.target.start_byte() >= read_ends(m, read) {
        let name = function
            .and_then(|f| m.function(f))
            .map_or("module code".to_owned(), |f| format!("`{}`", f.name));
        return format!(
            "written on line {line}, after this read, in {name}, which may run more than once \
             with the same namespace"
        );
    }
    if m.is_conditional_relative_to(write.target, read) {
        let to = write
            .value
            .map_or(String::new(), |v| format!(" (to `{}`)", m.text(v)));
        format!("written under a condition that does not resolve, line {line}{to}")
    } else {
        let function = write
            .function
            .and_then(|f| m.function(f))
            .map_or("module code".to_owned(), |f| format!("`{}`", f.name));
        format!("written in {function} on line {line}, which may run before or after this read")
    }
}

/// Why a name that holds no namespace the analysis traced stays unknown: a parameter whose
/// callers were not found in the file, or a value from a config file read at run time.
pub(in crate::python) fn untraced(m: &Module, object: Node, scope: ScopeId) -> Option<String> {
    let mut root = object;
    while root.kind() == "attribute" {
        root = root.child_by_field_name("object")?;
    }
    if root.kind() != "identifier" {
        return None;
    }
    let name = m.text(root);
    let ids = m.lookup(name, scope)?;
    let bindings: Vec<_> = ids.iter().filter_map(|id| m.bindings().get(*id)).collect();
    if !bindings.is_empty()
        && bindings
            .iter()
            .all(|b| matches!(b.kind, BindingKind::Parameter))
    {
        let function = m.function_at(root).and_then(|f| m.function(f));
        // A module-level function's callers, and a module-level class's, are looked for in
        // the project's other files too.
        let module_level = function.is_some_and(|f| match f.class.and_then(|c| m.class(c)) {
            Some(class) => class.parent_scope == MODULE_SCOPE,
            None => f.parent_scope == MODULE_SCOPE,
        });
        let function = function.map_or(String::new(), |f| format!(" of `{}`", f.name));
        let place = if module_level {
            "dldoctor found in the project"
        } else {
            "in this file"
        };
        return Some(format!(
            "`{name}` is a parameter{function}, and no call {place} passes it a value it can \
             resolve"
        ));
    }
    bindings.iter().find_map(|b| {
        let statement = m.statement_of(b.node);
        let value = match statement.kind() {
            "expression_statement" => statement.named_child(0)?,
            _ => statement,
        };
        let call = value
            .child_by_field_name("right")
            .filter(|r| r.kind() == "call")?;
        let qualified = m.qualified_name(call.child_by_field_name("function")?)?;
        CONFIG_READERS.contains(&qualified.as_str()).then(|| {
            format!(
                "`{name}` is read from a config file at run time (`{qualified}`, line {})",
                m.line(call.start_byte())
            )
        })
    })
}

/// Calls that read a configuration file.
const CONFIG_READERS: [&str; 9] = [
    "yaml.load",
    "yaml.safe_load",
    "yaml.full_load",
    "json.load",
    "json.loads",
    "toml.load",
    "tomllib.load",
    "omegaconf.OmegaConf.load",
    "mmcv.Config.fromfile",
];

/// Text without whitespace, to compare short expressions however they are spaced.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Why `call`, which writes attributes of the namespace without naming them in the code
/// (`setattr(args, name, v)`, `vars(args).update(...)`, `args.__dict__.update(...)`), may
/// write `attribute`; `None` when it cannot: a `setattr` with a computed name that never
/// replaces an attribute the parser defines (`defined`), an `update` whose keys are all
/// named and `attribute` is not one of them.
pub(super) fn unnamed_write(
    m: &Module,
    call: &CallSite,
    attribute: &str,
    defined: bool,
) -> Option<String> {
    let line = m.line(call.node.start_byte());
    if call.qualified.as_deref() == Some("builtins.setattr") {
        let args = positional_args(call.node);
        return match (args.first(), args.get(1)) {
            (_, Some(name)) if m.string_value(*name).is_some() => {
                Some(format!("set by `setattr` on line {line}"))
            }
            (Some(object), Some(name))
                if defined && never_overwrites(m, call.node, *object, *name) =>
            {
                None
            }
            _ => Some(format!(
                "written by `setattr` with a computed name on line {line}"
            )),
        };
    }
    if update_keys(m, call.node).is_some_and(|keys| !keys.iter().any(|k| k == attribute)) {
        return None;
    }
    Some(format!(
        "the namespace is updated from a dict on line {line} (`{}`)",
        m.text(call.callee)
    ))
}

/// Whether `write` can only run after `read` in the run that reads: the write follows the
/// read's statement in the same code, or sits in a function of the module that only code
/// following the read names (`mp.spawn(main_worker, ...)` after the read of `args.workers`
/// that `main_worker` later rewrites); no loop around the read holds it; and that code sees a
/// new namespace each run (module code, or a function that parses the command line itself:
/// a later write to a namespace handed in may have come from an earlier call).
pub(super) fn runs_after(m: &Module, write: &AttributeAssignment, read: Node) -> bool {
    code_runs_after(m, write.target, write.function, read)
}

/// [`runs_after`] for any code: `at`, in `at_function`.
pub(super) fn code_runs_after(
    m: &Module,
    at: Node,
    at_function: Option<FunctionId>,
    read: Node,
) -> bool {
    let function = m.function_at(read);
    if !follows(m, at, at_function, read, function, 0) {
        return false;
    }
    match function {
        None => true,
        Some(f) => parsed_in_place(m, read) || runs_once(m, f, 0),
    }
}

/// Whether the code at `at` (in `at_function`) only runs after `read` (in `read_function`)
/// has: it follows the read in the same code with no loop around the read holding it, or its
/// function is a module-level one whose every mention in the file (a call, or a callable
/// handed to a call) follows the read in that way, a few functions deep.
fn follows(
    m: &Module,
    at: Node,
    at_function: Option<FunctionId>,
    read: Node,
    read_function: Option<FunctionId>,
    depth: u32,
) -> bool {
    if at_function == read_function {
        return at.start_byte() >= read_ends(m, read) && !in_loop_around(at, read);
    }
    let Some(def) = at_function.and_then(|f| m.function(f)) else {
        return false;
    };
    if depth >= 4 || def.class.is_some() || def.parent_function.is_some() {
        return false;
    }
    let references = mentions(m, def);
    !references.is_empty()
        && references.iter().all(|r| {
            let called = r.parent().is_some_and(|p| {
                (p.kind() == "call" && p.child_by_field_name("function") == Some(*r))
                    || p.kind() == "argument_list"
                    || (p.kind() == "keyword_argument"
                        && p.child_by_field_name("value") == Some(*r)
                        && p.parent().is_some_and(|l| l.kind() == "argument_list"))
            });
            called && follows(m, *r, m.function_at(*r), read, read_function, depth + 1)
        })
}

/// Where the file names the function `def` (its definition's own name aside).
fn mentions<'a>(m: &Module<'a>, def: &FunctionDef) -> Vec<Node<'a>> {
    m.references(def.name)
        .into_iter()
        .filter(|r| Module::range(*r) != def.name_range && super::names_a_binding(*r))
        .collect()
}

/// Whether `function` runs at most once in a run of the file: a function of the module
/// whose name is referenced once in the file, as the callee of a call that is in module
/// code or in a function that itself runs once, with no loop, comprehension or lambda
/// around it. Its writes to a namespace handed in then cannot come from an earlier call.
fn runs_once(m: &Module, function: FunctionId, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    let Some(def) = m.function(function) else {
        return false;
    };
    if def.class.is_some() || def.parent_function.is_some() {
        return false;
    }
    let references = mentions(m, def);
    let [reference] = references.as_slice() else {
        return false;
    };
    let Some(call) = reference
        .parent()
        .filter(|p| p.kind() == "call" && p.child_by_field_name("function") == Some(*reference))
    else {
        return false;
    };
    let mut node = call;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "function_definition" | "class_definition" | "module" => break,
            "for_statement"
            | "while_statement"
            | "lambda"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression" => return false,
            _ => {}
        }
        node = parent;
    }
    match m.function_at(call) {
        None => m.scope_at(call) == MODULE_SCOPE,
        Some(caller) => caller != function && runs_once(m, caller, depth + 1),
    }
}

/// Where the code of `read` ends for the writes that follow it: the end of its statement, or
/// of the condition of the `if` (or `elif`) it tests, which runs before the branches.
fn read_ends(m: &Module, read: Node) -> usize {
    let statement = m.statement_of(read);
    let mut node = read;
    while let Some(parent) = node.parent() {
        if parent.id() == statement.id() || parent.kind() == "elif_clause" {
            if matches!(parent.kind(), "if_statement" | "elif_clause")
                && parent
                    .child_by_field_name("condition")
                    .is_some_and(|c| c.id() == node.id())
            {
                return node.end_byte();
            }
            break;
        }
        node = parent;
    }
    statement.end_byte()
}

/// Whether the name `read` is bound once, in its own scope, to `<parser>.parse_args()` (or
/// `parse_known_args()`).
fn parsed_in_place(m: &Module, read: Node) -> bool {
    if read.kind() != "identifier" {
        return false;
    }
    let scope = m.scope_at(read);
    let Some(binding) = m.single_binding(m.text(read), scope) else {
        return false;
    };
    let value = match binding.value {
        Some(v) if v.kind() == "subscript" => v.child_by_field_name("value"),
        Some(v) => Some(v),
        None => super::destructured(binding).map(|(call, _)| call),
    };
    binding.scope == scope
        && matches!(binding.kind, BindingKind::Assign)
        && value
            .filter(|v| v.kind() == "call")
            .and_then(|v| v.child_by_field_name("function"))
            .and_then(|f| f.child_by_field_name("attribute"))
            .is_some_and(|a| matches!(m.text(a), "parse_args" | "parse_known_args"))
}

/// A write through item syntax or a mapping method, which only an attribute-dict copy of a
/// namespace takes (`opt['workers'] = 2`, `opt.update(cfg)` on an `EasyDict(vars(args))`).
pub(crate) struct MappingWrite<'a> {
    /// The expression written through (`opt`, `self.opt`).
    pub object: Node<'a>,
    /// The statement that writes.
    pub statement: Node<'a>,
    /// The keys written; `None` when they may be any.
    pub keys: Option<Vec<String>>,
}

/// A cheap text test before [`mapping_writes`]: whether `text` (a function's) holds
/// `name[` or a mapping method called on `name` at all.
pub(super) fn may_write_items(text: &str, name: &str) -> bool {
    let text = text.as_bytes();
    memchr::memmem::find_iter(text, name.as_bytes()).any(|at| {
        let rest = &text[at + name.len()..];
        let before = at.checked_sub(1).and_then(|i| text.get(i));
        !before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
            && (rest.starts_with(b"[")
                || [
                    ".update(",
                    ".setdefault(",
                    ".__setitem__(",
                    ".merge_update(",
                ]
                .iter()
                .any(|m| rest.starts_with(m.as_bytes())))
    })
}

/// Every mapping write through an expression spelled `name`.
pub(crate) fn mapping_writes<'a>(m: &Module<'a>, name: &str) -> Vec<MappingWrite<'a>> {
    let last = name.rsplit('.').next().unwrap_or(name);
    let mut out = Vec::new();
    for reference in m.references(last) {
        let object = match reference.parent() {
            Some(p) if p.kind() == "attribute" && m.text(p) == name => p,
            _ if m.text(reference) == name => reference,
            _ => continue,
        };
        let Some(parent) = object.parent() else {
            continue;
        };
        let keys = match parent.kind() {
            "subscript" if parent.child_by_field_name("value") == Some(object) => {
                let assigned = parent.parent().is_some_and(|a| {
                    matches!(a.kind(), "assignment" | "augmented_assignment")
                        && a.child_by_field_name("left") == Some(parent)
                });
                if !assigned {
                    continue;
                }
                let key = parent.child_by_field_name("subscript");
                key.and_then(|k| m.string_value(k)).map(|k| vec![k])
            }
            "attribute" if parent.child_by_field_name("object") == Some(object) => {
                let method = parent.child_by_field_name("attribute").map(|a| m.text(a));
                let call = parent.parent().filter(|c| c.kind() == "call");
                match (method, call) {
                    (Some("update"), Some(call)) => update_keys(m, call),
                    (Some("setdefault" | "__setitem__" | "merge_update"), Some(call)) => {
                        positional_args(call)
                            .first()
                            .and_then(|k| m.string_value(*k))
                            .map(|k| vec![k])
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        out.push(MappingWrite {
            object,
            statement: m.statement_of(object),
            keys,
        });
    }
    out
}
