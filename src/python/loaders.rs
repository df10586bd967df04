//! Loader constructions: `torch.utils.data.DataLoader` calls, the catalogue's loaders
//! (`queries/`), and the project's loader classes. Arguments are bound by keyword, by position,
//! and through `**kwargs` dicts built from literals in the same scope (as PyTorch's MNIST
//! example does), each mapped onto DataLoader's parameters by the loader's [`Signature`];
//! the dataset and the class it is built from.

use tree_sitter::Node;

use crate::lang::Lang;
use crate::python::catalogue::Signature;
use crate::python::defaults;
use crate::python::labels::EntryName;
use crate::python::model::{BindingKind, ClassId, FunctionId, Module, ScopeId};
use crate::python::subclass;
use crate::python::values::{self, Provenance, Resolved, Value};
use crate::python::{argparse, configs};
use crate::text::TextRange;

/// The qualified names that are the real DataLoader.
pub const DATALOADER: &[&str] = &[
    "torch.utils.data.DataLoader",
    "torch.utils.data.dataloader.DataLoader",
];

/// DataLoader's parameters, in signature order (the first 13 may be positional).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Param {
    Dataset,
    BatchSize,
    Shuffle,
    Sampler,
    BatchSampler,
    NumWorkers,
    CollateFn,
    PinMemory,
    DropLast,
    Timeout,
    WorkerInitFn,
    MultiprocessingContext,
    Generator,
    PrefetchFactor,
    PersistentWorkers,
    PinMemoryDevice,
    InOrder,
}

impl Param {
    pub const ALL: [Param; 17] = [
        Param::Dataset,
        Param::BatchSize,
        Param::Shuffle,
        Param::Sampler,
        Param::BatchSampler,
        Param::NumWorkers,
        Param::CollateFn,
        Param::PinMemory,
        Param::DropLast,
        Param::Timeout,
        Param::WorkerInitFn,
        Param::MultiprocessingContext,
        Param::Generator,
        Param::PrefetchFactor,
        Param::PersistentWorkers,
        Param::PinMemoryDevice,
        Param::InOrder,
    ];

    /// How many parameters can be passed by position (`prefetch_factor` and after are
    /// keyword-only).
    pub const POSITIONAL: usize = 13;

    pub fn name(self) -> &'static str {
        match self {
            Param::Dataset => "dataset",
            Param::BatchSize => "batch_size",
            Param::Shuffle => "shuffle",
            Param::Sampler => "sampler",
            Param::BatchSampler => "batch_sampler",
            Param::NumWorkers => "num_workers",
            Param::CollateFn => "collate_fn",
            Param::PinMemory => "pin_memory",
            Param::DropLast => "drop_last",
            Param::Timeout => "timeout",
            Param::WorkerInitFn => "worker_init_fn",
            Param::MultiprocessingContext => "multiprocessing_context",
            Param::Generator => "generator",
            Param::PrefetchFactor => "prefetch_factor",
            Param::PersistentWorkers => "persistent_workers",
            Param::PinMemoryDevice => "pin_memory_device",
            Param::InOrder => "in_order",
        }
    }

    pub fn from_name(name: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn positional(index: usize) -> Option<Param> {
        (index < Self::POSITIONAL)
            .then(|| Param::ALL.get(index).copied())
            .flatten()
    }

    /// The value DataLoader uses when the argument is not passed (`Unknown` for the required
    /// `dataset`).
    pub fn default_value(self) -> Value {
        match self {
            Param::Dataset => Value::Unknown,
            Param::BatchSize => Value::Int(1),
            Param::NumWorkers | Param::Timeout => Value::Int(0),
            Param::PinMemory | Param::DropLast | Param::PersistentWorkers => Value::Bool(false),
            Param::PinMemoryDevice => Value::Str(String::new()),
            Param::InOrder => Value::Bool(true),
            Param::Shuffle
            | Param::Sampler
            | Param::BatchSampler
            | Param::CollateFn
            | Param::WorkerInitFn
            | Param::MultiprocessingContext
            | Param::Generator
            | Param::PrefetchFactor => Value::None,
        }
    }
}

/// How an argument reached the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    Keyword,
    /// The 0-based position among the positional arguments.
    Positional(usize),
    /// A key of a `**name` dict; `splat` is the `**name` in the call.
    Unpacked {
        splat: TextRange,
    },
    /// A field of the settings object the call is given (`Trainer(args=training_args)`
    /// builds its loaders with `training_args.dataloader_num_workers`).
    Field,
}

