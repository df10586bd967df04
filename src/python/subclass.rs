//! Loaders the project defines: subclasses of a loader class (`class InfiniteDataLoader(
//! DataLoader)`, through any number of levels, in this file or another file of the project)
//! and names bound to a loader class (`loader = DataLoader if w else InfiniteDataLoader`).
//!
//! A subclass without `__init__` takes its base's arguments. One with `__init__` is read
//! through its `super().__init__(...)` call: a parameter passed on by name keeps the caller's
//! value (with the `__init__`'s default), a literal is fixed, `**kwargs` passes the base's
//! other keywords, and anything else is unknown.

use std::collections::HashMap;
use std::path::Path;

use tree_sitter::Node;

use crate::python::catalogue::{Catalogue, Settings, Signature, parse_literal};
use crate::python::kinds::{Kind, kind};
use crate::python::labels::{EntryName, Place};
use crate::python::loaders;
use crate::python::loaders::Param;
use crate::python::model::{
    BindingId, BindingKind, CallSite, ClassId, FunctionId, Module, ScopeId,
};
use crate::python::values::Value;

const MAX_DEPTH: u32 = 8;

/// What a class's `__init__` passes to its base's `__init__`, kept as text so file summaries
/// can hold it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitSummary {
    /// The parameters after `self`, with the default's literal text (`None`: required;
    /// `Some("?")`: not a literal).
    pub params: Vec<(String, Option<String>)>,
    /// The `**kwargs` parameter.
    pub kwargs: Option<String>,
    /// The `*args` parameter and how many of `params` come before it (those after it are
    /// keyword-only).
    pub args: Option<(String, usize)>,
    /// `None` when no `super().__init__(...)` call was found.
    pub call: Option<SuperCall>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuperCall {
    pub positional: Vec<Forward>,
    pub keywords: Vec<(String, Forward)>,
    /// Passes the `__init__`'s own `**kwargs` on.
    pub splat_kwargs: bool,
    /// Passes the `__init__`'s own `*args` on, after this many positional arguments and before
    /// none: the constructor's extra positional arguments are the base's from there.
    pub splat_args: Option<usize>,
    /// A `*args` or another `**dict`: what it passes is unknown.
    pub unknown_splat: bool,
}

/// One argument of the `super().__init__(...)` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forward {
    /// A parameter of `__init__`, passed on unchanged.
    Param(String),
    /// A literal (Python spelling).
    Literal(String),
    Unknown,
}

/// The project class a summary describes: its bases as qualified names (through its file's
/// imports; a class of the same file is `.Name` relative to nothing, spelled as its name) and
/// its `__init__`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassShape {
    pub bases: Vec<String>,
    pub init: Option<InitSummary>,
    /// The names of the methods its body defines.
    pub methods: Vec<String>,
}

