//! Settings: `[tool.dldoctor]` in pyproject.toml, the same keys from the CLI and LSP settings.
//!
//! The file-level API both shells use: [`ConfigResolver::settings_for`] finds the nearest
//! pyproject.toml of a file (cached per folder), parses it once, and layers the CLI flags or
//! editor settings ([`Overrides`]) on top.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use thiserror::Error;

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Severity};
use crate::python::catalogue::{Catalogue, CatalogueError};
use crate::suppression::Suppressions;
use crate::text::LineIndex;

/// Effective settings for one analysis. Built from pyproject.toml, then CLI flags or LSP
/// settings layered on top.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Code prefixes or codes ("DL", "DL1", "DL201"). Empty means the default set.
    pub select: Vec<String>,
    /// Added to `select` (or to the default set), e.g. opt-in rules like DL103.
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// (glob, code prefixes) pairs, matched against the path relative to `project_root`.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    pub severity: BTreeMap<Code, Severity>,
    /// Overrides this machine's CPU count for DL201.
    pub max_workers: Option<u32>,
    /// Extra knowledge-base folders.
    pub kb: Vec<PathBuf>,
    /// The user's loader query files (`extend-queries`), added to the built-in catalogue.
    pub extend_queries: Vec<PathBuf>,
    /// The project's Python version (from `requires-python` or `target-version`), which
    /// decides the implicit start method on Linux (forkserver from 3.14).
    pub target_version: Option<(u8, u8)>,
    /// The folder of the pyproject.toml these settings came from; per-file-ignores and `kb`
    /// folders are relative to it.
    pub project_root: Option<PathBuf>,
    /// `per_file_ignores` compiled on first use.
    compiled_per_file: OnceLock<Option<PerFileIgnores>>,
    /// The catalogue with `extend_queries`, compiled on first use.
    compiled_catalogue: OnceLock<(Arc<Catalogue>, Vec<CatalogueError>)>,
}

fn matches(code: Code, selector: &str) -> bool {
    let sel = selector.trim();
    sel.eq_ignore_ascii_case("ALL") || code.as_str().starts_with(&sel.to_ascii_uppercase())
}

impl Settings {
    /// Whether `code` runs at all (before per-file ignores and `# noqa`). An explicit selector
    /// naming the exact code beats a shorter prefix, as in ruff.
    pub fn is_enabled(&self, code: Code) -> bool {
        self.is_enabled_with(code, code.rule().default_enabled)
    }

    /// Whether `code` would run if it were on by default: `select`, `extend-select` and
    /// `ignore` apply as to any rule. An opt-in rule whose findings with evidence of a crash
    /// are reported without opting in (DL102) runs when this holds.
    pub fn is_enabled_by_evidence(&self, code: Code) -> bool {
        self.is_enabled_with(code, true)
    }

    fn is_enabled_with(&self, code: Code, default_enabled: bool) -> bool {
        let specificity = |list: &[String]| {
            list.iter()
                .filter(|s| matches(code, s))
                .map(|s| s.trim().len())
                .max()
        };
        let selected = if self.select.is_empty() {
            default_enabled.then_some(0)
        } else {
            specificity(&self.select)
                .filter(|_| default_enabled || self.names_exactly(&self.select, code))
        };
        let selected = selected.max(specificity(&self.extend_select));
        match (selected, specificity(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(sel), Some(ign)) => sel > ign,
        }
    }

    fn names_exactly(&self, list: &[String], code: Code) -> bool {
        list.iter()
            .any(|s| s.trim().eq_ignore_ascii_case(code.as_str()))
    }

    /// The code prefixes `per-file-ignores` turns off for `path`.
    pub fn per_file_ignored(&self, path: &Path) -> Vec<String> {
        let compiled = self
            .compiled_per_file
            .get_or_init(|| PerFileIgnores::compile(&self.per_file_ignores).ok());
        match compiled {
            Some(p) => p.matching(self.project_root.as_deref(), path),
            None => Vec::new(),
        }
    }

    /// Drops diagnostics turned off for this file by `per-file-ignores` or on their line by a
    /// suppression comment; `is_comment` tells whether a byte offset lies in a comment.
    pub fn filter_suppressed(
        &self,
        source: &str,
        is_comment: impl Fn(usize) -> bool,
        path: &Path,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let per_file = self.per_file_ignored(path);
        if !per_file.is_empty() {
            diagnostics.retain(|d| !per_file.iter().any(|sel| matches(d.code, sel)));
        }
        Suppressions::parse(source, is_comment).filter(source, diagnostics);
    }

