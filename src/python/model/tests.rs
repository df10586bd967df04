use std::path::Path;

use super::build::for_each_named_child;
use super::*;
use crate::lang::Lang;
use crate::python::loaders::{ArgState, DatasetClass, Param, Passing};
use crate::python::parse;
use crate::python::values::{CpuCountFn, Value};

fn with_module(source: &str, check: impl FnOnce(&Module)) {
    let tree = parse(source, None).expect("tree");
    let index = ProjectIndex::default();
    let module = Module::build(source, &tree, Path::new("t.py"), &index);
    check(&module);
}

fn callee_qualified(m: &Module, callee_text: &str) -> Option<String> {
    let call = m
        .calls()
        .iter()
        .find(|c| m.text(c.callee) == callee_text)
        .unwrap_or_else(|| panic!("no call to {callee_text}"));
    call.qualified.clone()
}

#[test]
fn imports_and_aliases_resolve() {
    let src = "\
import torch
import torch.utils.data as tud
from torch.utils.data import DataLoader as DL
from torch.utils.data.dataloader import DataLoader
import torch.multiprocessing as mp
from torch import cuda
import multiprocessing, os
torch.utils.data.DataLoader(ds)
tud.DataLoader(ds)
DL(ds)
DataLoader(ds)
mp.set_sharing_strategy('file_system')
cuda.set_device(0)
os.cpu_count()
multiprocessing.set_start_method('spawn')
len([])
";
    with_module(src, |m| {
        assert_eq!(
            callee_qualified(m, "torch.utils.data.DataLoader").as_deref(),
            Some("torch.utils.data.DataLoader")
        );
        assert_eq!(
            callee_qualified(m, "tud.DataLoader").as_deref(),
            Some("torch.utils.data.DataLoader")
        );
        assert_eq!(
            callee_qualified(m, "DL").as_deref(),
            Some("torch.utils.data.DataLoader")
        );
        assert_eq!(
            callee_qualified(m, "DataLoader").as_deref(),
            Some("torch.utils.data.dataloader.DataLoader")
        );
        assert_eq!(
            callee_qualified(m, "mp.set_sharing_strategy").as_deref(),
            Some("torch.multiprocessing.set_sharing_strategy")
        );
        assert_eq!(
            callee_qualified(m, "cuda.set_device").as_deref(),
            Some("torch.cuda.set_device")
        );
        assert_eq!(
            callee_qualified(m, "os.cpu_count").as_deref(),
            Some("os.cpu_count")
        );
        assert_eq!(
            callee_qualified(m, "multiprocessing.set_start_method").as_deref(),
            Some("multiprocessing.set_start_method")
        );
        assert_eq!(callee_qualified(m, "len").as_deref(), Some("builtins.len"));
        assert_eq!(m.loaders().len(), 4);
    });
}

#[test]
fn local_definitions_shadow_imports() {
    let src = "\
from torch.utils.data import DataLoader
import torch

class DataLoader:
    pass

def f(torch):
    torch.cuda.set_device(0)

DataLoader(ds, prefetch_factor=4)
";
    with_module(src, |m| {
        assert!(m.loaders().is_empty());
        assert_eq!(callee_qualified(m, "torch.cuda.set_device"), None);
    });
}

#[test]
fn import_fallback_in_except_does_not_shadow() {
    let src = "\
try:
    import torch
except ImportError:
    torch = None
torch.cuda.init()
";
    with_module(src, |m| {
        assert_eq!(
            callee_qualified(m, "torch.cuda.init").as_deref(),
            Some("torch.cuda.init")
        );
    });
}

#[test]
fn arguments_bind_by_keyword_and_position() {
    let src = "\
from torch.utils.data import DataLoader
DataLoader(ds, 32, True, num_workers=4, pin_memory=True)
";
    with_module(src, |m| {
        let l = &m.loaders()[0];
        assert_eq!(
            l.certain(Param::BatchSize).map(|r| r.value),
            Some(Value::Int(32))
        );
        assert_eq!(
            l.certain(Param::Shuffle).map(|r| r.value),
            Some(Value::Bool(true))
        );
        assert_eq!(l.num_workers(), Some(4));
        assert_eq!(
            l.certain(Param::PrefetchFactor).map(|r| r.value),
            Some(Value::None)
        );
        let nw = l.argument(Param::NumWorkers).expect("bound");
        assert_eq!(
            m.source.get(nw.anchor.start..nw.anchor.end),
            Some("num_workers")
        );
        assert!(matches!(
            l.argument(Param::Shuffle).map(|a| a.passing),
            Some(Passing::Positional(2))
        ));
    });
}

