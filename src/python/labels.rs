//! How messages name the code the analysis found: worker-side functions and the calls that
//! reach them, and the calls that initialise CUDA. They are kept as typed values and rendered
//! per language, so no message is made by taking another language's text apart.

use std::fmt::Write;

use crate::lang::Lang;

/// One piece of worker-side code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeLabel {
    /// A function or method as the code names it: `helper`, `Files.__getitem__`.
    Named(String),
    /// A dataset method found on a base class: `Base.__getitem__`, inherited by `Files`.
    Inherited { method: String, by: String },
    /// A lambda passed to the loader.
    Lambda,
}

impl CodeLabel {
    pub fn render(&self, lang: Lang) -> String {
        match (self, lang) {
            (CodeLabel::Named(name), _) => format!("`{name}`"),
            (CodeLabel::Inherited { method, by }, Lang::En) => {
                format!("`{method}` (inherited by `{by}`)")
            }
            (CodeLabel::Inherited { method, by }, Lang::Zh) => {
                format!("`{method}`（由 `{by}` 继承）")
            }
            (CodeLabel::Lambda, Lang::En) => "the lambda".to_owned(),
            (CodeLabel::Lambda, Lang::Zh) => "lambda".to_owned(),
        }
    }
}

/// Worker-side code and the calls that reach it: the entry point the loader runs (a dataset's
/// `__getitem__`, a `collate_fn`), then each same-file function it calls on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodePath {
    entry: CodeLabel,
    /// Callees in call order, the last one holding the code found.
    calls: Vec<CodeLabel>,
}

impl CodePath {
    pub fn new(entry: CodeLabel) -> Self {
        Self {
            entry,
            calls: Vec::new(),
        }
    }

    /// This path followed into `callee`.
    pub fn calling(&self, callee: CodeLabel) -> Self {
        let mut path = self.clone();
        path.calls.push(callee);
        path
    }

    /// English names the innermost function first ("`helper`, called from `Data.__getitem__`");
    /// Chinese reads caller → callee.
    pub fn render(&self, lang: Lang) -> String {
        let mut labels = std::iter::once(&self.entry).chain(&self.calls);
        match lang {
            Lang::En => {
                let mut out = String::new();
                for (i, label) in labels.rev().enumerate() {
                    if i > 0 {
                        out.push_str(", called from ");
                    }
                    out.push_str(&label.render(lang));
                }
                out
            }
            Lang::Zh => {
                let first = labels.next().map(|l| l.render(lang)).unwrap_or_default();
                labels.fold(first, |mut out, label| {
                    let _ = write!(out, " → {}", label.render(lang));
                    out
                })
            }
        }
    }
}

/// A call that initialises CUDA, or one into a CUDA-capable library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaCall {
    /// The call as the code writes it, the same in every language: `.cuda()`,
    /// `torch.cuda.set_device()`, `.to(device)`.
    Code(String),
    /// A call into a library other than PyTorch: `cupy.asarray()` (cupy).
    Library { call: String, library: &'static str },
    /// A call of a same-file function whose body makes the call: `build()`, which calls
    /// `.cuda()`.
    Through {
        function: String,
        inner: Box<CudaCall>,
    },
}

impl CudaCall {
    pub fn render(&self, lang: Lang) -> String {
        match (self, lang) {
            (CudaCall::Code(code), _) => format!("`{code}`"),
            (CudaCall::Library { call, library }, _) => format!("`{call}()` ({library})"),
            (CudaCall::Through { function, inner }, Lang::En) => {
                format!("`{function}()`, which calls {}", inner.render(lang))
            }
            (CudaCall::Through { function, inner }, Lang::Zh) => {
                format!("`{function}()` → {}", inner.render(lang))
            }
        }
    }
}

/// What constructs a loader: a catalogue entry, or a project class deriving from a loader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryName {
    /// A catalogue entry, by its qualified name: `torch.utils.data.DataLoader`.
    Catalogue(String),
    /// A project class: `PadDataLoader (line 8)` of this file, or `PadDataLoader (loaders.py)`
    /// of another, deriving from `base`.
    Class {
        name: String,
        place: Place,
        base: Box<EntryName>,
    },
    /// `A if c else B`, both loaders.
    Either(Box<EntryName>, Box<EntryName>),
}

/// Where a project class is defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A line of the file being analysed.
    Line(u32),
    /// Another file of the project, by its file name.
    File(String),
}

