//! The semantic model of one Python file: imports and aliases, DataLoader calls with their
//! bound and resolved arguments, start methods, worker-side code, CUDA initialisation.

use std::path::Path;

use tree_sitter::Tree;

use crate::python::index::ProjectIndex;

/// Everything rules need to know about one file, resolved once per analysis.
pub struct Module<'a> {
    pub source: &'a str,
    pub tree: &'a Tree,
    pub path: &'a Path,
    pub index: &'a ProjectIndex,
}

impl<'a> Module<'a> {
    pub fn build(source: &'a str, tree: &'a Tree, path: &'a Path, index: &'a ProjectIndex) -> Self {
        Self {
            source,
            tree,
            path,
            index,
        }
    }
}