/// One bound argument of a DataLoader call.
#[derive(Clone, Debug)]
pub struct Argument<'a> {
    pub param: Param,
    pub passing: Passing,
    /// The keyword (`num_workers` in `num_workers=4`) or the dict key (`'num_workers'`).
    pub keyword: Option<TextRange>,
    /// Where a diagnostic about this argument goes: the keyword in the call, the positional
    /// value, or the `**name` that carries it.
    pub anchor: TextRange,
    /// The whole argument in the call (`num_workers=4`, or the positional expression); for an
    /// unpacked one, the dict's `key: value` pair or the `key=value` of `dict(...)`.
    pub node: Node<'a>,
    pub value_node: Node<'a>,
    pub value: Resolved,
    /// Passed only under a condition (a dict key added in an `if`): possible, not certain.
    pub conditional: bool,
}

impl Argument<'_> {
    /// Written directly in the call as `name=value` (fixes may edit it in place).
    pub fn is_keyword(&self) -> bool {
        self.passing == Passing::Keyword
    }
}

/// What is known about one parameter of a call.
#[derive(Clone, Copy, Debug)]
pub enum ArgState<'l, 'a> {
    Passed(&'l Argument<'a>),
    /// Not passed, and nothing (`*args`, an unreadable `**kwargs`) could pass it.
    Default,
    /// Possibly passed through `*args` or a `**kwargs` the model cannot read, or not passed
    /// to a callee whose own default is not known.
    Unknown,
}

/// Where a loader's dataset comes from.
#[derive(Clone, Debug)]
pub struct Dataset<'a> {
    /// The dataset argument as written.
    pub expr: Node<'a>,
    /// The constructor call it comes from (`MyDataset(...)`), following a name bound once or
    /// a `self.x` assigned once in `__init__`.
    pub constructor: Option<Node<'a>>,
    pub class: DatasetClass,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatasetClass {
    /// A class defined in this file.
    Local(ClassId),
    /// A class from an import (`torchvision.datasets.MNIST`).
    Imported(String),
    Unknown,
}

/// One loader construction.
#[derive(Clone, Debug)]
pub struct Loader<'a> {
    /// What made it a loader: the catalogue entry (`torch.utils.data.DataLoader`,
    /// `timm.data.create_loader`) or the project class (`InfiniteDataLoader (line 12), a
    /// subclass of torch.utils.data.DataLoader`).
    pub entry: EntryName,
    /// How its arguments reach DataLoader's parameters.
    pub signature: Signature,
    /// A keyword that makes the workers threads was passed (MONAI's `use_thread_workers`):
    /// the start method is not known.
    pub opaque_start: bool,
    pub call: Node<'a>,
    pub range: TextRange,
    /// The callee expression (`DataLoader`, `torch.utils.data.DataLoader`): where diagnostics
    /// go when no argument is to blame.
    pub callee: TextRange,
    /// The `argument_list` of the call.
    pub arguments_node: Option<Node<'a>>,
    pub qualified: String,
    pub scope: ScopeId,
    pub function: Option<FunctionId>,
    /// The statement the call is in.
    pub statement: Node<'a>,
    /// Bound arguments in call order; at most one per parameter.
    pub arguments: Vec<Argument<'a>>,
    /// A `*args` or a `**kwargs` the model cannot read: unbound parameters are unknown.
    pub has_unknown_arguments: bool,
    pub dataset: Option<Dataset<'a>>,
}

