//! Finds known failures in crash output.
//!
//! Lines are read one at a time (memory stays flat on a multi-gigabyte log), cleaned, and fed to
//! a small traceback parser per output stream (per `[rankN]:` prefix). Every line is run against
//! all patterns of the knowledge base at once ([`RegexSet`]); a line that a narrow terminal
//! wrapped is also tried joined with the line before. Candidates are ranked:
//!
//! 1. a fatal error over a warning;
//! 2. a specific cause over a generic wrapper (`stack expects each tensor to be equal size` over
//!    `Caught RuntimeError in DataLoader worker process 0`); a generic entry is dropped when a
//!    specific one explains the same traceback;
//! 3. the later failure over an earlier one (a traceback, or a loose line printed outside any
//!    traceback), and within one traceback the final exception of a chain over its context
//!    ("During handling of the above exception...").
//!
//! Only a bounded amount of state is kept: per stream the frames of the current traceback, and
//! per entry its best match.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead};
use std::path::PathBuf;

use regex::{Regex, RegexSet, RegexSetBuilder};
use serde::Serialize;

use super::KnowledgeBase;
use super::clean::{LineReader, clean_line};
use super::prefilter::{Prefilter, plain_text};
use super::schema::{Entry, EntrySeverity, FixRef, FrameStep, Lang};
use super::traceback::{Frame, parse_frame};
use super::validate::{PATTERN_SIZE_LIMIT, compile_pattern};

/// Frames kept per traceback (the innermost ones: where the error happened).
const MAX_FRAMES: usize = 128;
/// Output streams (`[rankN]:` prefixes) tracked separately.
const MAX_STREAMS: usize = 64;
/// Matches waiting for their traceback to end, per stream.
const MAX_PENDING: usize = 256;
/// Characters of a matched line kept in a finding.
const MAX_MATCHED_CHARS: usize = 1000;
/// A line this long may have been wrapped at a space: try it joined with the next.
const WRAP_MIN_CHARS: usize = 40;
/// A line this long may have been cut mid-word at the terminal's width.
const WRAP_AT_WIDTH_MIN_CHARS: usize = 70;
/// Characters of each line kept in a join: more than the longest message a pattern spans.
const JOIN_CONTEXT_CHARS: usize = 400;
/// Characters of a frame's source line kept for frame evidence.
const MAX_SOURCE_CHARS: usize = 300;

/// The line that begins an exception's message (`RuntimeError: ...`, `KeyboardInterrupt`):
/// when a traceback's final message is there and no entry matched it, the crash is not one
/// the knowledge base knows, and its frames are not read for evidence.
static EXCEPTION_LINE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning|Iteration)\b")
        .unwrap_or_else(|_| Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!()))
});

/// Options of [`explain`].
#[derive(Debug, Clone, Default)]
pub struct ExplainOptions {
    /// The project root: frames under it are the user's.
    pub root: Option<PathBuf>,
    pub lang: Lang,
}

/// A known failure found in the output, in the JSON shape of `explain --format json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub id: String,
    pub title: String,
    /// 1-based line of the input where the failure's message is.
    pub line: u64,
    /// That line, cleaned of terminal codes.
    pub matched: String,
    pub root_cause: String,
    pub workarounds: Vec<FindingWorkaround>,
    pub dead_ends: Vec<FindingDeadEnd>,
    pub rules: Vec<String>,
    /// The frames of the traceback the message ends, outermost first.
    pub frames: Vec<Frame>,
    /// What the diagnosis rests on: the failure's own message, or only the frames of a
    /// traceback whose final line is missing (lower confidence).
    pub evidence: EvidenceKind,
}

