//! Getters: finding blocks by name, the loops above a block, the blocks under
//! a loop or block, and a block's producers and consumers in its scope.
//! They read the state and never change the program.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, traced_as, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::ir::NodeId;

/// The function a getter works on: the one named, or else the module's only
/// function, or else `main` (TVM's "function being worked on").
pub fn resolve_function(state: &ScheduleState, func_name: Option<&str>) -> ScheduleResult<usize> {
    let functions = &state.module().functions;
    match func_name {
        Some(name) => state.function_index(name).ok_or_else(|| {
            let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
            let suggestion = crate::frontend::suggest(name, names.iter().copied());
            ScheduleError::new(
                codes::FUNCTION_NOT_FOUND,
                format!("the module has no function `{name}`"),
                match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("the module's functions are: {}", quoted_list(&names)),
                },
            )
        }),
        None => {
            if functions.len() == 1 {
                return Ok(0);
            }
            state.function_index("main").ok_or_else(|| {
                let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
                ScheduleError::new(
                    codes::FUNCTION_NOT_FOUND,
                    "the module has several functions and none is named `main`",
                    format!(
                        "name the function with `func_name=`: one of {}",
                        quoted_list(&names)
                    ),
                )
            })
        }
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `sch.get_block(name, func_name=None)`: the one block with this name.
pub fn get_block(
    state: &ScheduleState,
    name: &str,
    func_name: Option<&str>,
) -> ScheduleResult<NodeId> {
    let function = resolve_function(state, func_name)?;
    let blocks: Vec<NodeId> = state
        .nodes_of_function(function)
        .iter()
        .copied()
        .filter(|id| {
            state
                .sref(*id)
                .and_then(|s| s.as_block())
                .is_some_and(|b| b.name == name)
        })
        .collect();
    let func_label = &state.module().functions[function].name;
    match blocks.as_slice() {
        [one] => Ok(*one),
        [] => {
            let names: Vec<String> = state
                .nodes_of_function(function)
                .iter()
                .filter_map(|id| state.sref(*id).and_then(|s| s.as_block()))
                .map(|b| b.name.clone())
                .collect();
            let suggestion = crate::frontend::suggest(name, names.iter().map(String::as_str));
            let help = match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None if names.is_empty() => {
                    "the function has no blocks; schedule primitives need block-level TensorIR"
                        .to_string()
                }
                None => format!(
                    "the blocks of `{func_label}` are: {}",
                    quoted_list(&names.iter().map(String::as_str).collect::<Vec<_>>())
                ),
            };
            Err(ScheduleError::new(
                codes::BLOCK_NOT_FOUND,
                format!("no block named `{name}` in function `{func_label}`"),
                help,
            )
            .at_argument(0))
        }
        several => {
            let mut error = ScheduleError::new(
                codes::BLOCK_NOT_FOUND,
                format!(
                    "{} blocks are named `{name}` in function `{func_label}`",
                    several.len()
                ),
                "give the blocks distinct names",
            )
            .at_argument(0);
            for id in several {
                if let Some(sref) = state.sref(*id) {
                    error = error.blame(sref.location(), format!("a block named `{name}`"));
                }
            }
            Err(error)
        }
    }
}

/// `sch.get_loops(block)`: the loops above the block up to its scope, outermost first.
pub fn get_loops(state: &ScheduleState, block: NodeId) -> Vec<NodeId> {
    state.enclosing_loops(block)
}

/// `sch.get_child_blocks(block_or_loop)`: the blocks directly under it.
pub fn get_child_blocks(state: &ScheduleState, parent: NodeId) -> Vec<NodeId> {
    state.child_blocks(parent)
}

/// `sch.get_producers(block)`: the blocks of its scope it depends on.
pub fn get_producers(state: &ScheduleState, block: NodeId) -> ScheduleResult<Vec<NodeId>> {
    let scope = super::access::scope_root_of(state, block)?;
    Ok(state
        .block_info(scope)
        .map(|info| info.scope.producers_of(block))
        .unwrap_or_default())
}

/// `sch.get_consumers(block)`: the blocks of its scope that depend on it.
pub fn get_consumers(state: &ScheduleState, block: NodeId) -> ScheduleResult<Vec<NodeId>> {
    let scope = super::access::scope_root_of(state, block)?;
    Ok(state
        .block_info(scope)
        .map(|info| info.scope.consumers_of(block))
        .unwrap_or_default())
}

