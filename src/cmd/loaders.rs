//! `dldoctor loaders`: what the analysis sees of every loader construction, and why. The
//! answer to "why didn't it fire?".

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use rayon::prelude::*;
use serde::Serialize;

use dldoctor::config::{ConfigResolver, Overrides};
use dldoctor::host::HostFacts;
use dldoctor::output::display_path;
use dldoctor::python::facts::{self, LoaderFacts};
use dldoctor::python::model::Module;
use dldoctor::python::start_method;

use crate::PlainFormat;
use crate::cmd::check::{Errors, project_files, read_module};

/// One file's loaders, as `--format json` prints them.
#[derive(Serialize)]
struct FileLoaders {
    filename: String,
    loaders: Vec<LoaderFacts>,
}

pub fn run(args: crate::LoadersArgs) -> anyhow::Result<ExitCode> {
    let resolver = ConfigResolver::new(Overrides::default());
    let host = HostFacts::detect();
    let mut errors = Errors::default();
    let (files, _, index) = project_files(&args.paths, &mut errors);
    // Each file gives its loaders, or an error; a broken `extend-queries` file is reported
    // and the built-in catalogue still used.
    let results: Vec<(Option<FileLoaders>, Vec<String>)> = files
        .par_iter()
        .map(|path| {
            let (source, notebook) = match read_module(path) {
                Ok(read) => read,
                Err(e) => return (None, vec![e]),
            };
            let settings = match resolver.settings_for(path) {
                Ok(settings) => settings,
                Err(e) => return (None, vec![e.to_string()]),
            };
            let problems: Vec<String> = settings
                .catalogue_errors()
                .iter()
                .map(ToString::to_string)
                .collect();
            let Some(tree) = dldoctor::python::parse(&source, None) else {
                return (None, problems);
            };
            let model = Module::build_with(&source, &tree, path, &index, settings.catalogue());
            let platform = start_method::platform_default(&host.os, settings.target_version);
            let mut loaders = facts::loader_facts(&model, platform);
            if let Some(nb) = &notebook {
                loaders = loaders
                    .into_iter()
                    .map(|f| f.in_notebook(&source, nb.cell_map()))
                    .collect();
            }
            let file = FileLoaders {
                filename: display_path(path),
                loaders,
            };
            (Some(file), problems)
        })
        .collect();
    let mut found = Vec::new();
    for (file, problems) in results {
        for e in problems {
            errors.report(e);
        }
        if let Some(file) = file.filter(|f| !f.loaders.is_empty()) {
            found.push(file);
        }
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match args.format {
        PlainFormat::Text => {
            for file in &found {
                write!(out, "{}", facts::render_text(&file.filename, &file.loaders))?;
            }
            let count: usize = found.iter().map(|f| f.loaders.len()).sum();
            writeln!(
                out,
                "Found {count} loader{}.",
                if count == 1 { "" } else { "s" }
            )?;
        }
        PlainFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &found).context("writing JSON")?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if errors.count > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
