//! The language server (`dldoctor lsp`).