/// The shape of a class of this module (for the project index).
pub fn class_shape(m: &Module, class: ClassId) -> ClassShape {
    let bases = m
        .classes()
        .get(class)
        .map(|c| {
            c.bases
                .iter()
                .filter_map(|b| match m.qualified_in(*b, c.parent_scope, 0) {
                    Some(q) => Some(q),
                    // A class of the same file: found again by name.
                    None if kind(*b) == Kind::Identifier => Some(format!("#{}", m.text(*b))),
                    None => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let methods = m
        .class(class)
        .map(|c| {
            c.methods
                .iter()
                .filter_map(|f| m.function(*f))
                .map(|f| f.name.to_owned())
                .collect()
        })
        .unwrap_or_default();
    ClassShape {
        bases,
        methods,
        init: m
            .method_id(class, "__init__")
            .map(|_| init_summary(m, class)),
    }
}

/// The one base of `class` (keyword arguments such as `metaclass=` and `object` aside);
/// `None` with none or several.
pub fn one_base<'a>(m: &Module<'a>, class: ClassId) -> Option<Node<'a>> {
    let def = m.class(class)?;
    let mut bases = def
        .bases
        .iter()
        .copied()
        .filter(|b| kind(*b) != Kind::KeywordArgument && m.text(*b) != "object");
    match (bases.next(), bases.next()) {
        (Some(base), None) => Some(base),
        _ => None,
    }
}

/// The calls in the constructor `init` of a base's `__init__`, each with whether it binds
/// `self` itself: `super().__init__(...)` and `super(Cls, self).__init__(...)` (`true`), or
/// `Base.__init__(self, ...)` for a `Base` that `is_base` accepts.
pub fn base_init_calls<'m, 'a>(
    m: &'m Module<'a>,
    init: FunctionId,
    is_base: impl Fn(&str) -> bool,
) -> impl Iterator<Item = (&'m CallSite<'a>, bool)> {
    m.calls().iter().filter_map(move |c| {
        if c.function != Some(init) || c.method != Some("__init__") {
            return None;
        }
        let object = c.callee.child_by_field_name("object")?;
        if kind(object) == Kind::Call {
            let function = object.child_by_field_name("function")?;
            (m.text(function) == "super").then_some((c, true))
        } else {
            is_base(m.text(object)).then_some((c, false))
        }
    })
}

/// Reads a class's `__init__` and its call of the base's `__init__`.
pub fn init_summary(m: &Module, class: ClassId) -> InitSummary {
    let mut summary = InitSummary::default();
    let Some(init_id) = m.method_id(class, "__init__") else {
        return summary;
    };
    let Some(init) = m.function(init_id) else {
        return summary;
    };
    let literal = |node: Node| {
        let v = m.value_in(node, init.parent_scope, 0).value;
        match v {
            Value::Int(_) | Value::Float(_) | Value::Str(_) | Value::Bool(_) | Value::None => {
                v.to_string()
            }
            _ => "?".to_owned(),
        }
    };
    if let Some(params) = init.node.child_by_field_name("parameters") {
        let mut cursor = params.walk();
        for (i, p) in params.named_children(&mut cursor).enumerate() {
            let name_of = |n: Node| {
                n.child_by_field_name("name")
                    .or_else(|| n.named_child(0))
                    .map(|x| m.text(x).to_owned())
            };
            match kind(p) {
                Kind::Identifier if i > 0 => summary.params.push((m.text(p).to_owned(), None)),
                Kind::TypedParameter if i > 0 => {
                    if let Some(name) = name_of(p) {
                        summary.params.push((name, None));
                    }
                }
                Kind::DefaultParameter | Kind::TypedDefaultParameter if i > 0 => {
                    if let (Some(name), Some(value)) = (name_of(p), p.child_by_field_name("value"))
                    {
                        summary.params.push((name, Some(literal(value))));
                    }
                }
                Kind::DictionarySplatPattern => {
                    summary.kwargs = p.named_child(0).map(|n| m.text(n).to_owned());
                }
                Kind::ListSplatPattern => {
                    summary.args = p
                        .named_child(0)
                        .map(|n| (m.text(n).to_owned(), summary.params.len()));
                }
                _ => {}
            }
        }
    }
    let super_call = base_init_calls(m, init_id, |_| true)
        .next()
        .map(|(call, _)| call);
    let Some(call) = super_call else {
        return summary;
    };
    let explicit_self = call
        .callee
        .child_by_field_name("object")
        .is_some_and(|o| kind(o) != Kind::Call);
    let param_names: Vec<&str> = summary.params.iter().map(|(n, _)| n.as_str()).collect();
    let forward = |value: Node| -> Forward {
        if kind(value) == Kind::Identifier {
            let name = m.text(value);
            // Passed on unchanged: the name is the parameter and is bound nowhere else.
            if param_names.contains(&name)
                && m.single_binding(name, init.scope)
                    .is_some_and(|b| b.kind == BindingKind::Parameter)
            {
                return Forward::Param(name.to_owned());
            }
        }
        match literal(value).as_str() {
            "?" => Forward::Unknown,
            text => Forward::Literal(text.to_owned()),
        }
    };
    let mut sc = SuperCall::default();
    if let Some(args) = call.node.child_by_field_name("arguments") {
        let mut cursor = args.walk();
        let mut skipped_self = !explicit_self;
        for arg in args.named_children(&mut cursor) {
            match kind(arg) {
                Kind::Comment => {}
                Kind::KeywordArgument => {
                    if let (Some(name), Some(value)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        sc.keywords.push((m.text(name).to_owned(), forward(value)));
                    }
                }
                Kind::DictionarySplat => {
                    let inner = arg.named_child(0).map(|n| m.text(n));
                    if inner.is_some() && inner == summary.kwargs.as_deref() {
                        sc.splat_kwargs = true;
                    } else if let Some(keys) = splat_dict_keys(m, arg, call, init_id) {
                        for (key, value) in keys {
                            sc.keywords.push((key, forward(value)));
                        }
                    } else {
                        sc.unknown_splat = true;
                    }
                }
                Kind::ListSplat => {
                    let inner = arg.named_child(0).map(|n| m.text(n));
                    let own = summary.args.as_ref().map(|(name, _)| name.as_str());
                    if inner.is_some() && inner == own && sc.splat_args.is_none() && skipped_self {
                        sc.splat_args = Some(sc.positional.len());
                    } else {
                        sc.unknown_splat = true;
                    }
                }
                _ if !skipped_self => skipped_self = true,
                // A positional argument after the `*args`: where it lands depends on how
                // many the caller passed.
                _ if sc.splat_args.is_some() => sc.unknown_splat = true,
                _ => sc.positional.push(forward(arg)),
            }
        }
    }
    summary.call = Some(sc);
    summary
}

/// The keys and values of a dict `__init__` builds and unpacks into its base's `__init__`:
/// a local name (`kwargs = dict(...)`, see [`loaders::unpacked_keys`]) or an attribute of
/// `self` assigned a dict literal once, unconditionally, in `__init__` and named nowhere else
/// in it (`self.init_kwargs = {...}` then `super().__init__(**self.init_kwargs)`).
fn splat_dict_keys<'a>(
    m: &Module<'a>,
    splat: Node<'a>,
    call: &crate::python::model::CallSite<'a>,
    init: FunctionId,
) -> Option<Vec<(String, Node<'a>)>> {
    let inner = splat.named_child(0)?;
    let keys = match kind(inner) {
        Kind::Identifier => loaders::unpacked_keys(m, splat, call.node, call.scope)?,
        Kind::Attribute => {
            let object = inner.child_by_field_name("object")?;
            let attribute = m.text(inner.child_by_field_name("attribute")?);
            if m.text(object) != "self" {
                return None;
            }
            let mut writes = m.attribute_assignments().iter().filter(|a| {
                a.function == Some(init) && a.object == Some("self") && a.attribute == attribute
            });
            let (Some(write), None) = (writes.next(), writes.next()) else {
                return None;
            };
            let statement = m.statement_of(write.target);
            let body = m.function(init)?.body?;
            if statement.parent() != Some(body) || statement.end_byte() > call.node.start_byte() {
                return None;
            }
            // Named only where it is written and where it is unpacked: no `self.kw[k] = v`,
            // `.update(...)` or hand-off that could change it.
            let spelled = format!("self.{attribute}");
            if m.text(body).matches(spelled.as_str()).count() != 2 {
                return None;
            }
            loaders::dict_literal_keys(m, write.value?)?
        }
        _ => return None,
    };
    keys.into_iter()
        .map(|k| (!k.conditional).then_some((k.name, k.value)))
        .collect()
}

/// The signature of a subclass whose `__init__` is `init`, given its base's.
pub fn compose(base: &Signature, init: &InitSummary) -> Signature {
    let Some(call) = &init.call else {
        // No base call we can read: nothing is known but that it is a loader.
        return Signature {
            positional: Vec::new(),
            keywords: Vec::new(),
            defaults: Param::ALL.iter().map(|p| (*p, Value::Unknown)).collect(),
            partial: true,
            settings: base.settings.as_ref().map(|s| Settings {
                keyword: None,
                position: None,
                ..s.clone()
            }),
            overridden: base.overridden.clone(),
            starts: base.starts.clone(),
            also: base.also.clone(),
            ..Signature::default()
        };
    };
    // Parameters after `*args` are keyword-only.
    let positional_params = init.args.as_ref().map_or(init.params.len(), |(_, n)| *n);
    let mut out = Signature {
        positional: vec![None; positional_params],
        keywords: Vec::new(),
        defaults: Vec::new(),
        capped: base.capped.clone(),
        opaque: base.opaque.clone(),
        partial: base.partial || call.unknown_splat,
        iterates: base.iterates,
        settings: base
            .settings
            .as_ref()
            .map(|s| handed_settings(s, init, call, positional_params)),
        overridden: base.overridden.clone(),
        starts: base.starts.clone(),
        also: base.also.clone(),
    };
    let mut set: Vec<(Param, &Forward)> = Vec::new();
    for (i, f) in call.positional.iter().enumerate() {
        if let Some(p) = base.positional(i) {
            set.push((p, f));
        }
    }
    for (k, f) in &call.keywords {
        if let Some(p) = base.keyword(k) {
            set.retain(|(q, _)| *q != p);
            set.push((p, f));
        }
    }
    for p in Param::ALL {
        match set.iter().find(|(q, _)| *q == p).map(|(_, f)| *f) {
            Some(Forward::Param(name)) => {
                let index = init.params.iter().position(|(n, _)| n == name);
                if let Some(slot) = index
                    .filter(|i| *i < positional_params)
                    .and_then(|i| out.positional.get_mut(i))
                {
                    *slot = Some(p);
                }
                out.keywords.push((name.clone(), p));
                let default = index
                    .and_then(|i| init.params.get(i))
                    .and_then(|(_, d)| d.as_deref())
                    .and_then(parse_literal)
                    .unwrap_or(Value::Unknown);
                out.defaults.push((p, default));
            }
            Some(Forward::Literal(text)) => out
                .defaults
                .push((p, parse_literal(text).unwrap_or(Value::Unknown))),
            Some(Forward::Unknown) => out.defaults.push((p, Value::Unknown)),
            None => {
                // Reached through the constructor's `*args` (`super().__init__(*args,
                // **kwargs)`): at the base's position, shifted by what comes before.
                if let Some(k) = call.splat_args
                    && let Some(i) = base.positional.iter().position(|q| *q == Some(p))
                    && i >= k
                {
                    let slot = positional_params + (i - k);
                    if out.positional.len() <= slot {
                        out.positional.resize(slot + 1, None);
                    }
                    out.positional[slot] = Some(p);
                }
                if call.splat_kwargs
                    && let Some(k) = base.keyword_for(p)
                    && !init.params.iter().any(|(n, _)| n == k)
                {
                    out.keywords.push((k.to_owned(), p));
                }
                let (value, own) = base.default_of(p);
                if own {
                    out.defaults.push((p, value));
                }
            }
        }
    }
    out
}

/// Where a subclass's constructor takes the base's settings argument (see [`Settings`]): the
/// parameter it hands on in its place, or the same keyword and position through its
/// `**kwargs` and `*args`; neither when it passes something else.
fn handed_settings(
    base: &Settings,
    init: &InitSummary,
    call: &SuperCall,
    positional_params: usize,
) -> Settings {
    let forwarded = base
        .keyword
        .as_ref()
        .and_then(|k| call.keywords.iter().find(|(name, _)| name == k))
        .map(|(_, f)| f)
        .or_else(|| base.position.and_then(|p| call.positional.get(p)));
    if let Some(forward) = forwarded {
        let Forward::Param(name) = forward else {
            return Settings {
                keyword: None,
                position: None,
                ..base.clone()
            };
        };
        return Settings {
            keyword: Some(name.clone()),
            position: init
                .params
                .iter()
                .position(|(n, _)| n == name)
                .filter(|i| *i < positional_params),
            entry: base.entry.clone(),
        };
    }
    let keyword = base
        .keyword
        .clone()
        .filter(|k| call.splat_kwargs && !init.params.iter().any(|(n, _)| n == k));
    let position = base.position.and_then(|p| match call.splat_args {
        Some(k) if p >= k => Some(positional_params + (p - k)),
        _ => None,
    });
    Settings {
        keyword,
        position,
        entry: base.entry.clone(),
    }
}

/// Which callees of a file construct a loader: a project class that derives from a loader
/// class, or a name bound to one. One per analysis: the names the file's calls qualify to
/// (`os.path.join`, `torch.load`, the bases of its dataset classes) repeat, and finding that
/// one is no loader asks the catalogue and the project index each time.
pub struct CalleeLoaders<'m, 'a> {
    m: &'m Module<'a>,
    catalogue: &'m Catalogue,
    /// [`qualified_loader`]'s answers from this file, by name and depth.
    from_here: HashMap<(String, u32), Option<(EntryName, Signature)>>,
}

impl<'m, 'a> CalleeLoaders<'m, 'a> {
    pub fn new(m: &'m Module<'a>, catalogue: &'m Catalogue) -> Self {
        Self {
            m,
            catalogue,
            from_here: HashMap::new(),
        }
    }

    /// The loader the callee of a call constructs: its description and signature.
    /// `qualified` is the callee's qualified name, as the model already has it.
    pub fn of_callee(
        &mut self,
        callee: Node,
        qualified: Option<&str>,
        scope: ScopeId,
    ) -> Option<(EntryName, Signature)> {
        match (kind(callee), qualified) {
            (Kind::Attribute, Some(qualified)) => self.qualified(qualified, 1),
            (Kind::Attribute, None) => None,
            _ => self.expr(callee, scope, 0),
        }
    }

    fn qualified(&mut self, qualified: &str, depth: u32) -> Option<(EntryName, Signature)> {
        let key = (qualified.to_owned(), depth);
        if let Some(known) = self.from_here.get(&key) {
            return known.clone();
        }
        let found = qualified_loader(self.catalogue, self.m.index, self.m.path, qualified, depth);
        self.from_here.insert(key, found.clone());
        found
    }

    fn expr(&mut self, expr: Node, scope: ScopeId, depth: u32) -> Option<(EntryName, Signature)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let m = self.m;
        match kind(expr) {
            Kind::Identifier => {
                let ids = m.lookup(m.text(expr), scope)?;
                if ids.len() > 1 {
                    return self.assignments(ids, depth);
                }
                let binding = m.bindings().get(*ids.first()?)?;
                match (&binding.kind, binding.value) {
                    (BindingKind::Class(id), _) => self.class(*id, depth + 1),
                    (BindingKind::Import { qualified }, _) => self.qualified(qualified, depth + 1),
                    (BindingKind::Assign, Some(value)) => {
                        self.value(value, binding.scope, depth + 1)
                    }
                    _ => None,
                }
            }
            Kind::Attribute => {
                let qualified = m.qualified_in(expr, scope, 0)?;
                self.qualified(&qualified, depth + 1)
            }
            _ => None,
        }
    }

    /// A name assigned several loader classes (`cls = DataLoader`, then under a condition
    /// `cls = MultiEpochsDataLoader`): either, when every binding is such an assignment.
    fn assignments(&mut self, ids: &[BindingId], depth: u32) -> Option<(EntryName, Signature)> {
        let m = self.m;
        let mut found: Option<(EntryName, Signature)> = None;
        for id in ids {
            let binding = m.bindings().get(*id)?;
            let (BindingKind::Assign, Some(value)) = (&binding.kind, binding.value) else {
                return None;
            };
            let (name, signature) = self.value(value, binding.scope, depth + 1)?;
            found = Some(match found {
                None => (name, signature),
                Some((before, sig)) if before == name => (before, sig),
                Some((before, sig)) => (
                    EntryName::Either(Box::new(before), Box::new(name)),
                    sig.merge(&signature),
                ),
            });
        }
        found
    }

    /// `A if c else B` (both loaders), or a name.
    fn value(&mut self, value: Node, scope: ScopeId, depth: u32) -> Option<(EntryName, Signature)> {
        match kind(value) {
            Kind::ConditionalExpression => {
                let a = value.named_child(0)?;
                let b = value.named_child(2)?;
                let (name_a, sig_a) = self.expr(a, scope, depth)?;
                let (name_b, sig_b) = self.expr(b, scope, depth)?;
                Some((
                    EntryName::Either(Box::new(name_a), Box::new(name_b)),
                    sig_a.merge(&sig_b),
                ))
            }
            Kind::Identifier | Kind::Attribute => self.expr(value, scope, depth),
            _ => None,
        }
    }

    fn class(&mut self, class: ClassId, depth: u32) -> Option<(EntryName, Signature)> {
        let m = self.m;
        let def = m.class(class)?;
        let (base_name, base) = def
            .bases
            .iter()
            .find_map(|b| self.expr(*b, def.parent_scope, depth + 1))?;
        // A subclass that builds the loaders itself (a Trainer's own
        // `get_train_dataloader`) is no loader of the base's kind.
        if base
            .overridden
            .iter()
            .any(|name| m.method_id(class, name).is_some())
        {
            return None;
        }
        let line = m.line(def.node.start_byte());
        let signature = match m.method_id(class, "__init__") {
            Some(_) => compose(&base, &init_summary(m, class)),
            None => base,
        };
        let entry = EntryName::Class {
            name: def.name.to_string(),
            place: Place::Line(line),
            base: Box::new(base_name),
        };
        Some((entry, signature))
    }
}

