//! The text report of `dldoctor explain`, best finding first: what failed, where, why, what
//! fixes it (and which rule's code action applies it), what does not help, what may come next.

use std::fmt::Write as _;

use super::schema::{Entry, Lang};
use super::{EvidenceKind, Finding, KnowledgeBase};

struct Labels {
    line: &'static str,
    change: &'static str,
    no_user_frame: &'static str,
    from_frames: &'static str,
    why: &'static str,
    fixes: &'static str,
    quick_fix: &'static str,
    prevented_by: &'static str,
    dont: &'static str,
    because: &'static str,
    leads_to: &'static str,
    docs: &'static str,
    summary_one: &'static str,
    summary_many: &'static str,
}

const EN: Labels = Labels {
    line: "line",
    change: "change",
    no_user_frame: "no frame of your code in this output",
    from_frames: "diagnosed from the traceback's frames only: its final message line is missing, so this is less certain",
    why: "why",
    fixes: "fixes",
    quick_fix: "code action",
    prevented_by: "prevented by (dldoctor check)",
    dont: "don't",
    because: "because",
    leads_to: "this fix may lead to",
    docs: "docs",
    summary_one: "1 known failure found",
    summary_many: "known failures found",
};

const ZH: Labels = Labels {
    line: "行",
    change: "需要修改",
    no_user_frame: "输出中没有您代码的栈帧",
    from_frames: "仅根据回溯的栈帧诊断：缺少最后一行异常消息，因此把握较低",
    why: "原因",
    fixes: "解决办法",
    quick_fix: "代码操作",
    prevented_by: "可由以下规则预防（dldoctor check）",
    dont: "不要",
    because: "因为",
    leads_to: "此修复之后可能出现",
    docs: "文档",
    summary_one: "找到 1 个已知故障",
    summary_many: "个已知故障",
};

/// Renders findings for a terminal. `kb` supplies the links (transition graph, docs).
pub fn render_text(findings: &[Finding], kb: &KnowledgeBase, lang: Lang) -> String {
    let l = labels(lang);
    let mut out = String::new();
    for finding in findings {
        let _ = writeln!(out, "{}: {}", finding.id, finding.title);
        let _ = writeln!(
            out,
            "  --> {} {}: {}",
            l.line, finding.line, finding.matched
        );
        if finding.evidence == EvidenceKind::Frames {
            let _ = writeln!(out, "  {}", l.from_frames);
        }
        match finding.user_frame() {
            Some(frame) => {
                let _ = writeln!(
                    out,
                    "  {}: {}:{} in {}",
                    l.change, frame.file, frame.line, frame.function
                );
            }
            None if !finding.frames.is_empty() => {
                let _ = writeln!(out, "  {}", l.no_user_frame);
            }
            None => {}
        }
        body(&mut out, finding, kb, lang);
        out.push('\n');
    }
    match (findings.len(), lang) {
        (1, _) => {
            let _ = writeln!(out, "{}", l.summary_one);
        }
        (n, Lang::En) => {
            let _ = writeln!(out, "{n} {}", l.summary_many);
        }
        (n, Lang::Zh) => {
            let _ = writeln!(out, "找到 {n} {}", l.summary_many);
        }
    }
    out
}

/// The part of a finding that comes from its entry: cause, fixes, dead ends, links.
fn body(out: &mut String, finding: &Finding, kb: &KnowledgeBase, lang: Lang) {
    let l = labels(lang);
    let entry = kb.entry(&finding.id);
    let _ = writeln!(out, "  {}: {}", l.why, finding.root_cause);
    let _ = writeln!(out, "  {}:", l.fixes);
    for (i, w) in finding.workarounds.iter().enumerate() {
        let _ = writeln!(out, "    {}. {}", i + 1, w.action);
        if !w.how.is_empty() && w.how != w.action {
            let _ = writeln!(out, "       {}", w.how);
        }
        if let Some(fix) = &w.fix {
            let _ = writeln!(
                out,
                "       {}: {} \"{}\"",
                l.quick_fix, fix.rule, fix.title
            );
        }
    }
    if !finding.rules.is_empty() {
        let _ = writeln!(out, "  {}: {}", l.prevented_by, finding.rules.join(", "));
    }
    for d in &finding.dead_ends {
        let action = d.action.trim_end_matches(['.', '。']);
        let _ = match lang {
            Lang::En => writeln!(
                out,
                "  {}: {action}, {} {}",
                l.dont,
                l.because,
                sentence_case_lower(&d.why_fails)
            ),
            Lang::Zh => writeln!(out, "  {}: {action}，{}{}", l.dont, l.because, d.why_fails),
        };
    }
    if let Some(entry) = entry {
        for next in &entry.transition_graph.leads_to {
            let title = kb
                .entry(next)
                .map(|e| e.title_in(lang).to_string())
                .unwrap_or_default();
            let _ = writeln!(out, "  {}: {next} ({title})", l.leads_to);
        }
        if let Some(url) = &entry.official_doc_url {
            let _ = writeln!(out, "  {}: {url}", l.docs);
        }
    }
}

fn labels(lang: Lang) -> &'static Labels {
    match lang {
        Lang::En => &EN,
        Lang::Zh => &ZH,
    }
}

/// `dldoctor kb show`: one entry in full.
pub fn render_entry(entry: &Entry, kb: &KnowledgeBase, lang: Lang) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", entry.id, entry.title_in(lang));
    let _ = writeln!(out, "  {}", entry.signature_in(lang));
    let _ = writeln!(
        out,
        "  severity: {}  category: {}",
        entry.severity.as_str(),
        entry.category
    );
    for pattern in entry.patterns() {
        let _ = writeln!(out, "  regex: {pattern}");
    }
    let finding = super::matcher::finding_of(entry, lang);
    body(&mut out, &finding, kb, lang);
    for ev in &entry.evidence {
        let _ = writeln!(out, "  source: {} {}", ev.url, ev.note);
    }
    out
}

/// "Pinned memory is ..." -> "pinned memory is ..." to follow "because"; names such as
/// "DataLoader", "PyTorch" or "SIGKILL" keep their capitals.
fn sentence_case_lower(text: &str) -> String {
    let word = text.split_whitespace().next().unwrap_or_default();
    let mut chars = word.chars();
    let plain_word = chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.clone().next().is_some()
        && chars.all(|c| c.is_ascii_lowercase());
    if !plain_word && word != "A" {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..1].to_ascii_lowercase());
    out.push_str(&text[1..]);
    out
}

#[cfg(test)]
mod tests {
    use super::sentence_case_lower;

    #[test]
    fn only_ordinary_words_are_lowercased() {
        assert_eq!(sentence_case_lower("Pinned memory is"), "pinned memory is");
        assert_eq!(
            sentence_case_lower("DataLoader workers"),
            "DataLoader workers"
        );
        assert_eq!(sentence_case_lower("SIGKILL is"), "SIGKILL is");
        assert_eq!(sentence_case_lower("A process"), "a process");
        assert_eq!(sentence_case_lower("PyTorch does"), "PyTorch does");
        assert_eq!(sentence_case_lower(""), "");
    }
}
