//! Every step checked by running it: the program before the first step and
//! the module after each step that changed it run on the same seeded random
//! inputs, and their outputs must agree (`tirc schedule --check-each`, and
//! the schedule golden tests). Small programs run in the reference
//! interpreter; larger ones, compiled by LLVM where tirc has it.

use super::{AppliedStep, ScheduleRun};
use crate::interp::{run_function, Arg, Tensor, Tolerance};
use crate::ir::{IRModule, PrimFunc, Stmt, StmtKind};

/// The outputs of every function of a module run on seeded random inputs:
/// every buffer argument after the run.
pub type Outputs = Vec<(String, Vec<Tensor>)>;

/// Why results were not compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotRun {
    /// The module is not something the check runs (symbolic shapes, too
    /// much work, GPU bindings the CPU backend refuses): skipped, with the reason.
    Skipped(String),
    /// The module does not run: an error, with what went wrong.
    Failed(String),
}

/// How a module is run: by the interpreter (at most this many block
/// executions) or compiled.
pub type Execute = fn(&IRModule) -> Result<Outputs, NotRun>;

/// A step whose module does not compute what the program computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepMismatch {
    /// The step's number, from 1.
    pub step: usize,
    /// What differs, or why the step's module does not run.
    pub problem: String,
}

/// How many block executions running `stmt` takes, when every loop extent
/// is a constant.
pub fn block_executions(stmt: &Stmt) -> Option<u64> {
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            let extent = u64::try_from(for_loop.extent.as_int()?).ok()?;
            extent.checked_mul(block_executions(&for_loop.body)?)
        }
        StmtKind::BlockRealize(realize) => {
            Some(1 + block_executions(&realize.block.body).unwrap_or(0))
        }
        StmtKind::Seq(stmts) => stmts
            .iter()
            .try_fold(0u64, |total, s| total.checked_add(block_executions(s)?)),
        StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => Some(0),
        _ => None,
    }
}

/// The most block executions of any function of a module (`None` when one
/// has symbolic extents).
pub fn module_block_executions(module: &IRModule) -> Option<u64> {
    module
        .functions
        .iter()
        .map(|f| block_executions(&f.body))
        .try_fold(0u64, |most, work| Some(most.max(work?)))
}

/// Seeded random arrays for every parameter of `func`, the same for every
/// step of a run.
pub fn random_arguments(func: &PrimFunc) -> Result<Vec<Arg>, NotRun> {
    let mut args = Vec::with_capacity(func.params.len());
    for (position, param) in func.params.iter().enumerate() {
        let Some(buffer) = func.buffer_of(param) else {
            return Err(NotRun::Skipped("a scalar parameter".to_string()));
        };
        let shape: Option<Vec<usize>> = buffer
            .constant_shape()
            .and_then(|dims| dims.into_iter().map(|d| usize::try_from(d).ok()).collect());
        let Some(shape) = shape else {
            return Err(NotRun::Skipped("a symbolic buffer shape".to_string()));
        };
        let tensor = Tensor::random(buffer.dtype(), &shape, 17 + position as u64)
            .map_err(|e| NotRun::Skipped(format!("no random input: {e}")))?;
        args.push(Arg::Tensor(tensor));
    }
    Ok(args)
}

/// Runs every function of `module` in the reference interpreter on seeded
/// random inputs; skipped above `work_limit` block executions.
pub fn run_interpreted(module: &IRModule, work_limit: u64) -> Result<Outputs, NotRun> {
    let mut outputs = Vec::new();
    for func in &module.functions {
        let work = block_executions(&func.body)
            .ok_or_else(|| NotRun::Skipped("symbolic or non-block loops".to_string()))?;
        if work > work_limit {
            return Err(NotRun::Skipped(format!(
                "{work} block executions, above {work_limit}"
            )));
        }
        let mut args = random_arguments(func)?;
        run_function(func, &mut args)
            .map_err(|e| NotRun::Failed(format!("`{}` does not run: {e}", func.name)))?;
        let tensors = args.iter().filter_map(|a| a.tensor().cloned()).collect();
        outputs.push((func.name.clone(), tensors));
    }
    Ok(outputs)
}

/// Runs every function of `module`, lowered and compiled by LLVM with
/// run-time bounds checks, on the inputs the interpreter gets.
#[cfg(feature = "llvm")]
pub fn run_compiled(module: &IRModule) -> Result<Outputs, NotRun> {
    use crate::codegen::llvm::CodegenOptions;
    use crate::driver::execute::{run_compiled, CompiledRunError};
    let mut outputs = Vec::new();
    for func in &module.functions {
        let args = random_arguments(func)?;
        let results = run_compiled(
            module,
            &func.name,
            &args,
            // A step that made an access leave its buffer fails here.
            &CodegenOptions {
                runtime_checks: true,
                ..CodegenOptions::host()
            },
        )
        .map_err(|error| match error {
            // GPU thread bindings and the like.
            CompiledRunError::Refused(d) => NotRun::Skipped(format!(
                "the CPU backend refuses it: {}",
                d.first().map(|d| d.message.as_str()).unwrap_or("?")
            )),
            CompiledRunError::Lowering(d) => NotRun::Failed(format!(
                "lowering refuses it: {}",
                d.first().map(|d| d.message.as_str()).unwrap_or("?")
            )),
            CompiledRunError::Failed(message) => NotRun::Failed(message),
        })?;
        let tensors = results.iter().filter_map(|a| a.tensor().cloned()).collect();
        outputs.push((func.name.clone(), tensors));
    }
    Ok(outputs)
}

