//! DL2xx: what this machine gives the workers: CPUs, shared memory, file descriptors, RAM.

pub mod cpu_count_workers;
pub mod file_system_sharing_strategy;
pub mod num_workers_exceeds_cpus;
pub mod pin_memory_without_shm_check;
pub mod python_objects_in_dataset;
pub mod small_shared_memory;

use crate::fix::Edit;
use crate::host::{HostFacts, Source};
use crate::python::edit::{ImportEdit, insert_import};
use crate::python::iteration::FirstIteration;
use crate::python::loaders::{Argument, Loader, Param};
use crate::python::model::Module;
use crate::rules::{Checker, fork};

pub(crate) const MIB: u64 = 1 << 20;
pub(crate) const GIB: u64 = 1 << 30;

/// `64 MiB`, `16 GiB`, `1.5 GiB`.
pub(crate) fn human_size(bytes: u64) -> String {
    let (unit, name) = if bytes >= GIB {
        (GIB, "GiB")
    } else if bytes >= MIB {
        (MIB, "MiB")
    } else {
        (1 << 10, "KiB")
    };
    let value = bytes as f64 / unit as f64;
    if (value - value.round()).abs() < 0.05 {
        format!("{} {name}", value.round() as u64)
    } else {
        format!("{value:.1} {name}")
    }
}

/// " (assumed)" when a fact was given with `--assume-*` instead of measured.
pub(crate) fn assumed(source: &Source) -> &'static str {
    match source {
        Source::Assumed => " (assumed)",
        _ => "",
    }
}

/// [`assumed`] in Chinese.
pub(crate) fn assumed_zh(source: &Source) -> &'static str {
    match source {
        Source::Assumed => "（假定值）",
        _ => "",
    }
}

/// "/dev/shm is 64 MiB (60 MiB free)" for this machine, or `None` when unknown.
pub(crate) fn shm_text(host: &HostFacts) -> Option<String> {
    let shm = host.shm.as_ref()?;
    Some(format!(
        "/dev/shm is {} ({} free){}",
        human_size(shm.total_bytes),
        human_size(shm.free_bytes),
        assumed(&host.shm_source)
    ))
}

/// [`shm_text`] in Chinese: "/dev/shm 为 64 MiB（可用 60 MiB，假定值）".
pub(crate) fn shm_text_zh(host: &HostFacts) -> Option<String> {
    let shm = host.shm.as_ref()?;
    let assumed = match host.shm_source {
        Source::Assumed => "，假定值",
        _ => "",
    };
    Some(format!(
        "/dev/shm 为 {}（可用 {}{assumed}）",
        human_size(shm.total_bytes),
        human_size(shm.free_bytes),
    ))
}

/// A loader's `num_workers` when it is passed with a known count above 0, even if only under
/// a condition (possible, not certain).
pub(crate) fn possible_workers<'l, 'a>(loader: &'l Loader<'a>) -> Option<(&'l Argument<'a>, i64)> {
    let arg = loader.argument(Param::NumWorkers)?;
    let n = match arg.value.value {
        crate::python::values::Value::Int(n) => n,
        _ => return None,
    };
    (n > 0).then_some((arg, n))
}

/// Whether every use of the loader is known and none iterates it (a test that only inspects
/// its loader): its workers never start, so what they would need of this machine is moot.
pub(crate) fn never_iterated(checker: &Checker, loader: &Loader) -> bool {
    fork::loaders(checker)
        .iter()
        .find(|l| std::ptr::eq(l.inner, loader))
        .is_some_and(|l| l.first_iteration(checker.model) == FirstIteration::Never)
}

/// The edits importing each of `modules` that is not imported yet; `None` if a name is taken
/// by something else.
pub(crate) fn imports(m: &Module, modules: &[&str]) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    for module in modules {
        match insert_import(m, module) {
            ImportEdit::Present => {}
            ImportEdit::Insert(edit) => edits.push(edit),
            ImportEdit::Conflict => return None,
        }
    }
    Some(edits)
}

/// Wraps an expression's text in parentheses when it would not bind tightly inside another
/// expression.
pub(crate) fn atom_text(m: &Module, node: tree_sitter::Node) -> String {
    let text = m.text(node);
    match node.kind() {
        "identifier"
        | "integer"
        | "attribute"
        | "call"
        | "subscript"
        | "parenthesized_expression" => text.to_owned(),
        _ => format!("({text})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_docker_flags() {
        assert_eq!(human_size(64 * MIB), "64 MiB");
        assert_eq!(human_size(16 * GIB), "16 GiB");
        assert_eq!(human_size(3 * GIB / 2), "1.5 GiB");
        assert_eq!(human_size(512), "0.5 KiB");
    }
}
