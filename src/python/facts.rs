//! What the analysis sees of each loader: which catalogue entry (or project class) made the
//! call a loader, each argument's value and where it comes from, the start method and why, and
//! what stayed unknown and why. `dldoctor loaders` prints it; the hover on a loader shows it.

use serde::Serialize;

use crate::lang::Lang;
use crate::notebook::{self, CellMap};
use crate::python::analysis::Analysis;
use crate::python::labels::EntryName;
use crate::python::loaders::{ArgState, DatasetClass, Loader, Param, Passing};
use crate::python::model::Module;
use crate::python::start_method::{self, StartMethod};
use crate::python::values::{Resolved, path_note};
use crate::python::{batch_samplers, paths};

/// The parameters every report shows, passed or not: those the rules decide on.
const ALWAYS: [Param; 6] = [
    Param::NumWorkers,
    Param::PinMemory,
    Param::PrefetchFactor,
    Param::PersistentWorkers,
    Param::Timeout,
    Param::MultiprocessingContext,
];

/// One loader construction as the analysis sees it.
#[derive(Clone, Debug, Serialize)]
pub struct LoaderFacts {
    /// What made the call a loader (`torch.utils.data.DataLoader`,
    /// `timm.data.create_loader`, `InfiniteDataLoader (line 12), a subclass of ...`).
    pub entry: String,
    /// The catalogue file and line of the entry, when it comes from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// In a notebook, the cell of the call; `line` then counts the cell's lines, as `check`
    /// counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<usize>,
    /// 1-based line and column (in characters) of the call.
    pub line: u32,
    pub column: u32,
    /// The called expression as written.
    pub callee: String,
    pub arguments: Vec<ArgumentFact>,
    pub start_method: StartFact,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Passed in the call (or a `**` dict of it).
    Passed,
    /// Not passed: the callee's default applies.
    Default,
    /// Not known; `origin` says why.
    Unknown,
}

#[derive(Clone, Debug, Serialize)]
pub struct ArgumentFact {
    /// DataLoader's parameter.
    pub param: &'static str,
    /// The keyword the call uses for it when that is another name (`dataloader_num_workers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    pub status: Status,
    /// The value in Python's spelling; `None` when unknown.
    pub value: Option<String>,
    /// Where the value comes from, or why it is unknown.
    pub origin: String,
    /// Why an unknown value is unknown, beyond `origin`: where the analysis gave up
    /// ("written under a condition that does not resolve, line 24").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_because: Option<String>,
    /// For an unknown value that depends on which caller runs the function building the
    /// loader: its value on each caller's path (what DL201 checks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_caller: Vec<PathFact>,
    /// The other count the project's shell scripts all pass for the option the value is the
    /// default of (what the rules check beside the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_scripts: Option<PathFact>,
    /// The resolved value behind `value`, for renderers that word its origin themselves.
    #[serde(skip)]
    pub resolved: Option<Resolved>,
    #[serde(skip)]
    pub conditional: bool,
}