/// What a finding rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceKind {
    /// Only the frames and source lines of a traceback whose message line is missing.
    Frames,
    /// A line of the output matched one of the entry's patterns.
    Message,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingWorkaround {
    pub action: String,
    pub how: String,
    /// The code action that applies it, if one does.
    pub fix: Option<FixRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingDeadEnd {
    pub action: String,
    pub why_fails: String,
}

impl Finding {
    /// The innermost frame in the user's own files: the line to change.
    pub fn user_frame(&self) -> Option<&Frame> {
        self.frames.iter().rev().find(|f| f.user)
    }
}

/// All patterns of a knowledge base, compiled into one set.
#[derive(Debug, Clone)]
pub struct Matcher {
    set: Option<RegexSet>,
    /// Pattern index -> entry index.
    owners: Vec<usize>,
    /// Per entry: the frame a match needs (`requires_frame`).
    required_frames: Vec<Option<Regex>>,
    /// Frame evidence of every entry, in entry order.
    frame_evidence: Vec<CompiledFrameEvidence>,
    /// The literals the patterns need; `None` when some pattern needs none.
    prefilter: Option<Prefilter>,
}

#[derive(Debug, Clone)]
struct CompiledFrameEvidence {
    entry: usize,
    steps: Vec<CompiledStep>,
    innermost: bool,
}

#[derive(Debug, Clone)]
struct CompiledStep {
    function: Option<Regex>,
    file: Option<Regex>,
    source: Option<Regex>,
}

impl CompiledStep {
    /// `None` when a pattern does not compile (`kb validate` reports it).
    fn new(step: &FrameStep) -> Option<Self> {
        let compile = |p: &Option<String>| match p {
            Some(p) => compile_pattern(p).ok().map(Some),
            None => Some(None),
        };
        Some(CompiledStep {
            function: compile(&step.function)?,
            file: compile(&step.file)?,
            source: compile(&step.source)?,
        })
    }

    fn matches(&self, f: &TracedFrame) -> bool {
        self.function
            .as_ref()
            .is_none_or(|re| re.is_match(&f.frame.function))
            && self
                .file
                .as_ref()
                .is_none_or(|re| re.is_match(&f.frame.file.replace('\\', "/")))
            && self
                .source
                .as_ref()
                .is_none_or(|re| f.source.as_deref().is_some_and(|s| re.is_match(s)))
    }
}

impl CompiledFrameEvidence {
    /// The index of the frame that completes the evidence, if the frames show it.
    fn find(&self, frames: &[TracedFrame]) -> Option<usize> {
        let (last, rest) = self.steps.split_last()?;
        let (mut next, end) = (0, frames.len());
        let mut matched_rest = |limit: usize| -> Option<usize> {
            for step in rest {
                let offset = frames
                    .get(next..limit)?
                    .iter()
                    .position(|f| step.matches(f))?;
                next += offset + 1;
            }
            Some(next)
        };
        if self.innermost {
            let index = end.checked_sub(1)?;
            let frame = frames.get(index)?;
            (last.matches(frame) && matched_rest(index).is_some()).then_some(index)
        } else {
            let from = matched_rest(end)?;
            let offset = frames.get(from..)?.iter().position(|f| last.matches(f))?;
            Some(from + offset)
        }
    }
}

impl Matcher {
    pub fn new(entries: &[Entry]) -> Self {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            for pattern in entry.patterns() {
                // A pattern that does not compile alone is skipped rather than breaking the set;
                // `kb validate` reports it.
                if compile_pattern(pattern).is_ok() {
                    patterns.push(pattern.to_string());
                    owners.push(index);
                } else {
                    tracing::warn!("{}: pattern does not compile: {pattern}", entry.id);
                }
            }
        }
        let set = if patterns.is_empty() {
            None
        } else {
            RegexSetBuilder::new(&patterns)
                .size_limit(PATTERN_SIZE_LIMIT * 64)
                .dfa_size_limit(PATTERN_SIZE_LIMIT * 16)
                .build()
                .map_err(|err| tracing::error!("knowledge-base patterns: {err}"))
                .ok()
        };
        let required_frames = entries
            .iter()
            .map(|e| {
                e.requires_frame
                    .as_deref()
                    .and_then(|p| compile_pattern(p).ok())
            })
            .collect();
        let frame_evidence = entries
            .iter()
            .enumerate()
            .flat_map(|(entry, e)| {
                e.frame_evidence.iter().filter_map(move |ev| {
                    Some(CompiledFrameEvidence {
                        entry,
                        steps: ev
                            .steps
                            .iter()
                            .map(CompiledStep::new)
                            .collect::<Option<Vec<_>>>()?,
                        innermost: ev.innermost,
                    })
                })
            })
            .collect();
        let prefilter = set
            .as_ref()
            .and_then(|_| Prefilter::new(patterns.iter().map(String::as_str)));
        Matcher {
            set,
            owners,
            required_frames,
            frame_evidence,
            prefilter,
        }
    }

    /// The entry the frames point at, and the frame that completes the evidence: of several,
    /// the one completed deepest (nearest the point of failure), then the first entry.
    fn entry_from_frames(&self, frames: &[TracedFrame]) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for evidence in &self.frame_evidence {
            if let Some(index) = evidence.find(frames)
                && best.is_none_or(|(_, b)| index > b)
            {
                best = Some((evidence.entry, index));
            }
        }
        best
    }

    fn requires_frame(&self, entry: usize) -> bool {
        self.required_frames.get(entry).is_some_and(Option::is_some)
    }

    /// Whether a match of `entry` may stand with these frames.
    fn frames_allow<'f>(
        &self,
        entry: usize,
        mut frames: impl Iterator<Item = &'f TracedFrame>,
    ) -> bool {
        match self.required_frames.get(entry) {
            Some(Some(re)) => frames.any(|f| re.is_match(&f.frame.file.replace('\\', "/"))),
            _ => true,
        }
    }

    /// The entries (indices, sorted, unique) with a pattern matching `text`.
    pub fn entries_matching(&self, text: &str) -> Vec<usize> {
        let Some(set) = &self.set else {
            return Vec::new();
        };
        if !set.is_match(text) {
            return Vec::new();
        }
        let mut entries: Vec<usize> = set
            .matches(text)
            .iter()
            .filter_map(|i| self.owners.get(i).copied())
            .collect();
        entries.dedup();
        entries
    }
}