impl<'a> Loader<'a> {
    pub fn argument(&self, param: Param) -> Option<&Argument<'a>> {
        self.arguments.iter().find(|a| a.param == param)
    }

    pub fn state(&self, param: Param) -> ArgState<'_, 'a> {
        match self.argument(param) {
            Some(a) => ArgState::Passed(a),
            None if self.has_unknown_arguments => ArgState::Unknown,
            None if param != Param::Dataset && !self.default(param).is_known() => ArgState::Unknown,
            None => ArgState::Default,
        }
    }

    /// The value `param` takes when it is not passed: the callee's own default, else
    /// DataLoader's.
    pub fn default(&self, param: Param) -> Value {
        self.signature.default_of(param).0
    }

    /// Where a default comes from, for messages: "DataLoader's default" or "the default of
    /// timm.data.create_loader".
    pub fn default_note(&self, param: Param, lang: Lang) -> String {
        let provenance = if self.signature.default_of(param).1 {
            Provenance::EntryDefault {
                entry: self.entry.clone(),
            }
        } else {
            Provenance::SignatureDefault
        };
        provenance.note(lang).unwrap_or_default()
    }

    /// The keyword a fix may add to set `param` (`None` when the callee takes none).
    pub fn keyword_for(&self, param: Param) -> Option<&str> {
        self.signature.keyword_for(param)
    }

    /// A call of DataLoader itself (or a loader that takes exactly its arguments).
    pub fn is_plain_dataloader(&self) -> bool {
        self.signature.is_dataloader()
    }

    /// The parameter's value when it is certain: passed unconditionally with a known value, or
    /// certainly not passed (DataLoader's default, with `SignatureDefault` provenance).
    pub fn certain(&self, param: Param) -> Option<Resolved> {
        match self.state(param) {
            ArgState::Passed(a) if !a.conditional && a.value.value.is_known() => {
                Some(a.value.clone())
            }
            ArgState::Default if self.default(param).is_known() => Some(Resolved {
                value: self.default(param),
                provenance: if self.signature.default_of(param).1 {
                    Provenance::EntryDefault {
                        entry: self.entry.clone(),
                    }
                } else {
                    Provenance::SignatureDefault
                },
            }),
            _ => None,
        }
    }

    /// `num_workers` when it is certain.
    pub fn num_workers(&self) -> Option<i64> {
        self.certain(Param::NumWorkers)?.value.as_int()
    }

    /// Certainly no worker processes (`num_workers` is 0 for sure).
    pub fn certainly_single_process(&self) -> bool {
        self.num_workers() == Some(0)
    }

    /// Certainly starts workers (`num_workers` > 0 for sure).
    pub fn certainly_multi_process(&self) -> bool {
        self.num_workers().is_some_and(|n| n > 0)
    }

    /// The parameter as a message names it: `num_workers=4`, `num_workers=64 (the default of
    /// --num_workers (line 12))`, `num_workers=1 (set under a condition)`, or
    /// `num_workers=0 (DataLoader's default)`; in Chinese "num_workers=64（第 12 行
    /// --num_workers 的默认值）". `None` when nothing is known.
    pub fn describe(&self, param: Param, lang: Lang) -> Option<String> {
        let name = param.name();
        let (passed_through_dict, under_condition) = match lang {
            Lang::En => ("passed through a `**` dict", "set under a condition"),
            Lang::Zh => ("经由 `**` 字典传入", "在条件分支中设定"),
        };
        let with_notes = |value: &Value, notes: Vec<String>| match (notes.is_empty(), lang) {
            (true, _) => format!("{name}={value}"),
            (false, Lang::En) => format!("{name}={value} ({})", notes.join(", ")),
            (false, Lang::Zh) => format!("{name}={value}（{}）", notes.join("，")),
        };
        match self.state(param) {
            ArgState::Passed(a) if a.value.value.is_known() => {
                let mut notes: Vec<String> = a.value.provenance.note(lang).into_iter().collect();
                if let Passing::Unpacked { .. } = a.passing {
                    notes.push(passed_through_dict.to_owned());
                }
                if a.conditional {
                    notes.push(under_condition.to_owned());
                }
                notes.extend(values::path_note(&a.value, lang).map(str::to_owned));
                Some(with_notes(&a.value.value, notes))
            }
            ArgState::Default if self.default(param).is_known() => Some(with_notes(
                &self.default(param),
                vec![self.default_note(param, lang)],
            )),
            _ => None,
        }
    }

    /// Where a diagnostic about `param` goes: its keyword if passed, else the callee.
    pub fn anchor(&self, param: Param) -> TextRange {
        self.argument(param)
            .map(|a| a.anchor)
            .unwrap_or(self.callee)
    }
}

/// Every loader construction of the module: calls an entry of the catalogue matches, and
/// calls of the project's loader classes.
pub(crate) fn collect<'a>(m: &Module<'a>) -> Vec<Loader<'a>> {
    let matched = m.catalogue.matches(m);
    let mut callees = subclass::CalleeLoaders::new(m, m.catalogue);
    m.calls()
        .iter()
        .filter_map(|call| {
            let (entry, signature) = match matched.get(&call.node.id()) {
                Some(entry) => (
                    EntryName::Catalogue(entry.name.clone()),
                    entry.signature.clone(),
                ),
                None => callees.of_callee(call.callee, call.qualified.as_deref(), call.scope)?,
            };
            let mut loader = Loader {
                entry,
                signature,
                opaque_start: false,
                call: call.node,
                range: Module::range(call.node),
                callee: Module::range(call.callee),
                arguments_node: call
                    .node
                    .child_by_field_name("arguments")
                    .filter(|a| a.kind() == "argument_list"),
                qualified: call.qualified.clone().unwrap_or_default(),
                scope: call.scope,
                function: call.function,
                statement: m.statement_of(call.node),
                arguments: Vec::new(),
                has_unknown_arguments: false,
                dataset: None,
            };
            bind_arguments(m, &mut loader);
            // A callee that builds its loaders from an object it is given is a loader here
            // only when that object's fields can be read (a `TrainingArguments(...)` it is
            // given is a loader of its own).
            if loader.signature.settings.is_some() && !bind_settings(m, &mut loader) {
                return None;
            }
            loader.dataset = loader
                .argument(Param::Dataset)
                .map(|a| dataset_of(m, a.value_node, call.scope));
            Some(loader)
        })
        .collect()
}

