//! How a DataLoader's workers start: its `multiprocessing_context` (a string, or a
//! `get_context(...)` object, also through a name), else a process-wide `set_start_method(...)`
//! of `multiprocessing` or `torch.multiprocessing` anywhere in the file, else the platform's
//! default (fork on Linux before Python 3.14, forkserver on Linux from 3.14, spawn on macOS
//! and Windows).

use std::fmt;

use crate::lang::Lang;
use crate::python::analysis::Analysis;
use crate::python::loaders::{ArgState, Loader, Param};
use crate::python::syntax;
use crate::python::values::Value;
use crate::text::TextRange;

const MULTIPROCESSING_MODULES: &[&str] = &["multiprocessing", "torch.multiprocessing"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Fork,
    Spawn,
    Forkserver,
}

impl Method {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "fork" => Some(Method::Fork),
            "spawn" => Some(Method::Spawn),
            "forkserver" => Some(Method::Forkserver),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Fork => "fork",
            Method::Spawn => "spawn",
            Method::Forkserver => "forkserver",
        }
    }

    /// Spawn and forkserver pickle what they send to a worker and re-import the main module.
    pub fn pickles(self) -> bool {
        !matches!(self, Method::Fork)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the platform's default applies, so messages can say which default and how sure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Default {
    /// Linux before Python 3.14 (`target_version` known).
    LinuxBefore314,
    /// Linux from Python 3.14: forkserver.
    LinuxFrom314,
    /// Linux, Python version unknown: fork assumed (today's common case).
    LinuxAssumed,
    /// macOS and Windows spawn.
    NotLinux,
}

/// Where a loader's start method comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The loader's own `multiprocessing_context=` argument.
    Argument(TextRange),
    /// A process-wide `set_start_method(...)` call.
    ProcessWide(TextRange),
    /// Nothing chose it.
    Implicit(Default),
}

/// A loader's start method; `method` is `None` when something chooses it but the choice cannot
/// be read (a context from a parameter, a method name from a variable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartMethod {
    pub method: Option<Method>,
    pub origin: Origin,
}

impl StartMethod {
    pub fn is_explicit(&self) -> bool {
        !matches!(self.origin, Origin::Implicit(_))
    }

    pub fn is_fork(&self) -> bool {
        self.method == Some(Method::Fork)
    }

    /// Where the choice was made, for `relatedInformation`.
    pub fn range(&self) -> Option<TextRange> {
        match self.origin {
            Origin::Argument(r) | Origin::ProcessWide(r) => Some(r),
            Origin::Implicit(_) => None,
        }
    }

    /// A clause for messages: "the workers start by fork (the default on Linux before Python
    /// 3.14; the project's Python version is unknown, so fork is assumed)", in Chinese "worker
    /// 以 fork 方式启动，……".
    pub fn describe(&self, lang: Lang) -> String {
        match lang {
            Lang::En => self.describe_en(),
            Lang::Zh => self.describe_zh(),
        }
    }

    fn describe_en(&self) -> String {
        let method = self.method.map_or("an unknown method", Method::as_str);
        match self.origin {
            // Nothing the analysis read chose it, but the call may (a `**kwargs` it cannot
            // read, thread workers): no default applies.
            Origin::Implicit(_) if self.method.is_none() => {
                "the start method is unknown: the call may choose one the analysis cannot read"
                    .to_owned()
            }
            Origin::Argument(_) => {
                format!("the workers start by {method} (`multiprocessing_context`)")
            }
            Origin::ProcessWide(_) => format!("the workers start by {method} (`set_start_method`)"),
            Origin::Implicit(Default::LinuxBefore314) => {
                format!("the workers start by {method}, the default on Linux before Python 3.14")
            }
            Origin::Implicit(Default::LinuxFrom314) => {
                format!("the workers start by {method}, the default on Linux from Python 3.14")
            }
            Origin::Implicit(Default::LinuxAssumed) => format!(
                "the workers start by {method}, the default on Linux before Python 3.14 (the \
                 project's Python version is unknown, so {method} is assumed)"
            ),
            Origin::Implicit(Default::NotLinux) => {
                format!("the workers start by {method}, the default on macOS and Windows")
            }
        }
    }

