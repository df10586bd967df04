//! DL201 `num-workers-exceeds-cpus`.

use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::lang::Lang;
use crate::python::edit;
use crate::python::loaders::{Param, Passing};
use crate::python::paths;
use crate::python::values::Value;
use crate::rules::resources::{assumed, assumed_zh, atom_text, imports, never_iterated};
use crate::rules::{Checker, Code, FixAvailability, Rule};

pub const RULE: Rule = Rule {
    code: Code::DL201,
    name: "num-workers-exceeds-cpus",
    severity: Severity::Warning,
    default_enabled: true,
    fix: FixAvailability::Sometimes,
    summary: "num_workers is larger than this machine's usable CPUs",
    docs: DOCS,
    kb: &["pytorch/worker-count-exceeds-suggested"],
};

const DOCS: &str = r#"## What it does
Checks for a `num_workers` larger than the CPUs this machine lets the process use (its
affinity mask, capped by a cgroup CPU quota), or larger than the configured `max-workers`.
The value may be written in the call, bound once to a name, or be the `default=` of an
argparse option (also through a parser built in a helper such as `get_args_parser()` or
`parse_args(input_args=None)` or `get_args(description="...")` called without arguments,
options added by helpers of other modules chained as
`parser = add_dataset_args(parser)`, a namespace returned first in a pair by another module,
`args, unparsed = config.get_args()`, the entries of every section of a YAML file copied into
the parsed namespace, `for k, v in config[key].items(): setattr(args, k, v)`, or of its
top-level mapping, `for k, v in config.items(): setattr(args, k, v)`, `vars(args).update(config)`
(a key the code also assigns stays unknown), defaults a YAML
file sets through
`parser.set_defaults(**yaml.load(f))`, the file `--config` names (also `--config` of another
parser of the file, timm's `config_parser`, with no file by default under `if
args_config.config:` skipping the call) or, when it is missing or named
only on the command line, the values every YAML file of the project that fits the parser
agrees on, or a dict of defaults it sets through `parser.set_defaults(**defaults)` (also one
rebound from a parameter's name, `tmp = defaults; defaults = {...}`, an `update(tmp)` under a
condition false by default not counting), and a namespace passed on as `main(args)`, copied
for attribute access (`EasyDict(vars(args))`, `edict(opt.__dict__)`,
`SimpleNamespace(**vars(args))`; an item write or `update(...)` of the copy leaves its keys
unknown), its own dict read by key in the file that takes it (`cfg = vars(args)`,
`cfg["num_workers"]`; an item write there or in a helper it is handed to, of this module or
another, leaves the key unknown), kept as
`self.args` (also by a base class of another module, `super().__init__(args)`, and by a class
other modules construct through a dict of classes, `trainer_mapping[args.kind](args)`), or handed to
a loader factory of another module, or to a method of another module's class called on an
instance built there, `q = Query2box(...); q.test_step(q, data, args)`, or through the class
for a static method: the message names the call it came through), or what
the callers of a factory pass, in its file or another module (`make_loader(ds,
num_workers=16)`, a mapping of a YAML config unpacked, `make_dataloaders(**conf["training"])`;
a call counts only where it reaches this factory, also through a package that re-exports it,
not one of the same name in another module, nor one that leaves out a required argument and
so raises `TypeError`), also under `num_workers` into the `**kwargs` it hands to DataLoader
(also through a dict the caller writes and unpacks, `make_loader(ds, **kwargs)`), the default of a dataclass config's field
(`cfg = TrainConfig()`, also parsed by `HfArgumentParser` or `tyro.cli`; a field of one
`HfArgumentParser` parses, `--num_workers`, takes the other count every command of the
project's shell scripts and READMEs that runs the file passes, when they all agree, as does
the `TrainingArguments` a transformers `Trainer` (or a project subclass of it that keeps its
`get_train_dataloader`) is given, `Trainer(args=training_args).train()` after `python run.py
--dataloader_num_workers 32`; a `NamedTuple` without `__new__`,
or a pydantic `BaseModel` without validators; built with the command line's values,
`TrainerConfig(workers=args.workers)`, and handed to a class of another module that keeps it,
`Trainer(train_cfg)`, unless the file changes the field after construction), of a
`@click.option`, or the
value in the YAML file Hydra composes by default (`@hydra.main(config_path=...,
config_name=...)`, also named from the file's own path, `config_name=Path(__file__).stem`,
and handed to a helper of another module, `setup_data(cfg)`, unless the entry point's file
writes the key or rebinds the config in a branch that runs under the defaults;
a mapping of it may be unpacked, `DataLoader(ds, **cfg.dataloader)`, also merged in a dict
literal, `**{**cfg.dataloader, 'batch_size': 1}`), `OmegaConf.load("x.yaml")`, PyYAML's `yaml.safe_load(f)` (or `json.load(f)`, or of the
file's text, `yaml.load(f.read(), Loader=...)` after `f = open(path)`) of a file opened
from a literal path, an option's default or the script's own path (`os.path.splitext(
os.path.abspath(__file__))[0] + ".yaml"`), `with open(args.config) as f:`, one laid over
another with `config.update(user_config)` (an update from anything else leaves the mapping
unknown), read as `config["num_workers"]` or `config.get("num_workers", 8)` (the default when
the file has no such key and the script does not write it), also loaded by a helper of the project that opens the path it is given
(`config = get_config(args.config)`, in this module or another, the document returned bare or
wrapped for attribute access, `EasyDict(cfg)`, `munchify(cfg)`, `OmegaConf.create(cfg)`,
`SimpleNamespace(**cfg)`, or copied key by key by a function of the project,
`create_edict(cfg)`, `dict2namespace(cfg)`; a
key the helper writes stays unknown), also turned into
options and back by asteroid's `prepare_parser_from_dict` and `parse_args_as_dict`), or a yacs config's default (`_C.TRAIN.workers = 16`) or the value a YAML file merged into it sets
(`cfg.merge_from_file(args.cfg)` with the option's default path, also in an `update_config(cfg,
args)` of another module that only merges what it is given; with a file named only on
the command line, the value every YAML file of the project that fits the config gives or
keeps, when they all agree), an EasyDict config filled the same way (`__C = edict()`,
`__C.TRAIN.WORKERS = 16`, with an `update_config(args.cfg)` of its module read like
`merge_from_file`, and an `update_config(cfg, args)` that copies every option of the namespace
into it, `for k, v in vars(args).items(): cfg[k] = v`, giving the option's default), or the class attribute of a
plain config class's instance (`class Config: num_thread = 30`, `cfg = Config()` at module
level, or `args = Args()` inside the function that reads it), or of a class without bases read
through `self` (`class Trainer: num_workers = 12` and `num_workers=self.num_workers`) when the
file assigns no attribute of that name, the module-level instance
also imported by other modules when no file of the project that imports it assigns the key,
and a subclass of such a class of this module or another, `class CloudConfig(Config):
input_threads = 10`, the nearest class's value winning; a method that sets attributes by
computed name, `setattr(self, name, value)` in a `load(path)` or `setattr(cfg, k, v)` on the
module-level instance in an `update(path)`, leaves every value unknown where a call of it, in
any module of the project, may run: `if args.cfg: cfg.update(args.cfg)` with `--cfg`
defaulting to `''` does not), or a Python dict config's value (a dict literal, `dict(k=v)`,
`SimpleNamespace(k=v)`, `argparse.Namespace(k=v)` or a wrapper giving attribute access,
`EasyDict({...})`, nested as deep as it goes, read key by key or unpacked, `DataLoader(ds,
**cfgs.dataset_cfgs["dataloader_train"])` after `import cfgs.cfgs_LF_1 as cfgs`, unless a
file writes the key, changes the dict by a method or hands it to a call); a config handed to
a class of another file (`NuWave(hparams)`) is what that class keeps, also as `self.hparams`
after `self.save_hyperparameters(hparams)`, and one handed to another method of such a class
(`solver = Solver(); solver.run(cfg)`) is what those calls pass when the class's own file
never names the method; the message says which. A
config value that is an interpolation (`${...}`) or `???` stays unknown, as does a yacs value
that a merge the analysis cannot read may change (`cfg.merge_from_list(args.opts)` with
options given by default, a config file chosen only on the command line whose shipped
candidates disagree or inherit others with `_BASE_`), and `dldoctor
loaders` says why. A config file a run must name (`--cfg` with `required=True` or a default
of `None`) that every command of the project's shell scripts and READMEs names alike
(`python tools/train.py --cfg experiments/res50.yaml`) is the one merged; one opened and read
with PyYAML (`with open(args.cfg) as f: config = yaml.load(f)`) may be named differently by
different commands, and gives what every file they name gives (a file the project does not
have, `--cfg /path/to/config.yaml`, is the user's own and passed over), also through a
function of the file that returns the config it is given, `config = update(config, args)`. A
Hydra entry point whose primary config the project does not ship (`config_name="train"`
without `train.yaml`) runs the configs those commands name with `--config-name`, and one whose
`defaults:` leave a group to the command line (`- model: ???`) runs it with the options they
choose (`model=vq_gan_3d`); each is composed as its command makes it, with the keys it sets
(`model.num_workers=32`), and a value every command gives holds. A config named only on the command line and copied into the namespace key
by key (`for k, v in cfg.items(): setattr(args, k, v)` after `cfg =
mmcv.Config.fromfile(args.config)` or `yaml.safe_load(open(args.config))`, in the script or a
helper of another file) writes only the keys the config files the project ships beside it
hold (its YAML files, and the Python files of its `configs/` folders for mmcv's and mmengine's
configs): an option none of them names keeps its default. An attribute the code assigns on
an object of its own before reading it (`config = Config(); config.load(log);
config.input_threads = 10`) holds the last such assignment, when that runs whenever the read
does and nothing between may assign it again (a method of the object, `setattr`, a function or
class of the project handed the object that assigns the attribute). A count bounded by the CPU count
(`min(args.workers, os.cpu_count())`) is not compared with the CPUs, and a value the script
rewrites in a way the analysis cannot follow (`args.workers = args.workers // args.accum`
under a condition) is left alone; a rewrite, a rebinding (`if args.resume: args = checkpoint["opt"]`)
or a call in a branch whose condition is false under the defaults does not count (a plain
run sets no environment variable of its own: `os.environ.get("SMOKE_TEST", 0)` gives its
default, unless a launcher, a scheduler or the system sets the variable, `LOCAL_RANK`,
`SLURM_*`), nor does
a rewrite in a function called only from such branches (`mp.spawn(main_worker, ...)` under
`if args.multi_gpu:` with `--multi_gpu` off).
A worker count shared among the processes by a helper that answers 1 without
`torch.distributed` initialised (`args.workers = int((args.workers + utils.get_world_size() -
1) / utils.get_world_size())` with DETR's or MAE's `get_world_size()`) keeps its whole value: a
plain run has one process, and on one node the processes together run about as many. So does
a count shared by the node's GPUs or the launcher's processes (`int(args.num_workers /
args.world_size)` with an option a distributed setup sets from `WORLD_SIZE`, `int((args.workers +
ngpus_per_node - 1) / ngpus_per_node)` with `ngpus_per_node = torch.cuda.device_count()`, also
handed to `mp.spawn(main_worker, args=(ngpus_per_node, args))`; `cfg.num_workers //=
world_size` with `world_size = int(os.environ["WORLD_SIZE"])`): each of N processes starts a
share, and together they start the whole count on the node's CPUs.
A function's parameter is what its callers pass, also through decorators that call it with
those arguments (`@beartype`, `@typeguard.typechecked`, `@torch.no_grad()`,
`@functools.lru_cache`); behind any other decorator it stays unknown. A function the project
never calls (`def imagenet_loaders(root, workers=10)` in a module of helpers) is called by
code outside it: a call that leaves the parameter out gets its default, which is checked. A
parameter defaulted to `None` and set when it is (`if num_workers is None: num_workers = 12`)
is that value when the callers leave it out, as the rebinding then runs whenever the loader is
built.
When the callers of a function disagree on a parameter (one leaves its default of 16, another
passes a config's value that is not known), the largest whole number a caller outside the
tests gives is checked, as that caller's path runs with it, and the message says so; a test's
value (`tests/`, `test_*.py`, a `test_...` function) counts for nothing. A method's parameter
is read from its calls on instances of its class built in the file (`Trainer(model).train(ds)`,
`trainer.train(ds)` after `trainer = Trainer(model)`) or, the class imported, in the project's
other modules; an instance handed around may be called with anything, so such a value is
always one caller's, except for a private method (`self._setup_loaders()`), which by
convention only its class calls. In the same way, a conditional expression whose condition is not known
before the run (`num_workers=0 if len(shards) > 10 else 16`) is checked with its larger side,
what a run taking that side gets, and the message names the condition; its fix caps the
count rather than setting one in place of both sides. A count that stays unknown because it
depends on which caller runs the function building the loader (`if split == "train":
num_workers = 4 else: num_workers = 16`, called with `"train"` and `"test"`) is read again
with each caller's value of each parameter (up to four values of up to six parameters), and
the largest one a path that builds the loader gives is checked; the message names the
parameter and the call.
What an instance keeps from its constructor (`self.workers = workers` in `__init__`, or
`self.hparams.workers` after Lightning's `self.save_hyperparameters()`, also with `logger=` or
`ignore=` naming other arguments, or kept by a base class's constructor from what
`super().__init__(batch_size, num_workers)` hands it; a namespace kept as `self.args`
whose other attributes that constructor writes, `self.args.device = ...`, keeps the rest) is
what the constructions of the class
pass, also those of its subclasses in this file or another (one without a constructor of its
own or handing on `*args, **kwargs` passes what it is given; one with parameters of its own
that hands the rest on, `def __init__(self, root, *args, **kwargs): super().__init__(*args,
**kwargs)`, what it is given beyond them; another through its
`super().__init__(...)` call), or the parameter's default when the project constructs it
nowhere (a config or a command-line tool builds it; Python Fire, `Fire(train)` or
`Fire({"train": train})`, or `tyro.cli(train)`, runs a function with its defaults), or an
absl flag's default (`flags.DEFINE_integer("num_workers", 16, ...)` read as
`FLAGS.num_workers` in the same module, unless the file assigns it or sets another default). Hydra's `instantiate` also
builds a class from the project's configs that name it (`_target_: pkg.data.TextMelDataModule`,
each composed with its own `defaults:`) with their values, one run's among those of the
constructions in the code, even one passing a config it composed itself (`Module(**cfg)`).
The value stays unknown when another file of the project that names the class may set the attribute on
an instance (a subclass copying a YAML file into `self.__dict__`, `dm.num_workers = 4`);
`dldoctor loaders` says which write or construction left it unknown.
A rewrite in the function that builds the loader (`if args.batch_size == -1: args.batch_size =
36`, then `num_workers=min(32, args.batch_size)`) counts when the function runs once (one call,
no loop around it) and its condition is decided under the defaults. A key written into a
dict just before it is handed on (`config["workers"] = 32`, then `train(config)`) is what
the callee reads, wherever the dict came from, when the write runs whenever the call does and
no other code of the file writes that key.

