//! What other files of the project define (dataset classes, functions), so a DataLoader in one
//! file can see the Dataset defined in another. `check` fills it with every checked file; the
//! language server fills it from the workspace folders.
//!
//! The index keeps summaries, not trees: for each module-level class the worker-side facts of
//! its dataset methods, for each module-level function the facts of its body. Imports are
//! resolved by module path: `from .data import X` relative to the importing file,
//! `from pkg.data import X` against the files' paths.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use tree_sitter::Tree;

use crate::python::model::{BindingKind, MODULE_SCOPE, Module};
use crate::python::subclass::{self, ClassShape};
use crate::python::syntax::{self, Scope};
use crate::python::workers::{self, Facts};

/// Definitions across the project's files.
#[derive(Debug, Default)]
pub struct ProjectIndex {
    files: HashMap<PathBuf, FileSummary>,
}

/// What the index keeps of one file: the worker-side facts of its module-level classes and
/// functions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileSummary {
    classes: HashMap<String, Facts>,
    functions: HashMap<String, Facts>,
    /// The bases and `__init__` of each module-level class with a base (a project loader
    /// class is found through them).
    shapes: HashMap<String, ClassShape>,
}

impl FileSummary {
    /// Summarises a parsed file. Independent of other files, so files can be summarised in
    /// parallel and then [`ProjectIndex::insert`]ed.
    pub fn of(path: &Path, source: &str, tree: &Tree) -> FileSummary {
        // Another file's own imports do not reach further files: its summary is local to it.
        let no_index = ProjectIndex::default();
        let module = Module::build(source, tree, path, &no_index);
        let scope = Scope::new(&module);
        let mut summary = FileSummary::default();
        for (name, binding) in module
            .bindings()
            .iter()
            .filter(|b| b.scope == MODULE_SCOPE)
            .map(|b| (b.name, &b.kind))
        {
            if let BindingKind::Class(id) = binding
                && module.class(*id).is_some_and(|c| !c.bases.is_empty())
            {
                summary
                    .shapes
                    .insert(name.to_owned(), subclass::class_shape(&module, *id));
            }
        }
        let root = tree.root_node();
        let mut cursor = root.walk();
        for child in root
            .named_children(&mut cursor)
            .map(syntax::unwrap_decorated)
        {
            let Some(name) = child.child_by_field_name("name").map(|n| scope.text(n)) else {
                continue;
            };
            match child.kind() {
                "class_definition" => {
                    summary
                        .classes
                        .insert(name.to_owned(), workers::class_facts(&scope, child));
                }
                "function_definition" => {
                    summary
                        .functions
                        .insert(name.to_owned(), workers::function_facts(&scope, child));
                }
                _ => {}
            }
        }
        summary
    }
}