/// Diagnoses `text` (terminal output or a log); findings best first.
pub fn explain(text: &str, kb: &KnowledgeBase, options: &ExplainOptions) -> Vec<Finding> {
    let mut explainer = Explainer::new(kb, options.clone());
    let mut reader = LineReader::new(text.as_bytes());
    // Reading from memory cannot fail.
    while let Ok(Some(line)) = reader.next_line() {
        explainer.feed_line(line);
    }
    explainer.finish()
}

/// Diagnoses a stream line by line with bounded memory; findings best first.
pub fn explain_reader<R: BufRead>(
    reader: R,
    kb: &KnowledgeBase,
    options: &ExplainOptions,
) -> io::Result<Vec<Finding>> {
    let mut explainer = Explainer::new(kb, options.clone());
    let mut reader = LineReader::new(reader);
    while let Some(line) = reader.next_line()? {
        explainer.feed_line(line);
    }
    Ok(explainer.finish())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Position {
    /// An exception that another one was raised while handling.
    Context,
    /// A line outside any traceback (a worker's `ERROR: ...`, a warning).
    Loose,
    /// The last exception of a traceback.
    Final,
}

#[derive(Debug, Clone)]
struct Candidate {
    entry: usize,
    /// Order of the traceback (or loose line) in the output: a later failure outranks an
    /// earlier one of the same kind.
    seq: u64,
    line: u64,
    matched: String,
    position: Position,
    frames: Vec<Frame>,
    section: u32,
    evidence: EvidenceKind,
}

/// A frame of the current traceback with the source line shown under it.
#[derive(Debug, Clone)]
struct TracedFrame {
    frame: Frame,
    source: Option<String>,
    /// The input line of the frame, and the frame line as printed.
    line: u64,
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    /// After `Traceback (most recent call last):`, reading frames.
    Frames,
    /// Reading the exception's message.
    Message,
    /// A blank line after the message: the chain may go on.
    AfterMessage,
    /// After "During handling of the above exception...": the next traceback continues it.
    Chained,
}

#[derive(Debug)]
struct PrevLine {
    text: String,
    line: u64,
    entries: Vec<usize>,
    /// The prefilter found none of the patterns' literals in it.
    no_literal: bool,
}

#[derive(Debug)]
struct StreamState {
    phase: Phase,
    in_group: bool,
    section: u32,
    frames: VecDeque<TracedFrame>,
    /// The current section's exception message line was seen (it may have matched nothing).
    message_seen: bool,
    pending: Vec<Candidate>,
    prev: Option<PrevLine>,
    group_seq: u64,
}

impl StreamState {
    fn new() -> Self {
        StreamState {
            phase: Phase::Idle,
            in_group: false,
            section: 0,
            frames: VecDeque::new(),
            message_seen: false,
            pending: Vec::new(),
            prev: None,
            group_seq: 0,
        }
    }

    fn mark_section_context(&mut self) {
        let section = self.section;
        for c in self.pending.iter_mut().filter(|c| c.section == section) {
            c.position = Position::Context;
        }
    }
}

/// The streaming matcher: feed lines, then [`Explainer::finish`].
pub struct Explainer<'kb> {
    kb: &'kb KnowledgeBase,
    options: ExplainOptions,
    line_no: u64,
    streams: Vec<(String, StreamState)>,
    best: HashMap<usize, Candidate>,
    seq: Cell<u64>,
    /// Buffers of the prefilter, reused from line to line.
    plain: Vec<u8>,
    join: Vec<u8>,
}

