//! Embeds the knowledge base: every `kb/*.json` becomes an `include_str!` in a generated list,
//! so the binary carries its entries and needs no files at run time.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let kb_dir = Path::new(&manifest).join("kb");
    println!("cargo:rerun-if-changed={}", kb_dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&kb_dir)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("pub static EMBEDDED: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    if let Err(err) = std::fs::write(Path::new(&out_dir).join("kb_embedded.rs"), out) {
        println!("cargo:warning=could not write the embedded KB list: {err}");
        std::process::exit(1);
    }
}
