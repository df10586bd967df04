//! Hover: DataLoader keyword arguments (what, default, workers/shm/fork, the value here with
//! where it comes from, and this machine's facts), `DataLoader` itself (the loader's effective
//! setup and its findings), DL codes inside `# noqa` comments (the rule's docs),
//! `set_start_method` and `set_sharing_strategy`. What the code means comes from the semantic
//! model, the same one the rules read.

use std::fmt::Write as _;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::codes::Code;
use crate::host::{HostFacts, format_bytes};
use crate::lang::Lang;
use crate::notebook as notebook_text;
use crate::python::analysis::Analysis;
use crate::python::facts::{self, Status};
use crate::python::loaders::{ArgState, Loader, Param};
use crate::python::model::Module;
use crate::python::start_method;
use crate::server::config::Config;
use crate::server::hover_docs::{self, Labels};
use crate::server::notebook;
use crate::server::session::{Session, Snapshot, guarded};
use crate::suppression;
use crate::text::TextRange;

const START_METHOD_CALLS: &[&str] = &[
    "multiprocessing.set_start_method",
    "torch.multiprocessing.set_start_method",
    "multiprocessing.context.set_start_method",
];
const SHARING_STRATEGY_CALLS: &[&str] = &["torch.multiprocessing.set_sharing_strategy"];

pub fn hover(session: &Session, params: HoverParams) -> Result<Option<Hover>> {
    if session.fault.as_deref() == Some("hover") {
        return guarded("hover", || panic!("injected fault in hover"));
    }
    let position = params.text_document_position_params;
    let uri = position.text_document.uri;
    let Some(snapshot) = session.snapshot(&uri) else {
        return Ok(None);
    };
    let encoding = session.encoding();
    let offset = snapshot.coords(encoding).offset(position.position);
    let hovered = guarded("hover", || {
        let findings = || {
            session
                .diagnostics(&uri)
                .map(|(_, d)| d)
                .unwrap_or_default()
        };
        // In a notebook cell the hover reads the whole notebook (a dataset or a constant
        // from another cell), then speaks in the cell's offsets and the notebook's cells.
        let Some(nb) = notebook::cell_module(session, &uri) else {
            return content(session, &snapshot, offset, 0, findings);
        };
        let first_line = nb.cell.first_line as usize;
        let (range, mut md) = content(
            session,
            &nb.module,
            nb.to_module(offset),
            first_line,
            findings,
        )?;
        notebook_text::relabel_text(&mut md, &nb.module.text, &nb.map);
        Some((nb.to_cell(range)?, md))
    })?;
    Ok(hovered.map(|(range, markdown)| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(snapshot.coords(encoding).range(range)),
    }))
}