impl ProjectIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Indexes (or re-indexes) one file. Unparsable input leaves the file out.
    pub fn add_file(&mut self, path: &Path, source: &str) {
        match crate::python::parse(source, None) {
            Some(tree) => {
                self.insert(path, FileSummary::of(path, source, &tree));
            }
            None => self.remove_file(path),
        }
    }

    /// Adds a file summarised from its already parsed tree (see [`FileSummary::of`]); returns
    /// whether the index changed (an edit of a file usually leaves its summary as it was).
    pub fn insert(&mut self, path: &Path, summary: FileSummary) -> bool {
        if self.files.get(path) == Some(&summary) {
            return false;
        }
        self.files.insert(path.to_owned(), summary);
        true
    }

    pub fn remove_file(&mut self, path: &Path) {
        self.files.remove(path);
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The worker-side facts of the class `qualified` (as imported into `from_file`, e.g.
    /// `.data.MyDataset` or `pkg.data.MyDataset`), located in its own file.
    pub fn class_facts(&self, from_file: &Path, qualified: &str) -> Option<Facts> {
        let (file, name) = self.resolve(from_file, qualified)?;
        let facts = self.files.get(&file)?.classes.get(name)?;
        Some(facts.clone().in_file(&file))
    }

    /// The facts of the module-level function `qualified`, located in its own file.
    pub fn function_facts(&self, from_file: &Path, qualified: &str) -> Option<Facts> {
        let (file, name) = self.resolve(from_file, qualified)?;
        let facts = self.files.get(&file)?.functions.get(name)?;
        Some(facts.clone().in_file(&file))
    }

    /// The bases and `__init__` of the class `qualified`, with the file that defines it.
    pub fn class_shape(&self, from_file: &Path, qualified: &str) -> Option<(PathBuf, ClassShape)> {
        let (file, name) = self.resolve(from_file, qualified)?;
        let shape = self.files.get(&file)?.shapes.get(name)?.clone();
        Some((file, shape))
    }

    /// The indexed file that defines `qualified`, and the name in it.
    fn resolve<'q>(&self, from_file: &Path, qualified: &'q str) -> Option<(PathBuf, &'q str)> {
        let (module, name) = qualified.rsplit_once('.')?;
        let level = module.chars().take_while(|c| *c == '.').count();
        let parts: Vec<&str> = module[level..]
            .split('.')
            .filter(|p| !p.is_empty())
            .collect();
        if level > 0 {
            // `from .data import X` in pkg/train.py → pkg/data.py; each further dot goes up.
            let mut base = from_file.parent()?.to_path_buf();
            for _ in 1..level {
                base = base.parent()?.to_path_buf();
            }
            for part in &parts {
                base.push(part);
            }
            return self.module_file(&base).map(|f| (f, name));
        }
        if parts.is_empty() {
            return None;
        }
        // `from pkg.data import X`: a file whose path ends with pkg/data.py (or
        // pkg/data/__init__.py); the one closest to the importing file wins.
        let candidates: Vec<&PathBuf> = self
            .files
            .keys()
            .filter(|path| module_suffix_matches(path, &parts))
            .collect();
        let best = candidates
            .into_iter()
            .max_by_key(|path| (common_prefix_len(path, from_file), std::cmp::Reverse(*path)))?;
        Some((best.clone(), name))
    }

    fn module_file(&self, base: &Path) -> Option<PathBuf> {
        let file = base.with_extension("py");
        if self.files.contains_key(&file) {
            return Some(file);
        }
        let package = base.join("__init__.py");
        self.files.contains_key(&package).then_some(package)
    }
}

fn module_suffix_matches(path: &Path, parts: &[&str]) -> bool {
    let components: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let Some(last) = components.last() else {
        return false;
    };
    let mut module: Vec<&str> = components[..components.len() - 1]
        .iter()
        .map(String::as_str)
        .collect();
    match last.strip_suffix(".py") {
        Some("__init__") => {}
        Some(stem) => module.push(stem),
        None => return false,
    }
    module.ends_with(parts)
}

fn common_prefix_len(a: &Path, b: &Path) -> usize {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "import torch\nclass Gpu:\n    def __getitem__(self, i):\n        return torch.zeros(1).cuda()\nclass Cpu:\n    def __getitem__(self, i):\n        return torch.zeros(1)\ndef to_gpu(b):\n    return b.to('cuda')\n";

    #[test]
    fn relative_and_absolute_imports() {
        let mut index = ProjectIndex::new();
        index.add_file(Path::new("/p/pkg/data.py"), DATA);
        let train = Path::new("/p/pkg/train.py");
        let gpu = index.class_facts(train, ".data.Gpu").expect("relative");
        assert_eq!(gpu.cuda.len(), 1);
        assert_eq!(
            gpu.cuda[0].file.as_deref(),
            Some(Path::new("/p/pkg/data.py"))
        );
        assert!(
            index
                .class_facts(train, ".data.Cpu")
                .expect("cpu")
                .cuda
                .is_empty()
        );
        assert!(index.class_facts(train, "pkg.data.Gpu").is_some());
        assert!(
            index
                .class_facts(Path::new("/p/run.py"), "pkg.data.Gpu")
                .is_some()
        );
        assert_eq!(
            index
                .function_facts(train, ".data.to_gpu")
                .expect("fn")
                .cuda
                .len(),
            1
        );
        assert!(index.class_facts(train, "other.data.Gpu").is_none());
        assert!(index.class_facts(train, "..data.Gpu").is_none());
        index.remove_file(Path::new("/p/pkg/data.py"));
        assert!(index.class_facts(train, ".data.Gpu").is_none());
    }

    #[test]
    fn packages_resolve_to_init() {
        let mut index = ProjectIndex::new();
        index.add_file(Path::new("/p/pkg/datasets/__init__.py"), DATA);
        assert!(
            index
                .class_facts(Path::new("/p/pkg/train.py"), ".datasets.Gpu")
                .is_some()
        );
        assert!(
            index
                .class_facts(Path::new("/p/main.py"), "pkg.datasets.Gpu")
                .is_some()
        );
    }
}
