//! Class decorators of the project that provably return the class they are given, so the
//! analysis may look through them (`@under_review()` on a LightningModule that marks it,
//! sets its docstring and wraps its `__init__` to warn).
//!
//! A decorator `def d(cls, ...)` (or the one a factory `def f(...): def d(cls): ...; return d`
//! returns) qualifies when, read in order, its body reaches `return cls` (directly or in an
//! `if inspect.isclass(cls):` / `if isinstance(cls, type):` branch) and nothing before that
//! returns, rebinds `cls` or calls `setattr`/`delattr`. It may set attributes of the class; it
//! may replace a method that runs at construction (`__init__`, `__new__`, `__call__`) only by
//! wrapping it with itself, when its path for functions returns a
//! `def wrapper(*args, **kwargs)` that ends with `return f(*args, **kwargs)`. Anything else
//! (a decorator of a library, one that returns another class) keeps the class opaque.
//!
//! Function decorators of libraries that call the function with the arguments it is given
//! ([`PASS_THROUGH`]: `@beartype`, `@torch.no_grad()`, `@functools.lru_cache`) leave what a
//! caller passes a parameter as it is; any other decorator may change it.

use tree_sitter::Node;

use crate::python::kinds::{Kind, kind};
use crate::python::model::{BindingKind, FunctionDef, Module, ScopeId};
use crate::python::syntax::{node_text, walk_executed};

/// Methods that run when the class is constructed: replacing one may change the arguments.
const CONSTRUCTION: &[&str] = &["__init__", "__new__", "__call__", "__init_subclass__"];

/// Function decorators that call the function with the arguments its callers give: type
/// checkers, gradient modes and caches.
const PASS_THROUGH: &[&str] = &[
    "beartype.beartype",
    "typeguard.typechecked",
    "torch.no_grad",
    "torch.inference_mode",
    "torch.enable_grad",
    "functools.lru_cache",
    "functools.cache",
];

/// Whether the arguments a call of `function` passes reach its parameters as they are: it has
/// no decorator, or only ones of [`PASS_THROUGH`] (written bare or called,
/// `@torch.no_grad()`).
pub fn passes_arguments(m: &Module, function: &FunctionDef) -> bool {
    let Some(decorated) = function
        .node
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return true;
    };
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .all(|d| {
            let expr = d.named_child(0).map(|e| match e.kind() {
                "call" => e.child_by_field_name("function").unwrap_or(e),
                _ => e,
            });
            expr.and_then(|e| m.qualified_in(e, function.parent_scope, 0))
                .is_some_and(|q| PASS_THROUGH.contains(&q.as_str()))
        })
}

/// Whether every decorator of `decorated` (a `decorated_definition`) is one of the project's
/// that returns the class it is given.
pub fn transparent(m: &Module, decorated: Node, scope: ScopeId) -> bool {
    let mut cursor = decorated.walk();
    let decorators: Vec<Node> = decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .collect();
    !decorators.is_empty()
        && decorators.iter().all(|d| {
            d.named_child(0)
                .is_some_and(|expr| decorator_returns_class(m, expr, scope))
        })
}

fn decorator_returns_class(m: &Module, expr: Node, scope: ScopeId) -> bool {
    let (name, factory) = match kind(expr) {
        Kind::Call => match expr.child_by_field_name("function") {
            Some(f) if kind(f) == Kind::Identifier => (f, true),
            _ => return false,
        },
        Kind::Identifier => (expr, false),
        _ => return false,
    };
    let Some(binding) = m.single_binding(m.text(name), scope) else {
        return false;
    };
    match &binding.kind {
        BindingKind::Function(id) => m
            .function(*id)
            .is_some_and(|f| definition_returns_class(m.source, f.node, factory)),
        BindingKind::Import { qualified } => {
            let Some(def) = m.index.definition(m.path, qualified) else {
                return false;
            };
            let Some(source) = m.index.source(&def.file) else {
                return false;
            };
            let Some(tree) = crate::python::parse(&source, None) else {
                return false;
            };
            let root = tree.root_node();
            let mut cursor = root.walk();
            let found = root
                .named_children(&mut cursor)
                .filter(|n| kind(*n) == Kind::FunctionDefinition)
                .find(|n| {
                    n.child_by_field_name("name")
                        .is_some_and(|x| node_text(x, &source) == def.name)
                });
            found.is_some_and(|f| definition_returns_class(&source, f, factory))
        }
        _ => false,
    }
}

