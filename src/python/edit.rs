//! Tree-aware edits for fixes.
