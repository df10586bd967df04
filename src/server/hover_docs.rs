//! The hover texts: what each DataLoader argument does, its default, and how it meets workers,
//! shared memory and fork; and the process-wide calls `set_start_method` and
//! `set_sharing_strategy`. English and Chinese side by side, picked by the client's locale.

use crate::lang::Lang;

pub struct ArgDoc {
    pub name: &'static str,
    /// As written in DataLoader's signature.
    pub default: &'static str,
    pub en: &'static str,
    pub zh: &'static str,
}

impl ArgDoc {
    pub fn text(&self, locale: Lang) -> &'static str {
        match locale {
            Lang::En => self.en,
            Lang::Zh => self.zh,
        }
    }
}

/// Every keyword DataLoader takes that decides how its workers behave.
pub const ARGS: &[ArgDoc] = &[
    ArgDoc {
        name: "dataset",
        default: "(required)",
        en: "The dataset samples are read from. With `num_workers > 0` every worker holds its own copy: under fork a copy-on-write view of the parent's (Python reference counting turns reads into page copies, so large lists of Python objects grow memory in every worker); under spawn/forkserver a pickled copy, so it must be picklable (no lambdas, no classes defined inside functions).",
        zh: "读取样本的数据集。`num_workers > 0` 时每个 worker 各持一份：fork 下是父进程的写时复制视图（Python 的引用计数会让读取也触发页面复制，所以大型 Python 对象列表会在每个 worker 中增长内存）；spawn/forkserver 下是 pickle 后的副本，因此必须可 pickle（不能含 lambda 或函数内定义的类）。",
    },
    ArgDoc {
        name: "batch_size",
        default: "1",
        en: "Samples per batch. `None` disables automatic batching (then `drop_last` must stay False). Each batch a worker produces is moved through shared memory (`/dev/shm`), so `batch_size × prefetch_factor × num_workers` batches' worth of tensors can sit there at once.",
        zh: "每个批次的样本数。`None` 关闭自动分批（此时 `drop_last` 必须为 False）。worker 产生的每个批次都经由共享内存（`/dev/shm`）传回，因此同一时刻可能有 `batch_size × prefetch_factor × num_workers` 个批次的张量占用共享内存。",
    },
    ArgDoc {
        name: "shuffle",
        default: "None (no shuffling)",
        en: "Reshuffle the data every epoch. Mutually exclusive with `sampler` and `batch_sampler` (PyTorch raises `ValueError: sampler option is mutually exclusive with shuffle`). Shuffling happens in the main process; workers only receive indices.",
        zh: "每个 epoch 重新打乱数据。与 `sampler`、`batch_sampler` 互斥（PyTorch 抛出 `ValueError: sampler option is mutually exclusive with shuffle`）。打乱在主进程完成，worker 只收到索引。",
    },
    ArgDoc {
        name: "sampler",
        default: "None",
        en: "Draws the indices of the samples. Runs in the main process, not in the workers. Mutually exclusive with `shuffle` and `batch_sampler`.",
        zh: "决定样本索引的采样器。在主进程中运行，不在 worker 中。与 `shuffle`、`batch_sampler` 互斥。",
    },
    ArgDoc {
        name: "batch_sampler",
        default: "None",
        en: "Yields whole batches of indices. Mutually exclusive with `batch_size`, `shuffle`, `sampler` and `drop_last` (`ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last`).",
        zh: "每次给出一整批索引。与 `batch_size`、`shuffle`、`sampler`、`drop_last` 互斥（`ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last`）。",
    },
    ArgDoc {
        name: "num_workers",
        default: "0 (load in the main process)",
        en: "How many worker processes load data. Each worker is a full process started by the loader's start method (fork on Linux before Python 3.14): it inherits or re-imports everything, holds its own dataset copy and open files, and sends batches back through `/dev/shm`. More workers than usable CPUs slows loading down and PyTorch warns about it; a small `/dev/shm` (Docker's default is 64 MiB) makes workers die with a bus error. Negative values raise `ValueError`.",
        zh: "加载数据的 worker 进程数。每个 worker 是由加载器的启动方式创建的完整进程（Python 3.14 之前的 Linux 上为 fork）：它继承或重新导入一切，持有自己的数据集副本和打开的文件，并通过 `/dev/shm` 传回批次。worker 多于可用 CPU 会拖慢加载，PyTorch 会给出警告；`/dev/shm` 太小（Docker 默认 64 MiB）会让 worker 因 bus error 崩溃。负数会抛出 `ValueError`。",
    },
    ArgDoc {
        name: "collate_fn",
        default: "None (default_collate)",
        en: "Merges samples into a batch. Runs inside the workers, so under spawn/forkserver it is pickled: a lambda or a function defined inside another function fails with `Can't pickle local object`. It must not return CUDA tensors when `pin_memory=True`.",
        zh: "把样本合成批次的函数。在 worker 中运行，spawn/forkserver 下需要 pickle：lambda 或函数内定义的函数会报 `Can't pickle local object`。`pin_memory=True` 时不得返回 CUDA 张量。",
    },
    ArgDoc {
        name: "pin_memory",
        default: "False",
        en: "Copy batches into page-locked host memory (in a thread of the main process) so `.to(device, non_blocking=True)` can overlap with compute. Worker batches still travel through `/dev/shm` first, so large batches with many workers need room there. Batches that are already CUDA tensors cannot be pinned (`cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned`). Without an accelerator PyTorch warns and ignores it.",
        zh: "把批次复制到锁页内存（由主进程中的线程完成），使 `.to(device, non_blocking=True)` 能与计算重叠。worker 的批次仍先经由 `/dev/shm`，所以大批次加多 worker 需要足够的共享内存。已经是 CUDA 张量的批次无法锁页（`cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned`）。没有加速器时 PyTorch 会警告并忽略此项。",
    },
    ArgDoc {
        name: "drop_last",
        default: "False",
        en: "Drop the last incomplete batch. Mutually exclusive with `batch_size=None` and with `batch_sampler`.",
        zh: "丢弃最后一个不完整的批次。与 `batch_size=None` 以及 `batch_sampler` 互斥。",
    },
    ArgDoc {
        name: "timeout",
        default: "0 (wait forever)",
        en: "Seconds to wait for a batch from the workers before raising `RuntimeError: DataLoader timed out after N seconds`. Only meaningful with `num_workers > 0`; with 0 workers a positive timeout fails (`_SingleProcessDataLoaderIter requires timeout == 0`), and a negative one raises `ValueError: timeout option should be non-negative`.",
        zh: "等待 worker 送来批次的秒数，超时抛出 `RuntimeError: DataLoader timed out after N seconds`。只在 `num_workers > 0` 时有意义；0 个 worker 时正数超时会失败（`_SingleProcessDataLoaderIter requires timeout == 0`），负数会抛出 `ValueError: timeout option should be non-negative`。",
    },
    ArgDoc {
        name: "worker_init_fn",
        default: "None",
        en: "Called in each worker after it starts, with the worker id (seed RNGs, open per-worker files there). Runs worker-side: under fork it must not touch CUDA if the parent already did; under spawn/forkserver it must be picklable (a module-level function).",
        zh: "每个 worker 启动后以 worker id 调用（在这里设定随机种子、打开每个 worker 自己的文件）。它在 worker 中运行：fork 下若父进程已初始化 CUDA 就不能再用 CUDA；spawn/forkserver 下必须可 pickle（模块级函数）。",
    },
    ArgDoc {
        name: "multiprocessing_context",
        default: "None (the process-wide start method)",
        en: "The start method of this loader's workers: `'fork'` (fast, copies the parent; CUDA cannot be used in the workers once the parent initialised it: `Cannot re-initialize CUDA in forked subprocess`), `'spawn'` (fresh interpreter; everything passed must be picklable and the script needs `if __name__ == \"__main__\":`), `'forkserver'` (like spawn, from a clean server process; the Linux default from Python 3.14). Only valid with `num_workers > 0`.",
        zh: "此加载器 worker 的启动方式：`'fork'`（快，复制父进程；父进程初始化 CUDA 后 worker 中不能再用 CUDA：`Cannot re-initialize CUDA in forked subprocess`）、`'spawn'`（全新解释器；传入的一切都必须可 pickle，脚本需要 `if __name__ == \"__main__\":`）、`'forkserver'`（类似 spawn，从干净的服务进程启动；Python 3.14 起 Linux 的默认方式）。只能与 `num_workers > 0` 同用。",
    },
    ArgDoc {
        name: "generator",
        default: "None",
        en: "The RNG for the sampler and for the workers' base seed. Lives in the main process.",
        zh: "采样器与 worker 基础种子所用的随机数生成器，位于主进程。",
    },
    ArgDoc {
        name: "prefetch_factor",
        default: "None (2 when num_workers > 0)",
        en: "Batches each worker loads ahead. Up to `prefetch_factor × num_workers` batches wait in shared memory at once. Only valid with `num_workers > 0`: otherwise PyTorch raises `ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.`",
        zh: "每个 worker 预先加载的批次数。同一时刻最多有 `prefetch_factor × num_workers` 个批次在共享内存中等待。只能在 `num_workers > 0` 时设置，否则 PyTorch 抛出 `ValueError: prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.`",
    },
    ArgDoc {
        name: "persistent_workers",
        default: "False",
        en: "Keep the workers (and their dataset copies) alive between epochs instead of starting them again. Saves start-up time, keeps their memory and `/dev/shm` use for the whole run. Needs `num_workers > 0` (`ValueError: persistent_workers option needs num_workers > 0`).",
        zh: "在 epoch 之间保留 worker（及其数据集副本），不再重新启动。节省启动时间，但其内存和 `/dev/shm` 占用会持续整个训练。需要 `num_workers > 0`（`ValueError: persistent_workers option needs num_workers > 0`）。",
    },
    ArgDoc {
        name: "pin_memory_device",
        default: "'' (the current accelerator)",
        en: "The device whose pinned memory `pin_memory` uses. Deprecated in recent PyTorch: the current accelerator is used and a non-empty value only gives a warning.",
        zh: "`pin_memory` 使用哪个设备的锁页内存。新版 PyTorch 已弃用：总是使用当前加速器，非空值只会产生警告。",
    },
    ArgDoc {
        name: "in_order",
        default: "True",
        en: "Return batches in sampler order. `False` lets a fast worker's batch overtake a slow one (less waiting behind a straggler) at the cost of a non-deterministic order. Only matters with `num_workers > 0`.",
        zh: "按采样器顺序返回批次。`False` 允许快的 worker 的批次越过慢的（少等拖后腿的 worker），代价是顺序不确定。只在 `num_workers > 0` 时有影响。",
    },
];

