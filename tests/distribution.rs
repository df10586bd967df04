//! The crate, the Python wheel and the VS Code extension ship one version and one license, and
//! `dldoctor --version` prints that version.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn toml(relative: &str) -> toml::Table {
    read(relative)
        .parse()
        .unwrap_or_else(|e| panic!("parsing {relative}: {e}"))
}

fn extension() -> serde_json::Value {
    serde_json::from_str(&read("editors/vscode/package.json")).expect("parsing package.json")
}

fn crate_package() -> toml::Table {
    toml("Cargo.toml")["package"]
        .as_table()
        .expect("[package]")
        .clone()
}

#[test]
fn versions_agree() {
    let version = crate_package()["version"]
        .as_str()
        .expect("crate version")
        .to_owned();

    // The wheel takes the crate's version: maturin reads Cargo.toml when pyproject leaves it
    // dynamic, and a fixed version there could drift.
    let pyproject = toml("pyproject.toml");
    let project = pyproject["project"].as_table().expect("[project]");
    assert!(
        project.get("version").is_none(),
        "pyproject.toml fixes a version; leave it to Cargo.toml"
    );
    let dynamic = project["dynamic"].as_array().expect("[project] dynamic");
    assert!(
        dynamic.iter().any(|v| v.as_str() == Some("version")),
        "pyproject.toml: dynamic must list version"
    );

    assert_eq!(
        extension()["version"].as_str(),
        Some(version.as_str()),
        "editors/vscode/package.json version"
    );

    let output = Command::new(env!("CARGO_BIN_EXE_dldoctor"))
        .arg("--version")
        .output()
        .expect("running dldoctor --version");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("dldoctor {version}")
    );
}

#[test]
fn license_and_repository_agree() {
    let package = crate_package();
    let pyproject = toml("pyproject.toml");
    let project = pyproject["project"].as_table().expect("[project]");
    let extension = extension();

    assert!(read("LICENSE").starts_with("MIT License"));
    assert_eq!(package["license"].as_str(), Some("MIT"));
    assert_eq!(project["license"].as_str(), Some("MIT"));
    assert_eq!(extension["license"].as_str(), Some("MIT"));

    let repository = package["repository"].as_str().expect("crate repository");
    assert_eq!(project["urls"]["Repository"].as_str(), Some(repository));
    assert_eq!(extension["repository"]["url"].as_str(), Some(repository));
}
