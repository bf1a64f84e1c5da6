//! The `tirc` command.

// The front end allocates many small, short-lived nodes; mimalloc serves that
// pattern about twice as fast as the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    tirc::cli::main()
}
