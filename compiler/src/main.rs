//! The `tirc` command.

fn main() -> std::process::ExitCode {
    tirc::cli::main()
}