#[test]
fn star_args_and_opaque_kwargs_make_the_rest_unknown() {
    let src = "\
from torch.utils.data import DataLoader
def make(ds, **kwargs):
    return DataLoader(ds, **kwargs)
def make2(ds, *a):
    return DataLoader(ds, *a, pin_memory=True)
";
    with_module(src, |m| {
        let l = &m.loaders()[0];
        assert!(matches!(l.state(Param::NumWorkers), ArgState::Unknown));
        assert_eq!(l.num_workers(), None);
        let l = &m.loaders()[1];
        assert!(matches!(l.state(Param::NumWorkers), ArgState::Unknown));
        assert!(matches!(l.state(Param::PinMemory), ArgState::Passed(_)));
    });
}

#[test]
fn mnist_kwargs_dicts_bind_their_keys() {
    let src = "\
import torch
def main():
    use_cuda = torch.cuda.is_available()
    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': 1000}
    if use_cuda:
        cuda_kwargs = {'num_workers': 1,
                       'pin_memory': True,
                       'shuffle': True}
        train_kwargs.update(cuda_kwargs)
        test_kwargs.update(cuda_kwargs)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
";
    with_module(src, |m| {
        assert_eq!(m.loaders().len(), 2);
        let l = &m.loaders()[1];
        assert!(!l.has_unknown_arguments);
        let nw = l.argument(Param::NumWorkers).expect("num_workers bound");
        assert!(nw.conditional);
        assert_eq!(nw.value.value, Value::Int(1));
        assert_eq!(l.num_workers(), None, "conditional is not certain");
        assert_eq!(
            l.certain(Param::BatchSize).map(|r| r.value),
            Some(Value::Int(1000))
        );
        assert_eq!(
            l.certain(Param::PrefetchFactor).map(|r| r.value),
            Some(Value::None)
        );
    });
}

#[test]
fn kwargs_dict_passed_elsewhere_is_opaque() {
    let src = "\
from torch.utils.data import DataLoader
kw = {'num_workers': 0}
tweak(kw)
DataLoader(ds, **kw)
DataLoader(ds, **dict(num_workers=2))
";
    with_module(src, |m| {
        assert!(m.loaders()[0].has_unknown_arguments);
        assert_eq!(m.loaders()[1].num_workers(), Some(2));
    });
}

