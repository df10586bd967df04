//! Placing findings on the user's code: every frame of a finding that lies in the user's files
//! becomes a place on that file's line. The innermost one is the line to change; it is linked to
//! the fixes of the rules that prevent the failure, taken from the static analysis of that
//! file at the loader nearest to it. `dldoctor explain` prints the places; the language server
//! turns them into diagnostics with quick fixes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Finding, Frame};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::fix::Fix;
use crate::lang::Lang;
use crate::text::{LineIndex, TextRange};

/// How far (in lines) from the crashing frame a rule's finding may be to lend its fix.
pub const NEAR_LINES: u32 = 30;

/// The files a finding may point into.
pub trait Workspace {
    /// The file's text: an editor's unsaved buffer where there is one, else what is on disk.
    fn text(&self, path: &Path) -> Option<String>;
    /// The static analysis of `source`, the text of `path`, as `check` would run it.
    fn analyze(&self, path: &Path, source: &str) -> Vec<Diagnostic>;
}

/// The files of the local disk, analysed with `analyze`.
pub struct Disk<F>(pub F);

impl<F: Fn(&Path, &str) -> Vec<Diagnostic>> Workspace for Disk<F> {
    fn text(&self, path: &Path) -> Option<String> {
        read_source(path)
    }

    fn analyze(&self, path: &Path, source: &str) -> Vec<Diagnostic> {
        (self.0)(path, source)
    }
}

