//! The knowledge base behind `dldoctor.explain`: the same diagnosis as `dldoctor explain`,
//! returned in its JSON contract.

use std::path::Path;

use serde_json::{Value, json};
use tower_lsp_server::jsonrpc;

use crate::kb::{self, ExplainOptions, Lang};
use crate::server::session::Session;
use crate::server::settings::Locale;

pub fn diagnose(session: &Session, text: &str, root: Option<&Path>) -> jsonrpc::Result<Value> {
    let config = session.config();
    let options = ExplainOptions {
        root: root.map(Path::to_path_buf),
        lang: match config.locale {
            Locale::En => Lang::En,
            Locale::Zh => Lang::Zh,
        },
    };
    let findings = kb::explain(text, &config.kb, &options);
    Ok(json!({ "findings": findings }))
}
