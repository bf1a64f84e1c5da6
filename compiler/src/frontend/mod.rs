//! The frontend: the syntax tree of a `.tir` file to IR.
//!
//! It resolves names with TVM's scoping rules, expands sugar (`T.grid`,
//! `T.axis.remap`, augmented assignment, the implicit root block), applies
//! TVM's literal and implicit-cast rules through `ir::operators`, and collects
//! the schedule sections. Errors are collected, not fatal: the frontend keeps
//! going with a placeholder so one mistake gives one diagnostic.

mod assign;
mod blocks;
mod buffers;
mod builtins;
mod expr;
mod function;
mod loops;
mod scoping;
mod stmt;
pub mod symbols;
pub mod tensor_intrin;
mod value;

use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::{IRModule, Var};
use crate::printer::Dialect;
use crate::source::{FileId, Span};
use std::collections::HashMap;
use tirc_grammar::ast;
use value::Value;

/// Diagnostic codes of the frontend.
pub mod codes {
    /// A syntax error.
    pub const SYNTAX: &str = "E0001";
    /// A name that is not defined.
    pub const UNDEFINED_NAME: &str = "E0101";
    /// A `T.*` builtin that does not exist.
    pub const UNKNOWN_BUILTIN: &str = "E0102";
    /// A builtin called with the wrong arguments.
    pub const BAD_ARGUMENTS: &str = "E0103";
    /// A data type string that is not a data type.
    pub const UNKNOWN_DTYPE: &str = "E0104";
    /// Operands whose types cannot be combined.
    pub const TYPE_MISMATCH: &str = "E0105";
    /// A construct used where it is not allowed.
    pub const MISPLACED: &str = "E0106";
    /// Python syntax that TVMScript does not support.
    pub const UNSUPPORTED: &str = "E0107";
    /// A value that cannot be assigned to, or a bad assignment.
    pub const BAD_ASSIGNMENT: &str = "E0108";
    /// A name defined twice where that is not allowed.
    pub const DUPLICATE: &str = "E0109";
    /// `T.axis.remap` kinds that do not match the bindings.
    pub const REMAP_MISMATCH: &str = "E0110";
    /// A constant division by zero.
    pub const DIVISION_BY_ZERO: &str = "E0111";
    /// A loop over something that is not a loop iterator.
    pub const BAD_LOOP: &str = "E0112";
    /// A file with no function in it.
    pub const NO_FUNCTION: &str = "E0113";
}

/// Whether the file held a module class or a single function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramForm {
    /// `@I.ir_module class Module:`.
    Module,
    /// A lone `@T.prim_func def`.
    Function,
}

/// A schedule section: a top-level `def` whose first parameter is `sch` or
/// annotated as a schedule.
#[derive(Clone, Debug)]
pub struct ScheduleDef {
    /// The function name (`schedule`, `apply_trace`).
    pub name: String,
    /// The syntax tree of the `def`, shared with the file's.
    pub def: std::sync::Arc<ast::FunctionDef>,
    /// The span of the whole definition.
    pub span: Span,
    /// The source text of the definition and the comments directly above it,
    /// kept verbatim by the formatter.
    pub text: String,
}

/// A lowered `.tir` file.
#[derive(Clone, Debug)]
pub struct Program {
    /// The functions.
    pub module: IRModule,
    /// Module or single function.
    pub form: ProgramForm,
    /// The dialect the file was written in.
    pub dialect: Dialect,
    /// The comment lines before the first statement, without their `#`.
    pub header_comments: Vec<String>,
    /// The schedule sections, in file order.
    pub schedules: Vec<ScheduleDef>,
    /// The tensor intrinsics the file registers (`T.TensorIntrin.register`),
    /// in file order; their functions are not part of `module`.
    pub tensor_intrinsics: Vec<crate::ir::TensorIntrin>,
    /// The file the program came from.
    pub file: FileId,
    /// Every resolved name occurrence, for editors.
    pub symbols: symbols::SymbolIndex,
    /// The body comments and the parts the source left to inference, which
    /// the formatter keeps.
    pub layout: std::sync::Arc<crate::printer::source_layout::SourceLayout>,
}

/// Builtin prefixes that all mean the TVMScript namespace `T`.
const SCRIPT_PREFIXES: &[&str] = &[
    "T.",
    "tir.",
    "tirx.",
    "tvm.tir.",
    "tvm.tirx.",
    "tvm.script.tir.",
    "tvm.script.tirx.",
];

