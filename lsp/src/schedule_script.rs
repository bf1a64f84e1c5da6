//! The schedule sections seen by the editor: each step (`sch.split(...)`),
//! the handles it assigns (`i0, i1 = ...`), where each handle is used, the
//! block-name strings of `get_block("C")`, and what each handle denotes.
//!
//! What a handle denotes is followed with a small model of loop names (split
//! gives `i_0, i_1`, fuse gives `i_j_fused`, as TVM names them), enough for
//! hover and inlay hints; steps the model does not follow leave later loop
//! handles described by their step only.

use tirc::frontend::{is_schedule_def, Program};
use tirc::ir::{Stmt, StmtKind};
use tirc_grammar::ast;

/// What a handle stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Denotation {
    /// A block, by name.
    Block(String),
    /// A loop, by the name TVM gives it, with the block it is above when known.
    Loop {
        /// The loop's name (`i_0`).
        name: String,
        /// The block it encloses.
        block: Option<String>,
        /// The extent, when known.
        extent: Option<String>,
    },
    /// Something the model does not follow; the text says what step made it.
    Other(String),
}

impl Denotation {
    /// A one-line description for hover and inlay hints.
    pub fn describe(&self) -> String {
        match self {
            Denotation::Block(name) => format!("block \"{name}\""),
            Denotation::Loop {
                name,
                block,
                extent,
            } => {
                let mut text = format!("loop {name}");
                if let Some(extent) = extent {
                    text.push_str(&format!(" (extent {extent})"));
                }
                if let Some(block) = block {
                    text.push_str(&format!(" above block \"{block}\""));
                }
                text
            }
            Denotation::Other(text) => text.clone(),
        }
    }
}

/// A name assigned by a step.
#[derive(Clone, Debug)]
pub struct Handle {
    /// The name.
    pub name: String,
    /// Where it is assigned.
    pub span: ast::Span,
    /// The step (0-based) that assigns it.
    pub step: usize,
    /// What it stands for.
    pub denotes: Denotation,
}

/// One statement of the schedule section.
#[derive(Clone, Debug)]
pub struct Step {
    /// The whole statement.
    pub span: ast::Span,
    /// The primitive called (`split`), when the statement calls one on `sch`.
    pub primitive: Option<String>,
    /// The span of the primitive's name after `sch.`.
    pub primitive_span: Option<ast::Span>,
}

/// A block-name string in `get_block("C")`.
#[derive(Clone, Debug)]
pub struct BlockString {
    /// The block name.
    pub name: String,
    /// The string literal, quotes included.
    pub span: ast::Span,
    /// The function named by `func_name=`, when given.
    pub function: Option<String>,
}

/// One schedule section.
#[derive(Clone, Debug)]
pub struct ScheduleScript {
    /// The `def` name.
    pub name: String,
    /// The span of the name in `def name(...)`.
    pub name_span: ast::Span,
    /// The whole definition.
    pub span: ast::Span,
    /// The name of the schedule parameter (`sch`).
    pub schedule_param: String,
    /// The statements in order.
    pub steps: Vec<Step>,
    /// Every handle assignment in order.
    pub handles: Vec<Handle>,
    /// Uses of handles: the span and the index in `handles`.
    pub handle_uses: Vec<(ast::Span, usize)>,
    /// The block-name strings.
    pub block_strings: Vec<BlockString>,
}

impl ScheduleScript {
    /// The handle defined or used at byte `offset`, with the span written there.
    pub fn handle_at(&self, offset: u32) -> Option<(ast::Span, usize)> {
        let inside = |span: ast::Span| span.start <= offset && offset <= span.end;
        self.handles
            .iter()
            .enumerate()
            .find(|(_, h)| inside(h.span))
            .map(|(i, h)| (h.span, i))
            .or_else(|| self.handle_uses.iter().copied().find(|(s, _)| inside(*s)))
    }