/// Whether the qualified name (as imported into `from_file`) is a loader class: of the
/// catalogue, or a project class of another file with a loader among its bases.
pub(crate) fn is_loader_class(
    catalogue: &Catalogue,
    index: &crate::python::index::ProjectIndex,
    from_file: &Path,
    qualified: &str,
) -> bool {
    qualified_loader(catalogue, index, from_file, qualified, 1).is_some()
}

/// A qualified name: a catalogue class, or a project class in another file.
fn qualified_loader(
    catalogue: &Catalogue,
    index: &crate::python::index::ProjectIndex,
    from_file: &Path,
    qualified: &str,
    depth: u32,
) -> Option<(EntryName, Signature)> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(entry) = catalogue.class(qualified) {
        return Some((
            EntryName::Catalogue(entry.name.clone()),
            entry.signature.clone(),
        ));
    }
    let (file, shape) = index.loader_class_shape(from_file, qualified, catalogue)?;
    let (base_name, base) = shape.bases.iter().find_map(|b| {
        let base = base_name_from(&file, b)?;
        qualified_loader(catalogue, index, &file, &base, depth + 1)
    })?;
    if base
        .overridden
        .iter()
        .any(|name| shape.methods.contains(name))
    {
        return None;
    }
    let signature = match &shape.init {
        Some(init) => compose(&base, init),
        None => base,
    };
    let name = qualified.rsplit('.').next().unwrap_or(qualified);
    let entry = EntryName::Class {
        name: name.to_owned(),
        place: Place::File(
            file.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        base: Box::new(base_name),
    };
    Some((entry, signature))
}