impl EntryName {
    /// The entry with its chain of base classes: `PadDataLoader (line 8), a subclass of
    /// torch.utils.data.DataLoader`, as `dldoctor loaders` prints it.
    pub fn full(&self) -> String {
        match self {
            EntryName::Catalogue(name) => name.clone(),
            EntryName::Class { base, .. } => {
                format!("{}, a subclass of {}", self.render(Lang::En), base.full())
            }
            EntryName::Either(a, b) => format!("{} or {}", a.full(), b.full()),
        }
    }

    /// The entry without its base classes, as messages name it: `PadDataLoader (line 8)`,
    /// in Chinese `PadDataLoader（第 8 行）`.
    pub fn render(&self, lang: Lang) -> String {
        match (self, lang) {
            (EntryName::Catalogue(name), _) => name.clone(),
            (EntryName::Class { name, place, .. }, Lang::En) => match place {
                Place::Line(line) => format!("{name} (line {line})"),
                Place::File(file) => format!("{name} ({file})"),
            },
            (EntryName::Class { name, place, .. }, Lang::Zh) => match place {
                Place::Line(line) => format!("{name}（第 {line} 行）"),
                Place::File(file) => format!("{name}（{file}）"),
            },
            (EntryName::Either(a, b), Lang::En) => {
                format!("{} or {}", a.render(lang), b.render(lang))
            }
            (EntryName::Either(a, b), Lang::Zh) => {
                format!("{} 或 {}", a.render(lang), b.render(lang))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_chains_read_callee_first_in_english_and_caller_first_in_chinese() {
        let path = CodePath::new(CodeLabel::Inherited {
            method: "Data.__getitem__".into(),
            by: "Files".into(),
        })
        .calling(CodeLabel::Named("Data._read".into()))
        .calling(CodeLabel::Named("helper".into()));
        assert_eq!(
            path.render(Lang::En),
            "`helper`, called from `Data._read`, called from `Data.__getitem__` (inherited by \
             `Files`)"
        );
        assert_eq!(
            path.render(Lang::Zh),
            "`Data.__getitem__`（由 `Files` 继承） → `Data._read` → `helper`"
        );
        let lambda = CodePath::new(CodeLabel::Lambda);
        assert_eq!(lambda.render(Lang::En), "the lambda");
        assert_eq!(lambda.render(Lang::Zh), "lambda");
    }

    #[test]
    fn cuda_calls_name_the_functions_that_reach_them() {
        let call = CudaCall::Through {
            function: "build".into(),
            inner: Box::new(CudaCall::Code(".cuda()".into())),
        };
        assert_eq!(call.render(Lang::En), "`build()`, which calls `.cuda()`");
        assert_eq!(call.render(Lang::Zh), "`build()` → `.cuda()`");
        let library = CudaCall::Library {
            call: "cupy.asarray".into(),
            library: "cupy",
        };
        assert_eq!(library.render(Lang::En), "`cupy.asarray()` (cupy)");
        assert_eq!(library.render(Lang::Zh), "`cupy.asarray()` (cupy)");
        // Code is quoted as written, whatever English it holds.
        let device = CudaCall::Code(".to(\"cuda, called from x\")".into());
        assert_eq!(device.render(Lang::Zh), "`.to(\"cuda, called from x\")`");
    }

    #[test]
    fn entries_name_project_classes_by_their_place() {
        let class = |name: &str, place, base| EntryName::Class {
            name: name.into(),
            place,
            base: Box::new(base),
        };
        let torch = EntryName::Catalogue("torch.utils.data.DataLoader".into());
        let pad = class(
            "PadDataLoader",
            Place::Line(8),
            class("Base", Place::File("loaders.py".into()), torch.clone()),
        );
        assert_eq!(
            pad.full(),
            "PadDataLoader (line 8), a subclass of Base (loaders.py), a subclass of \
             torch.utils.data.DataLoader"
        );
        assert_eq!(pad.render(Lang::En), "PadDataLoader (line 8)");
        assert_eq!(pad.render(Lang::Zh), "PadDataLoader（第 8 行）");
        assert_eq!(torch.render(Lang::Zh), "torch.utils.data.DataLoader");
        let either = EntryName::Either(Box::new(pad), Box::new(torch));
        assert_eq!(
            either.render(Lang::En),
            "PadDataLoader (line 8) or torch.utils.data.DataLoader"
        );
    }
}
