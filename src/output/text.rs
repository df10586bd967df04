//! `--format text`: ruff's layout, `path:row:col: CODE message`, then a code frame with the
//! fix's title as help, then one summary line. Colour only when asked (a TTY without NO_COLOR;
//! `check` decides).

use std::fmt::Write as _;
use std::io::{self, Write};

use annotate_snippets::renderer::{AnsiColor, Effects, Style};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::diagnostic::{Diagnostic, Severity};
use crate::fix::Applicability;
use crate::fix::primary_fix;
use crate::output::{Emitter, FileReport, Location, Summary, display_path};
use crate::text::TextRange;

pub struct Text {
    color: bool,
}

impl Text {
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    fn render(&self, file: &FileReport, d: &Diagnostic) -> String {
        let path = display_path(file.path);
        let start = Location::of(file, d.range.start);
        let severity_style = match d.severity {
            Severity::Error => AnsiColor::BrightRed.on_default(),
            Severity::Warning => AnsiColor::Yellow.on_default(),
            Severity::Info | Severity::Hint => AnsiColor::BrightBlue.on_default(),
        }
        .effects(Effects::BOLD);
        let fixable = d
            .fixes
            .iter()
            .any(|f| f.applicability == Applicability::Safe);
        let mut out = format!(
            "{}:{}{}:{}: {} {}{}\n",
            self.paint(Style::new().effects(Effects::BOLD), &path),
            cell_prefix(file, d.range.start),
            start.row,
            start.column,
            self.paint(severity_style, d.code.as_str()),
            if fixable {
                self.paint(AnsiColor::Cyan.on_default(), "[*] ")
            } else {
                String::new()
            },
            d.message,
        );
        out.push_str(&self.frame(file, d));
        out.push('\n');
        out
    }

    /// The lines the diagnostic spans, underlined, with help and notes.
    fn frame(&self, file: &FileReport, d: &Diagnostic) -> String {
        let first = file.index.line_of(d.range.start);
        let last = file
            .index
            .line_of(d.range.end.saturating_sub(1).max(d.range.start));
        let lines = TextRange::new(
            file.index.line_range(file.source, first).start,
            file.index.line_range(file.source, last).end,
        );
        let excerpt = file.source.get(lines.start..lines.end).unwrap_or("");
        let span = d.range.start - lines.start..d.range.end.min(lines.end) - lines.start;
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info | Severity::Hint => Level::INFO,
        };
        let label = format!("{} ({})", d.code.rule().name, d.severity.as_str());
        let mut group = Group::with_level(level.clone()).element(
            Snippet::source(excerpt)
                .line_start(Location::of(file, lines.start).row)
                .annotation(AnnotationKind::Primary.span(span).label(label)),
        );
        if let Some(fix) = primary_fix(d) {
            let help = match fix.applicability {
                Applicability::Safe => fix.title.clone(),
                Applicability::Unsafe => format!("{} (unsafe: --fix --unsafe-fixes)", fix.title),
                Applicability::DisplayOnly => fix.title.clone(),
            };
            group = group.element(Level::HELP.message(help));
        }
        for r in &d.related {
            let note = match &r.file {
                Some(other) if other.as_path() != file.path => {
                    format!("{}: {}", display_path(other), r.message)
                }
                _ => {
                    let at = Location::of(file, r.range.start);
                    let cell = cell_prefix(file, r.range.start);
                    format!("{cell}{}:{}: {}", at.row, at.column, r.message)
                }
            };
            group = group.element(Level::NOTE.message(note));
        }
        let renderer = if self.color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut rendered = renderer.render(&[group]);
        rendered.push('\n');
        rendered
    }
}

impl Emitter for Text {
    fn file(&mut self, out: &mut dyn Write, file: &FileReport) -> io::Result<()> {
        for d in file.diagnostics {
            out.write_all(self.render(file, d).as_bytes())?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        let line = summary_line(summary);
        let style = if summary.remaining == 0 {
            AnsiColor::Green.on_default()
        } else {
            Style::new()
        }
        .effects(Effects::BOLD);
        writeln!(out, "{}", self.paint(style, &line))
    }
}

/// `cell 3:` before the row in a notebook, as ruff prints it; nothing elsewhere.
fn cell_prefix(file: &FileReport, offset: usize) -> String {
    file.cell(offset)
        .map_or_else(String::new, |cell| format!("cell {cell}:"))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "Found 3 issues (1 fixable with --fix).", "All checks passed!", ...
pub fn summary_line(s: &Summary) -> String {
    let total = s.remaining + s.fixed;
    if total == 0 && s.errors == 0 {
        return "All checks passed!".to_owned();
    }
    let errors = plural(s.errors, "file", "files");
    if total == 0 {
        return format!("No issues found; {errors} could not be checked.");
    }
    let mut line = format!("Found {}", plural(total, "issue", "issues"));
    if s.fix_mode {
        let _ = write!(line, " ({} fixed, {} remaining)", s.fixed, s.remaining);
    } else {
        let mut notes = Vec::new();
        if s.fixable > 0 {
            notes.push(format!("{} fixable with --fix", s.fixable));
        }
        if s.unsafe_fixable > 0 {
            notes.push(format!(
                "{} more with --fix --unsafe-fixes",
                s.unsafe_fixable
            ));
        }
        if !notes.is_empty() {
            let _ = write!(line, " ({})", notes.join("; "));
        }
    }
    if s.errors > 0 {
        let _ = write!(line, "; {errors} could not be checked");
    }
    line.push('.');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_support::{render, summary};

    #[test]
    fn ruff_like_lines_with_a_code_frame_and_a_summary() {
        let out = render(&mut Text::new(false), &summary());
        insta::assert_snapshot!(out);
    }

    #[test]
    fn colour_only_when_asked() {
        assert!(!render(&mut Text::new(false), &summary()).contains('\x1b'));
        assert!(render(&mut Text::new(true), &summary()).contains('\x1b'));
    }

    #[test]
    fn summary_lines() {
        assert_eq!(summary_line(&Summary::default()), "All checks passed!");
        let s = Summary {
            remaining: 3,
            fixable: 1,
            unsafe_fixable: 2,
            ..Summary::default()
        };
        assert_eq!(
            summary_line(&s),
            "Found 3 issues (1 fixable with --fix; 2 more with --fix --unsafe-fixes)."
        );
        let s = Summary {
            remaining: 1,
            fixed: 2,
            fix_mode: true,
            ..Summary::default()
        };
        assert_eq!(summary_line(&s), "Found 3 issues (2 fixed, 1 remaining).");
        let s = Summary {
            remaining: 1,
            ..Summary::default()
        };
        assert_eq!(summary_line(&s), "Found 1 issue.");
        let s = Summary {
            errors: 2,
            ..Summary::default()
        };
        assert_eq!(
            summary_line(&s),
            "No issues found; 2 files could not be checked."
        );
    }
}