/// The builtin name of a dotted path such as `T.axis.remap` → `axis.remap`.
pub(crate) fn builtin_name(path: &str) -> Option<&str> {
    SCRIPT_PREFIXES
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
}

/// True when the function definition is a schedule section.
pub fn is_schedule_def(def: &ast::FunctionDef) -> bool {
    let Some(first) = def.params.first() else {
        return false;
    };
    if first.name.name == "sch" {
        return true;
    }
    matches!(
        first
            .annotation
            .as_ref()
            .and_then(|a| a.dotted_name())
            .as_deref(),
        Some(
            "T.Schedule"
                | "tir.Schedule"
                | "s_tir.Schedule"
                | "tvm.tir.Schedule"
                | "tvm.s_tir.Schedule"
                | "Schedule"
        )
    )
}

/// Detects the dialect: tirx when the program uses any tirx-only spelling.
/// The dialect the program is written in, from the program alone: a schedule
/// spelling (`sch.get_sblock`) must not change how the program reads.
fn detect_dialect(source: &str, comments: &[ast::Comment]) -> Dialect {
    let tirx_comment = comments.iter().any(|c| c.text.contains("import tirx as T"));
    let tirx_source = ["T.sblock", "s_tir=True", "T.let["]
        .iter()
        .any(|marker| source.contains(marker));
    if tirx_comment || tirx_source {
        Dialect::Tirx
    } else {
        Dialect::Classic
    }
}

/// The lowering context shared by every part of the frontend.
pub(crate) struct Lowerer {
    file: FileId,
    diagnostics: Vec<Diagnostic>,
    /// Bindings of every open scope, innermost last: a handful of names per
    /// scope, so a linear search beats hashing.
    bindings: Vec<(String, Value)>,
    /// Where each open scope's bindings start in `bindings`.
    scope_starts: Vec<usize>,
    /// Names reported undefined, bound to poison for the rest of the file.
    undefined: Vec<(String, Value)>,
    /// Names reported undefined already, to avoid one error per use.
    reported_undefined: std::collections::HashSet<String>,
    /// Symbolic variables created by quoted shapes in the signature (`"n"`).
    signature_vars: HashMap<String, Var>,
    dialect: Dialect,
    /// Blocks being built, innermost last.
    blocks: Vec<blocks::BlockBuilder>,
    /// The function being built.
    function: Option<function::FunctionBuilder>,
    /// Enclosing loops with their domains, innermost last.
    loops: Vec<(Var, crate::ir::Range)>,
    /// Thread variables declared by `T.env_thread`, with their tags.
    env_threads: VarMap<String>,
    /// True while lowering a function declared `s_tir=True` (tirx dialect).
    s_tir: bool,
    /// The module class name, for calls between its functions.
    module_class: Option<String>,
    /// The module's functions and their return types.
    module_functions: HashMap<String, crate::ir::DataType>,
    /// Definitions and uses of names, for editors.
    pub(crate) symbols: symbols::SymbolIndex,
    /// Build the symbol index (editors need it; the command line does not).
    pub(crate) record_symbols: bool,
    /// The whole text of each function lowered.
    pub(crate) function_extents: Vec<Span>,
    /// Blocks whose `T.reads` the source left out.
    pub(crate) inferred_reads: std::collections::HashSet<crate::ir::NodeId>,
    /// Blocks whose `T.writes` the source left out.
    pub(crate) inferred_writes: std::collections::HashSet<crate::ir::NodeId>,
}

impl Lowerer {
    fn new(file: FileId, dialect: Dialect) -> Lowerer {
        Lowerer {
            file,
            diagnostics: Vec::new(),
            bindings: Vec::new(),
            scope_starts: Vec::new(),
            undefined: Vec::new(),
            reported_undefined: Default::default(),
            signature_vars: HashMap::new(),
            dialect,
            blocks: Vec::new(),
            function: None,
            loops: Vec::new(),
            env_threads: Default::default(),
            s_tir: false,
            module_class: None,
            module_functions: HashMap::new(),
            symbols: symbols::SymbolIndex::default(),
            record_symbols: false,
            function_extents: Vec::new(),
            inferred_reads: Default::default(),
            inferred_writes: Default::default(),
        }
    }

    /// The IR span of a syntax span.
    pub(crate) fn span(&self, span: ast::Span) -> Span {
        Span::from_syntax(self.file, span)
    }

    /// Records an error.
    pub(crate) fn error(
        &mut self,
        code: &str,
        message: impl Into<String>,
        span: ast::Span,
    ) -> Diagnostic {
        let diagnostic = Diagnostic::error(code, message, self.span(span));
        self.diagnostics.push(diagnostic.clone());
        diagnostic
    }

