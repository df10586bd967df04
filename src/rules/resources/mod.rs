//! DL2xx: what this machine gives the workers: CPUs, shared memory, file descriptors, RAM.

pub mod cpu_count_workers;
pub mod file_system_sharing_strategy;
pub mod num_workers_exceeds_cpus;
pub mod pin_memory_without_shm_check;
pub mod python_objects_in_dataset;
pub mod small_shared_memory;
