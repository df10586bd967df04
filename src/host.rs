//! Facts of this machine that decide DataLoader failures: usable CPUs, `/dev/shm`, the
//! open-file limit, container or not. Read from the system (syscalls and /proc, /sys), never by
//! running a program. `--assume-cpus`/`--assume-shm` replace measured values for reproducible CI.
//!
//! Every parser here takes text, not a path, so the cgroup and mountinfo logic is tested on
//! fixture files; [`HostFacts::detect`] only reads the files and hands their text over.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

/// Where a fact came from, so messages can say "this machine has 8 usable CPUs (cgroup quota)".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Read from the system; the text names how ("affinity", "cgroup v2 cpu.max", "statvfs").
    Measured(String),
    /// Given by `--assume-cpus`/`--assume-shm` or the matching editor setting.
    Assumed,
    Unknown,
}

impl Source {
    /// A short phrase for messages and `dldoctor env`: "affinity", "assumed", "unknown".
    pub fn describe(&self) -> &str {
        match self {
            Source::Measured(how) => how,
            Source::Assumed => "assumed",
            Source::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shm {
    pub total_bytes: u64,
    pub free_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostFacts {
    pub os: String,
    /// The kernel release (`/proc/sys/kernel/osrelease`) where there is one.
    pub kernel: Option<String>,
    /// CPUs this process may use: affinity mask, capped by a cgroup CPU quota.
    pub usable_cpus: Option<u32>,
    pub cpus_source: Source,
    /// `None` where there is no /dev/shm (macOS, Windows) or it cannot be read.
    pub shm: Option<Shm>,
    pub shm_source: Source,
    /// Open-file limits (RLIMIT_NOFILE); `u64::MAX` means unlimited.
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
            kernel: None,
            usable_cpus: None,
            cpus_source: Source::Unknown,
            shm: None,
            shm_source: Source::Unknown,
            nofile_soft: None,
            nofile_hard: None,
            container: None,
        }
    }

    /// Reads this machine's facts. Anything that cannot be read stays unknown; this never fails.
    pub fn detect() -> Self {
        let mut facts = Self::unknown();
        facts.kernel = read_text("/proc/sys/kernel/osrelease").map(|s| s.trim().to_owned());
        (facts.usable_cpus, facts.cpus_source) = detect_cpus();
        if let Some(shm) = statvfs(Path::new("/dev/shm")) {
            facts.shm = Some(shm);
            facts.shm_source = Source::Measured("statvfs".into());
        }
        (facts.nofile_soft, facts.nofile_hard) = nofile_limits();
        facts.container = detect_container(&ContainerHints::read());
        facts
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

impl HostFacts {
    /// The facts as `dldoctor env --format json` and the server's `dldoctor.env` command give
    /// them. Unknown facts are `null`; an unlimited open-file limit is the string "unlimited".
    pub fn to_json(&self) -> serde_json::Value {
        let limit = |v: Option<u64>| match v {
            Some(u64::MAX) => serde_json::Value::from("unlimited"),
            Some(n) => serde_json::Value::from(n),
            None => serde_json::Value::Null,
        };
        serde_json::json!({
            "os": self.os,
            "kernel": self.kernel,
            "container": self.container,
            "cpus": {
                "usable": self.usable_cpus,
                "source": self.cpus_source.describe(),
            },
            "shm": {
                "total_bytes": self.shm.as_ref().map(|s| s.total_bytes),
                "free_bytes": self.shm.as_ref().map(|s| s.free_bytes),
                "source": self.shm_source.describe(),
            },
            "nofile": { "soft": limit(self.nofile_soft), "hard": limit(self.nofile_hard) },
            "notes": self.notes(),
        })
    }

    /// The facts as `dldoctor env` prints them, one per line.
    pub fn to_text(&self) -> String {
        let unknown = || "unknown".to_owned();
        let os = match &self.kernel {
            Some(kernel) => format!("{} (kernel {kernel})", self.os),
            None => self.os.clone(),
        };
        let cpus = self.usable_cpus.map_or_else(unknown, |n| {
            format!("{n} ({})", self.cpus_source.describe())
        });
        let shm = self.shm.as_ref().map_or_else(
            || "unknown (no /dev/shm, or it cannot be read)".to_owned(),
            |s| {
                format!(
                    "{} total, {} free ({})",
                    format_bytes(s.total_bytes),
                    format_bytes(s.free_bytes),
                    self.shm_source.describe()
                )
            },
        );
        let limit = |v: Option<u64>| v.map_or_else(unknown, |n| Limit(n).to_string());
        let mut out = String::new();
        let mut line =
            |key: &str, value: String| out.push_str(&format!("{:<14}{value}\n", format!("{key}:")));
        line("os", os);
        line(
            "container",
            self.container
                .clone()
                .unwrap_or_else(|| "none detected".into()),
        );
        line("usable CPUs", cpus);
        line("/dev/shm", shm);
        line(
            "open files",
            format!(
                "{} soft, {} hard",
                limit(self.nofile_soft),
                limit(self.nofile_hard)
            ),
        );
        for note in self.notes() {
            out.push_str(&format!("note: {note}\n"));
        }
        out
    }

    /// What these facts mean for DataLoader workers, where something stands out.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(shm) = &self.shm
            && shm.total_bytes < SMALL_SHM_BYTES
        {
            notes.push(format!(
                "/dev/shm is {}: DataLoader workers pass batches through it and die with a bus \
                 error when it fills (DL203); give the container more, e.g. `docker run \
                 --shm-size=8g`",
                format_bytes(shm.total_bytes)
            ));
        }
        if let Source::Measured(how) = &self.cpus_source
            && how.starts_with("cgroup")
        {
            notes.push(
                "a cgroup CPU quota limits this process: os.cpu_count() reports more CPUs than \
                 it may use (DL205)"
                    .to_owned(),
            );
        }
        if let Some(soft) = self.nofile_soft
            && soft < LOW_NOFILE
        {
            notes.push(format!(
                "the open-file limit is {soft}: the file_descriptor sharing strategy keeps one \
                 descriptor per shared tensor; raise it with `ulimit -n`"
            ));
        }
        notes
    }
}

/// Docker's default /dev/shm is 64 MiB; below 1 GiB, workers with real batches run out (DL203).
pub const SMALL_SHM_BYTES: u64 = 1 << 30;
/// Below this many open files, `file_descriptor` sharing runs out with a few workers.
const LOW_NOFILE: u64 = 4096;

fn read_text(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

// ---------------------------------------------------------------------------------------------
// CPUs

fn detect_cpus() -> (Option<u32>, Source) {
    let Some(affinity) = affinity_cpus() else {
        return (None, Source::Unknown);
    };
    let quota = match (
        read_text("/proc/self/cgroup"),
        read_text("/proc/self/mountinfo"),
    ) {
        (Some(cgroup), Some(mountinfo)) => cgroup_cpu_quota(&cgroup, &mountinfo, |p| read_text(p)),
        _ => None,
    };
    combine_cpus(affinity, quota)
}

/// The affinity count, capped by a quota; the source names whichever decided.
fn combine_cpus(affinity: u32, quota: Option<CpuQuota>) -> (Option<u32>, Source) {
    match quota {
        Some(q) if q.cpus() < affinity => (Some(q.cpus()), Source::Measured(q.source.into())),
        _ => (Some(affinity), Source::Measured("affinity".into())),
    }
}

#[cfg(target_os = "linux")]
fn affinity_cpus() -> Option<u32> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most `size_of` bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return std::thread::available_parallelism()
                .ok()
                .and_then(|n| u32::try_from(n.get()).ok());
        }
        u32::try_from(libc::CPU_COUNT(&set)).ok().filter(|&n| n > 0)
    }
}

#[cfg(not(target_os = "linux"))]
fn affinity_cpus() -> Option<u32> {
    std::thread::available_parallelism()
        .ok()
        .and_then(|n| u32::try_from(n.get()).ok())
}

/// A CPU bandwidth limit: `quota` microseconds of CPU time per `period`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuQuota {
    pub quota_us: u64,
    pub period_us: u64,
    pub source: &'static str,
}

