//! `tirc explain CODE`: the longer explanation of a diagnostic code, with a
//! program that breaks the rule and the same program fixed. `tirc explain
//! split` documents a schedule primitive from the engine's table.

use super::output::report_application;
use super::EXIT_OK;
use clap::Args;
use tirc::driver::ApplicationErrorKind;
use tirc::explain::{all, explain, render};

/// Arguments of `tirc explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The code, such as `E0104`, or a schedule primitive, such as
    /// `compute_at`; without one, every code and primitive is listed.
    code: Option<String>,
}

/// Runs `tirc explain`.
pub fn run(args: ExplainArgs) -> u8 {
    match args.code {
        None => {
            for explanation in all() {
                println!("{}  {}", explanation.code, explanation.title);
            }
            println!();
            for primitive in tirc::schedule::primitive::all() {
                println!("sch.{}({})", primitive.name, primitive.parameter_texts().join(", "));
            }
            EXIT_OK
        }
        Some(code) => match (explain(&code), tirc::schedule::primitive::find(&code)) {
            (Some(explanation), _) => {
                print!("{}", render(explanation));
                EXIT_OK
            }
            (None, Some(primitive)) => {
                println!("sch.{}({})", code, primitive.parameter_texts().join(", "));
                println!();
                println!("{}", primitive.doc);
                let others: Vec<&str> = primitive.names().filter(|n| *n != code).collect();
                if !others.is_empty() {
                    println!();
                    println!("Also spelled: {}", others.join(", "));
                }
                EXIT_OK
            }
            (None, None) => report_application(
                ApplicationErrorKind::Usage,
                format!("no diagnostic code or schedule primitive is named `{code}`; `tirc explain` lists them all"),
            ),
        },
    }
}
