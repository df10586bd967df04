//! One module per LSP method (or family of notifications). A handler calls the modules of
//! `server/` (session, publish, config, ...) and never another handler.

pub mod code_action;
pub mod configuration;
pub mod diagnostic;
pub mod did_change;
pub mod execute_command;
pub mod hover;
pub mod initialize;
pub mod notebook;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Handlers that reach into each other grow import circles; shared needs go to a module
    /// of `server/` instead.
    #[test]
    fn handlers_do_not_use_each_other() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server/handlers");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name != "mod" {
                names.push(name);
            }
        }
        assert!(names.len() >= 7, "{names:?}");
        let mut offences = Vec::new();
        for name in &names {
            let source = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
            for (number, line) in source.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                let sibling = names.iter().find(|other| {
                    *other != name
                        && (code.contains(&format!("super::{other}"))
                            || code.contains(&format!("handlers::{other}")))
                });
                if sibling.is_some() || code.contains("handlers::{") {
                    offences.push(format!("{name}.rs:{}: {}", number + 1, line.trim()));
                }
            }
        }
        assert!(offences.is_empty(), "{offences:#?}");
    }
}
