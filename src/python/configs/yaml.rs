//! YAML configuration files as OmegaConf reads them (PyYAML's YAML 1.1 scalars), each value
//! with the file and line it is written on. Files are read when a loader needs one of their
//! values and kept, keyed by path and modification time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::python::values::{ConfigGap, Value, parse_float, parse_int};

/// One node of a configuration tree.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// Entries in file order (a later duplicate key wins, as in PyYAML).
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
    Scalar {
        /// The text as written (keys, group names); for a default set in Python code, the
        /// assigned name (`_C.TRAIN.workers`).
        text: String,
        leaf: Leaf,
        file: Arc<Path>,
        line: u32,
    },
    /// A part of the configuration the analysis cannot read, and why.
    Gap(ConfigGap),
}

/// What a scalar is to OmegaConf.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Leaf {
    Value(Value),
    /// `${...}` anywhere in the text.
    Interpolation,
    /// `???`
    Mandatory,
    /// An alias to an anchor that is not there, a tagged value.
    Unreadable,
    /// A value already read, with where it comes from: an entry of a yacs config as the
    /// file that hands the config to a function of another file leaves it.
    Resolved(Box<crate::python::values::Resolved>),
}

impl Leaf {
    /// The value a leaf holds, when it holds one.
    fn value(&self) -> Option<&Value> {
        match self {
            Leaf::Value(value) => Some(value),
            Leaf::Resolved(resolved) => Some(&resolved.value),
            _ => None,
        }
    }
}

impl Node {
    /// The entry `key` of a mapping (the last one written).
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// How many nodes this tree holds, if no more than `limit` (counting stops there).
    fn size_within(&self, limit: usize) -> Option<usize> {
        let mut count = 0usize;
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            count += 1;
            if count > limit {
                return None;
            }
            match node {
                Node::Map(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
                Node::Seq(items) => stack.extend(items.iter()),
                Node::Scalar { .. } | Node::Gap(_) => {}
            }
        }
        Some(count)
    }

    /// OmegaConf's merge: mappings merge key by key, anything else replaces.
    pub(crate) fn merge(&mut self, other: Node) {
        match (self, other) {
            (Node::Map(into), Node::Map(from)) => {
                for (key, value) in from {
                    match into.iter_mut().rev().find(|(k, _)| *k == key) {
                        Some((_, existing)) => existing.merge(value),
                        None => into.push((key, value)),
                    }
                }
            }
            (this, other) => *this = other,
        }
    }

    /// What this tree and `other` (another file for the same run) agree on: a mapping keeps
    /// each key, a scalar its value (as this tree writes it) when both give the same; anything
    /// else becomes a [`ConfigGap::Disagree`] of `files` files, at `key` (dotted).
    pub(crate) fn agreed(&self, other: &Node, key: &str, files: usize) -> Node {
        let gap = || {
            Node::Gap(ConfigGap::Disagree {
                key: key.to_owned(),
                files,
            })
        };
        match (self, other) {
            (Node::Map(mine), Node::Map(theirs)) => {
                let mut keys: Vec<&str> = Vec::new();
                for (k, _) in mine.iter().chain(theirs) {
                    if !keys.contains(&k.as_str()) {
                        keys.push(k);
                    }
                }
                let entries = keys
                    .into_iter()
                    .map(|k| {
                        let at = match key {
                            "" => k.to_owned(),
                            _ => format!("{key}.{k}"),
                        };
                        let value = match (self.get(k), other.get(k)) {
                            (Some(a), Some(b)) => a.agreed(b, &at, files),
                            _ => Node::Gap(ConfigGap::Disagree { key: at, files }),
                        };
                        (k.to_owned(), value)
                    })
                    .collect();
                Node::Map(entries)
            }
            (Node::Seq(mine), Node::Seq(theirs)) if mine.len() == theirs.len() => Node::Seq(
                mine.iter()
                    .zip(theirs)
                    .map(|(a, b)| a.agreed(b, key, files))
                    .collect(),
            ),
            // An interpolation agrees only when written the same (`${data.workers}`).
            (
                Node::Scalar {
                    leaf: a, text: ta, ..
                },
                Node::Scalar {
                    leaf: b, text: tb, ..
                },
            ) if a == b && (matches!(a, Leaf::Value(_)) || ta == tb) => self.clone(),
            // The same value from different places (a command's override, another's file).
            (Node::Scalar { leaf: a, .. }, Node::Scalar { leaf: b, .. })
                if a.value().is_some_and(Value::is_known) && a.value() == b.value() =>
            {
                self.clone()
            }
            _ => gap(),
        }
    }

