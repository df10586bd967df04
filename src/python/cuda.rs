//! CUDA initialisation: which calls create a CUDA context in the calling process, and whether
//! one is reachable before a loader's workers start.
//!
//! Checked against PyTorch's source (`torch/cuda/__init__.py`, `torch/cuda/random.py`,
//! `torch/csrc/utils/device_lazy_init.h`):
//! - `init`, `current_device`, `synchronize`, `get_device_properties` (and so
//!   `get_device_name`/`get_device_capability`), `current_stream`, `default_stream`,
//!   `ipc_collect`, `get_rng_state`, `initial_seed`, `cudart` call `_lazy_init()`;
//!   `mem_get_info()` calls `current_device()` when no device is given; `set_device` goes to
//!   `torch._C._cuda_setDevice`, which initialises lazily in C++.
//! - `.cuda()`, `.to(device)` and factories with `device=` call `maybe_initialize_device`.
//! - `is_available()` and `device_count()` only count devices (`cudaGetDeviceCount` / NVML);
//!   `manual_seed`, `manual_seed_all`, `seed`, `seed_all`, `set_rng_state` queue their work with
//!   `_lazy_call` until something else initialises CUDA; `torch.device("cuda")` is a plain
//!   value. None of these is reported.

use tree_sitter::Node;

use crate::python::analysis::Analysis;
use crate::python::argparse::{External, parameter_default};
use crate::python::defaults::{FunctionParameter, Passed};
use crate::python::kinds::{FIELDS, Kind, kind};
use crate::python::labels::CudaCall;
use crate::python::model::MODULE_SCOPE;
use crate::python::syntax;
use crate::python::values::Value;
use crate::text::TextRange;

/// `torch.cuda` functions that initialise CUDA in the calling process.
const INITIALISING_CUDA_FUNCTIONS: &[&str] = &[
    "init",
    "set_device",
    "current_device",
    "synchronize",
    "get_device_name",
    "get_device_properties",
    "get_device_capability",
    "mem_get_info",
    "current_stream",
    "default_stream",
    "ipc_collect",
    "get_rng_state",
    "get_rng_state_all",
    "initial_seed",
    "cudart",
];

/// Libraries that drive the GPU themselves; a forked child inherits a CUDA context they cannot
/// use (DL102 turns into a warning when worker-side code uses one).
const CUDA_CAPABLE_LIBRARIES: &[&str] =
    &["cupy", "cv2.cuda", "nvidia.dali", "numba.cuda", "pycuda"];

/// Whether a device expression names a CUDA device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cudaness {
    /// `"cuda"`, `"cuda:0"`, `torch.device("cuda")`, or a name bound only to those.
    Cuda,
    /// A conditional that picks CUDA when it is available
    /// (`"cuda" if torch.cuda.is_available() else "cpu"`).
    WhenAvailable,
}

impl Cudaness {
    /// Two readings of one device together (a name bound twice, two callers): CUDA only
    /// when it is available as soon as one of them is.
    pub fn join(self, other: Cudaness) -> Cudaness {
        match (self, other) {
            (Cudaness::Cuda, Cudaness::Cuda) => Cudaness::Cuda,
            _ => Cudaness::WhenAvailable,
        }
    }
}

/// One place that initialises CUDA (or uses a CUDA-capable library).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaUse {
    pub range: TextRange,
    /// How a message names it, e.g. `.cuda()` or `torch.cuda.set_device()`.
    pub what: CudaCall,
    pub cudaness: Cudaness,
}

/// Which call of a scan's subtree to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    CudaInit,
    CudaLibrary,
}

/// Every call in `node`'s subtree that initialises CUDA, in source order. Nested function and
/// class bodies are skipped: defining a function runs none of its body.
pub fn cuda_inits(scope: &Analysis, node: Node) -> Vec<CudaUse> {
    scan(scope, node, Want::CudaInit)
}

/// Calls in `node`'s subtree into a CUDA-capable library other than PyTorch.
pub fn cuda_library_uses(scope: &Analysis, node: Node) -> Vec<CudaUse> {
    scan(scope, node, Want::CudaLibrary)
}

fn scan(scope: &Analysis, node: Node, want: Want) -> Vec<CudaUse> {
    let mut found = Vec::new();
    syntax::walk_executed(node, &mut |n| {
        if kind(n) == Kind::Call {
            let hit = match want {
                Want::CudaInit => call_initialises_cuda(scope, n),
                Want::CudaLibrary => call_uses_cuda_library(scope, n),
            };
            found.extend(hit);
        }
    });
    found
}