    /// Records a fully built diagnostic.
    pub(crate) fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Opens a scope.
    pub(crate) fn push_scope(&mut self) {
        self.scope_starts.push(self.bindings.len());
    }

    /// Closes a scope.
    pub(crate) fn pop_scope(&mut self) {
        if let Some(start) = self.scope_starts.pop() {
            self.bindings.truncate(start);
        }
    }

    /// Binds a name in the innermost scope.
    pub(crate) fn bind(&mut self, name: &str, value: Value) {
        if self.record_symbols {
            self.symbols.record_binding(name, &value);
        }
        self.bindings.push((name.to_string(), value));
    }

    /// Looks a name up, innermost binding first.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Value> {
        self.bindings
            .iter()
            .rev()
            .chain(self.undefined.iter())
            .find(|(bound, _)| bound == name)
            .map(|(_, value)| value)
    }

    /// The names visible now, for "did you mean" suggestions.
    pub(crate) fn visible_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.bindings.iter().map(|(name, _)| name.clone()).collect();
        names.sort();
        names.dedup();
        names
    }
}

/// The names an assignment or loop target binds (`a` or `a, b`), with their
/// spans; parts that are not plain names bind nothing.
pub(crate) fn target_names(target: &ast::Expr) -> Vec<(&String, ast::Span)> {
    match &target.kind {
        ast::ExprKind::Name(n) => vec![(n, target.span)],
        ast::ExprKind::Tuple(items) => items
            .iter()
            .filter_map(|t| match &t.kind {
                ast::ExprKind::Name(n) => Some((n, t.span)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The closest candidate within a small edit distance, for "did you mean".
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = (name.len() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .map(|c| (crate::ir::dtype::edit_distance(name, c), c))
        .filter(|(distance, candidate)| *distance <= limit && *candidate != name)
        .min_by_key(|(distance, candidate)| (*distance, *candidate))
        .map(|(_, c)| c.to_string())
}

fn header_comments(file: &ast::File) -> Vec<String> {
    let first_code = file.body.first().map(|s| s.span.start).unwrap_or(u32::MAX);
    file.comments
        .iter()
        .take_while(|c| c.span.start < first_code && c.own_line)
        .map(|c| c.text.clone())
        .collect()
}

/// The source text of a schedule `def`, with the comment lines directly above it.
/// The text of a schedule `def` (with the comment ending its last line)
/// and the range of the source it covers.
fn schedule_text(
    source: &str,
    file: &ast::File,
    stmt: &ast::Stmt,
) -> (std::ops::Range<u32>, String) {
    let mut start = stmt.span.start as usize;
    // Extend upwards over comment lines that sit directly above the def.
    for comment in file.comments.iter().rev() {
        if comment.span.end as usize > start || !comment.own_line {
            continue;
        }
        let between = &source[comment.span.end as usize..start];
        if between.trim().is_empty() && between.matches('\n').count() <= 1 {
            start = source[..comment.span.start as usize]
                .rfind('\n')
                .map(|i| i + 1)
                .unwrap_or(0);
        }
    }
    let end = (stmt.span.end as usize).min(source.len());
    let end = source[end..].find('\n').map_or(source.len(), |n| end + n);
    (
        start as u32..end as u32,
        source[start..end].trim_end().to_string(),
    )
}

/// Lowers a parsed file to a program. The diagnostics hold every frontend
/// error; the program holds every function that could be built.
pub fn lower_file(file: &ast::File, source: &str, file_id: FileId) -> (Program, Vec<Diagnostic>) {
    lower_file_with(file, source, file_id, false)
}

/// [`lower_file`], also building the program's symbol index when
/// `record_symbols` is true (what editor features need).
pub fn lower_file_with(
    file: &ast::File,
    source: &str,
    file_id: FileId,
    record_symbols: bool,
) -> (Program, Vec<Diagnostic>) {
    let dialect = detect_dialect(source, &file.comments);
    let mut lowerer = Lowerer::new(file_id, dialect);
    lowerer.record_symbols = record_symbols;
    let mut module = IRModule {
        name: "Module".to_string(),
        ..IRModule::default()
    };
    let mut form = ProgramForm::Function;
    let mut schedules = Vec::new();
    // Where the schedule sections' text (kept verbatim, comments included) lies.
    let mut schedule_ranges: Vec<std::ops::Range<u32>> = Vec::new();
    // Registrations first: the functions they name may come before them.
    let registrations: Vec<tensor_intrin::Registration> = file
        .body
        .iter()
        .filter_map(|stmt| match &stmt.kind {
            ast::StmtKind::Expr(e) if tensor_intrin::is_registration(e) => {
                lowerer.read_registration(e)
            }
            _ => None,
        })
        .collect();
    let mut intrinsic_functions: HashMap<String, crate::ir::PrimFunc> = HashMap::new();
    for stmt in &file.body {
        match &stmt.kind {
            ast::StmtKind::ClassDef(class) => {
                form = ProgramForm::Module;
                module.name = class.name.name.clone();
                lowerer.module_class = Some(class.name.name.clone());
                lowerer.collect_module_functions(&class.body);
                for inner in &class.body {
                    match &inner.kind {
                        ast::StmtKind::Expr(e) if lowerer.is_module_attrs(e) => {
                            module.attrs = lowerer.module_attrs(e);
                        }
                        ast::StmtKind::FunctionDef(def) => {
                            if let Some(func) = lowerer.lower_prim_func(def, inner.span) {
                                module.functions.push(func);
                            }
                        }
                        ast::StmtKind::Pass | ast::StmtKind::Error => {}
                        ast::StmtKind::Expr(e) if matches!(e.kind, ast::ExprKind::Str(_)) => {}
                        _ => {
                            lowerer.error(
                                codes::UNSUPPORTED,
                                "only `@T.prim_func` functions may appear in a module class",
                                inner.span,
                            );
                        }
                    }
                }
            }
            ast::StmtKind::FunctionDef(def) => {
                if is_schedule_def(def) {
                    let (range, text) = schedule_text(source, file, stmt);
                    schedule_ranges.push(range);
                    schedules.push(ScheduleDef {
                        name: def.name.name.clone(),
                        def: def.clone(),
                        span: lowerer.span(stmt.span),
                        text,
                    });
                } else if let Some(func) = lowerer.lower_prim_func(def, stmt.span) {
                    if tensor_intrin::is_intrinsic_function(&registrations, &func.name) {
                        intrinsic_functions.insert(func.name.clone(), func);
                    } else {
                        module.functions.push(func);
                    }
                }
            }
            ast::StmtKind::Expr(e) if tensor_intrin::is_registration(e) => {}
            ast::StmtKind::Import { .. } | ast::StmtKind::Pass | ast::StmtKind::Error => {}
            ast::StmtKind::Assign { target, value } => lowerer.lower_module_assign(target, value),
            ast::StmtKind::Expr(e) if matches!(e.kind, ast::ExprKind::Str(_)) => {}
            _ => {
                lowerer.error(
                    codes::UNSUPPORTED,
                    "expected a module class, a `@T.prim_func` function or a schedule `def` at the top level",
                    stmt.span,
                );
            }
        }
    }
    let tensor_intrinsics = lowerer.tensor_intrinsics(&registrations, &intrinsic_functions);
    for (i, func) in module.functions.iter().enumerate() {
        if module.functions[..i]
            .iter()
            .any(|other| other.name == func.name)
        {
            lowerer.report(
                Diagnostic::error(
                    codes::DUPLICATE,
                    format!("function `{}` is defined twice in the module", func.name),
                    func.span,
                )
                .with_secondary(
                    module.functions[..i]
                        .iter()
                        .find(|o| o.name == func.name)
                        .map(|o| o.span)
                        .unwrap_or(Span::NONE),
                    "first defined here",
                ),
            );
        }
    }
    // Python binds the last `def` of a name; applying the first would run a
    // schedule the reader does not expect, so two of one name are an error.
    for (i, schedule) in schedules.iter().enumerate() {
        if let Some(first) = schedules[..i].iter().find(|o| o.name == schedule.name) {
            lowerer.report(
                Diagnostic::error(
                    codes::DUPLICATE,
                    format!("the schedule section `{}` is defined twice", schedule.name),
                    schedule.span.first_line(source),
                )
                .with_secondary(first.span.first_line(source), "first defined here")
                .with_help("rename one of them, or delete the one you do not want"),
            );
        }
    }
    if lowerer.record_symbols {
        lowerer.symbols.finish(file, file_id);
    }
    let header_count = header_comments(file).len();
    let body_comments = file
        .comments
        .iter()
        .skip(header_count)
        .filter(|c| !schedule_ranges.iter().any(|r| r.contains(&c.span.start)))
        .map(|c| (c.span.start, c.text.clone(), c.own_line));
    let mut layout =
        crate::printer::source_layout::SourceLayout::new(file_id, source, body_comments);
    layout.inferred_reads = std::mem::take(&mut lowerer.inferred_reads);
    layout.inferred_writes = std::mem::take(&mut lowerer.inferred_writes);
    layout.function_extents = std::mem::take(&mut lowerer.function_extents);
    let program = Program {
        module,
        form,
        dialect,
        header_comments: header_comments(file),
        schedules,
        tensor_intrinsics,
        file: file_id,
        symbols: std::mem::take(&mut lowerer.symbols),
        layout: std::sync::Arc::new(layout),
    };
    let mut diagnostics = lowerer.diagnostics;
    crate::diagnostics::sort_diagnostics(&mut diagnostics);
    (program, diagnostics)
}

impl Lowerer {
    /// Records the module's function names and return types before lowering,
    /// so functions can call ones defined later.
    fn collect_module_functions(&mut self, body: &[ast::Stmt]) {
        for stmt in body {
            if let ast::StmtKind::FunctionDef(def) = &stmt.kind {
                let ret = match &def.returns {
                    Some(returns) => match self.eval(returns) {
                        Value::DType(d) => d,
                        _ => crate::ir::DataType::void(),
                    },
                    None => crate::ir::DataType::void(),
                };
                self.module_functions.insert(def.name.name.clone(), ret);
            }
        }
    }

    fn is_module_attrs(&self, expr: &ast::Expr) -> bool {
        matches!(&expr.kind, ast::ExprKind::Call { func, .. }
            if matches!(func.dotted_name().as_deref(), Some("I.module_attrs" | "tvm.script.ir.module_attrs")))
    }

    /// `I.module_attrs({...})` in a module class.
    fn module_attrs(&mut self, expr: &ast::Expr) -> crate::ir::Annotations {
        let ast::ExprKind::Call { args, .. } = &expr.kind else {
            return Vec::new();
        };
        match args.as_slice() {
            [dict] => {
                let value = self.eval(dict);
                self.annotations_from(value, dict.span)
            }
            _ => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`I.module_attrs` takes one dict",
                    expr.span,
                );
                Vec::new()
            }
        }
    }

    /// `n = TypeVar("n")` at module level declares an int64 symbolic variable.
    fn lower_module_assign(&mut self, target: &ast::Expr, value: &ast::Expr) {
        if let (ast::ExprKind::Name(name), ast::ExprKind::Call { func, args, .. }) =
            (&target.kind, &value.kind)
        {
            if func.dotted_name().as_deref() == Some("TypeVar") && args.len() == 1 {
                let var = Var::new(
                    name.clone(),
                    crate::ir::DataType::int64(),
                    self.span(target.span),
                );
                self.bind(name, Value::Expr(var.to_expr()));
                return;
            }
        }
        self.error(
            codes::UNSUPPORTED,
            "only `name = TypeVar(\"name\")` assignments are allowed at the top level",
            value.span,
        );
    }
}

/// Parses and lowers source text in one step: syntax errors and frontend
/// errors together, the program when the file had no syntax errors.
pub fn parse_program(
    sources: &mut crate::source::SourceMap,
    name: &str,
    text: &str,
) -> (Option<Program>, Vec<Diagnostic>) {
    parse_program_with(sources, name, text, false)
}

/// [`parse_program`], also building the symbol index when `record_symbols` is true.
pub fn parse_program_with(
    sources: &mut crate::source::SourceMap,
    name: &str,
    text: &str,
    record_symbols: bool,
) -> (Option<Program>, Vec<Diagnostic>) {
    let file_id = sources.add(name, text);
    let parsed = tirc_grammar::parse_file(text);
    let mut diagnostics: Vec<Diagnostic> = parsed
        .errors
        .iter()
        .map(|e| {
            Diagnostic::error(
                codes::SYNTAX,
                e.message.clone(),
                Span::from_syntax(file_id, e.span),
            )
        })
        .collect();
    if !diagnostics.is_empty() {
        return (None, diagnostics);
    }
    let (program, frontend_diagnostics) =
        lower_file_with(&parsed.file, text, file_id, record_symbols);
    diagnostics.extend(frontend_diagnostics);
    if program.module.functions.is_empty()
        && program.tensor_intrinsics.is_empty()
        && diagnostics.is_empty()
    {
        diagnostics.push(Diagnostic::error(
            codes::NO_FUNCTION,
            "the file defines no `@T.prim_func` function",
            Span::new(file_id, 0, 0),
        ));
    }
    (Some(program), diagnostics)
}