The project's shell scripts and READMEs count too: when every command of its `*.sh` files
and of the shell code blocks of its `README*.md` files that runs the script (`python
train.py --workers 20`, also through `torchrun`, `deepspeed`, `accelerate launch` or `python
-m`, found from the script's folder or one above it, or for a README from a folder its blocks
`cd` into; `$NAME` read from the file's own `NAME=value` lines) passes the option the same
count, larger than its default, that count is checked too: a README's `bash
scripts/train.sh` runs it, and users copy a README's commands. A command that leaves the
option out counts for the default; commands that disagree, or pass what cannot be read
(`--workers $1`), add nothing.

## Why is this bad?
Each worker is a process that decodes and augments samples. More workers than CPUs do not
load faster: they compete for the same cores with the training process, each holds a copy of
the dataset object and its prefetched batches, and the machine can slow down or freeze.
PyTorch itself warns at run time:

```text
UserWarning: This DataLoader will create 64 worker processes in total. Our suggested max number of worker in current system is 8, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
```

A default written on a workstation with 64 cores is the usual cause when the same script runs
in a container or a Slurm job with 8.

## Example
```python
parser.add_argument("--num_workers", type=int, default=64)
...
loader = DataLoader(dataset, num_workers=args.num_workers)
```

## Use instead
```python
loader = DataLoader(dataset, num_workers=min(args.num_workers, len(os.sched_getaffinity(0))))
```

`os.sched_getaffinity` exists on Linux only; elsewhere use `os.cpu_count()`.

## Fix safety
Both fixes change the number of worker processes and are unsafe: setting the count of this
machine, or capping the value with `min(..., len(os.sched_getaffinity(0)))` (which adds
`import os` if needed).
"#;

pub fn check(checker: &mut Checker) {
    let m = checker.model;
    let ctx = checker.ctx;
    let (limit, limit_text, limit_text_zh, from_cpus) =
        match (ctx.settings.max_workers, ctx.host.usable_cpus) {
            (Some(max), _) => (
                max,
                format!("the configured max-workers of {max}"),
                format!("配置的 max-workers 上限 {max}"),
                false,
            ),
            (None, Some(cpus)) => (
                cpus,
                format!(
                    "the {cpus} usable CPUs of this machine{}",
                    assumed(&ctx.host.cpus_source)
                ),
                format!(
                    "本机可用的 {cpus} 个 CPU{}",
                    assumed_zh(&ctx.host.cpus_source)
                ),
                true,
            ),
            (None, None) => return,
        };
    for loader in m.loaders() {
        // Passed (even under a condition: the message says so), else the loader's default.
        let value = match loader.argument(Param::NumWorkers) {
            Some(arg) => Some(arg.value.value.clone()),
            None => loader.certain(Param::NumWorkers).map(|c| c.value),
        };
        // One caller's value (`Value::OneCaller`) is what runs on that caller's path; a
        // count that depends on which caller runs the function is checked caller by caller.
        let (n, path) = match value {
            Some(Value::Int(n) | Value::OneCaller(n)) => (n, None),
            _ => match loader
                .argument(Param::NumWorkers)
                .and_then(|arg| largest_on_a_path(m, loader, arg))
            {
                Some((n, path)) => (n, Some(path)),
                None => continue,
            },
        };
        // The project's shell scripts may all pass a larger count than the default a run
        // without them gets (`--workers 20` in `scripts/train.sh`).
        let scripts = loader.argument(Param::NumWorkers).and_then(|arg| {
            arg.value
                .script_pass()
                .filter(|p| p.value > n)
                .map(|p| (arg, p))
        });
        let (n, path) = match scripts {
            Some((arg, pass)) => {
                let note = |lang| pass.note(lang, Some(&arg.value.describe(lang)));
                (pass.value, Some([note(Lang::En), note(Lang::Zh)]))
            }
            None => (n, path),
        };
        if n <= i64::from(limit) || never_iterated(checker, loader) {
            continue;
        }
        let fallback = || format!("num_workers={n}");
        let (described, described_zh) = match &path {
            Some([en, zh]) => (
                format!("num_workers={n} ({en})"),
                format!("num_workers={n}（{zh}）"),
            ),
            None => (
                loader
                    .describe(Param::NumWorkers, Lang::En)
                    .unwrap_or_else(fallback),
                loader
                    .describe(Param::NumWorkers, Lang::Zh)
                    .unwrap_or_else(fallback),
            ),
        };
        let mut message = format!("{described} exceeds {limit_text}");
        let mut message_zh = format!("{described_zh} 超过了{limit_text_zh}");
        if from_cpus {
            let warning = format!(
                "\"This DataLoader will create {n} worker processes in total. Our suggested max \
                 number of worker in current system is {limit}, which is smaller than what this \
                 DataLoader is going to create.\""
            );
            message.push_str(&format!(
                "; PyTorch warns {warning} and loading may slow down or freeze"
            ));
            message_zh.push_str(&format!(
                "；PyTorch 会警告 {warning}，数据加载可能变慢甚至卡住"
            ));
        }
        // Not passed: the loader's own default (a subclass's or a factory's) is too many; the
        // finding sits on the call and has no edit to offer.
        let Some(arg) = loader.argument(Param::NumWorkers) else {
            checker.report(RULE.diagnostic(loader.callee, message).zh(message_zh));
            continue;
        };
        let mut d = RULE.diagnostic(arg.anchor, message).zh(message_zh);
        if let Some(at) = arg.value.defined_at().filter(|_| scripts.is_none()) {
            d = d.with_related_in(
                arg.value.defined_in(),
                at,
                format!("num_workers={n} comes from here"),
                format!("num_workers={n} 来自此处"),
            );
        }
        if matches!(arg.passing, Passing::Keyword | Passing::Positional(_)) {
            let literal = arg.value_node.kind() == "integer";
            let set = Fix::unsafe_(
                format!("Set `num_workers={limit}`"),
                vec![edit::replace(arg.value_node, limit.to_string())],
            )
            .zh(format!("改为 `num_workers={limit}`"));
            let cap = if from_cpus {
                imports(m, &["os"]).map(|mut edits| {
                    edits.push(edit::replace(
                        arg.value_node,
                        format!(
                            "min({}, len(os.sched_getaffinity(0)))",
                            atom_text(m, arg.value_node)
                        ),
                    ));
                    Fix::unsafe_("Cap with `min(..., len(os.sched_getaffinity(0)))`", edits)
                        .zh("用 `min(..., len(os.sched_getaffinity(0)))` 设上限")
                })
            } else {
                Some(
                    Fix::unsafe_(
                        format!("Cap with `min(..., {limit})`"),
                        vec![edit::replace(
                            arg.value_node,
                            format!("min({}, {limit})", atom_text(m, arg.value_node)),
                        )],
                    )
                    .zh(format!("用 `min(..., {limit})` 设上限")),
                )
            };
            // `0 if len(shards) > 10 else 16`, or a count that is one caller's: a count set
            // in its place would change the other side, or the other callers', too; only
            // capping keeps them.
            let one_side = arg.value_node.kind() == "conditional_expression" || path.is_some();
            match (literal, cap) {
                (false, Some(cap)) if one_side => d = d.with_fix(cap.preferred()),
                (false, None) if one_side => {}
                (true, cap) => {
                    d = d.with_fix(set.preferred());
                    if let Some(cap) = cap {
                        d = d.with_fix(cap);
                    }
                }
                (false, Some(cap)) => d = d.with_fix(cap.preferred()).with_fix(set),
                (false, None) => d = d.with_fix(set),
            }
        }
        checker.report(d);
    }
}

/// The largest whole-number count the argument `arg` takes on one caller's path of the function
/// that builds the loader ([`paths::caller_paths`]), with what to say of that path in English
/// and Chinese (the first such path when several give it).
fn largest_on_a_path(
    m: &crate::python::model::Module,
    loader: &crate::python::loaders::Loader,
    arg: &crate::python::loaders::Argument,
) -> Option<(i64, [String; 2])> {
    let mut best: Option<(i64, [String; 2])> = None;
    for path in paths::caller_paths(m, loader, arg) {
        let Value::Int(n) = path.value.value else {
            continue;
        };
        if best.as_ref().is_none_or(|(b, _)| *b < n) {
            best = Some((n, path.when));
        }
    }
    best
}
