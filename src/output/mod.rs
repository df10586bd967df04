//! Renderers for `check`: text, json, sarif, github.
