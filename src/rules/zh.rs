//! Chinese wording of the descriptions rules take from `python::` (a loader's arguments, its
//! start method, the labels of worker-side code), for the language server's `zh` locale.
//!
//! They live here rather than beside their English in `python::` so the model stays free of
//! presentation; the matches are exhaustive, so a new variant there fails to build here instead
//! of falling back to English silently.

use crate::python::loaders::{ArgState, Loader, Param, Passing};
use crate::python::start_method::{Default, Origin, StartMethod};
use crate::python::values::Provenance;

/// [`StartMethod::describe`] in Chinese: "worker 以 fork 方式启动，……".
pub(crate) fn start_method(start: &StartMethod) -> String {
    let how = match start.method {
        Some(method) => format!("worker 以 {method} 方式启动"),
        None => "worker 以未知方式启动".to_owned(),
    };
    let method = start.method.map_or("该方式", |m| m.as_str());
    match start.origin {
        Origin::Argument(_) => format!("{how}（`multiprocessing_context`）"),
        Origin::ProcessWide(_) => format!("{how}（`set_start_method`）"),
        Origin::Implicit(Default::LinuxBefore314) => {
            format!("{how}，这是 Python 3.14 之前 Linux 上的默认方式")
        }
        Origin::Implicit(Default::LinuxFrom314) => {
            format!("{how}，这是 Python 3.14 起 Linux 上的默认方式")
        }
        Origin::Implicit(Default::LinuxAssumed) => format!(
            "{how}，这是 Python 3.14 之前 Linux 上的默认方式（项目的 Python 版本未知，按 \
             {method} 处理）"
        ),
        Origin::Implicit(Default::NotLinux) => {
            format!("{how}，这是 macOS 和 Windows 上的默认方式")
        }
    }
}

/// [`Provenance::note`] in Chinese: "第 12 行 --num_workers 的默认值".
pub(crate) fn provenance_note(provenance: &Provenance) -> Option<String> {
    match provenance {
        Provenance::Literal | Provenance::Computed => None,
        Provenance::Constant { name, line, .. } => Some(format!("第 {line} 行 {name} 的值")),
        Provenance::ArgparseDefault {
            flag,
            line,
            implicit: false,
            ..
        } => Some(format!("第 {line} 行 {flag} 的默认值")),
        Provenance::ArgparseDefault {
            flag,
            line,
            implicit: true,
            ..
        } => Some(format!("第 {line} 行 argparse 为 {flag} 给出的默认值")),
        Provenance::ParameterDefault {
            function,
            param,
            line,
            ..
        } => Some(format!("第 {line} 行 {function} 的参数 {param} 的默认值")),
        Provenance::ParameterPassed {
            function,
            param,
            line,
            ..
        } => Some(format!("第 {line} 行传给 {function} 的参数 {param} 的值")),
        Provenance::SignatureDefault => Some("DataLoader 的默认值".to_owned()),
        Provenance::EntryDefault { entry: name } => Some(format!("{} 的默认值", entry(name))),
    }
}

/// A loader entry's name in Chinese: `PadDataLoader (line 12)` becomes
/// `PadDataLoader（第 12 行）`; catalogue names are code and stay as they are.
pub(crate) fn entry(name: &str) -> String {
    match name
        .strip_suffix(')')
        .and_then(|n| n.rsplit_once(" (line "))
    {
        Some((class, line)) => format!("{class}（第 {line} 行）"),
        None => name.to_owned(),
    }
}

/// [`Loader::describe`] in Chinese: "num_workers=64（第 12 行 --num_workers 的默认值）".
pub(crate) fn describe(loader: &Loader, param: Param) -> Option<String> {
    let name = param.name();
    match loader.state(param) {
        ArgState::Passed(a) if a.value.value.is_known() => {
            let mut notes: Vec<String> = provenance_note(&a.value.provenance).into_iter().collect();
            if let Passing::Unpacked { .. } = a.passing {
                notes.push("经由 `**` 字典传入".to_owned());
            }
            if a.conditional {
                notes.push("在条件分支中设定".to_owned());
            }
            Some(if notes.is_empty() {
                format!("{name}={}", a.value.value)
            } else {
                format!("{name}={}（{}）", a.value.value, notes.join("，"))
            })
        }
        ArgState::Default if loader.default(param).is_known() => Some(format!(
            "{name}={}（{}）",
            loader.default(param),
            if loader.signature.default_of(param).1 {
                format!("{} 的默认值", entry(loader.entry_name()))
            } else {
                "DataLoader 的默认值".to_owned()
            }
        )),
        _ => None,
    }
}

/// A label of worker-side code or a CUDA call as `python::workers` and `python::cuda` write
/// it, in Chinese. Their English joins call chains with ", called from " (callee first) and
/// ", which calls " (caller first); both become caller → callee.
pub(crate) fn code_path(english: &str) -> String {
    let mut callers: Vec<&str> = english.split(", called from ").collect();
    callers.reverse();
    callers
        .iter()
        .flat_map(|part| part.split(", which calls "))
        .map(code_label)
        .collect::<Vec<_>>()
        .join(" → ")
}

fn code_label(label: &str) -> String {
    if label == "the lambda" {
        return "lambda".to_owned();
    }
    match label.split_once(" (inherited by ") {
        Some((method, rest)) => {
            let class = rest.strip_suffix(')').unwrap_or(rest);
            format!("{method}（由 {class} 继承）")
        }
        None => label.to_owned(),
    }
}

/// Joins pieces of Chinese text, with a space where Latin text meets Chinese, as the hover
/// docs write it ("传入的 lambda 还需", "传入的嵌套函数还需").
pub(crate) fn join(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        if let (Some(before), Some(after)) = (out.chars().last(), part.chars().next())
            && is_ideograph(before) != is_ideograph(after)
            && [before, after]
                .iter()
                .all(|c| !c.is_whitespace() && (is_ideograph(*c) || !is_cjk(*c)))
        {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}')
}

/// CJK ideographs and full-width punctuation.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words_get_spaces_between_chinese() {
        assert_eq!(join(&["传入的", "lambda", "还需"]), "传入的 lambda 还需");
        assert_eq!(join(&["传入的", "嵌套函数", "还需"]), "传入的嵌套函数还需");
        assert_eq!(join(&["`f`", "（由"]), "`f`（由");
    }

    #[test]
    fn call_chains_read_caller_first() {
        assert_eq!(
            code_path("`helper`, called from `Data.__getitem__` (inherited by `Files`)"),
            "`Data.__getitem__`（由 `Files` 继承） → `helper`"
        );
        assert_eq!(
            code_path("`build()`, which calls `.cuda()`"),
            "`build()` → `.cuda()`"
        );
        assert_eq!(code_path("the lambda"), "lambda");
        assert_eq!(
            code_path("`cupy.asarray()` (cupy)"),
            "`cupy.asarray()` (cupy)"
        );
    }
}
