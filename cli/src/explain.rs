//! `tirc explain CODE`: the longer explanation of a diagnostic code, with a
//! program that breaks the rule and the same program fixed.

use super::output::report_application;
use super::EXIT_OK;
use clap::Args;
use tirc::driver::ApplicationErrorKind;
use tirc::explain::{all, explain, render};

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
            None => report_application(
                ApplicationErrorKind::Usage,
                format!("no diagnostic has the code `{code}`; `tirc explain` lists them all"),
            ),
        },
    }
}