    /// This node placed under a dotted package (`db.engine`): nested mappings.
    pub(crate) fn under(self, package: &[&str]) -> Node {
        package
            .iter()
            .rev()
            .fold(self, |node, key| Node::Map(vec![((*key).to_owned(), node)]))
    }
}

/// Why a file gives no tree.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LoadError {
    NoFile,
    Unreadable { line: u32 },
}

type Cache = HashMap<PathBuf, (Option<SystemTime>, Arc<Result<Node, LoadError>>)>;

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The first document of the YAML file at `path` (memoised until the file changes).
pub(crate) fn load(path: &Path) -> Arc<Result<Node, LoadError>> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let Ok(cache) = CACHE.lock()
        && let Some((when, tree)) = cache.get(path)
        && *when == modified
        && modified.is_some()
    {
        return tree.clone();
    }
    let tree = Arc::new(match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, path),
        Err(_) => Err(LoadError::NoFile),
    });
    if let Ok(mut cache) = CACHE.lock() {
        cache.insert(path.to_path_buf(), (modified, tree.clone()));
    }
    tree
}

/// Parses YAML text; an empty document is an empty mapping, as OmegaConf loads it.
pub(crate) fn parse(text: &str, file: &Path) -> Result<Node, LoadError> {
    let mut builder = Builder {
        file: Arc::from(file),
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        unreadable_at: None,
        nodes: 0,
    };
    // The events are pulled one by one (the parser's own `load` recurses once per level of
    // nesting), up to the end of the first document.
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| LoadError::Unreadable {
            line: u32::try_from(e.marker().line()).unwrap_or(u32::MAX),
        })?;
        let done = matches!(event, Event::DocumentEnd | Event::StreamEnd);
        builder.on_event(event, mark);
        if done || builder.unreadable_at.is_some() {
            break;
        }
    }
    if let Some(line) = builder.unreadable_at {
        return Err(LoadError::Unreadable { line });
    }
    Ok(match builder.root {
        None
        | Some(Node::Scalar {
            leaf: Leaf::Value(Value::None),
            ..
        }) => Node::Map(Vec::new()),
        Some(root) => root,
    })
}

enum Frame {
    Map {
        entries: Vec<(String, Node)>,
        key: Option<String>,
        anchor: usize,
    },
    Seq {
        items: Vec<Node>,
        anchor: usize,
    },
}

/// Mappings and sequences nested deeper than this make the file unreadable: real configs
/// nest a few levels, and the trees are walked (cloned, merged, dropped) recursively.
const MAX_NESTING: usize = 64;

/// A file whose tree would hold more nodes than this, aliases expanded, is unreadable: real
/// configs hold a few thousand, and aliases of aliases grow a tree exponentially ("billion
/// laughs").
const MAX_NODES: usize = 100_000;

struct Builder {
    file: Arc<Path>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    /// The line where nesting went past [`MAX_NESTING`] or the tree past [`MAX_NODES`]; the
    /// rest of the file is ignored.
    unreadable_at: Option<u32>,
    /// The nodes of the tree so far, aliases counted at the size of what they copy.
    nodes: usize,
}