/// A base of a [`ClassShape`] of `file` as a name that file imports: a class of the same
/// file (`#Base`) is `.train.Base` for `pkg/train.py`, relative to nothing.
pub(crate) fn base_name_from(file: &Path, base: &str) -> Option<String> {
    Some(match base.strip_prefix('#') {
        Some(local) => format!(".{}.{local}", file.file_stem()?.to_string_lossy()),
        None => base.to_owned(),
    })
}

/// How many bases up a class's ancestry is followed in this module.
const MAX_ANCESTRY: u32 = 16;

/// Whether an instance of `a` may be an instance of `b` or the other way round: the same
/// class, or one derives from the other. A base defined in another file of the project may
/// lead anywhere, so it counts as related; a base from outside the project (`object`,
/// `nn.Module`) does not.
pub(crate) fn may_share_instances(m: &Module, a: ClassId, b: ClassId) -> bool {
    a == b || derives_from(m, a, b, 0) || derives_from(m, b, a, 0)
}

/// Whether `class` may derive from `ancestor` (see [`may_share_instances`]).
fn derives_from(m: &Module, class: ClassId, ancestor: ClassId, depth: u32) -> bool {
    let Some(def) = m.class(class) else {
        return true;
    };
    if depth > MAX_ANCESTRY {
        return true;
    }
    def.bases
        .iter()
        .filter(|base| base.kind() != "keyword_argument")
        .any(|base| {
            if base.kind() == "identifier"
                && let Some(binding) = m.single_binding(m.text(*base), def.parent_scope)
                && let BindingKind::Class(parent) = binding.kind
            {
                return parent == ancestor || derives_from(m, parent, ancestor, depth + 1);
            }
            match m.qualified_in(*base, def.parent_scope, 0) {
                Some(q) => m.index.definition(m.path, &q).is_some(),
                None => true,
            }
        })
}
