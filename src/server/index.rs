//! Which files the workspace index cares about, and the watcher that tells the server when one
//! changes on disk. Nothing is indexed up front: the index summarises a file when an analysis
//! first follows an import to it (`python::index`).

use std::path::Path;

use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, Registration,
};

pub fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py" || e == "pyi")
}

/// A YAML file, a config the analysis may read; or a shell script, whose commands may pass
/// the options of the project's scripts.
pub fn is_config(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "yaml" || e == "yml" || e == "sh")
}

/// The registration of `workspace/didChangeWatchedFiles` for Python, YAML and shell files,
/// for a client that registers capabilities dynamically.
pub fn watcher_registration() -> Option<Registration> {
    let watch = |glob: &str| FileSystemWatcher {
        glob_pattern: GlobPattern::String(glob.into()),
        kind: None,
    };
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![
            watch("**/*.py"),
            watch("**/*.yaml"),
            watch("**/*.yml"),
            watch("**/*.sh"),
        ],
    };
    Some(Registration {
        id: "dldoctor/watch-python".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: Some(serde_json::to_value(options).ok()?),
    })
}
