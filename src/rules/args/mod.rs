//! DL3xx: argument combinations `DataLoader.__init__` rejects at run time.

pub mod context_without_workers;
pub mod invalid_start_method;
pub mod negative_num_workers;
pub mod persistent_workers_without_workers;
pub mod prefetch_factor_without_workers;
pub mod sampler_option_conflict;
pub mod timeout_without_workers;
