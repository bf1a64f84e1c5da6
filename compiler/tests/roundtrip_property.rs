//! Property test of the round-trip contract: random well-typed IR, printed in
//! either dialect, parses back to a structurally equal function.
//!
//! Each case is generated from a seed by a small deterministic generator, so a
//! failure prints the seed and the text that did not round-trip.

use proptest::prelude::*;
use std::collections::HashMap;
use tirc::frontend::parse_program;
use tirc::ir::operators;
use tirc::ir::*;
use tirc::printer::{print_function, Dialect, PrintOptions};
use tirc::source::{SourceMap, Span};

/// A xorshift generator: enough randomness, no dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const DTYPES: &[&str] = &[
    "float32", "float16", "float64", "int32", "int8", "int64", "uint8", "bfloat16",
];

struct Generator {
    random: Random,
    names: usize,
}

impl Generator {
    fn name(&mut self, base: &str) -> String {
        self.names += 1;
        format!("{base}{}", self.names)
    }

    fn dtype(&mut self) -> DataType {
        self.random.pick(DTYPES).parse().expect("known dtype")
    }

    fn buffer(&mut self, scope: &str) -> Buffer {
        let rank = 1 + self.random.below(3);
        let shape = (0..rank)
            .map(|_| Expr::i32(*self.random.pick(&[4i64, 8, 16, 128])))
            .collect();
        let dtype = self.dtype();
        let name = self.name("B");
        let buffer = Buffer::new(&name, dtype, shape, scope, Span::NONE);
        if self.random.chance(15) {
            buffer.with(|node| node.data_alignment = 128)
        } else {
            buffer
        }
    }

    /// An in-bounds index for a dimension of `extent` over `vars`.
    fn index(&mut self, vars: &[(Var, i64)], extent: i64) -> Expr {
        let usable: Vec<&(Var, i64)> = vars.iter().filter(|(_, e)| *e <= extent).collect();
        if usable.is_empty() || self.random.chance(20) {
            return Expr::i32(self.random.below(extent as usize) as i64);
        }
        let (var, var_extent) = *self.random.pick(&usable);
        let base = var.to_expr();
        if *var_extent * 2 <= extent && self.random.chance(30) {
            return Expr::binary(BinaryOp::Mul, base, Expr::i32(2));
        }
        if self.random.chance(20) {
            return Expr::binary(
                BinaryOp::FloorMod,
                base,
                Expr::i32(extent.min(*var_extent).max(1)),
            );
        }
        base
    }

    fn load(&mut self, buffer: &Buffer, vars: &[(Var, i64)]) -> Expr {
        let indices = buffer
            .shape()
            .iter()
            .map(|e| self.index(vars, e.as_int().unwrap_or(1)))
            .collect();
        Expr::load(buffer, indices)
    }

    fn constant(&mut self, dtype: DataType) -> Expr {
        if dtype.is_float() {
            let values = [0.0, 1.0, -2.5, 0.1, 3.4028234663852886e38, 1e-5, 7.0];
            operators::make_const_float(dtype, *self.random.pick(&values))
        } else if dtype.is_bool() {
            Expr::bool(self.random.chance(50))
        } else {
            let value = self.random.below(100) as i64 - if dtype.is_uint() { 0 } else { 50 };
            operators::make_const_int(dtype, value)
        }
    }

