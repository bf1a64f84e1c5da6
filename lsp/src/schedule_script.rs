//! The schedule sections seen by the editor: each step (`sch.split(...)`),
//! the handles it assigns (`i0, i1 = ...`), where each handle is used, the
//! block-name strings of `get_block("C")`, and what each handle denotes.
//!
//! What a handle denotes comes from the schedule engine: the script is
//! applied to the program (as `tirc schedule` applies it) and each name is
//! described by the loop or block it held when it was assigned. Names
//! assigned after a refused step are described by the step that makes them.

use tirc::frontend::{is_schedule_def, Program};
use tirc::schedule::{HandleBinding, HandleDenotation};
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

/// Analyses every schedule section of a file.
pub fn analyse_scripts(file: &ast::File, program: Option<&Program>) -> Vec<ScheduleScript> {
    let mut scripts = Vec::new();
    for stmt in &file.body {
        if let ast::StmtKind::FunctionDef(def) = &stmt.kind {
            if is_schedule_def(def) {
                let applied = program
                    .map(|p| tirc::schedule::apply_schedule(p, Some(&def.name.name)).handles)
                    .unwrap_or_default();
                scripts.push(analyse_script(def, stmt.span, &applied));
            }
        }
    }
    scripts
}

/// What the engine says a handle denoted.
fn denotation_of(denotes: &HandleDenotation) -> Denotation {
    match denotes {
        HandleDenotation::Block { name } => Denotation::Block(name.clone()),
        HandleDenotation::Loop {
            name,
            extent,
            block,
        } => Denotation::Loop {
            name: name.clone(),
            block: block.clone(),
            extent: Some(extent.clone()),
        },
    }
}

fn analyse_script(
    def: &ast::FunctionDef,
    span: ast::Span,
    applied: &[HandleBinding],
) -> ScheduleScript {
    let schedule_param = def
        .params
        .first()
        .map(|p| p.name.name.clone())
        .unwrap_or_else(|| "sch".to_string());
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
                        if matches!(attr.name.as_str(), "get_block" | "get_sblock") {
                            record_block_string(&mut script, args, keywords);
                        }
                    }
                }
            }
        }
        for (position, (name, name_span)) in targets.iter().enumerate() {
            let engine = applied
                .iter()
                .find(|h| h.span.start == name_span.start && h.span.end == name_span.end);
            let denotes = match (engine, &step.primitive) {
                (Some(binding), _) => denotation_of(&binding.denotes),
                (None, Some(primitive)) => Denotation::Other(format!(
                    "result {} of `{}.{primitive}` (step {})",
                    position + 1,
                    schedule_param,
                    step_index + 1
                )),
                (None, None) => {
                    Denotation::Other(format!("a value assigned at step {}", step_index + 1))
                }
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

/// Records the block-name string of a `get_block("C", func_name=...)` call.
fn record_block_string(script: &mut ScheduleScript, args: &[ast::Expr], keywords: &[ast::Keyword]) {
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
        }
    }
}