impl CpuQuota {
    /// Whole CPUs the quota allows, rounded up (1.5 CPUs keep two workers busy), at least 1.
    pub fn cpus(&self) -> u32 {
        let cpus = self.quota_us.div_ceil(self.period_us.max(1)).max(1);
        u32::try_from(cpus).unwrap_or(u32::MAX)
    }

    fn as_fraction(&self) -> f64 {
        self.quota_us as f64 / self.period_us.max(1) as f64
    }
}

/// cgroup v2 `cpu.max`: "max 100000" (no limit) or "200000 100000".
pub fn parse_cpu_max(text: &str) -> Option<CpuQuota> {
    let mut parts = text.split_whitespace();
    let quota = parts.next()?;
    let period = parts.next().unwrap_or("100000");
    if quota == "max" {
        return None;
    }
    Some(CpuQuota {
        quota_us: quota.parse().ok().filter(|&q| q > 0)?,
        period_us: period.parse().ok().filter(|&p| p > 0)?,
        source: "cgroup v2 cpu.max",
    })
}

/// cgroup v1 `cpu.cfs_quota_us` ("-1" is no limit) and `cpu.cfs_period_us`.
pub fn parse_cfs(quota: &str, period: &str) -> Option<CpuQuota> {
    let quota: i64 = quota.trim().parse().ok()?;
    let period: u64 = period.trim().parse().ok()?;
    if quota <= 0 || period == 0 {
        return None;
    }
    Some(CpuQuota {
        quota_us: quota.unsigned_abs(),
        period_us: period,
        source: "cgroup v1 cfs quota",
    })
}