pub fn argument(name: &str) -> Option<&'static ArgDoc> {
    ARGS.iter().find(|a| a.name == name)
}

pub fn set_start_method(locale: Lang) -> &'static str {
    match locale {
        Lang::En => {
            "Sets the process-wide start method of `multiprocessing` (and `torch.multiprocessing`): every DataLoader without its own `multiprocessing_context` starts its workers this way. It may be called once, before any process starts (`RuntimeError: context has already been set` otherwise; `force=True` overrides). `'spawn'` and `'forkserver'` need picklable datasets and callables and an `if __name__ == \"__main__\":` guard; `'fork'` cannot be combined with CUDA used in the parent and then in the workers."
        }
        Lang::Zh => {
            "设置 `multiprocessing`（以及 `torch.multiprocessing`）的全局启动方式：所有未指定 `multiprocessing_context` 的 DataLoader 都以此方式启动 worker。只能在任何进程启动之前调用一次（否则 `RuntimeError: context has already been set`；`force=True` 可覆盖）。`'spawn'` 和 `'forkserver'` 要求数据集和回调可 pickle，并需要 `if __name__ == \"__main__\":` 保护；`'fork'` 不能与“父进程用过 CUDA、worker 再用 CUDA”同时出现。"
        }
    }
}

pub fn set_sharing_strategy(locale: Lang) -> &'static str {
    match locale {
        Lang::En => {
            "Chooses how tensors travel between processes. `'file_descriptor'` (the Linux default) passes an open file descriptor per shared storage: many storages in flight can exhaust the open-file limit (`Too many open files`, `received 0 items of ancdata`); raise `ulimit -n` first. `'file_system'` passes a file name in `/dev/shm` instead: no fd limit, but files of killed processes can be left behind in `/dev/shm` until `torch_shm_manager` cleans them up."
        }
        Lang::Zh => {
            "选择张量在进程间传递的方式。`'file_descriptor'`（Linux 默认）为每个共享存储传递一个打开的文件描述符：同时传递的存储太多会耗尽打开文件数上限（`Too many open files`、`received 0 items of ancdata`），应先提高 `ulimit -n`。`'file_system'` 改为传递 `/dev/shm` 中的文件名：不受文件描述符上限约束，但被杀死的进程可能在 `/dev/shm` 中留下文件，直到 `torch_shm_manager` 清理。"
        }
    }
}

