//! One module per command. Each returns the process exit code; errors become exit 2 in `main`.

pub mod check;
pub mod env;
pub mod explain;
pub mod kb;
pub mod loaders;
pub mod lsp;
pub mod rule;
