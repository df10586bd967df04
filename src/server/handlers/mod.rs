//! One module per LSP method (or family of notifications).

pub mod code_action;
pub mod configuration;
pub mod diagnostic;
pub mod did_change;
pub mod execute_command;
pub mod hover;
pub mod initialize;
pub mod notebook;
