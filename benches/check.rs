//! Analysis speed on a generated 10,000-line training module: parsing alone and the whole
//! analysis (`analyze`, what `check` runs per file). A 50,000-line module is analysed too: its
//! time should be about five times the 10,000-line one; more means a super-linear step crept
//! in.
//!
//! `cargo bench --bench check`. The language server's path from a keystroke to diagnostics is
//! `benches/lsp_edit.rs`; a comparison with ruff on a tree of files is `benches/peers.sh`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use dldoctor::analyze::{Context, analyze};
use dldoctor::config::Settings;
use dldoctor::host::HostFacts;
use dldoctor::python::{self, index::ProjectIndex};

/// One block of a realistic training module: a dataset, a collate function, argparse, and a
/// loader with the usual arguments (a DataLoader in every tenth block). Names are numbered so blocks do not repeat exactly.
fn block(i: usize) -> String {
    format!(
        r#"
class ShardDataset{i}(Dataset):
    """Reads shard {i} of the training set."""

    def __init__(self, root, transform=None):
        self.root = root
        self.files = sorted(os.listdir(root))
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        sample = np.load(os.path.join(self.root, self.files[index]))
        if self.transform is not None:
            sample = self.transform(sample)
        return torch.from_numpy(sample), index % 10


def collate_{i}(batch):
    images, labels = zip(*batch)
    return torch.stack(images), torch.tensor(labels)


parser_{i} = argparse.ArgumentParser()
parser_{i}.add_argument("--num-workers", type=int, default={workers})
parser_{i}.add_argument("--batch-size", type=int, default=64)


def train_{i}(model, optimizer, device):
    args = parser_{i}.parse_args()
    loader = {make_loader}(
        ShardDataset{i}("/data/shard{i}"),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.num_workers,
        pin_memory=True,
        collate_fn=collate_{i},
        prefetch_factor=2,
    )
    model.train()
    for step, (images, labels) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"shard {i} step {{step}} loss {{loss.item():.4f}}")
"#,
        workers = 2 + i % 30,
        // A real module builds a handful of loaders; the other blocks call a helper.
        make_loader = if i.is_multiple_of(LOADER_EVERY) {
            "DataLoader"
        } else {
            "make_loader"
        },
    )
}

/// One block in this many builds a DataLoader itself (about 25 in 10,000 lines).
const LOADER_EVERY: usize = 10;

/// A module of at least `lines` lines.
pub fn training_module(lines: usize) -> String {
    let mut out = String::from(
        "import argparse\nimport os\n\nimport numpy as np\nimport torch\n\
         from torch.utils.data import DataLoader, Dataset\n",
    );
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&block(i));
        i += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let source = training_module(10_000);
    let settings = Settings::default();
    let host = HostFacts::unknown().assume_cpus(8).assume_shm(16 << 30);
    let index = ProjectIndex::default();
    let ctx = Context {
        settings: &settings,
        host: &host,
        index: &index,
    };
    let mut group = c.benchmark_group("10k-line module");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.sample_size(20);
    group.bench_function("parse", |b| {
        b.iter(|| python::parse(black_box(&source), None))
    });
    group.bench_function("analyze", |b| {
        b.iter(|| analyze(black_box(&source), Path::new("train.py"), &ctx))
    });
    group.finish();

    let large = training_module(50_000);
    let mut group = c.benchmark_group("50k-line module");
    group.throughput(Throughput::Bytes(large.len() as u64));
    group.sample_size(10);
    group.bench_function("analyze", |b| {
        b.iter(|| analyze(black_box(&large), Path::new("train.py"), &ctx))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
