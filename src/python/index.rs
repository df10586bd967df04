//! What other files of the project define (dataset classes, functions), so a DataLoader in one
//! file can see the Dataset defined in another. `check` fills it with every checked file; the
//! language server fills it from the workspace folders.

/// Definitions across the project's files.
#[derive(Debug, Default)]
pub struct ProjectIndex {}
