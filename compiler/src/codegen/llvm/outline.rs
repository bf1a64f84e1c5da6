//! Loops outlined into functions of their own: the bodies of parallel loops
//! (see `parallel`) and, in a long sequence of loops, each loop. LLVM's
//! optimiser is superlinear in the size of one function (scalar evolution
//! walks every dominating branch of every loop), so a function of 1,000
//! sequential loops took 20 s to optimise; as 1,000 functions it is linear.

use super::context::{Codegen, CodegenError, CodegenResult, FunctionState};
use crate::ir::identity::VarMap;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{Buffer, Expr, ExprKind, For, ForKind, Stmt, StmtKind, Var};
use crate::source::Span;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue};

/// A sequence with at least this many loops outlines each of them.
pub const OUTLINE_SEQUENTIAL_LOOPS: usize = 32;

/// Every variable a statement mentions, in order of first mention: in
/// expressions, as buffers' data, and in buffers' shapes, strides and offsets.
#[derive(Default)]
struct MentionedVars {
    vars: Vec<Var>,
    seen: crate::ir::VarSet,
}

impl MentionedVars {
    fn add(&mut self, var: &Var) {
        if self.seen.insert(var.clone()) {
            self.vars.push(var.clone());
        }
    }
    fn add_buffer(&mut self, buffer: &Buffer) {
        self.add(buffer.data());
        let node = buffer.node();
        for expr in node
            .shape
            .iter()
            .chain(&node.strides)
            .chain(std::iter::once(&node.elem_offset))
        {
            self.visit_expr(expr);
        }
    }
}

impl Visitor for MentionedVars {
    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Var(var) = expr.kind() {
            self.add(var);
        }
        walk_expr(self, expr);
    }
    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        self.add_buffer(buffer);
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.add_buffer(buffer);
    }
    fn visit_stmt(&mut self, stmt: &Stmt) {
        walk_stmt(self, stmt);
    }
}

/// True when `stmts` holds enough loops that each should be compiled as a
/// function of its own.
pub fn outlines_each_loop(stmts: &[Stmt]) -> bool {
    stmts
        .iter()
        .filter(|stmt| matches!(stmt.kind(), StmtKind::For(_)))
        .count()
        >= OUTLINE_SEQUENTIAL_LOOPS
}

impl<'ctx> Codegen<'ctx> {
    /// The values of the variables `for_loop`'s body uses from outside it,
    /// in order of first mention.
    pub(super) fn captured_values(
        &self,
        for_loop: &For,
    ) -> CodegenResult<Vec<(Var, BasicValueEnum<'ctx>)>> {
        let mut mentioned = MentionedVars::default();
        mentioned.visit_stmt(&for_loop.body);
        let state = self.current()?;
        Ok(mentioned
            .vars
            .into_iter()
            .filter(|var| *var != for_loop.loop_var)
            .filter_map(|var| state.vars.get(&var).map(|value| (var, *value)))
            .collect())
    }