/// Whether `call` creates a CUDA context, and how to name it.
pub fn call_initialises_cuda(scope: &Analysis, call: Node) -> Option<CudaUse> {
    let function = call.child_by_field_name("function")?;
    let range = syntax::range(call);
    let qualified = scope.qualified_name(function);
    if let Some(q) = qualified.as_deref() {
        if let Some(name) = q.strip_prefix("torch.cuda.") {
            if INITIALISING_CUDA_FUNCTIONS.contains(&name) {
                return Some(CudaUse {
                    range,
                    what: CudaCall::Code(format!("torch.cuda.{name}()")),
                    cudaness: Cudaness::Cuda,
                });
            }
            return None;
        }
        if q == "torch.device" {
            return None;
        }
        if q == "torch.distributed.init_process_group" {
            let backend = scope
                .keyword_arg(call, "backend")
                .or_else(|| syntax::positional_argument(call, 0))?;
            return (scope.string_value(backend).as_deref() == Some("nccl")).then(|| CudaUse {
                range,
                what: CudaCall::Code("init_process_group(backend=\"nccl\")".to_owned()),
                cudaness: Cudaness::Cuda,
            });
        }
        if q == "torch.nn.parallel.DistributedDataParallel"
            || q == "torch.nn.parallel.distributed.DistributedDataParallel"
        {
            return scope.keyword_arg(call, "device_ids").map(|_| CudaUse {
                range,
                what: CudaCall::Code("DistributedDataParallel(..., device_ids=...)".to_owned()),
                cudaness: Cudaness::Cuda,
            });
        }
        // Factories and modules created on a device: `torch.zeros(..., device="cuda")`,
        // `nn.Linear(..., device=DEVICE)`, `torchvision.io.decode_jpeg(..., device="cuda")`.
        if q.starts_with("torch.") || q.starts_with("torchvision.") {
            let device = scope.keyword_arg(call, "device")?;
            let cudaness = device_cudaness(scope, device)?;
            let short = q.rsplit('.').next().unwrap_or(q);
            return Some(CudaUse {
                range,
                what: CudaCall::Code(format!("{short}(..., device={})", scope.text(device))),
                cudaness,
            });
        }
    }
    // Tensor and module methods: `.cuda()`, `.to(<cuda device>)`.
    if function.kind() != "attribute" {
        return None;
    }
    let object = function.child_by_field_name("object")?;
    let method = scope.text(function.child_by_field_name("attribute")?);
    // `torch.cuda` is a module, and calls on a module are not tensor methods.
    if scope.qualified_name(object).is_some() {
        return None;
    }
    match method {
        "cuda" => Some(CudaUse {
            range,
            what: CudaCall::Code(".cuda()".to_owned()),
            cudaness: Cudaness::Cuda,
        }),
        "to" => {
            let device = scope
                .keyword_arg(call, "device")
                .or_else(|| syntax::positional_argument(call, 0))?;
            let cudaness = device_cudaness(scope, device)?;
            Some(CudaUse {
                range,
                what: CudaCall::Code(format!(".to({})", scope.text(device))),
                cudaness,
            })
        }
        _ => None,
    }
}

fn call_uses_cuda_library(scope: &Analysis, call: Node) -> Option<CudaUse> {
    let function = call.child_by_field_name("function")?;
    let q = scope.qualified_name(function)?;
    let library = CUDA_CAPABLE_LIBRARIES
        .iter()
        .find(|lib| q == **lib || q.starts_with(&format!("{lib}.")))?;
    Some(CudaUse {
        range: syntax::range(call),
        what: CudaCall::Library { call: q, library },
        cudaness: Cudaness::Cuda,
    })
}

/// How many calls deep a same-file function that initialises CUDA is followed, and how many
/// callers of the function holding a loader are followed to find earlier code.
const MAX_DEPTH: u8 = 3;

