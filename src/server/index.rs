//! Filling the workspace index from the workspace folders: every `.py` file that git would not
//! ignore, so a DataLoader sees a Dataset defined in another file.

use std::path::{Path, PathBuf};

use crate::python::index::ProjectIndex;

/// Files larger than this are generated or data, not code a Dataset is defined in.
const MAX_FILE_BYTES: u64 = 4 << 20;

/// Builds the index of `roots`; returns it and how many files went into it.
pub fn build(roots: &[PathBuf]) -> (ProjectIndex, usize) {
    let mut index = ProjectIndex::default();
    let mut files = 0;
    for path in python_files(roots) {
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        index.add_file(&path, &source);
        files += 1;
    }
    (index, files)
}

pub fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py" || e == "pyi")
}

fn python_files(roots: &[PathBuf]) -> Vec<PathBuf> {
    let Some((first, rest)) = roots.split_first() else {
        return Vec::new();
    };
    let mut walk = ignore::WalkBuilder::new(first);
    for root in rest {
        walk.add(root);
    }
    walk.build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| is_python(e.path()))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .map(|e| e.into_path())
        .collect()
}