/// Compares the outputs of a step with those of the program before any step.
pub fn same_results(expected: &Outputs, actual: &Outputs) -> Result<(), String> {
    for ((name, wanted), (_, found)) in expected.iter().zip(actual) {
        for (position, (w, f)) in wanted.iter().zip(found).enumerate() {
            f.check_close(w, Tolerance::for_output(w))
                .map_err(|e| format!("`{name}` argument {position}: {e}"))?;
        }
    }
    Ok(())
}

/// Runs the program before any step and each of `steps` with `execute` and
/// compares the results. `Ok(None)`: all agree; `Ok(Some(why))`: not
/// compared; `Err`: the first step that does not compute the same.
pub fn compare_steps(
    initial: &IRModule,
    steps: &[&AppliedStep],
    execute: &dyn Fn(&IRModule) -> Result<Outputs, NotRun>,
) -> Result<Option<String>, StepMismatch> {
    let expected = match execute(initial) {
        Ok(outputs) => outputs,
        Err(NotRun::Skipped(reason)) => return Ok(Some(reason)),
        Err(NotRun::Failed(error)) => {
            return Ok(Some(format!("the program itself does not run: {error}")))
        }
    };
    for step in steps {
        if let Some(parameter) = &step.relaid_parameter {
            // The step's function takes its data in another layout; the
            // seeded inputs of the program do not mean the same in it.
            return Ok(Some(format!(
                "step {} changes the layout of parameter `{parameter}`, so later steps take other inputs",
                step.number
            )));
        }
        let actual = match execute(&step.module) {
            Ok(outputs) => outputs,
            Err(NotRun::Skipped(reason)) => return Ok(Some(reason)),
            Err(NotRun::Failed(error)) => {
                return Err(StepMismatch {
                    step: step.number,
                    problem: error,
                })
            }
        };
        same_results(&expected, &actual).map_err(|difference| StepMismatch {
            step: step.number,
            problem: format!("the results differ: {difference}"),
        })?;
    }
    Ok(None)
}

/// Block executions up to which `tirc schedule --check-each` runs the
/// interpreter (a few seconds per run in a release build).
pub const INTERPRETER_LIMIT: u64 = 1 << 21;

/// How `check_each` ran the steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckedBy {
    /// The reference interpreter.
    Interpreter,
    /// LLVM-compiled code with run-time bounds checks.
    Compiled,
}

/// Runs the program and every step that changed it on the same seeded
/// random inputs (the interpreter up to [`INTERPRETER_LIMIT`] block
/// executions, LLVM above where built with it) and stops at the first step
/// whose results differ. `Ok((how, None))`: every step computes what the
/// program computes; `Ok((how, Some(why)))`: not compared, and why.
pub fn check_each(run: &ScheduleRun) -> Result<(CheckedBy, Option<String>), StepMismatch> {
    let changed: Vec<&AppliedStep> = run.steps.iter().filter(|s| s.changed).collect();
    // Steps can add work (cache copies, recomputed producers): every module counts.
    let small = std::iter::once(&run.initial)
        .chain(changed.iter().map(|s| &s.module))
        .all(|m| module_block_executions(m).is_some_and(|w| w <= INTERPRETER_LIMIT));
    #[cfg(feature = "llvm")]
    if !small {
        return compare_steps(&run.initial, &changed, &run_compiled)
            .map(|why| (CheckedBy::Compiled, why));
    }
    let _ = small;
    let interpret = |module: &IRModule| run_interpreted(module, INTERPRETER_LIMIT);
    compare_steps(&run.initial, &changed, &interpret).map(|why| (CheckedBy::Interpreter, why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::apply_schedule;
    use crate::schedule::testing::{program, MATMUL_RELU};

    fn scheduled(text: &str) -> ScheduleRun {
        let run = apply_schedule(&program(text), None);
        assert!(run.succeeded(), "{:?}", run.diagnostics);
        run
    }

    #[test]
    fn correct_steps_compute_what_the_program_computes() {
        let run = scheduled(&format!(
            "{MATMUL_RELU}\ndef schedule(sch: T.Schedule):\n    c = sch.get_block(\"C\")\n    d = sch.get_block(\"D\")\n    i, j = sch.get_loops(d)\n    sch.compute_at(c, i)\n    sch.decompose_reduction(c, sch.get_loops(c)[1])\n"
        ));
        assert_eq!(check_each(&run), Ok((CheckedBy::Interpreter, None)));
    }

    /// A step whose module computes something else is named, not skipped.
    #[test]
    fn the_first_step_that_changes_the_results_is_named() {
        let mut run = scheduled(&format!(
            "{MATMUL_RELU}\ndef schedule(sch: T.Schedule):\n    d = sch.get_block(\"D\")\n    i, j = sch.get_loops(d)\n    sch.split(i, factors=[None, 8])\n    sch.unroll(j)\n"
        ));
        let other = program(&MATMUL_RELU.replace("T.max(C[vi, vj], T.float32(0.0))", "C[vi, vj]"));
        run.steps[3].module = other.module;
        let mismatch = check_each(&run).expect_err("step 4 computes something else");
        assert_eq!(mismatch.step, 4);
        assert!(mismatch.problem.contains("differ"), "{}", mismatch.problem);
    }
}
