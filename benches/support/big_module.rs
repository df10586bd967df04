//! The 10,000-line training module the keystroke benchmark edits, shared with the test that
//! checks incremental analysis against a fresh one on it.

/// Ordinary code: a dataset class and a helper, with non-ASCII in a docstring.
const BLOCK: &str = r#"

class ImageFolder{n}(torch.utils.data.Dataset):
    """Images of shard {n} — 数据集 {n} 😀."""

    def __init__(self, root):
        self.files = sorted(os.listdir(root))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return torch.load(os.path.join(self.root, self.files[i]))


def normalise_{n}(batch, mean=0.5, std=0.25):
    return (batch - mean) / std
"#;

/// A function building loaders, one in every [`LOADER_EVERY`] blocks.
const LOADERS: &str = r#"

def make_loaders_{n}(root):
    ds = ImageFolder{n}(root)
    loader = DataLoader(ds, batch_size=32, shuffle=True, prefetch_factor=4)
    return DataLoader(ds, batch_size=32, num_workers=args.num_workers, pin_memory=True)
"#;

const LOADER_EVERY: usize = 25;

/// A training module of exactly 10,000 lines: 579 dataset classes and helpers, 48 DataLoader
/// calls (a large real training file has a handful).
pub fn big_file() -> String {
    let mut text = String::from(
        "import argparse\nimport os\n\nimport torch\nfrom torch.utils.data import DataLoader\n\nparser = argparse.ArgumentParser()\nparser.add_argument(\"--num_workers\", type=int, default=64)\nargs = parser.parse_args()\n",
    );
    let mut n = 0;
    loop {
        let mut block = BLOCK.replace("{n}", &n.to_string());
        if n % LOADER_EVERY == 0 {
            block.push_str(&LOADERS.replace("{n}", &n.to_string()));
        }
        if text.lines().count() + block.lines().count() > 10_000 {
            break;
        }
        text.push_str(&block);
        n += 1;
    }
    while text.lines().count() < 10_000 {
        text.push_str("# padding\n");
    }
    text
}
