//! The driver: the one place that strings the stages together, in order.
//!
//! ```text
//! SourceFile ─check─▶ CheckedProgram ─schedule─▶ ScheduledProgram ─lower─▶ LoweredProgram
//!                                                        LoweredProgram ─build(Target)─▶ artifact
//!                                                        LoweredProgram ─run─▶ RunReport
//! ```
//!
//! Each stage is a type that owns what the next one needs, so a caller
//! cannot skip one or run them out of order. The command line, the language
//! server, the benchmarks and the golden-test harnesses all go through here;
//! none of them chains `check_source`, `apply_schedule` and the lowering
//! passes itself. Every stage reports problems in the input as
//! [`Diagnostic`]s (with the [`SourceMap`] they point into), and problems
//! with no place in the input (I/O, usage, a missing toolchain, a bad target
//! string) as [`DriverError::Application`].
//!
//! The target is chosen once, as a [`Target`] parsed from TVM's target
//! strings; a backend is a folder under `codegen/` and a `Target` variant.

pub mod arguments;
#[cfg(feature = "llvm")]
pub mod build;
#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(any(feature = "llvm", feature = "cuda"))]
pub mod execute;
pub mod flop_count;
pub mod npy;
#[cfg(any(feature = "llvm", feature = "cuda"))]
pub mod run;
pub mod shape_binding;
pub mod toolchain;

use crate::check::{check_source, CheckOptions, Checked};
pub use crate::codegen::target::Target;
use crate::diagnostics::{sort_diagnostics, Diagnostic};
use crate::frontend::Program;
use crate::ir::{IRModule, PrimFunc};
use crate::printer::Dialect;
use crate::schedule::{apply_schedule_with, print_scheduled, ApplyOptions, ScheduleRun};
use crate::source::SourceMap;
use crate::transform::{lower_module_observed, LowerOptions, Pass};
use std::io::Read;
use std::path::Path;

/// What kind of problem an [`DriverError::Application`] is: the command
/// line turns usage and I/O problems into exit code 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplicationErrorKind {
    /// A file or directory could not be read or written.
    Io,
    /// The arguments do not fit the input (no such function, bad target).
    Usage,
    /// An optional part of the toolchain is missing (LLVM, NVRTC).
    Toolchain,
    /// The program ran and failed (a kernel's assert, a mismatch).
    Failed,
}

/// Why a stage gave no result.
#[derive(Debug)]
pub enum DriverError {
    /// The input has errors: diagnostics that point into `sources`.
    Diagnostics {
        /// Every error and warning, in source order.
        diagnostics: Vec<Diagnostic>,
        /// The files the diagnostics point into.
        sources: SourceMap,
    },
    /// A problem with no place in the input.
    Application {
        /// What kind of problem it is.
        kind: ApplicationErrorKind,
        /// One sentence saying what went wrong.
        message: String,
        /// What to do about it, when there is something to do.
        help: Option<String>,
    },
}

impl DriverError {
    /// A problem with no place in the input.
    pub fn application(kind: ApplicationErrorKind, message: impl Into<String>) -> DriverError {
        DriverError::Application {
            kind,
            message: message.into(),
            help: None,
        }
    }

    /// The error as plain text: rendered diagnostics, or the message and
    /// its help (for harnesses and logs).
    pub fn render_plain(&self) -> String {
        match self {
            DriverError::Diagnostics {
                diagnostics,
                sources,
            } => crate::diagnostics::render_text(diagnostics, sources, false),
            DriverError::Application { message, help, .. } => match help {
                Some(help) => format!("error: {message}\nhelp: {help}"),
                None => format!("error: {message}"),
            },
        }
    }

    /// Adds what to do about an application error.
    pub fn with_help(mut self, text: impl Into<String>) -> DriverError {
        if let DriverError::Application { help, .. } = &mut self {
            *help = Some(text.into());
        }
        self
    }
}

