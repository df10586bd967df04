//! DL1xx: start methods, CUDA and pickling across the fork/spawn boundary.

pub mod cuda_before_fork;
pub mod cuda_in_forked_worker;
pub mod implicit_start_method;
pub mod pin_memory_cuda_data;
pub mod spawn_without_main_guard;
pub mod unpicklable_worker_callable;