impl<'kb> Explainer<'kb> {
    pub fn new(kb: &'kb KnowledgeBase, options: ExplainOptions) -> Self {
        Explainer {
            kb,
            options,
            line_no: 0,
            streams: Vec::new(),
            best: HashMap::new(),
            seq: Cell::new(0),
            plain: Vec::new(),
            join: Vec::new(),
        }
    }

    /// Feeds one raw line (without its terminator).
    pub fn feed_line(&mut self, raw: &[u8]) {
        self.line_no += 1;
        if self.skip_plain_line(raw) {
            return;
        }
        let Some(clean) = clean_line(raw) else {
            return;
        };
        let index = match self.streams.iter().position(|(s, _)| *s == clean.stream) {
            Some(i) => i,
            None if self.streams.len() < MAX_STREAMS => {
                self.streams.push((clean.stream, StreamState::new()));
                self.streams.len() - 1
            }
            // Past the limit, further streams share the first one.
            None => 0,
        };
        let Explainer {
            kb,
            options,
            line_no,
            streams,
            best,
            seq,
            ..
        } = self;
        if let Some((_, state)) = streams.get_mut(index) {
            let ctx = LineContext {
                kb,
                options,
                line_no: *line_no,
                seq,
            };
            ctx.process(state, best, &clean.text);
        }
    }

    /// Takes a line that cannot matter (no pattern's literal, no marker, outside a traceback)
    /// without cleaning or matching it; it is only kept as the line before the next.
    fn skip_plain_line(&mut self, raw: &[u8]) -> bool {
        let Some(prefilter) = &self.kb.matcher().prefilter else {
            return false;
        };
        // Lines without a launcher prefix belong to the stream without a name.
        let Some((_, state)) = self.streams.iter_mut().find(|(s, _)| s.is_empty()) else {
            return false;
        };
        if state.phase != Phase::Idle {
            return false;
        }
        let Some(text) = plain_text(raw, &mut self.plain) else {
            return false;
        };
        let text = text.trim_ascii();
        if prefilter.may_match(text) {
            return false;
        }
        // A message a terminal wrapped: its literal may span the join with the line before.
        // A pattern can match the join only if the join holds one of its literals: in the
        // line before (unless it was checked), in this one (it is not), or across the join.
        if let Some(prev) = &state.prev
            && prev.text.len() >= WRAP_MIN_CHARS
            && (!prev.no_literal
                || prefilter.may_match_across(prev.text.as_bytes(), text, &mut self.join))
        {
            return false;
        }
        // The plain text is ASCII.
        let Ok(text) = std::str::from_utf8(text) else {
            return false;
        };
        if text.is_empty() {
            state.prev = None;
        } else if let Some(prev) = &mut state.prev {
            prev.text.clear();
            prev.text.push_str(text);
            prev.line = self.line_no;
            prev.entries.clear();
            prev.no_literal = true;
        } else {
            state.prev = Some(PrevLine {
                text: text.to_string(),
                line: self.line_no,
                entries: Vec::new(),
                no_literal: true,
            });
        }
        true
    }

    /// Ends the input and returns the findings, best first.
    pub fn finish(mut self) -> Vec<Finding> {
        for (_, state) in &mut self.streams {
            close_group(self.kb, state, &mut self.best);
        }
        let entries = self.kb.entries();
        let mut candidates: Vec<Candidate> = self.best.into_values().collect();
        candidates.sort_by_key(|c| {
            let entry = &entries[c.entry];
            std::cmp::Reverse((
                c.evidence,
                entry.severity,
                !entry.generic,
                c.seq,
                c.position,
                c.line,
            ))
        });
        candidates
            .into_iter()
            .map(|c| finding(&entries[c.entry], c, self.options.lang))
            .collect()
    }
}