/// One input file: its display name and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl SourceFile {
    /// Text under a display name.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// Reads a file, or standard input for `-`.
    pub fn read(path: &Path) -> Result<SourceFile, DriverError> {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                DriverError::application(
                    ApplicationErrorKind::Io,
                    format!("cannot read standard input: {e}"),
                )
            })?;
            return Ok(SourceFile::new("<stdin>", text));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            let error = DriverError::application(
                ApplicationErrorKind::Io,
                format!("cannot read {}: {e}", path.display()),
            );
            match e.kind() {
                std::io::ErrorKind::NotFound => error.with_help("check the path"),
                std::io::ErrorKind::InvalidData => {
                    error.with_help("tirc reads UTF-8 text; convert the file first")
                }
                _ => error,
            }
        })?;
        Ok(SourceFile::new(path.display().to_string(), text))
    }
}

/// Everything known about one file, errors included: what `tirc check`
/// reports and what the language server shows. Never fails.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The files the diagnostics point into.
    pub sources: SourceMap,
    /// The program (when the file parsed) and the checks' diagnostics.
    pub checked: Checked,
    /// The run of every schedule section, in file order; empty while the
    /// program has errors (the schedule engine needs a valid program).
    pub schedule_runs: Vec<ScheduleRun>,
}

impl Analysis {
    /// Every diagnostic: the checks', then each schedule section's refused
    /// step, in source order without repeats.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        all_diagnostics(&self.checked, &self.schedule_runs)
    }

    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.checked.has_errors() || self.schedule_runs.iter().any(|run| !run.succeeded())
    }
}

/// The checks' diagnostics and each schedule run's, in source order without
/// repeats: what `tirc check` prints and the language server publishes.
pub fn all_diagnostics(checked: &Checked, schedule_runs: &[ScheduleRun]) -> Vec<Diagnostic> {
    let mut diagnostics = checked.diagnostics.clone();
    for run in schedule_runs {
        diagnostics.extend(run.diagnostics.iter().cloned());
    }
    sort_diagnostics(&mut diagnostics);
    diagnostics
}

/// Checks a file and applies each of its schedule sections (printing
/// nothing), so a misspelt block or primitive in a schedule is an error of
/// `tirc check` exactly as of `tirc schedule` and of the editor.
pub fn analyze(source: &SourceFile, options: &CheckOptions) -> Analysis {
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, &source.name, &source.text, options);
    let schedule_runs = match &checked.program {
        Some(program) if !checked.has_errors() => program
            .schedules
            .iter()
            .map(|schedule| {
                apply_schedule_with(program, Some(&schedule.name), &ApplyOptions::default())
            })
            .collect(),
        _ => Vec::new(),
    };
    Analysis {
        sources,
        checked,
        schedule_runs,
    }
}

/// A program that parsed and verified without errors.
#[derive(Clone, Debug)]
pub struct CheckedProgram {
    /// The files diagnostics point into.
    pub sources: SourceMap,
    /// The program as written, with its schedule sections.
    pub program: Program,
    /// Warnings and notes of the checks (no errors).
    pub warnings: Vec<Diagnostic>,
}

/// Parses and verifies a file: the first stage.
pub fn check(source: &SourceFile, options: &CheckOptions) -> Result<CheckedProgram, DriverError> {
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, &source.name, &source.text, options);
    let has_errors = checked.has_errors();
    match checked.program {
        Some(program) if !has_errors => Ok(CheckedProgram {
            sources,
            program,
            warnings: checked.diagnostics,
        }),
        _ => Err(DriverError::Diagnostics {
            diagnostics: checked.diagnostics,
            sources,
        }),
    }
}

/// Which schedule section a later stage applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ScheduleChoice {
    /// The section written for the machine (`schedule_avx2`, see
    /// [`toolchain::schedule_sections_for`]), the one named `schedule`, or
    /// the file's only section; none when the file has no section.
    #[default]
    Default,
    /// The section of this name.
    Named(String),
    /// The program as written.
    Unscheduled,
}