/// One line of `/proc/self/cgroup`: `hierarchy-id:controllers:path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupMembership {
    /// Empty for the unified (v2) hierarchy ("0::/path").
    pub controllers: Vec<String>,
    pub path: String,
}

pub fn parse_proc_cgroup(text: &str) -> Vec<CgroupMembership> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(CgroupMembership {
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_owned)
                    .collect(),
                path: path.to_owned(),
            })
        })
        .collect()
}

/// A cgroup file system mounted somewhere, from `/proc/self/mountinfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupMount {
    /// The cgroup path that appears at `mount_point` (not "/" inside a cgroup namespace).
    pub root: String,
    pub mount_point: PathBuf,
    pub v2: bool,
    /// v1 controllers from the super options ("cpu", "cpuacct"); empty for v2.
    pub controllers: Vec<String>,
}

/// Parses mountinfo lines: `id parent maj:min root mount-point opts [optional...] - fstype src super-opts`.
pub fn parse_cgroup_mounts(text: &str) -> Vec<CgroupMount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let fields: Vec<&str> = left.split(' ').collect();
            let root = unescape_mountinfo(fields.get(3)?);
            let mount_point = PathBuf::from(unescape_mountinfo(fields.get(4)?));
            let mut right = right.split(' ');
            let fstype = right.next()?;
            let _source = right.next();
            let super_opts = right.next().unwrap_or("");
            let v2 = match fstype {
                "cgroup2" => true,
                "cgroup" => false,
                _ => return None,
            };
            let controllers = if v2 {
                Vec::new()
            } else {
                super_opts
                    .split(',')
                    .filter(|o| !matches!(*o, "rw" | "ro") && !o.contains('='))
                    .map(str::to_owned)
                    .collect()
            };
            Some(CgroupMount {
                root,
                mount_point,
                v2,
                controllers,
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
fn unescape_mountinfo(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let value =
                (bytes[i + 1] - b'0') * 64 + (bytes[i + 2] - b'0') * 8 + (bytes[i + 3] - b'0');
            out.push(value);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The folder of this process's cgroup under `mount`, or the mount point itself when the path
/// does not lie under the mount's root (a cgroup namespace shows "/" for its own root).
fn cgroup_dir(mount: &CgroupMount, path: &str) -> PathBuf {
    let relative = if mount.root == "/" {
        Some(path)
    } else {
        path.strip_prefix(mount.root.as_str())
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    match relative {
        Some(rel) => mount.mount_point.join(rel.trim_start_matches('/')),
        None => mount.mount_point.clone(),
    }
}

/// The tightest CPU quota on this process's cgroup or any ancestor up to the mount point, v2
/// first, then v1's `cpu` controller. `read` is given absolute file paths (the real file
/// system, or a fixture in tests).
pub fn cgroup_cpu_quota(
    proc_cgroup: &str,
    mountinfo: &str,
    read: impl Fn(&Path) -> Option<String>,
) -> Option<CpuQuota> {
    let memberships = parse_proc_cgroup(proc_cgroup);
    let mounts = parse_cgroup_mounts(mountinfo);
    let mut best: Option<CpuQuota> = None;
    let mut consider = |q: Option<CpuQuota>| {
        if let Some(q) = q
            && best.is_none_or(|b| q.as_fraction() < b.as_fraction())
        {
            best = Some(q);
        }
    };
    for membership in &memberships {
        let v2 = membership.controllers.is_empty();
        let mount = mounts.iter().find(|m| {
            if v2 {
                m.v2
            } else {
                !m.v2 && m.controllers.iter().any(|c| c == "cpu")
            }
        });
        let Some(mount) = mount else { continue };
        if !v2 && !membership.controllers.iter().any(|c| c == "cpu") {
            continue;
        }
        let mut dir = cgroup_dir(mount, &membership.path);
        loop {
            if v2 {
                consider(
                    read(&dir.join("cpu.max"))
                        .as_deref()
                        .and_then(parse_cpu_max),
                );
            } else {
                let quota = read(&dir.join("cpu.cfs_quota_us"));
                let period = read(&dir.join("cpu.cfs_period_us"));
                if let (Some(q), Some(p)) = (quota, period) {
                    consider(parse_cfs(&q, &p));
                }
            }
            if dir == mount.mount_point || !dir.pop() || !dir.starts_with(&mount.mount_point) {
                break;
            }
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// /dev/shm and limits

#[cfg(unix)]
fn statvfs(path: &Path) -> Option<Shm> {
    use std::os::unix::ffi::OsStrExt;
    if !path.is_dir() {
        return None;
    }
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c_path` is NUL-terminated and `stat` is plain data the call fills in.
    let stat = unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c_path.as_ptr(), &mut stat) != 0 {
            return None;
        }
        stat
    };
    // The field widths differ between platforms.
    #[allow(clippy::useless_conversion)]
    let block = u64::from(stat.f_frsize);
    #[allow(clippy::useless_conversion)]
    Some(Shm {
        total_bytes: u64::from(stat.f_blocks).saturating_mul(block),
        free_bytes: u64::from(stat.f_bavail).saturating_mul(block),
    })
}

#[cfg(not(unix))]
fn statvfs(_path: &Path) -> Option<Shm> {
    None
}

#[cfg(unix)]
fn nofile_limits() -> (Option<u64>, Option<u64>) {
    // SAFETY: `limit` is plain data that getrlimit fills in.
    let limit = unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return (None, None);
        }
        limit
    };
    let widen = |v: libc::rlim_t| {
        if v == libc::RLIM_INFINITY {
            u64::MAX
        } else {
            #[allow(clippy::useless_conversion)]
            u64::try_from(v).unwrap_or(u64::MAX)
        }
    };
    (Some(widen(limit.rlim_cur)), Some(widen(limit.rlim_max)))
}

#[cfg(not(unix))]
fn nofile_limits() -> (Option<u64>, Option<u64>) {
    (None, None)
}

// ---------------------------------------------------------------------------------------------
// Containers

/// What container detection looks at, gathered once so the decision is a pure function.
#[derive(Clone, Debug, Default)]
pub struct ContainerHints {
    pub dockerenv: bool,
    pub containerenv: bool,
    pub kubernetes_env: bool,
    /// The `container` environment variable (podman, systemd-nspawn and LXC set it).
    pub container_env: Option<String>,
    pub proc1_cgroup: String,
    pub mountinfo: String,
}

impl ContainerHints {
    pub fn read() -> Self {
        Self {
            dockerenv: Path::new("/.dockerenv").exists(),
            containerenv: Path::new("/run/.containerenv").exists(),
            kubernetes_env: std::env::var_os("KUBERNETES_SERVICE_HOST").is_some(),
            container_env: std::env::var("container").ok().filter(|v| !v.is_empty()),
            proc1_cgroup: read_text("/proc/1/cgroup").unwrap_or_default(),
            mountinfo: read_text("/proc/self/mountinfo").unwrap_or_default(),
        }
    }
}

/// The container runtime these hints point at, most specific first (a Kubernetes pod is also
/// a Docker or containerd container).
pub fn detect_container(h: &ContainerHints) -> Option<String> {
    let cgroup = h.proc1_cgroup.as_str();
    let kind = if h.kubernetes_env || cgroup.contains("kubepods") {
        "kubernetes"
    } else if h.containerenv || cgroup.contains("libpod") {
        "podman"
    } else if h.dockerenv
        || cgroup.contains("/docker/")
        || cgroup.contains("docker-")
        || h.mountinfo.contains("/docker/containers/")
    {
        "docker"
    } else if cgroup.contains("/lxc/") || cgroup.contains("lxc.payload") {
        "lxc"
    } else if cgroup.contains("containerd") || cgroup.contains("cri-containerd") {
        "containerd"
    } else if let Some(env) = &h.container_env {
        return Some(env.clone());
    } else {
        return None;
    };
    Some(kind.to_owned())
}

// ---------------------------------------------------------------------------------------------
// Sizes

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SizeError {
    #[error("empty size (expected e.g. 64MiB, 16GiB, 1G, 512M or a number of bytes)")]
    Empty,
    #[error("`{0}` is not a size (expected e.g. 64MiB, 16GiB, 1G, 512M or a number of bytes)")]
    Malformed(String),
    #[error(
        "unknown unit `{unit}` in `{input}` (use B, K/KiB, M/MiB, G/GiB, T/TiB, or KB/MB/GB/TB)"
    )]
    UnknownUnit { input: String, unit: String },
    #[error("`{0}` is too large")]
    TooLarge(String),
}

/// Parses a size as Docker's `--shm-size` and Kubernetes write them: `64MiB`, `16GiB`, `1G`,
/// `512m`, `1.5GiB`, `1048576`. Single letters and `iB` units are binary (1G = 1024³, as
/// Docker means it); `KB`/`MB`/`GB`/`TB` are decimal.
pub fn parse_size(input: &str) -> Result<u64, SizeError> {
    let text = input.trim();
    if text.is_empty() {
        return Err(SizeError::Empty);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit = unit.trim();
    if number.is_empty() || number.matches('.').count() > 1 {
        return Err(SizeError::Malformed(input.to_owned()));
    }
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(SizeError::UnknownUnit {
                input: input.to_owned(),
                unit: unit.to_owned(),
            });
        }
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole
            .checked_mul(multiplier)
            .ok_or_else(|| SizeError::TooLarge(input.to_owned()));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| SizeError::Malformed(input.to_owned()))?;
    let bytes = (value * multiplier as f64).round();
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(SizeError::TooLarge(input.to_owned()));
    }
    Ok(bytes as u64)
}

/// A byte count for people: "64 MiB", "1.5 GiB", "512 B".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0} {}", UNITS[unit])
    } else {
        format!("{rounded:.1} {}", UNITS[unit])
    }
}

/// A limit as `dldoctor env` prints it: a number or "unlimited".
pub struct Limit(pub u64);

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == u64::MAX {
            f.write_str("unlimited")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn sizes_parse_in_docker_and_kubernetes_spellings() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("16GiB"), Ok(16 << 30));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size(" 64 MiB "), Ok(64 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("0"), Ok(0));
    }

    #[test]
    fn bad_sizes_say_what_is_wrong() {
        assert_eq!(parse_size(""), Err(SizeError::Empty));
        assert!(matches!(parse_size("MiB"), Err(SizeError::Malformed(_))));
        assert!(matches!(parse_size("1.2.3G"), Err(SizeError::Malformed(_))));
        let err = parse_size("64 parsecs").unwrap_err();
        assert!(err.to_string().contains("unknown unit `parsecs`"), "{err}");
        assert!(matches!(
            parse_size("99999999999T"),
            Err(SizeError::TooLarge(_))
        ));
        assert!(matches!(parse_size("-1G"), Err(SizeError::Malformed(_))));
    }

    #[test]
    fn bytes_format_for_people() {
        assert_eq!(format_bytes(64 << 20), "64 MiB");
        assert_eq!(format_bytes(16 << 30), "16 GiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1_000_000_000), "953.7 MiB");
    }

    #[test]
    fn cpu_max_and_cfs_quota() {
        assert_eq!(parse_cpu_max("max 100000\n"), None);
        let q = parse_cpu_max("200000 100000\n").unwrap();
        assert_eq!(q.cpus(), 2);
        assert_eq!(parse_cpu_max("150000 100000").unwrap().cpus(), 2);
        assert_eq!(parse_cpu_max("50000 100000").unwrap().cpus(), 1);
        assert_eq!(parse_cpu_max("garbage"), None);
        assert_eq!(parse_cfs("-1\n", "100000\n"), None);
        assert_eq!(parse_cfs("400000\n", "100000\n").unwrap().cpus(), 4);
        assert_eq!(parse_cfs("x", "100000"), None);
    }

    #[test]
    fn quota_caps_affinity_only_when_lower() {
        let q = parse_cpu_max("200000 100000");
        assert_eq!(
            combine_cpus(8, q),
            (Some(2), Source::Measured("cgroup v2 cpu.max".into()))
        );
        assert_eq!(
            combine_cpus(1, q),
            (Some(1), Source::Measured("affinity".into()))
        );
        assert_eq!(
            combine_cpus(4, None),
            (Some(4), Source::Measured("affinity".into()))
        );
    }

    fn fixture(files: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
        let map: HashMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
            .collect();
        move |p: &Path| map.get(p).cloned()
    }

    // A Docker container on a cgroup v2 host: namespaced, so the path is "/".
    const V2_CGROUP: &str = "0::/\n";
    const V2_MOUNTINFO: &str = "\
1063 1062 0:320 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X
1068 1063 0:325 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate
";

    #[test]
    fn cgroup_v2_quota_in_a_namespaced_container() {
        let read = fixture(&[("/sys/fs/cgroup/cpu.max", "300000 100000\n")]);
        let q = cgroup_cpu_quota(V2_CGROUP, V2_MOUNTINFO, read).unwrap();
        assert_eq!(q.cpus(), 3);
        assert_eq!(q.source, "cgroup v2 cpu.max");
        let read = fixture(&[("/sys/fs/cgroup/cpu.max", "max 100000\n")]);
        assert_eq!(cgroup_cpu_quota(V2_CGROUP, V2_MOUNTINFO, read), None);
    }

    #[test]
    fn cgroup_v2_takes_the_tightest_ancestor() {
        let cgroup = "0::/user.slice/job.scope\n";
        let mountinfo = "30 24 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
        let read = fixture(&[
            ("/sys/fs/cgroup/user.slice/job.scope/cpu.max", "max 100000"),
            ("/sys/fs/cgroup/user.slice/cpu.max", "250000 100000"),
        ]);
        assert_eq!(
            cgroup_cpu_quota(cgroup, mountinfo, read).map(|q| q.cpus()),
            Some(3)
        );
    }

    // A cgroup v1 host (like this project's CI machines) with a bind-mounted container cgroup.
    const V1_CGROUP: &str = "\
12:pids:/docker/abc
4:cpu,cpuacct:/docker/abc
3:memory:/docker/abc
0::/system.slice/containerd.service
";
    const V1_MOUNTINFO: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
";

    #[test]
    fn cgroup_v1_cfs_quota_under_a_mount_root() {
        let read = fixture(&[
            ("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "150000\n"),
            ("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"),
        ]);
        let q = cgroup_cpu_quota(V1_CGROUP, V1_MOUNTINFO, read).unwrap();
        assert_eq!(q.cpus(), 2);
        assert_eq!(q.source, "cgroup v1 cfs quota");
    }

    #[test]
    fn cgroup_v1_without_quota_and_unreadable_files_are_no_limit() {
        let read = fixture(&[
            ("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n"),
            ("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"),
        ]);
        assert_eq!(cgroup_cpu_quota(V1_CGROUP, V1_MOUNTINFO, read), None);
        assert_eq!(cgroup_cpu_quota(V1_CGROUP, V1_MOUNTINFO, |_| None), None);
        assert_eq!(cgroup_cpu_quota("", "", |_| None), None);
        assert_eq!(cgroup_cpu_quota("garbage\n::\n", "x - y\n", |_| None), None);
    }

    #[test]
    fn mountinfo_unescapes_paths() {
        let mounts =
            parse_cgroup_mounts("40 31 0:38 / /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n");
        assert_eq!(mounts[0].mount_point, PathBuf::from("/sys/fs/my cgroup"));
        assert!(mounts[0].v2);
    }

    #[test]
    fn containers_are_recognised_from_their_hints() {
        let none = ContainerHints::default();
        assert_eq!(detect_container(&none), None);
        let docker = ContainerHints {
            dockerenv: true,
            ..Default::default()
        };
        assert_eq!(detect_container(&docker).as_deref(), Some("docker"));
        let k8s = ContainerHints {
            dockerenv: true,
            proc1_cgroup: "0::/kubepods/burstable/pod1/abc\n".into(),
            ..Default::default()
        };
        assert_eq!(detect_container(&k8s).as_deref(), Some("kubernetes"));
        let podman = ContainerHints {
            containerenv: true,
            ..Default::default()
        };
        assert_eq!(detect_container(&podman).as_deref(), Some("podman"));
        let lxc = ContainerHints {
            proc1_cgroup: "0::/lxc.payload.box\n".into(),
            ..Default::default()
        };
        assert_eq!(detect_container(&lxc).as_deref(), Some("lxc"));
        let nspawn = ContainerHints {
            container_env: Some("systemd-nspawn".into()),
            ..Default::default()
        };
        assert_eq!(detect_container(&nspawn).as_deref(), Some("systemd-nspawn"));
    }

    #[test]
    fn detect_reads_this_machine_without_failing() {
        let facts = HostFacts::detect();
        if cfg!(target_os = "linux") {
            let cpus = facts.usable_cpus.expect("affinity is readable on Linux");
            assert!(cpus >= 1);
            assert!(matches!(facts.cpus_source, Source::Measured(_)));
            assert!(facts.nofile_soft.is_some());
            assert!(facts.nofile_soft <= facts.nofile_hard);
        }
    }
}