struct LineContext<'a> {
    kb: &'a KnowledgeBase,
    options: &'a ExplainOptions,
    line_no: u64,
    seq: &'a Cell<u64>,
}

impl LineContext<'_> {
    fn next_seq(&self) -> u64 {
        self.seq.set(self.seq.get() + 1);
        self.seq.get()
    }
}

impl LineContext<'_> {
    fn process(&self, state: &mut StreamState, best: &mut HashMap<usize, Candidate>, text: &str) {
        let trimmed = text.trim_start();
        let indented = trimmed.len() < text.len();

        if trimmed.ends_with("Traceback (most recent call last):") {
            // `Original Traceback ...` (the worker wrapper) and the legacy
            // `RuntimeError: Traceback ...` (PyTorch <= 1.1) continue the exception before them.
            let wrapper = !trimmed.starts_with("Traceback");
            if wrapper {
                self.match_line(state, best, text, trimmed);
            }
            if state.in_group && (state.phase == Phase::Chained || wrapper) {
                state.mark_section_context();
                state.section += 1;
            } else {
                self.open_group(state, best);
            }
            state.message_seen = false;
            state.phase = Phase::Frames;
            state.prev = None;
            return;
        }
        if state.in_group
            && (trimmed.starts_with("During handling of the above exception")
                || trimmed.starts_with("The above exception was the direct cause"))
        {
            state.mark_section_context();
            state.phase = Phase::Chained;
            state.prev = None;
            return;
        }
        match state.phase {
            Phase::Frames => {
                if self.push_frame(state, text, trimmed) {
                    return;
                }
                // Source lines, `^^^^` markers and "[Previous line repeated N more times]".
                if indented || trimmed.is_empty() || trimmed.starts_with("[Previous line") {
                    if indented
                        && let Some(last) = state.frames.back_mut()
                        && last.source.is_none()
                        && !trimmed.chars().all(|c| matches!(c, '^' | '~' | ' '))
                    {
                        last.source = Some(truncate_chars(trimmed, MAX_SOURCE_CHARS));
                    }
                    return;
                }
                state.message_seen = EXCEPTION_LINE.is_match(trimmed);
                state.phase = Phase::Message;
            }
            Phase::Message => {
                if trimmed.is_empty() {
                    state.phase = Phase::AfterMessage;
                    state.prev = None;
                    return;
                }
                // An exception's message continues on indented lines; anything else is new
                // output that only happens to follow it (a log line, another process).
                if !indented {
                    close_group(self.kb, state, best);
                    state.phase = Phase::Idle;
                }
            }
            Phase::AfterMessage | Phase::Chained => {
                if trimmed.is_empty() {
                    return;
                }
                // An indented paragraph still belongs to the message (the spawn bootstrap
                // error); anything else is new output.
                if !(indented && state.phase == Phase::AfterMessage) {
                    close_group(self.kb, state, best);
                    state.phase = Phase::Idle;
                }
            }
            Phase::Idle => {
                // An excerpt that lost its `Traceback (most recent call last):` header.
                if trimmed.starts_with("File \"") && parse_frame(text, None).is_some() {
                    self.open_group(state, best);
                    state.message_seen = false;
                    state.phase = Phase::Frames;
                    state.prev = None;
                    self.push_frame(state, text, trimmed);
                    return;
                }
            }
        }
        if trimmed.is_empty() {
            state.prev = None;
            return;
        }

        self.match_line(state, best, text, trimmed);
    }

    /// Ends the stream's traceback (if any) and starts a new one.
    fn open_group(&self, state: &mut StreamState, best: &mut HashMap<usize, Candidate>) {
        close_group(self.kb, state, best);
        state.in_group = true;
        state.group_seq = self.next_seq();
        state.section = 0;
        state.frames.clear();
    }

    /// Keeps `text` as a frame of the current traceback if it is one.
    fn push_frame(&self, state: &mut StreamState, text: &str, trimmed: &str) -> bool {
        let Some(frame) = parse_frame(text, self.options.root.as_deref()) else {
            return false;
        };
        if state.frames.len() == MAX_FRAMES {
            state.frames.pop_front();
        }
        state.frames.push_back(TracedFrame {
            frame,
            source: None,
            line: self.line_no,
            text: truncate_chars(trimmed, MAX_MATCHED_CHARS),
        });
        state.prev = None;
        true
    }

    /// Runs the patterns on one line, and on it joined with the line before (terminal wrap).
    fn match_line(
        &self,
        state: &mut StreamState,
        best: &mut HashMap<usize, Candidate>,
        text: &str,
        trimmed: &str,
    ) {
        let matcher = self.kb.matcher();
        let entries = matcher.entries_matching(text);
        for &entry in &entries {
            self.add(state, best, entry, self.line_no, trimmed.to_string());
        }
        // A message split over two lines by a narrow terminal.
        if let Some(prev) = state.prev.take() {
            for joined in wrapped_joins(&prev.text, trimmed) {
                for entry in matcher.entries_matching(&joined) {
                    if !entries.contains(&entry) && !prev.entries.contains(&entry) {
                        self.add(state, best, entry, prev.line, joined.clone());
                    }
                }
            }
        }
        state.prev = Some(PrevLine {
            text: truncate_chars(trimmed, super::clean::MAX_LINE),
            line: self.line_no,
            no_literal: entries.is_empty()
                && matcher
                    .prefilter
                    .as_ref()
                    .is_some_and(|p| !p.may_match(trimmed.as_bytes())),
            entries,
        });
    }

    fn add(
        &self,
        state: &mut StreamState,
        best: &mut HashMap<usize, Candidate>,
        entry: usize,
        line: u64,
        matched: String,
    ) {
        let matcher = self.kb.matcher();
        if matcher.requires_frame(entry)
            && !(state.in_group && matcher.frames_allow(entry, state.frames.iter()))
        {
            return;
        }
        let candidate = Candidate {
            entry,
            seq: if state.in_group {
                state.group_seq
            } else {
                self.next_seq()
            },
            line,
            matched: truncate_chars(&matched, MAX_MATCHED_CHARS),
            position: if state.in_group {
                Position::Final
            } else {
                Position::Loose
            },
            // A traceback's candidates get its frames when it ends (see `close_group`): the
            // worker's frames come after the wrapper line that matched.
            frames: Vec::new(),
            section: state.section,
            evidence: EvidenceKind::Message,
        };
        if state.in_group && state.pending.len() < MAX_PENDING {
            state.pending.push(candidate);
        } else {
            merge(best, candidate);
        }
    }
}

