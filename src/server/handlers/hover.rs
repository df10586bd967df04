//! Hover: DataLoader keyword arguments (what, default, workers/shm/fork, the value here and
//! this machine's facts), `DataLoader` itself (the loader's effective setup and its findings),
//! DL codes inside `# noqa` comments (the rule's docs), `set_start_method` and
//! `set_sharing_strategy`.

use std::fmt::Write as _;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tree_sitter::Node;

use crate::host::{HostFacts, format_bytes};
use crate::rules::Code;
use crate::server::hover_docs::{self, Labels};
use crate::server::noqa;
use crate::server::session::{Session, Snapshot, guarded};
use crate::server::settings::Locale;
use crate::text::TextRange;

pub fn hover(session: &Session, params: HoverParams) -> Result<Option<Hover>> {
    if session.fault.as_deref() == Some("hover") {
        return guarded("hover", || panic!("injected fault in hover"));
    }
    let position = params.text_document_position_params;
    let Some(snapshot) = session.snapshot(&position.text_document.uri) else {
        return Ok(None);
    };
    let encoding = session.encoding();
    let offset = snapshot.coords(encoding).offset(position.position);
    let hovered = guarded("hover", || {
        let findings = || {
            session
                .diagnostics(&position.text_document.uri)
                .map(|(_, d)| d)
                .unwrap_or_default()
        };
        content(session, &snapshot, offset, findings)
    })?;
    Ok(hovered.map(|(range, markdown)| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(snapshot.coords(encoding).range(range)),
    }))
}

/// What is under the cursor, as far as hover cares.
enum Target<'t> {
    Keyword { call: Node<'t>, name: Node<'t> },
    Callee { call: Node<'t>, name: Node<'t> },
}

fn content(
    session: &Session,
    snapshot: &Snapshot,
    offset: usize,
    findings: impl FnOnce() -> std::sync::Arc<Vec<Diagnostic>>,
) -> Option<(TextRange, String)> {
    let tree = snapshot.tree.as_ref()?;
    let config = session.config();
    let locale = config.locale;
    if let Some((range, code)) = noqa::code_in_comment(&snapshot.text, tree, offset) {
        let code: Code = code.parse().ok()?;
        return Some((range, rule_docs(code)));
    }
    let target = target_at(tree.root_node(), offset)?;
    let text = snapshot.text.as_str();
    match target {
        Target::Keyword { call, name } => {
            if callee_name(call, text)? != "DataLoader" {
                return None;
            }
            let keyword = node_text(name, text)?;
            let doc = hover_docs::argument(keyword)?;
            let labels = hover_docs::labels(locale);
            let mut md = format!("**DataLoader** `{keyword}`\n\n{}\n\n", doc.text(locale));
            let _ = writeln!(md, "- {}: `{}`", labels.default, doc.default);
            if let Some(value) = name.parent().and_then(|kw| kw.child_by_field_name("value")) {
                let _ = writeln!(md, "- {}: `{}`", labels.here, node_text(value, text)?);
            }
            let _ = writeln!(
                md,
                "- {}: {}",
                labels.machine,
                machine(&config.host, labels)
            );
            Some((range(name), md))
        }
        Target::Callee { call, name } => match node_text(name, text)? {
            "DataLoader" => Some((
                range(name),
                loader(call, text, &config.host, locale, findings()),
            )),
            "set_start_method" => {
                Some((range(name), hover_docs::set_start_method(locale).to_owned()))
            }
            "set_sharing_strategy" => Some((
                range(name),
                hover_docs::set_sharing_strategy(locale).to_owned(),
            )),
            _ => None,
        },
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

/// The loader's effective setup as written, and what the rules say about it.
fn loader(
    call: Node,
    text: &str,
    host: &HostFacts,
    locale: Locale,
    findings: std::sync::Arc<Vec<Diagnostic>>,
) -> String {
    let labels = hover_docs::labels(locale);
    let keyword = |name: &str| keyword_value(call, name, text);
    let mut md = format!("**DataLoader**: {}\n\n", labels.effective);
    let workers = keyword("num_workers").unwrap_or("0");
    let _ = writeln!(md, "- {}: `{workers}`", labels.workers);
    let start = keyword("multiprocessing_context").unwrap_or("None");
    let _ = writeln!(md, "- {}: `{start}`", labels.start_method);
    let _ = writeln!(
        md,
        "- {}: `{}`",
        labels.pinning,
        keyword("pin_memory").unwrap_or("False")
    );
    let _ = writeln!(md, "- {}: {}", labels.machine, machine(host, labels));
    let call_range = range(call);
    let codes: Vec<String> = findings
        .iter()
        .filter(|d| d.source.as_deref() == Some(crate::server::convert::SOURCE))
        .filter_map(|d| match &d.code {
            Some(NumberOrString::String(code)) => Some((code.clone(), d)),
            _ => None,
        })
        .filter(|(_, d)| {
            let line = d.range.start.line as usize;
            (call.start_position().row..=call.end_position().row).contains(&line)
        })
        .map(|(code, d)| format!("`{code}` {}", d.message))
        .collect();
    let _ = call_range;
    if codes.is_empty() {
        let _ = writeln!(md, "- {}: {}", labels.rules_firing, labels.none);
    } else {
        let _ = writeln!(md, "- {}:", labels.rules_firing);
        for code in codes {
            let _ = writeln!(md, "  - {code}");
        }
    }
    md
}

fn target_at(root: Node<'_>, offset: usize) -> Option<Target<'_>> {
    let node = root.descendant_for_byte_range(offset, offset)?;
    if node.kind() != "identifier" {
        return None;
    }
    let parent = node.parent()?;
    match parent.kind() {
        "keyword_argument" if parent.child_by_field_name("name") == Some(node) => {
            let call = parent.parent()?.parent()?;
            (call.kind() == "call").then_some(Target::Keyword { call, name: node })
        }
        "call" if parent.child_by_field_name("function") == Some(node) => Some(Target::Callee {
            call: parent,
            name: node,
        }),
        "attribute" if parent.child_by_field_name("attribute") == Some(node) => {
            let call = parent.parent()?;
            (call.kind() == "call" && call.child_by_field_name("function") == Some(parent))
                .then_some(Target::Callee { call, name: node })
        }
        _ => None,
    }
}

fn callee_name<'a>(call: Node, text: &'a str) -> Option<&'a str> {
    let function = call.child_by_field_name("function")?;
    let name = match function.kind() {
        "attribute" => function.child_by_field_name("attribute")?,
        _ => function,
    };
    node_text(name, text)
}

fn keyword_value<'a>(call: Node, name: &str, text: &'a str) -> Option<&'a str> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let found = args.named_children(&mut cursor).find(|arg| {
        arg.kind() == "keyword_argument"
            && arg
                .child_by_field_name("name")
                .and_then(|n| node_text(n, text))
                == Some(name)
    })?;
    node_text(found.child_by_field_name("value")?, text)
}

fn node_text<'a>(node: Node, text: &'a str) -> Option<&'a str> {
    text.get(node.start_byte()..node.end_byte())
}

fn range(node: Node) -> TextRange {
    TextRange::new(node.start_byte(), node.end_byte())
}
