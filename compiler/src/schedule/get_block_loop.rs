//! Getters: finding blocks by name, the loops above a block, the blocks under
//! a loop or block, and a block's producers and consumers in its scope.
//! They read the state and never change the program.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::state::{SRefKind, ScheduleState};
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

/// True when the sref is a loop.
pub fn is_loop(state: &ScheduleState, id: NodeId) -> bool {
    state.sref(id).map(|s| s.kind) == Some(SRefKind::Loop)
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
    fn a_single_function_is_the_default() {
        let s = state(MATMUL);
        assert_eq!(resolve_function(&s, None).unwrap(), 0);
    }
}