/// `def` (not itself decorated) is a class decorator that returns its class, or with
/// `factory` a function whose only return is such a decorator defined in it.
fn definition_returns_class(source: &str, def: Node, factory: bool) -> bool {
    if def
        .parent()
        .is_some_and(|p| kind(p) == Kind::DecoratedDefinition)
    {
        return false;
    }
    if !factory {
        return Decorator::of(source, def).is_some_and(|d| d.returns_class());
    }
    let Some(body) = def.child_by_field_name("body") else {
        return false;
    };
    let returns = returns_in(body);
    let [only] = returns.as_slice() else {
        return false;
    };
    if only.parent() != Some(body) {
        return false;
    }
    let Some(value) = only.named_child(0).filter(|v| kind(*v) == Kind::Identifier) else {
        return false;
    };
    nested_def(source, body, node_text(value, source))
        .filter(|d| kind(*d) == Kind::FunctionDefinition)
        .and_then(|d| Decorator::of(source, d))
        .is_some_and(|d| d.returns_class())
}

/// A decorator function: its source, its `def`, its name and its first parameter.
struct Decorator<'s, 't> {
    source: &'s str,
    def: Node<'t>,
    name: &'s str,
    param: &'s str,
}

impl<'s, 't> Decorator<'s, 't> {
    fn of(source: &'s str, def: Node<'t>) -> Option<Self> {
        let name = node_text(def.child_by_field_name("name")?, source);
        let params = def.child_by_field_name("parameters")?;
        let first = params.named_child(0)?;
        let param = match kind(first) {
            Kind::Identifier => first,
            Kind::TypedParameter => first.named_child(0)?,
            Kind::DefaultParameter | Kind::TypedDefaultParameter => {
                first.child_by_field_name("name")?
            }
            _ => return None,
        };
        let param = node_text(param, source);
        Some(Decorator {
            source,
            def,
            name,
            param,
        })
    }

