//! The server's shared state and the operations every handler needs: snapshots of documents,
//! analysis with panics caught, and publishing.
//!
//! DashMap discipline: take what you need from a guard, drop it, then `.await`. A guard held
//! across an `.await` wedges every other handler touching the same shard.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use dashmap::DashMap;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{self as lsp, Uri};
use tree_sitter::Tree;

use crate::analyze::{self, Context};
use crate::host::HostFacts;
use crate::kb::KnowledgeBase;
use crate::lang::Lang;
use crate::python::index::{self, ProjectIndex};
use crate::server::config::Config;
use crate::server::convert::{self, Coords};
use crate::server::document::Document;
use crate::server::noqa;
use crate::server::settings::ClientSettings;
use crate::text::{Encoding, LineIndex};

/// How long the server waits for the client to answer one of its requests
/// (`workspace/configuration`, a progress token, a diagnostic refresh): a client that never
/// answers must not stall the server.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// What was agreed at `initialize`.
#[derive(Clone, Debug, Default)]
pub struct Negotiated {
    pub encoding: Encoding,
    /// The client pulls diagnostics (`textDocument/diagnostic`); the server then never pushes
    /// its static diagnostics.
    pub pull_diagnostics: bool,
    pub diagnostic_refresh: bool,
    pub configuration_request: bool,
    pub work_done_progress: bool,
    pub client_locale: Option<String>,
    /// The client registers `workspace/didChangeWatchedFiles` watchers when asked.
    pub watch_files: bool,
    pub roots: Vec<PathBuf>,
}

/// A document's state at one generation, taken out of the map so no guard outlives it.
pub struct Snapshot {
    pub text: String,
    pub index: LineIndex,
    pub tree: Option<Tree>,
    pub path: PathBuf,
    pub version: i32,
    pub generation: u64,
}

impl Snapshot {
    pub fn coords(&self, encoding: Encoding) -> Coords<'_> {
        Coords::new(&self.text, &self.index, encoding)
    }
}

struct CachedDiagnostics {
    generation: u64,
    epoch: u64,
    diagnostics: Arc<Vec<lsp::Diagnostic>>,
}

pub struct Session {
    pub client: Client,
    /// Shared with the index's reader, which reads an open file's text from here.
    pub documents: Arc<DashMap<Uri, Document>>,
    /// Open notebooks: each one's cells in order.
    pub notebooks: DashMap<Uri, super::notebook::OpenNotebook>,
    /// The notebook each open cell document belongs to.
    pub cell_notebook: DashMap<Uri, Uri>,
    /// Each open notebook's last analysis, shared by its cells.
    pub notebook_findings: DashMap<Uri, Arc<super::notebook::Findings>>,
    cache: DashMap<Uri, CachedDiagnostics>,
    /// Diagnostics placed by `dldoctor.explain` on the user's frames, per file.
    pub explained: Mutex<HashMap<Uri, Vec<lsp::Diagnostic>>>,
    pub negotiated: RwLock<Negotiated>,
    config: RwLock<Arc<Config>>,
    /// Bumped when the configuration changes, so cached analyses are recomputed.
    epoch: AtomicU64,
    /// Other files' definitions, summarised when an analysis first asks for them: open files
    /// from the editor's text, the others from disk.
    index: ProjectIndex,
    pub shutdown_requested: AtomicBool,
    /// This machine's facts, read once at start.
    pub measured_host: HostFacts,
    /// Fault injection for the robustness tests: `DLDOCTOR_LSP_FAULT=hover` makes the hover
    /// handler panic, to show a panic is answered with an error and the server goes on.
    pub fault: Option<String>,
}

impl Session {
    pub fn new(client: Client) -> Self {
        let documents: Arc<DashMap<Uri, Document>> = Arc::default();
        let open = Arc::clone(&documents);
        let reader = move |path: &Path| {
            if let Some(uri) = Uri::from_file_path(path)
                && let Some(doc) = open.get(&uri)
            {
                return Some(doc.text.clone());
            }
            index::read_file(path)
        };
        Self {
            client,
            documents,
            notebooks: DashMap::new(),
            cell_notebook: DashMap::new(),
            notebook_findings: DashMap::new(),
            cache: DashMap::new(),
            explained: Mutex::new(HashMap::new()),
            negotiated: RwLock::new(Negotiated::default()),
            config: RwLock::new(Arc::new(Config::new(
                ClientSettings::default(),
                HostFacts::unknown(),
                Lang::En,
                Arc::new(KnowledgeBase::embedded()),
            ))),
            measured_host: HostFacts::detect(),
            epoch: AtomicU64::new(0),
            index: ProjectIndex::with_reader(Vec::new(), Arc::new(reader)),
            shutdown_requested: AtomicBool::new(false),
            fault: std::env::var("DLDOCTOR_LSP_FAULT").ok(),
        }
    }