    /// The loader catalogue: the built-in queries and the user's `extend-queries` files.
    pub fn catalogue(&self) -> &Catalogue {
        &self.compiled_catalogue().0
    }

    /// The `extend-queries` files that could not be read or compiled (left out of
    /// [`Settings::catalogue`]); each names the file, line and column.
    pub fn catalogue_errors(&self) -> &[CatalogueError] {
        &self.compiled_catalogue().1
    }

    fn compiled_catalogue(&self) -> &(Arc<Catalogue>, Vec<CatalogueError>) {
        self.compiled_catalogue
            .get_or_init(|| Catalogue::with_files(&self.extend_queries))
    }

    pub fn severity_of(&self, code: Code) -> Severity {
        self.severity
            .get(&code)
            .copied()
            .unwrap_or(code.rule().severity)
    }
}

/// Every code `selector` names; empty when it names none (an unknown code in a config).
pub fn codes_matching(selector: &str) -> Vec<Code> {
    Code::all().filter(|c| matches(*c, selector)).collect()
}

// ---------------------------------------------------------------------------------------------
// per-file-ignores

#[derive(Clone, Debug)]
struct PerFileIgnores {
    set: GlobSet,
    /// For each glob in `set`: the code prefixes it ignores and whether it names a bare file
    /// name (no `/`), which then also matches the file's name alone, as in ruff.
    entries: Vec<(Vec<String>, bool)>,
}

impl PerFileIgnores {
    fn compile(pairs: &[(String, Vec<String>)]) -> Result<Self, globset::Error> {
        let mut builder = GlobSetBuilder::new();
        let mut entries = Vec::new();
        for (pattern, codes) in pairs {
            builder.add(Glob::new(pattern)?);
            entries.push((codes.clone(), !pattern.contains('/')));
        }
        Ok(Self {
            set: builder.build()?,
            entries,
        })
    }

