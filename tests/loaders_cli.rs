//! The loader catalogue end to end: a project's loader subclass in another file, the user's own
//! query files (`extend-queries`), a broken query file, and `dldoctor loaders` in text and JSON.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod cli_support;
use cli_support::{dldoctor, stdout};

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

fn check_json(dir: &Path) -> (Output, Vec<Value>) {
    let out = dldoctor(
        dir,
        &[
            "check",
            "--format",
            "json",
            "--assume-cpus",
            "8",
            "--assume-shm",
            "16GiB",
        ],
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("json output");
    (out, value.as_array().cloned().unwrap_or_default())
}

/// Runs `dldoctor loaders` in `dir` and checks that it succeeds and prints every line of
/// `expected`.
fn assert_loaders_text(dir: &Path, expected: &[&str]) {
    let out = dldoctor(dir, &["loaders"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in expected {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

fn codes(items: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = items
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}",
                d["filename"].as_str().unwrap(),
                d["location"]["row"],
                d["code"].as_str().unwrap()
            )
        })
        .collect();
    out.sort();
    out
}

/// The findings of one rule, as `codes` gives them.
fn codes_of(items: &[Value], code: &str) -> Vec<String> {
    codes(items)
        .into_iter()
        .filter(|c| c.ends_with(code))
        .collect()
}

/// The messages of the findings of `code`.
fn messages_of(items: &[Value], code: &str) -> Vec<String> {
    items
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| d["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

const UTILS: &str = "\
import torch

class InfiniteDataLoader(torch.utils.data.DataLoader):
    def __iter__(self):
        while True:
            yield from super().__iter__()

class PadLoader(InfiniteDataLoader):
    def __init__(self, dataset, workers=32, **kwargs):
        super().__init__(dataset, num_workers=workers, **kwargs)
";

const TRAIN: &str = "\
from utils.loaders import InfiniteDataLoader, PadLoader

def main(ds):
    a = InfiniteDataLoader(ds, batch_size=8, persistent_workers=True)
    b = PadLoader(ds, batch_size=8)
    c = PadLoader(ds, workers=0, prefetch_factor=2)
    return a, b, c
";

#[test]
fn a_loader_subclass_in_another_file_through_two_levels() {
    let dir = project(&[("utils/loaders.py", UTILS), ("train.py", TRAIN)]);
    let (out, items) = check_json(dir.path());
    assert_eq!(
        codes(&items),
        ["train.py:4:DL302", "train.py:5:DL201", "train.py:6:DL301"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1));
    let dl201 = items.iter().find(|d| d["code"] == "DL201").unwrap();
    let message = dl201["message"].as_str().unwrap();
    assert!(
        message.starts_with("num_workers=32 (the default of PadLoader (loaders.py))"),
        "{message}"
    );
    // Without the other file the classes are unknown: nothing, never a guess.
    let alone = project(&[("train.py", TRAIN)]);
    let (_, items) = check_json(alone.path());
    assert!(items.is_empty(), "{items:?}");
}

/// A loader subclass whose name the byte test does not know (`...Sampler`), through two
/// levels in two files, built in files that name only it: `check` analyses those files too,
/// and always a file named on the command line.
#[test]
fn files_that_name_only_a_project_loader_subclass_are_analysed() {
    let samplers = "\
import torch


class LayerWiseSampler(torch.utils.data.DataLoader):
    def __init__(self, edge_index, sizes, **kwargs):
        super().__init__(edge_index, **kwargs)
";
    let fast = "\
from graph.samplers import LayerWiseSampler


class FastSampler(LayerWiseSampler):
    pass
";
    let model = |class: &str, module: &str| {
        format!(
            "from graph.{module} import {class}\n\n\nclass Model:\n    \
             def __init__(self, data):\n        \
             self.train_loader = {class}(data, [10], num_workers=12)\n\n    \
             def train_net(self):\n        \
             for i, batch in enumerate(self.train_loader):\n            pass\n"
        )
    };
    let dir = project(&[
        ("graph/__init__.py", ""),
        ("graph/samplers.py", samplers),
        ("graph/fast.py", fast),
        ("graph/layerwise.py", &model("LayerWiseSampler", "samplers")),
        ("graph/fastgcn.py", &model("FastSampler", "fast")),
        ("graph/plain.py", "import torch\n\nx = torch.zeros(3)\n"),
    ]);
    let (out, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        ["graph/fastgcn.py:6:DL201", "graph/layerwise.py:6:DL201"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Named alone, the file is analysed whatever it holds.
    let named = dldoctor(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--assume-cpus",
            "8",
            "graph/fastgcn.py",
        ],
    );
    let value: Value = serde_json::from_slice(&named.stdout).expect("json output");
    assert_eq!(
        codes_of(value.as_array().unwrap(), "DL201"),
        ["graph/fastgcn.py:6:DL201"]
    );
}

const MEDICAL_LOADERS: &str = "\
import monai
import torchio as tio
from prefetch_generator import BackgroundGenerator


class BackgroundLoader(tio.SubjectsLoader):
    def __iter__(self):
        return BackgroundGenerator(super().__iter__())


class CachedLoader(monai.data.DataLoader):
    def __init__(self, dataset, workers=20, **kwargs):
        super().__init__(dataset, num_workers=workers, **kwargs)
";

const MEDICAL_TRAIN: &str = "\
import argparse

from utils.data_loader import BackgroundLoader, CachedLoader

parser = argparse.ArgumentParser()
parser.add_argument('--num_workers', type=int, default=24)
args = parser.parse_args()


def main(subjects, volumes):
    train = BackgroundLoader(dataset=subjects, batch_size=2, num_workers=args.num_workers)
    val = CachedLoader(volumes, batch_size=1)
    few = CachedLoader(volumes, workers=2, persistent_workers=True)
    for loader in (train, val, few):
        next(iter(loader))


if __name__ == '__main__':
    main(None, None)
";

/// Subclasses of third-party loader classes of the catalogue (TorchIO's SubjectsLoader,
/// MONAI's DataLoader) in another module of the project are loaders with their base's
/// signature, read through their `__init__`.
#[test]
fn subclasses_of_third_party_loaders_in_another_module() {
    let dir = project(&[
        ("utils/data_loader.py", MEDICAL_LOADERS),
        ("train.py", MEDICAL_TRAIN),
    ]);
    let (out, items) = check_json(dir.path());
    let dl201 = codes_of(&items, "DL201");
    assert_eq!(
        dl201,
        ["train.py:11:DL201", "train.py:12:DL201"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_loaders_text(
        dir.path(),
        &[
            "train.py:11:13: BackgroundLoader via BackgroundLoader (data_loader.py), a subclass of torchio.SubjectsLoader",
            "    num_workers = 24: the default of --num_workers (line 6), passed on line 11",
            "train.py:12:11: CachedLoader via CachedLoader (data_loader.py), a subclass of monai.data.DataLoader",
            "    num_workers = 20: the default of CachedLoader (data_loader.py)",
            "    num_workers (as workers) = 2: passed on line 13",
            "Found 3 loaders.",
        ],
    );
    // Without the module the classes are unknown: nothing, never a guess.
    let alone = project(&[("train.py", MEDICAL_TRAIN)]);
    let (_, items) = check_json(alone.path());
    assert!(items.is_empty(), "{items:?}");
}

const STABILITY: &str = "\
import functools
import inspect
import warnings


def under_review():
    def decorator(cls_or_callable, feature_name=None, was_class=False):
        if feature_name is None:
            feature_name = cls_or_callable.__qualname__
        message = f'The feature {feature_name} is currently marked under review.'
        if inspect.isclass(cls_or_callable):
            cls_or_callable.__init__ = decorator(cls_or_callable.__init__, feature_name=feature_name, was_class=True)
            cls_or_callable.__doc__ = message
            return cls_or_callable

        @functools.wraps(cls_or_callable)
        def wrapper(*args, **kwargs):
            warnings.warn(message)
            return cls_or_callable(*args, **kwargs)

        return wrapper

    return decorator


def renamed(cls):
    return type('Renamed' + cls.__name__, (cls,), {})
";

const DECORATED_MODEL: &str = "\
from pytorch_lightning import LightningModule
from torch.utils.data import DataLoader

from pkg.utils.stability import renamed, under_review


@under_review()
class AMDIM(LightningModule):
    def __init__(self, batch_size=200, num_workers=16):
        super().__init__()
        self.save_hyperparameters()

    def train_dataloader(self):
        return DataLoader(build_set(), batch_size=self.hparams.batch_size, num_workers=self.hparams.num_workers)


@renamed
class Other(LightningModule):
    def __init__(self, num_workers=16):
        super().__init__()
        self.save_hyperparameters()

    def train_dataloader(self):
        return DataLoader(build_set(), num_workers=self.hparams.num_workers)
";

/// A class behind a decorator of another module that returns the class it is given keeps its
/// `__init__` defaults; one behind a decorator that builds another class stays unknown.
#[test]
fn classes_behind_a_project_decorator_of_another_module() {
    let dir = project(&[
        ("pkg/__init__.py", ""),
        ("pkg/utils/__init__.py", ""),
        ("pkg/utils/stability.py", STABILITY),
        ("pkg/models/amdim.py", DECORATED_MODEL),
    ]);
    let (out, items) = check_json(dir.path());
    let dl201 = codes_of(&items, "DL201");
    assert_eq!(
        dl201,
        ["pkg/models/amdim.py:14:DL201"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: the default of num_workers in AMDIM.__init__ (line 9)",
            "    num_workers unknown: `self.hparams.num_workers`",
        ],
    );
    // Without the decorator's module it could be anything: unknown.
    let alone = project(&[("pkg/models/amdim.py", DECORATED_MODEL)]);
    let (_, items) = check_json(alone.path());
    assert!(codes_of(&items, "DL201").is_empty(), "{items:?}");
}

const BATCH_SAMPLERS: &str = "\
import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

BATCH = 512


class Buckets(BatchSampler):
    def __iter__(self):
        yield from bucketed(self.sampler, self.batch_size)


def main(ds):
    fixed = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), BATCH, False), num_workers=4)
    bucketed = DataLoader(ds, batch_sampler=Buckets(RandomSampler(ds), BATCH, False), num_workers=4)
    return fixed, bucketed
";

/// `dldoctor loaders` says how long the batches of a batch sampler are, or why that is not
/// known.
#[test]
fn loaders_explains_the_batches_of_a_batch_sampler() {
    let dir = project(&[("train.py", BATCH_SAMPLERS)]);
    assert_loaders_text(
        dir.path(),
        &[
            "    batch_sampler = BatchSampler(RandomSampler(ds), BATCH, False): BatchSampler on line 13, batches of 512 (the value of BATCH (line 4)), passed on line 13",
            "    batch_sampler unknown: `Buckets(RandomSampler(ds), BATCH, False)`: the length of its batches is not provable",
        ],
    );
    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let sampler = |i: usize| {
        files[0]["loaders"][i]["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["param"] == "batch_sampler")
            .cloned()
            .unwrap()
    };
    assert_eq!(sampler(0)["status"], "passed");
    assert_eq!(sampler(1)["status"], "unknown");
}

const USER_QUERIES: &str = r#"
; Our own factory: make_loaders(dataset, workers=16, pin=True) builds a DataLoader.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "ops.data.make_loaders")
  (#set! dl.entry "ops.data.make_loaders")
  (#set! dl.positional "dataset workers")
  (#set! dl.keywords "dataset persistent_workers")
  (#set! dl.rename.workers "num_workers")
  (#set! dl.rename.pin "pin_memory")
  (#set! dl.default.num_workers "16")
  (#set! dl.default.pin_memory "True"))
"#;

const USES_FACTORY: &str = "\
from ops.data import make_loaders

train = make_loaders(train_ds)
evaluate = make_loaders(eval_ds, 0, persistent_workers=True)
for batch in train:
    pass
";

#[test]
fn a_user_query_file_adds_a_factory() {
    let dir = project(&[
        (
            "pyproject.toml",
            "[tool.dldoctor]\nextend-queries = [\"ops/loaders.scm\"]\n",
        ),
        ("ops/loaders.scm", USER_QUERIES),
        ("train.py", USES_FACTORY),
    ]);
    let (out, items) = check_json(dir.path());
    assert_eq!(
        codes(&items),
        ["train.py:3:DL201", "train.py:4:DL302"],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let message = items[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("num_workers=16 (the default of ops.data.make_loaders)"),
        "{message}"
    );
    // Without the query file the factory is not a loader.
    let plain = project(&[("train.py", USES_FACTORY)]);
    let (_, items) = check_json(plain.path());
    assert!(items.is_empty(), "{items:?}");
}

#[test]
fn a_broken_query_file_names_file_line_and_column_and_the_rest_works() {
    let dir = project(&[
        (
            "pyproject.toml",
            "[tool.dldoctor]\nextend-queries = [\"ops/loaders.scm\"]\n",
        ),
        (
            "ops/loaders.scm",
            "; comment\n((call function: (_) @callee) @loader\n  (#set! dl.default.num_wrkers \"2\"))\n",
        ),
        (
            "train.py",
            "from torch.utils.data import DataLoader\nDataLoader(ds, prefetch_factor=2)\n",
        ),
    ]);
    let (out, items) = check_json(dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ops/loaders.scm:2:1: `num_wrkers` is not a parameter of DataLoader"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
    // The built-in catalogue still finds the DataLoader.
    assert_eq!(codes(&items), ["train.py:2:DL301"]);

    std::fs::write(
        dir.path().join("ops/loaders.scm"),
        "; comment\n((call function: (_) @callee) @loader\n  (#set! dl.entry \"x\")\n",
    )
    .unwrap();
    let (out, _) = check_json(dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ops/loaders.scm:4:1: Unexpected EOF"), "{err}");
}

const EXPLAINED: &str = "\
import argparse
from torch.utils.data import DataLoader
from transformers import TrainingArguments

parser = argparse.ArgumentParser()
parser.add_argument('--num_workers', type=int, default=64)
args = parser.parse_args()

def main(ds, cfg):
    loader = DataLoader(ds, num_workers=args.num_workers, pin_memory=cfg.pin, multiprocessing_context='spawn')
    hf = TrainingArguments('out', dataloader_num_workers=2)
";

#[test]
fn loaders_explains_each_value_in_text_and_json() {
    let dir = project(&[("train.py", EXPLAINED)]);
    assert_loaders_text(
        dir.path(),
        &[
            "train.py:10:14: DataLoader via torch.utils.data.DataLoader",
            "    num_workers = 64: the default of --num_workers (line 6), passed on line 10",
            "    pin_memory unknown: `cfg.pin` is not a value dldoctor can resolve",
            "    start method: spawn: the workers start by spawn (`multiprocessing_context`)",
            "train.py:11:10: TrainingArguments via transformers.TrainingArguments",
            "    catalogue entry: queries/transformers.scm:",
            "    num_workers (as dataloader_num_workers) = 2: passed on line 11",
            "    pin_memory = True: the default of transformers.TrainingArguments",
            "Found 2 loaders.",
        ],
    );

    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    assert_eq!(out.status.code(), Some(0));
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let loaders = files[0]["loaders"].as_array().expect("loaders");
    assert_eq!(files[0]["filename"], "train.py");
    assert_eq!(loaders.len(), 2);
    let first = &loaders[0];
    assert_eq!(first["entry"], "torch.utils.data.DataLoader");
    assert_eq!(first["line"], 10);
    assert_eq!(first["start_method"]["method"], "spawn");
    let workers = first["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "num_workers")
        .unwrap();
    assert_eq!(workers["value"], "64");
    assert_eq!(workers["status"], "passed");
    let pin = first["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "pin_memory")
        .unwrap();
    assert_eq!(pin["status"], "unknown");
    assert_eq!(pin["value"], Value::Null);
    assert_eq!(loaders[1]["arguments"][0]["param"], "num_workers");
    assert_eq!(
        loaders[1]["arguments"][0]["keyword"],
        "dataloader_num_workers"
    );
}

/// The fixture project of an `args` namespace parsed in entry scripts and handed to helpers of
/// other files (`get_loader(args)`, `Trainer(args)`), as training code is commonly laid out.
fn args_project() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/DL201_args_in_another_file/pretrain")
}

/// `--workers` defaults to 16 in the entry scripts that call `get_loader(args)` and
/// `Trainer(args)`: the finding sits on the helper's DataLoader, its value located at the
/// `add_argument` of the entry script. Two entry scripts that agree give one finding; where
/// they disagree (`get_val_loader`: 16 and 2) the path of the one that gives 16 is named as one
/// caller's; a namespace a helper of another file rewrites (`init_distributed(args)` sets
/// `args.workers`) stays quiet, in the entry script too.
#[test]
fn values_reach_helpers_in_other_files() {
    let root = args_project();
    let (_, findings) = check_json(&root);
    let mut found: Vec<(String, u64, String)> = findings
        .iter()
        .filter(|f| f["code"] == "DL201")
        .map(|f| {
            let file = f["filename"].as_str().unwrap();
            let related = f["related"][0]["filename"].as_str().unwrap_or_default();
            (
                file.rsplit('/').next().unwrap().to_owned(),
                f["location"]["row"].as_u64().unwrap(),
                related.rsplit('/').next().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("data_utils.py".to_owned(), 17, "main.py".to_owned()),
            ("data_utils.py".to_owned(), 24, "main.py".to_owned()),
            ("trainer.py".to_owned(), 12, "main.py".to_owned()),
        ],
        "{findings:#?}"
    );
    let message = findings
        .iter()
        .find(|f| f["code"] == "DL201")
        .and_then(|f| f["message"].as_str())
        .unwrap();
    assert!(
        message.contains("the default of --workers (main.py line 13)"),
        "{message}"
    );

    // The helper checked on its own finds the same callers.
    let out = dldoctor(
        &root,
        &[
            "check",
            "--format",
            "json",
            "--assume-cpus",
            "8",
            "--select",
            "DL201",
            "utils/data_utils.py",
        ],
    );
    let alone: Value = serde_json::from_slice(&out.stdout).expect("json output");
    let rows: Vec<u64> = alone
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["location"]["row"].as_u64().unwrap())
        .collect();
    assert_eq!(rows, [17, 24], "{alone:#?}");

    // `dldoctor loaders` says where each value comes from, or that it is unknown.
    let out = dldoctor(&root, &["loaders", "utils/data_utils.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("num_workers = 16: the default of --workers (main.py line 13)"),
        "{text}"
    );
    assert!(text.contains("on one caller's path"), "{text}");
    assert_eq!(text.matches("num_workers unknown").count(), 1, "{text}");
}

/// Parsers built in another module of the project: a parent parser returned by
/// `get_args_parser()`, options added by `add_dataset_args(parser)` (through an argument
/// group), each value located at its `add_argument` in `configs/options.py`. A helper that
/// hands the parser on to code dldoctor cannot read leaves the values unknown.
#[test]
fn parsers_built_in_another_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/DL201_parser_in_another_file");
    let (findings, found) = dl201_places(&root);
    for f in findings.iter().filter(|f| f["code"] == "DL201") {
        assert!(
            f["related"][0]["filename"]
                .as_str()
                .unwrap()
                .ends_with("configs/options.py"),
            "{f:#?}"
        );
    }
    assert_eq!(
        found,
        [
            (
                "finetune.py".to_owned(),
                14,
                "options.py line 21".to_owned()
            ),
            ("train.py".to_owned(), 11, "options.py line 9".to_owned()),
            ("train.py".to_owned(), 13, "options.py line 21".to_owned()),
        ],
        "{findings:#?}"
    );
    let out = dldoctor(&root, &["loaders", "train.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("prefetch_factor = 4: the default of --prefetch (options.py line 22)"),
        "{text}"
    );
}

/// An options class of another module (`TrainOptions().parse()` returning
/// `self.parser.parse_args()`): its namespace reaches a trainer built from it and a function
/// called with it, each value located in `options.py`. A `parse()` that changes the namespace
/// before returning it leaves the values unknown.
#[test]
fn options_class_in_another_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/DL201_options_class_in_another_file");
    let (findings, found) = dl201_places(&root);
    assert_eq!(
        found,
        [
            ("evaluate.py".to_owned(), 9, "options.py line 10".to_owned()),
            ("trainer.py".to_owned(), 10, "options.py line 10".to_owned()),
        ],
        "{findings:#?}"
    );
}

/// The findings of `check` on `root`, and each DL201's file name, line and the place of
/// `options.py` its message names, sorted.
fn dl201_places(root: &Path) -> (Vec<Value>, Vec<(String, u64, String)>) {
    let (_, findings) = check_json(root);
    let mut found: Vec<(String, u64, String)> = findings
        .iter()
        .filter(|f| f["code"] == "DL201")
        .map(|f| {
            let file = f["filename"].as_str().unwrap();
            (
                file.rsplit('/').next().unwrap().to_owned(),
                f["location"]["row"].as_u64().unwrap(),
                message_place(f["message"].as_str().unwrap()),
            )
        })
        .collect();
    found.sort();
    (findings, found)
}

/// "options.py line 9" of a message "... (the default of --workers (options.py line 9)) ...".
fn message_place(message: &str) -> String {
    let start = message.find("options.py line").unwrap_or(0);
    let end = message[start..]
        .find(')')
        .map_or(message.len(), |e| start + e);
    message[start..end].to_owned()
}

const WHY_UNKNOWN: &str = "\
import argparse
import os
import yaml
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument('--workers', type=int, default=32)
parser.add_argument('--prefetch', type=int, default=2)

def main():
    args = parser.parse_args()
    if 'ACCUM_STEPS' in os.environ:
        args.workers = args.workers // int(os.environ['ACCUM_STEPS'])
    for k, v in extra.items():
        setattr(args, k, v)
    cfg = yaml.safe_load(open('data.yaml'))
    DataLoader(ds, num_workers=args.workers, pin_memory=cfg['pin'])

def evaluate(opts):
    DataLoader(ds, num_workers=opts.workers)
";

fn argument<'v>(loader: &'v Value, param: &str) -> &'v Value {
    loader["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == param)
        .unwrap()
}

#[test]
fn loaders_says_why_a_value_stayed_unknown() {
    let dir = project(&[("train.py", WHY_UNKNOWN)]);
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers unknown: `args.workers` is not a value dldoctor can resolve without running the code, passed on line 17\n        because written by `setattr` with a computed name on line 15\n",
            // A config read with PyYAML from a literal path: the file is looked for, and named.
            "    pin_memory unknown: `cfg['pin']`: the config file data.yaml is not there, passed on line 17\n",
            "        because `opts` is a parameter of `evaluate`, and no call dldoctor found in the project passes it a namespace it can resolve\n",
        ],
    );

    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let loaders = files[0]["loaders"].as_array().expect("loaders");
    let workers = argument(&loaders[0], "num_workers");
    assert_eq!(workers["status"], "unknown");
    assert_eq!(
        workers["unknown_because"],
        "written by `setattr` with a computed name on line 15"
    );
    // Known and default values carry no reason.
    assert!(
        argument(&loaders[0], "timeout")
            .get("unknown_because")
            .is_none()
    );

    // Without the `setattr` loop, the conditional write is the reason.
    let dir = project(&[(
        "train.py",
        &WHY_UNKNOWN.replace(
            "    for k, v in extra.items():\n        setattr(args, k, v)\n",
            "",
        ),
    )]);
    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let workers = argument(&files[0]["loaders"][0], "num_workers");
    assert_eq!(
        workers["unknown_because"],
        "written under a condition that does not resolve, line 13 (to `args.workers // int(os.environ['ACCUM_STEPS'])`)"
    );

    // A config format the analysis does not read says where the value comes from.
    let dir = project(&[(
        "train.py",
        &WHY_UNKNOWN
            .replace("import yaml\n", "import tomllib\n")
            .replace(
                "yaml.safe_load(open('data.yaml'))",
                "tomllib.load(open('data.toml', 'rb'))",
            ),
    )]);
    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let pin = argument(&files[0]["loaders"][0], "pin_memory");
    assert_eq!(
        pin["unknown_because"],
        "`cfg` is read from a config file at run time (`tomllib.load`, line 16)"
    );
}

/// A module whose loaders read what instances hold, in each way the reason differs.
const WHY_INSTANCE: &str = "\
import yaml
import lightning as L
from torch.utils.data import DataLoader

from .registry import build


class Data(L.LightningDataModule):
    def __init__(self, config, num_workers=16):
        super().__init__()
        self.save_hyperparameters(config)

    def train_dataloader(self):
        return DataLoader(ds, num_workers=self.hparams.num_workers)


class Runner:
    def __init__(self, workers, cfg_path, opts):
        self.workers = workers
        self.cfg = yaml.safe_load(open(cfg_path))
        self.limit = opts.workers

    def loaders(self):
        first = DataLoader(ds, num_workers=self.workers)
        second = DataLoader(ds, num_workers=self.cfg['workers'])
        third = DataLoader(ds, num_workers=self.limit)
        return first, second, third


class Child(Runner):
    def __init__(self, workers):
        super().__init__(workers, build(), build())

    def rebuild(self):
        self.workers = 2
        return DataLoader(ds, num_workers=self.threads)


def main():
    Runner(build(), build(), build()).loaders()
";

#[test]
fn loaders_says_why_what_an_instance_holds_stayed_unknown() {
    // Why each loader's worker count of the module stayed unknown, in order.
    let reasons = |source: &str| -> Vec<String> {
        let dir = project(&[("pkg/__init__.py", ""), ("pkg/train.py", source)]);
        let out = dldoctor(dir.path(), &["loaders", "--format", "json", "pkg/train.py"]);
        assert_eq!(out.status.code(), Some(0));
        let files: Value = serde_json::from_slice(&out.stdout).expect("json");
        files[0]["loaders"]
            .as_array()
            .expect("loaders")
            .iter()
            .map(|l| {
                let workers = argument(l, "num_workers");
                assert_eq!(workers["status"], "unknown", "{l}");
                workers["unknown_because"].as_str().unwrap_or("").to_owned()
            })
            .collect()
    };
    assert_eq!(
        reasons(WHY_INSTANCE),
        [
            "`self.hparams` holds the `config` given to `Data(...)`, and no call dldoctor found \
             in the project passes it a namespace it can resolve",
            "`self.workers` is the `workers` given to `Runner(...)` (line 19), and `Runner` has \
             subclasses here, whose constructors may pass it anything",
            "`self.cfg` is set on line 20 to `yaml.safe_load(open(cfg_path))`, which dldoctor \
             cannot follow to a value",
            "`self.limit` is set on line 21 from `opts.workers`, the `opts` given to \
             `Runner(...)`, and `Runner` has subclasses here, whose constructors may pass it \
             anything",
            "`self.threads` is not set in `Child`: a base class (`Runner`) or the code that makes \
             the instance sets it",
        ]
    );

    // A subclass that takes the base's constructor is built as the base is.
    let plain = WHY_INSTANCE.replace(
        "    def __init__(self, workers):\n        super().__init__(workers, build(), build())\n\n",
        "",
    );
    assert_eq!(
        reasons(&plain)[1],
        "`self.workers` is the `workers` given to `Runner(...)` (line 19), and no construction \
         of `Runner` dldoctor found passes it a value it can resolve"
    );

    // Without the subclass, the constructor's callers are the reason; a write in another
    // method makes the order of the calls the reason.
    let single = WHY_INSTANCE.replace("class Child(Runner):", "class Child:");
    let single = single.replace(
        "        return first, second, third\n",
        "        return first, second, third\n\n    def reset(self):\n        self.workers = 0\n",
    );
    assert_eq!(
        reasons(&single)[1],
        "`self.workers` is set in more than one place (lines 19, 30)"
    );
    let plain = single.replace("\n    def reset(self):\n        self.workers = 0\n", "\n");
    assert_eq!(
        reasons(&plain)[1],
        "`self.workers` is the `workers` given to `Runner(...)` (line 19), and no construction \
         of `Runner` dldoctor found passes it a value it can resolve"
    );
}

const DEFAULTS: &str = "\
import fire
import lightning as L
from torch.utils.data import DataLoader


class Digits(L.LightningDataModule):
    def __init__(self, batch_size, num_workers=0, prefetch_factor=2):
        super().__init__()
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor if num_workers > 0 else None

    def train_dataloader(self):
        return DataLoader(ds, num_workers=self.num_workers, prefetch_factor=self.prefetch_factor)


class Audio(L.LightningDataModule):
    def __init__(self, num_workers: int = 4):
        super().__init__()
        self.save_hyperparameters()

    def train_dataloader(self):
        return DataLoader(ds, num_workers=self.hparams.num_workers)


class Speech:
    def __init__(self, workers=2):
        self.workers = workers

    def loader(self):
        return DataLoader(ds, num_workers=self.workers)


speech = Speech(workers=6)


def train(epochs=3, workers=12):
    return DataLoader(ds, num_workers=workers)


if __name__ == '__main__':
    fire.Fire(train)
";

#[test]
fn loaders_explains_parameter_defaults_and_attributes_set_in_init() {
    let dir = project(&[("train.py", DEFAULTS)]);
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 0: the default of num_workers in Digits.__init__ (line 7), passed on line 13",
            "    prefetch_factor = None: the value of self.prefetch_factor (line 10), passed on line 13",
            "    num_workers = 4: the default of num_workers in Audio.__init__ (line 17), passed on line 22",
            "    num_workers = 6: passed for workers to Speech (line 33), passed on line 30",
            "    num_workers = 12: the default of workers in train (line 36), passed on line 37",
            "Found 4 loaders.",
        ],
    );

    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let workers = files[0]["loaders"][3]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "num_workers")
        .unwrap()
        .clone();
    assert_eq!(workers["value"], "12");
    assert_eq!(workers["status"], "passed");
    assert_eq!(
        workers["origin"],
        "the default of workers in train (line 36), passed on line 37"
    );
}

/// A data module whose `__init__` default breaks the loader, as `data/modules.py` defines it.
const MODULES: &str = "\
from torch.utils.data import DataLoader


class Digits:
    def __init__(self, ds, num_workers=0):
        self.ds = ds
        self.num_workers = num_workers

    def train_dataloader(self):
        return DataLoader(self.ds, num_workers=self.num_workers, prefetch_factor=4)
";

/// `__init__`'s default runs when no file of the project passes the parameter: the class built
/// only from a config (a string target, never called), or called elsewhere without it (or with
/// an empty dict unpacked). A call in another file that passes what the analysis cannot read
/// makes the value unknown: the rules stay quiet rather than quote a default that does not
/// run. A value written in that call is the value.
#[test]
fn init_defaults_see_constructions_in_other_files() {
    let config_only = project(&[
        ("data/modules.py", MODULES),
        ("train.py", "TARGET = 'data.modules.Digits'\n"),
    ]);
    let left_out = project(&[
        ("data/modules.py", MODULES),
        (
            "train.py",
            "from data.modules import Digits\n\ndm = Digits(ds)\n",
        ),
    ]);
    // An empty dict unpacked passes nothing either.
    let empty_dict = project(&[
        ("data/modules.py", MODULES),
        (
            "train.py",
            "from data.modules import Digits\n\nkwargs = {}\ndm = Digits(ds, **kwargs)\n",
        ),
    ]);
    // A subclass of another file that takes the constructor as it is, built nowhere.
    let subclass = project(&[
        ("data/modules.py", MODULES),
        (
            "train.py",
            "from data.modules import Digits\n\nclass Mine(Digits):\n    pass\n",
        ),
    ]);
    for dir in [&config_only, &left_out, &empty_dict, &subclass] {
        let (_, items) = check_json(dir.path());
        assert!(
            codes(&items).contains(&"data/modules.py:10:DL301".to_owned()),
            "{items:?}"
        );
    }

    for train in [
        "import argparse\nfrom data.modules import Digits\n\nargs = argparse.ArgumentParser().parse_args()\ndm = Digits(ds, num_workers=args.workers)\n",
        "import json\nfrom data.modules import Digits\n\nkwargs = json.load(open('k.json'))\ndm = Digits(ds, **kwargs)\n",
        "from data.modules import Digits\n\nclass Mine(Digits):\n    def __init__(self, ds):\n        super().__init__(ds, num_workers=pick())\n\nMine(ds)\n",
    ] {
        let dir = project(&[("data/modules.py", MODULES), ("train.py", train)]);
        let (_, items) = check_json(dir.path());
        assert!(
            !codes(&items).iter().any(|c| c.ends_with("DL301")),
            "{train}\n{items:?}"
        );
        let out = dldoctor(dir.path(), &["loaders", "data/modules.py", "train.py"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("num_workers unknown") && !text.contains("the default of"),
            "{text}"
        );
    }
    let dir = project(&[
        ("data/modules.py", MODULES),
        (
            "train.py",
            "from data import modules\n\ndm = modules.Digits(ds, 8)\n",
        ),
    ]);
    assert!(
        !codes(&check_json(dir.path()).1)
            .iter()
            .any(|c| c.ends_with("DL301"))
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 8: passed for num_workers to Digits (train.py line 3), passed on line 10\n",
        ],
    );
}

/// A copy of the script elsewhere in the project defines and builds its own class of the same
/// name: its constructions are not this class's.
#[test]
fn a_copy_of_the_class_in_another_script_is_not_a_construction() {
    let own = format!("{MODULES}\ndm = Digits(ds)\n");
    let copy = format!("{MODULES}\ndm = Digits(ds, num_workers=args.workers)\n");
    let dir = project(&[("train_a.py", &own), ("train_b.py", &copy)]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes(&items), ["train_a.py:10:DL301"], "{items:?}");
}

/// A notebook counts lines inside cells, in the locations and the texts, as `check` does.
#[test]
fn loaders_in_a_notebook_count_lines_in_cells() {
    let cell = |source: &str| {
        serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {},
                           "outputs": [], "source": source})
    };
    let nb = serde_json::json!({
        "cells": [
            cell("import multiprocessing as mp\nfrom torch.utils.data import DataLoader\n"),
            {"cell_type": "markdown", "metadata": {}, "source": "Workers"},
            cell("mp.set_start_method(\"spawn\")\nworkers = 4\n"),
            cell("data = list(range(8))\nloader = DataLoader(data, num_workers=workers)\n"),
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    let dir = project(&[("explore.ipynb", &nb.to_string())]);
    assert_loaders_text(
        dir.path(),
        &[
            "explore.ipynb:cell 4:2:10: DataLoader via torch.utils.data.DataLoader",
            "    num_workers = 4: the value of workers (cell 3, line 2), passed in cell 4, line 2",
        ],
    );

    let out = dldoctor(dir.path(), &["loaders", "--format", "json"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let loader = &files[0]["loaders"][0];
    assert_eq!((&loader["cell"], &loader["line"]), (&4.into(), &2.into()));
    let start = &loader["start_method"];
    assert_eq!(start["method"], "spawn");
    assert_eq!((&start["cell"], &start["line"]), (&3.into(), &1.into()));
}

/// A Hydra entry point, a dataclass config and a click command, as a project lays them out.
const HYDRA_TRAIN: &str = "\
import hydra
from torch.utils.data import DataLoader


@hydra.main(version_base=\"1.3\", config_path=\"../conf\", config_name=\"config\")
def main(cfg):
    for b in DataLoader(ds, num_workers=cfg.data.num_workers, prefetch_factor=cfg.data.prefetch): pass
    for b in DataLoader(ds, batch_size=cfg.batch_size, pin_memory=cfg.data.pin): pass


if __name__ == \"__main__\":
    main()
";

const DATACLASS_TRAIN: &str = "\
from dataclasses import dataclass

import click
from torch.utils.data import DataLoader


@dataclass
class TrainConfig:
    num_workers: int = 16


@click.command()
@click.option(\"--workers\", default=12)
def main(workers):
    cfg = TrainConfig()
    for b in DataLoader(ds, num_workers=cfg.num_workers, timeout=workers): pass


if __name__ == \"__main__\":
    main()
";

/// Each value read from a config says where it is written; a config value that stays unknown
/// says why, in text and JSON, and a broken or missing config file is no crash.
#[test]
fn loaders_explains_config_values_and_why_they_stay_unknown() {
    let dir = project(&[
        ("src/train.py", HYDRA_TRAIN),
        ("src/simple.py", DATACLASS_TRAIN),
        (
            "conf/config.yaml",
            "defaults:\n  - data: cluster\n  - _self_\n\nbatch_size: ${oc.env:BATCH}\n",
        ),
        ("conf/data/cluster.yaml", "num_workers: 24\nprefetch: ???\n"),
    ]);
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 24: data.num_workers in ../conf/data/cluster.yaml line 1, passed on line 7",
            "    prefetch_factor unknown: `cfg.data.prefetch`: data.prefetch in ../conf/data/cluster.yaml line 2 is `???`, a value the command line must give, passed on line 7",
            "    batch_size unknown: `cfg.batch_size`: batch_size in ../conf/config.yaml line 5 is an interpolation, resolved only when the code runs, passed on line 8",
            "    pin_memory unknown: `cfg.data.pin`: ../conf/config.yaml has no data.pin (the command line may add it), passed on line 8",
            "    num_workers = 16: the default of TrainConfig.num_workers (line 9), passed on line 16",
            "    timeout = 12: the default of --workers (line 13), passed on line 16",
        ],
    );

    let (_, items) = check_json(dir.path());
    let found = codes(&items);
    assert!(
        found.contains(&"src/train.py:7:DL201".to_owned()),
        "{found:?}"
    );
    assert!(
        found.contains(&"src/simple.py:16:DL201".to_owned()),
        "{found:?}"
    );

    // The group file broken, then gone: the value stays unknown, with the reason.
    std::fs::write(
        dir.path().join("conf/data/cluster.yaml"),
        "num_workers: [24\n",
    )
    .unwrap();
    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "src/train.py"]);
    assert_eq!(out.status.code(), Some(0));
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let workers = files[0]["loaders"][0]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "num_workers")
        .unwrap()
        .clone();
    assert_eq!(workers["status"], "unknown");
    assert!(
        workers["origin"]
            .as_str()
            .unwrap()
            .contains("the config file ../conf/data/cluster.yaml is not readable YAML"),
        "{workers}"
    );
    std::fs::remove_file(dir.path().join("conf/data/cluster.yaml")).unwrap();
    let out = dldoctor(dir.path(), &["loaders", "src/train.py"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the config file ../conf/data/cluster.yaml is not there"),
        "{text}"
    );
}

/// An experiment object built in the entry script (`Exp = Experiment; Exp(args)`) keeps the
/// namespace through its base class of another module (`self.args = args`, reached by
/// `super().__init__(args)` or none at all), and a method hands `self.args` to a loader
/// factory of a third module. The value reaches the factory's DataLoader. Where entry scripts
/// disagree, or a subclass hands the base its own namespace, the script that gives 24 runs
/// with 24 (one caller's path); a base class that may set any attribute of the namespace
/// leaves it unknown.
#[test]
fn experiment_objects_keep_the_namespace_across_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/DL201_experiment_object_in_another_file");
    let (_, findings) = check_json(&root);
    let found: Vec<String> = codes(&findings)
        .into_iter()
        .filter(|c| c.ends_with("DL201"))
        .collect();
    let found: Vec<&str> = found
        .iter()
        .map(|f| {
            f.split("DL201_experiment_object_in_another_file/")
                .last()
                .unwrap()
        })
        .collect();
    assert_eq!(
        found,
        [
            "data/factory.py:9:DL201",
            "forecast/data/factory.py:6:DL201",
            "subclassed/data/factory.py:6:DL201"
        ],
        "{findings:#?}"
    );
    assert_loaders_text(
        &root,
        &[
            "num_workers = 24: the default of --workers (run.py line 8), through `Exp(args)` \
             (run.py line 17), passed on line 9",
        ],
    );
    for family in ["forecast", "subclassed"] {
        let out = dldoctor(&root, &["loaders", &format!("{family}/data/factory.py")]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(
                "num_workers = 24: the default of --workers (run.py line 7), through \
                 `Experiment(args)` (run.py line 9), on one caller's path"
            ),
            "{text}"
        );
    }
    let out = dldoctor(&root, &["loaders", "configured/data/factory.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "because `args` is a parameter of `build_loader`, and `build_loader(self.args, \
             split)` (experiment.py line 7) passes it a namespace dldoctor cannot resolve"
        ),
        "{text}"
    );
}

/// Helpers of another module that add options to the parser they are given and return it,
/// chained as `parser = add_x_args(parser)` (one through `deepspeed.add_config_arguments`):
/// the defaults they add reach a DataLoader of that module through `init_..._dataloader(args)`,
/// to PyTorch's ValueErrors. A helper that hands the parser to code dldoctor cannot read
/// leaves every default unknown.
#[test]
fn parser_helpers_of_another_module_chained() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/DL302_parser_helpers_in_another_file");
    let (_, findings) = check_json(&root);
    let found: Vec<String> = codes(&findings)
        .into_iter()
        .filter(|c| c.contains(":DL30"))
        .map(|c| c.rsplit('/').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        found,
        ["train_utils.py:42:DL302", "train_utils.py:43:DL301"],
        "{findings:#?}"
    );
    let out = dldoctor(&root, &["loaders", "asr/utils/train_utils.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "num_workers = 0: the default of --num_workers (train_utils.py line 12), through \
         `init_dataset_and_dataloader(args, list(range(8)))` (train.py line 26)",
        "prefetch_factor = 100: the default of --prefetch (train_utils.py line 14)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let out = dldoctor(&root, &["loaders", "tts/utils/options.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("num_workers unknown"), "{text}");
}

/// A yacs config as vision projects lay it out: defaults in a package module, re-exported,
/// imported by an entry script that merges the `--cfg` YAML and an empty `opts` list.
const YACS_DEFAULTS: &str = "\
from yacs.config import CfgNode as CN

_C = CN()
_C.DIR = \"ckpt\"
_C.TRAIN = CN()
_C.TRAIN.batch_size_per_gpu = 2
_C.TRAIN.workers = 16
_C.VAL = CN()
_C.VAL.workers = 12


def get_cfg_defaults():
    return _C.clone()
";

const YACS_TRAIN: &str = "\
import argparse

import torch
from seg.config import cfg


def main(cfg, gpus):
    loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=cfg.TRAIN.workers)
    val = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=cfg.VAL.workers)
    for batch in zip(loader, val):
        pass


if __name__ == \"__main__\":
    parser = argparse.ArgumentParser()
    parser.add_argument(\"--cfg\", default=\"config/ade20k.yaml\", type=str)
    parser.add_argument(\"opts\", default=None, nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cfg.merge_from_file(args.cfg)
    cfg.merge_from_list(args.opts)
    main(cfg, [0])
";

const YACS_TOOL: &str = "\
from torch.utils.data import DataLoader
from seg.config.defaults import get_cfg_defaults


def run():
    cfg = get_cfg_defaults()
    for batch in DataLoader(ds, num_workers=cfg.VAL.workers):
        pass


if __name__ == \"__main__\":
    run()
";

/// The library module reads the shared config: the entry scripts merge into it, so unknown.
const YACS_LIBRARY: &str = "\
from torch.utils.data import DataLoader
from .config import cfg


def loader(ds):
    for batch in DataLoader(ds, num_workers=cfg.TRAIN.workers):
        pass
";

const YACS_SETUP: &str = "\
from .config import cfg


def setup(path):
    cfg.merge_from_file(path)
";

/// An entry script whose imported helper merges into the shared config.
const YACS_TRAIN_SETUP: &str = "\
from torch.utils.data import DataLoader
from seg.config import cfg
from seg.setup import setup

if __name__ == \"__main__\":
    setup(\"x.yaml\")
    for b in DataLoader(ds, num_workers=cfg.VAL.workers):
        pass
";

#[test]
fn yacs_defaults_and_merged_files_across_files() {
    let dir = project(&[
        ("seg/__init__.py", ""),
        (
            "seg/config/__init__.py",
            "from .defaults import _C as cfg\n",
        ),
        ("seg/config/defaults.py", YACS_DEFAULTS),
        ("seg/data.py", YACS_LIBRARY),
        ("train.py", YACS_TRAIN),
        ("tools/defaults.py", YACS_TOOL),
        (
            "config/ade20k.yaml",
            "TRAIN:\n  batch_size_per_gpu: 2\n  workers: 24\n",
        ),
        // A helper that merges into the shared config without being handed it.
        ("seg/setup.py", YACS_SETUP),
        ("train_setup.py", YACS_TRAIN_SETUP),
    ]);
    let out = dldoctor(
        dir.path(),
        &["loaders", "train.py", "tools/defaults.py", "seg/data.py"],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "    num_workers = 24: TRAIN.workers in config/ade20k.yaml line 3, passed on line 8",
        "    num_workers = 12: the default of _C.VAL.workers (seg/config/defaults.py line 9), passed on line 9",
        "    num_workers = 12: the default of _C.VAL.workers (../seg/config/defaults.py line 9), passed on line 7",
        "    num_workers unknown: `cfg.TRAIN.workers` is not a value dldoctor can resolve without running the code, passed on line 6",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let (_, items) = check_json(dir.path());
    let found = codes(&items);
    for expected in [
        "train.py:8:DL201",
        "train.py:9:DL201",
        "tools/defaults.py:7:DL201",
    ] {
        assert!(found.contains(&expected.to_owned()), "{found:?}");
    }
    assert!(
        !found
            .iter()
            .any(|f| f.starts_with("seg/") || f.starts_with("train_setup.py")),
        "{found:?}"
    );

    // The merged file gone: the value it would set stays unknown, with the reason; a default
    // the run still gets from the code would be the file's, so it is unknown too.
    std::fs::remove_file(dir.path().join("config/ade20k.yaml")).unwrap();
    let out = dldoctor(dir.path(), &["loaders", "train.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`cfg.TRAIN.workers`: the config file config/ade20k.yaml is not there"),
        "{text}"
    );
    assert!(!text.contains("num_workers = "), "{text}");
}

/// A config class of another module, handed to the training function and to a dataset class
/// of a third module that only reads it.
const CLASS_CONFIG: &str = "\
class setting_config:
    network = 'unet'
    data_path = './data/isic2018/'
    num_workers = 12
    batch_size = 32
";

const CLASS_CONFIG_READER: &str = "\
from torch.utils.data import Dataset


class NPYDataset(Dataset):
    def __init__(self, path, config, train=True):
        self.path = path
        self.transform = config.train_transformer if train else config.test_transformer
";

const CLASS_CONFIG_TRAIN: &str = "\
from torch.utils.data import DataLoader

from configs.config_setting import setting_config
from datasets.dataset import NPYDataset


def main(config):
    train_dataset = NPYDataset(config.data_path, config, train=True)
    loader = DataLoader(train_dataset, batch_size=config.batch_size, shuffle=True,
                        num_workers=config.num_workers)
    for batch in loader:
        pass


if __name__ == '__main__':
    config = setting_config
    main(config)
";

#[test]
fn a_config_class_of_another_module_handed_to_a_reader() {
    let files = [
        ("configs/config_setting.py", CLASS_CONFIG),
        ("datasets/__init__.py", ""),
        ("datasets/dataset.py", CLASS_CONFIG_READER),
        ("train.py", CLASS_CONFIG_TRAIN),
    ];
    let dir = project(&files);
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 12: the default of setting_config.num_workers \
           (configs/config_setting.py line 4), passed on line 10\n",
        ],
    );
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["train.py:10:DL201"]);

    // The module the config is handed to may change the key: the class body's value may not
    // be what runs.
    let writer = CLASS_CONFIG_READER.to_owned() + "        config.num_workers = 2\n";
    let mut files = files;
    files[2] = ("datasets/dataset.py", &writer);
    let dir = project(&files);
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty(), "{items:?}");
}

/// A project without a marker file, checked one file at a time from the folder above, beside
/// other projects: its files are searched for callers and constructions, not the other
/// projects' (which may be many, or use the same names).
#[test]
fn a_file_checked_by_itself_sees_its_own_folder_not_the_projects_beside_it() {
    let mut files = vec![
        (
            "repo/train.py".to_owned(),
            "\
import argparse
from torch.utils.data import DataLoader
from utils import get_loader


class Trainer:
    def __init__(self, workers=16):
        self.workers = workers

    def loader(self, ds):
        return DataLoader(ds, num_workers=self.workers)


parser = argparse.ArgumentParser()
parser.add_argument(\"--workers\", type=int, default=32)
args = parser.parse_args()
for b in get_loader(args, ds): pass
for b in Trainer().loader(ds): pass
"
            .to_owned(),
        ),
        (
            "repo/utils.py".to_owned(),
            "\
from torch.utils.data import DataLoader


def get_loader(args, ds):
    return DataLoader(ds, num_workers=args.workers)
"
            .to_owned(),
        ),
        // Another project beside it builds its own `Trainer` from a value.
        (
            "other/use.py".to_owned(),
            "from train import Trainer\nmake = Trainer\n".to_owned(),
        ),
    ];
    // ... and many of its files call their own `utils.get_loader`.
    for i in 0..70 {
        files.push((
            format!("other/s{i}.py"),
            "from utils import get_loader\nget_loader(None, None)\n".to_owned(),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    let dir = project(&files);
    let expected = [
        "    num_workers = 16: the default of workers in Trainer.__init__ (line 7), passed on line 11",
        "    num_workers = 32: the default of --workers (train.py line 15), through \
         `get_loader(args, ds)` (train.py line 17), passed on line 5",
    ];
    for paths in [&["repo/train.py", "repo/utils.py"][..], &["repo/"][..]] {
        let mut args = vec!["loaders"];
        args.extend(paths);
        let out = dldoctor(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        for expected in expected {
            assert!(
                text.contains(expected),
                "{paths:?}: missing {expected:?} in\n{text}"
            );
        }
    }
}

/// A `.git` in the home folder keeps dotfiles: a script in a folder below it with no project
/// marker of its own is not checked as part of a project the size of the home folder.
#[test]
fn the_home_folder_is_not_a_project() {
    let dir = project(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "pkg/args.py",
            "import argparse\n\n\ndef get_args():\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--workers', type=int, default=16)\n    return parser.parse_args()\n",
        ),
        (
            "scratch/train.py",
            "from torch.utils.data import DataLoader\n\nfrom pkg.args import get_args\n\n\
             args = get_args()\nfor batch in DataLoader(ds, num_workers=args.workers):\n    pass\n",
        ),
    ]);
    let run = |home: &Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
            .args([
                "check",
                "train.py",
                "--format",
                "json",
                "--assume-cpus",
                "8",
            ])
            .current_dir(dir.path().join("scratch"))
            .env("HOME", home)
            .env("NO_COLOR", "1")
            .output()
            .expect("run dldoctor");
        let items: Value = serde_json::from_slice(&out.stdout).expect("json");
        codes(items.as_array().expect("array"))
    };
    // Another home: the folder with `.git` is the project, and its package is read.
    assert_eq!(run(Path::new("/nonexistent-home")), ["train.py:6:DL201"]);
    // The same folder as the home: not a project; the script's imports stay unread.
    assert!(run(dir.path()).is_empty());
}

/// `DataLoader` reached through the project's own modules: imported from a module that
/// imports it from torch, or through star imports (`from utils import *` in `modules.py`,
/// `from modules import *` and `from data import *` in the script), the last star import
/// that has the name giving it.
#[test]
fn a_loader_class_re_exported_by_project_modules() {
    let files = [
        (
            "utils.py",
            "import os\nfrom torch.utils.data import DataLoader, Dataset\n",
        ),
        ("modules.py", "import torch\nfrom utils import *\n"),
        ("data.py", "import numpy as np\n"),
        (
            "train.py",
            "from modules import *\nfrom data import *\n\n\ndef main():\n    \
             for batch in DataLoader(ds, num_workers=16):\n        pass\n\n\nmain()\n",
        ),
        (
            "evaluate.py",
            "from modules import DataLoader\n\nfor batch in DataLoader(ds, num_workers=12):\n    \
             pass\n",
        ),
    ];
    let dir = project(&files);
    let (_, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        ["evaluate.py:3:DL201", "train.py:6:DL201"]
    );

    // The last star import has its own `DataLoader` (not torch's): that one is called.
    let mut files = files;
    files[2] = (
        "data.py",
        "class DataLoader:\n    def __init__(self, ds, num_workers=0):\n        self.ds = ds\n",
    );
    let dir = project(&files);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["evaluate.py:3:DL201"]);

    // A star import from outside the project after them may have any name.
    files[2] = ("data.py", "import numpy as np\n");
    files[3] = (
        "train.py",
        "from modules import *\nfrom data import *\nfrom numpy import *\n\n\
         for batch in DataLoader(ds, num_workers=16):\n    pass\n",
    );
    let dir = project(&files);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["evaluate.py:3:DL201"]);
}

/// A shared config of another module whose attributes the reading script sets by name
/// (`setattr(cfg, key, value)`, `vars(cfg).update(...)`): its default may not be what runs.
#[test]
fn a_shared_config_set_by_name_in_the_reading_script() {
    let config = "class Config:\n    num_workers = 16\n\n\ncfg = Config()\n";
    let script = |change: &str| {
        format!(
            "from torch.utils.data import DataLoader\n\nfrom config import cfg\n\n{change}\n\
             if __name__ == '__main__':\n    for batch in DataLoader(ds, num_workers=cfg.num_workers):\n        \
             pass\n"
        )
    };
    let dir = project(&[("config.py", config), ("train.py", &script(""))]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["train.py:7:DL201"]);
    for change in [
        "for key, value in overrides.items():\n    setattr(cfg, key, value)\n",
        "vars(cfg).update(overrides)\n",
        "cfg.__dict__.update(overrides)\n",
    ] {
        let dir = project(&[("config.py", config), ("train.py", &script(change))]);
        let (_, items) = check_json(dir.path());
        assert!(codes_of(&items, "DL201").is_empty(), "{change}: {items:?}");
    }
    // A key it names that is another one leaves this one as it was.
    let dir = project(&[
        ("config.py", config),
        ("train.py", &script("setattr(cfg, 'batch_size', 4)\n")),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["train.py:8:DL201"]);
}

/// A script checked from its own folder, below the project's top: the project's package
/// above the current folder is found as `check .` at the top finds it, and the output names
/// the script as the current folder does.
#[test]
fn a_script_checked_from_its_folder_sees_the_project_above() {
    let dir = project(&[
        ("pyproject.toml", ""),
        ("pkg/__init__.py", ""),
        (
            "pkg/args.py",
            "import argparse\n\n\ndef get_args():\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--workers', type=int, default=16)\n    return parser.parse_args()\n",
        ),
        (
            "tools/train.py",
            "from torch.utils.data import DataLoader\n\nfrom pkg.args import get_args\n\n\n\
             def main():\n    args = get_args()\n    for batch in DataLoader(ds, num_workers=args.workers):\n        \
             pass\n\n\nif __name__ == '__main__':\n    main()\n",
        ),
    ]);
    let tools = dir.path().join("tools");
    let out = dldoctor(
        &tools,
        &[
            "check",
            "train.py",
            "--format",
            "json",
            "--assume-cpus",
            "8",
        ],
    );
    let items: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        codes(items.as_array().expect("array")),
        ["train.py:8:DL201"]
    );
    let out = dldoctor(&tools, &["loaders", "."]);
    assert!(
        stdout(&out).contains("train.py:8:") && !stdout(&out).contains("../"),
        "{}",
        stdout(&out)
    );
}

/// Lightning's parser helpers across modules: `LitModel.add_model_specific_args(parser)`, a
/// static method of another module that returns a copy of the parser made with
/// `parents=[parent_parser]`, and a class method that adds a group to the parser given, each
/// value located in `models.py`; `pl.Trainer.add_argparse_args(parser)` adds only the
/// Trainer's own options. A helper that makes a copy but returns the parser it was given adds
/// nothing the caller sees: its option stays unknown.
#[test]
fn lightning_parser_helpers_of_another_module() {
    let dir = project(&[
        (
            "models.py",
            "from argparse import ArgumentParser\n\
             \n\
             from pytorch_lightning import LightningModule\n\
             \n\
             \n\
             class LitModel(LightningModule):\n\
             \x20   @staticmethod\n\
             \x20   def add_model_specific_args(parent_parser):\n\
             \x20       parser = ArgumentParser(parents=[parent_parser], add_help=False)\n\
             \x20       parser.add_argument(\"--num_workers\", type=int, default=16)\n\
             \x20       return parser\n\
             \n\
             \x20   @staticmethod\n\
             \x20   def add_eval_args(parent_parser):\n\
             \x20       parser = ArgumentParser(parents=[parent_parser], add_help=False)\n\
             \x20       parser.add_argument(\"--eval_workers\", type=int, default=16)\n\
             \x20       return parent_parser\n\
             \n\
             \n\
             class LitData:\n\
             \x20   @classmethod\n\
             \x20   def add_data_args(cls, parent_parser):\n\
             \x20       group = parent_parser.add_argument_group(\"LitData\")\n\
             \x20       group.add_argument(\"--workers\", type=int, default=12)\n\
             \x20       return parent_parser\n",
        ),
        (
            "train.py",
            "from argparse import ArgumentParser\n\
             \n\
             import pytorch_lightning as pl\n\
             from torch.utils.data import DataLoader\n\
             \n\
             from models import LitData, LitModel\n\
             \n\
             \n\
             def main():\n\
             \x20   parser = ArgumentParser()\n\
             \x20   parser.add_argument(\"--batch_size\", type=int, default=32)\n\
             \x20   parser = pl.Trainer.add_argparse_args(parser)\n\
             \x20   parser = LitModel.add_model_specific_args(parser)\n\
             \x20   parser = LitData.add_data_args(parser)\n\
             \x20   args = parser.parse_args()\n\
             \x20   train = DataLoader(range(10), batch_size=args.batch_size, num_workers=args.num_workers)\n\
             \x20   val = DataLoader(range(10), num_workers=args.workers)\n\
             \x20   return train, val\n\
             \n\
             \n\
             if __name__ == \"__main__\":\n\
             \x20   main()\n",
        ),
        (
            "evaluate.py",
            "from argparse import ArgumentParser\n\
             \n\
             from torch.utils.data import DataLoader\n\
             \n\
             from models import LitModel\n\
             \n\
             parser = LitModel.add_eval_args(ArgumentParser())\n\
             args = parser.parse_args()\n\
             test = DataLoader(range(10), num_workers=args.eval_workers)\n",
        ),
    ]);
    let (_, findings) = check_json(dir.path());
    let found: Vec<String> = codes(&findings)
        .into_iter()
        .filter(|c| c.contains(":DL201"))
        .collect();
    assert_eq!(
        found,
        ["train.py:16:DL201", "train.py:17:DL201"],
        "{findings:#?}"
    );
    assert_loaders_text(
        dir.path(),
        &[
            "batch_size = 32: the default of --batch_size (line 11)",
            "num_workers = 16: the default of --num_workers (models.py line 10)",
            "num_workers = 12: the default of --workers (models.py line 24)",
            "num_workers unknown: `args.eval_workers`",
        ],
    );
}

/// A flag's default rewritten in the function that builds the loader: the rewrite counts
/// when its condition is decided under the defaults and the function runs once; a local name
/// bound to the attribute carries the value (and the reason it stays unknown).
#[test]
fn defaults_rewritten_in_the_function_that_builds_the_loader() {
    let dir = project(&[
        (
            "seg.py",
            "import argparse\n\
             import os\n\
             \n\
             import torch\n\
             \n\
             \n\
             def parse_args():\n\
             \x20   parser = argparse.ArgumentParser()\n\
             \x20   parser.add_argument(\"--batch_size\", type=int, default=-1)\n\
             \x20   parser.add_argument(\"--workers\", type=int, default=4)\n\
             \x20   return parser.parse_args()\n\
             \n\
             \n\
             def train(args):\n\
             \x20   if args.batch_size == -1:\n\
             \x20       args.batch_size = 36\n\
             \x20   if torch.cuda.device_count() > 4:\n\
             \x20       args.workers = 24\n\
             \x20   BATCH_SIZE = args.batch_size\n\
             \x20   workers = args.workers\n\
             \x20   a = torch.utils.data.DataLoader(range(9), batch_size=BATCH_SIZE, num_workers=min(32, BATCH_SIZE))\n\
             \x20   b = torch.utils.data.DataLoader(range(9), num_workers=workers)\n\
             \x20   return a, b\n\
             \n\
             \n\
             if __name__ == \"__main__\":\n\
             \x20   train(parse_args())\n",
        ),
        (
            "folds.py",
            "import argparse\n\
             \n\
             import torch\n\
             \n\
             parser = argparse.ArgumentParser()\n\
             parser.add_argument(\"--workers\", type=int, default=4)\n\
             \n\
             \n\
             def run_fold(args):\n\
             \x20   loader = torch.utils.data.DataLoader(range(9), num_workers=args.workers)\n\
             \x20   if args.workers == 4:\n\
             \x20       args.workers = 36\n\
             \x20   return loader\n\
             \n\
             \n\
             if __name__ == \"__main__\":\n\
             \x20   args = parser.parse_args()\n\
             \x20   for fold in range(5):\n\
             \x20       run_fold(args)\n",
        ),
    ]);
    assert_loaders_text(
        dir.path(),
        &[
            "batch_size = 36: the value of args.batch_size (line 16), passed on line 21",
            "num_workers = 32: passed on line 21",
            "num_workers unknown: `workers` is not a value dldoctor can resolve",
            "because written under a condition that does not resolve, line 18 (to `24`)",
            "num_workers unknown: `args.workers` is not a value dldoctor can resolve",
            "because written on line 12, after this read, in `run_fold`, which may run more \
             than once with the same namespace",
        ],
    );
    let (_, items) = check_json(dir.path());
    assert_eq!(codes(&items), ["seg.py:21:DL201"]);
}

/// A sampler chosen by the defaults (`--random_sample` is off) and built from a class of
/// another module named in lower camel case: it is a sampler, so `shuffle=True` conflicts.
#[test]
fn a_sampler_of_another_module_chosen_by_the_defaults() {
    let dir = project(&[
        (
            "dataset.py",
            "\
from torch.utils.data import Sampler

class randomSequentialSampler(Sampler):
    def __init__(self, data_source, batch_size):
        self.num_samples = len(data_source)
        self.batch_size = batch_size

    def __iter__(self):
        return iter(range(self.num_samples))
",
        ),
        (
            "train.py",
            "\
import argparse
import torch
import dataset

parser = argparse.ArgumentParser()
parser.add_argument('--random_sample', action='store_true')
opt = parser.parse_args()
train_set = torch.utils.data.TensorDataset(torch.zeros(10))
if not opt.random_sample:
    sampler = dataset.randomSequentialSampler(train_set, 4)
else:
    sampler = None
loader = torch.utils.data.DataLoader(train_set, batch_size=4, shuffle=True, sampler=sampler)
for batch in loader:
    pass
",
        ),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL306"), vec!["train.py:13:DL306"]);
    // With `--random_sample` on by default the loader has no sampler.
    let on = std::fs::read_to_string(dir.path().join("train.py"))
        .unwrap()
        .replace("action='store_true'", "action='store_true', default=True");
    std::fs::write(dir.path().join("train.py"), on).unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL306").is_empty());
}

/// A helper's default that its callers in other modules all leave out is what runs; a caller
/// that passes its own value, or might (`**options`), leaves it unknown.
#[test]
fn a_default_the_callers_of_other_modules_leave_out() {
    let helper = "\
from torch.utils.data import DataLoader

def evaluate(data, batch_size=32, num_workers=16):
    loader = DataLoader(data, batch_size=batch_size, num_workers=num_workers)
    return [batch for batch in loader]
";
    let dir = project(&[
        ("retrieval/__init__.py", ""),
        ("retrieval/evaluation.py", helper),
        (
            "retrieval/metrics.py",
            "\
from .evaluation import evaluate

class Metric:
    def compute(self, data):
        return evaluate(data, 64)
",
        ),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        vec!["retrieval/evaluation.py:4:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &["num_workers = 16: the default of num_workers in evaluate (line 3)"],
    );

    for caller in [
        "        return evaluate(data, 64, num_workers=4)\n",
        "        return evaluate(data, 64, 4)\n",
        "        return evaluate(data, **self.options)\n",
    ] {
        let metrics = dir.path().join("retrieval/metrics.py");
        let text = std::fs::read_to_string(&metrics).unwrap();
        let (head, _) = text.split_once("        return").unwrap();
        std::fs::write(&metrics, format!("{head}{caller}")).unwrap();
        let (_, items) = check_json(dir.path());
        assert!(codes_of(&items, "DL201").is_empty(), "{caller}");
    }
}

/// A worker count shared among the processes by a helper of another module that answers 1
/// without `torch.distributed` initialised (DETR's and MAE's `utils.get_world_size()`): a
/// plain run keeps the whole count. A helper that reads the launcher's variable stays unknown.
#[test]
fn a_worker_count_shared_by_the_world_size_of_a_plain_run() {
    let utils = "\
import torch.distributed as dist

def is_dist_avail_and_initialized():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True

def get_world_size():
    if not is_dist_avail_and_initialized():
        return 1
    return dist.get_world_size()

def world_size():
    return dist.get_world_size() if dist.is_initialized() else 1
";
    let main = "\
import argparse
import torch
import utils
from utils import world_size

def main(args):
    args.workers = int((args.workers + utils.get_world_size() - 1) / utils.get_world_size())
    data = torch.utils.data.TensorDataset(torch.zeros(10))
    loader = torch.utils.data.DataLoader(data, batch_size=4, num_workers=args.workers)
    other = torch.utils.data.DataLoader(data, batch_size=4, num_workers=32 // world_size())
    for batch in loader:
        pass
    for batch in other:
        pass

if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('-j', '--workers', default=64, type=int)
    main(parser.parse_args())
";
    let dir = project(&[("utils.py", utils), ("main.py", main)]);
    let (_, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        vec!["main.py:10:DL201", "main.py:9:DL201"]
    );
    assert_loaders_text(dir.path(), &["num_workers = 64", "num_workers = 32"]);

    let unguarded = utils.replace("        return 1\n", "        return 2\n");
    std::fs::write(dir.path().join("utils.py"), &unguarded).unwrap();
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["main.py:10:DL201"]);
}

/// A helper whose callers in other modules disagree: one entry script passes its option's
/// default, another a config's value that is not known, a test its own. The entry script's
/// path runs with its value, so the loaders warn, naming that path; the test's value counts
/// for nothing.
#[test]
fn callers_of_other_modules_that_disagree() {
    let data = "\
from torch.utils.data import DataLoader

def prepare_dataloaders(train, val, batch_size=64, num_workers=4):
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True, num_workers=num_workers)
    val_loader = DataLoader(val, batch_size=batch_size, num_workers=num_workers)
    return train_loader, val_loader

def prepare_data(name, batch_size=64, num_workers=4):
    train, val = [name], [name]
    return prepare_dataloaders(train, val, batch_size=batch_size, num_workers=num_workers)
";
    let knn = "\
import argparse
from data import prepare_dataloaders

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_workers', type=int, default=10)
    args = parser.parse_args()
    train_loader, val_loader = prepare_dataloaders([1], [2], num_workers=args.num_workers)
    for batch in train_loader:
        pass

if __name__ == '__main__':
    main()
";
    let linear = "\
from data import prepare_data

def main(cfg):
    train_loader, val_loader = prepare_data('cifar', num_workers=cfg.data.num_workers)
    for batch in train_loader:
        pass
";
    let test = "\
from data import prepare_data

def test_loaders():
    train_loader, _ = prepare_data('cifar', num_workers=32)
    assert len(list(train_loader)) == 1
";
    let dir = project(&[
        ("data.py", data),
        ("main_knn.py", knn),
        ("main_linear.py", linear),
        ("tests/test_data.py", test),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        vec!["data.py:4:DL201", "data.py:5:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &["num_workers = 10: the default of --num_workers"],
    );

    // Without the entry script, the test's 32 and the config's unknown value say nothing.
    std::fs::remove_file(dir.path().join("main_knn.py")).unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty());
}

/// A namespace parsed and returned by a helper of another module (`args = parse_args_knn()`)
/// whose parser a helper of a third module fills (`dataset_args(parser)`): the options of
/// both are read. A filler that sets the default, or hands the parser to code dldoctor cannot
/// read, changes or hides the value.
#[test]
fn a_namespace_returned_by_a_helper_whose_parser_another_module_fills() {
    let knn = "\
from argparse import ArgumentParser

from solo.args.dataset import dataset_args


def parse_args_knn():
    \"\"\"Parses arguments for offline K-NN.\"\"\"
    parser = ArgumentParser(description='k-NN')
    dataset_args(parser)
    parser.add_argument('--num_workers', type=int, default=10)
    args = parser.parse_args()
    return args
";
    let dataset = "\
def dataset_args(parser):
    parser.add_argument('--dataset', type=str, default='cifar10')
";
    let main = "\
import torch
from solo.args.knn import parse_args_knn

args = parse_args_knn()
data = torch.utils.data.TensorDataset(torch.zeros(10))
loader = torch.utils.data.DataLoader(data, batch_size=4, num_workers=args.num_workers)
print(next(iter(loader)))
";
    let dir = project(&[
        ("solo/__init__.py", ""),
        ("solo/args/__init__.py", ""),
        ("solo/args/knn.py", knn),
        ("solo/args/dataset.py", dataset),
        ("main_knn.py", main),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["main_knn.py:6:DL201"]);
    assert_loaders_text(
        dir.path(),
        &["num_workers = 10: the default of --num_workers (knn.py line 10)"],
    );

    for filler in [
        "    parser.set_defaults(num_workers=2)\n",
        "    some_library.add_arguments(parser)\n",
    ] {
        std::fs::write(
            dir.path().join("solo/args/dataset.py"),
            format!("import some_library\n{dataset}{filler}"),
        )
        .unwrap();
        let (_, items) = check_json(dir.path());
        assert!(codes_of(&items, "DL201").is_empty(), "{filler}");
    }
}

/// A helper of one module given a parameter's default by a function of another that the
/// entry script runs (`build(ds, workers=16)` handing `workers` on): that default reaches the
/// loader, named with the call; a caller of `build` that passes its own value hides it.
#[test]
fn a_parameter_default_handed_on_by_a_function_of_another_module() {
    let helper = "\
from torch.utils.data import DataLoader

def make(ds, num_workers=4):
    return DataLoader(ds, num_workers=num_workers)
";
    let entry = "\
from helper import make

def build(ds, workers=16):
    return make(ds, num_workers=workers)

if __name__ == '__main__':
    print(list(build([1])))
";
    let dir = project(&[("helper.py", helper), ("entry.py", entry)]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["helper.py:4:DL201"]);
    assert_loaders_text(
        dir.path(),
        &[
            "num_workers = 16: the default of workers in build (entry.py line 3), through \
           `make(ds, num_workers=workers)` (entry.py line 4)",
        ],
    );
    std::fs::write(
        dir.path().join("entry.py"),
        entry.replace("build([1])", "build([1], workers=2)"),
    )
    .unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty());
}

/// A method's default that a caller of another module leaves out (`trainer.train(ds)` after
/// `trainer = Trainer(...)`, the class imported from the module), while another passes a
/// config's value: that caller's path runs with the default. A class of the same name that
/// another module defines for itself is another class.
#[test]
fn a_method_default_that_a_caller_of_another_module_leaves_out() {
    let trainer = "\
from torch.utils.data import DataLoader

class Trainer:
    def train(self, dataset, num_workers=16):
        loader = DataLoader(dataset, batch_size=8, num_workers=num_workers)
        return [batch for batch in loader]
";
    let finetune = "\
from model.trainer import Trainer

trainer = Trainer()
trainer.train([1, 2, 3])
";
    let hydra = "\
from model.trainer import Trainer

def main(cfg):
    Trainer().train([1, 2, 3], num_workers=cfg.datasets.num_workers)
";
    let other = "\
class Trainer:
    def train(self, dataset, num_workers=0):
        return dataset

Trainer().train([1], num_workers=64)
";
    let dir = project(&[
        ("model/__init__.py", ""),
        ("model/trainer.py", trainer),
        ("finetune.py", finetune),
        ("train.py", hydra),
        ("other.py", other),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["model/trainer.py:5:DL201"]);
    assert_loaders_text(
        dir.path(),
        &[
            "num_workers = 16: the default of num_workers in Trainer.train (line 4), on one \
           caller's path",
        ],
    );
    std::fs::write(
        dir.path().join("finetune.py"),
        finetune.replace("[1, 2, 3])", "[1, 2, 3], num_workers=2)"),
    )
    .unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty());
}

/// A base loader that gathers its arguments in a dict of `self` and unpacks it into
/// DataLoader's `__init__`, and a subclass of another module that forwards its own.
#[test]
fn a_base_loader_that_unpacks_a_dict_of_self() {
    let base = "\
from torch.utils.data import DataLoader

class BaseLoader(DataLoader):
    def __init__(self, dataset, batch_size, shuffle, num_workers, prefetch_factor=2):
        self.shuffle = shuffle
        self.init_kwargs = {
            'dataset': dataset,
            'batch_size': batch_size,
            'shuffle': self.shuffle,
            'num_workers': num_workers,
            'pin_memory': True,
            'prefetch_factor': prefetch_factor,
        }
        super().__init__(**self.init_kwargs)
";
    let loaders = "\
from base.loader import BaseLoader

class VideoLoader(BaseLoader):
    def __init__(self, name, batch_size=1, num_workers=1, shuffle=True):
        dataset = [name]
        super().__init__(dataset, batch_size, shuffle, num_workers)

if __name__ == '__main__':
    loader = VideoLoader('movies', batch_size=16, num_workers=16)
    for batch in loader:
        pass
";
    let dir = project(&[
        ("base/__init__.py", ""),
        ("base/loader.py", base),
        ("data/__init__.py", ""),
        ("data/loaders.py", loaders),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["data/loaders.py:9:DL201"]);

    // The dict changed after it is built: what reaches DataLoader is unknown.
    let changed = base.replace(
        "        super().__init__(**self.init_kwargs)",
        "        self.init_kwargs['num_workers'] = 0\n        super().__init__(**self.init_kwargs)",
    );
    std::fs::write(dir.path().join("base/loader.py"), changed).unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty());
}

/// A helper of one module called by an entry script of another with an option's default of
/// its command line: that default is what reaches the loader, named with the call.
#[test]
fn an_option_default_passed_by_a_caller_of_another_module() {
    let helper = "\
from torch.utils.data import DataLoader

def prepare_loader(dataset, batch_size=64, num_workers=4):
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)
    return loader
";
    let main = "\
import argparse
from data.loaders import prepare_loader

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_workers', type=int, default=10)
    args = parser.parse_args()
    loader = prepare_loader([1, 2, 3], num_workers=args.num_workers)
    for batch in loader:
        pass

if __name__ == '__main__':
    main()
";
    let dir = project(&[
        ("data/__init__.py", ""),
        ("data/loaders.py", helper),
        ("main_knn.py", main),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["data/loaders.py:4:DL201"]);
    assert_loaders_text(
        dir.path(),
        &[
            "num_workers = 10: the default of --num_workers (main_knn.py line 6), through \
           `prepare_loader([1, 2, 3], num_workers=args.num_workers)` (main_knn.py line 8)",
        ],
    );
    // A second caller that passes something else: the entry script's path still runs with
    // 10, and the message says it is one caller's.
    std::fs::write(
        dir.path().join("eval.py"),
        "from data.loaders import prepare_loader\nprepare_loader([1], num_workers=2)\n",
    )
    .unwrap();
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), vec!["data/loaders.py:4:DL201"]);
    assert_loaders_text(dir.path(), &["on one caller's path"]);
    // Without the entry script, no caller gives more than 8.
    std::fs::remove_file(dir.path().join("main_knn.py")).unwrap();
    let (_, items) = check_json(dir.path());
    assert!(codes_of(&items, "DL201").is_empty());
}

/// An asteroid recipe: the YAML file the main block opens becomes options
/// (`prepare_parser_from_dict`) and a dict again (`parse_args_as_dict`), so the loader reads
/// the file's values; with the file's 4 workers nothing is said.
const ASTEROID_RECIPE: &str = "\
import argparse

from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument('--exp_dir', default='exp/tmp')


def main(conf):
    train_loader = DataLoader(
        train_set,
        batch_size=conf['training']['batch_size'],
        num_workers=conf['training']['num_workers'],
    )
    val_loader = DataLoader(val_set, num_workers=conf['training']['num_workers'])
    for batch in train_loader:
        pass
    for batch in val_loader:
        pass


if __name__ == '__main__':
    import yaml
    from asteroid.utils import prepare_parser_from_dict, parse_args_as_dict

    with open('./local/conf.yml') as f:
        def_conf = yaml.safe_load(f)
    parser = prepare_parser_from_dict(def_conf, parser=parser)
    arg_dic, plain_args = parse_args_as_dict(parser, return_plain_args=True)
    main(arg_dic)
";

#[test]
fn an_asteroid_recipe_reads_the_config_its_main_block_opens() {
    let conf = "training:\n  batch_size: 4\n  num_workers: 16\n";
    let dir = project(&[("train.py", ASTEROID_RECIPE), ("local/conf.yml", conf)]);
    let (_, items) = check_json(dir.path());
    assert_eq!(
        codes_of(&items, "DL201"),
        ["train.py:13:DL201", "train.py:15:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: training.num_workers in local/conf.yml line 3, passed on line 13\n",
        ],
    );

    // The dict itself (no pair), read the same way.
    let single = ASTEROID_RECIPE.replace(
        "arg_dic, plain_args = parse_args_as_dict(parser, return_plain_args=True)",
        "arg_dic = parse_args_as_dict(parser)",
    );
    let dir = project(&[("train.py", &single), ("local/conf.yml", conf)]);
    assert_eq!(codes_of(&check_json(dir.path()).1, "DL201").len(), 2);

    // The file's own 4 workers, or a parser not prepared from it, say nothing.
    let dir = project(&[
        ("train.py", ASTEROID_RECIPE),
        (
            "local/conf.yml",
            "training:\n  batch_size: 4\n  num_workers: 4\n",
        ),
    ]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    let unprepared = ASTEROID_RECIPE.replace(
        "    parser = prepare_parser_from_dict(def_conf, parser=parser)\n",
        "",
    );
    let dir = project(&[("train.py", &unprepared), ("local/conf.yml", conf)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    // The pair itself is not the dict.
    let pair = ASTEROID_RECIPE.replace(
        "arg_dic, plain_args = parse_args_as_dict(parser, return_plain_args=True)",
        "arg_dic = parse_args_as_dict(parser, return_plain_args=True)",
    );
    let dir = project(&[("train.py", &pair), ("local/conf.yml", conf)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// A factory of another module handing its `**kwargs` to DataLoader: the caller's option
/// default is the loader's worker count; a caller that passes none leaves DataLoader's 0.
#[test]
fn a_factory_of_another_module_forwards_its_kwargs() {
    let data = "\
from torch.utils.data import DataLoader


def make_loader(dataset, **kwargs):
    return DataLoader(dataset, **kwargs)
";
    let train = "\
import argparse

from data import make_loader

parser = argparse.ArgumentParser()
parser.add_argument('--workers', type=int, default=16)
args = parser.parse_args()
for batch in make_loader(list(range(100)), batch_size=8, num_workers=args.workers):
    pass
";
    let dir = project(&[("data.py", data), ("train.py", train)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["data.py:5:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: the default of --workers (train.py line 6), through `make_loader(list(range(100)), batch_size=8, num_workers=args.workers)` (train.py line 8), passed through a `**` dict, line 5\n",
        ],
    );
    let none = train.replace(", num_workers=args.workers", "");
    let dir = project(&[("data.py", data), ("train.py", &none)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    assert_loaders_text(dir.path(), &["    num_workers = 0: DataLoader's default\n"]);
}

/// `DataLoader(ds, **cfg["dataloader"])` over a YAML mapping: each key is an argument, with
/// the file's line; a key the file writes is not read from the file.
#[test]
fn a_config_mapping_unpacked_into_the_loader() {
    let train = "\
import yaml
from torch.utils.data import DataLoader

with open('configs/train.yaml') as f:
    cfg = yaml.safe_load(f)

train = DataLoader(list(range(100)), **cfg['dataloader'])
val = DataLoader(list(range(100)), **cfg['val_dataloader'])
for batch in train:
    pass
for batch in val:
    pass
";
    let config = "\
dataloader:
  batch_size: 64
  num_workers: 16
  pin_memory: true
  persistent_workers: false
val_dataloader:
  batch_size: 64
  num_workers: 4
";
    let dir = project(&[("train.py", train), ("configs/train.yaml", config)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["train.py:7:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: dataloader.num_workers in configs/train.yaml line 3, passed through a `**` dict, line 7\n",
            "    persistent_workers = False: dataloader.persistent_workers in configs/train.yaml line 5, passed through a `**` dict, line 7\n",
            "    num_workers = 4: val_dataloader.num_workers in configs/train.yaml line 8, passed through a `**` dict, line 8\n",
        ],
    );
    // The script lowers the worker count itself: the file's 16 is not what runs.
    let written = train.replace(
        "train = DataLoader",
        "cfg['dataloader'].num_workers = 2\ntrain = DataLoader",
    );
    let dir = project(&[("train.py", &written), ("configs/train.yaml", config)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    // The same through a subscript, read through a subscript or unpacked, or an `update`.
    for write in [
        "cfg['dataloader']['num_workers'] = 2\n",
        "cfg['dataloader']['num_workers'] += 0\n",
        "cfg['dataloader'].update(num_workers=2)\n",
    ] {
        let written = train
            .replace("train = DataLoader", &format!("{write}train = DataLoader"))
            .replace(
                "val = DataLoader(list(range(100)), **cfg['val_dataloader'])",
                "val = DataLoader(list(range(100)), num_workers=cfg['dataloader']['num_workers'])",
            );
        let dir = project(&[("train.py", &written), ("configs/train.yaml", config)]);
        assert!(
            codes_of(&check_json(dir.path()).1, "DL201").is_empty(),
            "{write}"
        );
    }
    // A comparison is no write.
    let compared = train.replace(
        "train = DataLoader",
        "assert cfg['dataloader']['num_workers'] == 16\ntrain = DataLoader",
    );
    let dir = project(&[("train.py", &compared), ("configs/train.yaml", config)]);
    assert_eq!(codes_of(&check_json(dir.path()).1, "DL201").len(), 1);
}

/// A workspace class run by its own `@hydra.main`, whose config is named after the file
/// (`config_name=pathlib.Path(__file__).stem`) in a folder found from `__file__`; the
/// config is kept by a base class of another module (`super().__init__(cfg)`) and copied
/// before use.
#[test]
fn a_hydra_workspace_named_after_its_file() {
    let base = "\
class BaseWorkspace:
    def __init__(self, cfg, output_dir=None):
        self.cfg = cfg
        self._output_dir = output_dir
";
    let workspace = "\
import copy
import pathlib

import hydra
from torch.utils.data import DataLoader

from workspace.base_workspace import BaseWorkspace


class TrainImageWorkspace(BaseWorkspace):
    def __init__(self, cfg, output_dir=None):
        super().__init__(cfg, output_dir=output_dir)

    def run(self):
        cfg = copy.deepcopy(self.cfg)
        train_dataloader = DataLoader(list(range(100)), **cfg.dataloader)
        for batch in train_dataloader:
            pass


@hydra.main(
    version_base=None,
    config_path=str(pathlib.Path(__file__).parent.parent.joinpath('config')),
    config_name=pathlib.Path(__file__).stem)
def main(cfg):
    workspace = TrainImageWorkspace(cfg)
    workspace.run()


if __name__ == '__main__':
    main()
";
    let config = "dataloader:\n  batch_size: 64\n  num_workers: 16\n  shuffle: true\n";
    let dir = project(&[
        ("workspace/__init__.py", ""),
        ("workspace/base_workspace.py", base),
        ("workspace/train_image_workspace.py", workspace),
        ("config/train_image_workspace.yaml", config),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["workspace/train_image_workspace.py:16:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: dataloader.num_workers in ../config/train_image_workspace.yaml line 3, passed through a `**` dict, line 16\n",
        ],
    );
    // Another file's config (not the one named after this file) says nothing.
    let dir = project(&[
        ("workspace/__init__.py", ""),
        ("workspace/base_workspace.py", base),
        ("workspace/train_image_workspace.py", workspace),
        ("config/other_workspace.yaml", config),
    ]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// `args = parse_args()` of another module written as the diffusers scripts write it: a
/// parameter `input_args=None`, two `parse_args` branches, and a write of another attribute
/// under a condition. The option's default is read; the attribute written is not.
#[test]
fn a_parse_args_of_another_module_with_input_args_and_writes() {
    let args = "\
import argparse
import os


def parse_args(input_args=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_dataloader_workers', type=int, default=16)
    parser.add_argument('--local_rank', type=int, default=-1)
    if input_args is not None:
        args = parser.parse_args(input_args)
    else:
        args = parser.parse_args()
    env_local_rank = int(os.environ.get('LOCAL_RANK', '-1'))
    if env_local_rank != -1 and env_local_rank != args.local_rank:
        args.local_rank = env_local_rank
    return args
";
    let train = "\
from torch.utils.data import DataLoader

from utils.args_loader import parse_args


def main(args):
    loader = DataLoader(list(range(10)), num_workers=args.num_dataloader_workers, timeout=args.local_rank)
    for batch in loader:
        pass


if __name__ == '__main__':
    args = parse_args()
    main(args)
";
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/args_loader.py", args),
        ("train.py", train),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["train.py:7:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: the default of --num_dataloader_workers (args_loader.py line 7), passed on line 7\n",
            "    timeout unknown: `args.local_rank` is not a value dldoctor can resolve without running the code, passed on line 7\n",
        ],
    );
    // The helper lowers the worker count itself, or is given a list to parse: unknown.
    let lowered = args.replace(
        "        args.local_rank = env_local_rank\n",
        "        args.local_rank = env_local_rank\n        args.num_dataloader_workers = 2\n",
    );
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/args_loader.py", &lowered),
        ("train.py", train),
    ]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    let given = train.replace(
        "args = parse_args()",
        "args = parse_args(['--num_dataloader_workers', '2'])",
    );
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/args_loader.py", args),
        ("train.py", &given),
    ]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// A dict of options written in the caller and unpacked into a factory of another module
/// that hands its `**kwargs` to DataLoader: the option's default the dict holds is the
/// loader's worker count.
#[test]
fn a_dict_unpacked_into_a_factory_of_another_module() {
    let data = "\
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, **kwargs):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, **kwargs)
";
    let train = "\
import argparse

from data import make_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--workers', type=int, default=16)
    args = parser.parse_args()
    kwargs = {'num_workers': args.workers, 'pin_memory': True}
    for batch in make_loader(list(range(10)), 4, **kwargs):
        pass


if __name__ == '__main__':
    main()
";
    let dir = project(&[("data.py", data), ("train.py", train)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["data.py:5:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: the default of --workers (train.py line 8), through `make_loader(list(range(10)), 4, **kwargs)` (train.py line 11), passed through a `**` dict, line 5\n",
        ],
    );
    // A dict filled under a condition the analysis cannot decide says nothing.
    let conditional = train.replace(
        "    kwargs = {'num_workers': args.workers, 'pin_memory': True}\n",
        "    kwargs = {}\n    if args.workers > 4:\n        kwargs['num_workers'] = args.workers\n",
    );
    let dir = project(&[("data.py", data), ("train.py", &conditional)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// A Hydra entry point hands its config to a helper of another module, which reads the worker
/// count into a name and passes it on to a loader factory of its own file; the entry point
/// shares the count among the launcher's processes (`cfg.num_workers //= world_size`), which
/// together run all of it. A caller that writes the key, or callers that pass different
/// configs, leave it unknown.
#[test]
fn a_hydra_config_handed_to_a_helper_of_another_module() {
    let train = |extra: &str| {
        format!(
            "\
import os

import hydra
from omegaconf import OmegaConf

from data.loading import setup_data

world_size = int(os.environ['WORLD_SIZE'])


@hydra.main(version_base='1.3.2', config_path='config', config_name='train_config.yaml')
def train(cfg):
    num_gpus = world_size
    cfg.num_workers //= num_gpus
{extra}    for batch in setup_data(cfg):
        pass


if __name__ == '__main__':
    train()
"
        )
    };
    let setup = "\
from torch.utils.data import DataLoader


def setup_data(cfg):
    num_workers = cfg.num_workers
    return construct_loader(list(range(100)), cfg.batch_size, num_workers)


def construct_loader(dataset, batch_size, num_workers):
    loader = DataLoader(dataset, batch_size,
                        num_workers=num_workers, persistent_workers=True)
    return loader
";
    let config = "num_workers: 16\nbatch_size: 8\n";
    let files = |train: &str| {
        project(&[
            ("train.py", train),
            ("data/__init__.py", ""),
            ("data/loading.py", setup),
            ("config/train_config.yaml", config),
            ("config/other.yaml", "num_workers: 4\nbatch_size: 8\n"),
        ])
    };
    let dir = files(&train(""));
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["data/loading.py:11:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: num_workers in ../config/train_config.yaml line 1, passed on line 11\n",
        ],
    );
    // The entry point sets the key itself: the file's value is not what runs.
    let dir = files(&train("    cfg.num_workers = 2\n"));
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
    // Read where it is handed over, the reason is named.
    let dir = project(&[
        ("train.py", &train("    cfg.num_workers = 2\n")),
        ("data/__init__.py", ""),
        (
            "data/loading.py",
            "from torch.utils.data import DataLoader\n\n\ndef setup_data(cfg):\n    \
             return DataLoader(list(range(100)), cfg.batch_size, num_workers=cfg.num_workers)\n",
        ),
        ("config/train_config.yaml", config),
    ]);
    assert_loaders_text(
        dir.path(),
        &[
            "    batch_size = 8: batch_size in ../config/train_config.yaml line 2",
            "`cfg.num_workers`: train.py, which hands the config on, writes num_workers",
        ],
    );
    // Another call passes another config: which one runs is not known.
    let dir = files(&train(
        "    setup_data(OmegaConf.load('config/other.yaml'))\n",
    ));
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// The constructions of a class are looked for only in the files that may import its
/// module: another file that uses a class of the same name from elsewhere (a library's
/// `Data`, handed on) neither hides the script's construction nor costs a parse.
#[test]
fn constructions_are_looked_for_where_the_module_may_be_imported() {
    let loader = "\
from torch.utils.data import DataLoader


class Data:
    def __init__(self, dataset, num_workers):
        self.dataset = dataset
        self.num_workers = num_workers

    def loader(self):
        return DataLoader(self.dataset, batch_size=8, num_workers=max(0, self.num_workers))
";
    let main = "\
import argparse

from data_loader import Data

parser = argparse.ArgumentParser()
parser.add_argument('--num_workers', type=int, default=16)
args = parser.parse_args()
for batch in Data(list(range(100)), args.num_workers).loader():
    pass
";
    // Another example of the repository, with a library's `Data`, handed on rather than called.
    let other = "\
from torch_geometric.data import Data

REGISTRY = {'data': Data}
";
    let dir = project(&[
        ("examples/a/data_loader.py", loader),
        ("examples/a/main.py", main),
        ("examples/b/other.py", other),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["examples/a/data_loader.py:10:DL201"]
    );
}

/// A value written in the call of a loader factory of another module (`make_loader(ds,
/// num_workers=16)`, also a constant of the caller's file) is what the factory's parameter
/// holds; a test's call counts for nothing, and a caller that passes few workers says nothing.
#[test]
fn a_literal_passed_to_a_factory_of_another_module() {
    let data = "\
from torch.utils.data import DataLoader


def make_loader(ds, num_workers, batch_size=8):
    return DataLoader(ds, batch_size=batch_size, num_workers=num_workers)
";
    let train = |workers: &str| {
        format!(
            "\
from utils.data import make_loader

WORKERS = {workers}
for batch in make_loader(list(range(100)), WORKERS, batch_size=4):
    pass
"
        )
    };
    let test = "\
from utils.data import make_loader


def test_loader():
    assert len(make_loader([1, 2], num_workers=32)) == 1
";
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/data.py", data),
        ("train.py", &train("16")),
        ("tests/test_data.py", test),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["utils/data.py:5:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            // The test passes other values: the script's are one caller's.
            "    num_workers = 16: passed for num_workers to make_loader (train.py line 4), on one caller's path",
            "    batch_size = 4: passed for batch_size to make_loader (train.py line 4), on one caller's path",
        ],
    );
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/data.py", data),
        ("train.py", &train("4")),
        ("tests/test_data.py", test),
    ]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

/// A recipe unpacks mappings of the YAML file its main block opens into a factory of the
/// library (`make_dataloaders(**conf["data"], **conf["training"])`, asteroid's kinect-wsj):
/// the factory's parameter holds the file's value. Another module's factory of the same name,
/// called by another recipe with its own config, is not this one's caller.
#[test]
fn a_config_mapping_unpacked_into_a_factory_of_another_module() {
    let factory = "\
from torch.utils import data


def make_dataloaders(train_dir, batch_size=4, num_workers=None, **kwargs):
    num_workers = num_workers if num_workers else batch_size
    train_set = list(range(100))
    train_loader = data.DataLoader(train_set, batch_size=batch_size, num_workers=num_workers)
    return train_loader
";
    let recipe = |module: &str| {
        format!(
            "\
import yaml

from lib.data.{module} import make_dataloaders


def main(conf):
    for batch in make_dataloaders(**conf['data'], **conf['training']):
        pass


if __name__ == '__main__':
    with open('local/conf.yml') as f:
        conf = yaml.safe_load(f)
    main(conf)
"
        )
    };
    let conf = |workers: u32| {
        format!(
            "data:\n  train_dir: data/tr\ntraining:\n  batch_size: 4\n  num_workers: {workers}\n"
        )
    };
    let dir = project(&[
        ("lib/__init__.py", ""),
        ("lib/data/__init__.py", ""),
        ("lib/data/kinect.py", factory),
        ("lib/data/wsj.py", factory),
        ("egs/kinect/train.py", &recipe("kinect")),
        ("egs/kinect/local/conf.yml", &conf(12)),
        ("egs/wsj/train.py", &recipe("wsj")),
        ("egs/wsj/local/conf.yml", &conf(4)),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["lib/data/kinect.py:7:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 12: passed for num_workers to make_dataloaders (train.py line 7), passed on line 7\n",
        ],
    );
}

/// A launcher's entry point (`launch_one_thread(..., opts)`) that no file of the project
/// calls is no caller of `main(args)`: the script that runs it is the caller in another file,
/// here through a namespace the function declares `global` and rebinds in straight-line code.
/// Once a file of the project calls the entry point, its `parse_args(opts)` counts and the
/// count is unknown.
#[test]
fn a_caller_in_a_function_nothing_runs_leaves_the_callers_of_other_files() {
    let main = "\
import argparse

import torch


def get_args_parser():
    parser = argparse.ArgumentParser(\"pretrain\", add_help=False)
    parser.add_argument(\"--batch_size\", default=64, type=int)
    parser.add_argument(\"--num_workers\", default=10, type=int)
    return parser


def main(args):
    dataset = torch.utils.data.TensorDataset(torch.zeros(64, 3))
    return torch.utils.data.DataLoader(
        dataset, batch_size=args.batch_size, num_workers=args.num_workers
    )


def launch_one_thread(local_rank, output_path, opts):
    args = get_args_parser()
    args = args.parse_args(opts)
    args.output_dir = output_path
    return main(args)
";
    let run = "\
from main_pretrain import get_args_parser, main


def invoke_main() -> None:
    global args
    args = get_args_parser()
    args = args.parse_args()
    main(args)


if __name__ == \"__main__\":
    invoke_main()
";
    let dir = project(&[("main_pretrain.py", main), ("run_pretrain.py", run)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["main_pretrain.py:16:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 10: the default of --num_workers (main_pretrain.py line 9), through `main(args)` (run_pretrain.py line 8)",
        ],
    );
    let submit = "\
from main_pretrain import launch_one_thread

launch_one_thread(0, \"out\", [\"--num_workers\", \"4\"])
";
    let dir = project(&[
        ("main_pretrain.py", main),
        ("run_pretrain.py", run),
        ("submit.py", submit),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        [] as [&str; 0]
    );
}

/// `from dataset import Frames` in `common/base.py`, which scripts of `main/` import after
/// putting `common` on `sys.path`, reads `main/dataset.py`: the one module of that name the
/// project holds outside a package. With a second `dataset.py` in another script folder, which
/// one a run imports depends on `sys.path`, and the class stays unknown.
#[test]
fn a_module_of_a_script_folder_is_found_from_a_folder_beside_it() {
    let dataset = "\
import torch
from torch.utils.data import Dataset


class Frames(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.zeros(3).cuda()
";
    let base = "\
from torch.utils.data import DataLoader
from dataset import Frames


class Trainer:
    def make_batch_generator(self):
        self.batch_generator = DataLoader(Frames(), batch_size=2, num_workers=2)
";
    let train = "\
import sys

sys.path.insert(0, \"../common\")
from base import Trainer

if __name__ == \"__main__\":
    Trainer().make_batch_generator()
";
    let files = [
        ("main/dataset.py", dataset),
        ("main/train.py", train),
        ("common/base.py", base),
    ];
    let dir = project(&files);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL101"),
        ["common/base.py:7:DL101"]
    );
    let mut files = files.to_vec();
    files.push(("demo/dataset.py", dataset));
    let dir = project(&files);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL101"),
        [] as [&str; 0]
    );
}

/// `from config import cfg` of a plain class's instance (`class Config: num_thread = 30`),
/// read by a module that the entry script imports: the class attribute is what runs unless a
/// file of the project that names the config's module assigns it.
#[test]
fn a_config_class_instance_of_another_module() {
    let config = "\
import os.path as osp
import sys


class Config:
    train_batch_size = 16
    num_thread = 30
    gpu_ids = \"0\"

    def set_args(self, gpu_ids):
        self.gpu_ids = gpu_ids


cfg = Config()
sys.path.insert(0, osp.join(osp.dirname(__file__), \"..\", \"common\"))
";
    let base = "\
from torch.utils.data import DataLoader
from config import cfg


class Trainer:
    def make_batch_generator(self, dataset):
        self.batch_generator = DataLoader(
            dataset, batch_size=cfg.train_batch_size, shuffle=True, num_workers=cfg.num_thread
        )
";
    let train = |extra: &str| {
        format!(
            "\
from config import cfg
from base import Trainer

if __name__ == \"__main__\":
    cfg.set_args(\"0\"){extra}
    Trainer().make_batch_generator(list(range(100)))
"
        )
    };
    let dir = project(&[
        ("main/config.py", config),
        ("main/train.py", &train("")),
        ("common/base.py", base),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["common/base.py:8:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 30: the default of Config.num_thread (../main/config.py line 7), passed on line 8",
        ],
    );
    let dir = project(&[
        ("main/config.py", config),
        ("main/train.py", &train("\n    cfg.num_thread = 4")),
        ("common/base.py", base),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        [] as [&str; 0]
    );
}

/// Tacotron-style `hparams.py`: `hparams = HParams(num_workers=16, ...)` of a class that keeps
/// its keywords and answers them through `__getattr__`, imported by the training scripts. A
/// setter of another key (`set_hparam("syncnet_wt", ...)`) leaves the count; one of the count,
/// in any file that imports the module, makes it unknown.
#[test]
fn a_keyword_bag_of_hyperparameters_in_another_module() {
    let hparams = "\
class HParams:
    def __init__(self, **kwargs):
        self.data = {}
        for key, value in kwargs.items():
            self.data[key] = value

    def __getattr__(self, key):
        if key not in self.data:
            raise AttributeError(\"'HParams' object has no attribute %s\" % key)
        return self.data[key]

    def set_hparam(self, key, value):
        self.data[key] = value


hparams = HParams(
    num_mels=80,  # mel bands
    batch_size=16,
    num_workers=16,
    syncnet_wt=0.0,
)
";
    let train = "\
from torch.utils import data as data_utils
from hparams import hparams


def train(dataset):
    loader = data_utils.DataLoader(
        dataset, batch_size=hparams.batch_size, shuffle=True, num_workers=hparams.num_workers
    )
    for step, batch in enumerate(loader):
        if step == 1000:
            hparams.set_hparam(\"syncnet_wt\", 0.01)


if __name__ == \"__main__\":
    train(list(range(100)))
";
    let dir = project(&[("hparams.py", hparams), ("train.py", train)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["train.py:7:DL201"]
    );
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers = 16: the default of hparams.num_workers (hparams.py line 19), passed on line 7",
        ],
    );
    let tuned = train.replace("\"syncnet_wt\", 0.01", "\"num_workers\", 4");
    let dir = project(&[("hparams.py", hparams), ("train.py", &tuned)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        [] as [&str; 0]
    );
    // A module the script imports reads the count; another file of the project sets it.
    let data = "\
from torch.utils import data as data_utils
from hparams import hparams


def make_loader(dataset):
    return data_utils.DataLoader(dataset, num_workers=hparams.num_workers)
";
    let tune = "\
from hparams import hparams

hparams.set_hparam(\"num_workers\", 2)
";
    let dir = project(&[("hparams.py", hparams), ("data.py", data)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["data.py:6:DL201"]
    );
    let dir = project(&[
        ("hparams.py", hparams),
        ("data.py", data),
        ("tune.py", tune),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        [] as [&str; 0]
    );
    // The standard library's bag, in a module that defines no class.
    let namespace = "\
from types import SimpleNamespace

hparams = SimpleNamespace(batch_size=16, num_workers=16)
";
    let dir = project(&[("hparams.py", namespace), ("train.py", train)]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["train.py:7:DL201"]
    );
}

/// MoCo's layout: `TwoCropsTransform` in `moco/loader.py`, the training script's dataset
/// built with it. Each sample is two crops, so 32 workers of 256-image batches need about
/// 18.4 GiB of `/dev/shm`, more than 16 GiB: a warning; one crop (9.2 GiB) would be a hint.
#[test]
fn two_crops_of_a_transform_wrapper_in_another_module_double_the_sample() {
    let loader = "\
class TwoCropsTransform:
    def __init__(self, base_transform):
        self.base_transform = base_transform

    def __call__(self, x):
        q = self.base_transform(x)
        k = self.base_transform(x)
        return [q, k]
";
    let main = |wrap: &str| {
        format!(
            "\
import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms

import moco.loader

augmentation = [transforms.RandomResizedCrop(224), transforms.ToTensor()]
train_dataset = datasets.ImageFolder(\"/data/train\", {wrap})
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=256, shuffle=True, num_workers=32, pin_memory=True, drop_last=True
)
for images, _ in train_loader:
    pass
"
        )
    };
    let severity = |wrap: &str| {
        let dir = project(&[
            ("moco/__init__.py", ""),
            ("moco/loader.py", loader),
            ("main_moco.py", &main(wrap)),
        ]);
        let (_, items) = check_json(dir.path());
        items
            .iter()
            .filter(|f| f["code"] == "DL202")
            .map(|f| f["severity"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        severity("moco.loader.TwoCropsTransform(transforms.Compose(augmentation))"),
        ["warning"]
    );
    assert_eq!(severity("transforms.Compose(augmentation)"), ["hint"]);
}

/// V-JEPA's layout: an evaluation's `main(args_eval)` that only an `importlib` dispatch runs
/// calls `make_dataloader(...)` without `num_workers`, whose default of 12 goes through
/// `init_data` of another module to the loader's factory in a third. The entry point runs,
/// so its calls do; with the default at 8 nothing fires.
#[test]
fn a_default_handed_through_a_chain_of_factories_from_an_entry_point_run_by_import() {
    let run = |workers: &str| {
        let eval = format!(
            "\
from src.datasets.manager import init_data


def main(args_eval, resume_preempt=False):
    loader = make_dataloader(root_path=args_eval['path'], batch_size=4)
    for batch in loader:
        pass


def make_dataloader(root_path, batch_size, dataset_type='VideoDataset', num_workers={workers}):
    return init_data(data=dataset_type, root_path=root_path, batch_size=batch_size,
                     num_workers=num_workers)
"
        );
        let dir = project(&[
            (
                "src/datasets/video.py",
                "\
import torch


def make_videodataset(data_paths, batch_size, num_workers=8):
    dataset = torch.utils.data.TensorDataset(torch.zeros(4))
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)
",
            ),
            (
                "src/datasets/manager.py",
                "\
def init_data(batch_size, data='ImageNet', num_workers=8, root_path=None):
    from src.datasets.video import make_videodataset
    return make_videodataset(data_paths=root_path, batch_size=batch_size,
                             num_workers=num_workers)
",
            ),
            ("evals/video/eval.py", &eval),
            (
                "evals/scaffold.py",
                "\
import importlib


def main(eval_name, args_eval):
    return importlib.import_module(f'evals.{eval_name}.eval').main(args_eval=args_eval)
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("12"), ["src/datasets/video.py:6:DL201"]);
    assert!(run("8").is_empty());
}

/// MolCLR's layout: the wrapper class is imported from one of several modules by a branch
/// on the config (`if config['aug'] == 'node': from dataset.dataset import Wrapper`); the
/// call after the branches builds each on its path, with the YAML file's `num_workers: 12`.
#[test]
fn a_class_imported_from_one_module_per_branch_is_built_by_the_call_after_them() {
    let wrapper = "\
from torch_geometric.data import DataLoader


class MoleculeDatasetWrapper(object):
    def __init__(self, batch_size, num_workers, data_path):
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.data_path = data_path

    def get_data_loaders(self, ds):
        return DataLoader(ds, batch_size=self.batch_size, num_workers=self.num_workers)
";
    let run = |workers: &str| {
        let dir = project(&[
            ("dataset/__init__.py", ""),
            ("dataset/dataset.py", wrapper),
            ("dataset/dataset_mix.py", wrapper),
            (
                "config.yaml",
                &format!(
                    "batch_size: 32\naug: node\ndataset:\n  num_workers: {workers}\n  data_path: data/x.csv\n"
                ),
            ),
            (
                "molclr.py",
                "\
import yaml


def main():
    config = yaml.load(open(\"config.yaml\", \"r\"), Loader=yaml.FullLoader)
    if config['aug'] == 'node':
        from dataset.dataset import MoleculeDatasetWrapper
    elif config['aug'] == 'mix':
        from dataset.dataset_mix import MoleculeDatasetWrapper
    else:
        raise ValueError('Not defined molecule augmentation!')
    dataset = MoleculeDatasetWrapper(config['batch_size'], **config['dataset'])
    return dataset


if __name__ == \"__main__\":
    main()
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("12"),
        [
            "dataset/dataset.py:11:DL201",
            "dataset/dataset_mix.py:11:DL201"
        ]
    );
    assert!(run("4").is_empty());
}

/// fastMRI's layout: a static method of the data module adds `--num_workers` (default 4) to
/// the script's parser, and the script's `set_defaults(num_workers=20)` after it overrides
/// it, as argparse does; the data module's loader gets 20 through its constructor. A call
/// of the static method is not a construction of the class. A `set_defaults` before the
/// method adds the option leaves the option's own default.
#[test]
fn set_defaults_after_a_static_method_adds_the_option_overrides_its_default() {
    let module = "\
import argparse

import pytorch_lightning as pl
import torch


class DataModule(pl.LightningDataModule):
    def __init__(self, batch_size=1, num_workers=4):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        return torch.utils.data.DataLoader(torch.zeros(3), batch_size=self.batch_size,
                                           num_workers=self.num_workers)

    @staticmethod
    def add_data_specific_args(parent_parser):
        parser = argparse.ArgumentParser(parents=[parent_parser], add_help=False)
        parser.add_argument(\"--batch_size\", default=1, type=int)
        parser.add_argument(\"--num_workers\", default=4, type=int)
        return parser
";
    let run = |build: &str| {
        let script = format!(
            "\
from argparse import ArgumentParser

from data.module import DataModule


def cli_main(args):
    return DataModule(batch_size=args.batch_size, num_workers=args.num_workers)


def build_args():
    parser = ArgumentParser()
    parser.add_argument(\"--mode\", default=\"train\")
{build}
    return parser.parse_args()


if __name__ == \"__main__\":
    cli_main(build_args())
"
        );
        let dir = project(&[
            ("data/__init__.py", ""),
            ("data/module.py", module),
            ("train.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let after = "    parser = DataModule.add_data_specific_args(parser)\n    parser.set_defaults(num_workers=20)";
    let before = "    parser.set_defaults(num_workers=20)\n    parser = DataModule.add_data_specific_args(parser)";
    assert_eq!(run(after), ["data/module.py:15:DL201"]);
    assert!(run(before).is_empty());
}

/// A file named by itself inside a project (a folder with `pyproject.toml`, `setup.py`,
/// `setup.cfg` or `.git`) is read as `check .` from the project's folder reads it: the
/// callers in other folders count. Without a marker, its folder alone bounds the search.
#[test]
fn a_file_named_inside_a_project_sees_the_callers_in_other_folders() {
    let files = [
        (
            "src/data/factory.py",
            "\
import torch


def make_loader(dataset, num_workers=4):
    return torch.utils.data.DataLoader(dataset, num_workers=num_workers)
",
        ),
        (
            "scripts/train.py",
            "\
import torch
from src.data.factory import make_loader

if __name__ == \"__main__\":
    make_loader(torch.utils.data.TensorDataset(torch.zeros(4)), num_workers=16)
",
        ),
    ];
    let workers = |dir: &Path| {
        let out = dldoctor(dir, &["loaders", "src/data/factory.py"]);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("num_workers"))
            .unwrap_or_default()
            .trim()
            .to_owned();
        assert!(text.starts_with("src/data/factory.py:5:12:"), "{text}");
        line
    };
    let dir = project(&[
        files[0],
        files[1],
        ("pyproject.toml", "[project]\nname = \"p\"\n"),
    ]);
    assert!(
        workers(dir.path()).starts_with("num_workers = 16: passed for num_workers to make_loader"),
        "{}",
        workers(dir.path())
    );
    let dir = project(&files);
    assert!(workers(dir.path()).starts_with("num_workers unknown"));
}

/// fastMRI's model options: the script's parser goes through a static method of a module
/// that hands it on to a static method of a third file (`parser =
/// MriModule.add_model_specific_args(parser)`), each returning a copy with `parents=`. The
/// chain is followed, so the script's own `set_defaults(num_workers=20)` holds; a filler that
/// hands the parser to code no file shows leaves it unknown.
#[test]
fn a_chain_of_parser_fillers_across_three_files() {
    let run = |inner: &str| {
        let dir = project(&[
            ("setup.py", ""),
            ("lib/__init__.py", ""),
            ("lib/mods/__init__.py", ""),
            (
                "lib/mods/base.py",
                "\
from argparse import ArgumentParser


class Base:
    @staticmethod
    def add_model_specific_args(parent_parser):
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
        parser.add_argument(\"--num_log_images\", default=16, type=int)
        return parser
",
            ),
            ("ex/pm/__init__.py", ""),
            (
                "ex/pm/model.py",
                &format!(
                    "\
from argparse import ArgumentParser

from lib.mods.base import Base
from somewhere_else import add_more


class Model(Base):
    @staticmethod
    def add_model_specific_args(parent_parser):
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
        parser = {inner}(parser)
        parser.add_argument(\"--lr\", default=0.1, type=float)
        return parser
"
                ),
            ),
            (
                "ex/train.py",
                "\
from argparse import ArgumentParser

import torch
from pm.model import Model


def build_args():
    parser = ArgumentParser()
    parser.add_argument(\"--num_workers\", default=4, type=int)
    parser = Model.add_model_specific_args(parser)
    parser.set_defaults(num_workers=20)
    args = parser.parse_args()
    return torch.utils.data.DataLoader(None, num_workers=args.num_workers)


if __name__ == \"__main__\":
    build_args()
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("Base.add_model_specific_args"),
        ["ex/train.py:13:DL201"]
    );
    assert!(run("add_more").is_empty());
}

/// AlphaPose's layout: `alphapose/opt.py` parses the command line at import (`opt =
/// parser.parse_args()`) and the training script reads `from alphapose.opt import opt`. The
/// option's default holds unless the defining module or a file that imports it assigns the
/// attribute (a file that only names `torch.optim` does not count).
#[test]
fn a_namespace_another_module_parses_at_import() {
    let run = |opt_tail: &str, other: &str| {
        let dir = project(&[
            ("setup.py", ""),
            ("alphapose/__init__.py", ""),
            (
                "alphapose/opt.py",
                &format!(
                    "\
import argparse

parser = argparse.ArgumentParser(description='Training')
parser.add_argument('--nThreads', default=60, type=int)
parser.add_argument('--snapshot', default=2, type=int)
opt = parser.parse_args()
opt.world_size = 1
{opt_tail}"
                ),
            ),
            ("alphapose/utils.py", other),
            (
                "scripts/train.py",
                "\
import torch
from alphapose.opt import opt


def main():
    opt.epoch = 0
    loader = torch.utils.data.DataLoader(torch.zeros(4), num_workers=opt.nThreads)
    for batch in loader:
        pass


if __name__ == \"__main__\":
    main()
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let unrelated = "import torch.optim as optim\n\n\ndef f(m):\n    setattr(m, 'x', 1)\n";
    assert_eq!(run("", unrelated), ["scripts/train.py:7:DL201"]);
    assert!(run("opt.nThreads = 4\n", unrelated).is_empty());
    assert!(run("", "from alphapose.opt import opt\n\nopt.nThreads = 2\n").is_empty());
}

/// TSN/TRN's layout: `opts.py` builds the parser at the top of the module and the training
/// script parses it (`from opts import parser`, `args = parser.parse_args()` under a
/// `global`), adding an option of its own first.
#[test]
fn a_parser_another_module_builds_at_import() {
    let run = |workers: &str| {
        let dir = project(&[
            (
                "opts.py",
                &format!(
                    "\
import argparse
parser = argparse.ArgumentParser(description=\"TSN\")
parser.add_argument('dataset', type=str, choices=['something', 'jester'])
parser.add_argument('-j', '--workers', default={workers}, type=int)
"
                ),
            ),
            (
                "main.py",
                "\
import torch
from opts import parser

best_prec1 = 0


def main():
    global args, best_prec1
    parser.add_argument('--extra', default=1, type=int)
    args = parser.parse_args()
    loader = torch.utils.data.DataLoader(torch.zeros(4), batch_size=args.extra,
                                         num_workers=args.workers)
    for batch in loader:
        pass


if __name__ == '__main__':
    main()
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("30"), ["main.py:12:DL201"]);
    assert!(run("8").is_empty());
}

/// AdaBins' layout: the entry script copies an option under another name on the namespace
/// (`args.num_threads = args.workers`) before `mp.spawn` hands it to `main_worker`, which
/// passes it on to a loader class of another module; `main_worker` later rewrites
/// `args.workers`, which cannot reach the copy made before it runs.
#[test]
fn attributes_written_before_the_namespace_is_handed_to_another_module() {
    let run = |before: &str, after: &str, worker: &str| {
        let tune = if before.is_empty() {
            ""
        } else {
            "def tune(args):\n    args.workers = 1\n\n\n"
        };
        let dir = project(&[
            (
                "dataloader.py",
                "\
from torch.utils.data import DataLoader


class DepthDataLoader(object):
    def __init__(self, args, mode):
        if mode == 'train':
            self.data = DataLoader(args.ds, args.batch_size, num_workers=args.num_threads)
",
            ),
            (
                "train.py",
                &format!(
                    "\
import argparse
import torch.multiprocessing as mp
from dataloader import DepthDataLoader


{tune}def main_worker(gpu, ngpus_per_node, args):
{worker}    loader = DepthDataLoader(args, 'train').data
    for batch in loader:
        pass


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--workers', default=11, type=int)
    parser.add_argument('--bs', default=16, type=int)
    args = parser.parse_args()
{before}    args.batch_size = args.bs
    args.num_threads = args.workers
    mp.spawn(main_worker, nprocs=2, args=(2, args))
{after}"
                ),
            ),
        ]);
        let dl201 = codes_of(&check_json(dir.path()).1, "DL201");
        (dl201, dir)
    };
    let rescale = "    args.workers = int((args.workers + ngpus_per_node - 1) / ngpus_per_node)\n";
    let (found, dir) = run("", "", rescale);
    assert_eq!(found, ["dataloader.py:7:DL201"]);
    assert_loaders_text(
        dir.path(),
        &[
            "num_workers = 11: the default of --workers (train.py line 15), through \
           `DepthDataLoader(args, 'train')` (train.py line 8), passed on line 7",
        ],
    );
    // A write after the hand-over may reach a loader built later: unknown.
    assert!(run("", "    args.num_threads = 2\n", "").0.is_empty());
    // The worker's own write before the hand-over is what the loader reads.
    assert!(run("", "", "    args.num_threads = 4\n").0.is_empty());
    // A function that rewrites `args.workers` and runs before the copy: unknown.
    assert!(run("    tune(args)\n", "", "").0.is_empty());
}

/// 2D-TAN's layout, twice in one repository: each project's `moment_localization/train.py`
/// puts its own `../lib` on `sys.path` (`import _init_paths`), reads an EasyDict config of
/// `lib/core/config.py`, and merges the YAML file `--cfg` names into it
/// (`update_config(args.cfg)`, which assigns `config[k] = v`). The shipped experiment files
/// decide: every one keeping or giving the same value gives it; any that disagrees, or
/// inherits another file, leaves it unknown. A command-line override without a default does
/// not run.
#[test]
fn easydict_configs_merged_from_a_file_the_project_ships() {
    let config = |workers: u32| {
        format!(
            "\
import yaml
from easydict import EasyDict as edict

config = edict()
config.WORKERS = {workers}
config.DATASET = edict()
config.DATASET.NAME = 'charades'


def update_config(config_file):
    with open(config_file) as f:
        exp_config = edict(yaml.load(f, Loader=yaml.FullLoader))
        for k, v in exp_config.items():
            if k in config:
                config[k] = v
            else:
                raise ValueError(k)
"
        )
    };
    let train = |default: &str| {
        format!(
            "\
import _init_paths
import argparse
from torch.utils.data import DataLoader
from core.config import config, update_config


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg', required=True, type=str)
    args, rest = parser.parse_known_args()
    update_config(args.cfg)
    parser.add_argument('--workers', type=int{default})
    return parser.parse_args()


def reset_config(config, args):
    if args.workers:
        config.WORKERS = args.workers


if __name__ == '__main__':
    args = parse_args()
    reset_config(config, args)
    loader = DataLoader(range(10), batch_size=4, num_workers=config.WORKERS)
    for batch in loader:
        pass
"
        )
    };
    let init = "import os.path as osp\nimport sys\nsys.path.insert(0, osp.join(osp.dirname(__file__), '..', 'lib'))\n";
    let run = |experiments: &[(&str, &str)], default: &str| {
        let config16 = config(16);
        let config2 = config(2);
        let train = train(default);
        let mut files: Vec<(String, String)> = vec![
            ("tan/lib/core/config.py".into(), config16),
            ("tan/moment_localization/_init_paths.py".into(), init.into()),
            ("tan/moment_localization/train.py".into(), train.clone()),
            // A sibling project of the same repository with a config of its own.
            ("ms-tan/lib/core/config.py".into(), config2),
            (
                "ms-tan/moment_localization/_init_paths.py".into(),
                init.into(),
            ),
            ("ms-tan/moment_localization/train.py".into(), train),
        ];
        for (name, text) in experiments {
            files.push((format!("tan/experiments/{name}"), (*text).to_owned()));
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dir = project(&files);
        let found = codes_of(&check_json(dir.path()).1, "DL201");
        (found, dir)
    };
    let keeps = "DATASET:\n  NAME: tacos\n";
    let gives = "WORKERS: 16\nDATASET:\n  NAME: charades\n";
    let (found, dir) = run(&[("a.yaml", keeps), ("b.yaml", gives)], "");
    assert_eq!(found, ["tan/moment_localization/train.py:24:DL201"]);
    assert_loaders_text(
        dir.path(),
        &[
            "num_workers = 16: the default of config.WORKERS (../lib/core/config.py line 5), as \
           every one of the 2 config files of the project that `update_config(args.cfg)` may \
           load gives it, passed on line 24",
        ],
    );
    // A file of another config (a key `config` does not have) is not one of them.
    let other = "model:\n  name: x\nWORKERS: 4\n";
    assert_eq!(
        run(&[("a.yaml", keeps), ("other.yaml", other)], "").0,
        ["tan/moment_localization/train.py:24:DL201"]
    );
    // Files that disagree, a file that inherits another, no file: unknown.
    assert!(
        run(&[("a.yaml", keeps), ("b.yaml", "WORKERS: 4\n")], "")
            .0
            .is_empty()
    );
    assert!(
        run(&[("a.yaml", keeps), ("c.yaml", "_BASE_: a.yaml\n")], "")
            .0
            .is_empty()
    );
    assert!(run(&[], "").0.is_empty());
    // `--workers` with a default does override the config.
    assert!(run(&[("a.yaml", keeps)], ", default=4").0.is_empty());
}

/// A yacs config merged from the file `--config-file` names, which has no default: the
/// training files the project ships decide, as for `update_config` above.
#[test]
fn yacs_configs_merged_from_a_file_the_project_ships() {
    let run = |shipped: &[(&str, &str)]| {
        let mut files = vec![
            (
                "config/defaults.py",
                "\
from yacs.config import CfgNode as CN

_C = CN()
_C.DATALOADER = CN()
_C.DATALOADER.NUM_WORKERS = 12
_C.SOLVER = CN()
_C.SOLVER.LR = 0.1
",
            ),
            (
                "tools/train.py",
                "\
import argparse
import torch
from config.defaults import _C as cfg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--config-file', required=True)
    parser.add_argument('opts', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cfg.merge_from_file(args.config_file)
    cfg.merge_from_list(args.opts)
    loader = torch.utils.data.DataLoader(range(8), num_workers=cfg.DATALOADER.NUM_WORKERS)
    for batch in loader:
        pass


if __name__ == '__main__':
    main()
",
            ),
        ];
        files.extend_from_slice(shipped);
        codes_of(&check_json(project(&files).path()).1, "DL201")
    };
    let keeps = "SOLVER:\n  LR: 0.01\n";
    assert_eq!(
        run(&[("configs/a.yaml", keeps), ("configs/b.yml", keeps)]),
        ["tools/train.py:13:DL201"]
    );
    assert!(
        run(&[
            ("configs/a.yaml", keeps),
            ("configs/b.yaml", "DATALOADER:\n  NUM_WORKERS: 4\n")
        ])
        .is_empty()
    );
    assert!(run(&[]).is_empty());
}

/// CenterNet's layout (also FairMOT's and MOC-Detector's): `opts.py` holds a class whose
/// `parse(self, args='')` parses the command line (or, given `''`, no option at all) and
/// whose `update_dataset_info_and_set_heads(self, opt, dataset)` writes a few attributes
/// and returns the namespace it is given; the training script rebinds `opt` to that.
#[test]
fn a_namespace_handed_back_by_a_method_of_another_module() {
    let run = |update: &str| {
        let dir = project(&[
            (
                "src/lib/opts.py",
                &format!(
                    "\
import argparse


class opts(object):
    def __init__(self):
        self.parser = argparse.ArgumentParser()
        self.parser.add_argument('--num_workers', type=int, default=16)
        self.parser.add_argument('--gpus', default='0')

    def parse(self, args=''):
        if args == '':
            opt = self.parser.parse_args()
        else:
            opt = self.parser.parse_args(args)
        opt.gpus = [int(gpu) for gpu in opt.gpus.split(',')]
        return opt

    def update_dataset_info_and_set_heads(self, opt, dataset):
        opt.num_classes = dataset.num_classes
{update}        return opt
"
                ),
            ),
            (
                "src/main.py",
                "\
import torch
from lib.opts import opts


def main(opt):
    Dataset = torch.utils.data.TensorDataset
    opt = opts().update_dataset_info_and_set_heads(opt, Dataset)
    loader = torch.utils.data.DataLoader(range(8), num_workers=opt.num_workers)
    for batch in loader:
        pass


if __name__ == '__main__':
    opt = opts().parse()
    main(opt)
",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run(""), ["src/main.py:8:DL201"]);
    assert!(run("        opt.num_workers = 4\n").is_empty());
}

/// once-for-all's `eval_ofa_net.py`: `--workers` (default 20) handed to `RunConfig(n_worker=...)`
/// of `pkg/run_config.py`, after `before`, and `loader` iterated; `imports` come first.
fn run_config_script(imports: &str, before: &str, loader: &str) -> String {
    format!(
        "\
import argparse
{imports}from pkg.run_config import RunConfig

if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--workers', type=int, default=20)
    args = parser.parse_args()
{before}    config = RunConfig(n_worker=args.workers)
    for batch in {loader}:
        pass
"
    )
}

/// once-for-all's layout: a run config picks the provider class by a local name in a
/// branch (`DataProviderClass = ImagenetDataProvider`) and builds it through that name from
/// an attribute its constructor keeps; another script sets a class attribute of the provider
/// (`ImagenetDataProvider.DEFAULT_PATH = ...`), which builds nothing.
#[test]
fn a_class_built_through_a_local_alias_in_another_module() {
    let run = |other_use: &str| {
        let dir = project(&[
            (
                "pkg/provider.py",
                "\
import torch


class ImagenetDataProvider:
    DEFAULT_PATH = '/data'

    def __init__(self, batch_size=256, n_worker=32):
        self.train = torch.utils.data.DataLoader(range(10), batch_size=batch_size, num_workers=n_worker)
",
            ),
            (
                "pkg/run_config.py",
                "\
from pkg.provider import ImagenetDataProvider


class RunConfig:
    def __init__(self, name='imagenet', n_worker=32):
        self.name = name
        self.n_worker = n_worker

    @property
    def data_provider(self):
        if self.name == 'imagenet':
            DataProviderClass = ImagenetDataProvider
        else:
            raise NotImplementedError
        return DataProviderClass(batch_size=64, n_worker=self.n_worker)
",
            ),
            (
                "eval_net.py",
                &run_config_script(
                    "from pkg.provider import ImagenetDataProvider\n",
                    &format!("    ImagenetDataProvider.DEFAULT_PATH = '/imagenet'\n{other_use}"),
                    "config.data_provider.train",
                ),
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run(""), ["pkg/provider.py:8:DL201"]);
    // The class handed on as a value may be built with anything.
    assert!(run("    factory = dict(imagenet=ImagenetDataProvider)\n").is_empty());
}

/// once-for-all's run configs: the class that keeps `n_worker` has a subclass in its file
/// whose constructor hands its own `n_worker` on through `super(Sub, self).__init__(...)`; the
/// base's constructions elsewhere still say what runs on their paths. A subclass that sets
/// the attribute itself may hold another value.
#[test]
fn a_kept_parameter_of_a_class_with_a_subclass_in_its_file() {
    let run = |subclass_body: &str| {
        let dir = project(&[
            (
                "pkg/run_config.py",
                &format!(
                    "\
import torch


class RunConfig:
    def __init__(self, name='imagenet', n_worker=32, **kwargs):
        self.name = name
        self.n_worker = n_worker

    @property
    def train_loader(self):
        return torch.utils.data.DataLoader(range(10), num_workers=self.n_worker)


class DistributedRunConfig(RunConfig):
    def __init__(self, name='imagenet', n_worker=8, **kwargs):
        super(DistributedRunConfig, self).__init__(name, n_worker, **kwargs)
{subclass_body}"
                ),
            ),
            (
                "eval_net.py",
                &run_config_script("", "", "config.train_loader"),
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("        self.rank = kwargs['rank']\n"),
        ["pkg/run_config.py:11:DL201"]
    );
    assert!(run("        self.n_worker = 4\n").is_empty());
}

/// A script that star-imports a helper module of the project and uses a module that helper
/// imports (`from data_utils.utils import *`, then `argparse.ArgumentParser()`, where
/// `utils.py` does `import argparse`): in the script itself, or, as IDvs.MoRec does, in
/// `parameters.py`, which the script imports `parse_args` from.
#[test]
fn a_module_a_star_import_of_the_project_hands_on() {
    let parse = concat!(
        "    parser = argparse.ArgumentParser()\n",
        "    parser.add_argument('--num_workers', type=int, default=12)\n",
        "    args = parser.parse_args()\n",
    );
    let run = |utils: &str, in_helper: bool| {
        let (import, main) = match in_helper {
            true => (
                "from parameters import parse_args\n",
                "    args = parse_args()\n",
            ),
            false => ("", parse),
        };
        let parameters = format!(
            "from data_utils.utils import *\n\n\ndef parse_args():\n{parse}    return args\n"
        );
        let script = format!(
            "\
{import}from data_utils.utils import *
from torch.utils.data import DataLoader


def train(args):
    loader = DataLoader(range(3), num_workers=args.num_workers)
    for batch in loader:
        pass


if __name__ == '__main__':
{main}    train(args)
"
        );
        let dir = project(&[
            ("data_utils/__init__.py", ""),
            ("data_utils/utils.py", utils),
            ("parameters.py", &parameters),
            ("run.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let imports = "import os\nimport argparse\n";
    assert_eq!(run(imports, false), ["run.py:6:DL201"]);
    assert_eq!(run(imports, true), ["run.py:7:DL201"]);
    // A helper that defines its own `argparse` hands on that one.
    assert!(run("class argparse:\n    ArgumentParser = dict\n", false).is_empty());
}

/// IDvs.MoRec's layout: the evaluation helpers live in `data_utils/metrics.py` and the training
/// script imports them from the package, which re-exports them (`from .metrics import ...`);
/// the caller passes the module-level `args` of the `__main__` block.
#[test]
fn callers_reach_a_helper_through_a_package_that_re_exports_it() {
    let run = |import: &str| {
        let dir = project(&[
            (
                "parameters.py",
                "\
import argparse


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_workers', type=int, default=12)
    return parser.parse_args()
",
            ),
            (
                "data_utils/__init__.py",
                "from .metrics import eval_model\n",
            ),
            (
                "data_utils/metrics.py",
                "\
from torch.utils.data import DataLoader


def eval_model(dataset, args):
    for batch in DataLoader(dataset, num_workers=args.num_workers):
        pass
",
            ),
            (
                "run.py",
                &format!(
                    "\
from parameters import parse_args
{import}


def run_eval(dataset):
    eval_model(dataset, args)


if __name__ == '__main__':
    args = parse_args()
    run_eval(range(8))
"
                ),
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let found = ["data_utils/metrics.py:5:DL201"];
    assert_eq!(run("from data_utils import eval_model"), found);
    assert_eq!(run("from data_utils.metrics import eval_model"), found);
    // Another package's function of the same name is not a caller.
    assert!(run("from other import eval_model").is_empty());
}

/// ctm's layout: `load_data(*, args, ..., num_workers=32)`; the training script passes
/// `num_workers=4`, and two older scripts call it without the required `args=`, which Python
/// rejects with `TypeError` before the loader is built.
#[test]
fn a_call_that_leaves_out_a_required_argument_gives_nothing() {
    let run_with = |signature: &str, old_call: &str| {
        let dir = project(&[
            (
                "cm/image_datasets.py",
                &format!(
                    "\
from torch.utils.data import DataLoader


def load_data({signature}):
    loader = DataLoader(range(8), batch_size=batch_size, num_workers=num_workers)
    while True:
        yield from loader
"
                ),
            ),
            (
                "cm_train.py",
                "\
from cm.image_datasets import load_data


def main():
    data = load_data(args=None, data_dir='data', batch_size=8, num_workers=4)
    next(data)


if __name__ == '__main__':
    main()
",
            ),
            (
                "scripts/edm_train.py",
                &format!(
                    "\
from cm.image_datasets import load_data


def main():
    data = {old_call}
    next(data)


if __name__ == '__main__':
    main()
"
                ),
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["cm/image_datasets.py:5:DL201"];
    let keyword_only = "*, args, data_dir, batch_size, num_workers=32";
    // Positional parameters: the first two are required.
    let positional = "args, data_dir, batch_size=8, num_workers=32";
    let cases: [(&str, &str, &[&str]); 7] = [
        (
            keyword_only,
            "load_data(data_dir='data', batch_size=8)",
            &[],
        ),
        (
            keyword_only,
            "load_data(args=None, data_dir='data', batch_size=8, num_workers=4)",
            &[],
        ),
        // With every required argument given, the default of 32 is one caller's path.
        (
            keyword_only,
            "load_data(args=None, data_dir='data', batch_size=8)",
            &fired,
        ),
        (positional, "load_data(None)", &[]),
        (positional, "load_data(None, batch_size=8)", &[]),
        (positional, "load_data(None, 'data')", &fired),
        (positional, "load_data(data_dir='data', args=None)", &fired),
    ];
    for (signature, call, expected) in cases {
        assert_eq!(run_with(signature, call), expected, "{signature}: {call}");
    }
}

/// FLAVR's `config.py`: a module-level parser filled through argument groups, and `get_args()`
/// returning `parser.parse_known_args()`'s pair after a `setattr` of a named attribute; the
/// test script unpacks it (`args, unparsed = config.get_args()`).
#[test]
fn a_namespace_returned_first_in_a_tuple_by_another_module() {
    let run = |config_tail: &str, unpack: &str| {
        let config = format!(
            "\
import argparse

parser = argparse.ArgumentParser()


def add_argument_group(name):
    return parser.add_argument_group(name)


misc_arg = add_argument_group('Misc')
misc_arg.add_argument('--num_workers', type=int, default=16)


def get_args():
    args, unparsed = parser.parse_known_args()
    setattr(args, 'cuda', True)
{config_tail}"
        );
        let test = format!(
            "\
import config
from torch.utils.data import DataLoader

{unpack} = config.get_args()
for batch in DataLoader(range(8), num_workers=args.num_workers):
    pass
"
        );
        let dir = project(&[("config.py", &config), ("test.py", &test)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["test.py:5:DL201"];
    let pair = "    return args, unparsed\n";
    assert_eq!(run(pair, "args, unparsed"), fired);
    // The tuple itself is not the namespace, nor is its second item.
    assert!(run(pair, "args").is_empty());
    assert!(run(pair, "unparsed, args").is_empty());
    assert_eq!(run("    return args\n", "args"), fired);
    // A named attribute set by `setattr` is the function's write, not the option's default.
    let rewritten = "    setattr(args, 'num_workers', 4)\n    return args, unparsed\n";
    assert!(run(rewritten, "args, unparsed").is_empty());
}

/// ST-GCN's layout (CTR-GCN, 2s-AGCN): the options are added in `get_parser()`, and the
/// script unpacks the YAML file `--config` names into the parser's defaults; the configs the
/// project ships are what a run uses when that file is missing or named only at run time.
#[test]
fn a_yaml_file_unpacked_into_the_parser_defaults() {
    let run = |default: &str, files: &[(&str, &str)]| {
        let main = format!(
            "\
import argparse

import torch
import yaml


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument('--config', default={default})
    parser.add_argument('--num-worker', type=int, default=32)
    parser.add_argument('--batch-size', type=int, default=16)
    return parser


def start(arg):
    loader = torch.utils.data.DataLoader(range(8), num_workers=arg.num_worker)
    for batch in loader:
        pass


if __name__ == '__main__':
    parser = get_parser()
    p = parser.parse_args()
    if p.config is not None:
        with open(p.config, 'r') as f:
            default_arg = yaml.load(f)
        parser.set_defaults(**default_arg)
    arg = parser.parse_args()
    start(arg)
"
        );
        let mut all = vec![("main.py", main.as_str())];
        all.extend_from_slice(files);
        let dir = project(&all);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["main.py:16:DL201"];
    let missing = "'./config/train/missing.yaml'";
    let shipped = ("config/train/default.yaml", "batch_size: 64\n");
    let sets = ("config/test/default.yaml", "num_worker: 4\nbatch_size: 8\n");
    // The file the default names is missing: no shipped config sets the count.
    assert_eq!(run(missing, &[shipped]), fired);
    // One shipped config sets it: the configs do not agree on it.
    assert!(run(missing, &[shipped, sets]).is_empty());
    // The file the default names sets it.
    assert!(run("'./config/test/default.yaml'", &[shipped, sets]).is_empty());
    assert_eq!(
        run("'./config/train/default.yaml'", &[shipped, sets]),
        fired
    );
    // No file by default: the parser's own defaults.
    assert_eq!(run("None", &[sets]), fired);
    // No config file fits the parser: unknown.
    assert!(run(missing, &[("config/other.yaml", "model: resnet\n")]).is_empty());
}

/// A `set_defaults` in the script, after the call of the function that adds the options,
/// overrides their defaults.
#[test]
fn set_defaults_after_the_function_that_adds_the_options() {
    let run = |workers: u32| {
        let main = format!(
            "\
import argparse

import torch


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num-worker', type=int, default=32)
    return parser


if __name__ == '__main__':
    parser = get_parser()
    parser.set_defaults(num_worker={workers})
    arg = parser.parse_args()
    for batch in torch.utils.data.DataLoader(range(8), num_workers=arg.num_worker):
        pass
"
        );
        let dir = project(&[("main.py", &main)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert!(run(4).is_empty());
    assert_eq!(run(16), ["main.py:16:DL201"]);
}

/// HRNet's and BBN's layout: the yacs config and `update_config(cfg, args)`, which merges
/// `args.cfg` into it, live in `lib/config`; the script in `tools/` names the YAML file with
/// `--cfg` (a default, or required and then every shipped experiment file must agree).
#[test]
fn a_config_merged_by_a_function_of_another_module() {
    let run = |cfg_option: &str, merger_tail: &str, experiments: &[(&str, &str)]| {
        let config = format!(
            "\
from yacs.config import CfgNode as CN

_C = CN()
_C.WORKERS = 4
_C.OUTPUT_DIR = ''


def update_config(cfg, args):
    cfg.defrost()
    cfg.merge_from_file(args.cfg)
    cfg.merge_from_list(args.opts)
    if args.modelDir:
        cfg.OUTPUT_DIR = args.modelDir
{merger_tail}    cfg.freeze()
"
        );
        let train = format!(
            "\
import argparse

import torch

from config import cfg, update_config


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg', type=str, {cfg_option})
    parser.add_argument('--modelDir', type=str, default='')
    parser.add_argument('opts', default=None, nargs=argparse.REMAINDER)
    return parser.parse_args()


if __name__ == '__main__':
    args = parse_args()
    update_config(cfg, args)
    for batch in torch.utils.data.DataLoader(range(8), num_workers=cfg.WORKERS):
        pass
"
        );
        let mut files = vec![
            ("setup.py", ""),
            (
                "lib/config/__init__.py",
                "from .default import _C as cfg\nfrom .default import update_config\n",
            ),
            ("lib/config/default.py", config.as_str()),
            ("tools/train.py", train.as_str()),
        ];
        files.extend_from_slice(experiments);
        let dir = project(&files);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["tools/train.py:19:DL201"];
    let w32 = ("experiments/w32.yaml", "WORKERS: 24\n");
    let w48 = ("experiments/w48.yaml", "WORKERS: 24\nOUTPUT_DIR: out\n");
    let small = ("experiments/small.yaml", "WORKERS: 2\n");
    let required = "required=True";
    // Every shipped experiment file gives 24 workers.
    assert_eq!(run(required, "", &[w32, w48]), fired);
    // They disagree.
    assert!(run(required, "", &[w32, small]).is_empty());
    // The file the default names.
    assert_eq!(
        run("default='experiments/w32.yaml'", "", &[w32, small]),
        fired
    );
    assert!(run("default='experiments/small.yaml'", "", &[w32, small]).is_empty());
    // The merger writes the key, or does something else as well.
    assert!(run(required, "    cfg.WORKERS = 2\n", &[w32, w48]).is_empty());
    assert!(run(required, "    print(cfg)\n", &[w32, w48]).is_empty());
}

/// A config class per dataset subclassing a base of defaults in another module (the KPConv
/// layout): the subclass's class attribute wins, the base's is taken where the subclass does
/// not set it, and the base's reload of a saved run (`setattr(self, name, ...)` in `load`)
/// changes nothing unless it is called where it may run.
#[test]
fn config_subclass_of_a_base_in_another_module() {
    let run = |own: &str, reload: &str| {
        let base = "\
import json


class Config:
    input_threads = 12

    def load(self, path):
        with open(path) as f:
            saved = json.load(f)
        for name in saved:
            setattr(self, name, saved[name])
";
        let train = format!(
            "\
import torch

from utils.config import Config


class CloudConfig(Config):
    dataset = 'clouds'
{own}

if __name__ == '__main__':
    previous_training_path = ''
    config = CloudConfig()
{reload}    data = torch.utils.data.TensorDataset(torch.zeros(8, 3))
    for batch in torch.utils.data.DataLoader(data, num_workers=config.input_threads):
        pass
"
        );
        let dir = project(&[("utils/config.py", base), ("train.py", &train)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["train.py:16:DL201"];
    let in_branch = "    if previous_training_path:\n        config.load(previous_training_path)\n";
    // The base's value, and the subclass's own.
    assert_eq!(run("", in_branch), fired);
    assert_eq!(run("    input_threads = 10", in_branch), fired);
    // The subclass sets fewer; the reload runs.
    assert!(run("    input_threads = 4", in_branch).is_empty());
    assert!(run("", "    config.load('results/last')\n").is_empty());
}

/// `self.num_workers` set once in `__init__` is that value, unless another file of the project
/// that names the class may set it on an instance: D-FINE's `YAMLConfig(BaseConfig)` copies a
/// YAML file's keys into `self.__dict__`, so the base's `0` is not what runs.
#[test]
fn instance_attribute_written_in_another_module() {
    let base = "\
import torch


class BaseConfig(object):
    def __init__(self):
        self.num_workers = 0
        self.val_dataset = None

    @property
    def val_dataloader(self):
        return torch.utils.data.DataLoader(
            self.val_dataset, num_workers=self.num_workers, persistent_workers=True
        )
";
    let run = |other: &str| {
        let dir = project(&[("core/config.py", base), ("core/yaml_config.py", other)]);
        codes_of(&check_json(dir.path()).1, "DL302")
    };
    let fired = ["core/config.py:12:DL302"];
    let subclass = "\
from .config import BaseConfig


class YAMLConfig(BaseConfig):
    def __init__(self, cfg):
        super().__init__()
        for k in cfg:
            self.__dict__[k] = cfg[k]
";
    assert!(run(subclass).is_empty());
    assert!(
        run(&format!(
            "{subclass}\n\ncfg = YAMLConfig({{}})\ncfg.num_workers = 2\n"
        ))
        .is_empty()
    );
    // A file that only reads the namespace's mapping, or defines a class of the same name.
    assert_eq!(
        run("from .config import BaseConfig\n\nprint(BaseConfig().__dict__.items())\n"),
        fired
    );
    assert_eq!(
        run(
            "from .config import torch\n\n\nclass BaseConfig:\n    def __init__(self, n):\n        \
             self.num_workers = n\n"
        ),
        fired
    );
}

/// A function of another module returning the parsed command line keeps its options' defaults
/// when it takes parameters with defaults that are not what it parses
/// (`get_args(description='MILNCE')`); one that parses a parameter's default
/// (`parse_args(argv)` with `argv=['--workers', '2']`) gives what that list sets instead.
#[test]
fn namespace_of_a_function_with_parameters() {
    let run = |signature: &str, parse: &str| {
        let opts = format!(
            "\
import argparse


def get_args({signature}):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--num_thread_reader', type=int, default=20)
    args = parser.{parse}
    return args
"
        );
        let train = "\
import torch

from opts import get_args


def main():
    args = get_args()
    for batch in torch.utils.data.DataLoader(range(8), num_workers=args.num_thread_reader):
        pass


if __name__ == '__main__':
    main()
";
        let dir = project(&[("opts.py", &opts), ("train.py", train)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["train.py:8:DL201"];
    assert_eq!(run("description='MILNCE'", "parse_args()"), fired);
    assert_eq!(
        run("description='MILNCE', *, argv=None", "parse_args(argv)"),
        fired
    );
    assert!(
        run(
            "description='MILNCE', argv=['--num_thread_reader', '2']",
            "parse_args(argv)"
        )
        .is_empty()
    );
    assert!(run("description", "parse_args()").is_empty());
}

/// A namespace given the entries of every section of the YAML file `--config` names (the
/// layout of PointGroup's and semseg's `util/config.py`: `for key in config: for k, v in
/// config[key].items(): setattr(args_cfg, k, v)`), parsed at import and read by a dataset
/// class of another module: the file's value is what runs, unless the attribute is written
/// after or the copy runs only under a condition.
#[test]
fn namespace_given_a_flattened_yaml_file() {
    let run = |copy: &str, after: &str| {
        let config = format!(
            "\
import argparse

import yaml


def get_parser():
    parser = argparse.ArgumentParser(description='Point Cloud Segmentation')
    parser.add_argument('--config', type=str, default='config/default_scannet.yaml')
    args_cfg = parser.parse_args()
    with open(args_cfg.config, 'r') as f:
        config = yaml.safe_load(f)
{copy}{after}    return args_cfg


cfg = get_parser()
setattr(cfg, 'exp_path', 'exp/' + cfg.dataset)
"
        );
        let dataset = "\
from torch.utils.data import DataLoader

from util.config import cfg


class Dataset:
    def __init__(self):
        self.batch_size = cfg.batch_size
        self.train_workers = cfg.train_workers

    def trainLoader(self):
        self.train_data_loader = DataLoader(
            list(range(8)), batch_size=self.batch_size, num_workers=self.train_workers
        )
";
        let yaml = "\
GENERAL:
  task: train
DATA:
  dataset: scannetv2
  batch_size: 4
TRAIN:
  train_workers: 16
";
        let dir = project(&[
            ("util/config.py", &config),
            ("data/scannet.py", dataset),
            ("config/default_scannet.yaml", yaml),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let copy = "    for key in config:\n        for k, v in config[key].items():\n            \
                setattr(args_cfg, k, v)\n";
    let fired = ["data/scannet.py:13:DL201"];
    assert_eq!(run(copy, ""), fired);
    // Written after the copy; copied only under a condition; the loop does more.
    assert!(run(copy, "    args_cfg.train_workers = 2\n").is_empty());
    let gated = copy.replace("    for key", "    if args_cfg.config:\n     for key");
    assert!(run(&gated, "").is_empty());
    let more = copy.replace(
        "setattr(args_cfg, k, v)\n",
        "setattr(args_cfg, k, v)\n            print(k)\n",
    );
    assert!(run(&more, "").is_empty());
}

/// A YAML config loaded in the entry scripts, handed to a LightningModule of another file
/// (`NuWave(hparams)`), kept by `self.save_hyperparameters(hparams)` and handed on as
/// `self.hparams` to a loader helper of a third file; the helper's file sets an instance's
/// `self.num_workers`, which is no write of the config.
#[test]
fn a_config_handed_to_a_lightning_module_of_another_file() {
    let run = |save: &str, test_script: &str| {
        let model = format!(
            "\
import pytorch_lightning as pl
import dataloader


class NuWave(pl.LightningModule):
    def __init__(self, hparams, train=True):
        super().__init__()
        {save}

    def train_dataloader(self):
        return dataloader.create_loader(self.hparams, 0)
"
        );
        let loader = "\
from torch.utils.data import DataLoader


class BackLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.num_workers = kwargs.get('num_workers', 1)


def create_loader(hparams, cv):
    return BackLoader(list(range(8)), batch_size=4, num_workers=hparams.train.num_workers)
";
        let trainer = "\
from omegaconf import OmegaConf as OC
from lightning_model import NuWave


def train():
    hparams = OC.load('hparameter.yaml')
    hparams.name = hparams.log.name + '_run'
    return NuWave(hparams)


if __name__ == '__main__':
    train()
";
        let yaml = "train:\n  num_workers: 64\nlog:\n  name: x\n";
        let dir = project(&[
            ("lightning_model.py", &model),
            ("dataloader.py", loader),
            ("trainer.py", trainer),
            ("test.py", test_script),
            ("hparameter.yaml", yaml),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let test = "\
from omegaconf import OmegaConf as OC
from lightning_model import NuWave

hparams = OC.load('hparameter.yaml')
model = NuWave(hparams, False)
";
    let fired = ["dataloader.py:11:DL201"];
    assert_eq!(run("self.save_hyperparameters(hparams)", test), fired);
    // Kept the old way, as an attribute.
    assert_eq!(run("self.hparams = hparams", test), fired);
    // Another caller passes another config, writes the key, or the module keeps only
    // some of its arguments.
    let other = test.replace("NuWave(hparams, False)", "NuWave(OC.load('other.yaml'))");
    assert!(run("self.save_hyperparameters(hparams)", &other).is_empty());
    let written = test.replace("model =", "hparams.train.num_workers = 2\nmodel =");
    assert!(run("self.save_hyperparameters(hparams)", &written).is_empty());
    assert!(run("self.save_hyperparameters('train')", test).is_empty());
}

/// A module of dict configs imported by an entry script, as a module alias or by name, and
/// unpacked into loaders or read key by key.
#[test]
fn dict_configs_of_another_module() {
    let run = |config: &str, train_tail: &str| {
        let train = format!(
            "\
from torch.utils.data import DataLoader
import cfgs.cfgs_a as cfgs
from cfgs.cfgs_a import loader_cfg


def load(ds):
    ds = cfgs.dataset_cfgs['dataset_train'](ds)
    a = DataLoader(ds, **cfgs.dataset_cfgs['dataloader_train'])
    b = DataLoader(ds, num_workers=loader_cfg['workers'])
    return a, b
{train_tail}"
        );
        let dir = project(&[
            ("train.py", &train),
            ("cfgs/__init__.py", ""),
            ("cfgs/cfgs_a.py", config),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let config = "\
dataset_cfgs = {
    'dataset_train': list,
    'dataloader_train': {'batch_size': 384, 'shuffle': True, 'num_workers': 32},
}
loader_cfg = dict(workers=16)
";
    assert_eq!(run(config, ""), ["train.py:8:DL201", "train.py:9:DL201"]);
    // The entry script or the config's module changes them.
    assert!(
        run(
            config,
            "\ncfgs.dataset_cfgs['dataloader_train']['num_workers'] = 2\nloader_cfg['workers'] = 2\n"
        )
        .is_empty()
    );
    let mutated = format!("{config}dataset_cfgs.update(base)\nloader_cfg.update(base)\n");
    assert!(run(&mutated, "").is_empty());
    // Handed to code that may change them.
    assert!(
        run(
            config,
            "\nadjust(cfgs.dataset_cfgs['dataloader_train'])\nadjust(loader_cfg)\n"
        )
        .is_empty()
    );
    // Read, printed and compared only.
    assert_eq!(
        run(
            config,
            "\nprint(cfgs.dataset_cfgs)\nif 'workers' in loader_cfg:\n    print(loader_cfg.get('workers'))\n"
        ),
        ["train.py:8:DL201", "train.py:9:DL201"]
    );
}

/// A dataset class that builds its loaders in `__init__`, with subclasses that take its
/// constructor or hand it all their arguments: their constructions in other files are its.
#[test]
fn subclass_constructions_in_another_file_reach_the_base() {
    let run = |train: &str| {
        let datasets = "\
from torch.utils.data import DataLoader


class FMOW:
    def __init__(self, preprocess, batch_size=128, num_workers=16):
        self.loader = DataLoader(preprocess, batch_size=batch_size, num_workers=num_workers)


class FMOWID(FMOW):
    def __init__(self, *args, **kwargs):
        self.test_subset = 'id_test'
        super().__init__(*args, **kwargs)


class FMOWOOD(FMOW):
    pass
";
        let dir = project(&[("datasets.py", datasets), ("train.py", train)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let train = "\
from datasets import FMOWID, FMOWOOD

def main(p):
    return FMOWID(p, batch_size=64), FMOWOOD(p)
";
    assert_eq!(run(train), ["datasets.py:6:DL201"]);
    // Each construction passes its own count, by keyword or by position.
    let own = train
        .replace("FMOWOOD(p)", "FMOWOOD(p, num_workers=4)")
        .replace("FMOWID(p, batch_size=64)", "FMOWID(p, 64, 4)");
    assert!(run(&own).is_empty());
}

/// Functions Python Fire runs from another file (`Fire({'train': src.train.train})`) get
/// their defaults, the required parameters from the command line; a loader helper they call
/// sees those defaults.
#[test]
fn functions_fire_runs_from_another_file() {
    let run = |main: &str| {
        let data = "\
from torch.utils.data import DataLoader


def compile_data(ds, bsz, nworkers):
    return DataLoader(ds, batch_size=bsz, num_workers=nworkers)
";
        let train = "\
from .data import compile_data


def train(version, bsz=4, nworkers=10):
    loader = compile_data(version, bsz=bsz, nworkers=nworkers)
    for batch in loader:
        print(batch)
";
        let dir = project(&[
            ("src/__init__.py", "from . import train\n"),
            ("src/data.py", data),
            ("src/train.py", train),
            ("main.py", main),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let main = "\
from fire import Fire

import src

if __name__ == '__main__':
    Fire({'train': src.train.train})
";
    assert_eq!(run(main), ["src/data.py:5:DL201"]);
    let direct = main.replace("Fire({'train': src.train.train})", "Fire(src.train.train)");
    assert_eq!(run(&direct), ["src/data.py:5:DL201"]);
    // Called in code, without the required argument (TypeError), or handed to something else.
    let called = main.replace("Fire({'train': src.train.train})", "src.train.train()");
    assert!(run(&called).is_empty());
    let other = main.replace("Fire({", "register({");
    assert!(run(&other).is_empty());
}

/// A LightningDataModule base in one file keeps its constructor's `num_workers`; a subclass
/// in another file hands its own on through `super().__init__(...)` and is built by the
/// entry script from an option's default: the base's loaders and the subclass's see it.
#[test]
fn a_base_module_built_through_a_subclass_of_another_file() {
    let run = |sub_init: &str, main_call: &str| {
        let base = "\
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class DInterface(pl.LightningDataModule):
    def __init__(self, batch_size, num_workers):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        return DataLoader(self.trainset, batch_size=self.batch_size, num_workers=self.num_workers)
";
        let sub = format!(
            "\
from torch.utils.data import DataLoader

from .data_interface import DInterface


class KeraSingle(DInterface):
    def __init__(self, batch_size, num_workers, img_size):
        {sub_init}
        self.img_size = img_size

    def test_dataloader(self):
        return DataLoader(self.testset, batch_size=self.batch_size, num_workers=self.num_workers)
"
        );
        let main = format!(
            "\
import argparse

from data.kera_single import KeraSingle


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch_size', type=int, default=32)
    parser.add_argument('--num_workers', type=int, default=16)
    return parser.parse_args()


def main(args):
    data = {main_call}
    return data


if __name__ == '__main__':
    main(get_args())
"
        );
        let dir = project(&[
            ("data/__init__.py", ""),
            ("data/data_interface.py", base),
            ("data/kera_single.py", &sub),
            ("main.py", &main),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let init = "super().__init__(batch_size, num_workers)";
    let call = "KeraSingle(args.batch_size, args.num_workers, 224)";
    assert_eq!(
        run(init, call),
        [
            "data/data_interface.py:12:DL201",
            "data/kera_single.py:12:DL201"
        ]
    );
    // By keyword, through the base's name.
    assert_eq!(
        run(
            "DInterface.__init__(self, batch_size, num_workers=num_workers)",
            "KeraSingle(num_workers=args.num_workers, batch_size=8, img_size=224)"
        ),
        [
            "data/data_interface.py:12:DL201",
            "data/kera_single.py:12:DL201"
        ]
    );
    // The subclass fixes the count, or the entry script passes another.
    assert!(run("super().__init__(batch_size, 4)", call).is_empty());
    assert!(run(init, "KeraSingle(args.batch_size, 2, 224)").is_empty());
}

/// A data module Hydra's `instantiate` builds from the configs that name it (`_target_:`),
/// each composed with its own `defaults:`, whatever else the code constructs it with.
#[test]
fn a_data_module_hydra_instantiates_from_its_configs() {
    let run = |workers: &str, vctk: &str, script: &str| {
        let module = "\
from lightning import LightningDataModule
from torch.utils.data import DataLoader


class TextMelDataModule(LightningDataModule):
    def __init__(self, name, batch_size, num_workers, pin_memory):
        super().__init__()
        self.save_hyperparameters(logger=False)

    def train_dataloader(self):
        return DataLoader(self.trainset, batch_size=self.hparams.batch_size, num_workers=self.hparams.num_workers)
";
        let ljspeech = format!(
            "_target_: matcha.data.text_mel_datamodule.TextMelDataModule\nname: ljspeech\n\
             batch_size: 32\nnum_workers: {workers}\npin_memory: True\n"
        );
        let train = format!(
            "\
import hydra


@hydra.main(version_base='1.3', config_path='configs', config_name='train.yaml')
def main(cfg):
    datamodule = hydra.utils.instantiate(cfg.data)
    return datamodule
{script}"
        );
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = 'matcha'\n"),
            ("matcha/__init__.py", ""),
            ("matcha/data/__init__.py", ""),
            ("matcha/data/text_mel_datamodule.py", module),
            (
                "configs/train.yaml",
                "defaults:\n  - _self_\n  - data: ljspeech\n",
            ),
            ("configs/data/ljspeech.yaml", &ljspeech),
            ("configs/data/vctk.yaml", vctk),
            ("train.py", &train),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let vctk = "defaults:\n  - ljspeech\n  - _self_\n\nname: vctk\nbatch_size: 16\n";
    let fired = ["matcha/data/text_mel_datamodule.py:11:DL201"];
    assert_eq!(run("20", vctk, ""), fired);
    // One config gives fewer: the default config's path still runs 20.
    assert_eq!(run("20", &format!("{vctk}num_workers: 4\n"), ""), fired);
    // The count is an interpolation of the whole config.
    assert!(run("${workers}", vctk, "").is_empty());
    // The code builds the module too, with fewer workers, or from a config it composes
    // itself (a statistics script): the runs Hydra instantiates still get 20.
    let built = "\nfrom matcha.data.text_mel_datamodule import TextMelDataModule\n\
                 dm = TextMelDataModule('x', 8, 2, False)\n";
    assert_eq!(run("20", vctk, built), fired);
    let composed = "\nfrom hydra import compose\n\
                    from matcha.data.text_mel_datamodule import TextMelDataModule\n\
                    def stats(name):\n    cfg = compose(config_name=name)\n    \
                    return TextMelDataModule(**cfg)\n";
    assert_eq!(run("20", vctk, composed), fired);
    assert!(run("4", vctk, composed).is_empty());
    assert!(run("4", vctk, built).is_empty());
}

/// A config helper of another module that loads the YAML file its parameter names (the
/// entry script hands it `--config`'s default), bare or wrapped for attribute access, reached
/// through a module attribute or a star import; keys it writes stay unknown.
#[test]
fn a_yaml_loading_helper_of_another_module() {
    let run = |helper_tail: &str, import: &str, call: &str| {
        let helper = format!(
            "\
import yaml
from easydict import EasyDict as edict


def read_yaml(path):
    with open(path, 'r') as file:
        config = yaml.safe_load(file)
{helper_tail}"
        );
        let train = format!(
            "\
import argparse
from torch.utils.data import DataLoader
{import}


def train(config):
    loader = DataLoader(None, batch_size=4, num_workers=config.train.num_workers)
    for batch in loader:
        pass


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--config', type=str, default='./configs/pcn.yaml')
    args = parser.parse_args()
    config = {call}(args.config)
    train(config)
"
        );
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = 'pcn'\n"),
            ("utils/__init__.py", ""),
            ("utils/yaml_reader.py", &helper),
            (
                "configs/pcn.yaml",
                "train:\n  num_workers: 16\ntest:\n  num_workers: 4\n",
            ),
            ("train.py", &train),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["train.py:7:DL201"];
    let wrapped = "    return edict(config)\n";
    let attribute = ("from utils import yaml_reader", "yaml_reader.read_yaml");
    let star = ("from utils.yaml_reader import *", "read_yaml");
    assert_eq!(run(wrapped, attribute.0, attribute.1), fired);
    assert_eq!(run("    return config\n", star.0, star.1), fired);
    // The helper writes the count, or returns something else than the document.
    let writes = "    config['train']['num_workers'] = 2\n    return edict(config)\n";
    assert!(run(writes, attribute.0, attribute.1).is_empty());
    assert!(run("    return path\n", attribute.0, attribute.1).is_empty());
}

/// A base data module's defaults crash (`prefetch_factor=2` with no workers); a subclass in
/// another module takes a parameter of its own and hands the rest on, `super().__init__(*args,
/// **kwargs)`: its constructions pass the base what they give beyond that parameter.
#[test]
fn a_subclass_hands_its_extra_arguments_to_the_base() {
    let run = |script: Option<&str>| {
        let base = "\
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class BaseDataModule(pl.LightningDataModule):
    def __init__(self, batch_size: int = 1, num_workers: int = 0, prefetch_factor: int = 2):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.batch_size, num_workers=self.num_workers, prefetch_factor=self.prefetch_factor)
";
        let sub = "\
from pkg import BaseDataModule


class SubDataModule(BaseDataModule):
    def __init__(self, root: str = '.data', *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.root = root
";
        let mut files = vec![
            ("pyproject.toml", "[project]\nname = 'pkg'\n"),
            ("pkg/__init__.py", "from .base import BaseDataModule\n"),
            ("pkg/base.py", base),
            ("pkg/sub.py", sub),
        ];
        let script = script.map(|s| format!("from pkg.sub import SubDataModule\n\ndm = {s}\n"));
        if let Some(script) = &script {
            files.push(("train.py", script));
        }
        let dir = project(&files);
        codes_of(&check_json(dir.path()).1, "DL301")
    };
    let fired = ["pkg/base.py:13:DL301"];
    // Built nowhere, or with the batch size alone (by position, after the subclass's root).
    assert_eq!(run(None), fired);
    assert_eq!(run(Some("SubDataModule('r', 4)")), fired);
    // Workers through `**kwargs`, or by position through `*args`.
    assert!(run(Some("SubDataModule('r', num_workers=2)")).is_empty());
    assert!(run(Some("SubDataModule('r', 4, 2)")).is_empty());
}

/// The Autoformer layout: a base `Exp_Basic` of another file keeps `self.args` and its
/// constructor writes one attribute of it; a subclass hands `args` on through
/// `super().__init__(args)`. Only the attribute written goes unknown, through the subclass or
/// when the script builds the base itself.
#[test]
fn a_base_constructor_writing_one_attribute_of_the_kept_namespace() {
    let run = |written: &str, script_builds: &str| {
        let basic = format!(
            "\
class Exp_Basic(object):
    def __init__(self, args):
        self.args = args
        self.args.{written} = 2
"
        );
        let main = "\
from data_provider.data_factory import data_provider
from exp.exp_basic import Exp_Basic


class Exp_Main(Exp_Basic):
    def __init__(self, args):
        super(Exp_Main, self).__init__(args)

    def train(self):
        for batch in data_provider(self.args, 'train'):
            pass
";
        let script = format!(
            "\
import argparse
from exp.exp_basic import Exp_Basic
from exp.exp_main import Exp_Main
from data_provider.data_factory import data_provider


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_workers', type=int, default=10)
    args = parser.parse_args()
    {script_builds}


if __name__ == '__main__':
    main()
"
        );
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = 'exp'\n"),
            (
                "data_provider/data_factory.py",
                "from torch.utils.data import DataLoader\n\n\ndef data_provider(args, flag):\n    \
                 return DataLoader([1, 2], num_workers=args.num_workers)\n",
            ),
            ("exp/exp_basic.py", &basic),
            ("exp/exp_main.py", main),
            ("run.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["data_provider/data_factory.py:5:DL201"];
    let through_subclass = "Exp = Exp_Main\n    exp = Exp(args)\n    exp.train()";
    let directly =
        "exp = Exp_Basic(args)\n    for batch in data_provider(args, 'test'):\n        pass";
    assert_eq!(run("device", through_subclass), fired);
    assert_eq!(run("device", directly), fired);
    // The constructor writes the count itself.
    assert!(run("num_workers", through_subclass).is_empty());
    assert!(run("num_workers", directly).is_empty());
}

/// The Rotation-Invariant-Point-Cloud shape: a parser helper of one file returns the
/// namespace copied into an `EasyDict`, a script hands it to a trainer class of a third file,
/// which reads the count off `self.opt`; a write through item syntax there makes it unknown.
#[test]
fn a_namespace_copied_into_an_attribute_dict_in_another_file() {
    let run = |constructor_body: &str| {
        let trainer = format!(
            "from torch_geometric.loader import DataLoader\n\n\nclass Trainer(object):\n    \
             def __init__(self, opt):\n        self.opt = opt\n        {constructor_body}\n\n    \
             def build_dataset(self):\n        self.loader = DataLoader([1, 2], \
             num_workers=int(self.opt.workers))\n        for batch in self.loader:\n            \
             pass\n"
        );
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = 'pc'\n"),
            (
                "argument_parser.py",
                "import argparse\nfrom easydict import EasyDict\n\n\ndef parser():\n    \
                 parser = argparse.ArgumentParser()\n    parser.add_argument('--workers', \
                 type=int, default=16)\n    opt = parser.parse_args()\n    opt = \
                 EasyDict(opt.__dict__)\n    return opt\n",
            ),
            ("trainer.py", &trainer),
            (
                "train.py",
                "import argument_parser\n\nopt = argument_parser.parser()\nfrom trainer import \
                 Trainer\n\n\ndef main():\n    trainer = Trainer(opt)\n    \
                 trainer.build_dataset()\n\n\nif __name__ == '__main__':\n    main()\n",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("self.epoch = 0"), ["trainer.py:10:DL201"]);
    assert!(run("self.opt['workers'] = 2").is_empty());
}

/// A count that depends on which caller runs the builder: `loaders` lists it per caller's
/// path, the values DL201 checks.
#[test]
fn loaders_shows_a_count_on_each_callers_path() {
    let dir = project(&[(
        "train.py",
        "from torch.utils.data import DataLoader\n\n\ndef make_dataloader(dataset, split):\n    \
         if split == 'train':\n        num_workers = 4\n    else:\n        num_workers = 16\n    \
         return DataLoader(dataset, num_workers=num_workers)\n\n\ndef main(dataset):\n    \
         for split in ['train', 'test']:\n        pass\n    train = make_dataloader(dataset, \
         'train')\n    test = make_dataloader(dataset, 'test')\n    for batch in test:\n        \
         pass\n",
    )]);
    assert_loaders_text(
        dir.path(),
        &[
            "    num_workers unknown: `num_workers` is not a value dldoctor can resolve without running the code, passed on line 9\n        depends on the caller:\n            4 when `split` is \"train\", passed for split to make_dataloader (line 15)\n            16 when `split` is \"test\", passed for split to make_dataloader (line 16)\n",
        ],
    );
    let out = dldoctor(dir.path(), &["loaders", "--format", "json", "train.py"]);
    let files: Value = serde_json::from_slice(&out.stdout).expect("json");
    let workers = argument(&files[0]["loaders"][0], "num_workers");
    assert_eq!(workers["status"], "unknown");
    assert_eq!(workers["by_caller"][1]["value"], "16");
    assert_eq!(
        workers["by_caller"][1]["when"],
        "when `split` is \"test\", passed for split to make_dataloader (line 16)"
    );
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["train.py:9:DL201"]
    );
}

/// The shape of a family of pose repositories: a plain config class whose `update(path)`
/// method copies a YAML file's keys onto the module-level instance by `setattr`, called by
/// the entry script only when `--cfg` is given. The class default counts unless a call of
/// the method may run, or the config's file sets keys by computed name elsewhere.
#[test]
fn a_config_method_that_sets_any_key_counts_where_it_is_called() {
    let run = |call: &str, config_extra: &str| {
        let config = format!(
            "import yaml\n\n\nclass Config:\n    num_thread = 16\n\n    def set_args(self, \
             gpu_ids):\n        self.gpu_ids = gpu_ids\n\n    def update(self, config_file):\n        \
             with open(config_file) as f:\n            for k, v in yaml.safe_load(f).items():\n                \
             if hasattr(cfg, k):\n                    setattr(cfg, k, v)\n\n\ncfg = \
             Config()\n{config_extra}"
        );
        let train = format!(
            "import argparse\nfrom config import cfg\nfrom base import Trainer\n\n\ndef \
             parse_args():\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--gpu', type=str, dest='gpu_ids')\n    \
             parser.add_argument('--cfg', type=str, default='')\n    return \
             parser.parse_args()\n\n\ndef main():\n    args = parse_args()\n    \
             cfg.set_args(args.gpu_ids)\n    {call}\n    Trainer().make()\n\n\nif __name__ == \
             '__main__':\n    main()\n"
        );
        let dir = project(&[
            ("main/config.py", &config),
            ("main/train.py", &train),
            (
                "common/base.py",
                "from torch.utils.data import DataLoader\nfrom config import cfg\n\n\nclass \
                 Trainer:\n    def make(self):\n        loader = DataLoader([1], \
                 num_workers=cfg.num_thread)\n        for batch in loader:\n            pass\n",
            ),
        ]);
        let loaders = dldoctor(dir.path(), &["loaders"]);
        (
            codes_of(&check_json(dir.path()).1, "DL201"),
            String::from_utf8_lossy(&loaders.stdout).into_owned(),
        )
    };
    let fired = ["common/base.py:7:DL201"];
    assert_eq!(
        run("if args.cfg:\n        cfg.update(args.cfg)", "").0,
        fired
    );
    // Called on every run: any key may change, and `loaders` says where.
    let (codes, loaders) = run("cfg.update(args.cfg)", "");
    assert!(codes.is_empty());
    assert!(
        loaders.contains(
            "num_workers unknown: `cfg.num_thread`: `cfg.update(args.cfg)` in ../main/train.py \
             (line 16) may change it when the code runs"
        ),
        "{loaders}"
    );
    // The config's file sets keys by computed name outside the class too.
    let loader = "\n\ndef load(path):\n    for k, v in yaml.safe_load(open(path)).items():\n        \
                  setattr(cfg, k, v)\n";
    assert!(
        run("if args.cfg:\n        cfg.update(args.cfg)", loader)
            .0
            .is_empty()
    );
    let loader = "\n\ndef load(path):\n    for k, v in yaml.safe_load(open(path)).items():\n        \
                  cfg.__dict__[k] = v\n";
    assert!(
        run("if args.cfg:\n        cfg.update(args.cfg)", loader)
            .0
            .is_empty()
    );
}

/// The Time-Series-Library shape: the base experiment class keeps the namespace and builds
/// the loaders from `self.args`; each task's subclass has a constructor that only hands the
/// namespace on, `super(Exp_Long, self).__init__(args)`; the script picks the class from a dict
/// of classes by a required option. What the script's namespace holds reaches the base.
#[test]
fn a_namespace_handed_to_a_base_through_a_subclass_picked_from_a_dict() {
    let run_with = |constructor: &str, script: &str, package: &str| {
        let long = format!(
            "from exp.exp_basic import Exp_Basic\n\n\nclass Exp_Long(Exp_Basic):\n    def \
             __init__(self, args):\n        {constructor}\n        super(Exp_Long, \
             self).__init__(args)\n"
        );
        let run = format!(
            "import argparse\n\nfrom exp.exp_long import Exp_Long\n\n\ndef main():\n    parser \
             = argparse.ArgumentParser()\n    parser.add_argument('--task', required=True)\n    \
             parser.add_argument('--num_workers', type=int, default=10)\n    args = \
             parser.parse_args()\n    {script}\n    exp._get_data()\n\n\nif __name__ == \
             '__main__':\n    main()\n"
        );
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = 'exp'\n"),
            ("exp/__init__.py", package),
            (
                "exp/exp_basic.py",
                "from torch.utils.data import DataLoader\n\n\nclass Exp_Basic(object):\n    def \
                 __init__(self, args):\n        self.args = args\n\n    def _get_data(self):\n        \
                 loader = DataLoader([1, 2], num_workers=self.args.num_workers)\n        for \
                 batch in loader:\n            pass\n",
            ),
            ("exp/exp_long.py", &long),
            ("run.py", &run),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let run = |constructor: &str, script: &str| run_with(constructor, script, "");
    let fired = ["exp/exp_basic.py:9:DL201"];
    let picked =
        "exp_dict = {'long': Exp_Long}\n    Exp = exp_dict[args.task]\n    exp = Exp(args)";
    assert_eq!(run("self.epoch = 0", picked), fired);
    assert_eq!(run("self.epoch = 0", "exp = Exp_Long(args)"), fired);
    // The subclass's constructor sets the count itself.
    assert!(run("args.num_workers = 2", picked).is_empty());
    // It hands the base something else.
    assert!(run("args = object()", picked).is_empty());
    // The dict is the package's, imported by the script.
    let package = "from .exp_long import Exp_Long\n\nEXP_DICT = {'long': Exp_Long}\n";
    let imported = "from exp import EXP_DICT\n    Exp = EXP_DICT[args.task]\n    exp = Exp(args)";
    assert_eq!(run_with("self.epoch = 0", imported, package), fired);
    assert!(run_with("args.num_workers = 2", imported, package).is_empty());
}

/// A YAML config handed to a helper of another module: an `update(` line of the script that
/// names a config key inside a longer name (`test_losses.update(...)` beside a `test:` section)
/// writes nothing of the config; one naming the key itself may replace it.
#[test]
fn a_key_inside_a_longer_name_on_an_update_line_is_not_a_write() {
    let run = |line: &str| {
        let script = format!(
            "import argparse\n\nimport yaml\n\nfrom core import builder\n\n\ndef \
             train(config, meter):\n    loader = builder.make(config)\n    test_losses = \
             meter()\n    for batch in loader:\n        {line}\n\n\nif __name__ == \
             '__main__':\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--config', default='configs/a.yaml')\n    args = \
             parser.parse_args()\n    with open(args.config) as f:\n        config = \
             yaml.safe_load(f)\n    train(config, dict)\n"
        );
        let dir = project(&[
            ("core/__init__.py", ""),
            (
                "core/builder.py",
                "from torch.utils.data import DataLoader\n\n\ndef make(config):\n    return \
                 DataLoader([1, 2], num_workers=config['test']['num_workers'])\n",
            ),
            ("configs/a.yaml", "test:\n  num_workers: 16\n"),
            ("train.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("test_losses.update(batch)"),
        ["core/builder.py:5:DL201"]
    );
    assert!(run("config.update(test={'num_workers': 2})").is_empty());
}

/// A helper of the project reached through one of several star imports (`from utils.misc
/// import *`, `from utils.train import *`): the last module that has the name gives it.
#[test]
fn a_project_helper_through_one_of_several_star_imports() {
    let run = |train: &str| {
        let dir = project(&[
            ("utils/__init__.py", ""),
            (
                "utils/misc.py",
                "import yaml\nfrom easydict import EasyDict\n\n\ndef load_config(path):\n    with \
                 open(path) as f:\n        return EasyDict(yaml.safe_load(f))\n",
            ),
            ("utils/train.py", train),
            ("configs/a.yml", "train:\n  num_workers: 64\n"),
            (
                "scripts/train.py",
                "import argparse\nimport sys\nsys.path.append('.')\n\nfrom torch.utils.data \
                 import DataLoader\n\nfrom utils.misc import *\nfrom utils.train import \
                 *\n\n\nif __name__ == '__main__':\n    parser = argparse.ArgumentParser()\n    \
                 parser.add_argument('--config', default='configs/a.yml')\n    args = \
                 parser.parse_args()\n    config = load_config(args.config)\n    for batch in \
                 DataLoader([1, 2], num_workers=config.train.num_workers):\n        pass\n",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("import torch\n\n\ndef get_optimizer(model):\n    return None\n"),
        ["scripts/train.py:16:DL201"]
    );
    // The last star import defines a `load_config` of its own: that one runs.
    assert!(run("def load_config(path):\n    return {}\n").is_empty());
}

/// A module-level EasyDict config that a function of its module overwrites with every option
/// of a parsed namespace (`for k, v in vars(args).items(): config[k] = v`), the namespace
/// from an options class whose `initialize()` calls `self.parse(fixed)`: after the copy, the
/// config holds the option's default, not its own.
#[test]
fn a_namespace_copied_into_a_config_gives_the_options_defaults() {
    let run = |config_default: u32, option_default: u32, script_extra: &str| {
        let config = format!(
            "from easydict import EasyDict\n\nconfig = EasyDict()\nconfig.num_workers = \
             {config_default}\nconfig.batch_size = 12\n\n\ndef update_config(config, \
             extra_config):\n    for k, v in vars(extra_config).items():\n        config[k] = \
             v\n    config.device = 'cuda' if config.cuda else 'cpu'\n\n\ndef \
             print_config(config):\n    for k, v in config.items():\n        print(k, v)\n"
        );
        let options = format!(
            "import argparse\n\n\nclass BaseOptions(object):\n    def __init__(self):\n        \
             self.parser = argparse.ArgumentParser()\n        \
             self.parser.add_argument('--num_workers', default={option_default}, \
             type=int)\n        self.parser.add_argument('--cuda', default=True)\n\n    def \
             parse(self, fixed=None):\n        if fixed is not None:\n            args = \
             self.parser.parse_args(fixed)\n        else:\n            args = \
             self.parser.parse_args()\n        return args\n\n    def initialize(self, \
             fixed=None):\n        self.args = self.parse(fixed)\n        return \
             self.args\n\n    def update(self, args, extra_options):\n        for k, v in \
             extra_options.items():\n            setattr(args, k, v)\n"
        );
        let script = format!(
            "from torch.utils.data import DataLoader\n\nfrom cfglib.config import config as \
             cfg, update_config, print_config\nfrom cfglib.option import BaseOptions\n\n\ndef \
             main():\n    loader = DataLoader([1, 2], num_workers=cfg.num_workers)\n    for \
             batch in loader:\n        pass\n\n\nif __name__ == '__main__':\n    option = \
             BaseOptions()\n    args = option.initialize()\n{script_extra}    \
             update_config(cfg, args)\n    print_config(cfg)\n    main()\n"
        );
        let dir = project(&[
            ("cfglib/__init__.py", ""),
            ("cfglib/config.py", &config),
            ("cfglib/option.py", &options),
            ("train.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run(4, 24, ""), ["train.py:8:DL201"]);
    // The copy replaces the config's own 24 with the option's 2.
    assert!(run(24, 2, "").is_empty());
    // The options class's `update` is called on the namespace: any option may change.
    assert!(run(4, 24, "    option.update(args, {'num_workers': 2})\n").is_empty());
}

#[test]
fn a_method_called_on_an_instance_from_another_module() {
    let run = |default: u32, calls: &str| {
        let model = "\
import torch
from torch.utils.data import DataLoader


class Reasoner(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def evaluate(self, data, args):
        loader = DataLoader(data, batch_size=args.batch_size, num_workers=max(1, args.cpu_num))
        for batch in loader:
            pass

    @staticmethod
    def test_step(model, data, args):
        loader = DataLoader(data, num_workers=args.cpu_num)
        for batch in loader:
            pass
";
        let script = format!(
            "\
import argparse

from model import Reasoner


def parse_args(args=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--cpu_num', type=int, default={default})
    parser.add_argument('--batch_size', type=int, default=32)
    return parser.parse_args(args)


class Other:
    def evaluate(self, data, args):
        return data


def make():
    return Reasoner(2)


def main(args):
    reasoner = Reasoner(4)
    reasoner = reasoner.cuda()
    print(', '.join(['a', 'b']))

    def evaluate_test():
{calls}
    evaluate_test()

if __name__ == '__main__':
    main(parse_args())
"
        );
        let dir = project(&[("model.py", model), ("run.py", &script)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let both = "        reasoner.evaluate([1, 2], args)\n        Reasoner.test_step(reasoner, [1, 2], \
                args)\n";
    assert_eq!(run(10, both), ["model.py:11:DL201", "model.py:17:DL201"]);
    assert!(run(4, both).is_empty());
    // On an instance dldoctor cannot place, or of another class: no caller it can read.
    let other = "        model = make()\n        model.evaluate([1, 2], args)\n        \
                 Other(4).evaluate([1, 2], args)\n";
    assert!(run(10, other).is_empty());
}

#[test]
fn a_yaml_helper_reading_the_file_text_called_in_two_branches() {
    let run = |other_call: &str| {
        let helper = "\
import yaml


def load_yaml(path):
    file = open(path, 'r')
    yaml_obj = yaml.load(file.read(), Loader=yaml.FullLoader)
    return yaml_obj
";
        let train = format!(
            "\
import argparse
from easydict import EasyDict as edict
from torch.utils.data import DataLoader
import utils.read_file as reader


def epoch_train(config, logger, args=None):
    loader = DataLoader(None, batch_size=4, num_workers=config.TRAIN.WORKERS)
    for batch in loader:
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg', type=str, default='experiments/tracker.yaml')
    parser.add_argument('--wandb', action='store_true')
    args = parser.parse_args()
    config = edict(reader.load_yaml(args.cfg))
    if args.wandb:
        {other_call}
    else:
        epoch_train(config, None, args)


if __name__ == '__main__':
    main()
"
        );
        let dir = project(&[
            ("lib/utils/__init__.py", ""),
            ("lib/utils/read_file.py", helper),
            ("experiments/tracker.yaml", "TRAIN:\n  WORKERS: 32\n"),
            ("experiments/small.yaml", "TRAIN:\n  WORKERS: 4\n"),
            ("tracking/train.py", &train),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    // Both branches pass the document of one file, each read anew.
    assert_eq!(
        run("epoch_train(edict(reader.load_yaml(args.cfg)), None, args)"),
        ["tracking/train.py:8:DL201"]
    );
    // The other branch passes another file's: no one value.
    assert!(run("epoch_train(edict(reader.load_yaml('experiments/small.yaml')), None)").is_empty());
}

#[test]
fn a_config_handed_to_a_method_of_another_modules_class() {
    let run = |workers: u32, solver_extra: &str| {
        let solver = format!(
            "\
from torch.utils.data import DataLoader


class Solver:
    def __init__(self, name):
        self.name = name

    def run(self, cfg, epochs=1):
        loader = DataLoader([1, 2], batch_size=cfg['train']['batch_size'],
                            num_workers=cfg['train']['num_workers'])
        for epoch in range(epochs):
            for batch in loader:
                pass
{solver_extra}"
        );
        let main = "\
import yaml

from engine.solver import Solver


def main():
    with open('configs/base.yaml') as f:
        cfg = yaml.safe_load(f)
    solver = Solver('base')
    solver.run(cfg)


if __name__ == '__main__':
    main()
";
        let config = format!("train:\n  batch_size: 8\n  num_workers: {workers}\n");
        let dir = project(&[
            ("engine/__init__.py", ""),
            ("engine/solver.py", &solver),
            ("configs/base.yaml", &config),
            ("main.py", main),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run(16, ""), ["engine/solver.py:10:DL201"]);
    assert!(run(4, "").is_empty());
    // Its own file calls it too, with what dldoctor does not follow.
    let own = "\n    def resume(self, other):\n        self.run(other)\n";
    assert!(run(16, own).is_empty());
}

#[test]
fn a_trainer_named_in_a_dict_of_classes_of_its_own_module() {
    let run = |plain_base: &str, own_use: &str, construct: &str| {
        let call = match construct {
            "trainer_mapping" => "trainer_mapping[args.kind]",
            other => other,
        };
        let trainer = format!(
            "\
from torch.utils.data import DataLoader


class Trainer{plain_base}:
    def __init__(self, args=None):
        self.args = args

    def hp_setup(self, params):
        for key, value in params.items():
            setattr(self.args, key, value)


class AdapterTrainer:
    def __init__(self, args, data):
        self.args = args
        self.data = data

    def train(self):
        loader = DataLoader(self.data, num_workers=self.args.num_workers)
        for batch in loader:
            pass


trainer_mapping = {{
    'plain': Trainer,
    'adapter': AdapterTrainer,
}}
{own_use}"
        );
        let script = format!(
            "\
from argparse import ArgumentParser

from src.options import add_argparse_args
from src.trainer import {construct}

if __name__ == '__main__':
    parser = ArgumentParser()
    parser = add_argparse_args(parser)
    args = parser.parse_args()
    trainer = {call}(args, [1, 2])
    trainer.train()
"
        );
        let dir = project(&[
            ("src/__init__.py", ""),
            ("src/trainer.py", &trainer),
            ("src/options.py", OPTIONS),
            ("models/adapter/run.py", &script),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let fired = ["src/trainer.py:19:DL201"];
    // Constructed by name, or through the dict in the calling file.
    assert_eq!(run("", "", "AdapterTrainer"), fired);
    assert_eq!(run("", "", "trainer_mapping"), fired);
    // `setattr(self.args, ...)` of a class that may be an AdapterTrainer may change the count.
    assert!(run("(AdapterTrainer)", "", "AdapterTrainer").is_empty());
    // The dict is read in its own file too, with what dldoctor does not follow.
    let own_use = "\n\ndef build(kind, args):\n    return trainer_mapping[kind](args, [])\n";
    assert!(run("", own_use, "AdapterTrainer").is_empty());
}

const OPTIONS: &str = "\
import argparse


def add_argparse_args(parent_parser):
    parser = argparse.ArgumentParser(parents=[parent_parser], add_help=False)
    parser.add_argument('--num_workers', type=int, default=32)
    parser.add_argument('--kind', type=str, default='adapter')
    return parser
";

#[test]
fn a_torchgeo_data_module_of_another_module_is_checked_where_it_is_built() {
    let module = "\
from torchgeo.datamodules import NonGeoDataModule
from torchgeo.datasets import WHUCD


class WHUCDDataModule(NonGeoDataModule):
    def __init__(self, patch_size=256, *args, **kwargs):
        super().__init__(WHUCD, *args, **kwargs)
        self.patch_size = patch_size
";
    // The script names neither a loader nor a TorchGeo class: only its own data module.
    let script = "\
import argparse

import lightning
from src.datasets.whucd import WHUCDDataModule


def main(args):
    datamodule = WHUCDDataModule(batch_size=8, num_workers=args.workers)
    lightning.Trainer().test(model=None, datamodule=datamodule)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--workers', type=int, default=16)
    main(parser.parse_args())
";
    let dir = project(&[
        ("src/__init__.py", ""),
        ("src/datasets/__init__.py", ""),
        ("src/datasets/whucd.py", module),
        ("test_whucd.py", script),
    ]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL201"),
        ["test_whucd.py:8:DL201"]
    );
}

/// A DeiT-style script: `--config` is required, and `update_from_config` in another module
/// copies every key of the mmcv config it names into the namespace.
const DEIT_MAIN: &str = "\
import argparse

from torch.utils.data import DataLoader

import utils


def get_args_parser():
    parser = argparse.ArgumentParser('training', add_help=False)
    parser.add_argument('--config', required=True, type=str)
    parser.add_argument('--batch-size', default=64, type=int)
    parser.add_argument('--num_workers', default=10, type=int)
    return parser


def main(args):
    loader = DataLoader(list(range(100)), batch_size=args.batch_size,
                        num_workers=args.num_workers)
    for _ in loader:
        pass


if __name__ == '__main__':
    parser = argparse.ArgumentParser('training', parents=[get_args_parser()])
    args = parser.parse_args()
    args = utils.update_from_config(args)
    main(args)
";

const DEIT_UTILS: &str = "\
import mmcv


def update_from_config(args):
    cfg = mmcv.Config.fromfile(args.config)
    for _, cfg_item in cfg._cfg_dict.items():
        for k, v in cfg_item.items():
            setattr(args, k, v)
    return args
";

#[test]
fn a_config_named_at_run_time_writes_only_the_keys_its_shipped_files_hold() {
    let config =
        |extra: &str| format!("cfg = dict(\n    model='small',\n    epochs=300,{extra}\n)\n");
    let run = |second: &str, more: &[(&str, &str)]| {
        let mut files = vec![
            ("main.py", DEIT_MAIN),
            ("utils.py", DEIT_UTILS),
            (
                "configs/small.py",
                "cfg = dict(model='small', epochs=300)\n",
            ),
            ("configs/finetune/base_384.py", second),
        ];
        files.extend_from_slice(more);
        let dir = project(&files);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    // No shipped config sets `num_workers`: the option's default, 10, is what runs.
    assert_eq!(run(&config(""), &[]), ["main.py:18:DL201"]);
    // One of them does: which one a run names is not known.
    assert!(run(&config("\n    num_workers=4,"), &[]).is_empty());
    // A config inheriting a file outside the folder read: that file may set it.
    let inherits = "_base_ = ['../../base/default.py']\ncfg = dict(model='base')\n";
    assert!(run(inherits, &[("base/default.py", "x = 1\n")]).is_empty());
    // Inheriting a file among them is read with them.
    let inside = "_base_ = ['../small.py']\ncfg = dict(model='base')\n";
    assert_eq!(run(inside, &[]), ["main.py:18:DL201"]);
}

#[test]
fn a_yaml_config_named_at_run_time_copied_in_place() {
    let script = "\
import argparse

import yaml
from torch.utils.data import DataLoader


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--config', required=True)
    parser.add_argument('--workers', type=int, default=16)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    for k, v in cfg.items():
        setattr(args, k, v)
    return args


def main():
    args = get_args()
    for _ in DataLoader(list(range(10)), num_workers=args.workers):
        pass


if __name__ == '__main__':
    main()
";
    let run = |yaml: &str| {
        let dir = project(&[
            ("train.py", script),
            ("configs/a.yaml", "lr: 0.1\nepochs: 3\n"),
            ("configs/b.yaml", yaml),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("lr: 0.2\n"), ["train.py:21:DL201"]);
    assert!(run("lr: 0.2\nworkers: 4\n").is_empty());
    // No config file shipped at all: nothing says which keys a run's file has.
    let dir = project(&[("train.py", script)]);
    assert!(codes_of(&check_json(dir.path()).1, "DL201").is_empty());
}

#[test]
fn a_loader_star_imported_among_other_star_imports() {
    let script = |stars: &str| {
        format!(
            "{stars}\n\ndef get_loader(args):\n    num_workers = 16\n    ds = CacheDataset(data=[], \
             transform=None)\n    return DataLoader(ds, batch_size=args.batch_size, \
             num_workers=num_workers, shuffle=True)\n"
        )
    };
    let run = |stars: &str| {
        let dir = project(&[
            ("utils/data_utils.py", &script(stars)),
            (
                "utils/mine.py",
                "class DataLoader:\n    def __init__(self, *a, **k):\n        pass\n",
            ),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    // MONAI's loader, whatever `monai.transforms` and `math` export besides.
    let monai = "from monai.data import *\nfrom monai.transforms import *\nfrom math import *";
    assert_eq!(run(monai), ["utils/data_utils.py:8:DL201"]);
    // A later star import of a project module that defines its own `DataLoader` wins.
    let own = "from monai.data import *\nfrom .mine import *\nfrom math import *";
    assert!(run(own).is_empty());
}

#[test]
fn a_constant_of_another_module_of_the_project() {
    let script = |import: &str, read: &str| {
        format!(
            "from torch.utils.data import DataLoader\n\n{import}\n\n\nclass Session:\n    \
             def __init__(self):\n        self.loader = DataLoader([1, 2], \
             num_workers={read})\n\n\nif __name__ == '__main__':\n    \
             for _ in Session().loader:\n        pass\n"
        )
    };
    let run = |settings: &str, import: &str, read: &str, more: &[(&str, &str)]| {
        let train = script(import, read);
        let mut files = vec![("seg/settings.py", settings), ("seg/train.py", &train)];
        files.extend_from_slice(more);
        let dir = project(&files);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let settings = "import torch\n\nCROP_SIZE = 513\nNUM_WORKERS = 4 * 16\n";
    let fired = ["seg/train.py:8:DL201"];
    assert_eq!(
        run(settings, "import settings", "settings.NUM_WORKERS", &[]),
        fired
    );
    assert_eq!(
        run(settings, "import settings as S", "S.NUM_WORKERS", &[]),
        fired
    );
    let named = "from settings import NUM_WORKERS";
    assert_eq!(run(settings, named, "NUM_WORKERS", &[]), fired);
    assert_eq!(
        run(settings, "from settings import *", "NUM_WORKERS", &[]),
        fired
    );
    // Another file of the project that imports the module changes it.
    let tweak = (
        "seg/tune.py",
        "import settings\n\nsettings.NUM_WORKERS = 4\n",
    );
    assert!(
        run(
            settings,
            "import settings",
            "settings.NUM_WORKERS",
            &[tweak]
        )
        .is_empty()
    );
    // Bound twice, or maybe again by a star import after it: which binding runs is not known.
    let twice = "import os\n\nNUM_WORKERS = 64\nif os.environ.get('SMALL'):\n    NUM_WORKERS = 2\n";
    assert!(run(twice, "import settings", "settings.NUM_WORKERS", &[]).is_empty());
    let starred = "NUM_WORKERS = 64\nfrom local_settings import *\n";
    assert!(run(starred, named, "NUM_WORKERS", &[]).is_empty());
}

#[test]
fn a_namespace_parsed_at_import_and_only_read_through_its_dict_by_the_importer() {
    let options = "\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument('--num_workers', type=int, default=12)
parser.add_argument('--batch_size', type=int, default=12)
opts = parser.parse_args()
";
    let train = |save: &str| {
        format!(
            "import json\n\nfrom torch.utils.data import DataLoader\n\nfrom options import opts\n\n\n\
             class Trainer:\n    def __init__(self, options):\n        self.opt = options\n        \
             self.loader = DataLoader(list(range(64)), self.opt.batch_size,\n                                 \
             num_workers=self.opt.num_workers)\n\n    def save_opts(self):\n        {save}\n\n\n\
             if __name__ == '__main__':\n    trainer = Trainer(opts)\n    trainer.save_opts()\n    \
             for _ in trainer.loader:\n        pass\n"
        )
    };
    let run = |save: &str| {
        let dir = project(&[("options.py", options), ("train.py", &train(save))]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    // Saving the options reads them.
    let copy = "json.dump(self.opt.__dict__.copy(), open('opt.json', 'w'))";
    assert_eq!(run(copy), ["train.py:12:DL201"]);
    // Updating them may change any.
    assert!(run("self.opt.__dict__.update(json.load(open('opt.json')))").is_empty());
}

#[test]
fn a_class_method_called_from_another_file_builds_no_instance_unless_it_names_cls() {
    let train = |method: &str| {
        format!(
            "from torch.utils.data import DataLoader\n\n\nclass Data:\n    \
             def __init__(self, *, path, workers=4):\n        self.path = path\n        \
             self.workers = workers\n\n    @classmethod\n{method}\n    \
             def train_dataloader(self):\n        \
             return DataLoader(list(range(8)), num_workers=self.workers)\n\n\n\
             def main():\n    data = Data(path='x', workers=10)\n    \
             for _ in data.train_dataloader():\n        pass\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        )
    };
    let eval = "from train import Data\n\n\ndef main(path):\n    return Data.make(\n        path,\n    )\n";
    let run = |method: &str| {
        let dir = project(&[("train.py", &train(method)), ("disc_eval.py", eval)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    // A dataset made without the class's instance.
    let builds_dataset =
        "    def make(\n        cls,\n        path,\n    ):\n        return [path]\n";
    assert_eq!(run(builds_dataset), ["train.py:17:DL201"]);
    // `cls(...)`: another construction, with whatever it passes.
    let builds_instance = "    def make(cls, path):\n        return cls(path=path, workers=2)\n";
    assert!(run(builds_instance).is_empty());
}

/// A record config (a `NamedTuple` of another module, re-exported by its package) built in
/// the entry script from the command line's values and handed to a trainer class of a third
/// module, which keeps it and builds fresh instances of itself from it: `--workers` reaches
/// the loader. A field the entry script changes after construction stays unknown.
#[test]
fn record_configs_built_in_one_file_reach_a_trainer_in_another() {
    let config = "\
from typing import NamedTuple


class TrainerConfig(NamedTuple):
    batch_per_gpu: int
    workers: int
    prefetch: int = 4
";
    let trainer = "\
import torch

from .config import TrainerConfig


class Trainer:
    def __init__(self, train_cfg: TrainerConfig) -> None:
        self._train_cfg = train_cfg

    def checkpoint(self):
        return Trainer(self._train_cfg)

    def __call__(self):
        loader = torch.utils.data.DataLoader(
            list(range(64)),
            batch_size=self._train_cfg.batch_per_gpu,
            num_workers=(self._train_cfg.workers - 1),
            prefetch_factor=self._train_cfg.prefetch,
        )
        for _ in loader:
            pass
";
    let main = |write: &str| {
        format!(
            "import argparse\n\nfrom imnet import Trainer, TrainerConfig\n\n\n\
             def run(batch, workers):\n    \
             train_cfg = TrainerConfig(\n        batch_per_gpu=batch,\n        \
             workers=workers,\n    )\n{write}    Trainer(train_cfg)()\n\n\n\
             if __name__ == '__main__':\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--batch', default=8, type=int)\n    \
             parser.add_argument('--workers', default=10, type=int)\n    \
             args = parser.parse_args()\n    run(args.batch, args.workers)\n"
        )
    };
    let package = "from .train import Trainer\nfrom .config import TrainerConfig\n";
    let run = |config: &str, write: &str| {
        let dir = project(&[
            ("imnet/__init__.py", package),
            ("imnet/config.py", config),
            ("imnet/train.py", trainer),
            ("main_finetune.py", &main(write)),
        ]);
        let out = dldoctor(dir.path(), &["loaders", "imnet/train.py"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (codes_of(&check_json(dir.path()).1, "DL201"), text)
    };
    let (codes, text) = run(config, "");
    assert_eq!(codes, ["imnet/train.py:17:DL201"], "{text}");
    assert!(text.contains("num_workers = 9"), "{text}");
    assert!(
        text.contains("batch_size = 8: the default of --batch (main_finetune.py line 16)"),
        "{text}"
    );
    assert!(
        text.contains(
            "prefetch_factor = 4: the default of TrainerConfig.prefetch (config.py line 7)"
        ),
        "{text}"
    );
    // A dataclass instead, its instance changed after construction: the count is not the
    // one passed.
    let dataclass = "from dataclasses import dataclass\n\n\n@dataclass\nclass TrainerConfig:\n    \
                     batch_per_gpu: int\n    workers: int\n    prefetch: int = 4\n";
    let (codes, text) = run(dataclass, "");
    assert_eq!(codes, ["imnet/train.py:17:DL201"], "{text}");
    let (codes, text) = run(dataclass, "    train_cfg.workers = 2\n");
    assert!(codes.is_empty(), "{text}");
    assert!(text.contains("num_workers unknown"), "{text}");
}

/// The namespace's own dict (`cfg = vars(args)`) handed to a helper of another module: an item
/// the helper writes (`cfg["num_workers"] = 2`, `cfg.update(...)`) is not the option's
/// default any more; one it only reads, or another item it writes, leaves the count alone.
#[test]
fn a_namespace_dict_written_by_key_in_another_module() {
    let main = "\
import argparse

from torch.utils.data import DataLoader

from utils import adjust


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num-workers', type=int, default=16)
    args = parser.parse_args()
    cfg = vars(args)
    adjust(cfg)
    for _ in DataLoader(list(range(8)), num_workers=cfg['num_workers']):
        pass


if __name__ == '__main__':
    main()
";
    let run = |helper: &str| {
        let dir = project(&[("main.py", main), ("utils.py", helper)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("def adjust(cfg):\n    print(cfg['num_workers'])\n    cfg['lr'] = 3\n"),
        ["main.py:14:DL201"]
    );
    assert!(run("def adjust(cfg):\n    cfg['num_workers'] = 2\n").is_empty());
    assert!(run("def adjust(cfg):\n    cfg.update(load())\n").is_empty());
}

/// The pytracking family (OSTrack, STARK, AiATrack, ...): an EasyDict config whose module loads
/// a YAML file into it through a helper it hands the config to (`_update_config(cfg, exp)`
/// writing `base_cfg[k] = v`), imported by a module name computed at run time
/// (`importlib.import_module("lib.config.%s.config" % settings.script_name)`), merged from a
/// file named at run time and handed to a loader builder of another file: the count is what
/// every shipped experiment file gives, when they agree.
#[test]
fn a_config_module_imported_by_computed_name_and_loaded_through_a_helper() {
    let config = "\
import yaml
from easydict import EasyDict as edict

cfg = edict()
cfg.TRAIN = edict()
cfg.TRAIN.NUM_WORKER = 4
cfg.TRAIN.BATCH_SIZE = 16


def _update_config(base_cfg, exp_cfg):
    for k, v in exp_cfg.items():
        if k in base_cfg:
            if not isinstance(v, dict):
                base_cfg[k] = v
            else:
                _update_config(base_cfg[k], v)
        else:
            raise ValueError(k)


def update_config_from_file(filename):
    with open(filename) as f:
        exp_config = edict(yaml.safe_load(f))
        _update_config(cfg, exp_config)
";
    let script = "\
import importlib

from lib.train.base_functions import build_dataloaders


def run(settings):
    config_module = importlib.import_module(\"lib.config.%s.config\" % settings.script_name)
    cfg = config_module.cfg
    config_module.update_config_from_file(settings.cfg_file)
    loader = build_dataloaders(cfg, settings)
    for _ in loader:
        pass
";
    let builder = "\
from torch.utils.data import DataLoader


def build_dataloaders(cfg, settings):
    return DataLoader(list(range(64)), batch_size=cfg.TRAIN.BATCH_SIZE,
                      num_workers=cfg.TRAIN.NUM_WORKER)
";
    let run = |second_yaml: &str, other_module: bool| {
        let mut files = vec![
            ("lib/config/ostrack/config.py", config),
            ("lib/train/train_script.py", script),
            ("lib/train/base_functions.py", builder),
            (
                "experiments/ostrack/vitb_256.yaml",
                "TRAIN:\n  NUM_WORKER: 10\n",
            ),
            ("experiments/ostrack/vitb_384.yaml", second_yaml),
        ];
        if other_module {
            files.push(("lib/config/stark/config.py", config));
        }
        let dir = project(&files);
        let (_, items) = check_json(dir.path());
        let out = dldoctor(dir.path(), &["loaders"]);
        (
            codes_of(&items, "DL201"),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (codes, text) = run("TRAIN:\n  NUM_WORKER: 10\n  BATCH_SIZE: 8\n", false);
    assert_eq!(codes, ["lib/train/base_functions.py:6:DL201"], "{text}");
    assert!(
        text.contains("num_workers = 10: TRAIN.NUM_WORKER in ../../experiments/ostrack/vitb_256.yaml line 2, as every one of the 2 config files"),
        "{text}"
    );
    // The files disagree; or two config modules fit the computed name.
    let (codes, text) = run("TRAIN:\n  NUM_WORKER: 6\n", false);
    assert!(codes.is_empty(), "{text}");
    let (codes, text) = run("TRAIN:\n  NUM_WORKER: 10\n", true);
    assert!(codes.is_empty(), "{text}");
}

/// The same family's distillation script merges a teacher's file named at run time into the
/// same module-level config after the student's: every shipped file agreeing, the count
/// stands. The builder module is chosen by a computed name too, and its function fetched by
/// `getattr(module, "build_dataloaders")`.
#[test]
fn two_files_named_at_run_time_and_a_builder_fetched_by_getattr() {
    let config = "\
import yaml
from easydict import EasyDict as edict

cfg = edict()
cfg.TRAIN = edict()
cfg.TRAIN.NUM_WORKER = 4


def _update_config(base_cfg, exp_cfg):
    for k, v in exp_cfg.items():
        base_cfg[k] = v


def update_config_from_file(filename):
    with open(filename) as f:
        _update_config(cfg, edict(yaml.safe_load(f)))
";
    let script = "\
import importlib


def run(settings):
    config_module = importlib.import_module(\"lib.config.%s.config\" % settings.script_name)
    cfg = config_module.cfg
    config_module.update_config_from_file(settings.cfg_file)
    teacher = importlib.import_module(\"lib.config.%s.config\" % settings.script_teacher)
    teacher.update_config_from_file(settings.cfg_file_teacher)
    builder_module = importlib.import_module(\"lib.train.settings.%s\" % settings.script_name)
    loader = getattr(builder_module, \"build_dataloaders\")(cfg, settings)
    for _ in loader:
        pass
";
    let builder = "\
from torch.utils.data import DataLoader


def build_dataloaders(cfg, settings):
    return DataLoader(list(range(64)), num_workers=cfg.TRAIN.NUM_WORKER)
";
    let run = |second_yaml: &str| {
        let dir = project(&[
            ("lib/config/ostrack/config.py", config),
            ("lib/train/train_script.py", script),
            ("lib/train/settings/ostrack.py", builder),
            ("experiments/ostrack/a.yaml", "TRAIN:\n  NUM_WORKER: 10\n"),
            ("experiments/ostrack/b.yaml", second_yaml),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("TRAIN:\n  NUM_WORKER: 10\n"),
        ["lib/train/settings/ostrack.py:5:DL201"]
    );
    assert!(run("TRAIN:\n  NUM_WORKER: 2\n").is_empty());
}

/// A function of a config's own module that writes it (handing it to a helper that assigns
/// its items, `apply(overrides)`; or loading a YAML file through that helper) changes what the
/// default said: the count is not the module's default of 16.
#[test]
fn a_config_module_function_that_writes_the_config_hides_its_default() {
    let config = "\
import yaml
from easydict import EasyDict as edict

cfg = edict()
cfg.TRAIN = edict()
cfg.TRAIN.NUM_WORKER = 16


def _update_config(base_cfg, exp_cfg):
    for k, v in exp_cfg.items():
        base_cfg[k] = v


def update_config_from_file(filename):
    with open(filename) as f:
        _update_config(cfg, edict(yaml.safe_load(f)))


def apply(overrides):
    _update_config(cfg, overrides)


def show():
    print(cfg)
";
    let run = |call: &str| {
        let main = format!(
            "import sys\n\nfrom torch.utils.data import DataLoader\n\nfrom config import apply, cfg, \
             show, update_config_from_file\n\n\ndef main():\n    {call}\n    for _ in \
             DataLoader(list(range(8)), num_workers=cfg.TRAIN.NUM_WORKER):\n        pass\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        );
        let dir = project(&[
            ("config.py", config),
            ("train.py", &main),
            ("configs/small.yaml", "TRAIN:\n  NUM_WORKER: 2\n"),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("show()"), ["train.py:10:DL201"]);
    assert!(run("apply({'TRAIN': {'NUM_WORKER': 2}})").is_empty());
    assert!(run("update_config_from_file(sys.argv[1])").is_empty());
}

/// A yacs config handed to a loader builder of another file (`build_loader(cfg)` in
/// `data.py`) is read as the caller leaves it: its defaults, and the caller's own writes.
#[test]
fn a_yacs_config_handed_to_a_builder_of_another_file() {
    let config = "\
from yacs.config import CfgNode as CN

_C = CN()
_C.DATA = CN()
_C.DATA.NUM_WORKERS = 16
_C.DATA.BATCH_SIZE = 32


def get_cfg_defaults():
    return _C.clone()
";
    let data = "\
from torch.utils.data import DataLoader


def build_loader(cfg):
    return DataLoader(list(range(8)), batch_size=cfg.DATA.BATCH_SIZE,
                      num_workers=cfg.DATA.NUM_WORKERS)
";
    let run = |extra: &str| {
        let train = format!(
            "from config import get_cfg_defaults\nfrom data import build_loader\n\n\ndef main():\n    \
             cfg = get_cfg_defaults()\n{extra}    for _ in build_loader(cfg):\n        pass\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        );
        let dir = project(&[
            ("config.py", config),
            ("data.py", data),
            ("train.py", &train),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run(""), ["data.py:6:DL201"]);
    assert!(run("    cfg.DATA.NUM_WORKERS = 4\n").is_empty());
    assert!(run("    cfg.merge_from_list(['DATA.NUM_WORKERS', 2])\n").is_empty());
}

/// The project's shell scripts that run a training script (`scripts/train.sh`: `python
/// train.py --workers 20`): when every command of them that runs the file passes a larger
/// count than the option's default, DL201 weighs it too, and says where it comes from. The
/// default still holds for a plain run: a default too large warns whatever the scripts pass.
#[test]
fn counts_the_projects_shell_scripts_pass() {
    let train = |default: u32| {
        format!(
            "import argparse\n\nfrom torch.utils.data import DataLoader\n\n\ndef main():\n    \
             parser = argparse.ArgumentParser()\n    parser.add_argument('-j', '--workers', \
             type=int, default={default})\n    args = parser.parse_args()\n    for _ in \
             DataLoader(list(range(8)), num_workers=args.workers):\n        pass\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        )
    };
    let run = |default: u32, scripts: &[(&str, &str)]| {
        let train = train(default);
        let mut files = vec![("train.py", train.as_str())];
        files.extend_from_slice(scripts);
        let dir = project(&files);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let bam = (
        "scripts/bam.sh",
        "python train.py \\\n    --workers 20 \\\n    --lr 0.1\n",
    );
    let (codes, messages) = run(4, &[bam]);
    assert_eq!(codes, ["train.py:10:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=20 (`--workers 20` in scripts/bam.sh line 1, the one command of the \
             project's shell scripts and READMEs that runs train.py, while a run without them \
             gets 4, the default of --workers (line 8))"
        ),
        "{messages:?}"
    );
    // Every command agrees, through the script's own variable, another launcher, the short
    // option; a command that leaves the option out gets the default.
    let agreeing = [
        bam,
        (
            "run.sh",
            "NW=20\nCUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node=1 train.py -j=$NW\n",
        ),
    ];
    assert_eq!(run(4, &agreeing).0, ["train.py:10:DL201"]);
    let leaves_out = [bam, ("run.sh", "python train.py --lr 0.1\n")];
    assert!(run(4, &leaves_out).0.is_empty());
    assert!(
        run(4, &[bam, ("run.sh", "python train.py --workers 6\n")])
            .0
            .is_empty()
    );
    assert!(
        run(4, &[("run.sh", "python train.py --workers $1\n")])
            .0
            .is_empty()
    );
    // A script of another file, or a smaller count.
    assert!(
        run(4, &[("run.sh", "python other.py --workers 20\n")])
            .0
            .is_empty()
    );
    assert!(
        run(4, &[("run.sh", "python train.py --workers 2\n")])
            .0
            .is_empty()
    );
    let (codes, messages) = run(16, &[("run.sh", "python train.py --workers 2\n")]);
    assert_eq!(codes, ["train.py:10:DL201"]);
    assert!(messages[0].starts_with("num_workers=16 (the default of --workers (line 8))"));
}

/// A builder of another module that shares the count out among the processes of a node
/// (`int((opt.num_workers + ngpus_per_node - 1) / ngpus_per_node)`), every caller passing
/// the node's GPU count: the node runs about the whole count, which is what is checked. A
/// caller passing a plain number divides it.
#[test]
fn a_count_shared_out_by_a_gpu_count_callers_of_another_module_pass() {
    let build = "\
import torch


def build_loader(opt, ngpus_per_node):
    num_workers = int((opt.num_workers + ngpus_per_node - 1) / ngpus_per_node)
    return torch.utils.data.DataLoader(list(range(8)), num_workers=num_workers)
";
    let run = |passed: &str| {
        let main = format!(
            "import argparse\n\nimport torch\nimport torch.multiprocessing as mp\n\nfrom \
             datasets.build import build_loader\n\n\ndef main_worker(gpu, ngpus_per_node, \
             args):\n    for _ in build_loader(args, {passed}):\n        pass\n\n\ndef main():\n    \
             parser = argparse.ArgumentParser()\n    parser.add_argument('-j', '--num_workers', \
             type=int, default=40)\n    args = parser.parse_args()\n    ngpus_per_node = \
             torch.cuda.device_count()\n    mp.spawn(main_worker, nprocs=ngpus_per_node, \
             args=(ngpus_per_node, args))\n\n\nif __name__ == '__main__':\n    main()\n"
        );
        let dir = project(&[("datasets/build.py", build), ("main.py", &main)]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("ngpus_per_node"), ["datasets/build.py:6:DL201"]);
    assert!(run("8").is_empty());
}

/// The project's shell scripts that all run a script with no workers (`--num_workers 0`)
/// while it passes `persistent_workers=True`: every such run raises, which DL302 reports with
/// where the 0 comes from. An argument that follows the worker count, or scripts that
/// disagree, say nothing.
#[test]
fn arguments_the_projects_shell_scripts_make_raise() {
    let run = |persistent: &str, scripts: &[(&str, &str)]| {
        let train = format!(
            "import argparse\n\nfrom torch.utils.data import DataLoader\n\nparser = \
             argparse.ArgumentParser()\nparser.add_argument('--num_workers', default=8, \
             type=int)\nargs = parser.parse_args()\n\n\ndef main():\n    loader = \
             DataLoader(list(range(8)), num_workers=args.num_workers,\n                        \
             persistent_workers={persistent})\n    for _ in loader:\n        pass\n\n\nif \
             __name__ == '__main__':\n    main()\n"
        );
        let mut files = vec![("tune.py", train.as_str())];
        files.extend_from_slice(scripts);
        let dir = project(&files);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL302"), messages_of(&items, "DL302"))
    };
    let zero = (
        "expr/etth1/tune.sh",
        "python tune.py --data etth1 --num_workers 0\n",
    );
    let (codes, messages) = run("True", &[zero]);
    assert_eq!(codes, ["tune.py:12:DL302"]);
    assert!(
        messages[0].starts_with(
            "persistent_workers=True with num_workers=0 (`--num_workers 0` in \
             expr/etth1/tune.sh line 1, the one command of the project's shell scripts and \
             READMEs that runs tune.py, while a run without them gets 8, the default of \
             --num_workers (line 6))"
        ),
        "{messages:?}"
    );
    assert!(run("args.num_workers > 0", &[zero]).0.is_empty());
    let four = ("expr/ettm1/tune.sh", "python tune.py --num_workers 4\n");
    assert!(run("True", &[zero, four]).0.is_empty());
    assert!(run("True", &[]).0.is_empty());
    // The loader built where a module-level loop iterates it: what a `for` iterates over runs
    // whenever the loop does.
    let module_level = "import argparse\n\nfrom torch.utils.data import DataLoader\n\nparser = \
                        argparse.ArgumentParser()\nparser.add_argument('--num_workers', \
                        default=8, type=int)\nargs = parser.parse_args()\n\nfor _ in \
                        DataLoader(list(range(8)), num_workers=args.num_workers,\n         \
                        persistent_workers=True):\n    pass\n";
    let dir = project(&[("tune.py", module_level), zero]);
    assert_eq!(
        codes_of(&check_json(dir.path()).1, "DL302"),
        ["tune.py:10:DL302"]
    );
}

/// A namespace another module parses at import (`opt = parser.parse_args()` in `opt.py`),
/// rewritten by the script that reads it (`opt.nThreads = int(opt.nThreads / num_gpu)`, shared
/// out by the GPU count): that write is the script's own, read in place; a write in another
/// file that imports the namespace still leaves the count unknown.
#[test]
fn a_namespace_parsed_at_import_rewritten_by_the_script_that_reads_it() {
    let opt = "\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument('--nThreads', type=int, default=60)
opt = parser.parse_args()
";
    let run = |write: &str, other: Option<&str>| {
        let train = format!(
            "import torch\n\nfrom opt import opt\n\nnum_gpu = torch.cuda.device_count()\n\n\n\
             def main():\n    {write}\n    for _ in torch.utils.data.DataLoader(list(range(8)), \
             num_workers=opt.nThreads):\n        pass\n\n\nif __name__ == '__main__':\n    \
             main()\n"
        );
        let mut files = vec![("opt.py", opt), ("train.py", train.as_str())];
        if let Some(other) = other {
            files.push(("utils.py", other));
        }
        let dir = project(&files);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let shared = "opt.nThreads = int(opt.nThreads / num_gpu)";
    assert_eq!(run(shared, None), ["train.py:10:DL201"]);
    assert!(run("opt.nThreads = 2", None).is_empty());
    let elsewhere = "from opt import opt\n\n\ndef setup():\n    opt.nThreads = 2\n";
    assert!(run(shared, Some(elsewhere)).is_empty());
}

/// A data module kept from `**kwargs` (`self.num_workers = kwargs["num_workers"]`) that the
/// script of another module builds from its namespace unpacked whole (`DataModule(**vars(args))`,
/// or `**hparams` after `hparams = dotdict(vars(args))`), while it tunes the namespace first
/// (`args.num_workers = min(args.num_workers, 16)`): the key is the namespace's attribute. A keyword passed beside
/// the unpacking, or a write on an object that may be the instance, leaves it unknown.
#[test]
fn a_data_module_kept_from_kwargs_that_another_module_unpacks_a_namespace_into() {
    let config = "\
import argparse


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_workers', default=16, type=int)
    parser.add_argument('--batch_size', default=256, type=int)
    return parser.parse_args()
";
    let utils = "\
class dotdict(dict):
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__
";
    let data = "\
from torch.utils.data import DataLoader


class DataModule:
    def __init__(self, **kwargs):
        self.num_workers = kwargs['num_workers']

    def train_dataloader(self):
        return DataLoader(list(range(8)), num_workers=self.num_workers)
";
    let run = |build: &str, after: &str| {
        let main = format!(
            "import config\nimport data\nfrom utils import dotdict\n\n\ndef main(args):\n    \
             hparams = dotdict(vars(args))\n    dm = {build}\n    {after}\n    return dm\n\n\n\
             if __name__ == '__main__':\n    args = config.get_args()\n    \
             args.num_workers = min(args.num_workers, 16)\n    main(args)\n"
        );
        let dir = project(&[
            ("config.py", config),
            ("utils.py", utils),
            ("data.py", data),
            ("main.py", main.as_str()),
        ]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(
        run("data.DataModule(**vars(args))", "pass"),
        ["data.py:9:DL201"]
    );
    assert_eq!(
        run("data.DataModule(**hparams)", "pass"),
        ["data.py:9:DL201"]
    );
    assert!(run("data.DataModule(**hparams, num_workers=2)", "pass").is_empty());
    assert!(run("data.DataModule(**hparams)", "dm.num_workers = 2").is_empty());
}

/// The same in one file: the constructions of the class there unpack the namespace whole.
#[test]
fn a_class_kept_from_kwargs_built_in_its_own_file() {
    let run = |build: &str| {
        let main = format!(
            "import argparse\n\nfrom torch.utils.data import DataLoader\n\n\nclass DM:\n    \
             def __init__(self, **kwargs):\n        self.num_workers = kwargs['num_workers']\n\n    \
             def loader(self):\n        return DataLoader(list(range(8)), \
             num_workers=self.num_workers)\n\n\ndef main():\n    parser = \
             argparse.ArgumentParser()\n    parser.add_argument('--num_workers', default=16, \
             type=int)\n    args = parser.parse_args()\n    return {build}\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        );
        let dir = project(&[("train.py", main.as_str())]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    assert_eq!(run("DM(**vars(args))"), ["train.py:11:DL201"]);
    assert!(run("DM(**vars(args), num_workers=4)").is_empty());
    assert!(run("DM(num_workers=4)").is_empty());
}

/// A loader builder of another module whose collator moves batches to the device it is handed
/// (`Collator(device=device)`, `.to(self.device)` in `__call__`), called from a Hydra entry
/// point's process (`mp.spawn(main, args=(config,))`) with `torch.device(f"cuda:{gpu}")` and
/// the config's worker count: DL101 when every caller passes a CUDA device and the config
/// gives workers, quiet with a CPU device or none.
#[test]
fn a_collator_handed_the_training_scripts_cuda_device() {
    let build = "\
import torch
from torch.utils.data import DataLoader


class Collator:
    def __init__(self, device='cpu'):
        self.device = device

    def __call__(self, batch):
        return torch.stack(batch).to(self.device)


def build_loaders(config=None, device='cpu'):
    collators = {'train': Collator(device=device)}
    return DataLoader(list(range(8)), batch_size=4,
                      num_workers=config.optimizer.num_workers,
                      collate_fn=collators['train'])
";
    let run = |device: &str, workers: u32| {
        let train = format!(
            "import hydra\nimport torch\nimport torch.multiprocessing as mp\n\n\
             from data.build import build_loaders\n\n\ndef main(gpu, config):\n    \
             device = {device}\n    return build_loaders(config, device=device)\n\n\n\
             @hydra.main(config_path='configs', config_name='cfg')\ndef run_main(config):\n    \
             mp.spawn(main, nprocs=2, args=(config,))\n\n\nif __name__ == '__main__':\n    \
             run_main()\n"
        );
        let config = format!("optimizer:\n  num_workers: {workers}\n");
        let dir = project(&[
            ("data/__init__.py", ""),
            ("data/build.py", build),
            ("configs/cfg.yaml", config.as_str()),
            ("train.py", train.as_str()),
        ]);
        codes_of(&check_json(dir.path()).1, "DL101")
    };
    assert_eq!(
        run("torch.device(f'cuda:{gpu}')", 2),
        ["data/build.py:17:DL101"]
    );
    assert!(run("torch.device('cpu')", 2).is_empty());
    assert!(run("torch.device(f'cuda:{gpu}')", 0).is_empty());
}

/// A namespace updated from option files by computed name (`vars(args).update(...)`) only
/// under a flag the defaults leave empty (`--options`, `default=[]`; `--cfg`, `default=None`):
/// the update never runs, so the default stands; with a default that names a file, it may
/// change any attribute and the count stays unknown.
#[test]
fn a_namespace_updated_from_option_files_only_when_some_are_named() {
    let run = |options_default: &str, guarded_call: &str| {
        let train = format!(
            "import argparse\n\nimport yaml\nfrom torch.utils.data import DataLoader\n\n\n\
             def load_options(args, options):\n    varargs = vars(args)\n    for o in options:\n        \
             with open(o) as f:\n            varargs.update(yaml.safe_load(f))\n\n\n\
             def main(args):\n    return DataLoader(list(range(8)), num_workers=args.num_workers)\n\n\n\
             if __name__ == '__main__':\n    parser = argparse.ArgumentParser()\n    \
             parser.add_argument('--num_workers', default=10, type=int)\n    \
             parser.add_argument('--options', default={options_default}, nargs='*')\n    \
             args = parser.parse_args()\n    if args.options:\n        {guarded_call}\n    \
             main(args)\n"
        );
        let dir = project(&[("train.py", train.as_str())]);
        codes_of(&check_json(dir.path()).1, "DL201")
    };
    let helper = "load_options(args, args.options)";
    let inline = "vars(args).update(yaml.safe_load(open(args.options[0])))";
    assert_eq!(run("[]", helper), ["train.py:15:DL201"]);
    assert_eq!(run("None", inline), ["train.py:15:DL201"]);
    assert!(run("['exp.yaml']", helper).is_empty());
    assert!(run("['exp.yaml']", inline).is_empty());
}

/// A README's shell code blocks count as the project's scripts do (users copy its training
/// command): `python -m pkg.train --num_workers 12`, found from a folder the README `cd`s
/// into, and a command whose last line ends in `\`. A Python block, or a README command
/// that disagrees with a script, adds nothing.
#[test]
fn counts_the_commands_of_a_readme() {
    let train = "import argparse\n\nfrom torch.utils.data import DataLoader\n\nparser = \
                 argparse.ArgumentParser()\nparser.add_argument('--num_workers', type=int, \
                 default=4)\nargs = parser.parse_args()\nfor _ in DataLoader(list(range(8)), \
                 num_workers=args.num_workers):\n    pass\n";
    let run = |readme: &str, extra: &[(&str, &str)]| {
        let mut files = vec![("src/training/train.py", train), ("README.md", readme)];
        files.extend_from_slice(extra);
        let dir = project(&files);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let readme = "# Train\n\n```shell\n$ CUDA_VISIBLE_DEVICES=0 python -m training.train \\\n  \
                  --num_workers 12 \\\n```\n\nFirst:\n\n```bash\ncd src\n```\n";
    let (codes, messages) = run(readme, &[]);
    assert_eq!(codes, ["src/training/train.py:8:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=12 (`--num_workers 12` in README.md line 4, the one command of the \
             project's shell scripts and READMEs that runs train.py, while a run without them \
             gets 4"
        ),
        "{messages:?}"
    );
    // The file found from the README's own folder.
    let direct = "```\npython src/training/train.py --num_workers=12\n```\n";
    assert_eq!(run(direct, &[]).0, ["src/training/train.py:8:DL201"]);
    // Not shell; or no fence at all.
    let python = "```python\npython src/training/train.py --num_workers 12\n```\n";
    assert!(run(python, &[]).0.is_empty());
    assert!(
        run(
            "Run `python src/training/train.py --num_workers 12`.\n",
            &[]
        )
        .0
        .is_empty()
    );
    // A script that runs it with the default disagrees.
    let script = (
        "scripts/train.sh",
        "python src/training/train.py --lr 0.1\n",
    );
    assert!(run(direct, &[script]).0.is_empty());
}

/// A yacs config merged from a `--cfg` a run must give (`required=True`): the file every
/// command of the project's scripts and READMEs names is what a run loads, and the config
/// files the project ships need not agree. Without such a command, or when two disagree, the
/// value stays what the shipped files agree on (here nothing).
#[test]
fn merges_the_config_file_a_readme_names() {
    let train = "\
import argparse

import torch
from seg.config import cfg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(\"--cfg\", required=True, type=str)
    args = parser.parse_args()
    cfg.merge_from_file(args.cfg)
    for batch in torch.utils.data.DataLoader(ds, num_workers=cfg.TRAIN.workers):
        pass


if __name__ == \"__main__\":
    main()
";
    let defaults = "from yacs.config import CfgNode as CN\n\n_C = CN()\n_C.TRAIN = CN()\n\
                    _C.TRAIN.workers = 4\ncfg = _C\n";
    let run_with = |train: &str, readme: &str| {
        let dir = project(&[
            ("tools/train.py", train),
            ("seg/__init__.py", ""),
            ("seg/config.py", defaults),
            ("experiments/big.yaml", "TRAIN:\n  workers: 24\n"),
            ("experiments/small.yaml", "TRAIN:\n  workers: 2\n"),
            ("README.md", readme),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let run = |readme: &str| run_with(train, readme);
    let big = "```bash\npython tools/train.py --cfg experiments/big.yaml\n```\n";
    // A `cfg` attribute of another object is not the option's; a write of the namespace's is.
    let other_object =
        format!("{train}\n\nclass Net:\n    def __init__(self, cfg):\n        self.cfg = cfg\n");
    assert_eq!(run_with(&other_object, big).0, ["tools/train.py:12:DL201"]);
    let rewritten = train.replace(
        "    cfg.merge_from_file",
        "    args.cfg = 'experiments/small.yaml'\n    cfg.merge_from_file",
    );
    assert!(run_with(&rewritten, big).0.is_empty());
    let (codes, messages) = run(big);
    assert_eq!(codes, ["tools/train.py:12:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=24 (TRAIN.workers in ../experiments/big.yaml line 2, the config `--cfg \
             experiments/big.yaml` names in README.md line 2)"
        ),
        "{messages:?}"
    );
    assert!(
        run("```bash\npython tools/train.py --cfg experiments/small.yaml\n```\n")
            .0
            .is_empty()
    );
    assert!(run("# Nothing to run\n").0.is_empty());
    assert!(
        run(
            "```bash\npython tools/train.py --cfg experiments/big.yaml\n\
             python tools/train.py --cfg experiments/small.yaml\n```\n"
        )
        .0
        .is_empty()
    );
}

/// A YAML config opened from a `--cfg` a run must give (`default=None`) and read with PyYAML:
/// the file the README's commands name is what runs; when they name several, the value is
/// what every one of them gives (a placeholder naming no file of the project is the user's
/// own and passed over). The config handed through `config = update(config, args)`, a
/// function of the file returning it, is still the file's. Files that disagree, no command,
/// or a write of the option leave it unknown.
#[test]
fn pyyaml_config_the_readme_commands_name() {
    let main = "\
import argparse

import yaml
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument(\"--cfg\", default=None, type=str)
args = parser.parse_args()


def update(config, args):
    config[\"training_opt\"][\"batch_size\"] = 64
    return config


with open(args.cfg) as f:
    config = yaml.load(f)
config = update(config, args)
opt = config[\"training_opt\"]
for batch in DataLoader(ds, batch_size=opt[\"batch_size\"], num_workers=opt[\"num_workers\"]):
    pass
";
    let run_with = |main: &str, readme: &str| {
        let dir = project(&[
            ("main.py", main),
            (
                "config/a.yaml",
                "training_opt:\n  num_workers: 12\n  batch_size: 8\n",
            ),
            (
                "config/b.yaml",
                "training_opt:\n  num_workers: 12\n  batch_size: 16\n",
            ),
            ("config/small.yaml", "training_opt:\n  num_workers: 2\n"),
            ("README.md", readme),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let run = |readme: &str| run_with(main, readme);
    let both = "```bash\npython main.py --cfg ./config/a.yaml\npython main.py --cfg ./config/b.yaml\n\
                python main.py --cfg /path/to/your/config.yaml\n```\n";
    let (codes, messages) = run(both);
    assert_eq!(codes, ["main.py:20:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=12 (training_opt.num_workers in config/a.yaml line 2, the config `--cfg \
             ./config/a.yaml` names in README.md line 2, as does the other config file the \
             project's commands name)"
        ),
        "{messages:?}"
    );
    let (codes, messages) = run("```bash\npython main.py --cfg config/b.yaml\n```\n");
    assert_eq!(codes, ["main.py:20:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=12 (training_opt.num_workers in config/b.yaml line 2, the config `--cfg \
             config/b.yaml` names in README.md line 2)"
        ),
        "{messages:?}"
    );
    let disagree = "```bash\npython main.py --cfg config/a.yaml\npython main.py --cfg config/small.yaml\n```\n";
    assert!(run(disagree).0.is_empty());
    assert!(run("# Nothing to run\n").0.is_empty());
    let rewritten = main.replace("with open", "args.cfg = \"config/small.yaml\"\nwith open");
    assert!(run_with(&rewritten, both).0.is_empty());
    let given_default = main.replace("default=None", "default=\"config/small.yaml\"");
    assert!(run_with(&given_default, both).0.is_empty());
    let written = main.replace(
        "    return config",
        "    config[\"training_opt\"][\"num_workers\"] = 2\n    return config",
    );
    assert!(run_with(&written, both).0.is_empty());
}

/// An attribute the code assigns on a local object before reading it, in straight-line code
/// (`config = Config(); config.load(log); config.input_threads = 10`, then
/// `num_workers=config.input_threads`): the last assignment holds. One under a condition, a
/// method of the object, `setattr`, a function of the project (this file's or another's)
/// assigning the attribute on the object it is handed, the name bound anew, or an assignment
/// later in a loop around the read, leave it unknown; a call handing the object to code that
/// does not assign it does not.
#[test]
fn attributes_assigned_before_the_read() {
    let script = |between: &str| {
        format!(
            "from torch.utils.data import DataLoader\nfrom utils.config import Config\nfrom \
             utils.tweaks import lower\n\n\ndef shrink(c):\n    c.input_threads = 2\n\n\n\
             def show(c):\n    print(c.input_threads)\n\n\ndef main(log):\n    config = \
             Config()\n    config.load(log)\n    config.input_threads = 10\n{between}    \
             loader = DataLoader([1, 2], num_workers=config.input_threads)\n    for batch in \
             loader:\n        pass\n\n\nif __name__ == \"__main__\":\n    main(\"log\")\n"
        )
    };
    let run = |between: &str| {
        let dir = project(&[
            ("train.py", &script(between)),
            ("utils/__init__.py", ""),
            (
                "utils/config.py",
                "class Config:\n    input_threads = 4\n\n    def load(self, path):\n        \
                 for k, v in read(path).items():\n            setattr(self, k, v)\n",
            ),
            (
                "utils/tweaks.py",
                "def lower(config):\n    config.input_threads = 1\n",
            ),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = run("");
    assert_eq!(codes, ["train.py:18:DL201"]);
    assert!(
        messages[0].starts_with("num_workers=10 (the value of config.input_threads (line 17))"),
        "{messages:?}"
    );
    // Handed to code that reads it, or to a function outside the project.
    assert_eq!(run("    show(config)\n    print(config)\n").0.len(), 1);
    for between in [
        "    if log:\n        config.input_threads = 2\n",
        "    config.load(log)\n",
        "    setattr(config, \"input_threads\", 2)\n",
        "    shrink(config)\n",
        "    lower(config=config)\n",
        "    config = Config()\n",
    ] {
        assert!(run(between).0.is_empty(), "{between}");
    }
    let conditional = script("").replace(
        "    config.input_threads = 10\n",
        "    if log:\n        config.input_threads = 10\n",
    );
    let looped = script("").replace(
        "    loader = DataLoader([1, 2], num_workers=config.input_threads)\n",
        "    for epoch in range(2):\n        loader = DataLoader([1, 2], \
         num_workers=config.input_threads)\n        config.input_threads = 2\n",
    );
    for text in [conditional, looped] {
        let dir = project(&[("train.py", &text)]);
        let (_, items) = check_json(dir.path());
        assert!(codes_of(&items, "DL201").is_empty(), "{text}");
    }
}

/// A Hydra entry point whose primary config the project does not ship (`config_name="train"`
/// without `train.yaml`): the configs the README's commands name with `--config-name` are
/// what runs, and a value they all give holds. Configs that disagree, a command that names
/// none, or one that overrides the key (`num_workers=2`) leave it unknown.
#[test]
fn hydra_config_the_readme_commands_name() {
    let train = "\
import hydra
from torch.utils.data import DataLoader


@hydra.main(version_base=\"1.2\", config_path=\"configs\", config_name=\"train\")
def main(cfg):
    loader = DataLoader(range(10), batch_size=cfg.batch_size, num_workers=cfg.num_workers)
    for batch in loader:
        pass


if __name__ == \"__main__\":
    main()
";
    let run = |readme: &str| {
        let dir = project(&[
            ("train.py", train),
            (
                "configs/train_kitchen.yaml",
                "batch_size: 8\nnum_workers: 15\n",
            ),
            (
                "configs/train_pusht.yaml",
                "batch_size: 16\nnum_workers: 15\n",
            ),
            ("configs/train_small.yaml", "num_workers: 2\n"),
            ("README.md", readme),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = run(
        "```bash\npython3 train.py --config-name=train_kitchen\npython3 train.py -cn train_pusht seed=3\n```\n",
    );
    assert_eq!(codes, ["train.py:7:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=15 (num_workers in configs/train_kitchen.yaml line 2, the config \
             `--config-name=train_kitchen` names in README.md line 2, as does the other config \
             file the project's commands name)"
        ),
        "{messages:?}"
    );
    for readme in [
        "```bash\npython3 train.py --config-name=train_kitchen\npython3 train.py --config-name=train_small\n```\n",
        "```bash\npython3 train.py --config-name=train_kitchen num_workers=2\n```\n",
        "```bash\npython3 train.py --config-name=train_kitchen\npython3 train.py --config-name=train_kitchen num_workers=2\n```\n",
        "```bash\npython3 train.py --config-name=train_kitchen\npython3 train.py seed=3\n```\n",
        "```bash\npython3 train.py --config-name=train_missing\n```\n",
    ] {
        assert!(run(readme).0.is_empty(), "{readme}");
    }
}

/// A primary config whose `defaults:` leave groups to the command line (`- model: ???`): each
/// command of the README chooses them (`model=vq_gan dataset=brats`) and may set keys
/// (`model.num_workers=32`); the value is what every command gives.
#[test]
fn hydra_groups_the_readme_commands_choose() {
    let train = "\
import hydra
from torch.utils.data import DataLoader


@hydra.main(config_path=\"../config\", config_name=\"base_cfg\", version_base=None)
def run(cfg):
    loader = DataLoader(range(10), batch_size=cfg.model.batch_size, num_workers=cfg.model.num_workers)
    for batch in loader:
        pass


if __name__ == \"__main__\":
    run()
";
    let check = |readme: &str| {
        let dir = project(&[
            ("train/train_vqgan.py", train),
            (
                "config/base_cfg.yaml",
                "defaults:\n  - dataset: ???\n  - model: ???\n",
            ),
            ("config/dataset/brats.yaml", "root_dir: /data\n"),
            ("config/dataset/lidc.yaml", "root_dir: /lidc\n"),
            (
                "config/model/vq_gan.yaml",
                "batch_size: 2\nnum_workers: 30\n",
            ),
            ("config/model/small.yaml", "batch_size: 2\nnum_workers: 4\n"),
            ("README.md", readme),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = check(
        "```\nPL_BACKEND=gloo python train/train_vqgan.py dataset=brats model=vq_gan \
         model.num_workers=32 model.lr=3e-4\npython train/train_vqgan.py dataset=lidc \
         dataset.root_dir=<PATH> model=vq_gan model.num_workers=32\n```\n",
    );
    assert_eq!(codes, ["train/train_vqgan.py:7:DL201"]);
    assert!(
        messages[0].starts_with("num_workers=32 (`model.num_workers=32` in README.md line 2)"),
        "{messages:?}"
    );
    // The group's own file gives the count when no command sets it.
    let (codes, messages) =
        check("```\npython train/train_vqgan.py dataset=brats model=vq_gan\n```\n");
    assert_eq!(codes, ["train/train_vqgan.py:7:DL201"]);
    assert!(
        messages[0].starts_with(
            "num_workers=30 (model.num_workers in ../config/model/vq_gan.yaml line 2, the config \
             `dataset=brats model=vq_gan` names in README.md line 2)"
        ),
        "{messages:?}"
    );
    for quiet in [
        // A command sets a count the CPUs allow, or chooses a model that does.
        "```\npython train/train_vqgan.py dataset=brats model=vq_gan model.num_workers=4\n```\n",
        "```\npython train/train_vqgan.py dataset=brats model=small\n```\n",
        // Commands that disagree, one that leaves a group unchosen, or none at all.
        "```\npython train/train_vqgan.py dataset=brats model=vq_gan\npython train/train_vqgan.py \
         dataset=brats model=small\n```\n",
        "```\npython train/train_vqgan.py dataset=brats model=vq_gan ~model.num_workers\n```\n",
        "```\npython train/train_vqgan.py dataset=brats model=missing\n```\n",
        "# Nothing to run\n",
    ] {
        assert!(check(quiet).0.is_empty(), "{quiet}");
    }
}

/// `def setup(num_workers=None): if num_workers is None: num_workers = 12`: the rebinding runs
/// whenever the use does (the callers pass nothing), so it is the value. A caller passing a
/// count, a condition that cannot be read, or the use in a loop that rebinds leaves it to
/// them. In a class, a private method's calls through `self` are all its calls; a public one
/// may be called with anything by whoever holds an instance.
#[test]
fn parameters_defaulted_when_none() {
    let script = |body: &str| {
        format!(
            "import os\nfrom torch.utils.data import DataLoader\n\n\ndef setup(num_workers=None):\n\
             {body}    return DataLoader(range(10), num_workers=num_workers)\n\n\n\
             class Runner:\n    def _loaders(self, num_workers=None):\n{body}        \
             self.loader = DataLoader(range(10), num_workers=num_workers)\n\n    def run(self):\n        \
             self._loaders()\n        for batch in self.loader:\n            pass\n\n\n\
             if __name__ == \"__main__\":\n    for batch in setup():\n        pass\n    Runner().run()\n"
        )
        .replace("{body}", "")
    };
    let run = |text: &str| {
        let dir = project(&[("train.py", text)]);
        let (_, items) = check_json(dir.path());
        codes_of(&items, "DL201")
    };
    let defaulted =
        |indent: &str| format!("{indent}if num_workers is None:\n{indent}    num_workers = 12\n");
    let text = script("").replacen(
        "\n    return DataLoader",
        &format!("\n{}    return DataLoader", defaulted("    ")),
        1,
    );
    let text = text.replacen(
        "        self.loader = DataLoader",
        &format!("{}        self.loader = DataLoader", defaulted("        ")),
        1,
    );
    assert_eq!(run(&text), ["train.py:15:DL201", "train.py:8:DL201"]);
    // A public method may be called with anything: its `None` is one caller's.
    assert_eq!(
        run(&text.replace("_loaders", "loaders")),
        ["train.py:8:DL201"]
    );
    assert!(
        run(&text.replace("setup()", "setup(2)"))
            .iter()
            .all(|c| c != "train.py:8:DL201")
    );
    let unknown = text.replacen(
        "    if num_workers is None:",
        "    if num_workers is None and os.path.exists(\"/data\"):",
        1,
    );
    assert_eq!(run(&unknown), ["train.py:15:DL201"]);
}

/// A dict of settings whose origin cannot be read (a module imported by name at run time)
/// has a key written just before it is handed on (`config["workers"] = 32`, then
/// `train(config)`): the callee's read of that key holds it, though a class elsewhere has a
/// parameter of the callee's name (`def __init__(self, config, train=True)`). A write that
/// may not run, one after the call, a write of the key in another function, or the name bound
/// anew in between, leave it unknown.
#[test]
fn keys_written_before_a_dict_is_handed_on() {
    let script = |main: &str| {
        format!(
            "import argparse\nfrom importlib import import_module\n\nfrom torch.utils.data import \
             DataLoader, Dataset\n\n\ndef main():\n    args = argparse.ArgumentParser().parse_args()\n    \
             config, *_ = import_module(args.model).get_model()\n{main}\n\n\ndef train(config):\n    \
             dataset = Items(config, train=True)\n    loader = DataLoader(dataset, \
             num_workers=config[\"workers\"])\n    for batch in loader:\n        pass\n\n\n\
             class Items(Dataset):\n    def __init__(self, config, train=True):\n        \
             self.train = train\n\n\nif __name__ == \"__main__\":\n    main()\n"
        )
    };
    let run = |main: &str| {
        let text = script(main);
        let dir = project(&[("preprocess.py", text.as_str())]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) =
        run("    config[\"preprocess\"] = False\n    config[\"workers\"] = 32\n    train(config)");
    assert_eq!(codes, ["preprocess.py:17:DL201"]);
    assert!(
        messages[0].starts_with("num_workers=32 (the value of config[\"workers\"] (line 11))"),
        "{messages:?}"
    );
    for quiet in [
        "    if args.big:\n        config[\"workers\"] = 32\n    train(config)",
        "    train(config)\n    config[\"workers\"] = 32",
        "    config[\"workers\"] = 32\n    config = dict(config)\n    train(config)",
        "    config[\"workers\"] = 32\n    train(config)\n\n\ndef shrink(config):\n    \
         config[\"workers\"] = 2",
        "    config[\"workers\"] = 32\n    config.update(args.overrides)\n    train(config)",
    ] {
        assert!(run(quiet).0.is_empty(), "{quiet}");
    }
}

/// A function the project never calls (a module of helpers others import) is called by code
/// outside it: its default is what a call that leaves the parameter out gets. A call in the
/// project that passes another count, or one whose arguments cannot be read, still decides.
#[test]
fn defaults_of_functions_the_project_never_calls() {
    let helpers = "from torch.utils.data import DataLoader\n\n\ndef imagenet_loaders(train, \
                   val, batch_size=64, workers=10):\n    train_dl = DataLoader(train, \
                   batch_size=batch_size, num_workers=workers)\n    val_dl = DataLoader(val, \
                   batch_size=batch_size, num_workers=workers)\n    return train_dl, val_dl\n";
    let run = |caller: Option<&str>| {
        let mut files = vec![("datasets/imagenet.py", helpers)];
        if let Some(caller) = caller {
            files.push(("train.py", caller));
        }
        let dir = project(&files);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = run(None);
    assert_eq!(
        codes,
        [
            "datasets/imagenet.py:5:DL201",
            "datasets/imagenet.py:6:DL201"
        ]
    );
    assert!(
        messages[0].starts_with(
            "num_workers=10 (the default of workers in imagenet_loaders (line 4)) exceeds"
        ),
        "{messages:?}"
    );
    let passes = "from datasets.imagenet import imagenet_loaders\n\nloaders = \
                  imagenet_loaders(a, b, workers=4)\n";
    assert!(run(Some(passes)).0.is_empty());
    let unread = "from datasets.imagenet import imagenet_loaders\n\nloaders = \
                  imagenet_loaders(*parts)\n";
    assert!(run(Some(unread)).0.is_empty());
}

/// `getattr(data.loaders, args.dataset)(args)` calls whichever builder of the module the
/// command line names: each builder gets the namespace, so its workers come from the parser's
/// default. A pick kept to be called later cannot be read, and a pick by another name, or
/// from another object, calls none of them.
#[test]
fn builders_picked_by_name_from_a_module() {
    let builders = "import torch\n\n\ndef imagenet(args):\n    return \
                    torch.utils.data.DataLoader(ds, num_workers=args.workers)\n\n\ndef \
                    cifar10(args):\n    return torch.utils.data.DataLoader(ds, \
                    num_workers=args.workers)\n";
    let main = |pick: &str| {
        format!(
            "import argparse\nimport data.loaders\n\nparser = \
             argparse.ArgumentParser()\nparser.add_argument('--dataset', \
             default='imagenet')\nparser.add_argument('-j', '--workers', default=32, \
             type=int)\n\n\ndef main():\n    args = parser.parse_args()\n    {pick}\n\n\nif \
             __name__ == '__main__':\n    main()\n"
        )
    };
    let run = |pick: &str| {
        let main = main(pick);
        let dir = project(&[
            ("data/__init__.py", ""),
            ("data/loaders.py", builders),
            ("train.py", &main),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = run("loader = getattr(data.loaders, args.dataset)(args)");
    assert_eq!(
        codes,
        ["data/loaders.py:5:DL201", "data/loaders.py:9:DL201"],
        "{messages:?}"
    );
    assert!(messages[0].starts_with("num_workers=32"), "{messages:?}");
    let kept = "build = getattr(data.loaders, args.dataset)\n    loader = build(args)";
    assert!(run(kept).0.is_empty());
    let other = "loader = getattr(data.loaders, 'mnist')(args)";
    assert!(run(other).0.is_empty());
    let not_the_module = "loader = getattr(args.loaders, args.dataset)(args)";
    assert!(run(not_the_module).0.is_empty());
}

/// A builder picked by name gets what the pick's call passes, not its own default, which holds
/// only for a function the project never calls.
#[test]
fn picked_builders_take_what_the_pick_passes() {
    let builders = "import torch


def imagenet(ds, workers=16):
    return                     torch.utils.data.DataLoader(ds, num_workers=workers)
";
    let run = |pick: &str| {
        let main = format!(
            "import sys
from data import loaders

{pick}
"
        );
        let dir = project(&[
            ("data/__init__.py", ""),
            ("data/loaders.py", builders),
            ("train.py", &main),
        ]);
        let (_, items) = check_json(dir.path());
        codes_of(&items, "DL201")
    };
    assert_eq!(
        run("loader = getattr(loaders, sys.argv[1])(ds)"),
        ["data/loaders.py:5:DL201"]
    );
    assert!(run("loader = getattr(loaders, sys.argv[1])(ds, workers=2)").is_empty());
    assert!(run("build = getattr(loaders, sys.argv[1])\nloader = build(ds, 2)").is_empty());
    assert_eq!(
        run("loader = getattr(loaders, 'cifar')(ds, workers=2)"),
        ["data/loaders.py:5:DL201"]
    );
}

/// Branch conditions that read a config whose writes sit under other such conditions, as in
/// a training script that shares its workers among GPUs block after block: each condition was
/// read again for every value that asked, exponentially in the depth, and `check` did not
/// finish on such a file (nine blocks here: hours). It must finish long before the deadline.
#[test]
fn interlocked_branch_conditions_finish() {
    let config = r#"from yacs.config import CfgNode as CN

_C = CN()
_C.workers = 16
_C.dataset = 'cifar10'
_C.gpu = 0
_C.world_size = -1
_C.rank = -1
_C.dist_url = 'tcp://localhost:23456'
_C.multiprocessing_distributed = False
_C.distributed = False
_C.batch_size = 128
_C.resume = ''
config = _C


def update_config(cfg, args):
    cfg.defrost()
    cfg.merge_from_file(args.cfg)
    cfg.freeze()
"#;
    let block = r#"    if config.distributed:
        if config.gpu is not None:
            config.batch_size = int(config.batch_size / ngpus)
            config.workers = int((config.workers + ngpus - 1) / ngpus)
    elif config.gpu is not None:
        config.rank = config.rank + 1
"#;
    let train = format!(
        r#"import argparse
import os

import torch
import torch.multiprocessing as mp

from datasets.cifar import CIFAR_LT
from utils.config import config, update_config


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg', required=True, type=str)
    args = parser.parse_args()
    update_config(config, args)
    return args


def main():
    args = parse_args()
    if config.dist_url == "env://" and config.world_size == -1:
        config.world_size = int(os.environ["WORLD_SIZE"])
    config.distributed = config.world_size > 1 or config.multiprocessing_distributed
    ngpus = torch.cuda.device_count()
    if config.multiprocessing_distributed:
        config.world_size = ngpus * config.world_size
        mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, config))
    else:
        main_worker(config.gpu, ngpus, config)


def main_worker(gpu, ngpus, config):
    config.gpu = gpu
    if config.distributed:
        if config.dist_url == "env://" and config.rank == -1:
            config.rank = int(os.environ["RANK"])
        if config.multiprocessing_distributed:
            config.rank = config.rank * ngpus + gpu
    if config.distributed:
        if config.gpu is not None:
            config.batch_size = int(config.batch_size / ngpus)
            config.workers = int((config.workers + ngpus - 1) / ngpus)
    elif config.gpu is not None:
        torch.cuda.set_device(config.gpu)
{blocks}    if config.resume:
        if config.gpu is None:
            print(config.resume)
        elif config.gpu is not None:
            print(config.gpu)
    if config.dataset == 'cifar10':
        dataset = CIFAR_LT(config.distributed, batch_size=config.batch_size, num_works=config.workers)
    elif config.dataset == 'cifar100':
        dataset = CIFAR_LT(config.distributed, batch_size=config.batch_size, num_works=config.workers)
    for batch in dataset.loader:
        pass


if __name__ == '__main__':
    main()
"#,
        blocks = block.repeat(9)
    );
    let dir = project(&[
        ("utils/__init__.py", ""),
        ("utils/config.py", config),
        ("datasets/__init__.py", ""),
        (
            "datasets/cifar.py",
            r#"import torch


class CIFAR_LT:
    def __init__(self, distributed, batch_size=128, num_works=40):
        self.loader = torch.utils.data.DataLoader(range(10), batch_size=batch_size, num_workers=num_works)
"#,
        ),
        ("train.py", &train),
    ]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dldoctor"))
        .args(["check", "--format", "json", "--assume-cpus", "8"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("check did not finish within two minutes");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let items: Value = serde_json::from_slice(&out.stdout).expect("json output");
    assert!(items.is_array(), "{items}");
}

#[test]
fn hf_trainers_given_the_training_arguments_the_commands_set() {
    let arguments = "\
from dataclasses import dataclass, field

from transformers import TrainingArguments


@dataclass
class DataArguments:
    max_len: int = field(default=128)
    num_workers: int = field(default=4)


@dataclass
class PretrainArguments(TrainingArguments):
    warmup_ratio: float = field(default=0.1)


@dataclass
class CoPretrainArguments(PretrainArguments):
    cache_chunk_size: int = field(default=-1)
";
    let trainer = "\
from transformers import Trainer


class PretrainTrainer(Trainer):
    def compute_loss(self, model, inputs):
        return model(**inputs).loss


class CachedTrainer(PretrainTrainer):
    def __init__(self, *args, **kwargs):
        super(PretrainTrainer, self).__init__(*args, **kwargs)
";
    let run = "\
import os
import sys

from torch.utils.data import DataLoader
from transformers import HfArgumentParser

from arguments import DataArguments, CoPretrainArguments as TrainingArguments
from trainer import CachedTrainer as Trainer


def main():
    parser = HfArgumentParser((DataArguments, TrainingArguments))
    if len(sys.argv) == 2 and sys.argv[1].endswith(\".json\"):
        data_args, training_args = parser.parse_json_file(json_file=os.path.abspath(sys.argv[1]))
    else:
        data_args, training_args = parser.parse_args_into_dataclasses()
    for batch in DataLoader(corpus(), num_workers=data_args.num_workers):
        pass
    trainer = Trainer(
        model=build_model(),
        args=training_args,
        train_dataset=corpus(),
    )
    if training_args.do_train:
        trainer.train()


if __name__ == \"__main__\":
    main()
";
    let readme = "\
## Pre-training
```
python -m torch.distributed.launch --nproc_per_node $NPROC run.py \\
  --output_dir $OUT \\
  --do_train \\
  --dataloader_num_workers 32 \\
  --num-workers 12
```
";
    let check = |run: &str, readme: &str| {
        let dir = project(&[
            ("arguments.py", arguments),
            ("trainer.py", trainer),
            ("run.py", run),
            ("README.md", readme),
        ]);
        let (_, items) = check_json(dir.path());
        (codes_of(&items, "DL201"), messages_of(&items, "DL201"))
    };
    let (codes, messages) = check(run, readme);
    assert_eq!(codes, ["run.py:17:DL201", "run.py:21:DL201"]);
    assert!(
        messages[1].starts_with(
            "num_workers=32 (`--dataloader_num_workers 32` in README.md line 3, the one command \
             of the project's shell scripts and READMEs that runs run.py, while a run without \
             them gets 0, the default of transformers.TrainingArguments)"
        ),
        "{messages:?}"
    );
    // A dataclass's own field, set as `--num-workers`, which HfArgumentParser also accepts.
    assert!(
        messages[0].starts_with(
            "num_workers=12 (`--num-workers 12` in README.md line 3, the one command of the \
             project's shell scripts and READMEs that runs run.py, while a run without them gets \
             4, the default of DataArguments.num_workers (arguments.py line 9))"
        ),
        "{messages:?}"
    );
    // The commands pass counts the CPUs allow, or none: the defaults hold.
    let small = readme
        .replace("num_workers 32", "num_workers 4")
        .replace("num-workers 12", "num-workers 2");
    assert!(check(run, &small).0.is_empty());
    assert!(check(run, "# Nothing to run\n").0.is_empty());
    // Commands that disagree give no count (one that leaves an option out gives the default).
    let two = format!("{readme}\n```\npython run.py --dataloader_num_workers 2\n```\n");
    assert!(check(run, &two).0.is_empty());
    // The script sets the count after parsing.
    let written = run.replace(
        "    trainer = Trainer(",
        "    training_args.dataloader_num_workers = 2\n    trainer = Trainer(",
    );
    assert_eq!(check(&written, readme).0, ["run.py:17:DL201"]);
    // A trainer that is never run starts no worker.
    let idle = run.replace("        trainer.train()", "        print(trainer)");
    assert_eq!(check(&idle, readme).0, ["run.py:17:DL201"]);
    // Arguments written out are the TrainingArguments loader, not the Trainer's too.
    let written_out = run
        .replace(
            "args=training_args,",
            "args=HfTrainingArguments(\"out\", dataloader_num_workers=32),",
        )
        .replace(
            "from transformers import HfArgumentParser",
            "from transformers import HfArgumentParser, TrainingArguments as HfTrainingArguments",
        );
    assert_eq!(
        check(&written_out, readme).0,
        ["run.py:17:DL201", "run.py:21:DL201"]
    );
    // A subclass that builds its own training loader is no loader of the Trainer's.
    let dir = project(&[
        ("arguments.py", arguments),
        (
            "trainer.py",
            &format!(
                "{trainer}\n    def get_train_dataloader(self):\n        return self.loader\n"
            ),
        ),
        ("run.py", run),
        ("README.md", readme),
    ]);
    let (_, items) = check_json(dir.path());
    assert_eq!(codes_of(&items, "DL201"), ["run.py:17:DL201"]);
    let dir = project(&[
        ("arguments.py", arguments),
        ("trainer.py", trainer),
        ("run.py", run),
        ("README.md", readme),
    ]);
    assert_loaders_text(
        dir.path(),
        &[
            "run.py:19:15: Trainer via CachedTrainer (trainer.py), a subclass of PretrainTrainer \
             (trainer.py), a subclass of transformers.Trainer",
            "    num_workers = 0: the default of transformers.TrainingArguments, read from the \
             fields of `training_args`, passed on line 21",
        ],
    );
}
