//! The schedule engine: applies the schedule section of a `.tir` file to its
//! program, step by step, with TVM's primitives and legality rules.
//!
//! [`apply_schedule`] is the entry point: it runs one schedule `def` of a
//! [`Program`] and returns every step applied (the call's text and span, the
//! module after it), the diagnostic of a refused step, and the trace in TVM's
//! `apply_trace` form.
//!
//! Inside: [`state`] holds the program and where every loop and block sits;
//! [`scope`] the block scopes, dependences and cached flags; one file per
//! primitive family ([`get_block_loop`], [`loop_transformation`],
//! [`for_kind`], [`annotate`]); [`script`] interprets the schedule `def`;
//! [`trace`] prints what was applied; [`step_check`] re-verifies each step.

pub mod access;
pub mod annotate;
mod binding;
pub mod block_annotate;
pub mod blockize;
pub mod buffer_access;
pub mod cache_read_write;
pub mod check_each;
pub mod compute_at;
pub mod compute_inline;
pub mod decompose_padding;
pub mod error;
pub mod explain;
pub mod for_kind;
pub mod get_block_loop;
pub mod layout_padding;
pub mod layout_transformation;
pub mod loop_transformation;
pub mod merge;
pub mod pad_einsum;
pub mod primitive;
#[cfg(test)]
mod random_scripts;
pub mod read_write_at;
pub mod reducer;
pub mod reduction;
pub mod region;
pub mod reindex;
pub mod reorder_block_iter_var;
pub mod report;
pub mod rfactor;
pub mod sampling;
pub mod scope;
pub mod script;
pub mod state;
pub mod step_check;
pub mod tensor_intrin;
pub mod tensorize;
#[cfg(test)]
mod testing;
pub mod trace;

pub use error::{codes, ScheduleError};
pub use state::ScheduleState;
pub use trace::Trace;

use crate::diagnostics::Diagnostic;
use crate::frontend::{Program, ScheduleDef};
use crate::ir::IRModule;
use crate::source::Span;

/// One applied step: a call of a primitive and the module after it.
#[derive(Clone, Debug)]
pub struct AppliedStep {
    /// The step's number, from 1.
    pub number: usize,
    /// The call as written in the schedule (`sch.split(i, factors=[None, 32])`).
    pub text: String,
    /// Where the call is.
    pub span: Span,
    /// The module after the step.
    pub module: IRModule,
    /// False for steps that do not change the program (getters, an annotate of
    /// a key already there).
    pub changed: bool,
    /// The first buffer parameter the step gave another layout
    /// (`transform_layout`): the function then takes its data differently.
    pub relaid_parameter: Option<String>,
}

/// The result of running a schedule section.
#[derive(Clone, Debug)]
pub struct ScheduleRun {
    /// The name of the schedule `def` that ran, when one did.
    pub schedule: Option<String>,
    /// The module before the first step.
    pub initial: IRModule,
    /// The steps applied, in order.
    pub steps: Vec<AppliedStep>,
    /// Why the run stopped early: a refused step (primary span on the
    /// schedule line, secondary spans on the program), a bad script, or a
    /// missing schedule section.
    pub diagnostics: Vec<Diagnostic>,
    /// The steps applied, as TVM's trace.
    pub trace: Trace,
    /// What each name the schedule assigned a loop or block to denoted when
    /// it was assigned, in order (editors describe handles from this).
    pub handles: Vec<HandleBinding>,
}

/// What a handle of the schedule stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleDenotation {
    /// A block, by name.
    Block {
        /// The block's name.
        name: String,
    },
    /// A loop.
    Loop {
        /// The loop variable's name (`i_0`).
        name: String,
        /// The extent, printed.
        extent: String,
        /// The first block under the loop.
        block: Option<String>,
    },
}

/// A name the schedule assigned a loop or block to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleBinding {
    /// The name as written where it is assigned.
    pub span: Span,
    /// What it denoted then.
    pub denotes: HandleDenotation,
}

impl ScheduleRun {
    /// The module after the last step applied (the initial module when none was).
    pub fn module(&self) -> &IRModule {
        self.steps
            .last()
            .map(|s| &s.module)
            .unwrap_or(&self.initial)
    }