    /// The body function: `i32 body(captured..., begin, end)` running
    /// iterations `[begin, end)` of the loop serially, with the loop id
    /// `properties`. `in_parallel` says whether it runs on a pool thread.
    pub(super) fn outline_body(
        &mut self,
        base_name: &str,
        for_loop: &For,
        captured: &[(Var, BasicValueEnum<'ctx>)],
        in_parallel: bool,
        properties: &[(&str, Option<u32>)],
    ) -> CodegenResult<FunctionValue<'ctx>> {
        let state = self.current()?;
        let noalias = state.noalias;
        let data_alignment = state.data_alignment.clone();
        let known_multiples = state.known_multiples.clone();
        let dtype = for_loop.loop_var.dtype();
        let bound_type = self.llvm_type(dtype, Span::NONE)?;
        let mut parameter_types: Vec<BasicMetadataTypeEnum> =
            captured.iter().map(|(_, v)| v.get_type().into()).collect();
        parameter_types.push(bound_type.into());
        parameter_types.push(bound_type.into());
        let function_type = self.context.i32_type().fn_type(&parameter_types, false);
        let function = self
            .module
            .add_function(base_name, function_type, Some(Linkage::Internal));
        self.apply_function_attributes(function);
        let noalias_kind = Attribute::get_named_enum_kind_id("noalias");
        for (position, (var, value)) in captured.iter().enumerate() {
            if noalias && value.is_pointer_value() && data_alignment.contains_key(var) {
                let attribute = self.context.create_enum_attribute(noalias_kind, 0);
                function.add_attribute(AttributeLoc::Param(position as u32), attribute);
            }
        }

        let saved_block = self.insert_block()?;
        let entry = self.context.append_basic_block(function, "entry");
        let body = self.context.append_basic_block(function, "body");
        self.builder.position_at_end(entry);
        self.builder.build_unconditional_branch(body)?;
        self.builder.position_at_end(body);
        let mut vars = VarMap::default();
        for (position, (var, _)) in captured.iter().enumerate() {
            let parameter = function
                .get_nth_param(position as u32)
                .ok_or_else(|| CodegenError::internal("missing outlined parameter"))?;
            vars.insert(var.clone(), parameter);
        }
        let state = FunctionState {
            value: function,
            entry,
            vars,
            data_alignment,
            known_multiples,
            heap_allocations: Vec::new(),
            in_parallel,
            noalias,
        };
        let saved_state = self.function.replace(state);
        let result = (|| {
            let begin = function
                .get_nth_param(captured.len() as u32)
                .ok_or_else(|| CodegenError::internal("missing begin parameter"))?;
            let end = function
                .get_nth_param(captured.len() as u32 + 1)
                .ok_or_else(|| CodegenError::internal("missing end parameter"))?;
            self.emit_serial_loop(for_loop, begin, end, properties)?;
            let zero = self.context.i32_type().const_zero();
            self.builder.build_return(Some(&zero))?;
            Ok(())
        })();
        self.function = saved_state;
        self.builder.position_at_end(saved_block);
        result.map(|()| function)
    }

    /// Emits a loop this thread runs as a call of a function of its own,
    /// which LLVM must not inline back.
    pub(super) fn emit_outlined_for(&mut self, for_loop: &For, span: Span) -> CodegenResult<()> {
        if matches!(for_loop.kind, ForKind::Parallel | ForKind::ThreadBinding) {
            return self.emit_for(for_loop, span);
        }
        let (start, end) = self.loop_bounds(for_loop, span)?;
        if for_loop.kind == ForKind::Vectorized {
            self.vectorized_loops.push(span);
        }
        let captured = self.captured_values(for_loop)?;
        let in_parallel = self.current()?.in_parallel;
        self.outlined_count += 1;
        let name = format!("{}_loop_{}", self.kernel_symbol, self.outlined_count);
        let properties = super::stmt::loop_properties(for_loop.kind);
        let function = self.outline_body(&name, for_loop, &captured, in_parallel, properties)?;
        let noinline = Attribute::get_named_enum_kind_id("noinline");
        function.add_attribute(
            AttributeLoc::Function,
            self.context.create_enum_attribute(noinline, 0),
        );
        let arguments: Vec<BasicMetadataValueEnum> = captured
            .iter()
            .map(|(_, value)| (*value).into())
            .chain([start.into(), end.into()])
            .collect();
        let code = self
            .builder
            .build_call(function, &arguments, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::internal("an outlined loop returned nothing"))?
            .into_int_value();
        let zero = self.context.i32_type().const_zero();
        let succeeded =
            self.builder
                .build_int_compare(inkwell::IntPredicate::EQ, code, zero, "")?;
        self.return_code_unless(succeeded, code)
    }
}

#[cfg(test)]
mod tests {
    use super::OUTLINE_SEQUENTIAL_LOOPS;
    use crate::codegen::llvm::{CodegenOptions, JitModule};
    use crate::source::SourceMap;

    /// `count` loops in sequence, each adding its number to `B`; one of
    /// them allocates, one is parallel.
    fn sequential_loops(count: usize) -> String {
        let mut text = String::from(
            "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n    T.func_attr({\"tir.noalias\": True})\n",
        );
        for k in 0..count {
            let kind = if k == 3 { "T.parallel" } else { "range" };
            text.push_str(&format!(
                "    for i{k} in {kind}(8):\n        B[i{k}] = B[i{k}] + A[i{k}] * T.float32({k})\n"
            ));
        }
        text.push_str(
            "    for j in range(8):\n        t = T.allocate([2], \"float32\", \"global\")\n        t_1 = T.Buffer((2,), data=t)\n        t_1[0] = A[j]\n        B[j] = B[j] + t_1[0]\n",
        );
        text
    }

    fn run(count: usize) -> (usize, Vec<f32>) {
        let mut sources = SourceMap::default();
        let text = sequential_loops(count);
        let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "t.tir", &text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let module = program.expect("the program parses").module;
        let options = CodegenOptions::host();
        let ir = crate::codegen::llvm::emit::module_to_llvm_ir(&module, &options)
            .expect("the module compiles");
        let outlined = ir
            .lines()
            .filter(|line| line.starts_with("define internal") && line.contains("@main_loop_"))
            .count();
        let jit = JitModule::compile(&module, &options).expect("the module compiles");
        let function = jit.function("main").expect("main is there");
        let a: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let mut b = vec![1.0f32; 8];
        let slots = [a.as_ptr() as u64, b.as_mut_ptr() as u64];
        // SAFETY: both buffers hold the 8 floats the kernel accesses.
        let code = unsafe { function.call_packed(&slots) }.expect("two arguments");
        assert_eq!(code, 0);
        (outlined, b)
    }

    #[test]
    fn a_long_sequence_of_loops_is_outlined_and_computes_the_same() {
        let count = OUTLINE_SEQUENTIAL_LOOPS + 4;
        let (outlined, b) = run(count);
        // Every serial loop but the parallel one (outlined as a lambda).
        assert_eq!(outlined, count, "serial loops outlined");
        let sum: f32 = (0..count).map(|k| k as f32).sum();
        let expected: Vec<f32> = (0..8).map(|i| 1.0 + i as f32 * sum + i as f32).collect();
        assert_eq!(b, expected);
    }

    #[test]
    fn a_short_sequence_stays_in_one_function() {
        let (outlined, _) = run(4);
        assert_eq!(outlined, 0);
    }
}