/// CUDA initialised in the main process before `statement` runs: in earlier statements of its
/// block and the enclosing blocks up to its function, then (through the first call of that
/// function in the file) before that call, and so on to module level. Calls to same-file
/// functions in those statements count when their bodies initialise CUDA.
pub fn cuda_before(scope: &Analysis, statement: Node) -> Vec<CudaUse> {
    let mut found = Vec::new();
    let mut visited = Vec::new();
    let mut at = Some(statement);
    for _ in 0..=MAX_DEPTH {
        let Some(node) = at else {
            break;
        };
        for earlier in syntax::preceding_statements(node) {
            if matches!(
                earlier.kind(),
                "function_definition" | "class_definition" | "decorated_definition"
            ) {
                continue;
            }
            found.extend(cuda_inits_through_calls(scope, earlier, &mut visited, 0));
        }
        at = syntax::enclosing_function(node).and_then(|f| first_call_of(scope, f));
    }
    found.sort_by_key(|u| u.range.start);
    found
}

/// The first call of the module-level function `function` outside its own body.
fn first_call_of<'a>(scope: &Analysis<'a>, function: Node<'a>) -> Option<Node<'a>> {
    if syntax::enclosing_class(function).is_some() {
        return None;
    }
    scope.calls_from_outside(function).next()
}

/// CUDA initialisation in `node`, and in the bodies of the same-file functions it calls; a use
/// found in a callee is reported at the call, naming both.
fn cuda_inits_through_calls(
    scope: &Analysis,
    node: Node,
    visited: &mut Vec<usize>,
    depth: u8,
) -> Vec<CudaUse> {
    let mut found = cuda_inits(scope, node);
    if depth >= MAX_DEPTH {
        return found;
    }
    let mut calls = Vec::new();
    syntax::walk_executed(node, &mut |n| {
        if kind(n) == Kind::Call
            && let Some(function) = n.child_by_field_id(FIELDS.function)
            && kind(function) == Kind::Identifier
        {
            calls.push((n, function));
        }
    });
    for (call, function) in calls {
        let name = scope.text(function);
        let Some(definition) = scope.visible_definition(call, name) else {
            continue;
        };
        if definition.kind() != "function_definition" || visited.contains(&definition.start_byte())
        {
            continue;
        }
        visited.push(definition.start_byte());
        let Some(body) = definition.child_by_field_name("body") else {
            continue;
        };
        if let Some(inner) = cuda_inits_through_calls(scope, body, visited, depth + 1).first() {
            found.push(CudaUse {
                range: syntax::range(call),
                what: CudaCall::Through {
                    function: name.to_owned(),
                    inner: Box::new(inner.what.clone()),
                },
                cudaness: inner.cudaness,
            });
        }
    }
    found
}

/// Whether a device expression is a CUDA device; `None` when it is not or cannot be known.
pub fn device_cudaness(scope: &Analysis, expr: Node) -> Option<Cudaness> {
    device_cudaness_at(scope, expr, 0)
}

fn device_cudaness_at(scope: &Analysis, expr: Node, depth: u8) -> Option<Cudaness> {
    if depth > 6 {
        return None;
    }
    match expr.kind() {
        // `f"cuda:{gpu}"`: the literal text before the first field names the device type.
        "string" if is_f_string(expr) => {
            let prefix = f_string_prefix(scope, expr)?;
            (prefix == "cuda" || prefix.starts_with("cuda:")).then_some(Cudaness::Cuda)
        }
        "string" => scope
            .string_value(expr)
            .filter(|s| is_cuda_device_string(s))
            .map(|_| Cudaness::Cuda),
        "integer" => None,
        "parenthesized_expression" => device_cudaness_at(scope, expr.named_child(0)?, depth + 1),
        "call" => {
            let function = expr.child_by_field_name("function")?;
            if scope.qualified_name(function).as_deref() != Some("torch.device") {
                return None;
            }
            let first = scope
                .keyword_arg(expr, "type")
                .or_else(|| syntax::positional_argument(expr, 0))?;
            device_cudaness_at(scope, first, depth + 1)
        }
        "conditional_expression" => {
            let mut any = false;
            let mut cursor = expr.walk();
            let branches: Vec<Node> = expr.named_children(&mut cursor).collect();
            // `a if cond else b`: children are a, cond, b.
            for (i, branch) in branches.iter().enumerate() {
                if i == 1 {
                    continue;
                }
                any |= device_cudaness_at(scope, *branch, depth + 1).is_some();
            }
            any.then_some(Cudaness::WhenAvailable)
        }
        "identifier" | "attribute" => {
            let values = scope.bound_values(expr);
            if values.is_empty() {
                // What the model resolves beyond plain bindings: `args.device` from the
                // `default=` of `add_argument("--device")`.
                return match scope.m.value_of(expr).value {
                    Value::Str(s) if is_cuda_device_string(&s) => Some(Cudaness::Cuda),
                    _ => passed_device(scope, expr, depth),
                };
            }
            let mut all_cuda = true;
            let mut any = None;
            for value in values {
                match device_cudaness_at(scope, value, depth + 1) {
                    Some(c) => any = Some(any.map_or(c, |a: Cudaness| a.join(c))),
                    None => all_cuda = false,
                }
            }
            // A name bound to CUDA on one path and to something else on another is CUDA only
            // when that path runs.
            match any {
                Some(Cudaness::Cuda) if !all_cuda => Some(Cudaness::WhenAvailable),
                other => other,
            }
        }
        _ => None,
    }
}