/// The ways two lines can be one message that a terminal wrapped: at a space (the space lost
/// to the newline), or mid-word at the terminal's width.
fn wrapped_joins(prev: &str, next: &str) -> Vec<String> {
    let len = prev.chars().count();
    if len < WRAP_MIN_CHARS {
        return Vec::new();
    }
    let tail = match prev.char_indices().nth_back(JOIN_CONTEXT_CHARS) {
        Some((start, _)) => &prev[start..],
        None => prev,
    };
    let head = match next.char_indices().nth(JOIN_CONTEXT_CHARS) {
        Some((end, _)) => &next[..end],
        None => next,
    };
    let mut joins = vec![format!("{tail} {head}")];
    if len >= WRAP_AT_WIDTH_MIN_CHARS {
        joins.push(format!("{tail}{head}"));
    }
    joins
}

/// Ends the current traceback of a stream: its pending matches become final (or stay context),
/// generic ones are dropped when a specific one explains the same traceback.
fn close_group(kb: &KnowledgeBase, state: &mut StreamState, best: &mut HashMap<usize, Candidate>) {
    let entries = kb.entries();
    let any_specific = state.pending.iter().any(|c| !entries[c.entry].generic);
    let frames: Vec<Frame> = state.frames.iter().map(|f| f.frame.clone()).collect();
    // No specific message matched and the final one is missing: what do the frames show?
    if state.in_group && !any_specific && !state.message_seen {
        let traced = state.frames.make_contiguous();
        if let Some((entry, index)) = kb.matcher().entry_from_frames(traced)
            && let Some(at) = traced.get(index)
        {
            merge(
                best,
                Candidate {
                    entry,
                    seq: state.group_seq,
                    line: at.line,
                    matched: at.text.clone(),
                    position: Position::Final,
                    frames: frames.clone(),
                    section: state.section,
                    evidence: EvidenceKind::Frames,
                },
            );
        }
    }
    for mut candidate in state.pending.drain(..) {
        if any_specific && entries[candidate.entry].generic {
            continue;
        }
        candidate.frames = frames.clone();
        merge(best, candidate);
    }
    state.in_group = false;
    state.section = 0;
    state.message_seen = false;
}