/// `sch.get_output_blocks(scope_block)`: the blocks under `scope_block`,
/// nested ones included and in program order, that write a buffer their
/// own scope does not allocate (TVM's `GetOutputBlocks`).
pub fn get_output_blocks(state: &ScheduleState, scope_block: NodeId) -> Vec<NodeId> {
    state
        .descendant_blocks(scope_block)
        .into_iter()
        .filter(|&block| {
            let allocated = state
                .scope_root(block)
                .and_then(|scope| state.sref(scope))
                .and_then(|scope| scope.as_block())
                .map(|scope| scope.alloc_buffers.as_slice())
                .unwrap_or_default();
            state
                .sref(block)
                .and_then(|sref| sref.as_block())
                .is_some_and(|b| b.writes.iter().any(|w| !allocated.contains(&w.buffer)))
        })
        .collect()
}

/// True when the sref is a loop.
pub fn is_loop(state: &ScheduleState, id: NodeId) -> bool {
    state.sref(id).map(|s| s.kind) == Some(SRefKind::Loop)
}

/// The getters' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "get_sblock",
        aliases: &["get_block"],
        params: &[typed("name", "str"), optional("func_name", "None")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns a handle to the block with this name, in the function `func_name` (the module's only function, or `main`, by default). The name is the string written in `T.block(\"...\")`; `get_block` is the classic spelling, `get_sblock` TVM 0.25+'s.",
        apply: apply_get_block,
    },
    Primitive {
        name: "get_loops",
        aliases: &[],
        params: &[required("block")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns handles to the loops between a block and its scope root, outermost first.",
        apply: apply_get_loops,
    },
    Primitive {
        name: "get_child_blocks",
        aliases: &[],
        params: &[required("block_or_loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns handles to the blocks directly inside a block or loop (not those nested in them), in program order.",
        apply: apply_get_child_blocks,
    },
    Primitive {
        name: "get_producers",
        aliases: &[],
        params: &[required("block")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns handles to the blocks of the scope whose writes this block reads or overwrites (read-after-write and write-after-write dependences).",
        apply: apply_get_producers,
    },
    Primitive {
        name: "get_consumers",
        aliases: &[],
        params: &[required("block")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns handles to the blocks of the scope that read or overwrite what this block writes.",
        apply: apply_get_consumers,
    },
    Primitive {
        name: "get_output_blocks",
        aliases: &[],
        params: &[traced_as("scope_block", "block")],
        varargs: None,
        keyword_only: &[],
        doc: "Returns handles to the blocks under a block (the root block for the whole function), nested ones included, that write a buffer their scope does not allocate: the function's outputs, or a nested scope's. TVM's traces name the argument `block=`, which works too.",
        apply: apply_get_output_blocks,
    },
    Primitive {
        name: "work_on",
        aliases: &[],
        params: &[typed("func_name", "str")],
        varargs: None,
        keyword_only: &[],
        doc: "Makes `func_name` the function that `get_block` searches when it is given no `func_name=`. The trace does not record it: each `get_block` there names its function.",
        apply: apply_work_on,
    },
];

fn apply_get_block(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let name = run.expect_str(bound, 0, "name")?;
    let func_name = match bound.get(1).map(|a| &a.value) {
        None | Some(Value::None) => None,
        Some(Value::Str(s)) => Some(s.clone()),
        Some(other) => return Err(run.wrong_kind(bound, 1, "func_name", "a string", other)),
    };
    let (rv, _) = run
        .get_block(&name, func_name.as_deref())
        .map_err(|e| run.refused(bound, e))?;
    Ok(Value::Block(rv))
}

fn apply_work_on(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let name = run.expect_str(bound, 0, "func_name")?;
    resolve_function(run.state, Some(&name)).map_err(|e| run.refused(bound, e.at_argument(0)))?;
    run.working_on = Some(name);
    Ok(Value::None)
}

fn apply_get_output_blocks(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (scope_rv, scope) = run.block_arg(bound, 0, "scope_block", true)?;
    let blocks = get_output_blocks(run.state, scope);
    let (rvs, value) = run.new_rvs(SRefKind::Block, &blocks);
    // TVM prints `block=`, which its own Python API does not take: the
    // argument goes by position so that both replay the trace.
    run.record(
        "get_output_blocks",
        vec![(None, TraceArg::Rv(scope_rv))],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_get_loops(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let loops = get_loops(run.state, block);
    let (rvs, value) = run.new_rvs(SRefKind::Loop, &loops);
    run.record(
        "get_loops",
        vec![(Some("block"), TraceArg::Rv(block_rv))],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_get_child_blocks(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (parent_rv, parent) = run.handle_arg(bound, 0, "block_or_loop", None)?;
    let blocks = get_child_blocks(run.state, parent);
    let (rvs, value) = run.new_rvs(SRefKind::Block, &blocks);
    run.record(
        "get_child_blocks",
        vec![(None, TraceArg::Rv(parent_rv))],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_get_producers(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_dependence_getter(run, bound, "get_producers", get_producers)
}

fn apply_get_consumers(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_dependence_getter(run, bound, "get_consumers", get_consumers)
}

fn apply_dependence_getter(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    getter: fn(&ScheduleState, NodeId) -> ScheduleResult<Vec<NodeId>>,
) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let blocks = getter(run.state, block).map_err(|e| run.refused(bound, e.at_argument(0)))?;
    let (rvs, value) = run.new_rvs(SRefKind::Block, &blocks);
    run.record(
        name,
        vec![(Some("block"), TraceArg::Rv(block_rv))],
        Outputs::List(rvs),
    );
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, state, MATMUL, MATMUL_RELU};

    #[test]
    fn blocks_are_found_by_name_with_suggestions() {
        let s = state(MATMUL_RELU);
        assert!(get_block(&s, "C", None).is_ok());
        assert!(get_block(&s, "root", Some("main")).is_ok());
        let error = get_block(&s, "c", None).unwrap_err();
        assert_eq!(error.code, codes::BLOCK_NOT_FOUND);
        assert!(
            error.help.contains("`C`") || error.help.contains("`D`"),
            "{}",
            error.help
        );
        let error = get_block(&s, "C", Some("mian")).unwrap_err();
        assert_eq!(error.code, codes::FUNCTION_NOT_FOUND);
        assert_eq!(error.help, "did you mean `main`?");
    }

    #[test]
    fn loops_children_producers_and_consumers() {
        let s = state(MATMUL_RELU);
        let (c, c_loops) = block_and_loops(&s, "C");
        let (d, d_loops) = block_and_loops(&s, "D");
        assert_eq!((c_loops.len(), d_loops.len()), (3, 2));
        let root = s.root_block(0).unwrap();
        assert_eq!(get_child_blocks(&s, root), vec![c, d]);
        assert_eq!(get_child_blocks(&s, c_loops[1]), vec![c]);
        assert_eq!(get_producers(&s, d).unwrap(), vec![c]);
        assert_eq!(get_consumers(&s, c).unwrap(), vec![d]);
        assert!(get_producers(&s, c).unwrap().is_empty());
        assert_eq!(get_producers(&s, root).unwrap_err().code, codes::ROOT_BLOCK);
        assert!(is_loop(&s, c_loops[0]) && !is_loop(&s, c));
    }

    #[test]
    fn output_blocks_write_what_their_scope_does_not_allocate() {
        let s = state(MATMUL_RELU);
        let (d, _) = block_and_loops(&s, "D");
        let root = s.root_block(0).unwrap();
        assert_eq!(get_output_blocks(&s, root), vec![d]);
        assert!(get_output_blocks(&s, d).is_empty());
    }

    /// TVM's traces print `get_output_blocks(block=...)`, its Python API
    /// takes `scope_block=`: both are read, and the trace passes it by
    /// position, which both replay.
    #[test]
    fn output_blocks_take_the_trace_keyword_and_the_api_keyword() {
        let program = crate::schedule::testing::program(&format!(
            "{MATMUL_RELU}\ndef schedule(sch: T.Schedule):\n    a, = sch.get_output_blocks(block=sch.get_block(\"root\"))\n    b, = sch.get_output_blocks(scope_block=\"root\")\n"
        ));
        let run = crate::schedule::apply_schedule(&program, None);
        assert!(run.succeeded(), "{:?}", run.diagnostics);
        let trace = run.trace.to_python();
        assert_eq!(
            trace.matches("sch.get_output_blocks(b0)").count(),
            1,
            "{trace}"
        );
        assert_eq!(
            trace.matches("sch.get_output_blocks(b2)").count(),
            1,
            "{trace}"
        );
    }

    #[test]
    fn a_single_function_is_the_default() {
        let s = state(MATMUL);
        assert_eq!(resolve_function(&s, None).unwrap(), 0);
    }
}