    fn text(&self, node: Node) -> &'s str {
        node_text(node, self.source)
    }

    fn returns_class(&self) -> bool {
        self.def
            .child_by_field_name("body")
            .is_some_and(|body| self.block_returns_class(body))
    }

    /// The statements of `block`, in order, reach `return <param>` for a class argument.
    fn block_returns_class(&self, block: Node) -> bool {
        let mut cursor = block.walk();
        for statement in block.named_children(&mut cursor) {
            match statement.kind() {
                "comment" => {}
                "return_statement" => {
                    return statement
                        .named_child(0)
                        .is_some_and(|v| self.text(v) == self.param);
                }
                "if_statement" if self.is_class_test(statement) => {
                    return statement
                        .child_by_field_name("consequence")
                        .is_some_and(|b| self.block_returns_class(b));
                }
                _ if !self.harmless(statement) => return false,
                _ => {}
            }
        }
        false
    }

    /// `if inspect.isclass(cls):` or `if isinstance(cls, type):`.
    fn is_class_test(&self, statement: Node) -> bool {
        let Some(condition) = statement.child_by_field_name("condition") else {
            return false;
        };
        let text: String = self
            .text(condition)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        text == format!("inspect.isclass({})", self.param)
            || text == format!("isinstance({},type)", self.param)
    }

    /// A statement before the return that leaves the class as it is for construction.
    fn harmless(&self, statement: Node) -> bool {
        let mut ok = true;
        walk_executed(statement, &mut |n| match n.kind() {
            "return_statement" => ok = false,
            "call" => {
                let callee = n.child_by_field_name("function").map(|f| self.text(f));
                if matches!(callee, Some("setattr" | "delattr")) {
                    ok = false;
                }
            }
            "assignment" | "augmented_assignment" => {
                if let Some(left) = n.child_by_field_name("left") {
                    ok &= self.harmless_write(left, n.child_by_field_name("right"));
                }
            }
            "for_statement" => {
                ok &= n
                    .child_by_field_name("left")
                    .is_some_and(|l| self.harmless_write(l, None));
            }
            "named_expression" => {
                ok &= n
                    .child_by_field_name("name")
                    .is_some_and(|l| self.text(l) != self.param);
            }
            _ => {}
        });
        // A nested definition is skipped by the walk; one that rebinds the parameter's name
        // does not run here.
        ok
    }

    fn harmless_write(&self, left: Node, right: Option<Node>) -> bool {
        match kind(left) {
            Kind::Identifier => self.text(left) != self.param,
            Kind::Attribute => {
                let object = left.child_by_field_name("object").map(|o| self.text(o));
                let Some(attribute) = left.child_by_field_name("attribute").map(|a| self.text(a))
                else {
                    return false;
                };
                if object != Some(self.param) || !CONSTRUCTION.contains(&attribute) {
                    return true;
                }
                // `cls.__init__ = decorator(cls.__init__, ...)`: wrapped by this decorator.
                right.is_some_and(|r| {
                    kind(r) == Kind::Call
                        && r.child_by_field_name("function")
                            .is_some_and(|f| self.text(f) == self.name)
                        && r.child_by_field_name("arguments")
                            .and_then(|a| a.named_child(0))
                            .is_some_and(|a| self.text(a) == self.text(left))
                        && self.wraps_functions()
                })
            }
            // `REGISTRY[cls.__name__] = cls`: another object.
            _ if left.kind() == "subscript" => left
                .child_by_field_name("value")
                .is_some_and(|v| self.text(v) != self.param),
            Kind::PatternList | Kind::ListPattern | Kind::TuplePattern => {
                let mut cursor = left.walk();
                left.named_children(&mut cursor)
                    .all(|n| self.harmless_write(n, None) && kind(n) == Kind::Identifier)
            }
            _ => false,
        }
    }

    /// The decorator's path for a function returns a wrapper that calls it with the same
    /// arguments: its last statement is `return wrapper`, with `def wrapper(*args, **kwargs)`
    /// (under `functools.wraps` at most) ending in `return <param>(*args, **kwargs)` and
    /// returning nowhere else.
    fn wraps_functions(&self) -> bool {
        let Some(body) = self.def.child_by_field_name("body") else {
            return false;
        };
        let Some(last) = body.named_children(&mut body.walk()).last() else {
            return false;
        };
        let Some(wrapper_name) = (last.kind() == "return_statement")
            .then(|| last.named_child(0))
            .flatten()
            .filter(|v| kind(*v) == Kind::Identifier)
            .map(|v| self.text(v))
        else {
            return false;
        };
        let other_returns_identity = returns_in(body)
            .iter()
            .all(|r| *r == last || r.named_child(0).is_some_and(|v| self.text(v) == self.param));
        let mut rebinds_wrapper = false;
        walk_executed(body, &mut |n| {
            if matches!(n.kind(), "assignment" | "augmented_assignment")
                && n.child_by_field_name("left")
                    .is_some_and(|l| self.text(l) == wrapper_name)
            {
                rebinds_wrapper = true;
            }
        });
        if !other_returns_identity || rebinds_wrapper {
            return false;
        }
        let Some(wrapper) = nested_def(self.source, body, wrapper_name) else {
            return false;
        };
        let wrapper = match kind(wrapper) {
            Kind::DecoratedDefinition => {
                let mut cursor = wrapper.walk();
                let only_wraps = wrapper
                    .named_children(&mut cursor)
                    .filter(|d| d.kind() == "decorator")
                    .all(|d| {
                        let text = self.text(d).trim_start_matches('@').trim();
                        let wraps = format!("wraps({})", self.param);
                        text == wraps || text == format!("functools.{wraps}")
                    });
                match wrapper.child_by_field_name("definition") {
                    Some(def) if only_wraps => def,
                    _ => return false,
                }
            }
            _ => wrapper,
        };
        let params: String = wrapper
            .child_by_field_name("parameters")
            .map(|p| {
                self.text(p)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect()
            })
            .unwrap_or_default();
        if params != "(*args,**kwargs)" {
            return false;
        }
        let Some(body) = wrapper.child_by_field_name("body") else {
            return false;
        };
        let returns = returns_in(body);
        let forward = format!("return{}(*args,**kwargs)", self.param);
        let [only] = returns.as_slice() else {
            return false;
        };
        let text: String = self
            .text(*only)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        only.parent() == Some(body)
            && body.named_children(&mut body.walk()).last() == Some(*only)
            && text == forward
    }
}