impl ScheduleChoice {
    /// The choice the usual `--schedule NAME` and `--no-schedule` flags make.
    pub fn from_flags(name: Option<String>, unscheduled: bool) -> ScheduleChoice {
        match (name, unscheduled) {
            (_, true) => ScheduleChoice::Unscheduled,
            (Some(name), false) => ScheduleChoice::Named(name),
            (None, false) => ScheduleChoice::Default,
        }
    }
}

/// A program with its schedule section applied.
#[derive(Clone, Debug)]
pub struct ScheduledProgram {
    /// The program before scheduling.
    pub checked: CheckedProgram,
    /// The run of the schedule section; `None` when none applied.
    pub run: Option<ScheduleRun>,
}

impl CheckedProgram {
    /// Applies the chosen schedule section: the second stage. A refused
    /// step fails the stage with its diagnostic (the module before it is in
    /// no result: `stop_after` asks for that explicitly).
    pub fn schedule(
        self,
        choice: &ScheduleChoice,
        options: &ApplyOptions,
    ) -> Result<ScheduledProgram, DriverError> {
        let name = match choice {
            ScheduleChoice::Unscheduled => {
                return Ok(ScheduledProgram {
                    checked: self,
                    run: None,
                })
            }
            ScheduleChoice::Named(name) => Some(name.as_str()),
            ScheduleChoice::Default => None,
        };
        let run = apply_schedule_with(&self.program, name, options);
        if !run.succeeded() {
            return Err(DriverError::Diagnostics {
                diagnostics: run.diagnostics,
                sources: self.sources,
            });
        }
        let run = run.schedule.is_some().then_some(run);
        Ok(ScheduledProgram { checked: self, run })
    }
}

impl ScheduledProgram {
    /// The module after the schedule.
    pub fn module(&self) -> &IRModule {
        self.run
            .as_ref()
            .map_or(&self.checked.program.module, ScheduleRun::module)
    }

    /// The schedule section applied and how many steps it had.
    pub fn applied(&self) -> Option<(String, usize)> {
        let run = self.run.as_ref()?;
        Some((run.schedule.clone()?, run.steps.len()))
    }

    /// The scheduled module as a `.tir` file (header comments, the module,
    /// no schedule section: it applied already).
    pub fn print(&self, dialect: Dialect) -> String {
        print_scheduled(&self.checked.program, self.module(), Some(dialect))
    }

    /// Lowers the scheduled module to low-level TIR for a backend: the
    /// third stage. Functions already in lowered form pass through.
    pub fn lower(self) -> Result<LoweredProgram, DriverError> {
        let lowered = crate::codegen::lower_for_codegen(self.module());
        self.into_lowered(lowered)
    }

    /// Lowers for `target`: for CUDA, the common passes and then
    /// `split-host-device` and `thread-sync`.
    pub fn lower_for(self, target: &Target) -> Result<LoweredProgram, DriverError> {
        match target {
            Target::Llvm(_) => self.lower(),
            Target::Cuda(_) => self.lower_observed(target, &mut |_, _| {}),
        }
    }

    /// Runs every lowering pass of `target` over the whole module, calling
    /// `observe` after each (`tirc lower --print-after`).
    pub fn lower_observed(
        self,
        target: &Target,
        observe: &mut dyn FnMut(&Pass, &IRModule),
    ) -> Result<LoweredProgram, DriverError> {
        let lowered = match target {
            Target::Llvm(_) => {
                lower_module_observed(self.module(), &LowerOptions::default(), observe)
            }
            Target::Cuda(_) => crate::transform::run_passes(
                &crate::transform::pipeline_for(target),
                self.module(),
                &crate::transform::options_for(target),
                observe,
            ),
        };
        self.into_lowered(lowered)
    }

    fn into_lowered(
        self,
        lowered: Result<IRModule, Vec<Diagnostic>>,
    ) -> Result<LoweredProgram, DriverError> {
        match lowered {
            Ok(module) => Ok(LoweredProgram {
                scheduled: self,
                module,
            }),
            Err(diagnostics) => Err(DriverError::Diagnostics {
                diagnostics,
                sources: self.checked.sources,
            }),
        }
    }
}