#[test]
fn values_resolve_with_provenance() {
    let src = "\
import argparse, os, multiprocessing
from torch.utils.data import DataLoader
NUM = 8
parser = argparse.ArgumentParser()
parser.add_argument('--num_workers', type=int, default=64)
parser.add_argument('-j', '--data-workers', default='3', type=int)
parser.add_argument('--w', dest='workers_x', default=5)
parser.add_argument('--pin', action='store_true')
parser.add_argument('--twice', default=1)
parser.add_argument('--twice', default=2)
args = parser.parse_args()
DataLoader(ds, num_workers=args.num_workers)
DataLoader(ds, num_workers=args.data_workers)
DataLoader(ds, num_workers=args.workers_x)
DataLoader(ds, pin_memory=args.pin)
DataLoader(ds, num_workers=args.twice)
DataLoader(ds, num_workers=NUM)
DataLoader(ds, num_workers=-1)
DataLoader(ds, num_workers=os.cpu_count())
DataLoader(ds, num_workers=len(os.sched_getaffinity(0)))
DataLoader(ds, num_workers=multiprocessing.cpu_count() // 2)
DataLoader(ds, num_workers=NUM * 2 - 1)
DataLoader(ds, num_workers=min(4, NUM))
";
    with_module(src, |m| {
        let nw = |i: usize| {
            m.loaders()[i]
                .argument(Param::NumWorkers)
                .map(|a| a.value.clone())
                .expect("bound")
        };
        let r = nw(0);
        assert_eq!(r.value, Value::Int(64));
        assert_eq!(
            r.describe(Lang::En),
            "64, the default of --num_workers (line 5)"
        );
        assert_eq!(nw(1).value, Value::Int(3));
        assert_eq!(nw(2).value, Value::Int(5));
        let pin = m.loaders()[3]
            .argument(Param::PinMemory)
            .expect("pin")
            .value
            .clone();
        assert_eq!(pin.value, Value::Bool(false));
        assert_eq!(nw(4).value, Value::Unknown);
        assert_eq!(nw(5).describe(Lang::En), "8, the value of NUM (line 3)");
        assert_eq!(nw(6).value, Value::Int(-1));
        assert_eq!(
            nw(7).value,
            Value::CpuCount {
                func: CpuCountFn::OsCpuCount,
                exact: true
            }
        );
        assert_eq!(
            nw(8).value,
            Value::CpuCount {
                func: CpuCountFn::SchedGetaffinity,
                exact: true
            }
        );
        assert_eq!(
            nw(9).value,
            Value::CpuCount {
                func: CpuCountFn::MultiprocessingCpuCount,
                exact: false
            }
        );
        assert_eq!(nw(10).value, Value::Int(15));
        assert_eq!(nw(11).value, Value::Int(4));
    });
}

#[test]
fn reassigned_names_and_args_are_unknown() {
    let src = "\
import argparse
from torch.utils.data import DataLoader
n = 2
n = 3
parser = argparse.ArgumentParser()
parser.add_argument('--workers', default=4)
args = parser.parse_args()
args.workers = 0
def f(args):
    DataLoader(ds, num_workers=args.workers)
DataLoader(ds, num_workers=n)
DataLoader(ds, num_workers=args.workers)
";
    with_module(src, |m| {
        assert_eq!(m.loaders()[0].num_workers(), None);
        // Rebound in straight-line code of the read's own scope: the last binding before it.
        assert_eq!(m.loaders()[1].num_workers(), Some(3));
        // An unconditional write before the read, in the same scope, decides it.
        let r = m.loaders()[2].certain(Param::NumWorkers).expect("resolved");
        assert_eq!(
            r.describe(Lang::En),
            "0, the value of args.workers (line 8)"
        );
    });
}

/// The shapes of real training scripts: parsers built in helpers, inherited, extended by
/// helpers; namespaces returned, passed on and kept on `self`.
#[test]
fn argparse_through_helpers_and_calls() {
    let src = "\
import argparse
import torch.multiprocessing as mp
from torch.utils.data import DataLoader
from utils import main

def get_args_parser():
    parser = argparse.ArgumentParser('train', add_help=False)
    parser.add_argument('--num_workers', default=10, type=int)
    parser.add_argument('--pin-mem', action='store_true', dest='pin_mem')
    return parser

def add_data_args(parser):
    group = parser.add_argument_group('data')
    group.add_argument('-j', '--workers', default='6', type=int)
    group.add_argument('--prefetch', default=None)
    group.add_argument('--eval-workers', default=2, type=int)
    return parser

def parse_args(input_args=None):
    parser = argparse.ArgumentParser(parents=[get_args_parser()])
    parser = add_data_args(parser)
    if input_args is not None:
        args = parser.parse_args(input_args)
    else:
        args = parser.parse_args()
    return args

class Trainer:
    def __init__(self, args):
        self.args = args
    def loader(self):
        return DataLoader(ds, num_workers=self.args.num_workers)

def main(args):
    DataLoader(ds, pin_memory=args.pin_mem, prefetch_factor=args.prefetch)
    Trainer(args).loader()
    mp.spawn(worker, args=(2, args))
    evaluate(args)

def worker(gpu, n, args):
    args.workers = int((args.workers + n - 1) / n)
    DataLoader(ds, num_workers=args.workers)

def evaluate(args):
    args.eval_workers = args.eval_workers * 2
    DataLoader(ds, num_workers=args.eval_workers)

if __name__ == '__main__':
    args = parse_args()
    main(args)
";
    with_module(src, |m| {
        let arg = |i: usize, p: Param| {
            m.loaders()[i]
                .argument(p)
                .map(|a| a.value.clone())
                .expect("bound")
        };
        assert_eq!(
            arg(0, Param::NumWorkers).describe(Lang::En),
            "10, the default of --num_workers (line 8)"
        );
        assert_eq!(
            arg(1, Param::PinMemory).describe(Lang::En),
            "False, argparse's default for --pin-mem (line 9)"
        );
        assert_eq!(
            arg(1, Param::PrefetchFactor).describe(Lang::En),
            "None, the default of --prefetch (line 15)"
        );
        // `n` is unknown: the reassigned value is too, never the default.
        assert_eq!(arg(2, Param::NumWorkers).value, Value::Unknown);
        assert_eq!(
            arg(3, Param::NumWorkers).describe(Lang::En),
            "4, the value of args.eval_workers (line 45)"
        );
    });
}

/// A name that first holds the parser and then the namespace, as MAE's scripts write it, and
/// `spawn(fn, (args,), nprocs)` with the arguments by position.
#[test]
fn argparse_rebound_name_and_positional_spawn() {
    let src = "\
import argparse
import torch
from torch.utils.data import DataLoader

def get_args_parser():
    parser = argparse.ArgumentParser('MAE pre-training', add_help=False)
    parser.add_argument('--num_workers', default=10, type=int)
    parser.add_argument('--pin_mem', action='store_true')
    parser.add_argument('--no_pin_mem', action='store_false', dest='pin_mem')
    parser.set_defaults(pin_mem=True)
    parser.add_argument('--persistent', action='store_true')
    parser.add_argument('--transient', action='store_false', dest='persistent', default=False)
    parser.set_defaults(persistent=True)
    return parser

def main(args):
    DataLoader(ds, num_workers=args.num_workers, pin_memory=args.pin_mem, persistent_workers=args.persistent)
    torch.multiprocessing.spawn(worker, (args,), 2)

def worker(gpu, args):
    DataLoader(ds, num_workers=args.num_workers)

class Block:
    def __init__(self):
        self.main = make_layers(main=True)

def loop(flag):
    args = get_args_parser()
    for _ in range(2):
        DataLoader(ds, num_workers=args.num_workers)
        args = args.parse_args()

if __name__ == '__main__':
    args = get_args_parser()
    args = args.parse_args()
    main(args)
";
    with_module(src, |m| {
        let certain = |i: usize, p: Param| m.loaders()[i].certain(p).map(|r| r.describe(Lang::En));
        let expected = Some("10, the default of --num_workers (line 7)".to_owned());
        assert_eq!(certain(0, Param::NumWorkers), expected);
        assert_eq!(certain(1, Param::NumWorkers), expected);
        assert_eq!(certain(2, Param::NumWorkers), None);
        assert_eq!(
            certain(0, Param::PinMemory).as_deref(),
            Some("True, the default of --pin_mem (line 10)")
        );
        // An option with a `default=` of its own added before `set_defaults`: argparse
        // gives it the set default too.
        assert_eq!(
            certain(0, Param::PersistentWorkers).as_deref(),
            Some("True, the default of --persistent (line 13)")
        );
    });
}

/// What the model cannot follow stays unknown: a parser handed to unseen code, a list parsed
/// instead of the command line, a conditional write, `setattr`, a second parser.
#[test]
fn argparse_unknowns_stay_unknown() {
    let src = "\
import argparse
import deepspeed
from torch.utils.data import DataLoader

def base():
    p = argparse.ArgumentParser()
    p.add_argument('--workers', default=4, type=int)
    return p

def opaque():
    p = argparse.ArgumentParser()
    p.add_argument('--workers', default=4, type=int)
    deepspeed.add_config_arguments(p)
    return p.parse_args()

def listed():
    return base().parse_args(['--workers', '2'])

def conditional(debug):
    args = base().parse_args()
    if debug:
        args.workers = 0
    return DataLoader(ds, num_workers=args.workers)

def configured(cfg):
    args = base().parse_args()
    for k, v in cfg.items():
        setattr(args, k, v)
    return DataLoader(ds, num_workers=args.workers)

def either(flag):
    args = base().parse_args() if flag else argparse.ArgumentParser().parse_args()
    return DataLoader(ds, num_workers=args.workers)

def later():
    args = base().parse_args()
    loader = DataLoader(ds, num_workers=args.workers)
    args.workers = 0
    return loader

DataLoader(ds, num_workers=opaque().workers)
DataLoader(ds, num_workers=listed().workers)
";
    with_module(src, |m| {
        for l in m.loaders() {
            assert_eq!(l.num_workers(), None, "{}", m.text(l.call));
        }
    });
}

/// Writes under a condition that resolves under the defaults, and writes that may or may not
/// happen but give the value it already has; each loader's comment is its expected value.
#[test]
fn argparse_writes_under_conditions() {
    let src = "\
import argparse, os
from torch.utils.data import DataLoader

pa = argparse.ArgumentParser()
pa.add_argument('--workers', default=32, type=int)
pa.add_argument('--world-size', default=-1, type=int)
pa.add_argument('--mp', action='store_true')
pb = argparse.ArgumentParser()
pb.add_argument('--workers', default=32, type=int)
pb.add_argument('--mode', default='train')
pc = argparse.ArgumentParser()
pc.add_argument('--workers', default=12, type=int)
pd = argparse.ArgumentParser()
pd.add_argument('--workers', default=12, type=int)
pe = argparse.ArgumentParser()
pe.add_argument('--workers', default=10, type=int)

def main():
    args = pa.parse_args()
    args.distributed = args.world_size > 1 or args.mp
    worker(args)

def worker(args):
    if args.distributed:
        args.workers = args.workers // 4
    DataLoader(ds, num_workers=args.workers)  # 32

def branches():
    args = pb.parse_args()
    if args.mode == 'debug':
        args.workers = 0
    elif args.mode != 'train':
        args.workers = 1
    else:
        args.workers = 6
    DataLoader(ds, num_workers=args.workers)  # 6

def either_way():
    args = pc.parse_args()
    if 'SLURM_CPUS' in os.environ:
        args.workers = 12
    for key, value in cfg.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    vars(args).update(lr=0.1)
    DataLoader(ds, num_workers=args.workers)  # 12

def negated_guard():
    args = pe.parse_args()
    for key in vars(saved):
        if not (key in vars(args)):
            setattr(args, key, getattr(saved, key))
    DataLoader(ds, num_workers=args.workers)  # 10

def differs():
    args = pd.parse_args()
    if 'SLURM_CPUS' in os.environ:
        args.workers = 3
    DataLoader(ds, num_workers=args.workers)  # unknown
";
    with_module(src, |m| {
        let workers: Vec<Option<i64>> = m.loaders().iter().map(|l| l.num_workers()).collect();
        assert_eq!(workers, [Some(32), Some(6), Some(12), Some(10), None]);
    });
}

/// A copy of the namespace (`copy.deepcopy(args)`) starts with its values; a write through
/// the copy is not taken as a write before a read of the original, nor the other way round.
#[test]
fn argparse_namespace_copies() {
    let src = "\
import argparse, copy
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument('--workers', default=10, type=int)

def main():
    args = parser.parse_args()
    small = copy.deepcopy(args)
    small.workers = 2
    DataLoader(ds, num_workers=small.workers)  # 2
    DataLoader(ds, num_workers=args.workers)  # unknown: 10, not 2
";
    with_module(src, |m| {
        let workers: Vec<Option<i64>> = m.loaders().iter().map(|l| l.num_workers()).collect();
        assert_eq!(workers, [Some(2), None]);
    });
}

/// An options class that builds `self.parser` and returns its parsed command line from a
/// method, called on a new instance or on a name bound to one.
#[test]
fn argparse_options_class() {
    let src = "\
import argparse
from torch.utils.data import DataLoader

class Options:
    def __init__(self):
        self.parser = argparse.ArgumentParser()
        self.parser.add_argument('--num_workers', type=int, default=12)

    def parse(self):
        self.options = self.parser.parse_args()
        return self.options

    def name(self):
        return 'options'

opts = Options().parse()
DataLoader(ds, num_workers=opts.num_workers)  # 12
made = Options()
DataLoader(ds, num_workers=made.parse().num_workers)  # unknown: read off a call
named = made.name()
DataLoader(ds, num_workers=named.num_workers)  # unknown: no namespace
";
    with_module(src, |m| {
        let workers: Vec<Option<i64>> = m.loaders().iter().map(|l| l.num_workers()).collect();
        assert_eq!(workers, [Some(12), None, None]);
    });
}

/// `set_defaults(**d)` with a dict the file spells out, caps with `min`, and writes after
/// the read: they cannot reach it in code that parses its own namespace, but may in a
/// function handed one (an earlier call's write).
#[test]
fn argparse_set_defaults_and_later_writes() {
    let src = "\
import argparse
from torch.utils.data import DataLoader

d = {'workers': 16}
parser = argparse.ArgumentParser()
parser.add_argument('--workers', type=int)
parser.set_defaults(**d)

def main():
    args = parser.parse_args()
    DataLoader(ds, num_workers=args.workers)  # 16
    args.workers = min(args.workers, 4)
    DataLoader(ds, num_workers=args.workers)  # 4
    args.workers = 0
    for _ in range(2):
        DataLoader(ds, num_workers=args.workers)  # unknown: the loop's next turn
        args.workers = 1

q = argparse.ArgumentParser()
q.add_argument('--workers', type=int, default=2)

def other():
    opts = q.parse_args()
    worker(opts)
    worker(opts)

def worker(opts):
    DataLoader(ds, num_workers=opts.workers)  # unknown: the second call sees 3
    opts.workers = 3
";
    with_module(src, |m| {
        let workers: Vec<Option<i64>> = m.loaders().iter().map(|l| l.num_workers()).collect();
        assert_eq!(workers, [Some(16), Some(4), None, None]);
    });
}

/// A namespace returned as the first item of a tuple; the options a library filler adds
/// (`deepspeed.add_config_arguments`) are known to exist but not their defaults.
#[test]
fn argparse_tuple_returns_and_library_fillers() {
    let src = "\
import argparse
import deepspeed
from torch.utils.data import DataLoader

def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--workers', type=int, default=6)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args(), None

def main():
    args, extra = get_args()
    DataLoader(ds, num_workers=args.workers)  # 6
    DataLoader(ds, num_workers=args.deepspeed_mpi)  # unknown: the library's default
    none, nothing = get_args()
    DataLoader(ds, num_workers=nothing.workers)  # unknown: the second item
";
    with_module(src, |m| {
        let workers: Vec<Option<i64>> = m.loaders().iter().map(|l| l.num_workers()).collect();
        assert_eq!(workers, [Some(6), None, None]);
    });
}

#[test]
fn conditions_evaluate_where_their_operands_are_known() {
    let src = "\
a = 3
b = None
c = a > 1 and b is None
d = not (a == 3)
e = b or 'x'
f = 0 < a <= 2
g = a != 'three'
h = b is not None or unknown_name
";
    with_module(src, |m| {
        let value = |name: &str| {
            let at = m.source.find(&format!("{name} = ")).expect(name) + name.len() + 3;
            let node = m
                .tree
                .root_node()
                .descendant_for_byte_range(at, at)
                .expect("node");
            let mut expr = node;
            while let Some(parent) = expr.parent() {
                if parent.kind() == "assignment" {
                    break;
                }
                expr = parent;
            }
            m.value_of(expr).value
        };
        assert_eq!(value("c"), Value::Bool(true));
        assert_eq!(value("d"), Value::Bool(false));
        assert_eq!(value("e"), Value::Str("x".into()));
        assert_eq!(value("f"), Value::Bool(false));
        assert_eq!(value("g"), Value::Bool(true));
        assert_eq!(value("h"), Value::Unknown);
    });
}

#[test]
fn dataset_class_is_found() {
    let src = "\
import torchvision
from torch.utils.data import DataLoader, Dataset
class MyData(Dataset):
    def __getitem__(self, i):
        return i
class Trainer:
    def __init__(self):
        self.ds = MyData()
    def loader(self):
        return DataLoader(self.ds)
ds = MyData()
DataLoader(ds)
DataLoader(torchvision.datasets.MNIST('.'))
";
    with_module(src, |m| {
        let class_of = |i: usize| m.loaders()[i].dataset.as_ref().map(|d| d.class.clone());
        assert_eq!(class_of(0), Some(DatasetClass::Local(0)));
        assert_eq!(class_of(1), Some(DatasetClass::Local(0)));
        assert_eq!(
            class_of(2),
            Some(DatasetClass::Imported("torchvision.datasets.MNIST".into()))
        );
        assert_eq!(
            m.class_bases(0),
            vec![Some("torch.utils.data.Dataset".to_owned())]
        );
        assert!(m.method(0, "__getitem__").is_some());
    });
}

#[test]
fn main_guard_and_statements() {
    let src = "\
from torch.utils.data import DataLoader
def main():
    DataLoader(ds)
if __name__ == '__main__':
    DataLoader(ds)
else:
    DataLoader(ds)
";
    with_module(src, |m| {
        let guarded: Vec<bool> = m
            .loaders()
            .iter()
            .map(|l| m.is_under_main_guard(l.call))
            .collect();
        assert_eq!(guarded, vec![false, true, false]);
        assert_eq!(m.loaders()[0].function, Some(0));
        assert_eq!(
            m.statement_of(m.loaders()[1].call).kind(),
            "expression_statement"
        );
    });
}

#[test]
fn deep_nesting_and_garbage_do_not_crash() {
    let deep = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
    with_module(&deep, |m| assert!(m.loaders().is_empty()));
    with_module("def f(:\n  DataLoader(ds, num_workers=\n", |_| {});
    let big: String = (0..10_000)
        .map(|i| format!("x{i} = DataLoader(ds, num_workers={i})\n"))
        .collect();
    let src = format!("from torch.utils.data import DataLoader\n{big}");
    with_module(&src, |m| assert_eq!(m.loaders().len(), 10_000));
}

#[test]
fn not_none_and_conditions() {
    let src = "\
from torch.utils.data import DataLoader, DistributedSampler
s = DistributedSampler(ds)
maybe = DistributedSampler(ds) if dist else None
def collate(b):
    return b
if flag:
    extra = 1
DataLoader(ds, sampler=s, collate_fn=collate, worker_init_fn=lambda i: None)
DataLoader(ds, sampler=maybe, collate_fn=None)
";
    with_module(src, |m| {
        let not_none = |i: usize, p: Param| {
            m.is_not_none(m.loaders()[i].argument(p).expect("bound").value_node)
        };
        assert!(not_none(0, Param::Sampler));
        assert!(not_none(0, Param::CollateFn));
        assert!(not_none(0, Param::WorkerInitFn));
        assert!(!not_none(1, Param::Sampler));
        assert!(!not_none(1, Param::CollateFn));
        let extra = m
            .bindings()
            .iter()
            .find(|b| b.name == "extra")
            .expect("extra is bound");
        assert!(m.is_conditional_relative_to(extra.node, m.loaders()[0].call));
        let s = m.bindings().iter().find(|b| b.name == "s").expect("s");
        assert!(!m.is_conditional_relative_to(s.node, m.loaders()[0].call));
    });
}

#[test]
fn context_values_and_globals() {
    let src = "\
import multiprocessing as mp
import torch.multiprocessing as tmp
from torch.utils.data import DataLoader
WORKERS = 2
def setup():
    global WORKERS
    WORKERS = 4
DataLoader(ds, num_workers=WORKERS, multiprocessing_context=mp.get_context('spawn'))
DataLoader(ds, multiprocessing_context=tmp.get_context())
";
    with_module(src, |m| {
        let l = &m.loaders()[0];
        assert_eq!(l.num_workers(), None, "reassigned through `global`");
        assert_eq!(
            l.certain(Param::MultiprocessingContext).map(|r| r.value),
            Some(Value::Context {
                method: Some("spawn".into())
            })
        );
        assert_eq!(
            m.loaders()[1]
                .certain(Param::MultiprocessingContext)
                .map(|r| r.value),
            Some(Value::Context { method: None })
        );
    });
}

#[test]
fn argparse_namespace_passed_to_functions() {
    let src = "\
import argparse
import torch
import torch.multiprocessing as mp
parser = argparse.ArgumentParser()
parser.add_argument('-j', '--workers', default=4, type=int)
def main():
    args = parser.parse_args()
    if args.multiprocessing_distributed:
        mp.spawn(main_worker, nprocs=2, args=(2, args))
    else:
        main_worker(0, 2, args)
def main_worker(gpu, ngpus_per_node, args):
    torch.utils.data.DataLoader(ds, num_workers=args.workers)
def other(args):
    torch.utils.data.DataLoader(ds, num_workers=args.workers)
other(make_args())
def unused(args):
    torch.utils.data.DataLoader(ds, num_workers=args.workers)
";
    with_module(src, |m| {
        let nw = |i: usize| {
            m.loaders()[i]
                .argument(Param::NumWorkers)
                .map(|a| a.value.clone())
        };
        assert_eq!(
            nw(0).map(|r| r.describe(Lang::En)).as_deref(),
            Some("4, the default of --workers (line 5)")
        );
        assert_eq!(nw(1).map(|r| r.value), Some(Value::Unknown));
        assert_eq!(nw(2).map(|r| r.value), Some(Value::Unknown));
    });
}

#[test]
fn scopes_are_found_for_every_call() {
    let src = "\
import torch
def outer(x=lambda: torch.cuda.init()):
    def inner():
        return [torch.cuda.init() for _ in range(2)]
    class K:
        y = torch.cuda.init()
        def m(self):
            return torch.cuda.init()
    return inner
@decorate(torch.cuda.init())
def after():
    torch.cuda.init()
";
    with_module(src, |m| {
        for call in m.calls() {
            assert_eq!(m.scope_at(call.node), call.scope, "{}", m.text(call.node));
        }
    });
}

/// Reading a few children by index gives what the cursor gives, on every node of the corpus.
#[test]
fn named_children_by_index_agree_with_the_cursor() {
    for tree in crate::python::kinds::corpus_trees() {
        let mut walker_cursor = tree.walk();
        crate::python::kinds::for_each_node(&tree, |node| {
            let mut cursor = node.walk();
            let expected: Vec<Node> = node.named_children(&mut cursor).collect();
            let mut got = Vec::new();
            for_each_named_child(&mut walker_cursor, node, |child| got.push(child));
            assert_eq!(got, expected, "{}", node.kind());
        });
    }
}

/// The walk's shortcuts skip only what would be visited for nothing: in an attribute without
/// a syntax error, the bare name (and comments); in a string without `{`, everything.
#[test]
fn walk_shortcuts_skip_nothing_recorded() {
    for tree in crate::python::kinds::corpus_trees() {
        crate::python::kinds::for_each_node(&tree, |node| {
            if node.has_error() {
                return;
            }
            match kind(node) {
                Kind::Attribute => {
                    let object = node.child_by_field_id(FIELDS.object);
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        let bare_name =
                            kind(child) == Kind::Identifier && child.named_child_count() == 0;
                        assert!(Some(child) == object || bare_name || kind(child) == Kind::Comment);
                    }
                }
                Kind::String if !node.to_sexp().contains("interpolation") => {
                    let mut inner = node.walk();
                    let mut stack = vec![node];
                    while let Some(n) = stack.pop() {
                        assert!(n == node || kind(n) == Kind::Other, "{}", n.kind());
                        stack.extend(n.children(&mut inner));
                    }
                }
                _ => {}
            }
        });
    }
}

