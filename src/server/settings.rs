//! The server's settings as the editor sends them (`initializationOptions`,
//! `workspace/configuration` section `dldoctor`, `didChangeConfiguration`), layered over the
//! workspace's `pyproject.toml`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::codes::Code;
use crate::config::{Overrides, Settings};
use crate::diagnostic::Severity;
use crate::host::{HostFacts, parse_size};

/// Settings an editor may send; every key optional, unknown keys ignored (editors send their
/// own extras, such as the VS Code extension's `path` or `autoExplain`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientSettings {
    pub select: Option<Vec<String>>,
    pub extend_select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub severity: Option<BTreeMap<String, String>>,
    pub max_workers: Option<u32>,
    pub assume_cpus: Option<u32>,
    /// "64MiB", "16GiB", "2g", or a number of bytes.
    pub assume_shm: Option<Value>,
    pub kb: Option<Vec<PathBuf>>,
    /// Loader query files, as `extend-queries` in pyproject.toml.
    pub extend_queries: Option<Vec<PathBuf>>,
    pub locale: Option<String>,
}

impl ClientSettings {
    /// Reads settings from a JSON value that is either the settings object itself or wraps it
    /// under `dldoctor` (as `didChangeConfiguration` does in VS Code). Malformed input gives
    /// the defaults and a warning, never an error to the editor.
    pub fn from_value(value: &Value) -> (Self, Vec<String>) {
        let inner = value.get("dldoctor").unwrap_or(value);
        if inner.is_null() {
            return (Self::default(), Vec::new());
        }
        match serde_json::from_value::<Self>(inner.clone()) {
            Ok(settings) => {
                let warnings = settings.problems();
                (settings, warnings)
            }
            Err(err) => (
                Self::default(),
                vec![format!("dldoctor settings ignored: {err}")],
            ),
        }
    }

    fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (code, level) in self.severity.iter().flatten() {
            if code.parse::<Code>().is_err() {
                out.push(format!("severity: unknown rule code `{code}`"));
            }
            if let Err(err) = level.parse::<Severity>() {
                out.push(format!("severity.{code}: {err}"));
            }
        }
        if let Some(warning) = self.overrides().validate().err() {
            out.push(warning);
        }
        // Absolute query files can be checked now; relative ones are checked per project.
        let absolute: Vec<PathBuf> = self
            .extend_queries
            .iter()
            .flatten()
            .filter(|p| p.is_absolute())
            .cloned()
            .collect();
        let (_, errors) = crate::python::catalogue::Catalogue::with_files(&absolute);
        out.extend(errors.iter().map(|e| format!("extendQueries: {e}")));
        if let Some(shm) = &self.assume_shm
            && shm_bytes(shm).is_none()
        {
            out.push(format!(
                "assumeShm: `{shm}` is not a size (use e.g. \"64MiB\" or \"16GiB\")"
            ));
        }
        out
    }

    /// The keys the CLI also has as flags, layered on each file's project settings.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            select: self.select.clone(),
            extend_select: self.extend_select.clone().unwrap_or_default(),
            ignore: self.ignore.clone().unwrap_or_default(),
            max_workers: self.max_workers,
            extend_queries: self.extend_queries.clone().unwrap_or_default(),
        }
    }

    /// The project's settings for one file under the editor's.
    pub fn apply(&self, settings: &Settings) -> Settings {
        let mut settings = self.overrides().apply(settings.clone());
        for (code, level) in self.severity.iter().flatten() {
            if let (Ok(code), Ok(level)) = (code.parse::<Code>(), level.parse::<Severity>()) {
                settings.severity.insert(code, level);
            }
        }
        settings
    }

    /// `assumeCpus` / `assumeShm` replace the measured facts.
    pub fn apply_host(&self, mut host: HostFacts) -> HostFacts {
        if let Some(cpus) = self.assume_cpus {
            host = host.assume_cpus(cpus);
        }
        if let Some(bytes) = self.assume_shm.as_ref().and_then(shm_bytes) {
            host = host.assume_shm(bytes);
        }
        host
    }
}

fn shm_bytes(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => parse_size(s).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_wrapped_and_bare_settings_and_ignores_extras() {
        let (s, warnings) = ClientSettings::from_value(&json!({"dldoctor": {
            "select": ["DL1"], "maxWorkers": 4, "assumeShm": "64MiB", "autoExplain": true,
            "severity": {"DL202": "info"}, "locale": "zh-cn"
        }}));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(s.max_workers, Some(4));
        let settings = s.apply(&Settings::default());
        assert_eq!(settings.select, vec!["DL1".to_owned()]);
        assert_eq!(settings.severity.get(&Code::DL202), Some(&Severity::Info));
        let host = s.apply_host(HostFacts::unknown());
        assert_eq!(host.shm.unwrap().total_bytes, 64 << 20);
        let (bare, _) = ClientSettings::from_value(&json!({"assumeCpus": 8}));
        assert_eq!(bare.apply_host(HostFacts::unknown()).usable_cpus, Some(8));
    }

    #[test]
    fn malformed_settings_fall_back_with_a_warning() {
        let (s, warnings) = ClientSettings::from_value(&json!({"maxWorkers": "many"}));
        assert_eq!(s, ClientSettings::default());
        assert_eq!(warnings.len(), 1);
        let (_, warnings) = ClientSettings::from_value(
            &json!({"severity": {"DL999": "loud"}, "assumeShm": "lots"}),
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }
}