    /// Every span where handle `index` is written, its assignment first.
    pub fn handle_occurrences(&self, index: usize) -> Vec<ast::Span> {
        let mut spans = Vec::new();
        if let Some(handle) = self.handles.get(index) {
            spans.push(handle.span);
        }
        spans.extend(
            self.handle_uses
                .iter()
                .filter(|(_, i)| *i == index)
                .map(|(s, _)| *s),
        );
        spans
    }
}

/// The loops above each block of the program, outermost first, with extents.
fn loops_above_blocks(program: &Program) -> Vec<(String, Vec<(String, String)>)> {
    fn walk(
        stmt: &Stmt,
        loops: &mut Vec<(String, String)>,
        out: &mut Vec<(String, Vec<(String, String)>)>,
    ) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                loops.push((
                    for_loop.loop_var.name().to_string(),
                    tirc::printer::expr_to_string(&for_loop.extent),
                ));
                walk(&for_loop.body, loops, out);
                loops.pop();
            }
            StmtKind::BlockRealize(realize) => {
                out.push((realize.block.name.clone(), loops.clone()));
                if let Some(init) = &realize.block.init {
                    walk(init, loops, out);
                }
                walk(&realize.block.body, loops, out);
            }
            _ => {
                for child in crate::program_tree::direct_children(stmt) {
                    walk(child, loops, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for function in &program.module.functions {
        walk(&function.body, &mut Vec::new(), &mut out);
    }
    out
}

/// A string literal argument's value.
fn string_value(expr: &ast::Expr) -> Option<&str> {
    match &expr.kind {
        ast::ExprKind::Str(s) => Some(s),
        _ => None,
    }
}

/// The names assigned by a target, with spans.
fn target_names(target: &ast::Expr) -> Vec<(String, ast::Span)> {
    match &target.kind {
        ast::ExprKind::Name(name) => vec![(name.clone(), target.span)],
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
            items.iter().flat_map(target_names).collect()
        }
        _ => Vec::new(),
    }
}

/// Collects every name written in an expression.
fn names_in(expr: &ast::Expr, out: &mut Vec<(String, ast::Span)>) {
    match &expr.kind {
        ast::ExprKind::Name(name) => out.push((name.clone(), expr.span)),
        ast::ExprKind::Attribute { value, .. } => names_in(value, out),
        ast::ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            names_in(func, out);
            args.iter().for_each(|a| names_in(a, out));
            keywords.iter().for_each(|k| names_in(&k.value, out));
        }
        ast::ExprKind::Subscript { value, indices } => {
            names_in(value, out);
            indices.iter().for_each(|i| names_in(i, out));
        }
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
            items.iter().for_each(|i| names_in(i, out))
        }
        ast::ExprKind::BinOp { lhs, rhs, .. } | ast::ExprKind::BoolOp { lhs, rhs, .. } => {
            names_in(lhs, out);
            names_in(rhs, out);
        }
        ast::ExprKind::UnaryOp { operand, .. } => names_in(operand, out),
        ast::ExprKind::Starred(value) => names_in(value, out),
        ast::ExprKind::Dict(items) => items.iter().for_each(|(k, v)| {
            names_in(k, out);
            names_in(v, out)
        }),
        _ => {}
    }
}

/// A loop of the model: its name and, when known, its extent.
type ModelLoop = (String, Option<String>);

/// The model of loop names per block, advanced step by step.
struct LoopModel {
    /// Per block: its loops outermost first; `None` once a step the model
    /// does not follow touched the block.
    blocks: Vec<(String, Option<Vec<ModelLoop>>)>,
}

impl LoopModel {
    fn loops_of(&self, block: &str) -> Option<&Vec<(String, Option<String>)>> {
        self.blocks
            .iter()
            .find(|(name, _)| name == block)
            .and_then(|(_, loops)| loops.as_ref())
    }

    fn block_of_loop(&self, loop_name: &str) -> Option<String> {
        self.blocks
            .iter()
            .find(|(_, loops)| {
                loops
                    .as_ref()
                    .is_some_and(|l| l.iter().any(|(n, _)| n == loop_name))
            })
            .map(|(name, _)| name.clone())
    }