/// The hover at `offset` of `snapshot`; `first_line` is the snapshot's line on which the
/// hovered document starts (a notebook cell's place in its module), as `findings`, the
/// document's own diagnostics, count lines from there.
fn content(
    session: &Session,
    snapshot: &Snapshot,
    offset: usize,
    first_line: usize,
    findings: impl FnOnce() -> Arc<Vec<Diagnostic>>,
) -> Option<(TextRange, String)> {
    let tree = snapshot.tree.as_ref()?;
    if let Some((range, code)) = suppression::code_in_comment(&snapshot.text, tree, offset) {
        return Some((range, rule_docs(code)));
    }
    let config = session.config();
    let locale = config.locale;
    enum Found {
        Keyword(TextRange, String),
        Loader(TextRange, String, usize, usize),
        Doc(TextRange, &'static str),
    }
    let found = session.with_index(|index| {
        let settings = config.settings_for(&snapshot.path);
        let model = Module::build_with(
            &snapshot.text,
            tree,
            &snapshot.path,
            index,
            settings.catalogue(),
        );
        // The innermost loader around the cursor (a loader may sit inside another's arguments).
        let loader = model
            .loaders()
            .iter()
            .filter(|l| l.range.contains(offset))
            .min_by_key(|l| l.range.len());
        if let Some(loader) = loader {
            if let Some(arg) = loader
                .arguments
                .iter()
                .find(|a| a.keyword.is_some_and(|k| k.contains(offset)))
            {
                let range = arg.keyword.unwrap_or(arg.anchor);
                return Some(Found::Keyword(
                    range,
                    keyword(&model, loader, arg.param, &config)?,
                ));
            }
            if loader.callee.contains(offset) {
                let line = |offset| (model.line(offset) as usize - 1).saturating_sub(first_line);
                let first = line(loader.range.start);
                let last = line(loader.range.end);
                return Some(Found::Loader(
                    last_name(&snapshot.text, loader.callee),
                    setup(&model, loader, &config),
                    first,
                    last,
                ));
            }
        }
        let call = model
            .calls()
            .iter()
            .filter(|c| Module::range(c.callee).contains(offset))
            .min_by_key(|c| Module::range(c.callee).len())?;
        let qualified = call.qualified.as_deref()?;
        let range = last_name(&snapshot.text, Module::range(call.callee));
        if START_METHOD_CALLS.contains(&qualified) {
            Some(Found::Doc(range, hover_docs::set_start_method(locale)))
        } else if SHARING_STRATEGY_CALLS.contains(&qualified) {
            Some(Found::Doc(range, hover_docs::set_sharing_strategy(locale)))
        } else {
            None
        }
    })?;
    match found {
        Found::Keyword(range, md) => Some((range, md)),
        Found::Doc(range, text) => Some((range, text.to_owned())),
        Found::Loader(range, mut md, first, last) => {
            append_findings(
                &mut md,
                &findings(),
                first,
                last,
                hover_docs::labels(locale),
            );
            Some((range, md))
        }
    }
}

/// The last dotted name of a callee (`DataLoader` of `torch.utils.data.DataLoader`).
fn last_name(text: &str, callee: TextRange) -> TextRange {
    let written = text.get(callee.start..callee.end).unwrap_or_default();
    match written.rfind('.') {
        Some(dot) => TextRange::new(callee.start + dot + 1, callee.end),
        None => callee,
    }
}

fn keyword(model: &Module, loader: &Loader, param: Param, config: &Config) -> Option<String> {
    let locale = config.locale;
    let name = param.name();
    let doc = hover_docs::argument(name)?;
    let labels = hover_docs::labels(locale);
    let mut md = format!("**DataLoader** `{name}`\n\n{}\n\n", doc.text(locale));
    let _ = writeln!(md, "- {}: `{}`", labels.default, doc.default);
    if loader.signature.default_of(param).1 {
        let _ = writeln!(
            md,
            "- {}: `{}` ({})",
            labels.default,
            loader.default(param),
            loader.entry.render(locale)
        );
    }
    if let ArgState::Passed(arg) = loader.state(param) {
        let here = if arg.value.value.is_known() {
            arg.value.describe(locale)
        } else {
            // A config value that stays unknown carries why.
            let text = model.text(arg.value_node);
            match arg.value.provenance.note(locale) {
                Some(why) => format!("`{text}` ({}: {why})", labels.unknown),
                None => format!("`{text}` ({})", labels.unknown),
            }
        };
        let conditional = if arg.conditional {
            labels.conditional
        } else {
            ""
        };
        let _ = writeln!(md, "- {}: {here}{conditional}", labels.here);
    }
    let _ = writeln!(
        md,
        "- {}: {}",
        labels.machine,
        machine(&config.host, labels)
    );
    Some(md)
}

/// The loader's effective setup, from the same facts `dldoctor loaders` prints: what made it a
/// loader, workers, start method and where it comes from, pinning, and why a value is unknown.
fn setup(model: &Module, loader: &Loader, config: &Config) -> String {
    let locale = config.locale;
    let labels = hover_docs::labels(locale);
    let scope = Analysis::new(model);
    let target = config.settings_for(model.path).target_version;
    let platform = start_method::platform_default(&config.host.os, target);
    let found = facts::facts_of(model, &scope, loader, platform);
    let value = |param: Param| {
        let Some(fact) = found.arguments.iter().find(|a| a.param == param.name()) else {
            return labels.unknown.to_owned();
        };
        let conditional = if fact.conditional {
            labels.conditional
        } else {
            ""
        };
        match (&fact.status, &fact.resolved, &fact.value) {
            (Status::Passed, Some(resolved), _) => {
                format!("{}{conditional}", resolved.describe(locale))
            }
            (Status::Default, _, Some(value)) => match locale {
                Lang::En => format!("{value} ({})", fact.origin),
                Lang::Zh => format!("{value}（{}）", labels.default),
            },
            _ => {
                let paths: Vec<String> = fact
                    .by_caller
                    .iter()
                    .map(|p| format!("{} {}", p.value, p.when))
                    .collect();
                let paths = if paths.is_empty() {
                    String::new()
                } else {
                    format!("; depends on the caller: {}", paths.join("; "))
                };
                match (locale, &fact.unknown_because) {
                    (Lang::En, Some(why)) => {
                        format!("{} ({}; because {why}{paths})", labels.unknown, fact.origin)
                    }
                    (Lang::En, None) => format!("{} ({}{paths})", labels.unknown, fact.origin),
                    (Lang::Zh, _) => labels.unknown.to_owned(),
                }
            }
        }
    };
    let mut md = format!("**{}**: {}\n\n", found.entry, labels.effective);
    let _ = writeln!(md, "- {}: {}", labels.workers, value(Param::NumWorkers));
    let _ = writeln!(
        md,
        "- {}: {}",
        labels.start_method,
        start_method_text(model, &found, locale)
    );
    let _ = writeln!(md, "- {}: {}", labels.pinning, value(Param::PinMemory));
    let _ = writeln!(
        md,
        "- {}: {}",
        labels.machine,
        machine(&config.host, labels)
    );
    md
}

/// Where this loader's start method comes from: its own `multiprocessing_context`, else a
/// process-wide `set_start_method`, else the platform's default (the same reading the fork
/// rules use).
fn start_method_text(model: &Module, found: &facts::LoaderFacts, locale: Lang) -> String {
    let Some(method) = &found.start_method.found else {
        return found.start_method.why.clone();
    };
    let line = method.range().map(|range| model.line(range.start));
    match locale {
        Lang::En => {
            let mut text = found.start_method.why.clone();
            if let Some(line) = line {
                let _ = write!(text, " (line {line})");
            }
            text
        }
        Lang::Zh => {
            let mut text = method.describe(Lang::Zh);
            if let Some(line) = line {
                let _ = write!(text, "（第 {line} 行）");
            }
            text
        }
    }
}

fn append_findings(
    md: &mut String,
    findings: &[Diagnostic],
    first: usize,
    last: usize,
    labels: &Labels,
) {
    let lines: Vec<String> = findings
        .iter()
        .filter(|d| (first..=last).contains(&(d.range.start.line as usize)))
        .filter_map(|d| match &d.code {
            Some(NumberOrString::String(code)) => Some(format!("`{code}` {}", d.message)),
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        let _ = writeln!(md, "- {}: {}", labels.rules_firing, labels.none);
    } else {
        let _ = writeln!(md, "- {}:", labels.rules_firing);
        for line in lines {
            let _ = writeln!(md, "  - {line}");
        }
    }
}

fn rule_docs(code: Code) -> String {
    let rule = code.rule();
    let mut md = format!("**{}** `{}`: {}\n\n", rule.code, rule.name, rule.summary);
    if !rule.docs.trim().is_empty() {
        md.push_str(rule.docs.trim());
        md.push_str("\n\n");
    }
    let _ = write!(md, "[{}]({})", rule.code, rule.url());
    md
}

fn machine(host: &HostFacts, labels: &Labels) -> String {
    let cpus = host
        .usable_cpus
        .map_or_else(|| labels.unknown.to_owned(), |n| n.to_string());
    let shm = host.shm.as_ref().map_or_else(
        || labels.unknown.to_owned(),
        |s| {
            format!(
                "{} ({} {})",
                format_bytes(s.total_bytes),
                format_bytes(s.free_bytes),
                labels.free
            )
        },
    );
    format!("{cpus} {}, {} {shm}", labels.usable_cpus, labels.shm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_name_of_a_dotted_callee() {
        let text = "torch.utils.data.DataLoader(ds)";
        assert_eq!(
            last_name(text, TextRange::new(0, 27)),
            TextRange::new(17, 27)
        );
        assert_eq!(
            last_name("DL(ds)", TextRange::new(0, 2)),
            TextRange::new(0, 2)
        );
    }
}