/// An argument's value on one caller's path ([`paths::caller_paths`]).
#[derive(Clone, Debug, Serialize)]
pub struct PathFact {
    /// The value in Python's spelling.
    pub value: String,
    /// Which path: "when `split` is "test", passed for split to make_dataloader (line 23)".
    pub when: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StartFact {
    /// `fork`, `spawn`, `forkserver`, or `None` when unknown.
    pub method: Option<&'static str>,
    /// Why: the argument, a process-wide `set_start_method`, or the platform's default.
    pub why: String,
    /// In a notebook, the cell of `line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<usize>,
    /// 1-based line of the argument or `set_start_method` call that chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip)]
    pub found: Option<StartMethod>,
}

/// The facts of every loader of a file. `platform` is the start method nothing chose
/// ([`start_method::platform_default`]).
pub fn loader_facts(m: &Module, platform: StartMethod) -> Vec<LoaderFacts> {
    let scope = Analysis::new(m);
    m.loaders()
        .iter()
        .map(|loader| facts_of(m, &scope, loader, platform))
        .collect()
}

/// The facts of one loader.
pub fn facts_of(
    m: &Module,
    scope: &Analysis,
    loader: &Loader,
    platform: StartMethod,
) -> LoaderFacts {
    let (line, column) = m.lines.row_column(m.source, loader.range.start);
    let query = m
        .catalogue
        .entries()
        .find(|e| matches!(&loader.entry, EntryName::Catalogue(name) if *name == e.name))
        .map(|e| format!("{}:{}", e.file.display(), e.line));
    let mut params: Vec<Param> = loader.arguments.iter().map(|a| a.param).collect();
    for p in ALWAYS {
        if !params.contains(&p) {
            params.push(p);
        }
    }
    params.sort();
    let arguments = params
        .into_iter()
        .map(|p| argument_fact(m, loader, p))
        .collect();
    let found = start_method::start_method(scope, loader, platform);
    let why = if loader.opaque_start {
        format!(
            "{} is passed: the workers may be threads in a substituted context",
            loader.signature.opaque.join(", ")
        )
    } else if found.method.is_none() {
        format!("{}; it cannot be resolved", found.describe(Lang::En))
    } else {
        found.describe(Lang::En)
    };
    LoaderFacts {
        entry: loader.entry.full(),
        query,
        cell: None,
        line: line as u32,
        column: column as u32,
        callee: m
            .source
            .get(loader.callee.start..loader.callee.end)
            .unwrap_or("")
            .to_owned(),
        arguments,
        start_method: StartFact {
            method: found.method.map(|x| x.as_str()),
            why,
            cell: None,
            line: found.range().map(|r| m.line(r.start)),
            found: Some(found),
        },
    }
}

fn argument_fact(m: &Module, loader: &Loader, param: Param) -> ArgumentFact {
    let keyword_of = |keyword: Option<crate::text::TextRange>| {
        keyword
            .and_then(|k| m.source.get(k.start..k.end))
            .map(|k| k.trim_matches(|c| c == '"' || c == '\''))
            .filter(|k| *k != param.name())
            .map(str::to_owned)
    };
    let mut fact = ArgumentFact {
        param: param.name(),
        keyword: None,
        status: Status::Unknown,
        value: None,
        origin: String::new(),
        unknown_because: None,
        by_caller: Vec::new(),
        by_scripts: None,
        resolved: None,
        conditional: false,
    };
    match loader.state(param) {
        ArgState::Passed(arg) => {
            fact.keyword = keyword_of(arg.keyword);
            fact.conditional = arg.conditional;
            let line = m.line(arg.node.start_byte());
            let how = match arg.passing {
                Passing::Keyword => format!("passed on line {line}"),
                Passing::Positional(i) => {
                    format!("passed as positional argument {} on line {line}", i + 1)
                }
                Passing::Unpacked { .. } => format!("passed through a `**` dict, line {line}"),
                Passing::Field => format!(
                    "read from the fields of `{}`, passed on line {line}",
                    m.text(arg.value_node)
                ),
            };
            if param == Param::Dataset {
                // An object, not a value: its class is what matters.
                fact.status = Status::Passed;
                fact.value = Some(m.text(arg.value_node).to_owned());
                fact.origin = match loader.dataset.as_ref().map(|d| &d.class) {
                    Some(DatasetClass::Local(id)) => m.class(*id).map_or(how.clone(), |c| {
                        format!("a {} (line {}), {how}", c.name, m.line(c.node.start_byte()))
                    }),
                    Some(DatasetClass::Imported(q)) => format!("a {q}, {how}"),
                    _ => how,
                };
            } else if param == Param::BatchSampler
                && !arg.conditional
                && !arg.value.value.is_known()
            {
                // An object: the length of the batches it yields is what matters.
                match batch_samplers::batch_size(m, arg.value_node, loader.scope) {
                    Some(found) => {
                        fact.status = Status::Passed;
                        fact.value = Some(m.text(arg.value_node).to_owned());
                        let note = found
                            .resolved
                            .provenance
                            .note(Lang::En)
                            .map_or_else(String::new, |n| format!(" ({n})"));
                        fact.origin = format!(
                            "{} on line {}, batches of {}{note}, {how}",
                            found.class, found.line, found.batch_size
                        );
                    }
                    None => {
                        fact.origin = format!(
                            "`{}`: the length of its batches is not provable (torch's \
                             BatchSampler and the file's subclasses of it that keep its \
                             `__iter__` are), {how}",
                            m.text(arg.value_node)
                        );
                    }
                }
            } else if arg.value.value.is_known() && !arg.conditional {
                fact.status = Status::Passed;
                fact.value = Some(arg.value.value.to_string());
                let mut notes: Vec<String> =
                    arg.value.provenance.note(Lang::En).into_iter().collect();
                notes.extend(path_note(&arg.value, Lang::En).map(str::to_owned));
                notes.push(how);
                fact.origin = notes.join(", ");
                fact.by_scripts = arg.value.script_pass().map(|pass| PathFact {
                    value: pass.value.to_string(),
                    when: pass.note(Lang::En, None),
                });
                fact.resolved = Some(arg.value.clone());
            } else if arg.conditional {
                fact.origin = format!("set only under a condition, {how}");
            } else if loader.signature.capped.contains(&param) {
                fact.origin = format!(
                    "`{}` is capped by the CPU count inside {}, {how}",
                    m.text(arg.value_node),
                    loader.entry.render(Lang::En)
                );
            } else if let Some(why) = arg.value.provenance.note(Lang::En) {
                // A config value that stays unknown says why.
                fact.origin = format!("`{}`: {why}, {how}", m.text(arg.value_node));
            } else {
                fact.origin = format!(
                    "`{}` is not a value dldoctor can resolve without running the code, {how}",
                    m.text(arg.value_node)
                );
                fact.unknown_because = m.why_unknown(arg.value_node);
            }
            if matches!(fact.status, Status::Unknown) && !arg.conditional && param != Param::Dataset
            {
                fact.by_caller = paths::caller_paths(m, loader, arg)
                    .into_iter()
                    .map(|p| PathFact {
                        value: p.value.value.to_string(),
                        when: p.when[0].clone(),
                    })
                    .collect();
            }
        }
        ArgState::Default => {
            let value = loader.default(param);
            fact.status = Status::Default;
            fact.value = Some(value.to_string());
            fact.origin = loader.default_note(param, Lang::En);
            fact.resolved = loader.certain(param);
        }
        ArgState::Unknown => {
            fact.origin = if loader.signature.partial {
                "not given to the partial; the call of the partial may pass it".to_owned()
            } else if loader.has_unknown_arguments {
                "a `*args` or `**kwargs` the analysis cannot read may pass it".to_owned()
            } else {
                format!("computed inside {}", loader.entry.render(Lang::En))
            };
        }
    }
    fact
}

/// The facts as plain text, one block per loader: `path:line:col: entry`, then an indented
/// line per argument and one for the start method.
impl LoaderFacts {
    /// The facts of a loader in a notebook whose cells make `source`: lines count inside
    /// cells, as `check` counts them, in the locations and in the texts.
    #[must_use]
    pub fn in_notebook(mut self, source: &str, map: &CellMap) -> Self {
        if let Some((cell, row)) = notebook::cell_row(source, map, self.line) {
            self.cell = Some(cell);
            self.line = row as u32;
        }
        if let Some((cell, row)) = self
            .start_method
            .line
            .and_then(|line| notebook::cell_row(source, map, line))
        {
            self.start_method.cell = Some(cell);
            self.start_method.line = Some(row as u32);
        }
        notebook::relabel_text(&mut self.entry, source, map);
        notebook::relabel_text(&mut self.start_method.why, source, map);
        for a in &mut self.arguments {
            notebook::relabel_text(&mut a.origin, source, map);
        }
        self
    }
}

pub fn render_text(path: &str, facts: &[LoaderFacts]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for f in facts {
        let cell = f
            .cell
            .map_or_else(String::new, |cell| format!("cell {cell}:"));
        let _ = writeln!(
            out,
            "{path}:{cell}{}:{}: {} via {}",
            f.line, f.column, f.callee, f.entry
        );
        if let Some(query) = &f.query {
            let _ = writeln!(out, "    catalogue entry: {query}");
        }
        for a in &f.arguments {
            let name = match &a.keyword {
                Some(k) => format!("{} (as {k})", a.param),
                None => a.param.to_owned(),
            };
            match &a.value {
                Some(v) => {
                    let _ = writeln!(out, "    {name} = {v}: {}", a.origin);
                    if let Some(scripts) = &a.by_scripts {
                        let _ = writeln!(
                            out,
                            "        the project's shell scripts and READMEs pass {}: {}",
                            scripts.value, scripts.when
                        );
                    }
                }
                None => {
                    let _ = writeln!(out, "    {name} unknown: {}", a.origin);
                    if let Some(why) = &a.unknown_because {
                        let _ = writeln!(out, "        because {why}");
                    }
                    if !a.by_caller.is_empty() {
                        let _ = writeln!(out, "        depends on the caller:");
                    }
                    for path in &a.by_caller {
                        let _ = writeln!(out, "            {} {}", path.value, path.when);
                    }
                }
            }
        }
        let method = f.start_method.method.unwrap_or("unknown");
        let _ = writeln!(out, "    start method: {method}: {}", f.start_method.why);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(source: &str) -> Vec<LoaderFacts> {
        crate::python::analysis::with_analysis(source, |scope| {
            let platform = start_method::platform_default("linux", Some((3, 12)));
            loader_facts(scope.m, platform)
        })
    }

    #[test]
    fn values_with_their_origin_and_unknowns_with_a_reason() {
        let f = facts(
            "import argparse\nfrom torch.utils.data import DataLoader\np = argparse.ArgumentParser()\np.add_argument('--workers', type=int, default=64)\nargs = p.parse_args()\nDataLoader(ds, num_workers=args.workers, pin_memory=cfg.pin, **extra)\n",
        );
        let f = &f[0];
        assert_eq!(f.entry, "torch.utils.data.DataLoader");
        let arg = |name: &str| f.arguments.iter().find(|a| a.param == name).expect(name);
        assert_eq!(arg("num_workers").value.as_deref(), Some("64"));
        assert!(
            arg("num_workers")
                .origin
                .contains("the default of --workers (line 4)"),
            "{}",
            arg("num_workers").origin
        );
        assert!(arg("pin_memory").value.is_none());
        assert!(arg("pin_memory").origin.contains("`cfg.pin`"));
        assert!(arg("timeout").origin.contains("`**kwargs`"));
        // The `**extra` may carry a multiprocessing_context.
        assert_eq!(f.start_method.method, None);
        assert!(f.start_method.why.contains("cannot be resolved"));
    }

    #[test]
    fn a_factory_shows_its_keywords_and_defaults() {
        let f = facts(
            "from transformers import TrainingArguments\nTrainingArguments('out', dataloader_num_workers=4)\n",
        );
        let f = &f[0];
        let arg = |name: &str| f.arguments.iter().find(|a| a.param == name).expect(name);
        assert_eq!(
            arg("num_workers").keyword.as_deref(),
            Some("dataloader_num_workers")
        );
        assert_eq!(arg("pin_memory").value.as_deref(), Some("True"));
        assert_eq!(
            arg("pin_memory").origin,
            "the default of transformers.TrainingArguments"
        );
        assert!(
            f.query
                .as_deref()
                .is_some_and(|q| q.starts_with("queries/transformers.scm:"))
        );
    }
}
