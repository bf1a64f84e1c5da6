//! `tirc doctor`: which optional parts of tirc are usable on this machine
//! (the LLVM backend, NVRTC, ptxas, a CUDA device), the CPU and the
//! features its kernels depend on, and how to get what is missing.

use super::EXIT_OK;
use clap::Args;
use tirc::driver::toolchain::probe;

/// Arguments of `tirc doctor`.
#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `tirc doctor`; exits 0 whatever is missing (missing parts are optional).
pub fn run(args: DoctorArgs) -> u8 {
    let toolchain = probe();
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&toolchain).unwrap_or_else(|_| "{}".to_string())
        );
        return EXIT_OK;
    }
    println!("tirc {}", env!("CARGO_PKG_VERSION"));
    for part in &toolchain.parts {
        let mark = if part.found { "ok     " } else { "missing" };
        println!("  {mark} {:<12} {}", part.name, part.detail);
        if let Some(help) = &part.help {
            println!("          {:<12} to get it: {help}", "");
        }
    }
    let cpu = &toolchain.cpu;
    println!("  cpu     {} ({} threads)", cpu.model, cpu.threads);
    let list = |present: bool| {
        let names: Vec<&str> = cpu
            .features
            .iter()
            .filter(|(_, has)| *has == present)
            .map(|(name, _)| name.as_str())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    println!("          has:     {}", list(true));
    println!("          lacks:   {}", list(false));
    EXIT_OK
}