    fn matching(&self, root: Option<&Path>, path: &Path) -> Vec<String> {
        // Compare like with like: a relative file against an absolute root, or the reverse.
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let (root_abs, path_abs) = (root.map(absolute), absolute(path));
        let relative = root_abs
            .as_deref()
            .and_then(|r| path_abs.strip_prefix(r).ok())
            .unwrap_or(path);
        let relative = relative.strip_prefix("./").unwrap_or(relative);
        let mut hits = self.set.matches(relative);
        if let Some(name) = path.file_name() {
            hits.extend(
                self.set
                    .matches(Path::new(name))
                    .into_iter()
                    .filter(|&i| self.entries[i].1),
            );
        }
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter()
            .flat_map(|i| self.entries[i].0.iter().cloned())
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// pyproject.toml

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// TOML syntax, an unknown key in `[tool.dldoctor]`, or a value of the wrong type; the
    /// message names the key, and `line`/`column` point at it.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: [tool.dldoctor] `{key}`: {message}", path.display())]
    BadValue {
        path: PathBuf,
        key: String,
        message: String,
    },
}

impl ConfigError {
    /// The same error naming the file as `shown`.
    fn relabel(mut self, shown: &Path) -> Self {
        match &mut self {
            ConfigError::Io { path, .. }
            | ConfigError::Invalid { path, .. }
            | ConfigError::BadValue { path, .. } => *path = shown.to_owned(),
        }
        self
    }
}

/// The parts of pyproject.toml dldoctor reads; everything else in the file is left alone.
#[derive(Debug, Default, Deserialize)]
struct PyProject {
    #[serde(default)]
    tool: Option<ToolTable>,
    #[serde(default)]
    project: Option<ProjectTable>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolTable {
    #[serde(default)]
    dldoctor: Option<DldoctorTable>,
}

#[derive(Debug, Default, Deserialize)]
struct ProjectTable {
    #[serde(default, rename = "requires-python")]
    requires_python: Option<String>,
}

/// `[tool.dldoctor]`. Unknown keys are an error: a misspelt `ignore` must not pass silently.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct DldoctorTable {
    select: Option<Vec<String>>,
    extend_select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    severity: Option<BTreeMap<String, String>>,
    max_workers: Option<u32>,
    kb: Option<Vec<PathBuf>>,
    extend_queries: Option<Vec<PathBuf>>,
    target_version: Option<String>,
}

/// A parsed pyproject.toml: its settings, and whether it has a `[tool.dldoctor]` table.
#[derive(Clone, Debug)]
pub struct ProjectConfig {
    pub path: PathBuf,
    pub settings: Settings,
    pub has_tool_table: bool,
}

impl ProjectConfig {
    /// Reads and validates one pyproject.toml.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses pyproject.toml text; `path` names the file in errors and sets the project root.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let doc: PyProject = toml::from_str(text).map_err(|err| {
            let (line, column) = err
                .span()
                .map(|span| LineIndex::new(text).row_column(text, span.start))
                .unwrap_or((1, 1));
            ConfigError::Invalid {
                path: path.to_owned(),
                line,
                column,
                message: err.message().trim().to_owned(),
            }
        })?;
        let bad = |key: &str, message: String| ConfigError::BadValue {
            path: path.to_owned(),
            key: key.to_owned(),
            message,
        };
        let mut settings = Settings {
            project_root: path.parent().map(Path::to_path_buf),
            ..Settings::default()
        };
        if let Some(requires) = doc.project.and_then(|p| p.requires_python) {
            settings.target_version = requires_python_lower_bound(&requires);
        }
        let table = doc.tool.and_then(|t| t.dldoctor);
        let has_tool_table = table.is_some();
        let table = table.unwrap_or_default();
        for (key, list) in [
            ("select", &table.select),
            ("extend-select", &table.extend_select),
            ("ignore", &table.ignore),
        ] {
            check_selectors(list.iter().flatten()).map_err(|m| bad(key, m))?;
        }
        settings.select = table.select.unwrap_or_default();
        settings.extend_select = table.extend_select.unwrap_or_default();
        settings.ignore = table.ignore.unwrap_or_default();
        for (pattern, codes) in table.per_file_ignores.unwrap_or_default() {
            let key = format!("per-file-ignores.\"{pattern}\"");
            Glob::new(&pattern).map_err(|e| bad(&key, e.to_string()))?;
            check_selectors(codes.iter()).map_err(|m| bad(&key, m))?;
            settings.per_file_ignores.push((pattern, codes));
        }
        for (code, level) in table.severity.unwrap_or_default() {
            let key = format!("severity.{code}");
            let code: Code = code.parse().map_err(|m: String| bad(&key, m))?;
            let level: Severity = level.parse().map_err(|m: String| bad(&key, m))?;
            settings.severity.insert(code, level);
        }
        settings.max_workers = table.max_workers;
        if settings.max_workers == Some(0) {
            return Err(bad("max-workers", "must be at least 1".into()));
        }
        let root = settings.project_root.clone().unwrap_or_default();
        settings.kb = table
            .kb
            .unwrap_or_default()
            .into_iter()
            .map(|dir| root.join(dir))
            .collect();
        settings.extend_queries = table
            .extend_queries
            .unwrap_or_default()
            .into_iter()
            .map(|file| root.join(file))
            .collect();
        if let Some(version) = table.target_version {
            settings.target_version = Some(parse_target_version(&version).ok_or_else(|| {
                bad(
                    "target-version",
                    format!("`{version}` is not a Python version (expected e.g. \"py312\")"),
                )
            })?);
        }
        Ok(Self {
            path: path.to_owned(),
            settings,
            has_tool_table,
        })
    }
}

fn check_selectors<'a>(selectors: impl Iterator<Item = &'a String>) -> Result<(), String> {
    for sel in selectors {
        if codes_matching(sel).is_empty() {
            return Err(format!("unknown rule code or prefix `{sel}`"));
        }
    }
    Ok(())
}