impl Builder {
    fn push(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    *key = Some(match &node {
                        Node::Scalar { text, .. } => text.clone(),
                        _ => String::from("<complex key>"),
                    });
                }
                // `<<: *base`: the anchored mapping's entries, under the ones written here.
                Some(k) if k == "<<" => {
                    if let Node::Map(base) = node {
                        for (bk, bv) in base {
                            if !entries.iter().any(|(ek, _)| *ek == bk) {
                                entries.insert(0, (bk, bv));
                            }
                        }
                    }
                }
                Some(k) => entries.push((k, node)),
            },
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.unreadable_at.is_some() {
            return;
        }
        let added = match &event {
            Event::Alias(id) => self
                .anchors
                .get(id)
                .map_or(Some(1), |node| node.size_within(MAX_NODES)),
            _ => Some(1),
        };
        self.nodes = added.map_or(usize::MAX, |n| self.nodes.saturating_add(n));
        let too_deep = matches!(event, Event::SequenceStart(..) | Event::MappingStart(..))
            && self.stack.len() >= MAX_NESTING;
        if too_deep || self.nodes > MAX_NODES {
            self.unreadable_at = Some(u32::try_from(mark.line()).unwrap_or(u32::MAX));
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let leaf = if tag.is_some() {
                    Leaf::Unreadable
                } else {
                    scalar(&text, style == TScalarStyle::Plain)
                };
                let node = Node::Scalar {
                    text,
                    leaf,
                    file: self.file.clone(),
                    line: u32::try_from(mark.line()).unwrap_or(u32::MAX),
                };
                self.push(node, anchor);
            }
            Event::SequenceStart(anchor, _) => self.stack.push(Frame::Seq {
                items: Vec::new(),
                anchor,
            }),
            Event::MappingStart(anchor, _) => self.stack.push(Frame::Map {
                entries: Vec::new(),
                key: None,
                anchor,
            }),
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq { items, anchor }) => self.push(Node::Seq(items), anchor),
                Some(Frame::Map {
                    entries, anchor, ..
                }) => self.push(Node::Map(entries), anchor),
                None => {}
            },
            Event::Alias(id) => {
                let node = self.anchors.get(&id).cloned().unwrap_or(Node::Scalar {
                    text: String::new(),
                    leaf: Leaf::Unreadable,
                    file: self.file.clone(),
                    line: u32::try_from(mark.line()).unwrap_or(u32::MAX),
                });
                self.push(node, 0);
            }
            _ => {}
        }
    }
}

/// A scalar as PyYAML's safe loader (which OmegaConf extends) resolves it.
fn scalar(text: &str, plain: bool) -> Leaf {
    if text.contains("${") {
        return Leaf::Interpolation;
    }
    if text == "???" {
        return Leaf::Mandatory;
    }
    if !plain {
        return Leaf::Value(Value::Str(text.to_owned()));
    }
    let value = match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::None,
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Value::Bool(true),
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
            Value::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => number(text).unwrap_or_else(|| Value::Str(text.to_owned())),
    };
    Leaf::Value(value)
}

