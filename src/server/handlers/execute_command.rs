//! `workspace/executeCommand`: `dldoctor.explain` diagnoses crash output and places the
//! findings on the user's own lines; `dldoctor.env` returns this machine's facts.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::rules::Code;
use crate::server::convert::{self, Coords, DiagnosticData, FixAction};
use crate::server::session::{Session, guarded};
use crate::server::settings::Locale;
use crate::text::LineIndex;

pub const EXPLAIN: &str = "dldoctor.explain";
pub const ENV: &str = "dldoctor.env";
pub const COMMANDS: &[&str] = &[EXPLAIN, ENV];

/// The source of diagnostics placed by `dldoctor.explain`, apart from the static ones.
pub const EXPLAIN_SOURCE: &str = "dldoctor-explain";

/// How far (in lines) from the crashing frame a rule's finding may be to lend its fix.
const NEAR_LINES: u32 = 30;

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
            explain(session, args).await
        }
        other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
    }
}

async fn explain(session: &Arc<Session>, args: ExplainArgs) -> Result<Option<Value>> {
    let root = args
        .cwd
        .clone()
        .or_else(|| session.negotiated().roots.first().cloned());
    let report = guarded("explain", || {
        crate::server::explain::diagnose(session, &args.text, root.as_deref())
    })??;
    let placed = guarded("explain", || place(session, &report, root.as_deref()))?;
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
        session.publish(&uri).await;
    }
    Ok(Some(report))
}

/// A frame of the explain JSON.
#[derive(Deserialize)]
struct Frame {
    file: String,
    line: u32,
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    user: bool,
}

#[derive(Deserialize)]
struct Finding {
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    root_cause: Option<String>,
    #[serde(default)]
    rules: Vec<String>,
    #[serde(default)]
    frames: Vec<Frame>,
}

/// Diagnostics on the user's frames of every finding, per file. The innermost user frame of a
/// finding is an error; the frames that led there are information.
fn place(session: &Session, report: &Value, root: Option<&Path>) -> HashMap<Uri, Vec<Diagnostic>> {
    let findings: Vec<Finding> = report
        .get("findings")
        .cloned()
        .and_then(|f| serde_json::from_value(f).ok())
        .unwrap_or_default();
    let encoding = session.encoding();
    let locale = session.config().locale;
    let mut out: HashMap<Uri, Vec<Diagnostic>> = HashMap::new();
    let mut seen = HashSet::new();
    for finding in &findings {
        let user_frames: Vec<&Frame> = finding.frames.iter().filter(|f| f.user).collect();
        for (i, frame) in user_frames.iter().enumerate().rev() {
            let innermost = i + 1 == user_frames.len();
            let path = resolve(&frame.file, root);
            let Some(uri) = Uri::from_file_path(&path) else {
                continue;
            };
            if !seen.insert((finding.id.clone(), uri.clone(), frame.line)) {
                continue;
            }
            let Some(source) = session.text_of(&path) else {
                continue;
            };
            let index = LineIndex::new(&source);
            let coords = Coords::new(&source, &index, encoding);
            let line = frame.line.saturating_sub(1);
            if line as usize >= index.line_count() {
                continue;
            }
            let line_range = index.line_range(&source, line);
            let indent = source[line_range.start..line_range.end].len()
                - source[line_range.start..line_range.end].trim_start().len();
            let range = crate::text::TextRange::new(line_range.start + indent, line_range.end);
            let mut message = finding.title.clone();
            if let Some(cause) = &finding.root_cause
                && !cause.trim().is_empty()
            {
                message.push('\n');
                message.push_str(cause.trim());
            }
            if !innermost {
                let called = frame.function.as_deref().unwrap_or("?");
                message = match locale {
                    Locale::En => format!("{} (called from `{called}` here)", finding.title),
                    Locale::Zh => format!("{}（由 `{called}` 在此处调用）", finding.title),
                };
            }
            let fixes = if innermost {
                let rules = &finding.rules;
                rule_fixes(session, &source, &path, &coords, line, rules, locale)
            } else {
                Vec::new()
            };
            let data = DiagnosticData {
                fixes,
                ignore: None,
                kb: vec![finding.id.clone()],
            };
            out.entry(uri).or_default().push(Diagnostic {
                range: coords.range(range),
                severity: Some(if innermost {
                    DiagnosticSeverity::ERROR
                } else {
                    DiagnosticSeverity::INFORMATION
                }),
                code: Some(NumberOrString::String(finding.id.clone())),
                code_description: None,
                source: Some(EXPLAIN_SOURCE.to_owned()),
                message: convert::non_empty(&message, &finding.id),
                related_information: None,
                tags: None,
                data: serde_json::to_value(data).ok(),
            });
        }
    }
    out
}

/// The fixes the named rules offer for the DataLoader nearest to `line` in this file.
fn rule_fixes(
    session: &Session,
    source: &str,
    path: &Path,
    coords: &Coords,
    line: u32,
    rules: &[String],
    locale: Locale,
) -> Vec<FixAction> {
    let codes: Vec<Code> = rules.iter().filter_map(|r| r.parse().ok()).collect();
    if codes.is_empty() {
        return Vec::new();
    }
    let Some(tree) = crate::python::parse(source, None) else {
        return Vec::new();
    };
    let found = session.analyze_source(source, &tree, path);
    let nearest = found
        .iter()
        .filter(|d| codes.contains(&d.code) && !d.fixes.is_empty())
        .map(|d| (coords.index.line_of(d.range.start).abs_diff(line), d))
        .filter(|(distance, _)| *distance <= NEAR_LINES)
        .min_by_key(|(distance, _)| *distance);
    nearest
        .map(|(_, d)| {
            d.fixes
                .iter()
                .map(|f| FixAction::from_fix(f, coords, locale))
                .collect()
        })
        .unwrap_or_default()
}

fn resolve(file: &str, root: Option<&Path>) -> PathBuf {
    let path = PathBuf::from(file);
    match root {
        Some(root) if path.is_relative() => root.join(path),
        _ => path,
    }
}