/// "py312" -> (3, 12).
pub fn parse_target_version(text: &str) -> Option<(u8, u8)> {
    let digits = text.trim().strip_prefix("py")?;
    let (major, minor) = digits.split_at_checked(1)?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The lowest Python a `requires-python` specifier admits: ">=3.9", "~=3.10", ">=3.8,<4",
/// "==3.11.*". `None` when it sets no lower bound (only "<4").
pub fn requires_python_lower_bound(spec: &str) -> Option<(u8, u8)> {
    spec.split(',').find_map(|clause| {
        let clause = clause.trim();
        let version = [">=", "~=", "==", ">"]
            .iter()
            .find_map(|op| clause.strip_prefix(op))?;
        let mut parts = version.trim().split('.');
        let major = parts.next()?.trim().parse().ok()?;
        let minor = parts
            .next()
            .map(|m| m.trim().parse().ok())
            .unwrap_or(Some(0))?;
        Some((major, minor))
    })
}

/// CLI flags or editor settings, layered on the file's settings.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// Replaces `select` when given.
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    pub max_workers: Option<u32>,
    /// Loader query files added to the project's `extend-queries` (relative to the project).
    pub extend_queries: Vec<PathBuf>,
}

impl Overrides {
    /// Checks the codes, as a config file's are checked.
    pub fn validate(&self) -> Result<(), String> {
        check_selectors(
            self.select
                .iter()
                .flatten()
                .chain(&self.extend_select)
                .chain(&self.ignore),
        )
    }

    pub fn apply(&self, mut settings: Settings) -> Settings {
        if let Some(select) = &self.select {
            settings.select = select.clone();
        }
        settings
            .extend_select
            .extend(self.extend_select.iter().cloned());
        settings.ignore.extend(self.ignore.iter().cloned());
        if self.max_workers.is_some() {
            settings.max_workers = self.max_workers;
        }
        if !self.extend_queries.is_empty() {
            let root = settings.project_root.clone().unwrap_or_default();
            settings
                .extend_queries
                .extend(self.extend_queries.iter().map(|f| root.join(f)));
            settings.compiled_catalogue = OnceLock::new();
        }
        settings
    }
}

/// Loaded values by path; errors are cached too, so a broken file is reported once per run.
type Cache<T> = Mutex<HashMap<PathBuf, Result<Arc<T>, Arc<ConfigError>>>>;

/// Finds and caches the settings of each file: the nearest pyproject.toml with a
/// `[tool.dldoctor]` table, else the nearest pyproject.toml (for `requires-python`), else the
/// defaults; then the overrides. Safe to share between threads.
#[derive(Debug, Default)]
pub struct ConfigResolver {
    overrides: Overrides,
    /// `--config FILE`: one pyproject.toml for every file.
    fixed: Option<Arc<Settings>>,
    by_dir: Cache<Settings>,
    files: Cache<ProjectConfig>,
}

impl ConfigResolver {
    pub fn new(overrides: Overrides) -> Self {
        Self {
            overrides,
            ..Self::default()
        }
    }

    /// Every file gets the settings of `config` (the CLI's `--config`).
    pub fn with_config_file(config: &Path, overrides: Overrides) -> Result<Self, ConfigError> {
        let project = ProjectConfig::load(config)?;
        Ok(Self {
            fixed: Some(Arc::new(overrides.apply(project.settings))),
            overrides,
            ..Self::default()
        })
    }

    /// The settings for the Python file at `file`.
    pub fn settings_for(&self, file: &Path) -> Result<Arc<Settings>, Arc<ConfigError>> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let dir = absolute.parent().unwrap_or(Path::new("/")).to_path_buf();
        if let Some(hit) = lock(&self.by_dir).get(&dir) {
            return hit.clone();
        }
        let result = self.resolve_dir(&dir);
        lock(&self.by_dir).insert(dir, result.clone());
        result
    }

    fn resolve_dir(&self, dir: &Path) -> Result<Arc<Settings>, Arc<ConfigError>> {
        let mut nearest: Option<Arc<ProjectConfig>> = None;
        for ancestor in dir.ancestors() {
            let candidate = ancestor.join("pyproject.toml");
            if !candidate.is_file() {
                continue;
            }
            let project = self.load(&candidate)?;
            if project.has_tool_table {
                return Ok(Arc::new(self.overrides.apply(project.settings.clone())));
            }
            nearest.get_or_insert(project);
        }
        let base = match nearest {
            // No [tool.dldoctor] anywhere: defaults, with the nearest project's Python version.
            Some(project) => Settings {
                target_version: project.settings.target_version,
                project_root: project.settings.project_root.clone(),
                ..Settings::default()
            },
            None => Settings::default(),
        };
        Ok(Arc::new(self.overrides.apply(base)))
    }

    fn load(&self, path: &Path) -> Result<Arc<ProjectConfig>, Arc<ConfigError>> {
        if let Some(hit) = lock(&self.files).get(path) {
            return hit.clone();
        }
        // Errors name the file as the user would type it: relative to the working folder.
        let cwd = std::env::current_dir().ok();
        let shown = cwd
            .as_deref()
            .and_then(|cwd| path.strip_prefix(cwd).ok())
            .unwrap_or(path);
        let result = ProjectConfig::load(path)
            .map(Arc::new)
            .map_err(|e| Arc::new(e.relabel(shown)));
        lock(&self.files).insert(path.to_owned(), result.clone());
        result
    }
}