fn number(text: &str) -> Option<Value> {
    let (sign, digits) = match text.strip_prefix(['-', '+']) {
        Some(rest) => (&text[..1], rest),
        None => ("", text),
    };
    let first = digits.chars().next()?;
    if !first.is_ascii_digit() && first != '.' {
        return None;
    }
    let plain_digits = digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    let int = if digits.starts_with("0x") || digits.starts_with("0b") || digits == "0" {
        parse_int(digits)
    } else if plain_digits && digits.starts_with('0') {
        // YAML 1.1 octal (`0755`); `08` is a string.
        i64::from_str_radix(&digits[1..].replace('_', ""), 8).ok()
    } else if plain_digits {
        parse_int(digits)
    } else {
        None
    };
    if let Some(i) = int {
        return Some(Value::Int(if sign == "-" { i.checked_neg()? } else { i }));
    }
    if plain_digits {
        return None;
    }
    let float_chars = digits
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | 'e' | 'E' | '+' | '-'));
    if float_chars && digits.contains(['.', 'e', 'E']) {
        let f = parse_float(digits)?;
        return Some(Value::Float(if sign == "-" { -f } else { f }));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two files for the same run agree key by key: equal values are kept as the first file
    /// writes them; a different value, a key only one has, a list of another length, or an
    /// interpolation written differently is a gap naming the key.
    #[test]
    fn files_agree_key_by_key() {
        let a = parse(
            "data:\n  workers: 12\n  batch: 8\n  only_a: 1\n  sizes: [1, 2]\n  ref: ${x}\n",
            Path::new("a.yaml"),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let b = parse(
            "data:\n  batch: 16\n  workers: 12\n  sizes: [1, 2, 3]\n  ref: ${y}\n",
            Path::new("b.yaml"),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let agreed = a.agreed(&b, "", 2);
        let at = |key: &str| agreed.get("data").and_then(|d| d.get(key)).cloned();
        assert!(matches!(
            at("workers"),
            Some(Node::Scalar {
                leaf: Leaf::Value(Value::Int(12)),
                line: 2,
                ..
            })
        ));
        for key in ["batch", "only_a", "sizes", "ref"] {
            assert_eq!(
                at(key),
                Some(Node::Gap(ConfigGap::Disagree {
                    key: format!("data.{key}"),
                    files: 2
                })),
                "{key}"
            );
        }
        assert_eq!(a.agreed(&a, "", 2), a);
    }

    /// A file nested thousands of levels deep is unreadable, not a stack overflow when its
    /// tree is walked, cloned or dropped.
    #[test]
    fn nesting_past_the_limit_is_unreadable() {
        let deep: String = (0..5000)
            .map(|i| format!("{}a:\n", "  ".repeat(i)))
            .collect();
        let text = format!("num_workers: 16\nx:\n{deep}");
        let parsed = parse(&text, Path::new("c.yaml"));
        assert!(
            matches!(parsed, Err(LoadError::Unreadable { line }) if line > 60),
            "{:?}",
            parsed.as_ref().err()
        );
        let shallow: String = (0..10).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        assert!(parse(&format!("x:\n{shallow}"), Path::new("c.yaml")).is_ok());
    }

    /// Aliases of aliases ("billion laughs") would grow the tree exponentially: past the
    /// limit the file is unreadable, found in a bounded time and memory.
    #[test]
    fn aliases_past_the_size_limit_are_unreadable() {
        let mut text = String::from("num_workers: 16\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let items = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
        }
        assert!(matches!(
            parse(&text, Path::new("c.yaml")),
            Err(LoadError::Unreadable { .. })
        ));
        // A few aliases, as configs use them, are read.
        let text = "base: &base\n  workers: 4\nchild:\n  <<: *base\nother: *base\n";
        assert!(parse(text, Path::new("c.yaml")).is_ok());
    }

    fn leaf<'a>(node: &'a Node, path: &[&str]) -> (&'a Leaf, u32) {
        let mut node = node;
        for key in path {
            node = node.get(key).expect("key");
        }
        match node {
            Node::Scalar { leaf, line, .. } => (leaf, *line),
            other => panic!("not a scalar: {other:?}"),
        }
    }

    #[test]
    fn scalars_resolve_as_omegaconf_reads_them_with_their_lines() {
        let text = "\
# comment
loader:
  num_workers: 16
  pin_memory: yes
  prefetch: 0x10
  ratio: 1.5e3
  name: '16'
  missing: ???
  derived: ${loader.num_workers}
  nothing:
base: &base
  workers: 4
child:
  <<: *base
  batch: 8
";
        let tree = parse(text, Path::new("conf/config.yaml")).expect("parses");
        let value = |path: &[&str]| leaf(&tree, path).0.clone();
        assert_eq!(
            leaf(&tree, &["loader", "num_workers"]),
            (&Leaf::Value(Value::Int(16)), 3)
        );
        assert_eq!(
            value(&["loader", "pin_memory"]),
            Leaf::Value(Value::Bool(true))
        );
        assert_eq!(value(&["loader", "prefetch"]), Leaf::Value(Value::Int(16)));
        assert_eq!(
            value(&["loader", "ratio"]),
            Leaf::Value(Value::Float(1500.0))
        );
        assert_eq!(
            value(&["loader", "name"]),
            Leaf::Value(Value::Str("16".into()))
        );
        assert_eq!(value(&["loader", "missing"]), Leaf::Mandatory);
        assert_eq!(value(&["loader", "derived"]), Leaf::Interpolation);
        assert_eq!(value(&["loader", "nothing"]), Leaf::Value(Value::None));
        assert_eq!(value(&["child", "workers"]), Leaf::Value(Value::Int(4)));
        assert_eq!(value(&["child", "batch"]), Leaf::Value(Value::Int(8)));
    }

    #[test]
    fn broken_yaml_is_an_error_with_its_line_and_empty_is_a_mapping() {
        let broken = parse("a: 1\nb: [1, 2\nc: 3\n", Path::new("x.yaml"));
        assert!(
            matches!(broken, Err(LoadError::Unreadable { .. })),
            "{broken:?}"
        );
        assert_eq!(parse("", Path::new("x.yaml")), Ok(Node::Map(Vec::new())));
        assert_eq!(number("007"), Some(Value::Int(7)));
        assert_eq!(number("08"), None);
        assert_eq!(number("-3"), Some(Value::Int(-3)));
        assert_eq!(number("1_000"), Some(Value::Int(1000)));
        assert_eq!(number("v1"), None);
    }
}