    /// A random expression of exactly `dtype`.
    fn expr(
        &mut self,
        dtype: DataType,
        depth: usize,
        buffers: &[Buffer],
        vars: &[(Var, i64)],
    ) -> Expr {
        let leaf = depth == 0 || self.random.chance(25);
        if leaf {
            let same_type: Vec<&Buffer> = buffers.iter().filter(|b| b.dtype() == dtype).collect();
            if !same_type.is_empty() && self.random.chance(60) {
                let buffer = (*self.random.pick(&same_type)).clone();
                return self.load(&buffer, vars);
            }
            if dtype == DataType::int32() && !vars.is_empty() && self.random.chance(50) {
                return self.random.pick(vars).0.to_expr();
            }
            return self.constant(dtype);
        }
        let next = depth - 1;
        match self.random.below(9) {
            0 if !dtype.is_bool() => {
                let other = self.dtype();
                let value = self.expr(other, next, buffers, vars);
                Expr::new(ExprKind::Cast(value), dtype, Span::NONE)
            }
            1 if dtype.is_bool() || self.random.chance(30) => {
                let operand_type = self.dtype();
                let a = self.expr(operand_type, next, buffers, vars);
                let b = self.expr(operand_type, next, buffers, vars);
                let op = *self.random.pick(&[
                    BinaryOp::Lt,
                    BinaryOp::Le,
                    BinaryOp::Eq,
                    BinaryOp::Ne,
                    BinaryOp::Gt,
                    BinaryOp::Ge,
                ]);
                let comparison = Expr::binary(op, a, b);
                if dtype.is_bool() {
                    comparison
                } else {
                    let (x, y) = (
                        self.expr(dtype, next, buffers, vars),
                        self.expr(dtype, next, buffers, vars),
                    );
                    Expr::new(ExprKind::Select(comparison, x, y), dtype, Span::NONE)
                }
            }
            2 if dtype.is_float() && dtype.bits >= 32 && dtype.code == TypeCode::Float => {
                let name = *self.random.pick(&["exp", "sqrt", "tanh", "fabs", "log"]);
                let operand = self.expr(dtype, next, buffers, vars);
                Expr::call(Op::named(name), vec![operand], dtype)
            }
            3 if !dtype.is_bool() => {
                let op = *self.random.pick(&[BinaryOp::Min, BinaryOp::Max]);
                let (a, b) = (
                    self.expr(dtype, next, buffers, vars),
                    self.expr(dtype, next, buffers, vars),
                );
                Expr::binary(op, a, b)
            }
            4 if dtype.is_bool() => {
                let (a, b) = (
                    self.expr(dtype, next, buffers, vars),
                    self.expr(dtype, next, buffers, vars),
                );
                Expr::binary(*self.random.pick(&[BinaryOp::And, BinaryOp::Or]), a, b)
            }
            5 if dtype.is_integer() => {
                let a = self.expr(dtype, next, buffers, vars);
                let divisor = operators::make_const_int(dtype, 1 + self.random.below(7) as i64);
                Expr::binary(
                    *self.random.pick(&[
                        BinaryOp::FloorDiv,
                        BinaryOp::FloorMod,
                        BinaryOp::Div,
                        BinaryOp::Mod,
                    ]),
                    a,
                    divisor,
                )
            }
            6 if !dtype.is_bool() => {
                let condition = self.expr(DataType::bool(), next, buffers, vars);
                let (a, b) = (
                    self.expr(dtype, next, buffers, vars),
                    self.expr(dtype, next, buffers, vars),
                );
                Expr::call(Op::named("if_then_else"), vec![condition, a, b], dtype)
            }
            _ if dtype.is_bool() => self.constant(dtype),
            _ => {
                let op = *self
                    .random
                    .pick(&[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul]);
                let (a, b) = (
                    self.expr(dtype, next, buffers, vars),
                    self.expr(dtype, next, buffers, vars),
                );
                if dtype.is_float() && self.random.chance(20) {
                    Expr::binary(BinaryOp::Div, a, b)
                } else {
                    Expr::binary(op, a, b)
                }
            }
        }
    }