/// Larger files are not source code a crash points into.
const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// The text of a source file a frame names. Crash output can name any path: only a regular
/// file of a sensible size is read (`/dev/zero` or a FIFO would never end).
pub fn read_source(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SOURCE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// One file with the places of findings in it.
#[derive(Debug, Clone)]
pub struct PlacedFile {
    pub path: PathBuf,
    /// The text the places' ranges are in.
    pub source: String,
    pub places: Vec<Place>,
}

/// A finding on one line of the user's code.
#[derive(Debug, Clone)]
pub struct Place {
    /// Index of the finding in the list given to [`place`].
    pub finding: usize,
    pub frame: Frame,
    /// The line's code, without its indentation.
    pub range: TextRange,
    /// The innermost user frame: where the failure happened, the line to change. The others
    /// are the calls that led there.
    pub innermost: bool,
    /// The rule fix that applies here, on the innermost place only.
    pub rule_fix: Option<RuleFix>,
}

/// The fixes of a rule's diagnostic near the crashing line.
#[derive(Debug, Clone)]
pub struct RuleFix {
    pub code: Code,
    /// 1-based line of the rule's diagnostic.
    pub line: u32,
    pub fixes: Vec<Fix>,
}

impl Place {
    /// What the place says: the failure and its cause on the crashing line; on a calling line,
    /// that the failure came through the call made there.
    pub fn message(&self, finding: &Finding, lang: Lang) -> String {
        if !self.innermost {
            let called = match self.frame.function.as_str() {
                "" => "?",
                f => f,
            };
            return match lang {
                Lang::En => format!("{} (called from `{called}` here)", finding.title),
                Lang::Zh => format!("{}（由 `{called}` 在此处调用）", finding.title),
            };
        }
        let cause = finding.root_cause.trim();
        match cause.is_empty() {
            true => finding.title.clone(),
            false => format!("{}\n{cause}", finding.title),
        }
    }
}

/// Places every finding on the user's frames, innermost first, one place per finding and line.
/// A file that cannot be read or a line past its end is skipped. Relative frame paths are taken
/// from `root`.
pub fn place(
    findings: &[Finding],
    root: Option<&Path>,
    workspace: &impl Workspace,
) -> Vec<PlacedFile> {
    let mut files: Vec<(PlacedFile, LineIndex)> = Vec::new();
    let mut unreadable: HashSet<PathBuf> = HashSet::new();
    let mut seen = HashSet::new();
    for (index, finding) in findings.iter().enumerate() {
        let user_frames: Vec<&Frame> = finding.frames.iter().filter(|f| f.user).collect();
        for (i, frame) in user_frames.iter().enumerate().rev() {
            let innermost = i + 1 == user_frames.len();
            let path = resolve(&frame.file, root);
            if unreadable.contains(&path)
                || !seen.insert((finding.id.as_str(), path.clone(), frame.line))
            {
                continue;
            }
            let at = match files.iter().position(|(f, _)| f.path == path) {
                Some(at) => at,
                None => {
                    let Some(source) = workspace.text(&path) else {
                        unreadable.insert(path);
                        continue;
                    };
                    let lines = LineIndex::new(&source);
                    let places = Vec::new();
                    files.push((
                        PlacedFile {
                            path,
                            source,
                            places,
                        },
                        lines,
                    ));
                    files.len() - 1
                }
            };
            let (file, lines) = &mut files[at];
            let line = frame.line.saturating_sub(1);
            if frame.line == 0 || line as usize >= lines.line_count() {
                continue;
            }
            let range = code_of_line(&file.source, lines, line);
            let rule_fix = match innermost {
                true => rule_fix(workspace, file, lines, line, &finding.rules),
                false => None,
            };
            file.places.push(Place {
                finding: index,
                frame: (*frame).clone(),
                range,
                innermost,
                rule_fix,
            });
        }
    }
    files
        .into_iter()
        .map(|(file, _)| file)
        .filter(|f| !f.places.is_empty())
        .collect()
}

/// The line's range without its indentation and line ending.
fn code_of_line(source: &str, index: &LineIndex, line: u32) -> TextRange {
    let range = index.line_range(source, line);
    let text = source.get(range.start..range.end).unwrap_or_default();
    let indent = text.len() - text.trim_start().len();
    TextRange::new(range.start + indent, range.end)
}

/// The fixes that the named rules offer for the loader nearest to `line` (0-based) in `file`.
fn rule_fix(
    workspace: &impl Workspace,
    file: &PlacedFile,
    index: &LineIndex,
    line: u32,
    rules: &[String],
) -> Option<RuleFix> {
    let codes: Vec<Code> = rules.iter().filter_map(|r| r.parse().ok()).collect();
    if codes.is_empty() {
        return None;
    }
    let found = workspace.analyze(&file.path, &file.source);
    let (_, nearest) = found
        .into_iter()
        .filter(|d| codes.contains(&d.code) && !d.fixes.is_empty())
        .map(|d| (index.line_of(d.range.start).abs_diff(line), d))
        .filter(|(distance, _)| *distance <= NEAR_LINES)
        .min_by_key(|(distance, _)| *distance)?;
    Some(RuleFix {
        code: nearest.code,
        line: index.line_of(nearest.range.start) + 1,
        fixes: nearest.fixes,
    })
}

fn resolve(file: &str, root: Option<&Path>) -> PathBuf {
    let path = PathBuf::from(file);
    match root {
        Some(root) if path.is_relative() => root.join(path),
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{self, Context};
    use crate::config::Settings;
    use crate::host::HostFacts;
    use crate::python::index::ProjectIndex;

    const SCRIPT: &str = "import torch\nfrom torch.utils.data import DataLoader\n\ndata = []\n\n\ndef main():\n    loader = DataLoader(\n        data, num_workers=0, prefetch_factor=2)\n    return loader\n\n\nmain()\n";

    /// One file in memory (an editor's buffer), analysed for real.
    struct Buffer;

    impl Workspace for Buffer {
        fn text(&self, path: &Path) -> Option<String> {
            (path == Path::new("/p/train.py")).then(|| SCRIPT.to_owned())
        }
        fn analyze(&self, path: &Path, source: &str) -> Vec<Diagnostic> {
            let (settings, host, index) = (
                Settings::default(),
                HostFacts::unknown(),
                ProjectIndex::default(),
            );
            let ctx = Context {
                settings: &settings,
                host: &host,
                index: &index,
            };
            analyze::analyze(source, path, &ctx)
        }
    }

    fn frame(file: &str, line: u32, function: &str, user: bool) -> Frame {
        Frame {
            file: file.into(),
            line,
            function: function.into(),
            user,
        }
    }

    fn finding(rules: &[&str], frames: Vec<Frame>) -> Finding {
        Finding {
            id: "pytorch/prefetch-factor-without-workers".into(),
            title: "prefetch_factor without workers".into(),
            line: 1,
            matched: String::new(),
            root_cause: " The check rejects it. ".into(),
            workarounds: Vec::new(),
            dead_ends: Vec::new(),
            rules: rules.iter().map(|r| (*r).to_owned()).collect(),
            frames,
            evidence: crate::kb::EvidenceKind::Message,
        }
    }

    #[test]
    fn the_crashing_line_gets_the_rules_fix_and_callers_are_marked() {
        let findings = [finding(
            &["DL301"],
            vec![
                frame("train.py", 13, "<module>", true),
                frame("/p/train.py", 9, "main", true),
                frame(
                    "/venv/lib/python3.11/site-packages/torch/x.py",
                    5,
                    "f",
                    false,
                ),
            ],
        )];
        let placed = place(&findings, Some(Path::new("/p")), &Buffer);
        assert_eq!(placed.len(), 1);
        let places = &placed[0].places;
        assert_eq!(places.len(), 2);
        let (inner, outer) = (&places[0], &places[1]);
        assert!(inner.innermost && !outer.innermost);
        let code = &SCRIPT[inner.range.start..inner.range.end];
        assert_eq!(code, "data, num_workers=0, prefetch_factor=2)");
        assert_eq!(&SCRIPT[outer.range.start..outer.range.end], "main()");
        let fix = inner.rule_fix.as_ref().unwrap();
        assert_eq!((fix.code, fix.line), (Code::DL301, 9));
        assert!(fix.fixes[0].title.contains("prefetch_factor"));
        assert!(outer.rule_fix.is_none());
        assert_eq!(
            inner.message(&findings[0], Lang::En),
            "prefetch_factor without workers\nThe check rejects it."
        );
        assert_eq!(
            outer.message(&findings[0], Lang::Zh),
            "prefetch_factor without workers（由 `<module>` 在此处调用）"
        );
    }

    #[test]
    fn only_regular_files_are_read() {
        assert!(read_source(Path::new("/dev/zero")).is_none());
        assert!(read_source(Path::new("/proc/self")).is_none());
        assert!(read_source(Path::new("/no/such/file.py")).is_none());
        let findings = [finding(&[], vec![frame("/dev/zero", 1, "f", true)])];
        assert!(place(&findings, None, &Disk(|_: &Path, _: &str| Vec::new())).is_empty());
        assert!(read_source(Path::new(file!())).is_some_and(|t| t.contains("read_source")));
    }

    #[test]
    fn no_fix_without_a_rule_and_nothing_where_the_frame_cannot_be() {
        let findings = [
            finding(&[], vec![frame("/p/train.py", 9, "main", true)]),
            finding(&["DL301"], vec![frame("/p/train.py", 99, "main", true)]),
            finding(&["DL301"], vec![frame("/p/other.py", 9, "main", true)]),
            finding(&["DL101"], vec![frame("/p/train.py", 9, "main", true)]),
        ];
        let placed = place(&findings, None, &Buffer);
        assert_eq!(placed.len(), 1);
        let places = &placed[0].places;
        // The second copy of the same finding on the same line is placed once.
        assert_eq!(places.len(), 1, "{places:#?}");
        assert_eq!(places[0].finding, 0);
        assert!(places[0].rule_fix.is_none());
    }
}