    /// True when every step applied and nothing went wrong.
    pub fn succeeded(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The verifier codes the modules of this run may show on purpose: with
    /// `disable_predication=True`, block iterators bound outside their
    /// domains and, inside a block made by `blockize`, accesses outside the
    /// region it declares; after `annotate_buffer_access` or
    /// `unsafe_hide_buffer_access`, accesses outside the declared regions.
    pub fn tolerated_verifier_codes(&self) -> &'static [&'static str] {
        use crate::verify::codes::{
            BINDING_OUT_OF_DOMAIN, LOAD_OUTSIDE_READS, STORE_OUTSIDE_WRITES,
        };
        if self.disabled_predication() {
            &[
                BINDING_OUT_OF_DOMAIN,
                LOAD_OUTSIDE_READS,
                STORE_OUTSIDE_WRITES,
            ]
        } else if self.declared_accesses_by_hand() {
            &[LOAD_OUTSIDE_READS, STORE_OUTSIDE_WRITES]
        } else {
            &[]
        }
    }

    /// True when a step replaced or dropped declared regions
    /// (`annotate_buffer_access`, `unsafe_hide_buffer_access`): the body may
    /// then access outside them, as the user asked.
    pub fn declared_accesses_by_hand(&self) -> bool {
        self.trace.instructions.iter().any(|i| {
            matches!(
                i.method,
                "annotate_buffer_access" | "unsafe_hide_buffer_access"
            )
        })
    }

    /// True when a step split a loop with `disable_predication=True`, which
    /// leaves block iterators bound outside their domains on purpose.
    pub fn disabled_predication(&self) -> bool {
        self.trace.instructions.iter().any(|i| {
            i.method == "split"
                && i.args.iter().any(|(keyword, value)| {
                    *keyword == Some("disable_predication") && *value == trace::TraceArg::Bool(true)
                })
        })
    }
}

/// Options of a schedule run beyond the defaults.
#[derive(Clone, Debug, Default)]
pub struct ApplyOptions {
    /// Stop after this many steps.
    pub stop_after: Option<usize>,
    /// The seed sampling instructions draw from ([`state::DEFAULT_SEED`] when `None`).
    pub seed: Option<u64>,
    /// When no section is named: the names of the sections written for the
    /// machine the program is for, most specific first (`schedule_avx2`,
    /// `schedule_cuda`); `None` means this host CPU's
    /// ([`crate::driver::toolchain::host_schedule_sections`]).
    pub machine_sections: Option<Vec<String>>,
}

/// Runs a schedule section of a program: the one named `schedule`, or, when
/// `None`, the file's only schedule section or the one named `schedule`.
///
/// A program without schedule sections gives an empty run without
/// diagnostics when no name is asked for.
pub fn apply_schedule(program: &Program, schedule: Option<&str>) -> ScheduleRun {
    apply_schedule_with(program, schedule, &ApplyOptions::default())
}

/// [`apply_schedule`] with options.
pub fn apply_schedule_with(
    program: &Program,
    schedule: Option<&str>,
    options: &ApplyOptions,
) -> ScheduleRun {
    let mut run = ScheduleRun {
        schedule: None,
        initial: program.module.clone(),
        steps: Vec::new(),
        diagnostics: Vec::new(),
        trace: Trace::default(),
        handles: Vec::new(),
    };
    let def = match select_schedule(program, schedule, options) {
        Ok(Some(def)) => def,
        Ok(None) => return run,
        Err(diagnostic) => {
            run.diagnostics.push(*diagnostic);
            return run;
        }
    };
    run.schedule = Some(def.name.clone());
    let mut state = ScheduleState::new(program.module.clone());
    state.set_tensor_intrinsics(program.tensor_intrinsics.clone());
    if let Some(seed) = options.seed {
        state.set_seed(seed);
    }
    let outcome = script::run(&mut state, def, program.file, options.stop_after);
    run.steps = outcome.steps;
    run.diagnostics = outcome.diagnostics;
    run.trace = outcome.trace;
    run.handles = outcome.handles;
    run
}