/// `references` finds the identifiers a walk of every node finds, and only those: not the
/// spelling inside longer names, strings or comments, with attributes, keywords, non-ASCII
/// names and syntax errors around.
#[test]
fn references_agree_with_a_walk_of_every_node() {
    let src = "import argparse as parse_args\n\
               def parse_args(argv=None):\n    \
                   p = argparse.ArgumentParser()  # parse_args here\n    \
                   return p.parse_args(argv)\n\
               args = parse_args()\n\
               é_parse_args = 'parse_args'\n\
               parse_args_x = parse_args(parse_args=1)\n\
               def broken(:\n    parse_args(\n";
    let tree = crate::python::parse(src, None).expect("tree");
    for name in [
        "parse_args",
        "argparse",
        "p",
        "é_parse_args",
        "args",
        "x",
        "zzz",
    ] {
        let mut expected = Vec::new();
        crate::python::kinds::for_each_node(&tree, |node| {
            if node.kind() == "identifier" && &src[node.byte_range()] == name {
                expected.push(node);
            }
        });
        assert!(
            !expected.is_empty() || ["x", "zzz"].contains(&name),
            "{name}"
        );
        with_module(src, |m| {
            let got = m.references(name);
            let ranges =
                |nodes: &[Node]| -> Vec<_> { nodes.iter().map(|n| n.byte_range()).collect() };
            assert_eq!(ranges(&got), ranges(&expected), "{name}");
        });
    }
}