    /// The product of the constant extents of `loop_names`; `None` when one
    /// is unknown or not a constant.
    fn extents_of(&self, loop_names: &[String]) -> Option<i64> {
        loop_names.iter().try_fold(1i64, |product, wanted| {
            let extent = self
                .blocks
                .iter()
                .filter_map(|(_, loops)| loops.as_ref())
                .flatten()
                .find(|(name, _)| name == wanted)?
                .1
                .as_ref()?
                .parse::<i64>()
                .ok()?;
            product.checked_mul(extent)
        })
    }

    /// Applies a rewrite of the loop list to every block that has `loop_name`.
    fn rewrite(&mut self, loop_name: &str, rewrite: impl Fn(&mut Vec<(String, Option<String>)>)) {
        for (_, loops) in self.blocks.iter_mut() {
            if let Some(loops) = loops {
                if loops.iter().any(|(n, _)| n == loop_name) {
                    rewrite(loops);
                }
            }
        }
    }

    /// Forgets the loops of every block that has one of `loop_names`.
    fn forget(&mut self, loop_names: &[String]) {
        for (_, loops) in self.blocks.iter_mut() {
            if loops
                .as_ref()
                .is_some_and(|l| l.iter().any(|(n, _)| loop_names.contains(n)))
            {
                *loops = None;
            }
        }
    }
}

/// Analyses every schedule section of a file.
pub fn analyse_scripts(file: &ast::File, program: Option<&Program>) -> Vec<ScheduleScript> {
    let blocks = program.map(loops_above_blocks).unwrap_or_default();
    let mut scripts = Vec::new();
    for stmt in &file.body {
        if let ast::StmtKind::FunctionDef(def) = &stmt.kind {
            if is_schedule_def(def) {
                scripts.push(analyse_script(def, stmt.span, &blocks));
            }
        }
    }
    scripts
}