/// The schedule `def` to run: the one named; else the first section written
/// for the machine (`schedule_x86_avx512` before `schedule_avx2` on an
/// AVX-512 CPU), the one named `schedule`, or the only one.
pub fn select_schedule<'p>(
    program: &'p Program,
    name: Option<&str>,
    options: &ApplyOptions,
) -> Result<Option<&'p ScheduleDef>, Box<Diagnostic>> {
    if name.is_none() && program.schedules.len() > 1 {
        let host;
        let sections = match &options.machine_sections {
            Some(sections) => sections,
            None => {
                host = crate::driver::toolchain::host_schedule_sections();
                &host
            }
        };
        let for_machine = sections
            .iter()
            .find_map(|wanted| program.schedules.iter().find(|s| s.name == *wanted));
        if for_machine.is_some() {
            return Ok(for_machine);
        }
    }
    let file_start = Span::new(program.file, 0, 0);
    let names: Vec<String> = program
        .schedules
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect();
    match name {
        Some(name) => match program.schedules.iter().find(|s| s.name == name) {
            Some(def) => Ok(Some(def)),
            None => Err(Box::new(
                Diagnostic::error(
                    codes::NO_SCHEDULE,
                    format!("the file has no schedule section named `{name}`"),
                    file_start,
                )
                .with_help(if names.is_empty() {
                    "add a `def schedule(sch: T.Schedule):` section".to_string()
                } else {
                    format!("its schedule sections are: {}", names.join(", "))
                }),
            )),
        },
        None => match program.schedules.as_slice() {
            [] => Ok(None),
            [only] => Ok(Some(only)),
            several => match several.iter().find(|s| s.name == "schedule") {
                Some(def) => Ok(Some(def)),
                None => Err(Box::new(
                    Diagnostic::error(
                        codes::NO_SCHEDULE,
                        format!(
                            "the file has {} schedule sections and none is named `schedule`",
                            several.len()
                        ),
                        several[0].span,
                    )
                    .with_help(format!(
                        "pick one with `--schedule NAME`: {}",
                        names.join(", ")
                    )),
                )),
            },
        },
    }
}