/// Labels of the hover sections.
pub struct Labels {
    pub default: &'static str,
    pub here: &'static str,
    pub machine: &'static str,
    pub usable_cpus: &'static str,
    pub shm: &'static str,
    pub unknown: &'static str,
    pub free: &'static str,
    pub effective: &'static str,
    pub workers: &'static str,
    pub start_method: &'static str,
    pub pinning: &'static str,
    pub rules_firing: &'static str,
    pub none: &'static str,
    pub conditional: &'static str,
}

pub fn labels(locale: Lang) -> &'static Labels {
    match locale {
        Lang::En => &Labels {
            default: "Default",
            here: "Here",
            machine: "This machine",
            usable_cpus: "usable CPUs",
            shm: "/dev/shm",
            unknown: "unknown",
            free: "free",
            effective: "This loader",
            workers: "workers",
            start_method: "start method",
            pinning: "pin_memory",
            rules_firing: "findings",
            none: "none",
            conditional: " (only under a condition)",
        },
        Lang::Zh => &Labels {
            default: "默认值",
            here: "此处",
            machine: "本机",
            usable_cpus: "可用 CPU",
            shm: "/dev/shm",
            unknown: "未知",
            free: "可用",
            effective: "此加载器",
            workers: "worker 数",
            start_method: "启动方式",
            pinning: "pin_memory",
            rules_firing: "发现的问题",
            none: "无",
            conditional: "（仅在某个条件下）",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hovered_keyword_has_docs_in_both_languages() {
        for name in [
            "num_workers",
            "pin_memory",
            "prefetch_factor",
            "persistent_workers",
            "multiprocessing_context",
            "timeout",
            "worker_init_fn",
            "collate_fn",
            "batch_size",
            "shuffle",
            "sampler",
            "batch_sampler",
            "drop_last",
            "in_order",
            "pin_memory_device",
        ] {
            let doc = argument(name).unwrap_or_else(|| panic!("no docs for {name}"));
            assert!(!doc.en.is_empty() && !doc.zh.is_empty() && !doc.default.is_empty());
            assert!(
                doc.zh
                    .chars()
                    .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
            );
        }
    }
}