    fn for_loop(&mut self, var: &Var, extent: i64, body: Stmt) -> Stmt {
        let (kind, thread) = match self.random.below(8) {
            0 => (ForKind::Parallel, None),
            1 => (ForKind::Vectorized, None),
            2 => (ForKind::Unrolled, None),
            3 => (
                ForKind::ThreadBinding,
                Some(
                    self.random
                        .pick(&["blockIdx.x", "threadIdx.x", "threadIdx.y"])
                        .to_string(),
                ),
            ),
            _ => (ForKind::Serial, None),
        };
        let mut annotations = Vec::new();
        if self.random.chance(10) {
            annotations.push(("pragma_unroll_explicit".to_string(), AttrValue::Int(1)));
        }
        Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: var.clone(),
            min: Expr::i32(0),
            extent: Expr::i32(extent),
            kind,
            thread,
            annotations,
            body,
        })
    }

    /// A block-level function: loops, one block with bindings and regions.
    fn block_function(&mut self) -> PrimFunc {
        let buffers: Vec<Buffer> = (0..1 + self.random.below(3))
            .map(|_| self.buffer("global"))
            .collect();
        let output = buffers[0].clone();
        let shape: Vec<i64> = output.constant_shape().unwrap_or_default();
        let loops: Vec<(Var, i64)> = shape
            .iter()
            .map(|e| (Var::new(self.name("i"), DataType::int32(), Span::NONE), *e))
            .collect();
        let iter_vars: Vec<IterVar> = shape
            .iter()
            .map(|e| IterVar {
                var: Var::new(self.name("v"), DataType::int32(), Span::NONE),
                dom: Range::from_extent(Expr::i32(*e)),
                kind: IterKind::Spatial,
            })
            .collect();
        let block_vars: Vec<(Var, i64)> = iter_vars
            .iter()
            .zip(&shape)
            .map(|(iv, e)| (iv.var.clone(), *e))
            .collect();
        let value = self.expr(output.dtype(), 3, &buffers, &block_vars);
        let indices: Vec<Expr> = block_vars.iter().map(|(v, _)| v.to_expr()).collect();
        let store = Stmt::store(&output, value, indices.clone());
        let local = self.random.chance(30).then(|| self.buffer("local"));
        let mut body = store;
        if let Some(local) = &local {
            let fill_indices = local.shape().iter().map(|_| Expr::i32(0)).collect();
            let fill = Stmt::store(local, self.constant(local.dtype()), fill_indices);
            body = Stmt::seq(vec![fill, body]);
        }
        let block = Block {
            id: NodeId::fresh(),
            name: self.name("block"),
            iter_vars,
            reads: buffers.iter().skip(1).map(BufferRegion::full).collect(),
            writes: vec![BufferRegion {
                buffer: output.clone(),
                region: indices.iter().map(|i| Range::point(i.clone())).collect(),
            }],
            init: None,
            alloc_buffers: local.into_iter().collect(),
            match_buffers: Vec::new(),
            annotations: if self.random.chance(20) {
                vec![(
                    "meta_schedule.x".to_string(),
                    AttrValue::Str("SSR".to_string()),
                )]
            } else {
                Vec::new()
            },
            body,
        };
        let predicate = if self.random.chance(20) {
            Expr::binary(BinaryOp::Lt, loops[0].0.to_expr(), Expr::i32(loops[0].1))
        } else {
            Expr::bool(true)
        };
        let realize = Stmt::block_realize(BlockRealize {
            iter_values: loops.iter().map(|(v, _)| v.to_expr()).collect(),
            predicate,
            block,
        });
        let mut stmt = realize;
        for (var, extent) in loops.iter().rev() {
            stmt = self.for_loop(var, *extent, stmt);
        }
        let root = Stmt::block_realize(BlockRealize {
            iter_values: Vec::new(),
            predicate: Expr::bool(true),
            block: Block {
                id: NodeId::fresh(),
                name: "root".to_string(),
                iter_vars: Vec::new(),
                reads: Vec::new(),
                writes: Vec::new(),
                init: None,
                alloc_buffers: Vec::new(),
                match_buffers: Vec::new(),
                annotations: Vec::new(),
                body: stmt,
            },
        });
        self.function(buffers, root, true)
    }

    /// A function without blocks: loops, stores, conditionals and lets.
    /// A parameter buffer with the fields TVM writes in a signature:
    /// explicit strides, `buffer_type="auto"`, a symbolic `elem_offset`
    /// with its `offset_factor` (issue 24.1).
    fn parameter_fields(&mut self, buffer: Buffer) -> Buffer {
        let shape = buffer.constant_shape().unwrap_or_default();
        let strides: Vec<Expr> = (0..shape.len())
            .map(|k| Expr::i32(shape[k + 1..].iter().product::<i64>()))
            .collect();
        let with_strides = self.random.chance(30);
        // A symbolic outermost stride, as a strided parameter of TE has.
        let strides = match strides.split_first() {
            Some((_, rest)) if self.random.chance(40) => {
                let stride = Var::new(self.name("stride"), DataType::int32(), Span::NONE);
                std::iter::once(stride.to_expr())
                    .chain(rest.iter().cloned())
                    .collect()
            }
            _ => strides,
        };
        let auto = self.random.chance(20);
        let offset = self
            .random
            .chance(20)
            .then(|| Var::new(self.name("offset"), DataType::int32(), Span::NONE));
        let factor = *self.random.pick(&[1i64, 4, 16]);
        buffer.with(|node| {
            if with_strides {
                node.strides = strides;
            }
            if auto {
                node.buffer_type = BufferType::AutoBroadcast;
            }
            if let Some(offset) = offset {
                node.elem_offset = offset.to_expr();
                node.offset_factor = factor;
            }
        })
    }

    /// A one-dimensional view of `buffer`'s storage, declared in the body
    /// as `V = T.Buffer((n,), data=B.data)` (issue 24.1).
    fn flat_view(&mut self, buffer: &Buffer) -> Buffer {
        let size: i64 = buffer.constant_shape().unwrap_or_default().iter().product();
        let name = self.name("V");
        let view = Buffer::new(
            &name,
            buffer.dtype(),
            vec![Expr::i32(size)],
            "global",
            Span::NONE,
        );
        let data = buffer.data().clone();
        let auto = self.random.chance(30);
        view.with(|node| {
            node.data = data;
            if auto {
                node.buffer_type = BufferType::AutoBroadcast;
            }
        })
    }

    /// The lowered forms TVM printed before 0.20 around `body`: a scratch
    /// `T.allocate` written through a view, a `T.attr` pragma and a
    /// `T.launch_thread` (issue 24.1).
    fn pre_0_20_forms(&mut self, mut body: Stmt, output: &Buffer) -> Stmt {
        if self.random.chance(25) {
            let dtype = output.dtype();
            let name = self.name("scratch");
            let data = Var::pointer(name.clone(), dtype, "global", Span::NONE);
            let view = Buffer::new(
                &format!("{name}_1"),
                dtype,
                vec![Expr::i32(4)],
                "global",
                Span::NONE,
            );
            let view_data = data.clone();
            let view = view.with(|node| node.data = view_data);
            let value = self.constant(dtype);
            let fill = Stmt::store(&view, value, vec![Expr::i32(1)]);
            body = Stmt::new(
                StmtKind::Allocate(Allocate {
                    buffer_var: data,
                    dtype,
                    extents: vec![Expr::i32(4)],
                    condition: Expr::bool(true),
                    annotations: Default::default(),
                    body: Stmt::new(StmtKind::Seq(vec![fill, body]), Span::NONE),
                }),
                Span::NONE,
            );
        }
        if self.random.chance(25) {
            body = Stmt::new(
                StmtKind::AttrStmt(AttrStmt {
                    node: AttrNode::Var(output.data().clone()),
                    key: "pragma_auto_unroll_max_step".to_string(),
                    value: Expr::i32(*self.random.pick(&[4i64, 16])),
                    body,
                }),
                Span::NONE,
            );
        }
        if self.random.chance(20) {
            let var = Var::new(self.name("threadIdx_x"), DataType::int32(), Span::NONE);
            body = Stmt::new(
                StmtKind::AttrStmt(AttrStmt {
                    node: AttrNode::Thread {
                        var,
                        tag: "threadIdx.x".to_string(),
                    },
                    key: "thread_extent".to_string(),
                    value: Expr::i32(1),
                    body,
                }),
                Span::NONE,
            );
        }
        body
    }

    fn lowered_function(&mut self) -> PrimFunc {
        let buffers: Vec<Buffer> = (0..1 + self.random.below(3))
            .map(|_| {
                let buffer = self.buffer("global");
                self.parameter_fields(buffer)
            })
            .collect();
        let output = buffers[0].clone();
        let shape = output.constant_shape().unwrap_or_default();
        let loops: Vec<(Var, i64)> = shape
            .iter()
            .map(|e| (Var::new(self.name("j"), DataType::int32(), Span::NONE), *e))
            .collect();
        let value = self.expr(output.dtype(), 3, &buffers, &loops);
        let mut body = if output.node().elem_offset.is_const() && self.random.chance(30) {
            // Stored through a flat view of the output's storage.
            let view = self.flat_view(&output);
            let mut flat = Expr::i32(0);
            for (k, (var, _)) in loops.iter().enumerate() {
                let stride: i64 = shape[k + 1..].iter().product();
                let term =
                    operators::mul(var.to_expr(), Expr::i32(stride)).expect("int32 operands");
                flat = operators::add(flat, term).expect("int32 operands");
            }
            Stmt::store(&view, value, vec![flat])
        } else {
            let indices = loops.iter().map(|(v, _)| v.to_expr()).collect();
            Stmt::store(&output, value, indices)
        };
        if self.random.chance(40) {
            let condition = self.expr(DataType::bool(), 2, &buffers, &loops);
            body = Stmt::new(
                StmtKind::IfThenElse {
                    condition,
                    then_case: body,
                    else_case: None,
                },
                Span::NONE,
            );
        }
        if self.random.chance(40) {
            let var = Var::new(self.name("t"), DataType::int32(), Span::NONE);
            let value = self.expr(DataType::int32(), 2, &buffers, &loops);
            body = Stmt::new(StmtKind::LetStmt { var, value, body }, Span::NONE);
        }
        for (var, extent) in loops.iter().rev() {
            body = self.for_loop(var, *extent, body);
        }
        let body = self.pre_0_20_forms(body, &output);
        self.function(buffers, body, false)
    }

    fn function(&mut self, buffers: Vec<Buffer>, body: Stmt, s_tir: bool) -> PrimFunc {
        let params: Vec<Var> = buffers
            .iter()
            .map(|b| Var::new(b.name(), DataType::handle(), Span::NONE))
            .collect();
        let name = self.name("func");
        let mut attrs = vec![("global_symbol".to_string(), AttrValue::Str(name.clone()))];
        if s_tir {
            attrs.push(("s_tir".to_string(), AttrValue::Bool(true)));
        }
        if self.random.chance(50) {
            attrs.push(("tir.noalias".to_string(), AttrValue::Bool(true)));
        }
        PrimFunc {
            name,
            buffer_map: params.iter().cloned().zip(buffers).collect(),
            params,
            ret_type: DataType::void(),
            attrs,
            body,
            private: false,
            span: Span::NONE,
        }
    }
}

