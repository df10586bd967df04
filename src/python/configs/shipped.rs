//! A config merged from a file named only at run time (`update_config(args.cfg)`,
//! `cfg.merge_from_file(args.config_file)` with `--cfg` required): the config files the
//! project ships for it are what a run uses, and when every one of them gives a key the same
//! value (setting it, or keeping the default), that is the value. A file fits the config when
//! each of its top-level keys is one of the config's (yacs and the `update_config` helpers
//! refuse any other); a file that inherits another (`_BASE_`) is not read, so any such file
//! among them leaves the value unknown, as does a disagreement.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{hydra, yaml};
use crate::python::model::Module;
use crate::python::values::{Provenance, Resolved};

/// The value every shipped config file that fits gives `path` when merged over `before`, with
/// a provenance naming the merge `call` (and the default, when a file keeps it, else the first
/// file in path order); `None` when no file fits or they do not agree.
pub(super) fn agreed(
    m: &Module,
    config_file: &Path,
    before: &yaml::Node,
    path: &[String],
    shown: &str,
    call: &str,
) -> Option<Resolved> {
    let yaml::Node::Map(entries) = before else {
        return None;
    };
    let keys: HashSet<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    let mut agreed: Option<Resolved> = None;
    let mut files = 0usize;
    let base = common_folder(m.path, config_file);
    for top in fitting(m, &base, |k| k == "_BASE_" || keys.contains(k)) {
        if top.iter().any(|(k, _)| k == "_BASE_") {
            return None;
        }
        let mut tree = before.clone();
        tree.merge(yaml::Node::Map(top));
        let resolved = hydra::value_at(m, &tree, path, shown)?;
        if !resolved.value.is_known() {
            return None;
        }
        match &agreed {
            Some(first) if first.value != resolved.value => return None,
            // The default a file keeps is named before a file that sets the same.
            Some(first)
                if !matches!(first.provenance, Provenance::ConfigDefault { .. })
                    && matches!(resolved.provenance, Provenance::ConfigDefault { .. }) =>
            {
                agreed = Some(resolved);
            }
            Some(_) => {}
            None => agreed = Some(resolved),
        }
        files += 1;
    }
    let agreed = agreed?;
    Some(Resolved {
        value: agreed.value,
        provenance: Provenance::Shipped {
            base: Box::new(agreed.provenance),
            files,
            call: call.split_whitespace().collect::<Vec<_>>().join(" "),
        },
    })
}

/// The top-level entries of each config file under `base` that fits: not empty, and each of
/// its keys one `fits` accepts. In path order.
pub(super) fn fitting(
    m: &Module,
    base: &Path,
    fits: impl Fn(&str) -> bool,
) -> Vec<Vec<(String, yaml::Node)>> {
    m.index
        .config_files(base)
        .iter()
        .filter_map(|file| match yaml::load(file).as_ref() {
            Ok(yaml::Node::Map(top)) if !top.is_empty() && top.iter().all(|(k, _)| fits(k)) => {
                Some(top.clone())
            }
            _ => None,
        })
        .collect()
}

/// The deepest folder holding both files (empty when they share none).
fn common_folder(a: &Path, b: &Path) -> PathBuf {
    let (Some(a), Some(b)) = (a.parent(), b.parent()) else {
        return PathBuf::new();
    };
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}
