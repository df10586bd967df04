//! An attribute read after the code itself assigns it, in straight-line code of the same
//! scope:
//!
//! ```python
//! config = Config()
//! config.load(chosen_log)
//! config.input_threads = 10
//! loader = DataLoader(ds, num_workers=config.input_threads)
//! ```
//!
//! The last such assignment gives the value when it runs whenever the read does, the name is
//! the same binding at both, and nothing between may assign the attribute again: a method of
//! the object (`config.load(...)`), `setattr` and its kin, a call handing the object to a
//! function or class of the project that assigns that attribute on what it is given, or, for
//! a module-level object, a call of any function or class of the file. A function
//! outside the project is taken not to. An assignment after the read, in a loop around it, may
//! come round first. Anything else leaves the attribute to the other layers.

use tree_sitter::Node;

use super::{
    AttributeAssignment, BindingKind, CallSite, MODULE_SCOPE, Module, ScopeId, in_loop_around,
};
use crate::python::argparse::{self, ParamWrite};
use crate::python::values::Resolved;
use crate::python::{configs, defaults};

impl Module<'_> {
    /// `object.attribute` as the last assignment before `read` leaves it (see the module's
    /// documentation); `None` when there is none or it may not be what the read sees.
    pub(super) fn assigned_before(
        &self,
        read: Node,
        object: Node,
        attribute: &str,
        scope: ScopeId,
        depth: u32,
    ) -> Option<Resolved> {
        if object.kind() != "identifier" {
            return None;
        }
        let name = self.text(object);
        let writes: Vec<&AttributeAssignment> = self
            .attribute_assignments
            .iter()
            .filter(|w| w.object == Some(name) && w.attribute == attribute && w.scope == scope)
            .collect();
        let last = writes
            .iter()
            .filter(|w| self.statement_of(w.target).end_byte() <= read.start_byte())
            .max_by_key(|w| w.target.start_byte())?;
        let value = last.value?;
        let binding = self.binding_read(name, scope, object, depth)?;
        let bound_before = match binding.kind {
            BindingKind::Parameter => true,
            BindingKind::Assign | BindingKind::As | BindingKind::Walrus => {
                self.statement_of(binding.node).end_byte() <= last.target.start_byte()
            }
            _ => false,
        };
        if !bound_before
            || self.is_conditional_relative_to(last.target, read)
            || writes.iter().any(|w| {
                w.target.start_byte() > read.start_byte() && in_loop_around(w.target, read)
            })
        {
            return None;
        }
        let from = self.statement_of(last.target).end_byte();
        // A function of the file may change a module-level object without being handed it.
        let global = binding.scope == MODULE_SCOPE;
        if self.calls.iter().any(|call| {
            call.scope == scope
                && call.node.start_byte() >= from
                && call.node.start_byte() < read.start_byte()
                && ((global && self.calls_own_code(call)) || self.may_assign(call, name, attribute))
        }) {
            return None;
        }
        let inner = self.value_in(value, scope, depth + 1);
        defaults::named_constant(
            self,
            inner,
            self.text(last.target),
            Module::range(last.target),
        )
    }

    /// Whether `call` may assign `name.attribute`: a method of `name` itself, a setter of
    /// attributes by computed name, or a function or class of the project that assigns the
    /// attribute (or any) on the parameter `name` is passed to.
    fn may_assign(&self, call: &CallSite, name: &str, attribute: &str) -> bool {
        let mut root = call.callee;
        while let Some(object) = root
            .child_by_field_name("object")
            .filter(|_| root.kind() == "attribute")
        {
            root = object;
        }
        if call.callee.kind() == "attribute" && self.text(root) == name {
            return true;
        }
        if configs::attribute_setter(self, call)
            .is_some_and(|(object, _)| self.text(object) == name)
        {
            return true;
        }
        let Some(arguments) = call.node.child_by_field_name("arguments") else {
            return false;
        };
        let mut passed: Vec<(Option<usize>, Option<&str>)> = Vec::new();
        let mut position = 0;
        let mut cursor = arguments.walk();
        for argument in arguments.named_children(&mut cursor) {
            match argument.kind() {
                "comment" => {}
                // Where a splat's items land is not known.
                "list_splat" | "dictionary_splat" => {
                    if argument
                        .named_child(0)
                        .is_some_and(|n| self.text(n) == name)
                    {
                        return true;
                    }
                }
                "keyword_argument" => {
                    if argument
                        .child_by_field_name("value")
                        .is_some_and(|v| v.kind() == "identifier" && self.text(v) == name)
                    {
                        passed.push((
                            None,
                            argument.child_by_field_name("name").map(|n| self.text(n)),
                        ));
                    }
                }
                _ => {
                    if argument.kind() == "identifier" && self.text(argument) == name {
                        passed.push((Some(position), None));
                    }
                    position += 1;
                }
            }
        }
        if passed.is_empty() {
            return false;
        }
        let writes = self.writes_of_callee(call);
        writes.iter().any(|w| {
            (w.attribute == attribute || w.attribute == "*")
                && passed
                    .iter()
                    .any(|(p, k)| *p == Some(w.position) || *k == Some(w.param.as_str()))
        })
    }

    /// Whether `call` calls a function or class this file defines.
    fn calls_own_code(&self, call: &CallSite) -> bool {
        call.callee.kind() == "identifier"
            && self
                .lookup(self.text(call.callee), call.scope)
                .is_some_and(|ids| {
                    ids.iter().any(|id| {
                        self.bindings.get(*id).is_some_and(|b| {
                            matches!(b.kind, BindingKind::Function(_) | BindingKind::Class(_))
                        })
                    })
                })
    }

    /// What the function or class `call` calls assigns on the arguments it is given, when it
    /// is one of the project (this file's, or another's through the index).
    fn writes_of_callee(&self, call: &CallSite) -> Vec<ParamWrite> {
        if call.callee.kind() == "identifier"
            && let Some([id]) = self.lookup(self.text(call.callee), call.scope)
            && let Some(binding) = self.bindings.get(*id)
        {
            match binding.kind {
                BindingKind::Function(function) => {
                    return argparse::parameter_writes(self, function);
                }
                BindingKind::Class(class) => return argparse::constructor_writes(self, class),
                _ => {}
            }
        }
        let Some(qualified) = call.qualified.as_deref() else {
            return Vec::new();
        };
        self.index
            .parameter_writes(self.path, qualified)
            .or_else(|| self.index.constructor_writes(self.path, qualified))
            .unwrap_or_default()
    }
}