/// Prints a module of a scheduled program as `tirc fmt` prints the program
/// (header comments, then the module or function), without the schedule
/// sections, in `dialect` (the program's own when `None`).
pub fn print_scheduled(
    program: &Program,
    module: &IRModule,
    dialect: Option<crate::printer::Dialect>,
) -> String {
    crate::format::print_program_with_module(program, module, dialect)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{program, MATMUL};

    fn with_schedule(schedule: &str) -> Program {
        program(&format!("{MATMUL}\n{schedule}"))
    }

    #[test]
    fn steps_carry_their_text_and_the_module_after_them() {
        let p = with_schedule(
            "def schedule(sch: T.Schedule):\n    b0 = sch.get_block(\"C\")\n    i, j, k = sch.get_loops(b0)\n    i0, i1 = sch.split(i, factors=[None, 32])\n    sch.reorder(i0, k, i1, j)\n",
        );
        let run = apply_schedule(&p, None);
        assert!(run.succeeded(), "{:?}", run.diagnostics);
        let texts: Vec<&str> = run.steps.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "sch.get_block(\"C\")",
                "sch.get_loops(b0)",
                "sch.split(i, factors=[None, 32])",
                "sch.reorder(i0, k, i1, j)"
            ]
        );
        let changed: Vec<bool> = run.steps.iter().map(|s| s.changed).collect();
        assert_eq!(changed, [false, false, true, true]);
        assert!(run.steps[2].span.is_known());
        assert_eq!(
            run.trace.to_python(),
            "# from tvm import s_tir\ndef apply_trace(sch: s_tir.Schedule) -> None:\n  b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n  l1, l2, l3 = sch.get_loops(block=b0)\n  l4, l5 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)\n  sch.reorder(l4, l3, l5, l2)"
        );
    }

    #[test]
    fn script_integers_divide_as_python_does_and_overflow_is_refused() {
        // Floor division and modulo round toward negative infinity; `i64::MIN % -1` is 0.
        let p = with_schedule(
            "def schedule(sch: T.Schedule):\n    i, j, k = sch.get_loops(\"C\")\n    f = -7 // 2 + (-7 % 2) * 10 + ((-9223372036854775807 - 1) % -1) + 6\n    sch.split(i, factors=[None, f])\n",
        );
        let run = apply_schedule(&p, None);
        assert!(run.succeeded(), "{:?}", run.diagnostics);
        assert!(run.trace.to_python().contains("factors=[None, 12]"));
        for (operation, message) in [
            ("(-9223372036854775807 - 1) // -1", "overflows"),
            ("5 // 0", "integer division by zero"),
            ("5 % 0", "integer division by zero"),
        ] {
            let p = with_schedule(&format!(
                "def schedule(sch: T.Schedule):\n    n = {operation}\n"
            ));
            let run = apply_schedule(&p, None);
            assert!(!run.succeeded(), "{operation} was accepted");
            assert!(
                run.diagnostics.iter().any(|d| d.message.contains(message)),
                "{operation}: {:?}",
                run.diagnostics
            );
        }
    }

    /// `for` loops in a schedule section run unrolled: the same steps and
    /// module as the straight-line script (issue 26.6).
    #[test]
    fn schedule_loops_apply_as_their_unrolled_steps() {
        let looped = with_schedule(
            "def schedule(sch: T.Schedule):\n    b0 = sch.get_block(\"C\")\n    i, j, k = sch.get_loops(b0)\n    for l in [i, j]:\n        sch.split(l, factors=[None, 4])\n    for n in range(2):\n        sch.annotate(k, ann_key=\"n\", ann_val=n)\n",
        );
        let straight = with_schedule(
            "def schedule(sch: T.Schedule):\n    b0 = sch.get_block(\"C\")\n    i, j, k = sch.get_loops(b0)\n    sch.split(i, factors=[None, 4])\n    sch.split(j, factors=[None, 4])\n    sch.annotate(k, ann_key=\"n\", ann_val=0)\n    sch.annotate(k, ann_key=\"n\", ann_val=1)\n",
        );
        let (looped, straight) = (
            apply_schedule(&looped, None),
            apply_schedule(&straight, None),
        );
        assert!(looped.succeeded(), "{:?}", looped.diagnostics);
        assert_eq!(looped.steps.len(), straight.steps.len());
        assert_eq!(looped.trace.to_python(), straight.trace.to_python());
        let module = |run: &ScheduleRun| run.steps.last().map(|s| s.module.clone()).expect("steps");
        crate::ir::structural::module_equal(&module(&looped), &module(&straight))
            .expect("the same module");
    }

    #[test]
    fn a_refused_step_in_a_schedule_loop_names_the_iteration() {
        let p = with_schedule(
            "def schedule(sch: T.Schedule):\n    b0 = sch.get_block(\"C\")\n    i, j, k = sch.get_loops(b0)\n    for f in [4, 5]:\n        sch.split(j, factors=[f, 32])\n",
        );
        let run = apply_schedule(&p, None);
        assert!(!run.succeeded());
        let notes = &run.diagnostics[0].notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("iteration 2 of the loop, with `f` = 5")),
            "{notes:?}"
        );
        let huge = with_schedule("def schedule(sch: T.Schedule):\n    for n in range(100000):\n        sch.get_block(\"C\")\n");
        let run = apply_schedule(&huge, None);
        assert!(
            run.diagnostics[0].message.contains("at most 10000 times"),
            "{:?}",
            run.diagnostics
        );
    }

    #[test]
    fn stop_after_applies_only_the_first_steps() {
        let p = with_schedule(
            "def schedule(sch: T.Schedule):\n    loops = sch.get_loops(\"C\")\n    sch.parallel(loops[0])\n    sch.unroll(loops[-1])\n",
        );
        let run = apply_schedule_with(
            &p,
            None,
            &ApplyOptions {
                stop_after: Some(2),
                ..ApplyOptions::default()
            },
        );
        assert!(run.succeeded());
        assert_eq!(run.steps.len(), 2);
        // A block name given to get_loops is looked up first, as TVM's Python API does.
        assert!(run.trace.to_python().contains("b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n  l1, l2, l3 = sch.get_loops(block=b0)"));
    }

    #[test]
    fn the_schedule_section_is_chosen_by_name() {
        let two = with_schedule(
            "def first(sch):\n    sch.get_block(\"C\")\n\ndef second(sch):\n    sch.get_loops(\"C\")\n",
        );
        let run = apply_schedule(&two, None);
        assert_eq!(run.diagnostics[0].code, codes::NO_SCHEDULE);
        let run = apply_schedule(&two, Some("second"));
        assert_eq!(run.schedule.as_deref(), Some("second"));
        assert!(run.succeeded());
        let run = apply_schedule(&two, Some("third"));
        assert_eq!(run.diagnostics[0].code, codes::NO_SCHEDULE);
        let none = program(MATMUL);
        let run = apply_schedule(&none, None);
        assert!(run.schedule.is_none() && run.diagnostics.is_empty() && run.steps.is_empty());
    }

    #[test]
    fn without_a_name_the_section_for_the_machine_is_chosen_first() {
        let sections = with_schedule(
            "def schedule_avx2(sch):\n    sch.get_block(\"C\")\n\ndef schedule_x86_avx512(sch):\n    sch.get_block(\"C\")\n\ndef schedule_cuda(sch):\n    sch.get_block(\"C\")\n",
        );
        let for_machine = |names: &[&str]| {
            let options = ApplyOptions {
                machine_sections: Some(names.iter().map(|n| n.to_string()).collect()),
                ..ApplyOptions::default()
            };
            apply_schedule_with(&sections, None, &options)
        };
        let avx512 = for_machine(&["schedule_x86_avx512", "schedule_avx2"]);
        assert_eq!(avx512.schedule.as_deref(), Some("schedule_x86_avx512"));
        let avx2 = for_machine(&["schedule_avx2"]);
        assert_eq!(avx2.schedule.as_deref(), Some("schedule_avx2"));
        assert_eq!(
            for_machine(&["schedule_cuda"]).schedule.as_deref(),
            Some("schedule_cuda")
        );
        // A machine with no section of its own: as before, a name is needed.
        let neon = for_machine(&["schedule_neon"]);
        assert_eq!(neon.diagnostics[0].code, codes::NO_SCHEDULE);
        // A section named `schedule` is the fallback, and a name asked for wins.
        let with_default = with_schedule(
            "def schedule(sch):\n    sch.get_block(\"C\")\n\ndef schedule_cuda(sch):\n    sch.get_block(\"C\")\n",
        );
        let options = ApplyOptions {
            machine_sections: Some(vec!["schedule_neon".to_string()]),
            ..ApplyOptions::default()
        };
        let run = apply_schedule_with(&with_default, None, &options);
        assert_eq!(run.schedule.as_deref(), Some("schedule"));
        let run = apply_schedule_with(&sections, Some("schedule_cuda"), &options);
        assert_eq!(run.schedule.as_deref(), Some("schedule_cuda"));
    }

    #[test]
    fn a_refused_step_keeps_the_last_good_module() {
        let p = with_schedule(
            "def schedule(sch: T.Schedule):\n    i, j, k = sch.get_loops(sch.get_block(\"C\"))\n    f = sch.fuse(i, j)\n    sch.parallel(k)\n    sch.parallel(f)\n",
        );
        let run = apply_schedule(&p, None);
        assert_eq!(run.steps.len(), 3);
        assert_eq!(run.diagnostics.len(), 1);
        let diagnostic = &run.diagnostics[0];
        assert_eq!(diagnostic.code, codes::NOT_DATA_PARALLEL);
        assert!(diagnostic.help.is_some());
        // The last call is the one refused; a secondary label points into the program.
        let p2 = with_schedule(
            "def schedule(sch: T.Schedule):\n    i, j, k = sch.get_loops(sch.get_block(\"C\"))\n    f = sch.fuse(i, j)\n    sch.parallel(i)\n",
        );
        let run2 = apply_schedule(&p2, None);
        let diagnostic = &run2.diagnostics[0];
        assert_eq!(diagnostic.code, codes::REMOVED_HANDLE);
        assert_eq!(diagnostic.secondary.len(), 2);
        crate::ir::structural::module_equal(run2.module(), &run2.steps[2].module).unwrap();
    }

    #[test]
    fn tuple_unpacking_lists_and_starred_arguments() {
        let p = with_schedule(
            "def schedule(s: T.Schedule):\n    root = s.get_block(\"root\")\n    c, = s.get_child_blocks(root)\n    loops = s.get_loops(c)\n    f = s.fuse(*loops)\n    a, b = s.split(f, [None, 2 ** 0 + 63])\n",
        );
        let run = apply_schedule(&p, None);
        // `**` is not supported in a schedule: the run stops there, with a code.
        assert_eq!(run.steps.len(), 4);
        assert_eq!(run.diagnostics[0].code, codes::BAD_ARGUMENTS);
    }
}