fn analyse_script(
    def: &ast::FunctionDef,
    span: ast::Span,
    blocks: &[(String, Vec<(String, String)>)],
) -> ScheduleScript {
    let schedule_param = def
        .params
        .first()
        .map(|p| p.name.name.clone())
        .unwrap_or_else(|| "sch".to_string());
    let mut model = LoopModel {
        blocks: blocks
            .iter()
            .map(|(name, loops)| {
                (
                    name.clone(),
                    Some(
                        loops
                            .iter()
                            .map(|(n, e)| (n.clone(), Some(e.clone())))
                            .collect(),
                    ),
                )
            })
            .collect(),
    };
    let mut script = ScheduleScript {
        name: def.name.name.clone(),
        name_span: def.name.span,
        span,
        schedule_param: schedule_param.clone(),
        steps: Vec::new(),
        handles: Vec::new(),
        handle_uses: Vec::new(),
        block_strings: Vec::new(),
    };
    for stmt in &def.body {
        let step_index = script.steps.len();
        let (targets, value) = match &stmt.kind {
            ast::StmtKind::Assign { target, value } => (target_names(target), Some(value)),
            ast::StmtKind::Expr(value) => (Vec::new(), Some(value)),
            _ => (Vec::new(), None),
        };
        let mut step = Step {
            span: stmt.span,
            primitive: None,
            primitive_span: None,
        };
        let mut denotations: Vec<Denotation> = Vec::new();
        if let Some(value) = value {
            // Uses first: `b = sch.get_loops(b)` reads the old `b`.
            let mut used = Vec::new();
            names_in(value, &mut used);
            for (name, use_span) in used {
                if let Some(index) = script.handles.iter().rposition(|h| h.name == name) {
                    script.handle_uses.push((use_span, index));
                }
            }
            if let ast::ExprKind::Call {
                func,
                args,
                keywords,
            } = &value.kind
            {
                if let ast::ExprKind::Attribute {
                    value: object,
                    attr,
                } = &func.kind
                {
                    if matches!(&object.kind, ast::ExprKind::Name(n) if *n == schedule_param) {
                        step.primitive = Some(attr.name.clone());
                        step.primitive_span = Some(attr.span);
                        let handle_of = |expr: &ast::Expr, script: &ScheduleScript| match &expr.kind
                        {
                            ast::ExprKind::Name(n) => script
                                .handles
                                .iter()
                                .rev()
                                .find(|h| h.name == *n)
                                .map(|h| h.denotes.clone()),
                            _ => None,
                        };
                        match attr.name.as_str() {
                            "get_block" | "get_sblock" => {
                                let name_arg = args.first().or_else(|| {
                                    keywords
                                        .iter()
                                        .find(|k| k.name.name == "name")
                                        .map(|k| &k.value)
                                });
                                let function = keywords
                                    .iter()
                                    .find(|k| k.name.name == "func_name")
                                    .and_then(|k| string_value(&k.value))
                                    .map(str::to_string);
                                if let Some(arg) = name_arg {
                                    if let Some(name) = string_value(arg) {
                                        script.block_strings.push(BlockString {
                                            name: name.to_string(),
                                            span: arg.span,
                                            function,
                                        });
                                        denotations.push(Denotation::Block(name.to_string()));
                                    }
                                }
                            }
                            "get_loops" => {
                                if let Some(Denotation::Block(block)) =
                                    args.first().and_then(|a| handle_of(a, &script))
                                {
                                    if let Some(loops) = model.loops_of(&block) {
                                        for (name, extent) in loops {
                                            denotations.push(Denotation::Loop {
                                                name: name.clone(),
                                                block: Some(block.clone()),
                                                extent: extent.clone(),
                                            });
                                        }
                                    }
                                }
                            }
                            "split" => {
                                if let Some(Denotation::Loop {
                                    name,
                                    block,
                                    extent: split_extent,
                                }) = args.first().and_then(|a| handle_of(a, &script))
                                {
                                    let factors = args.get(1).or_else(|| {
                                        keywords
                                            .iter()
                                            .find(|k| k.name.name == "factors")
                                            .map(|k| &k.value)
                                    });
                                    let factor_texts: Vec<Option<String>> =
                                        match factors.map(|f| &f.kind) {
                                            Some(
                                                ast::ExprKind::List(items)
                                                | ast::ExprKind::Tuple(items),
                                            ) => items
                                                .iter()
                                                .map(|item| match &item.kind {
                                                    ast::ExprKind::Int(v) => Some(v.to_string()),
                                                    _ => None,
                                                })
                                                .collect(),
                                            _ => Vec::new(),
                                        };
                                    let factor_texts =
                                        infer_missing_factor(split_extent.as_deref(), factor_texts);
                                    let parts: Vec<(String, Option<String>)> = factor_texts
                                        .iter()
                                        .enumerate()
                                        .map(|(i, extent)| (format!("{name}_{i}"), extent.clone()))
                                        .collect();
                                    for (part, extent) in &parts {
                                        denotations.push(Denotation::Loop {
                                            name: part.clone(),
                                            block: block.clone(),
                                            extent: extent.clone(),
                                        });
                                    }
                                    let replaced = name.clone();
                                    model.rewrite(&name, |loops| {
                                        if let Some(position) =
                                            loops.iter().position(|(n, _)| *n == replaced)
                                        {
                                            loops.splice(position..=position, parts.clone());
                                        }
                                    });
                                }
                            }
                            "fuse" => {
                                let fused: Vec<(String, Option<String>)> = args
                                    .iter()
                                    .filter_map(|a| match handle_of(a, &script) {
                                        Some(Denotation::Loop { name, block, .. }) => {
                                            Some((name, block))
                                        }
                                        _ => None,
                                    })
                                    .collect();
                                if !fused.is_empty() && fused.len() == args.len() {
                                    let names: Vec<String> =
                                        fused.iter().map(|(n, _)| n.clone()).collect();
                                    let new_name = format!("{}_fused", names.join("_"));
                                    // The product of the fused extents, when all are known.
                                    let extent = model.extents_of(&names).map(|e| e.to_string());
                                    denotations.push(Denotation::Loop {
                                        name: new_name.clone(),
                                        block: fused[0].1.clone(),
                                        extent: extent.clone(),
                                    });
                                    let first = names[0].clone();
                                    model.rewrite(&first, |loops| {
                                        loops.retain(|(n, _)| !names[1..].contains(n));
                                        if let Some(entry) =
                                            loops.iter_mut().find(|(n, _)| *n == names[0])
                                        {
                                            *entry = (new_name.clone(), extent.clone());
                                        }
                                    });
                                }
                            }
                            "reorder" => {
                                let order: Vec<String> = args
                                    .iter()
                                    .filter_map(|a| match handle_of(a, &script) {
                                        Some(Denotation::Loop { name, .. }) => Some(name),
                                        _ => None,
                                    })
                                    .collect();
                                if let Some(first) = order.first().cloned() {
                                    model.rewrite(&first, |loops| {
                                        let positions: Vec<usize> = loops
                                            .iter()
                                            .enumerate()
                                            .filter(|(_, (n, _))| order.contains(n))
                                            .map(|(i, _)| i)
                                            .collect();
                                        if positions.len() != order.len() {
                                            return;
                                        }
                                        let by_name: Vec<(String, Option<String>)> = order
                                            .iter()
                                            .filter_map(|n| {
                                                loops.iter().find(|(m, _)| m == n).cloned()
                                            })
                                            .collect();
                                        for (slot, entry) in positions.into_iter().zip(by_name) {
                                            loops[slot] = entry;
                                        }
                                    });
                                }
                            }
                            "parallel"
                            | "vectorize"
                            | "unroll"
                            | "bind"
                            | "annotate"
                            | "unannotate"
                            | "get_child_blocks"
                            | "get_producers"
                            | "get_consumers"
                            | "enter_postproc"
                            | "sample_perfect_tile" => {}
                            other => {
                                // Primitives that move loops or blocks: the model
                                // stops following the loops they touch.
                                let touched: Vec<String> = args
                                    .iter()
                                    .filter_map(|a| match handle_of(a, &script) {
                                        Some(Denotation::Loop { name, .. }) => Some(name),
                                        Some(Denotation::Block(block)) => model
                                            .loops_of(&block)
                                            .and_then(|l| l.first().map(|(n, _)| n.clone())),
                                        _ => None,
                                    })
                                    .collect();
                                model.forget(&touched);
                                let _ = other;
                            }
                        }
                    }
                }
            }
        }
        for (position, (name, name_span)) in targets.iter().enumerate() {
            let denotes =
                denotations
                    .get(position)
                    .cloned()
                    .unwrap_or_else(|| match &step.primitive {
                        Some(primitive) => Denotation::Other(format!(
                            "result {} of `{}.{primitive}` (step {})",
                            position + 1,
                            schedule_param,
                            step_index + 1
                        )),
                        None => Denotation::Other(format!(
                            "a value assigned at step {}",
                            step_index + 1
                        )),
                    });
            let denotes = match denotes {
                Denotation::Loop {
                    name: loop_name,
                    block,
                    extent,
                } => Denotation::Loop {
                    block: block.or_else(|| model.block_of_loop(&loop_name)),
                    name: loop_name,
                    extent,
                },
                other => other,
            };
            script.handles.push(Handle {
                name: name.clone(),
                span: *name_span,
                step: step_index,
                denotes,
            });
        }
        script.steps.push(step);
    }
    script
}

/// Split factors with the one `None` replaced by what TVM infers:
/// `ceil(extent / product of the others)`, when the extent and the other
/// factors are constants.
fn infer_missing_factor(extent: Option<&str>, factors: Vec<Option<String>>) -> Vec<Option<String>> {
    let missing = factors.iter().filter(|f| f.is_none()).count();
    let known: Option<Vec<i64>> = factors
        .iter()
        .flatten()
        .map(|f| f.parse::<i64>().ok())
        .collect();
    let (Some(extent), Some(known), 1) =
        (extent.and_then(|e| e.parse::<i64>().ok()), known, missing)
    else {
        return factors;
    };
    let product: i64 = known.iter().product();
    if product <= 0 {
        return factors;
    }
    let inferred = (extent + product - 1) / product;
    factors
        .into_iter()
        .map(|f| f.or_else(|| Some(inferred.to_string())))
        .collect()
}