/// A call quoted in a message is one line; a long one keeps its callee only.
#[test]
fn quoted_calls_are_squeezed_and_long_ones_elided() {
    use crate::python::argparse::squeezed;
    assert_eq!(
        squeezed("make_loader(ds,\n    num_workers=args.workers)"),
        "make_loader(ds, num_workers=args.workers)"
    );
    let long = format!("init_data(data=dataset_type, {})", "x=1, ".repeat(30));
    assert_eq!(squeezed(&long), "init_data(...)");
}

/// A binding in a block that ends in `return` or `raise` never reaches a use after that block;
/// one in a `try:` body may reach its handlers.
#[test]
fn bindings_of_branches_that_leave_the_function() {
    let src = "\
def f(flag):
    if flag:
        s = A()
        return s
    else:
        s = None
    try:
        t = B()
        return t
    except ValueError:
        use(s, t)
";
    with_module(src, |m| {
        let binding = |name: &str, nth: usize| {
            m.bindings()
                .iter()
                .filter(|b| b.name == name && b.kind == BindingKind::Assign)
                .nth(nth)
                .unwrap_or_else(|| panic!("no binding {nth} of {name}"))
                .node
        };
        let call = m
            .calls()
            .iter()
            .find(|c| m.text(c.callee) == "use")
            .expect("use()")
            .node;
        assert!(exits_before(binding("s", 0), call));
        assert!(!exits_before(binding("s", 1), call));
        assert!(!exits_before(binding("t", 0), call));
        // The return of the branch itself is the use's block: no exit before it.
        let returned = m
            .calls()
            .iter()
            .find(|c| m.text(c.callee) == "A")
            .expect("A()")
            .node;
        assert!(!exits_before(binding("s", 0), returned));
    });
}