    fn describe_zh(&self) -> String {
        let how = match self.method {
            Some(method) => format!("worker 以 {method} 方式启动"),
            None => "worker 以未知方式启动".to_owned(),
        };
        let method = self.method.map_or("该方式", Method::as_str);
        match self.origin {
            Origin::Implicit(_) if self.method.is_none() => {
                "启动方式未知：调用可能以分析读不到的方式选择它".to_owned()
            }
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
}

/// The platform's default start method for `os` (as `std::env::consts::OS` spells it) and the
/// project's Python version.
pub fn platform_default(os: &str, target_version: Option<(u8, u8)>) -> StartMethod {
    let (method, default) = match (os, target_version) {
        ("macos" | "windows", _) => (Method::Spawn, Default::NotLinux),
        (_, Some(v)) if v >= (3, 14) => (Method::Forkserver, Default::LinuxFrom314),
        (_, Some(_)) => (Method::Fork, Default::LinuxBefore314),
        (_, None) => (Method::Fork, Default::LinuxAssumed),
    };
    StartMethod {
        method: Some(method),
        origin: Origin::Implicit(default),
    }
}

/// The start method of a DataLoader. `platform` is what applies when nothing in the file
/// chooses one (see [`platform_default`]).
pub fn start_method(scope: &Analysis, loader: &Loader, platform: StartMethod) -> StartMethod {
    // Worker threads in a substituted context (MONAI's `use_thread_workers=True`).
    if loader.opaque_start {
        return StartMethod {
            method: None,
            ..platform
        };
    }
    match loader.state(Param::MultiprocessingContext) {
        ArgState::Passed(argument) => {
            let origin = Origin::Argument(argument.anchor);
            let method = match &argument.value.value {
                // `None` leaves the choice to the process-wide method.
                Value::None if !argument.conditional => return process_wide_or(scope, platform),
                _ if argument.conditional => None,
                Value::Str(name) => Method::parse(name),
                Value::Context { method: Some(name) } => Method::parse(name),
                // `get_context()` is the process-wide default context.
                Value::Context { method: None } => process_wide_or(scope, platform).method,
                _ => None,
            };
            StartMethod { method, origin }
        }
        // A `**kwargs` the model cannot read may carry its own context.
        ArgState::Unknown => StartMethod {
            method: None,
            ..platform
        },
        ArgState::Default => process_wide_or(scope, platform),
    }
}

fn process_wide_or(scope: &Analysis, platform: StartMethod) -> StartMethod {
    match process_wide(scope) {
        Some((range, method)) => StartMethod {
            method,
            origin: Origin::ProcessWide(range),
        },
        None => platform,
    }
}

/// The first `set_start_method(...)` of `multiprocessing` or `torch.multiprocessing` in the
/// file, wherever it is (module level, under the main guard, in a function).
pub fn process_wide(scope: &Analysis) -> Option<(TextRange, Option<Method>)> {
    *scope
        .process_wide
        .get_or_init(|| first_set_start_method(scope))
}

fn first_set_start_method(scope: &Analysis) -> Option<(TextRange, Option<Method>)> {
    // The model's calls, in source order, instead of a walk of the tree per loader; the
    // model's own resolution only preselects, the name is resolved where the call reads it.
    scope.m.calls().iter().find_map(|call| {
        let named = call
            .qualified
            .as_deref()
            .is_some_and(|q| q.ends_with(".set_start_method"))
            || scope.text(call.callee).ends_with("set_start_method");
        if !named {
            return None;
        }
        let qualified = scope.qualified_name(call.callee)?;
        MULTIPROCESSING_MODULES
            .iter()
            .any(|m| qualified.strip_prefix(m) == Some(".set_start_method"))
            .then(|| {
                let method = scope
                    .keyword_arg(call.node, "method")
                    .or_else(|| syntax::positional_argument(call.node, 0))
                    .and_then(|m| scope.string_value(m))
                    .and_then(|m| Method::parse(&m));
                (syntax::range(call.node), method)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method_of(source: &str, os: &str, version: Option<(u8, u8)>) -> StartMethod {
        let source = format!("from torch.utils.data import DataLoader\n{source}");
        crate::python::analysis::with_analysis(&source, |scope| {
            let loader = scope.m.loaders().first().expect("a DataLoader call");
            start_method(scope, loader, platform_default(os, version))
        })
    }

    #[test]
    fn argument_string_and_context_through_a_name() {
        let m = method_of(
            "DataLoader(ds, multiprocessing_context='spawn')",
            "linux",
            None,
        );
        assert_eq!(m.method, Some(Method::Spawn));
        assert!(m.is_explicit());
        let m = method_of(
            "import torch.multiprocessing as tmp\nctx = tmp.get_context('forkserver')\nDataLoader(ds, multiprocessing_context=ctx)",
            "linux",
            None,
        );
        assert_eq!(m.method, Some(Method::Forkserver));
        let m = method_of(
            "def f(ctx):\n    DataLoader(ds, multiprocessing_context=ctx)",
            "linux",
            None,
        );
        assert_eq!(m.method, None);
        assert!(m.is_explicit());
    }

    #[test]
    fn process_wide_under_the_main_guard() {
        let m = method_of(
            "import multiprocessing as mp\ndef main():\n    DataLoader(ds, num_workers=2)\nif __name__ == '__main__':\n    mp.set_start_method('spawn', force=True)\n    main()",
            "linux",
            None,
        );
        assert_eq!(m.method, Some(Method::Spawn));
        assert!(matches!(m.origin, Origin::ProcessWide(_)));
    }

    #[test]
    fn implicit_defaults() {
        let src = "DataLoader(ds, num_workers=2)";
        assert_eq!(method_of(src, "linux", None).method, Some(Method::Fork));
        assert!(
            method_of(src, "linux", None)
                .describe(Lang::En)
                .contains("unknown")
        );
        assert_eq!(
            method_of(src, "linux", Some((3, 12))).method,
            Some(Method::Fork)
        );
        assert_eq!(
            method_of(src, "linux", Some((3, 14))).method,
            Some(Method::Forkserver)
        );
        assert_eq!(method_of(src, "macos", None).method, Some(Method::Spawn));
        // A user's own set_start_method is not multiprocessing's.
        assert_eq!(
            method_of(
                "def set_start_method(x): pass\nset_start_method('spawn')\nDataLoader(ds)",
                "linux",
                None
            )
            .method,
            Some(Method::Fork)
        );
    }
}
