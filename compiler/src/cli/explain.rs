//! `tirc explain CODE`: the longer explanation of a diagnostic code, with a
//! program that breaks the rule and the same program fixed.

use super::{EXIT_OK, EXIT_USAGE};
use crate::explain::{all, explain, render};
use clap::Args;

/// Arguments of `tirc explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The code, such as `E0104`; without one, every code is listed.
    code: Option<String>,
}

/// Runs `tirc explain`.
pub fn run(args: ExplainArgs) -> u8 {
    match args.code {
        None => {
            for explanation in all() {
                println!("{}  {}", explanation.code, explanation.title);
            }
            EXIT_OK
        }
        Some(code) => match explain(&code) {
            Some(explanation) => {
                print!("{}", render(explanation));
                EXIT_OK
            }
            None => {
                eprintln!(
                    "error: no diagnostic has the code `{code}`; `tirc explain` lists them all"
                );
                EXIT_USAGE
            }
        },
    }
}
