//! The effective configuration: the editor's settings (`initializationOptions`,
//! `workspace/configuration`, asked with a timeout since a client that never answers must not
//! stall the server, `didChangeConfiguration`) over each file's `pyproject.toml`, and the
//! editor's assumptions over this machine's facts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tower_lsp_server::ls_types::{ConfigurationItem, MessageType};

use crate::config::{ConfigResolver, ProjectConfig, Settings};
use crate::host::HostFacts;
use crate::kb::KnowledgeBase;
use crate::lang::Lang;
use crate::server::publish;
use crate::server::session::{CLIENT_REQUEST_TIMEOUT, Session};
use crate::server::settings::ClientSettings;

/// Effective configuration: each file's project settings under the editor's, and this
/// machine's facts under the editor's assumptions.
#[derive(Debug)]
pub struct Config {
    pub client: ClientSettings,
    /// The nearest `pyproject.toml` of each file, cached per folder.
    pub resolver: ConfigResolver,
    pub host: HostFacts,
    /// The language the client speaks.
    pub locale: Lang,
    pub kb: Arc<KnowledgeBase>,
}

impl Config {
    pub fn new(
        client: ClientSettings,
        host: HostFacts,
        locale: Lang,
        kb: Arc<KnowledgeBase>,
    ) -> Self {
        Self {
            host: client.apply_host(host),
            client,
            resolver: ConfigResolver::default(),
            locale,
            kb,
        }
    }

    /// The settings for the file at `path`. A broken pyproject.toml is reported in the log and
    /// the defaults apply, so the editor keeps working while the user fixes it.
    pub fn settings_for(&self, path: &Path) -> Settings {
        match self.resolver.settings_for(path) {
            Ok(settings) => self.client.apply(&settings),
            Err(err) => {
                tracing::warn!("{err}");
                self.client.apply(&Settings::default())
            }
        }
    }
}

/// Installs `client` settings over the projects' and this machine's facts, and loads the
/// knowledge base they name.
pub fn apply(session: &Session, client: ClientSettings) {
    let negotiated = session.negotiated();
    let locale = client
        .locale
        .as_deref()
        .or(negotiated.client_locale.as_deref())
        .map(Lang::from_tag)
        .unwrap_or_default();
    let kb_dirs = kb_dirs(&client, &negotiated.roots);
    let kb = if kb_dirs.is_empty() {
        session.config().kb.clone()
    } else {
        let (kb, errors) = KnowledgeBase::with_dirs_lenient(&kb_dirs);
        for err in errors {
            tracing::warn!("knowledge base: {err}");
        }
        Arc::new(kb)
    };
    session.set_config(Config::new(
        client,
        session.measured_host.clone(),
        locale,
        kb,
    ));
}

/// Extra knowledge-base folders: the editor's, then the `kb` of each workspace folder's
/// pyproject.toml (relative to it).
fn kb_dirs(client: &ClientSettings, roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = client.kb.clone().unwrap_or_default();
    for root in roots {
        let pyproject = root.join("pyproject.toml");
        if !pyproject.is_file() {
            continue;
        }
        match ProjectConfig::load(&pyproject) {
            Ok(project) => dirs.extend(project.settings.kb.iter().map(|d| root.join(d))),
            Err(err) => tracing::warn!("{err}"),
        }
    }
    let mut dirs: Vec<PathBuf> = dirs
        .into_iter()
        .map(|d| match d.is_relative() {
            true => roots.first().map_or(d.clone(), |r| r.join(&d)),
            false => d,
        })
        .collect();
    dirs.dedup();
    dirs
}

/// Asks the client for the `dldoctor` section, if it can answer; `None` when it cannot or
/// does not answer in time.
pub async fn fetch(session: &Session) -> Option<ClientSettings> {
    if !session.negotiated().configuration_request {
        return None;
    }
    let request = session.client.configuration(vec![ConfigurationItem {
        scope_uri: None,
        section: Some("dldoctor".into()),
    }]);
    match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, request).await {
        Ok(Ok(values)) => {
            // A client without a `dldoctor` section answers null: keep what we have.
            let value = values.into_iter().next().filter(|v| !v.is_null())?;
            let (settings, warnings) = ClientSettings::from_value(&value);
            for warning in warnings {
                tracing::warn!("{warning}");
                session
                    .client
                    .log_message(MessageType::WARNING, warning)
                    .await;
            }
            Some(settings)
        }
        Ok(Err(err)) => {
            tracing::warn!("workspace/configuration failed: {err}");
            None
        }
        Err(_) => {
            tracing::warn!("workspace/configuration: no answer within {CLIENT_REQUEST_TIMEOUT:?}");
            None
        }
    }
}

/// Asks the client for its settings and, when it answers, applies them and re-analyses.
pub async fn refresh_from_client(session: &Arc<Session>) {
    if let Some(client) = fetch(session).await {
        apply(session, client);
        // Documents opened while the client was answering were analysed with the old settings.
        publish::all(session).await;
    }
}

/// Re-reads the project settings (folders changed, pyproject.toml saved) keeping the
/// editor's, and re-analyses.
pub async fn reload(session: &Arc<Session>) {
    let client = session.config().client.clone();
    apply(session, client);
    publish::all(session).await;
}
