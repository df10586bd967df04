//! Python traceback frames, and whether a frame is in the user's own code: not in
//! site-packages/dist-packages, not in the standard library, not a `<frozen ...>` module.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// One `File "...", line N, in f` line of a traceback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub file: String,
    pub line: u32,
    pub function: String,
    /// The frame lies in the user's files: the place to change.
    pub user: bool,
}

static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$"#)
        .unwrap_or_else(|_| never())
});

/// Python's standard library: `lib/python3.X/` (`/usr/lib/python3.10/`, a venv's base, conda,
/// pyenv, macOS frameworks) or a Windows installation's `Lib\`.
static STDLIB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|/)lib(?:64)?/python\d+(?:\.\d+)?t?/|^[a-z]:/(?:.*/)?(?:python\d*|anaconda\d*|miniconda\d*|miniforge\d*|envs/[^/]+|\.?venv)/lib/",
    )
    .unwrap_or_else(|_| never())
});

fn never() -> Regex {
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!("constant regex"))
}

/// Parses a frame line; `root` marks the user's project (frames outside it are not the user's).
pub fn parse_frame(line: &str, root: Option<&Path>) -> Option<Frame> {
    let caps = FRAME.captures(line)?;
    let file = caps.name("file")?.as_str().to_string();
    let line_no = caps.name("line")?.as_str().parse().ok()?;
    let function = caps
        .name("func")
        .map(|m| m.as_str().to_string())
        .unwrap_or_default();
    let user = is_user_file(&file, root);
    Some(Frame {
        file,
        line: line_no,
        function,
        user,
    })
}

/// True when `file` is the user's code rather than an installed package or the interpreter's.
pub fn is_user_file(file: &str, root: Option<&Path>) -> bool {
    if let Some(name) = file.strip_prefix('<') {
        // `<stdin>` and notebook cells are typed by the user; `<frozen ...>`, `<string>` (the
        // spawn bootstrap) are not.
        return name.starts_with("stdin") || name.starts_with("ipython-input");
    }
    let normalized = file.replace('\\', "/");
    let lower = normalized.to_ascii_lowercase();
    if lower.contains("/site-packages/")
        || lower.contains("/dist-packages/")
        || lower.contains("/.eggs/")
        || STDLIB.is_match(&lower)
        || lower.contains("/torch/utils/data/")
        || lower.ends_with("/torch/_utils.py")
    {
        return false;
    }
    match root {
        Some(root) => {
            let path = Path::new(&normalized);
            path.is_relative() || path.starts_with(root) || {
                let root = root.to_string_lossy().replace('\\', "/");
                !root.is_empty() && normalized.starts_with(root.trim_end_matches('/'))
            }
        }
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_lines() {
        let f = parse_frame(r#"  File "/home/me/proj/train.py", line 42, in main"#, None).unwrap();
        assert_eq!(
            (f.file.as_str(), f.line, f.function.as_str(), f.user),
            ("/home/me/proj/train.py", 42, "main", true)
        );
        let w = parse_frame(
            r#"  File "C:\Users\u\Desktop\TR-MISR\src\utils.py", line 118, in collateFunction"#,
            None,
        )
        .unwrap();
        assert!(w.user);
        assert!(parse_frame("RuntimeError: x", None).is_none());
    }

    #[test]
    fn library_files_are_not_the_users() {
        for file in [
            "/usr/lib/python3.10/multiprocessing/queues.py",
            "/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py",
            "/usr/local/lib/python3.7/dist-packages/torch/_utils.py",
            "/Library/Frameworks/Python.framework/Versions/3.8/lib/python3.8/multiprocessing/popen_fork.py",
            "/home/u/.pyenv/versions/3.11.7/lib/python3.11/threading.py",
            "<frozen runpy>",
            "<string>",
            r"C:\Users\user\anaconda3\envs\endo\lib\site-packages\torch\utils\data\_utils\worker.py",
            r"C:\Python311\Lib\multiprocessing\spawn.py",
            r"C:\Users\u\anaconda3\envs\x\lib\multiprocessing\reduction.py",
            r"F:\proj\venv\Lib\site-packages\tqdm\std.py",
        ] {
            assert!(!is_user_file(file, None), "{file}");
        }
        for file in [
            "train.py",
            "/work/proj/data/dataset.py",
            "<stdin>",
            r"D:\code\lib\my.py",
        ] {
            assert!(is_user_file(file, None), "{file}");
        }
    }

    #[test]
    fn root_limits_the_users_files() {
        let root = Path::new("/work/proj");
        assert!(is_user_file("/work/proj/train.py", Some(root)));
        assert!(is_user_file("train.py", Some(root)));
        assert!(!is_user_file("/opt/other/tool.py", Some(root)));
        assert!(!is_user_file(
            "/work/proj/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py",
            Some(root)
        ));
    }
}
