//! GitHub Actions workflow commands: one `::error file=…,line=…::message` line per finding,
//! which the runner turns into annotations on the pull request.

use std::io::{self, Write};

use crate::diagnostic::Severity;
use crate::output::{Emitter, FileReport, Location, Summary, display_path};

#[derive(Default)]
pub struct Github;

impl Emitter for Github {
    fn file(&mut self, out: &mut dyn Write, file: &FileReport) -> io::Result<()> {
        let path = escape_property(&display_path(file.path));
        for d in file.diagnostics {
            let (start, end) = Location::range(file, d.range);
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info | Severity::Hint => "notice",
            };
            match file.cell(d.range.start) {
                // The runner's lines would be lines of the notebook's JSON: annotate the file
                // and put the cell and its row in the message, as ruff does.
                Some(cell) => writeln!(
                    out,
                    "::{command} file={path},title={}::cell {cell}:{}:{}: {}",
                    d.code,
                    start.row,
                    start.column,
                    escape_data(&d.message),
                )?,
                None => writeln!(
                    out,
                    "::{command} file={path},line={},col={},endLine={},endColumn={},title={}::{}",
                    start.row,
                    start.column,
                    end.row,
                    end.column,
                    d.code,
                    escape_data(&d.message),
                )?,
            }
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
}

/// The runner's escaping for a command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// The runner's escaping for a property value (also `:` and `,`, which delimit properties).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_support::{render, summary};

    #[test]
    fn one_workflow_command_per_finding() {
        let out = render(&mut Github, &summary());
        insta::assert_snapshot!(out, @r"
        ::error file=pkg/train.py,line=2,col=25,endLine=2,endColumn=42,title=DL301::prefetch_factor option could only be specified in multiprocessing
        ::warning file=pkg/train.py,line=2,col=10,endLine=2,endColumn=23,title=DL203::this machine's /dev/shm is 64 MiB
        ");
    }

    #[test]
    fn escapes_what_the_runner_would_misread() {
        assert_eq!(escape_data("50% of\nshm"), "50%25 of%0Ashm");
        assert_eq!(escape_property("C:\\a,b.py"), "C%3A\\a%2Cb.py");
    }
}
