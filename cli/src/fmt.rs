//! `tirc fmt`: print files in canonical form, check or rewrite them.

use super::output::{emit_diagnostics, report, DiagnosticFormat};
use super::{DialectArg, EXIT_DIAGNOSTICS, EXIT_OK, EXIT_USAGE};
use clap::Args;
use std::path::{Path, PathBuf};
use tirc::driver::SourceFile;
use tirc::format::{format_source_leniently, Formatted};

/// Arguments of `tirc fmt`.
#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files to format (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The dialect to write.
    #[arg(long, value_enum, default_value = "classic")]
    dialect: DialectArg,
    /// Exit 1 and list the files that are not already formatted.
    #[arg(long, conflicts_with = "write")]
    check: bool,
    /// Rewrite the files in place.
    #[arg(long)]
    write: bool,
    /// Print everything TVM prints: the `T.reads`/`T.writes` tirc infers and
    /// the `# with T.block("root"):` line, where the file left them out.
    #[arg(long)]
    explicit: bool,
}

/// Runs `tirc fmt`.
pub fn run(args: FmtArgs) -> u8 {
    let mut code = EXIT_OK;
    for path in &args.files {
        let source = match SourceFile::read(path) {
            Ok(source) => source,
            Err(error) => {
                code = code.max(report(error, DiagnosticFormat::Text));
                continue;
            }
        };
        let formatted = match format_source_leniently(
            &source.name,
            &source.text,
            Some(args.dialect.into()),
            args.explicit,
        ) {
            Ok(Formatted::Canonical(formatted)) => formatted,
            Ok(Formatted::LayoutOnly(formatted, diagnostics, _)) => {
                let errors = diagnostics.iter().filter(|d| d.is_error()).count();
                eprintln!(
                    "note: {} has {errors} error(s) (`tirc check` lists them): only its layout was formatted; the canonical form needs a program without errors",
                    source.name
                );
                formatted
            }
            Err((diagnostics, sources)) => {
                emit_diagnostics(&diagnostics, &sources, DiagnosticFormat::Text);
                code = code.max(EXIT_DIAGNOSTICS);
                continue;
            }
        };
        // Only the source can hold these fields (no step adds them).
        let dropped: Vec<&str> = ["buffer_type=", "axis_separators="]
            .into_iter()
            .filter(|field| source.text.contains(field))
            .collect();
        if matches!(args.dialect, DialectArg::Tirx) && !dropped.is_empty() {
            eprintln!(
                "warning: {}: the tirx form leaves out {}: TVM 0.26 and later have no such buffer field",
                source.name,
                dropped.join(" and ")
            );
        }
        if args.check {
            if formatted != source.text {
                println!("{}", source.name);
                code = code.max(EXIT_DIAGNOSTICS);
            }
        } else if args.write && path.as_os_str() != "-" {
            if formatted != source.text {
                if let Err(e) = write_replacing(path, &formatted) {
                    eprintln!("error: cannot write {}: {e}", source.name);
                    code = code.max(EXIT_USAGE);
                }
            }
        } else {
            print!("{formatted}");
        }
    }
    code
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path`, keeping its permissions: an interruption or a full disk leaves
/// either the old file or the new one, never a cut-off program.
pub fn write_replacing(path: &Path, text: &str) -> std::io::Result<()> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = directory.join(format!(".{name}.tirc-{}.tmp", std::process::id()));
    let result = (|| {
        std::fs::write(&temporary, text)?;
        if let Ok(metadata) = std::fs::metadata(path) {
            std::fs::set_permissions(&temporary, metadata.permissions())?;
        }
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
