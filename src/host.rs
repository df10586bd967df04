//! Facts of this machine that decide DataLoader failures: usable CPUs, `/dev/shm`, the
//! open-file limit, container or not. Read from the system (syscalls and /proc, /sys), never by
//! running a program. `--assume-cpus`/`--assume-shm` replace measured values for reproducible CI.

use serde::Serialize;

/// Where a fact came from, so messages can say "this machine has 8 usable CPUs (cgroup quota)".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Measured(String),
    Assumed,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shm {
    pub total_bytes: u64,
    pub free_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostFacts {
    pub os: String,
    /// CPUs this process may use: affinity mask, capped by a cgroup CPU quota.
    pub usable_cpus: Option<u32>,
    pub cpus_source: Source,
    /// `None` where there is no /dev/shm (macOS, Windows) or it cannot be read.
    pub shm: Option<Shm>,
    pub shm_source: Source,
    pub nofile_soft: Option<u64>,
    pub nofile_hard: Option<u64>,
    /// "docker", "podman", "kubernetes", "lxc", ... or None on bare metal / VM.
    pub container: Option<String>,
}

impl HostFacts {
    /// Nothing known: rules that need a fact stay quiet or say it is unknown.
    pub fn unknown() -> Self {
        Self {
            os: std::env::consts::OS.to_owned(),
            usable_cpus: None,
            cpus_source: Source::Unknown,
            shm: None,
            shm_source: Source::Unknown,
            nofile_soft: None,
            nofile_hard: None,
            container: None,
        }
    }

    pub fn assume_cpus(mut self, cpus: u32) -> Self {
        self.usable_cpus = Some(cpus);
        self.cpus_source = Source::Assumed;
        self
    }

    /// An assumed /dev/shm of `bytes`, all of it free.
    pub fn assume_shm(mut self, bytes: u64) -> Self {
        self.shm = Some(Shm {
            total_bytes: bytes,
            free_bytes: bytes,
        });
        self.shm_source = Source::Assumed;
        self
    }
}