/// A program lowered and ready for a backend.
#[derive(Clone, Debug)]
pub struct LoweredProgram {
    /// The program before lowering.
    pub scheduled: ScheduledProgram,
    /// The lowered module.
    pub module: IRModule,
}

/// One function picked to run: as written, and lowered.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'p> {
    /// The function as written (the interpreter's reference), or as
    /// scheduled when the schedule changed a parameter's layout: the
    /// function as written takes other inputs then.
    pub original: &'p PrimFunc,
    /// The parameter whose layout the schedule changed, if one was.
    pub relaid_parameter: Option<&'p str>,
    /// The function after schedule and lowering.
    pub lowered: &'p PrimFunc,
}

impl LoweredProgram {
    /// The files diagnostics point into.
    pub fn sources(&self) -> &SourceMap {
        &self.scheduled.checked.sources
    }

    /// The program as written.
    pub fn program(&self) -> &Program {
        &self.scheduled.checked.program
    }

    /// The lowered module as a `.tir` file.
    pub fn print(&self, dialect: Dialect) -> String {
        print_scheduled(self.program(), &self.module, Some(dialect))
    }

    /// The function to run: the one named, else `main`, else the only one.
    pub fn entry(&self, name: Option<&str>) -> Result<Entry<'_>, DriverError> {
        let module = &self.program().module;
        let names = || {
            module
                .functions
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let original = match name {
            Some(name) => module.function(name).ok_or_else(|| {
                DriverError::application(
                    ApplicationErrorKind::Usage,
                    format!("the module has no function `{name}`; it has {}", names()),
                )
            })?,
            None => module
                .function("main")
                .or_else(|| (module.functions.len() == 1).then(|| &module.functions[0]))
                .ok_or_else(|| {
                    DriverError::application(
                        ApplicationErrorKind::Usage,
                        format!("the module has several functions ({})", names()),
                    )
                    .with_help("pick one with --entry NAME")
                })?,
        };
        let lowered = self.module.function(&original.name).ok_or_else(|| {
            DriverError::application(
                ApplicationErrorKind::Failed,
                format!("lowering lost the function `{}`", original.name),
            )
        })?;
        let relaid = self.scheduled.run.as_ref().and_then(|run| {
            let parameter = run
                .steps
                .iter()
                .filter_map(|step| step.relaid_parameter.as_deref())
                .find(|p| original.buffer_map.iter().any(|(_, b)| b.name() == *p))?;
            let scheduled = run.module().function(&original.name)?;
            Some((scheduled, parameter))
        });
        Ok(match relaid {
            Some((scheduled, parameter)) => Entry {
                original: scheduled,
                relaid_parameter: Some(parameter),
                lowered,
            },
            None => Entry {
                original,
                relaid_parameter: None,
                lowered,
            },
        })
    }
}

/// The three front stages at once: check, schedule and lower a file.
pub fn lower_file(
    source: &SourceFile,
    choice: &ScheduleChoice,
) -> Result<LoweredProgram, DriverError> {
    check(source, &CheckOptions::default())?
        .schedule(choice, &ApplyOptions::default())?
        .lower()
}

/// [`lower_file`] for a target.
pub fn lower_file_for(
    source: &SourceFile,
    choice: &ScheduleChoice,
    target: &Target,
) -> Result<LoweredProgram, DriverError> {
    let options = ApplyOptions {
        machine_sections: Some(toolchain::schedule_sections_for(target)),
        ..ApplyOptions::default()
    };
    check(source, &CheckOptions::default())?
        .schedule(choice, &options)?
        .lower_for(target)
}

/// The error for a target whose backend this build lacks.
pub fn missing_backend(target: &Target) -> DriverError {
    let (name, feature) = match target {
        Target::Llvm(_) => ("LLVM", "llvm14"),
        Target::Cuda(_) => ("CUDA", "cuda"),
    };
    DriverError::application(
        ApplicationErrorKind::Toolchain,
        format!("this tirc was built without the {name} backend"),
    )
    .with_help(format!(
        "rebuild with the `{feature}` feature (`cargo install --path cli --features {feature}`)"
    ))
}