/// Whether a string node is an f-string (`f"cuda:{gpu}"`).
fn is_f_string(string: Node) -> bool {
    let mut cursor = string.walk();
    string
        .named_children(&mut cursor)
        .any(|c| c.kind() == "interpolation")
}

/// The literal text of an f-string before its first field (`cuda:` of `f"cuda:{gpu}"`).
fn f_string_prefix(scope: &Analysis, string: Node) -> Option<String> {
    let mut cursor = string.walk();
    let mut prefix = String::new();
    for child in string.named_children(&mut cursor) {
        match child.kind() {
            "string_start" => {}
            "string_content" => prefix.push_str(scope.text(child)),
            _ => break,
        }
    }
    Some(prefix)
}

/// A parameter of a module-level function, as a device: what every call of the function
/// passes it (at least one call; the default when a call passes nothing), in this file, or,
/// for a function no code of this file calls, in the project's other files.
fn passed_device(scope: &Analysis, expr: Node, depth: u8) -> Option<Cudaness> {
    let m = scope.m;
    let binding = m.single_binding(scope.text(expr), m.scope_at(expr))?;
    let parameter = FunctionParameter::of(m, binding)?;
    let function = parameter.function;
    if parameter.references.is_empty() {
        if function.parent_scope != MODULE_SCOPE {
            return None;
        }
        let external = External {
            callee: function.name.to_owned(),
            position: (!parameter.keyword_only).then_some(parameter.position),
            keyword: binding.name.to_owned(),
            method: None,
            splat: false,
        };
        return m.index.cuda_device_passed(m.path, &external);
    }
    let default = parameter_default(binding.node);
    if parameter.references.len() > MAX_DEVICE_CALLS {
        return None;
    }
    let mut found: Option<Cudaness> = None;
    for (_, passed) in parameter.calls(m)? {
        let given = match passed {
            Passed::Value(value, _) => value,
            Passed::Nothing => default?,
            _ => return None,
        };
        let cudaness = device_cudaness_at(scope, given, depth + 1)?;
        found = Some(found.map_or(cudaness, |f: Cudaness| f.join(cudaness)));
    }
    found
}

/// How many calls of a function [`passed_device`] reads.
const MAX_DEVICE_CALLS: usize = 16;