/// Keeps the better match of an entry: one inside a traceback (it has the frames) over a loose
/// line, then the final exception over context, then the later one.
fn merge(best: &mut HashMap<usize, Candidate>, candidate: Candidate) {
    let key = |c: &Candidate| (c.evidence, !c.frames.is_empty(), c.position, c.line);
    match best.get(&candidate.entry) {
        Some(old) if key(old) > key(&candidate) => {}
        _ => {
            best.insert(candidate.entry, candidate);
        }
    }
}

/// The finding an entry's own signature would give: for `kb show` and hover texts.
pub fn finding_of(entry: &Entry, lang: Lang) -> Finding {
    finding(
        entry,
        Candidate {
            entry: 0,
            seq: 0,
            line: 0,
            matched: entry.signature_in(lang).to_string(),
            position: Position::Final,
            frames: Vec::new(),
            section: 0,
            evidence: EvidenceKind::Message,
        },
        lang,
    )
}

fn finding(entry: &Entry, c: Candidate, lang: Lang) -> Finding {
    Finding {
        id: entry.id.clone(),
        title: entry.title_in(lang).to_string(),
        line: c.line,
        matched: c.matched,
        root_cause: entry.root_cause_in(lang).to_string(),
        workarounds: entry
            .workarounds_in(lang)
            .into_iter()
            .map(|(action, how, fix)| FindingWorkaround {
                action: action.to_string(),
                how: how.to_string(),
                fix: fix.cloned(),
            })
            .collect(),
        dead_ends: entry
            .dead_ends_in(lang)
            .into_iter()
            .map(|(action, why)| FindingDeadEnd {
                action: action.to_string(),
                why_fails: why.to_string(),
            })
            .collect(),
        rules: entry.rules.clone(),
        frames: c.frames,
        evidence: c.evidence,
    }
}

impl EntrySeverity {
    pub fn as_str(self) -> &'static str {
        match self {
            EntrySeverity::Fatal => "fatal",
            EntrySeverity::Warning => "warning",
        }
    }
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((end, _)) => s[..end].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        let kb = KnowledgeBase::embedded();
        explain(text, &kb, &ExplainOptions::default())
            .into_iter()
            .map(|f| f.id)
            .collect()
    }

    #[test]
    fn a_message_wrapped_mid_word_at_the_terminal_width_is_joined() {
        // An 80-column terminal cut the line inside "Bus error".
        let text = "2024-05-01 12:00:03 ERROR  RuntimeError: DataLoader worker (pid 473829) is kil\n\
                    led by signal: Bus error.\n";
        assert_eq!(ids(text), ["pytorch/dataloader-worker-bus-error-shm"]);
    }

    #[test]
    fn the_final_exception_outranks_its_context() {
        let text = "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n\
                    RuntimeError: DataLoader timed out after 5 seconds\n\n\
                    During handling of the above exception, another exception occurred:\n\n\
                    Traceback (most recent call last):\n  File \"a.py\", line 2, in g\n\
                    RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1\n";
        assert_eq!(
            ids(text),
            [
                "pytorch/collate-size-mismatch",
                "pytorch/dataloader-timeout"
            ]
        );
    }

    #[test]
    fn a_fatal_error_outranks_a_later_warning() {
        let text = "RuntimeError: DataLoader timed out after 5 seconds\n\
                    UserWarning: This DataLoader will create 8 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller\n";
        assert_eq!(
            ids(text),
            [
                "pytorch/dataloader-timeout",
                "pytorch/worker-count-exceeds-suggested"
            ]
        );
    }

    #[test]
    fn a_later_failure_outranks_an_earlier_one() {
        let text = "RuntimeError: DataLoader timed out after 5 seconds\n\
                    RuntimeError: DataLoader worker (pid 9) is killed by signal: Killed.\n";
        assert_eq!(ids(text)[0], "pytorch/dataloader-worker-killed-oom");
    }

    #[test]
    fn empty_and_binary_input_give_nothing() {
        assert!(ids("").is_empty());
        let kb = KnowledgeBase::embedded();
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1 << 16).collect();
        let found = explain_reader(&bytes[..], &kb, &ExplainOptions::default()).unwrap();
        assert!(found.is_empty());
    }
}
