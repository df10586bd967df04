//! Files as the analysis names them: a path made plain without asking the file system, and
//! the files under a folder, honouring ignore files.

use std::path::{Component, Path, PathBuf};

/// `a/./b/../c` as `a/c`, without asking the file system (a `..` that climbs above the path's
/// start is kept).
pub(crate) fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The files under `base` whose path `wanted` accepts, honouring ignore files (`max_depth`
/// 1: only those directly in it), in path order when `sorted`. A relative path's folder may
/// be the empty path: the current folder, whose files are named as the files that name them
/// are (`main.py`, not `./main.py`).
pub(crate) fn files_under(
    base: &Path,
    max_depth: Option<usize>,
    sorted: bool,
    wanted: impl Fn(&Path) -> bool,
) -> impl Iterator<Item = PathBuf> {
    let here = base.as_os_str().is_empty();
    let mut walk = ignore::WalkBuilder::new(if here { Path::new(".") } else { base });
    walk.require_git(false).max_depth(max_depth);
    if sorted {
        walk.sort_by_file_path(Path::cmp);
    }
    walk.build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
        .filter(move |p| wanted(p))
        .map(move |p| match p.strip_prefix(".") {
            Ok(rest) if here => rest.to_path_buf(),
            _ => p,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_paths() {
        assert_eq!(normalised(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalised(Path::new("../../x")), PathBuf::from("../../x"));
        assert_eq!(normalised(Path::new("./s/../m.py")), PathBuf::from("m.py"));
    }
}