/// A poisoned cache only means another thread panicked mid-insert; the map is still usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings, ConfigError> {
        ProjectConfig::parse(text, Path::new("/proj/pyproject.toml")).map(|p| p.settings)
    }

    #[test]
    fn reads_every_key_of_the_tool_table() {
        let s = parse(
            r#"
[project]
name = "trainer"
requires-python = ">=3.9"

[tool.ruff]
line-length = 100

[tool.dldoctor]
select = ["DL"]
ignore = ["DL206"]
extend-select = ["DL103"]
max-workers = 8
severity = { DL202 = "info" }
per-file-ignores = { "tests/*" = ["DL1"] }
kb = ["ops/kb"]
"#,
        )
        .unwrap();
        assert_eq!(s.select, ["DL"]);
        assert_eq!(s.ignore, ["DL206"]);
        assert_eq!(s.extend_select, ["DL103"]);
        assert_eq!(s.max_workers, Some(8));
        assert_eq!(s.severity.get(&Code::DL202), Some(&Severity::Info));
        assert_eq!(s.kb, [PathBuf::from("/proj/ops/kb")]);
        assert_eq!(s.target_version, Some((3, 9)));
        assert!(s.is_enabled(Code::DL103));
        assert!(!s.is_enabled(Code::DL206));
        assert_eq!(
            s.per_file_ignored(Path::new("/proj/tests/test_loader.py")),
            ["DL1"]
        );
        assert!(s.per_file_ignored(Path::new("/proj/train.py")).is_empty());
    }

    #[test]
    fn an_opt_in_rule_with_evidence_runs_unless_deselected() {
        let default = parse("[tool.dldoctor]\n").unwrap();
        assert!(!default.is_enabled(Code::DL102));
        assert!(default.is_enabled_by_evidence(Code::DL102));
        let opted_in = parse("[tool.dldoctor]\nextend-select = [\"DL102\"]\n").unwrap();
        assert!(opted_in.is_enabled(Code::DL102));
        let ignored = parse("[tool.dldoctor]\nignore = [\"DL102\"]\n").unwrap();
        assert!(!ignored.is_enabled_by_evidence(Code::DL102));
        let other_family = parse("[tool.dldoctor]\nselect = [\"DL2\"]\n").unwrap();
        assert!(!other_family.is_enabled_by_evidence(Code::DL102));
    }

    #[test]
    fn target_version_beats_requires_python() {
        let s = parse(
            "[project]\nrequires-python = \">=3.8,<4\"\n[tool.dldoctor]\ntarget-version = \"py314\"\n",
        )
        .unwrap();
        assert_eq!(s.target_version, Some((3, 14)));
        assert_eq!(requires_python_lower_bound("~=3.10"), Some((3, 10)));
        assert_eq!(requires_python_lower_bound("==3.11.*"), Some((3, 11)));
        assert_eq!(requires_python_lower_bound("<4"), None);
        assert_eq!(requires_python_lower_bound(">= 3"), Some((3, 0)));
        assert_eq!(parse_target_version("py39"), Some((3, 9)));
        assert_eq!(parse_target_version("3.9"), None);
    }

    #[test]
    fn unknown_key_names_the_file_the_key_and_the_line() {
        let err = parse("[tool.dldoctor]\nselect = [\"DL\"]\nignroe = [\"DL201\"]\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("/proj/pyproject.toml:3:1: "), "{msg}");
        assert!(msg.contains("unknown field `ignroe`"), "{msg}");
    }

    #[test]
    fn unknown_codes_and_levels_are_errors() {
        let msg = parse("[tool.dldoctor]\nignore = [\"DL999\"]\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "/proj/pyproject.toml: [tool.dldoctor] `ignore`: unknown rule code or prefix `DL999`"
        );
        let msg = parse("[tool.dldoctor]\nseverity = { DL201 = \"loud\" }\n")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("`severity.DL201`"), "{msg}");
        let msg = parse("[tool.dldoctor]\nper-file-ignores = { \"a/*\" = [\"E501\"] }\n")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("per-file-ignores.\"a/*\""), "{msg}");
        let msg = parse("[tool.dldoctor]\nmax-workers = \"eight\"\n")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("/proj/pyproject.toml:2:"), "{msg}");
        assert!(parse("[tool.dldoctor\n").is_err());
    }

    #[test]
    fn resolver_finds_the_nearest_table_and_layers_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.dldoctor]\nignore = [\"DL206\"]\nmax-workers = 4\n",
        )
        .unwrap();
        // A nested project without a tool table does not hide the outer one.
        std::fs::write(
            root.join("pkg/pyproject.toml"),
            "[project]\nrequires-python = \">=3.14\"\n",
        )
        .unwrap();
        let resolver = ConfigResolver::new(Overrides {
            extend_select: vec!["DL103".into()],
            ..Overrides::default()
        });
        let s = resolver
            .settings_for(&root.join("pkg/sub/train.py"))
            .unwrap();
        assert_eq!(s.max_workers, Some(4));
        assert!(!s.is_enabled(Code::DL206));
        assert!(s.is_enabled(Code::DL103));

        std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
        let fresh = ConfigResolver::new(Overrides::default());
        let s = fresh.settings_for(&root.join("pkg/sub/train.py")).unwrap();
        assert_eq!(s.target_version, Some((3, 14)));
        assert_eq!(s.max_workers, None);

        std::fs::write(
            root.join("pkg/pyproject.toml"),
            "[tool.dldoctor]\nbogus = 1\n",
        )
        .unwrap();
        let broken = ConfigResolver::new(Overrides::default());
        let err = broken.settings_for(&root.join("pkg/train.py")).unwrap_err();
        assert!(err.to_string().contains("bogus"));
    }

    #[test]
    fn filter_drops_suppressed_and_per_file_ignored() {
        use crate::text::TextRange;
        let src = "x = 1  # noqa: DL201\ny = 2\n";
        let at_line = |code, line: usize| {
            let start = if line == 0 { 0 } else { src.find("y").unwrap() };
            Diagnostic::new(
                code,
                code.rule().severity,
                TextRange::new(start, start + 1),
                "m",
            )
        };
        let mut ds = vec![
            at_line(Code::DL201, 0),
            at_line(Code::DL202, 0),
            at_line(Code::DL201, 1),
            at_line(Code::DL101, 1),
        ];
        let s = Settings {
            per_file_ignores: vec![("train_*.py".into(), vec!["DL1".into()])],
            project_root: Some(PathBuf::from("/p")),
            ..Settings::default()
        };
        s.filter_suppressed(src, |_| true, Path::new("/p/src/train_a.py"), &mut ds);
        let left: Vec<_> = ds.iter().map(|d| d.code).collect();
        assert_eq!(left, [Code::DL202, Code::DL201]);
    }

    #[test]
    fn default_set_leaves_out_opt_in_rules() {
        let s = Settings::default();
        assert!(s.is_enabled(Code::DL101));
        assert!(!s.is_enabled(Code::DL103));
    }

    #[test]
    fn opt_in_by_exact_code_and_ignore_by_prefix() {
        let s = Settings {
            extend_select: vec!["DL103".into()],
            ignore: vec!["DL2".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL103));
        assert!(!s.is_enabled(Code::DL201));
        let s = Settings {
            select: vec!["DL1".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL101));
        assert!(!s.is_enabled(Code::DL103));
        assert!(!s.is_enabled(Code::DL301));
    }

    #[test]
    fn specific_select_beats_broad_ignore() {
        let s = Settings {
            select: vec!["DL201".into()],
            ignore: vec!["DL2".into()],
            ..Settings::default()
        };
        assert!(s.is_enabled(Code::DL201));
        assert!(!s.is_enabled(Code::DL202));
    }
}
