//! Dataclasses `HfArgumentParser` builds from the command line (`model_args, data_args,
//! training_args = parser.parse_args_into_dataclasses()`): each field is an option
//! `--field` whose default is the field's, declared by a dataclass of this file, a project
//! class of another file, or transformers' `TrainingArguments`, whose DataLoader fields'
//! defaults are the catalogue's (`queries/transformers.scm`). The commands of the project's
//! shell scripts and READMEs may all pass another count (`--dataloader_num_workers 32`).

use std::path::Path;

use tree_sitter::Node;

use super::dataclass::{self, local_dataclass};
use crate::python::argparse::{destructured as destructuring, script_pass};
use crate::python::labels::EntryName;
use crate::python::model::{Binding, ClassId, Module, ScopeId, positional_args};
use crate::python::subclass::base_name_from;
use crate::python::values::{Provenance, Resolved, Value};

/// `HfArgumentParser` as it is imported.
const HF_PARSER: &[&str] = &[
    "transformers.HfArgumentParser",
    "transformers.hf_argparser.HfArgumentParser",
];

/// How many bases up a class of another file is followed.
const MAX_HOPS: u32 = 8;

/// The class an `HfArgumentParser` builds an instance of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Parsed {
    /// A dataclass of this file.
    Local(ClassId),
    /// A class imported into this file, by its qualified name.
    Imported(String),
}

/// What a destructured name gets from `HfArgumentParser`.
pub(super) enum Destructured {
    /// `a, b = parser.parse_args_into_dataclasses()`: an instance of the class at its
    /// position, parsed from the command line.
    Parsed(Parsed),
    /// `a, b = parser.parse_json_file(os.path.abspath(sys.argv[1]))`: a file the command line
    /// names, the other way to run the script.
    CommandLineFile,
}

/// A name bound by destructuring what an `HfArgumentParser` parses.
pub(super) fn destructured(m: &Module, binding: &Binding, depth: u32) -> Option<Destructured> {
    let (call, index) = destructuring(binding)?;
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "attribute" {
        return None;
    }
    let parser = callee.child_by_field_name("object")?;
    let method = m.text(callee.child_by_field_name("attribute")?);
    let classes = parser_classes(m, parser, binding.scope, depth)?;
    match method {
        "parse_args_into_dataclasses" => {
            let args = call.child_by_field_name("arguments")?;
            if args.named_child_count() > 0 {
                return None;
            }
            let (class, scope) = *classes.get(index)?;
            if let Some(class) = local_dataclass(m, class, scope) {
                return Some(Destructured::Parsed(Parsed::Local(class)));
            }
            let qualified = m.qualified_in(class, scope, depth + 1)?;
            Some(Destructured::Parsed(Parsed::Imported(qualified)))
        }
        "parse_json_file" | "parse_yaml_file" if m.text(call).contains("sys.argv") => {
            Some(Destructured::CommandLineFile)
        }
        _ => None,
    }
}

/// The class expressions an `HfArgumentParser((A, B, C))` is built over.
fn parser_classes<'a>(
    m: &Module<'a>,
    parser: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Vec<(Node<'a>, ScopeId)>> {
    let (construction, scope) = match parser.kind() {
        "identifier" => {
            let b = m.single_binding(m.text(parser), scope)?;
            (b.value?, b.scope)
        }
        "call" => (parser, scope),
        _ => return None,
    };
    let callee = construction.child_by_field_name("function")?;
    let q = m.qualified_in(callee, scope, depth + 1)?;
    if !HF_PARSER.contains(&q.as_str()) {
        return None;
    }
    let first = m
        .keyword_arg(construction, "dataclass_types")
        .or_else(|| positional_args(construction).first().copied())?;
    match first.kind() {
        "tuple" | "list" => {
            let mut cursor = first.walk();
            Some(
                first
                    .named_children(&mut cursor)
                    .filter(|n| n.kind() != "comment")
                    .map(|n| (n, scope))
                    .collect(),
            )
        }
        _ => Some(vec![(first, scope)]),
    }
}

/// Field `name` of the parsed instance: its default, with the count every command running
/// this file passes as `--name` beside it. `None` when the analysis cannot say.
pub(super) fn field_value(m: &Module, parsed: &Parsed, name: &str, depth: u32) -> Option<Resolved> {
    let default = match parsed {
        Parsed::Local(class) => local_default(m, *class, name, depth)?,
        Parsed::Imported(qualified) => {
            if dataclass::written_but_by(m, None, name) {
                return None;
            }
            imported_default(m, m.path, qualified, name, 0)?
        }
    };
    Some(passed_by_runs(m, name, default))
}

/// The default of a dataclass of this file, declared by it (or a dataclass base of this
/// file), else by the class of another module it derives from.
fn local_default(m: &Module, class: ClassId, name: &str, depth: u32) -> Option<Resolved> {
    match dataclass::external_base(m, class, name)? {
        dataclass::Declared::Here => dataclass::field_value(m, class, None, name, depth),
        dataclass::Declared::Base(base) => {
            if dataclass::written_but_by(m, Some(class), name) {
                return None;
            }
            imported_default(m, m.path, &base, name, 0)
        }
    }
}

/// The default of field `name` of the class `qualified` (as `from` imports it): a settings
/// class of the catalogue, or a project record class of another file, else its one base.
fn imported_default(
    m: &Module,
    from: &Path,
    qualified: &str,
    name: &str,
    hops: u32,
) -> Option<Resolved> {
    if hops > MAX_HOPS {
        return None;
    }
    if let Some(entry) = m.catalogue.settings_class(qualified) {
        let param = entry.signature.keyword(name)?;
        let (value, _) = entry.signature.default_of(param);
        return value.is_known().then(|| Resolved {
            value,
            provenance: Provenance::EntryDefault {
                entry: EntryName::Catalogue(entry.name.clone()),
            },
        });
    }
    let (file, record) = m.index.record(from, qualified)?;
    if let Some(field) = record.field(name) {
        return field.map(|r| r.clone().written_in(&file));
    }
    let (file, shape) = m.index.class_shape(from, qualified)?;
    let [base] = shape.bases.as_slice() else {
        return None;
    };
    let base = base_name_from(&file, base)?;
    imported_default(m, &file, &base, name, hops + 1)
}

/// `default`, with the other whole number every command of the project's shell scripts and
/// READMEs that runs this file passes as `--name` (or `--na-me`, which `HfArgumentParser`
/// also accepts) beside it.
fn passed_by_runs(m: &Module, name: &str, default: Resolved) -> Resolved {
    if !matches!(default.value, Value::Int(_)) {
        return default;
    }
    let mut flags = vec![format!("--{name}")];
    if name.contains('_') {
        flags.push(format!("--{}", name.replace('_', "-")));
    }
    match script_pass(m.index, m.path, &flags, true, Some("int"), &default.value) {
        Some(pass) => Resolved {
            value: default.value,
            provenance: Provenance::RunPassed {
                base: Box::new(default.provenance),
                passed: Box::new(pass),
            },
        },
        None => default,
    }
}