fn bind_arguments<'a>(m: &Module<'a>, loader: &mut Loader<'a>) {
    let Some(args) = loader.arguments_node else {
        loader.has_unknown_arguments = true;
        return;
    };
    let mut bound: Vec<Argument<'a>> = Vec::new();
    let mut position = 0usize;
    let mut positions_known = true;
    let mut cursor = args.walk();
    let children: Vec<Node<'a>> = args.named_children(&mut cursor).collect();
    for child in children {
        match child.kind() {
            "comment" => {}
            "keyword_argument" => {
                let (Some(name), Some(value)) = (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let keyword = m.text(name);
                if loader.signature.opaque.iter().any(|k| k == keyword)
                    && m.value_in(value, loader.scope, 0).value != Value::Bool(false)
                {
                    loader.opaque_start = true;
                }
                let Some(param) = loader.signature.keyword(keyword) else {
                    continue;
                };
                bound.push(Argument {
                    param,
                    passing: Passing::Keyword,
                    keyword: Some(Module::range(name)),
                    anchor: Module::range(name),
                    node: child,
                    value_node: value,
                    value: m.value_in(value, loader.scope, 0),
                    conditional: false,
                });
            }
            "list_splat" => {
                loader.has_unknown_arguments = true;
                positions_known = false;
            }
            "dictionary_splat" => match splat_arguments(m, child, child, loader, 0) {
                Some(arguments) => bound.extend(arguments),
                None => loader.has_unknown_arguments = true,
            },
            _ => {
                if positions_known && let Some(param) = loader.signature.positional(position) {
                    bound.push(Argument {
                        param,
                        passing: Passing::Positional(position),
                        keyword: None,
                        anchor: Module::range(child),
                        node: child,
                        value_node: child,
                        value: m.value_in(child, loader.scope, 0),
                        conditional: false,
                    });
                }
                position += 1;
            }
        }
    }
    let mut arguments = collapse(bound);
    // A value the callee caps by the CPU count is known only when it is 0 or less.
    for arg in &mut arguments {
        if loader.signature.capped.contains(&arg.param)
            && arg.value.value.as_int().is_none_or(|n| n > 0)
        {
            arg.value = Resolved::unknown();
        }
    }
    loader.arguments = arguments;
    if loader.signature.partial {
        loader.has_unknown_arguments = true;
    }
}

/// The loader's parameters its settings object's fields give (see
/// [`crate::python::catalogue::Settings`]), each as reading the field gives it; `false`
/// when the call passes no object whose fields can be read.
fn bind_settings<'a>(m: &Module<'a>, loader: &mut Loader<'a>) -> bool {
    let Some(settings) = loader.signature.settings.clone() else {
        return false;
    };
    let (Some(args), Some(entry)) = (loader.arguments_node, m.catalogue.entry(&settings.entry))
    else {
        return false;
    };
    let by_keyword = settings.keyword.as_deref().and_then(|k| {
        let value = m.keyword_arg(loader.call, k)?;
        Some((value.parent()?, value))
    });
    let by_position = || {
        let position = settings.position?;
        let mut cursor = args.walk();
        let mut positional = args
            .named_children(&mut cursor)
            .take_while(|a| {
                !matches!(
                    a.kind(),
                    "keyword_argument" | "list_splat" | "dictionary_splat"
                )
            })
            .filter(|a| a.kind() != "comment");
        positional.nth(position).map(|a| (a, a))
    };
    let Some((node, value_node)) = by_keyword.or_else(by_position) else {
        return false;
    };
    let fields: Vec<(&str, Param)> = entry
        .signature
        .keywords
        .iter()
        .map(|(k, p)| (k.as_str(), *p))
        .collect();
    let names: Vec<&str> = fields.iter().map(|(f, _)| *f).collect();
    let Some(values) = configs::parsed_fields(m, value_node, loader.scope, &names) else {
        return false;
    };
    for ((_, param), value) in fields.into_iter().zip(values) {
        loader.arguments.retain(|a| a.param != param);
        loader.arguments.push(Argument {
            param,
            passing: Passing::Field,
            keyword: None,
            anchor: Module::range(value_node),
            node,
            value_node,
            value: value.unwrap_or_else(Resolved::unknown),
            conditional: false,
        });
    }
    true
}

/// How deep `{**a, **{**b}}` is followed.
const MAX_SPLAT_DEPTH: u32 = 4;