/// The return statements that run in `body` (not those of nested definitions).
fn returns_in(body: Node) -> Vec<Node> {
    let mut returns = Vec::new();
    walk_executed(body, &mut |n| {
        if n.kind() == "return_statement" {
            returns.push(n);
        }
    });
    returns
}

/// The definition named `name` among the statements of `body` (decorated or not).
fn nested_def<'t>(source: &str, body: Node<'t>, name: &str) -> Option<Node<'t>> {
    let mut cursor = body.walk();
    body.named_children(&mut cursor).find(|n| {
        let def = match kind(*n) {
            Kind::DecoratedDefinition => n.child_by_field_name("definition"),
            Kind::FunctionDefinition => Some(*n),
            _ => None,
        };
        def.filter(|d| kind(*d) == Kind::FunctionDefinition)
            .and_then(|d| d.child_by_field_name("name"))
            .is_some_and(|x| node_text(x, source) == name)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::Path;

    use super::*;
    use crate::python::index::ProjectIndex;
    use crate::python::model::Module;

    /// Whether the decorators of the last class of `source` are looked through.
    fn looks_through(source: &str) -> bool {
        let tree = crate::python::parse(source, None).unwrap();
        let index = ProjectIndex::default();
        let m = Module::build(source, &tree, Path::new("t.py"), &index);
        let class = m.classes().last().expect("a class");
        let decorated = class.node.parent().expect("decorated");
        transparent(&m, decorated, class.parent_scope)
    }

    const WRAPPER: &str = "
def warn_on_use(obj, was_class=False):
    if inspect.isclass(obj):
        obj.__init__ = warn_on_use(obj.__init__, was_class=True)
        return obj

    @functools.wraps(obj)
    def wrapper(*args, **kwargs):
        warnings.warn('deprecated')
        return obj(*args, **kwargs)

    return wrapper
";

    #[test]
    fn decorators_that_return_their_class() {
        assert!(looks_through(
            "def mark(cls):\n    cls.marked = True\n    return cls\n\n@mark\nclass A: pass\n"
        ));
        assert!(looks_through(
            "def reg(cls):\n    R[cls.__name__] = cls\n    return cls\n\n@reg\nclass A: pass\n"
        ));
        assert!(looks_through(&format!(
            "{WRAPPER}\n@warn_on_use\nclass A: pass\n"
        )));
        assert!(looks_through(
            "def f():\n    def d(cls):\n        return cls\n    return d\n\n@f()\nclass A: pass\n"
        ));
    }

    #[test]
    fn decorators_that_may_not_return_it_keep_the_class_opaque() {
        for source in [
            // Another class, nothing, or an unknown function's result.
            "def d(cls):\n    return type('B', (cls,), {})\n\n@d\nclass A: pass\n",
            "def d(cls):\n    cls.x = 1\n\n@d\nclass A: pass\n",
            "def d(cls):\n    if cls.x:\n        return None\n    return cls\n\n@d\nclass A: pass\n",
            "def d(cls):\n    cls = other(cls)\n    return cls\n\n@d\nclass A: pass\n",
            // `__init__` replaced by something that is not a forwarding wrapper.
            "def d(cls):\n    cls.__init__ = functools.partialmethod(cls.__init__, n=2)\n    return cls\n\n@d\nclass A: pass\n",
            "def d(cls):\n    setattr(cls, '__init__', init)\n    return cls\n\n@d\nclass A: pass\n",
            // A wrapper that changes the arguments.
            &format!(
                "{}\n@warn_on_use\nclass A: pass\n",
                WRAPPER.replace("obj(*args, **kwargs)", "obj(*args, n=2, **kwargs)")
            ),
            // A library's decorator, an attribute, a factory returning something else.
            "from lib import register\n\n@register\nclass A: pass\n",
            "import lib\n\n@lib.register()\nclass A: pass\n",
            "def f():\n    return lambda cls: cls\n\n@f()\nclass A: pass\n",
            // A decorated decorator.
            "@cache\ndef d(cls):\n    return cls\n\n@d\nclass A: pass\n",
        ] {
            assert!(!looks_through(source), "looked through:\n{source}");
        }
    }
}
