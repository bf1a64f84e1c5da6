//! The interpreter's state while a function runs: variable bindings, memory,
//! the step budget and the launched GPU threads, with the options that bound
//! them.

use super::buffer_access::BufferGeometry;
use super::error::{InterpError, InterpResult};
use super::memory::{Memory, UninitializedMemory};
use super::value::Value;
use crate::ir::identity::AddressMap;
use crate::ir::Var;
use crate::source::Span;
use std::collections::HashMap;
use std::rc::Rc;

/// Limits and choices of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpOptions {
    /// Statements the program may execute (every loop iteration runs at
    /// least one) before the run stops with an error, so that a runaway loop
    /// fails instead of hanging.
    pub step_budget: u64,
    /// What fresh allocations hold before they are written.
    pub uninitialized: UninitializedMemory,
    /// Bytes the program's own allocations may hold at once (arguments not
    /// counted), so that a huge allocation fails instead of exhausting memory.
    pub memory_limit: usize,
}

impl Default for InterpOptions {
    fn default() -> InterpOptions {
        InterpOptions {
            step_budget: 50_000_000,
            uninitialized: UninitializedMemory::Poison,
            memory_limit: 1 << 30,
        }
    }
}

/// Variable values by variable identity.
pub type Bindings = AddressMap<Value>;

/// A binding replaced by a scope, to put back when the scope ends.
pub type SavedBinding = (Var, Option<Value>);

/// The state of one run.
pub struct Interpreter<'options> {
    /// The run's options.
    pub options: &'options InterpOptions,
    /// Storages behind data pointers.
    pub memory: Memory,
    /// The value of every variable in scope, by variable identity; while
    /// the threads of a block run together, the running thread's.
    pub(super) bindings: Bindings,
    /// Whether each statement (by node address) contains a barrier.
    pub(super) barrier_cache: AddressMap<bool>,
    steps_taken: u64,
    /// The layout of each `match_buffer` view in scope, by buffer identity:
    /// a view indexes its source with the source's strides whatever strides
    /// it declares, as TVM's `LowerMatchBuffer` rewrites it.
    pub buffer_views: AddressMap<Rc<BufferGeometry>>,
    /// The layout of every buffer whose shape, strides and offset are all
    /// literals, computed once: most accesses are to such buffers.
    pub constant_geometries: AddressMap<Rc<BufferGeometry>>,
    /// How many threads of one GPU block are live (the product of the
    /// `threadIdx` extents being iterated); barriers are only sound at 1.
    pub threads_per_block: u64,
    /// The `threadIdx.x` loops being iterated, innermost last: the lane of
    /// a warp-wide tensor-core builtin.
    pub(super) lane_loops: Vec<Var>,
}

impl<'options> Interpreter<'options> {
    /// A fresh state with nothing bound.
    pub fn new(options: &'options InterpOptions) -> Interpreter<'options> {
        Interpreter {
            options,
            memory: Memory::default(),
            bindings: HashMap::default(),
            barrier_cache: HashMap::default(),
            steps_taken: 0,
            buffer_views: HashMap::default(),
            constant_geometries: HashMap::default(),
            threads_per_block: 1,
            lane_loops: Vec::new(),
        }
    }

    /// The value of `var`, or an error when it is not in scope.
    pub fn lookup(&self, var: &Var) -> InterpResult<&Value> {
        self.bindings.get(&var.id()).ok_or_else(|| {
            InterpError::at(
                format!("variable `{}` has no value here", var.name()),
                var.span(),
            )
        })
    }

    /// True when `var` has a value.
    pub fn is_bound(&self, var: &Var) -> bool {
        self.bindings.contains_key(&var.id())
    }

    /// Binds `var` to `value`, returning what it replaced for [`Interpreter::restore`].
    pub fn bind(&mut self, var: &Var, value: Value) -> SavedBinding {
        let previous = self.bindings.insert(var.id(), value);
        (var.clone(), previous)
    }

    /// Puts back a binding replaced by [`Interpreter::bind`].
    pub fn restore(&mut self, saved: SavedBinding) {
        let (var, previous) = saved;
        match previous {
            Some(value) => self.bindings.insert(var.id(), value),
            None => self.bindings.remove(&var.id()),
        };
    }

    /// Puts back bindings in the reverse of the order they were made.
    pub fn restore_all(&mut self, saved: Vec<SavedBinding>) {
        for binding in saved.into_iter().rev() {
            self.restore(binding);
        }
    }

    /// Counts one executed statement against the budget.
    pub fn count_step(&mut self, span: Span) -> InterpResult<()> {
        self.steps_taken += 1;
        if self.steps_taken > self.options.step_budget {
            return Err(InterpError::at(
                format!(
                    "the program executed more than {} statements and was stopped; \
                     raise `InterpOptions::step_budget` if it is meant to run longer",
                    self.options.step_budget
                ),
                span,
            ));
        }
        Ok(())
    }
}