fn is_cuda_device_string(s: &str) -> bool {
    s == "cuda"
        || s.strip_prefix("cuda:")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;

    fn inits(source: &str) -> Vec<String> {
        crate::python::analysis::with_analysis(source, |scope| {
            cuda_inits(scope, scope.root())
                .into_iter()
                .map(|u| u.what.render(Lang::En))
                .collect()
        })
    }

    #[test]
    fn device_strings() {
        assert!(is_cuda_device_string("cuda"));
        assert!(is_cuda_device_string("cuda:1"));
        assert!(!is_cuda_device_string("cuda:"));
        assert!(!is_cuda_device_string("cpu"));
        assert!(!is_cuda_device_string("cudax"));
    }

    #[test]
    fn initialising_calls() {
        let found = inits(
            "import torch\nfrom torch import cuda\nimport torch.nn as nn\nDEV = torch.device('cuda:0')\n\
             x = torch.zeros(3).cuda()\ny = x.to(DEV)\ncuda.set_device(0)\n\
             z = torch.ones(2, device='cuda')\nm = nn.Linear(2, 2, device=DEV)\ntorch.cuda.synchronize()\n",
        );
        assert_eq!(
            found,
            [
                "`.cuda()`",
                "`.to(DEV)`",
                "`torch.cuda.set_device()`",
                "`ones(..., device='cuda')`",
                "`Linear(..., device=DEV)`",
                "`torch.cuda.synchronize()`"
            ]
        );
    }

    #[test]
    fn calls_that_do_not_initialise() {
        let found = inits(
            "import torch\nok = torch.cuda.is_available()\nn = torch.cuda.device_count()\n\
             torch.cuda.manual_seed_all(0)\ntorch.cuda.manual_seed(1)\nd = torch.device('cuda')\n\
             x = torch.zeros(2).to('cpu')\ny = torch.zeros(2, device='cpu')\ntorch.backends.cudnn.benchmark = True\n\
             def later():\n    return torch.zeros(1).cuda()\n",
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn conditional_device_is_cuda_when_available() {
        let source = "import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nmodel = torch.nn.Linear(1, 1).to(device)\n";
        let uses =
            crate::python::analysis::with_analysis(source, |scope| cuda_inits(scope, scope.root()));
        assert_eq!(uses.len(), 1);
        assert_eq!(uses[0].cudaness, Cudaness::WhenAvailable);
    }

    fn before(source: &str, marker: &str) -> Vec<String> {
        crate::python::analysis::with_analysis(source, |scope| {
            let at = source.find(marker).expect("marker");
            let node = scope
                .root()
                .descendant_for_byte_range(at, at)
                .expect("node");
            let statement = crate::python::model::statement_of(node).expect("statement");
            cuda_before(scope, statement)
                .into_iter()
                .map(|u| u.what.render(Lang::En))
                .collect()
        })
    }

    #[test]
    fn reachability_through_callers_and_helpers() {
        let source = r#"import torch
def build():
    return torch.nn.Linear(1, 1).cuda()
def main():
    model = build()
    for x in loader:
        x.cuda()
    LOADER
    print(torch.ones(1).cuda())
if __name__ == '__main__':
    torch.cuda.init()
    main()
"#;
        assert_eq!(
            before(source, "LOADER"),
            [
                "`build()`, which calls `.cuda()`",
                "`.cuda()`",
                "`torch.cuda.init()`"
            ]
        );
        let after_only = "import torch
def main():
    LOADER
    torch.ones(1).cuda()
main()
";
        assert!(before(after_only, "LOADER").is_empty());
    }

    #[test]
    fn argparse_default_device() {
        let found = inits(
            "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--device', default='cuda')\nargs = parser.parse_args()\nx = y.to(args.device)\n",
        );
        assert_eq!(found, ["`.to(args.device)`"]);
    }

    #[test]
    fn f_string_devices_and_devices_every_caller_passes() {
        let cudaness = to_cudaness;
        let build = "import torch\ndef build(x, device='cpu'):\n    return x.to(device)\n";
        assert_eq!(
            cudaness(&format!("{build}build(1, torch.device(f'cuda:{{0}}'))\n")),
            Some(Cudaness::Cuda)
        );
        assert_eq!(
            cudaness(&format!("{build}build(1, device=f'cpu:{{0}}')\n")),
            None
        );
        // A call that leaves the default passes it.
        assert_eq!(
            cudaness(
                "import torch\ndef build(x, device='cuda'):\n    return x.to(device)\nbuild(1)\n"
            ),
            Some(Cudaness::Cuda)
        );
        // One call leaves the default, `'cpu'`.
        assert_eq!(
            cudaness(&format!("{build}build(1, 'cuda')\nbuild(2)\n")),
            None
        );
        assert_eq!(
            cudaness(&format!(
                "{build}build(1, 'cuda')\nbuild(2, 'cuda' if torch.cuda.is_available() else 'cpu')\n"
            )),
            Some(Cudaness::WhenAvailable)
        );
    }

    #[test]
    fn device_parameter_is_what_every_call_passes() {
        let f = "def f(x, device):\n    return x.to(device)\n";
        assert_eq!(
            to_cudaness(&format!("{f}f(1, 'cuda')\nf(2, 'cpu')\n")),
            None
        );
        assert_eq!(to_cudaness(&format!("{f}f(1, device)\n")), None);
        assert_eq!(to_cudaness(f), None);
        assert_eq!(
            to_cudaness(&format!("{f}f(1, 'cuda')\n")),
            Some(Cudaness::Cuda)
        );
    }

    /// The cudaness of the first `.to()` call of `source`, wherever it is.
    fn to_cudaness(source: &str) -> Option<Cudaness> {
        crate::python::analysis::with_analysis(source, |scope| {
            let to = scope
                .m
                .calls()
                .iter()
                .find(|c| c.method == Some("to"))
                .map(|c| c.node)
                .expect("a .to() call");
            call_initialises_cuda(scope, to).map(|u| u.cudaness)
        })
    }
}
