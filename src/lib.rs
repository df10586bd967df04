//! dldoctor keeps PyTorch training runs from dying in their DataLoader workers.
//!
//! The map of the crate:
//! - [`python`] reads Python with tree-sitter and builds the semantic model
//!   ([`python::model::Module`]) that every rule reads; what constructs a loader is the
//!   catalogue of tree-sitter queries in `queries/` ([`python::catalogue`]).
//! - [`codes`] names the rules (the one table of them); [`rules`] is the catalogue (DL1xx fork/CUDA/spawn, DL2xx machine resources, DL3xx argument
//!   combinations), one module per rule with its docs beside it.
//! - [`analyze`] is the single entry point of the static analysis; [`fix`] applies its edits.
//! - [`kb`] holds the knowledge base of known failures and the crash-output matcher (`explain`).
//! - [`host`] reads this machine's facts; [`config`] reads settings; [`suppression`] reads
//!   `# noqa` comments.
//! - [`lang`] is the language (English or Chinese) of everything said to a person.
//! - [`output`] renders `check` results; [`server`] is the language server.
//!
//! The CLI and the server are thin shells over [`analyze::analyze`] and the KB matcher.

pub mod analyze;
pub mod codes;
pub mod config;
pub mod diagnostic;
pub mod fix;
pub mod host;
pub mod kb;
pub mod lang;
pub mod notebook;
pub mod output;
pub mod python;
pub mod rules;
pub mod server;
pub mod suppression;
pub mod text;