/// The arguments `**expr` (the node `splat`) passes, in order (a later key replaces an
/// earlier one, see [`collapse`]): the keys of a dict literal or a name bound to one, a
/// function's own `**kwargs`, a config's mapping, or a dict literal merging any of these
/// (`**{**cfg.dataloader, 'batch_size': 1}`). `outer` is the splat written in the call, where
/// diagnostics go. `None` when any part cannot be read.
fn splat_arguments<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    outer: Node<'a>,
    loader: &Loader<'a>,
    depth: u32,
) -> Option<Vec<Argument<'a>>> {
    if depth > MAX_SPLAT_DEPTH {
        return None;
    }
    // A key written in a dict, passed through `outer`.
    let keyed = |key: UnpackedKey<'a>| {
        Some(Argument {
            param: loader.signature.keyword(&key.name)?,
            passing: Passing::Unpacked {
                splat: Module::range(outer),
            },
            keyword: Some(key.key_range),
            anchor: Module::range(outer),
            node: key.node,
            value_node: key.value,
            value: m.value_in(key.value, m.scope_at(key.value), 0),
            conditional: key.conditional,
        })
    };
    if let Some(keys) = unpacked_keys(m, splat, loader.call, loader.scope) {
        return Some(keys.into_iter().filter_map(keyed).collect());
    }
    let expr = splat.named_child(0)?;
    if expr.kind() != "dictionary" {
        return forwarded_keys(m, splat, loader).or_else(|| config_keys(m, splat, loader));
    }
    // A dict literal with splats of its own: each part in order.
    let mut out = Vec::new();
    let mut cursor = expr.walk();
    for item in expr.named_children(&mut cursor) {
        match item.kind() {
            "pair" => {
                let key = item.child_by_field_name("key")?;
                out.extend(keyed(UnpackedKey {
                    name: m.string_value(key)?,
                    key_range: Module::range(key),
                    node: item,
                    value: item.child_by_field_name("value")?,
                    conditional: false,
                }));
            }
            "dictionary_splat" => out.extend(splat_arguments(m, item, outer, loader, depth + 1)?),
            "comment" => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The arguments `**kwargs` hands on when it is the `**` parameter of the loader's own
/// function and only ever passed on whole: for each of the loader's keywords, what the
/// function's callers pass under it ([`defaults::forwarded`]); none for a keyword no caller
/// passes. `None` when a caller cannot be read, or the function touches `kwargs` otherwise
/// (`kwargs.pop("num_workers")`, `kwargs["shuffle"] = ...`).
fn forwarded_keys<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    loader: &Loader<'a>,
) -> Option<Vec<Argument<'a>>> {
    let name = splat.named_child(0).filter(|n| n.kind() == "identifier")?;
    let binding = m.single_binding(m.text(name), loader.scope)?;
    let pattern = match binding.node.kind() {
        "typed_parameter" => binding.node.named_child(0)?,
        _ => binding.node,
    };
    if binding.kind != BindingKind::Parameter || pattern.kind() != "dictionary_splat_pattern" {
        return None;
    }
    let function = m.function(m.scopes().get(binding.scope)?.function?)?;
    let only_passed_on = m.references(binding.name).into_iter().all(|r| {
        Module::range(r) == binding.name_range
            || !function.node.byte_range().contains(&r.start_byte())
            || r.parent().is_some_and(|p| p.kind() == "dictionary_splat")
    });
    if !only_passed_on {
        return None;
    }
    let keys: Vec<(&str, Resolved)> = loader
        .signature
        .keywords
        .iter()
        .map(|(keyword, param)| {
            let fallback = Resolved {
                value: loader.default(*param),
                provenance: if loader.signature.default_of(*param).1 {
                    Provenance::EntryDefault {
                        entry: loader.entry.clone(),
                    }
                } else {
                    Provenance::SignatureDefault
                },
            };
            (keyword.as_str(), fallback)
        })
        .collect();
    let found = defaults::forwarded(m, binding, &keys, 0)?;
    Some(
        loader
            .signature
            .keywords
            .iter()
            .zip(found)
            .filter_map(|((_, param), forwarded)| match forwarded {
                defaults::Forwarded::Absent => None,
                defaults::Forwarded::Given(value) => Some(unpacked(*param, splat, value)),
            })
            .collect(),
    )
}

/// The arguments `**cfg.dataloader` passes when it unpacks a mapping of a configuration file
/// ([`configs::mapping_entries`]); keys that are not the loader's keywords go to nothing
/// the rules read.
fn config_keys<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    loader: &Loader<'a>,
) -> Option<Vec<Argument<'a>>> {
    let expr = splat.named_child(0)?;
    let entries = configs::mapping_entries(m, expr, loader.scope, 0)?;
    Some(
        entries
            .into_iter()
            .filter_map(|(key, value)| {
                Some(unpacked(loader.signature.keyword(&key)?, splat, value))
            })
            .collect(),
    )
}

/// An argument a `**` splat passes whose keys are not written in the call.
fn unpacked<'a>(param: Param, splat: Node<'a>, value: Resolved) -> Argument<'a> {
    Argument {
        param,
        passing: Passing::Unpacked {
            splat: Module::range(splat),
        },
        keyword: None,
        anchor: Module::range(splat),
        node: splat,
        value_node: splat,
        value,
        conditional: false,
    }
}

