//! The `tirc` command: one file per subcommand, all returning an exit code
//! (0 ok, 1 diagnostics, 2 usage or I/O error). This crate only parses
//! arguments and prints; the stages run in the compiler's `driver`, and the
//! language server (`tirc lsp`) is the `tirc-lsp` library, served in-process.

// The front end allocates many small, short-lived nodes; mimalloc serves that
// pattern about twice as fast as the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench;
mod build;
mod check;
mod diff;
mod doctor;
mod explain;
mod fmt;
mod lower;
mod lsp;
mod output;
mod run;
mod schedule;
mod tune;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use output::ColorChoice;
use std::process::ExitCode;
use tirc::printer::Dialect;

/// Exit code when every input is fine.
pub const EXIT_OK: u8 = 0;
/// Exit code when an input has errors (or would be reformatted under `--check`).
pub const EXIT_DIAGNOSTICS: u8 = 1;
/// Exit code for usage and I/O errors.
pub const EXIT_USAGE: u8 = 2;

/// tirc: TensorIR written as text.
#[derive(Parser, Debug)]
#[command(name = "tirc", about, long_about = None)]
pub struct Cli {
    /// When to colour diagnostics: `auto` colours a terminal unless
    /// `NO_COLOR` is set.
    #[arg(long, value_enum, global = true, default_value = "auto")]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

/// The dialect flag shared by commands that print TVMScript.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DialectArg {
    /// `T.block`, `T.alloc_buffer` (TVM up to 0.20, every tutorial).
    Classic,
    /// `T.sblock`, `T.sblock_alloc_buffer` (TVM 0.25 and later).
    Tirx,
}

impl From<DialectArg> for Dialect {
    fn from(arg: DialectArg) -> Dialect {
        match arg {
            DialectArg::Classic => Dialect::Classic,
            DialectArg::Tirx => Dialect::Tirx,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print files in canonical form.
    Fmt(fmt::FmtArgs),
    /// Check files for syntax and semantic errors (schedule sections included).
    Check(check::CheckArgs),
    /// Compare two files structurally (exit 0 when equal).
    Diff(diff::DiffArgs),
    /// Explain a diagnostic code, with a wrong and a right example.
    Explain(explain::ExplainArgs),
    /// Run the language server on standard input and output (for editors).
    Lsp(lsp::LspArgs),
    /// Apply a file's schedule section and print the result.
    Schedule(schedule::ScheduleArgs),
    /// Schedule, lower, JIT-compile and run a function; check it, time it.
    Run(run::RunArgs),
    /// Compile a file to LLVM IR, assembly, an object or a shared library.
    Build(build::BuildArgs),
    /// Lower a file (after its schedule) to low-level TIR and print it.
    Lower(lower::LowerArgs),
    /// Time tirc's stages on given files.
    Bench(bench::BenchArgs),
    /// Search a design space of schedules for the fastest on this machine,
    /// recording every candidate; `--write` keeps the best in the file.
    Tune(tune::TuneArgs),
    /// Say which optional parts (LLVM, NVRTC, ptxas, a GPU, CPU features)
    /// are usable here, and how to get the missing ones.
    Doctor(doctor::DoctorArgs),
    /// Print a shell completion script (`tirc completions bash > ...`).
    Completions(CompletionsArgs),
}

/// Arguments of `tirc completions`.
#[derive(clap::Args, Debug)]
struct CompletionsArgs {
    /// The shell.
    shell: clap_complete::Shell,
}

/// The git revision this binary was built from (`unknown` outside a checkout).
const GIT_REVISION: &str = env!("TIRC_GIT_REVISION");

/// `tirc --version`: the version, the revision and the backends usable here.
fn long_version() -> String {
    let llvm = tirc::driver::toolchain::probe_llvm();
    let nvrtc = tirc::driver::toolchain::probe_nvrtc();
    format!(
        "{} ({GIT_REVISION})\nLLVM backend: {}\nCUDA backend: {}; NVRTC {}",
        env!("CARGO_PKG_VERSION"),
        if llvm.found {
            llvm.detail
        } else {
            "not built in".to_string()
        },
        if cfg!(feature = "cuda") {
            "built in"
        } else {
            "not built in"
        },
        if nvrtc.found { "found" } else { "not found" },
    )
}

/// Runs the command line and returns the process exit code.
fn main() -> ExitCode {
    // A closed pipe (`tirc schedule --trace | head`) ends the output quietly,
    // as it does any Unix filter, instead of panicking in `println!`.
    #[cfg(unix)]
    // SAFETY: restores SIGPIPE's default action before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let command = Cli::command()
        .version(format!("{} ({GIT_REVISION})", env!("CARGO_PKG_VERSION")))
        .long_version(long_version());
    let cli = match command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_OK
            });
        }
    };
    output::set_color(cli.color);
    // Expressions as long as Python allows are trees thousands of levels
    // deep, which the compiler walks recursively: give it room.
    let code = std::thread::Builder::new()
        .name("tirc".to_string())
        .stack_size(COMMAND_STACK_BYTES)
        .spawn(move || run_command(cli.command))
        .map_err(|error| error.to_string())
        .and_then(|worker| {
            worker
                .join()
                .map_err(|_| "the command stopped unexpectedly".to_string())
        });
    match code {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The stack of the thread a command runs on (reserved, not committed).
const COMMAND_STACK_BYTES: usize = 64 << 20;

/// Runs one subcommand; its exit code.
fn run_command(command: Command) -> u8 {
    match command {
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Schedule(args) => schedule::run(args),
        Command::Run(args) => run::run(args),
        Command::Build(args) => build::run(args),
        Command::Lower(args) => lower::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Completions(args) => {
            clap_complete::generate(
                args.shell,
                &mut Cli::command(),
                "tirc",
                &mut std::io::stdout(),
            );
            EXIT_OK
        }
    }
}
