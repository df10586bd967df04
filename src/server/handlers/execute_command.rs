//! `workspace/executeCommand`: `dldoctor.explain` diagnoses crash output and places the
//! findings on the user's own lines; `dldoctor.env` returns this machine's facts.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::server::capabilities::{ENV, EXPLAIN};
use crate::server::session::{Session, guarded};
use crate::server::{explain, publish};

#[derive(Deserialize)]
struct ExplainArgs {
    text: String,
    cwd: Option<PathBuf>,
}

pub async fn execute_command(
    session: &Arc<Session>,
    params: ExecuteCommandParams,
) -> Result<Option<Value>> {
    match params.command.as_str() {
        ENV => Ok(Some(session.config().host.to_json())),
        EXPLAIN => {
            let args: ExplainArgs = params
                .arguments
                .into_iter()
                .next()
                .ok_or_else(|| Error::invalid_params("dldoctor.explain expects {text, cwd?}"))
                .and_then(|v| {
                    serde_json::from_value(v).map_err(|e| {
                        Error::invalid_params(format!(
                            "dldoctor.explain expects {{text, cwd?}}: {e}"
                        ))
                    })
                })?;
            run_explain(session, args).await
        }
        other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
    }
}

async fn run_explain(session: &Arc<Session>, args: ExplainArgs) -> Result<Option<Value>> {
    let root = args
        .cwd
        .or_else(|| session.negotiated().roots.first().cloned());
    let (findings, placed) = guarded("explain", || {
        let findings = explain::diagnose(session, &args.text, root.as_deref());
        let placed = explain::diagnostics(session, &findings, root.as_deref());
        (findings, placed)
    })?;
    // The previous explain's diagnostics go, the new ones come.
    let previous: Vec<Uri> = session
        .explained
        .lock()
        .map(|mut map| {
            let old: Vec<Uri> = map.keys().cloned().collect();
            *map = placed.clone();
            old
        })
        .unwrap_or_default();
    let touched: HashSet<Uri> = previous.into_iter().chain(placed.into_keys()).collect();
    for uri in touched {
        publish::document(session, &uri).await;
    }
    Ok(Some(json!({ "findings": findings })))
}