/// One parameter bound more than once (a dict key set, then updated): the last binding
/// wins; a conditional one over an unconditional one leaves the value unknown.
fn collapse(bound: Vec<Argument<'_>>) -> Vec<Argument<'_>> {
    let mut out: Vec<Argument> = Vec::with_capacity(bound.len());
    for arg in bound {
        match out.iter().position(|a| a.param == arg.param) {
            Some(i) => {
                let earlier = out.remove(i);
                let mut arg = arg;
                if arg.conditional && !earlier.conditional {
                    if arg.value.value != earlier.value.value {
                        arg.value = Resolved::unknown();
                    }
                    arg.conditional = false;
                }
                out.push(arg);
            }
            None => out.push(arg),
        }
    }
    out
}

pub(crate) struct UnpackedKey<'a> {
    pub(crate) name: String,
    key_range: TextRange,
    node: Node<'a>,
    pub(crate) value: Node<'a>,
    /// Set only on some paths (a `.update(...)` or `d["k"] = v` under a condition).
    pub(crate) conditional: bool,
}

/// The keys a `**expr` passes, when `expr` is a dict literal, `dict(k=v)`, or a name bound
/// once in the call's scope to one of those and changed only by `.update(...)` with literal
/// dicts or `name["key"] = value`. `None` when anything else may touch it.
pub(crate) fn unpacked_keys<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    call: Node<'a>,
    scope: ScopeId,
) -> Option<Vec<UnpackedKey<'a>>> {
    let expr = splat.named_child(0)?;
    let mut keys = Vec::new();
    if expr.kind() == "identifier" {
        dict_name_keys(m, expr, call, scope, &mut keys, 0)?;
    } else {
        literal_dict_keys(m, expr, false, &mut keys)?;
    }
    Some(keys)
}

/// The keys of a dict literal or `dict(k=v)` call.
pub(crate) fn dict_literal_keys<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
) -> Option<Vec<UnpackedKey<'a>>> {
    let mut keys = Vec::new();
    literal_dict_keys(m, expr, false, &mut keys)?;
    Some(keys)
}

fn literal_dict_keys<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
    conditional: bool,
    keys: &mut Vec<UnpackedKey<'a>>,
) -> Option<()> {
    match expr.kind() {
        // `loader_kwargs = ({...} if args.cuda else {})`
        "parenthesized_expression" => {
            let mut cursor = expr.walk();
            let inner = expr.named_children(&mut cursor).find(|n| !n.is_extra())?;
            literal_dict_keys(m, inner, conditional, keys)
        }
        "dictionary" => {
            let mut cursor = expr.walk();
            for pair in expr.named_children(&mut cursor) {
                match pair.kind() {
                    "pair" => {
                        let key = pair.child_by_field_name("key")?;
                        let value = pair.child_by_field_name("value")?;
                        keys.push(UnpackedKey {
                            name: m.string_value(key)?,
                            key_range: Module::range(key),
                            node: pair,
                            value,
                            conditional,
                        });
                    }
                    "comment" => {}
                    _ => return None,
                }
            }
            Some(())
        }
        "call" => {
            let callee = expr.child_by_field_name("function")?;
            if m.qualified_name(callee).as_deref() != Some("builtins.dict") {
                return None;
            }
            keyword_keys(m, expr, conditional, keys)
        }
        // `{'num_workers': args.workers, 'pin_memory': True} if args.cuda else {}`: each
        // branch's keys on its path. A key both branches pass alike is passed on both.
        "conditional_expression" => {
            // Comments and `\` continuations are named children too.
            let mut cursor = expr.walk();
            let parts: Vec<Node> = expr
                .named_children(&mut cursor)
                .filter(|n| !n.is_extra())
                .collect();
            let [body, _, alternative] = parts[..] else {
                return None;
            };
            let mut either = Vec::new();
            literal_dict_keys(m, body, true, &mut either)?;
            let first = either.len();
            literal_dict_keys(m, alternative, true, &mut either)?;
            let (then, otherwise) = either.split_at(first);
            let alike = |a: &UnpackedKey, b: &UnpackedKey| {
                a.name == b.name && m.text(a.value) == m.text(b.value)
            };
            let on_both: Vec<bool> = then
                .iter()
                .map(|k| otherwise.iter().any(|o| alike(k, o)))
                .collect();
            let mut kept: Vec<UnpackedKey> = Vec::with_capacity(either.len());
            for (i, mut key) in either.into_iter().enumerate() {
                if i < first {
                    key.conditional = conditional || !on_both.get(i).copied().unwrap_or(false);
                    kept.push(key);
                } else if !kept.iter().any(|k| !k.conditional && alike(k, &key)) {
                    key.conditional = true;
                    kept.push(key);
                }
            }
            keys.extend(kept);
            Some(())
        }
        _ => None,
    }
}