    pub fn negotiated(&self) -> Negotiated {
        self.negotiated
            .read()
            .map(|n| n.clone())
            .unwrap_or_default()
    }

    pub fn encoding(&self) -> Encoding {
        self.negotiated
            .read()
            .map(|n| n.encoding)
            .unwrap_or_default()
    }

    pub fn config(&self) -> Arc<Config> {
        match self.config.read() {
            Ok(config) => Arc::clone(&config),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    pub fn set_config(&self, config: Config) {
        match self.config.write() {
            Ok(mut slot) => *slot = Arc::new(config),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(config),
        }
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    pub fn with_index<T>(&self, f: impl FnOnce(&ProjectIndex) -> T) -> T {
        f(&self.index)
    }

    /// The workspace folders changed: absolute imports are looked up under the new ones.
    pub fn set_project_roots(&self, roots: Vec<PathBuf>) {
        self.index.set_roots(roots);
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// A file changed on disk or went away (a watched-file event, an open document closed):
    /// its summary is forgotten; whether an analysis may have used it, in which case cached
    /// analyses are recomputed.
    pub fn file_changed(&self, path: &Path) -> bool {
        let used = self.index.invalidate(path);
        if used {
            self.epoch.fetch_add(1, Ordering::SeqCst);
        }
        used
    }

    /// A YAML file or shell script changed, appeared or went away: the configs and scripts
    /// read from the project's files are read again.
    pub fn config_file_changed(&self) {
        self.index.forget_configs();
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Files appeared or went away: an import that found nothing may find a file now, a
    /// helper may have a new caller.
    pub fn files_came_or_went(&self) {
        self.index.forget_callers();
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Refreshes a Python file's summary, if an analysis used it, on the blocking pool;
    /// whether what it defines changed (cached analyses are then recomputed). The open
    /// document is summarised from its own tree (no second parse); `saved`, the text a save
    /// reports, is parsed only when it is not that document's.
    pub async fn reindex_off_runtime(self: &Arc<Self>, uri: &Uri, saved: Option<String>) -> bool {
        let session = Arc::clone(self);
        let uri = uri.clone();
        tokio::task::spawn_blocking(move || {
            let path = uri_path(&uri);
            if !crate::server::index::is_python(&path) {
                return None;
            }
            let open = session
                .snapshot(&uri)
                .filter(|doc| saved.as_ref().is_none_or(|text| *text == doc.text));
            let changed = match (open, saved) {
                (Some(doc), _) => session.index.refresh(&path, &doc.text, doc.tree.as_ref()?),
                (None, Some(text)) => {
                    let tree = crate::python::parse(&text, None)?;
                    session.index.refresh(&path, &text, &tree)
                }
                (None, None) => return None,
            };
            if changed {
                session.epoch.fetch_add(1, Ordering::SeqCst);
            }
            Some(changed)
        })
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
    }

    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let doc = self.documents.get(uri)?;
        Some(Snapshot {
            text: doc.text.clone(),
            index: doc.index.clone(),
            tree: doc.tree.clone(),
            path: doc.path.clone(),
            version: doc.version,
            generation: doc.generation,
        })
    }

    pub fn generation(&self, uri: &Uri) -> Option<u64> {
        self.documents.get(uri).map(|doc| doc.generation)
    }

    /// The static diagnostics of an open document in LSP form, computed once per generation
    /// and configuration. `None` when the document is not open.
    pub fn diagnostics(&self, uri: &Uri) -> Option<(i32, Arc<Vec<lsp::Diagnostic>>)> {
        let epoch = self.epoch.load(Ordering::SeqCst);
        let snapshot = self.snapshot(uri)?;
        if let Some(cached) = self.cache.get(uri)
            && cached.generation == snapshot.generation
            && cached.epoch == epoch
        {
            return Some((snapshot.version, Arc::clone(&cached.diagnostics)));
        }
        let diagnostics = Arc::new(self.analyze_snapshot(uri, &snapshot));
        if self.generation(uri) == Some(snapshot.generation) {
            self.cache.insert(
                uri.clone(),
                CachedDiagnostics {
                    generation: snapshot.generation,
                    epoch,
                    diagnostics: Arc::clone(&diagnostics),
                },
            );
        }
        Some((snapshot.version, diagnostics))
    }

    /// Runs the analysis on a snapshot; a panic inside it is logged and yields no diagnostics.
    fn analyze_snapshot(&self, uri: &Uri, snapshot: &Snapshot) -> Vec<lsp::Diagnostic> {
        let Some(tree) = snapshot.tree.as_ref() else {
            return Vec::new();
        };
        let encoding = self.encoding();
        let lang = self.config().locale;
        let result = guarded("analysis", || {
            let found = self.analyze_document(uri, snapshot, tree);
            let coords = snapshot.coords(encoding);
            found
                .iter()
                .map(|d| {
                    let ignore = noqa::ignore_action(&snapshot.text, tree, &coords, d, lang);
                    let other_text = |path: &Path| self.text_of(path);
                    convert::diagnostic(d, uri, &coords, lang, &other_text, ignore)
                })
                .collect()
        });
        result.unwrap_or_default()
    }

    /// The findings of an open document: its own analysis, or for a notebook cell its
    /// notebook's, kept to the cell.
    pub fn analyze_document(
        &self,
        uri: &Uri,
        snapshot: &Snapshot,
        tree: &Tree,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        super::notebook::cell_findings(self, uri, &snapshot.path)
            .unwrap_or_else(|| self.analyze_source(&snapshot.text, tree, &snapshot.path))
    }

    /// Whether `uri` is a cell of an open notebook.
    pub fn is_notebook_cell(&self, uri: &Uri) -> bool {
        self.cell_notebook.contains_key(uri)
    }

    /// Whether the client pulls the static diagnostics of `uri` (else they are pushed). A
    /// notebook cell's are always pushed: clients pull on text-document events and on their
    /// tabs, neither of which a cell has (vscode-languageclient 9 never pulls for one).
    pub fn pulled(&self, uri: &Uri) -> bool {
        self.negotiated().pull_diagnostics && !self.is_notebook_cell(uri)
    }

    /// What the cached analyses were computed under: bumped when the configuration or the
    /// workspace index changes.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Drops a document's cached findings: what they depend on outside it changed.
    pub fn invalidate(&self, uri: &Uri) {
        self.cache.remove(uri);
    }

    /// The same analysis as `check`, with this session's configuration and workspace index.
    pub fn analyze_source(
        &self,
        source: &str,
        tree: &Tree,
        path: &Path,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        let config = self.config();
        let settings = config.settings_for(path);
        self.with_index(|index| {
            let ctx = Context {
                settings: &settings,
                host: &config.host,
                index,
            };
            analyze::analyze_tree(source, tree, path, &ctx)
        })
    }

    /// A file's text: the open document's if it is open, else what is on disk.
    pub fn text_of(&self, path: &Path) -> Option<String> {
        if let Some(uri) = Uri::from_file_path(path)
            && let Some(doc) = self.documents.get(&uri)
        {
            return Some(doc.text.clone());
        }
        crate::kb::place::read_source(path)
    }

    pub fn forget(&self, uri: &Uri) {
        self.documents.remove(uri);
        self.cache.remove(uri);
    }

    pub fn open_uris(&self) -> Vec<Uri> {
        self.documents.iter().map(|e| e.key().clone()).collect()
    }

    pub fn explained_for(&self, uri: &Uri) -> Vec<lsp::Diagnostic> {
        self.explained
            .lock()
            .ok()
            .and_then(|map| map.get(uri).cloned())
            .unwrap_or_default()
    }

    /// [`Session::diagnostics`] on the blocking pool: a long analysis of a huge file must not
    /// hold up the runtime threads that read the editor's messages.
    pub async fn diagnostics_off_runtime(
        self: &Arc<Self>,
        uri: &Uri,
    ) -> Option<(i32, Arc<Vec<lsp::Diagnostic>>)> {
        let session = Arc::clone(self);
        let uri = uri.clone();
        tokio::task::spawn_blocking(move || session.diagnostics(&uri))
            .await
            .ok()
            .flatten()
    }
}

/// Runs `f`, turning a panic into a logged internal error so the server keeps serving.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> jsonrpc::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        tracing::error!("{what} panicked: {reason}");
        let mut error = jsonrpc::Error::internal_error();
        error.message = format!("dldoctor: {what} failed: {reason}").into();
        error
    })
}

/// The file a URI names, or a stand-in path for unsaved buffers (`untitled:`), which then
/// match no `per-file-ignores` and import nothing relative.
pub fn uri_path(uri: &Uri) -> PathBuf {
    uri.to_file_path()
        .map(|p| p.into_owned())
        .unwrap_or_else(|| PathBuf::from(uri.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let err = guarded("hover", || -> u32 { panic!("boom") }).unwrap_err();
        assert_eq!(err.code, jsonrpc::ErrorCode::InternalError);
        assert!(err.message.contains("boom"));
        assert_eq!(guarded("hover", || 3).unwrap(), 3);
    }
}