fn round_trips(seed: u64) -> Result<(), String> {
    let mut generator = Generator {
        random: Random(seed | 1),
        names: 0,
    };
    let func = if generator.random.chance(60) {
        generator.block_function()
    } else {
        generator.lowered_function()
    };
    for dialect in [Dialect::Classic, Dialect::Tirx] {
        let text = print_function(&func, &PrintOptions::new(dialect));
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "generated.tir", &text);
        if diagnostics.iter().any(|d| d.is_error()) {
            return Err(format!(
                "seed {seed}: the printed text does not parse:\n{}\n{text}",
                tirc::diagnostics::render_text(&diagnostics, &sources, false)
            ));
        }
        let program = program.ok_or("no program")?;
        let parsed = &program.module.functions[0];
        // TVM 0.26 dropped `buffer_type`: the tirx form leaves it out.
        if dialect == Dialect::Tirx
            && print_function(&func, &PrintOptions::new(Dialect::Classic)).contains("buffer_type=")
        {
            if text.contains("buffer_type=") {
                return Err(format!(
                    "seed {seed}: the tirx form holds `buffer_type=`\n{text}"
                ));
            }
            continue;
        }
        if let Err(difference) = tirc::ir::structural::func_equal(&func, parsed) {
            return Err(format!("seed {seed} ({dialect}): {difference}\n{text}"));
        }
        if tirc::ir::structural::func_hash(&func) != tirc::ir::structural::func_hash(parsed) {
            return Err(format!(
                "seed {seed}: equal functions hash differently\n{text}"
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn printed_ir_parses_back_structurally_equal(seed in any::<u64>()) {
        if let Err(message) = round_trips(seed) {
            prop_assert!(false, "{}", message);
        }
    }
}

#[test]
fn generator_covers_both_function_kinds() {
    let mut kinds = HashMap::new();
    for seed in 1..200u64 {
        let mut generator = Generator {
            random: Random(seed),
            names: 0,
        };
        let block_level = generator.random.chance(60);
        *kinds.entry(block_level).or_insert(0) += 1;
    }
    assert!(
        kinds.len() == 2,
        "both block-level and lowered functions are generated"
    );
}

/// The lowered functions carry what TVM writes in signatures and bodies:
/// views of a parameter's storage, strides, `buffer_type`, symbolic
/// `elem_offset` with `offset_factor`, and the lowered forms of TVM before
/// 0.20 (issue 24.1).
#[test]
fn generator_covers_buffer_fields_and_views() {
    const MARKERS: [&str; 8] = [
        "data=",
        "strides=",
        "strides=(\"stride",
        "buffer_type=\"auto\"",
        "offset_factor=",
        "T.allocate(",
        "T.attr(",
        "T.launch_thread(",
    ];
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for seed in 1..400u64 {
        let mut generator = Generator {
            random: Random(seed | 1),
            names: 0,
        };
        let func = generator.lowered_function();
        let text = print_function(&func, &PrintOptions::new(Dialect::Classic));
        for marker in MARKERS {
            if text.contains(marker) {
                *seen.entry(marker).or_insert(0) += 1;
            }
        }
    }
    for marker in MARKERS {
        assert!(
            seen.get(marker).copied().unwrap_or(0) > 5,
            "{marker} is rarely generated: {seen:?}"
        );
    }
}