/// The `key=value` arguments of `dict(...)` or `d.update(...)`; `None` if there are others.
fn keyword_keys<'a>(
    m: &Module<'a>,
    call: Node<'a>,
    conditional: bool,
    keys: &mut Vec<UnpackedKey<'a>>,
) -> Option<()> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let name = arg.child_by_field_name("name")?;
                keys.push(UnpackedKey {
                    name: m.text(name).to_owned(),
                    key_range: Module::range(name),
                    node: arg,
                    value: arg.child_by_field_name("value")?,
                    conditional,
                });
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(())
}

/// A dict bound to a name: its literal, then every `.update(...)` / `name["k"] = v` before
/// `call`, in source order.
fn dict_name_keys<'a>(
    m: &Module<'a>,
    name: Node<'a>,
    call: Node<'a>,
    scope: ScopeId,
    keys: &mut Vec<UnpackedKey<'a>>,
    depth: u32,
) -> Option<()> {
    if depth > 4 {
        return None;
    }
    let text = m.text(name);
    // The name's one binding, or the fresh dict it was last bound to on the way to the call
    // (`tmp = defaults; defaults = {...}`), before which its uses read another object.
    let (binding, fresh_from) = match m.single_binding(text, scope) {
        Some(binding) => (binding, None),
        None => {
            let binding = last_fresh_dict(m, text, scope, call)?;
            (binding, Some(m.statement_of(binding.node).start_byte()))
        }
    };
    // Built in the same scope as the call (not a global mutated elsewhere).
    if binding.scope != scope && depth == 0 {
        return None;
    }
    let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
        return None;
    };
    let conditional = m.is_conditional_relative_to(binding.node, call);
    literal_dict_keys(m, value, conditional, keys)?;
    let scope_node = m.scopes().get(binding.scope)?.node;
    let mut uses = Vec::new();
    collect_identifiers(m, scope_node, text, &mut uses);
    for use_ in uses {
        if Module::range(use_) == binding.name_range
            || fresh_from.is_some_and(|from| use_.end_byte() <= from)
        {
            continue;
        }
        // The same name bound in a function of the scope is another variable.
        let sees = m.lookup(text, m.scope_at(use_)).is_some_and(|ids| {
            ids.iter().any(|id| {
                m.bindings()
                    .get(*id)
                    .is_some_and(|b| b.name_range == binding.name_range)
            })
        });
        if !sees {
            continue;
        }
        let parent = use_.parent()?;
        match parent.kind() {
            // `**name` in a call reads it.
            "dictionary_splat" => {}
            // `name["k"]` as a read, or as the target of `name["k"] = v`.
            "subscript" if parent.child_by_field_name("value") == Some(use_) => {
                let grand = parent.parent()?;
                let is_target = grand.kind() == "assignment"
                    && grand.child_by_field_name("left") == Some(parent);
                if !is_target {
                    if matches!(grand.kind(), "augmented_assignment" | "delete_statement") {
                        return None;
                    }
                    continue;
                }
                if use_.start_byte() > call.start_byte() {
                    continue;
                }
                let key = parent.child_by_field_name("subscript")?;
                keys.push(UnpackedKey {
                    name: m.string_value(key)?,
                    key_range: Module::range(key),
                    node: grand,
                    value: grand.child_by_field_name("right")?,
                    conditional: m.is_conditional_relative_to(grand, call),
                });
            }
            // `name.update(...)`
            "attribute" if parent.child_by_field_name("object") == Some(use_) => {
                let attr = parent.child_by_field_name("attribute").map(|a| m.text(a));
                let update_call = parent.parent().filter(|c| {
                    c.kind() == "call" && c.child_by_field_name("function") == Some(parent)
                });
                match (attr, update_call) {
                    (Some("update"), Some(update)) => {
                        // After the call, or under a condition false by default (`if tmp is
                        // not None:` of a parameter no caller gives).
                        if update.start_byte() > call.start_byte()
                            || argparse::branch_runs(m, update, None, depth) == Some(false)
                        {
                            continue;
                        }
                        let conditional = m.is_conditional_relative_to(update, call);
                        let args = update.child_by_field_name("arguments")?;
                        let arg = match args.named_child_count() {
                            1 => args.named_child(0)?,
                            _ => {
                                keyword_keys(m, update, conditional, keys)?;
                                continue;
                            }
                        };
                        let before = keys.len();
                        match arg.kind() {
                            "keyword_argument" => keyword_keys(m, update, conditional, keys)?,
                            "identifier" => {
                                dict_name_keys(m, arg, update, m.scope_at(arg), keys, depth + 1)?
                            }
                            _ => literal_dict_keys(m, arg, conditional, keys)?,
                        }
                        for key in keys.iter_mut().skip(before) {
                            key.conditional |= conditional;
                        }
                    }
                    // `.get`, `.items`, `.keys`, `.copy`: reads.
                    (Some("get" | "items" | "keys" | "values" | "copy"), _) => {}
                    _ => return None,
                }
            }
            // `other.update(name)` reads it.
            "argument_list"
                if parent.named_child_count() == 1
                    && parent.parent().is_some_and(|c| {
                        c.child_by_field_name("function")
                            .and_then(|f| f.child_by_field_name("attribute"))
                            .is_some_and(|a| m.text(a) == "update")
                    }) => {}
            // Anything else (passed to a function, rebound through an alias) may change it.
            _ => return None,
        }
    }
    Some(())
}

/// The last binding of `name` in `scope` before `call` when it binds a fresh dict (a literal
/// or `dict(...)`) on the way to the call, in the call's block or one around it; none may
/// follow the call (around a loop it would reach the call).
fn last_fresh_dict<'m, 'a>(
    m: &'m Module<'a>,
    name: &str,
    scope: ScopeId,
    call: Node<'a>,
) -> Option<&'m crate::python::model::Binding<'a>> {
    let bindings: Vec<_> = m
        .lookup(name, scope)?
        .iter()
        .filter_map(|id| m.bindings().get(*id))
        .filter(|b| b.scope == scope)
        .collect();
    // A binding after the call may reach it around a loop.
    if bindings
        .iter()
        .any(|b| b.node.start_byte() > call.start_byte())
    {
        return None;
    }
    let last = bindings.into_iter().max_by_key(|b| b.node.start_byte())?;
    let fresh = last.value.is_some_and(|v| {
        v.kind() == "dictionary"
            || v.kind() == "call"
                && v.child_by_field_name("function")
                    .and_then(|f| m.qualified_name(f))
                    .as_deref()
                    == Some("builtins.dict")
    });
    (last.kind == BindingKind::Assign && fresh && !m.is_conditional_relative_to(last.node, call))
        .then_some(last)
}

/// Every identifier named `name` under `node`.
fn collect_identifiers<'a>(m: &Module<'a>, node: Node<'a>, name: &str, out: &mut Vec<Node<'a>>) {
    let mut cursor = node.walk();
    let mut visited_children = false;
    loop {
        let current = cursor.node();
        if !visited_children {
            if current.kind() == "identifier" && m.text(current) == name {
                out.push(current);
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            visited_children = false;
            continue;
        }
        if !cursor.goto_parent() || cursor.node().id() == node.id() {
            break;
        }
        visited_children = true;
    }
}

/// The dataset argument's origin: a constructor call, a name bound once to one, or a
/// `self.x` assigned once in the enclosing class's `__init__`.
fn dataset_of<'a>(m: &Module<'a>, expr: Node<'a>, scope: ScopeId) -> Dataset<'a> {
    let constructor = constructor_of(m, expr, scope, 0);
    let class = constructor
        .and_then(|call| {
            let callee = call.child_by_field_name("function")?;
            let call_scope = m.scope_at(call);
            if callee.kind() == "identifier"
                && let Some(binding) = m.single_binding(m.text(callee), call_scope)
                && let BindingKind::Class(id) = binding.kind
            {
                return Some(DatasetClass::Local(id));
            }
            m.qualified_in(callee, call_scope, 0)
                .map(DatasetClass::Imported)
        })
        .unwrap_or(DatasetClass::Unknown);
    Dataset {
        expr,
        constructor,
        class,
    }
}

fn constructor_of<'a>(
    m: &Module<'a>,
    expr: Node<'a>,
    scope: ScopeId,
    depth: u32,
) -> Option<Node<'a>> {
    if depth > 6 {
        return None;
    }
    match expr.kind() {
        "call" => Some(expr),
        "identifier" => {
            let binding = m.single_binding(m.text(expr), scope)?;
            match (&binding.kind, binding.value) {
                (BindingKind::Assign, Some(value)) => {
                    constructor_of(m, value, binding.scope, depth + 1)
                }
                _ => None,
            }
        }
        "attribute" => {
            let object = expr.child_by_field_name("object")?;
            if object.kind() != "identifier" || m.text(object) != "self" {
                return None;
            }
            let attribute = m.text(expr.child_by_field_name("attribute")?);
            let class = m.function(m.scopes().get(scope)?.function?)?.class?;
            let init = m.method_id(class, "__init__")?;
            let mut found = m.attribute_assignments().iter().filter(|a| {
                a.object == Some("self")
                    && a.attribute == attribute
                    && a.function.and_then(|f| m.function(f)).and_then(|f| f.class) == Some(class)
            });
            let first = found.next()?;
            if found.next().is_some() || first.function != Some(init) {
                return None;
            }
            constructor_of(m, first.value?, first.scope, depth + 1)
        }
        _ => None,
    }
}
