//! The symbol index editor features need: every identifier occurrence the
//! frontend resolved, what it denotes (variable, buffer, block, function,
//! builtin) and where that was defined.
//!
//! The frontend records definitions where it binds names and uses where it
//! looks them up, so the index follows TVMScript's scoping exactly; a short
//! pass over the syntax tree at the end moves definitions to the name that
//! introduced them and adds the `T.*` builtins, which the frontend resolves
//! without a scope.

use super::value::Value;
use crate::ir::identity::AddressMap;
use crate::ir::{Buffer, Var};
use crate::source::{FileId, Span};
use std::collections::HashMap;
use tirc_grammar::ast;

/// What a symbol denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A scalar variable: loop variable, block iteration variable, let,
    /// scalar parameter or symbolic shape variable.
    Variable,
    /// A buffer: parameter, allocation, match or view.
    Buffer,
    /// A block, named by the string in `T.block("C")`.
    Block,
    /// A `@T.prim_func` function.
    Function,
    /// A `T.*` builtin (`T.grid`, `T.exp`, `T.float32`).
    Builtin,
}

/// The IR object a symbol stands for, kept so an editor can describe it.
#[derive(Clone, Debug)]
pub enum SymbolTarget {
    /// A variable.
    Var(Var),
    /// A buffer.
    Buffer(Buffer),
    /// A block with its name.
    Block(String),
    /// A function with its name.
    Function(String),
    /// A builtin with its name after `T.` (`axis.remap`).
    Builtin(String),
}

/// Index of a symbol in [`SymbolIndex::symbols`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub u32);

/// One defined thing.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The name as written.
    pub name: String,
    /// What kind of thing it is.
    pub kind: SymbolKind,
    /// The span of the name that defines it; for a block, the string
    /// literal of its name, quotes included. Unknown for builtins.
    pub definition: Span,
    /// The IR object.
    pub target: SymbolTarget,
}

/// One place a name is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// Where the name is written.
    pub span: Span,
    /// What it resolves to.
    pub symbol: SymbolId,
    /// True at the definition itself.
    pub is_definition: bool,
}

/// Every symbol of a file and every occurrence of each.
#[derive(Clone, Debug, Default)]
pub struct SymbolIndex {
    /// The symbols, in the order they were defined.
    pub symbols: Vec<Symbol>,
    /// The occurrences, sorted by position once lowering is done.
    pub occurrences: Vec<Occurrence>,
    /// Symbols by the identity of their IR object.
    by_identity: AddressMap<SymbolId>,
}

impl SymbolIndex {
    /// The symbol with the given id.
    pub fn symbol(&self, id: SymbolId) -> Option<&Symbol> {
        self.symbols.get(id.0 as usize)
    }

    /// The occurrence whose span contains byte `offset` (the end included,
    /// so a cursor just after a name still finds it).
    pub fn occurrence_at(&self, offset: u32) -> Option<&Occurrence> {
        let first = self.occurrences.partition_point(|o| o.span.end < offset);
        self.occurrences[first..]
            .iter()
            .take_while(|o| o.span.start <= offset)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of a symbol, the definition included.
    pub fn occurrences_of(&self, id: SymbolId) -> impl Iterator<Item = &Occurrence> {
        self.occurrences.iter().filter(move |o| o.symbol == id)
    }

    /// The symbol of a variable, when the frontend bound it to a name.
    pub fn symbol_of_var(&self, var: &Var) -> Option<SymbolId> {
        self.by_identity.get(&var.id()).copied()
    }

    /// The symbol of a buffer, when the frontend bound it to a name.
    pub fn symbol_of_buffer(&self, buffer: &Buffer) -> Option<SymbolId> {
        self.by_identity.get(&buffer.id()).copied()
    }

    fn add(&mut self, symbol: Symbol) -> SymbolId {
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push(symbol);
        id
    }

    /// The variable or buffer a bound value stands for, with its identity.
    fn target_of(value: &Value) -> Option<(usize, SymbolKind, SymbolTarget, Span)> {
        match value {
            Value::Expr(expr) => {
                let var = expr.as_var()?;
                Some((
                    var.id(),
                    SymbolKind::Variable,
                    SymbolTarget::Var(var.clone()),
                    var.span(),
                ))
            }
            Value::Buffer(buffer) | Value::Scalar(buffer) => Some((
                buffer.id(),
                SymbolKind::Buffer,
                SymbolTarget::Buffer(buffer.clone()),
                buffer.span(),
            )),
            _ => None,
        }
    }

    /// Records that `name` was bound to `value` (called by `Lowerer::bind`).
    pub(crate) fn record_binding(&mut self, name: &str, value: &Value) {
        let Some((identity, kind, target, definition)) = Self::target_of(value) else {
            return;
        };
        if self.by_identity.contains_key(&identity) {
            return;
        }
        let id = self.add(Symbol {
            name: name.to_string(),
            kind,
            definition,
            target,
        });
        self.by_identity.insert(identity, id);
    }

    /// Records that the name at `span` was looked up and gave `value`.
    pub(crate) fn record_use(&mut self, span: Span, value: &Value) {
        let Some((identity, ..)) = Self::target_of(value) else {
            return;
        };
        if let Some(&symbol) = self.by_identity.get(&identity) {
            self.occurrences.push(Occurrence {
                span,
                symbol,
                is_definition: false,
            });
        }
    }

    /// Records a block and the string literal that names it.
    pub(crate) fn record_block(&mut self, name: &str, name_span: Span) {
        let id = self.add(Symbol {
            name: name.to_string(),
            kind: SymbolKind::Block,
            definition: name_span,
            target: SymbolTarget::Block(name.to_string()),
        });
        self.occurrences.push(Occurrence {
            span: name_span,
            symbol: id,
            is_definition: true,
        });
    }

    /// Records a function and the name in its `def`.
    pub(crate) fn record_function(&mut self, name: &str, name_span: Span) {
        let id = self.add(Symbol {
            name: name.to_string(),
            kind: SymbolKind::Function,
            definition: name_span,
            target: SymbolTarget::Function(name.to_string()),
        });
        self.occurrences.push(Occurrence {
            span: name_span,
            symbol: id,
            is_definition: true,
        });
    }

    /// Completes the index once the file is lowered: moves each definition
    /// to the name that introduced it, adds definition and builtin
    /// occurrences, and sorts.
    pub(crate) fn finish(&mut self, file: &ast::File, file_id: FileId) {
        let mut binders = Vec::new();
        for stmt in &file.body {
            collect_binders(stmt, &mut binders);
        }
        let mut binders_by_name: HashMap<&str, Vec<&Binder>> = HashMap::new();
        for binder in &binders {
            binders_by_name
                .entry(binder.name.as_str())
                .or_default()
                .push(binder);
        }
        let mut moved: HashMap<u32, (Span, Span)> = HashMap::new();
        let uses = self.occurrences.len();
        for index in 0..self.symbols.len() {
            let symbol = &self.symbols[index];
            if !matches!(symbol.kind, SymbolKind::Variable | SymbolKind::Buffer)
                || !symbol.definition.is_known()
            {
                continue;
            }
            let definition = symbol.definition;
            // The name written in the binding statement that contains the
            // span the IR object was created with (for `A = T.alloc_buffer(..)`
            // that span is the call), innermost statement first.
            let name_span = binders_by_name
                .get(symbol.name.as_str())
                .into_iter()
                .flatten()
                .filter(|b| {
                    b.statement.start <= definition.start && definition.start <= b.statement.end
                })
                .min_by_key(|b| {
                    let exact = b.name_span.start == definition.start;
                    (!exact, b.statement.end - b.statement.start)
                })
                .map(|b| Span::from_syntax(file_id, b.name_span));
            if let Some(span) = name_span {
                self.symbols[index].definition = span;
            } else if (definition.end - definition.start) as usize == symbol.name.len() + 2 {
                // A shape variable introduced by a quoted name (`T.Buffer(("n",))`):
                // the name is inside the quotes.
                self.symbols[index].definition =
                    Span::new(definition.file, definition.start + 1, definition.end - 1);
            }
            let moved_to = self.symbols[index].definition;
            if moved_to != definition {
                moved.insert(index as u32, (definition, moved_to));
            }
            let definition = moved_to;
            self.occurrences.push(Occurrence {
                span: definition,
                symbol: SymbolId(index as u32),
                is_definition: true,
            });
        }
        // Uses written inside the defining text itself (a quoted shape name is
        // evaluated where it is defined) follow the definition.
        for occurrence in &mut self.occurrences[..uses] {
            if let Some((from, to)) = moved.get(&occurrence.symbol.0) {
                if occurrence.span == *from {
                    occurrence.span = *to;
                }
            }
        }
        let used: std::collections::HashSet<u32> =
            self.occurrences.iter().map(|o| o.span.start).collect();
        let mut builtins = Vec::new();
        for stmt in &file.body {
            collect_builtin_paths(stmt, &mut builtins);
        }
        let mut builtin_ids: HashMap<String, SymbolId> = HashMap::new();
        for (path, span) in builtins {
            let span = Span::from_syntax(file_id, span);
            // A head that resolved to a user name (a buffer called `T`) is not a builtin.
            if used.contains(&span.start) {
                continue;
            }
            let Some(name) = super::builtin_name(&path) else {
                continue;
            };
            let id = *builtin_ids.entry(name.to_string()).or_insert_with(|| {
                let id = SymbolId(self.symbols.len() as u32);
                self.symbols.push(Symbol {
                    name: name.to_string(),
                    kind: SymbolKind::Builtin,
                    definition: Span::NONE,
                    target: SymbolTarget::Builtin(name.to_string()),
                });
                id
            });
            self.occurrences.push(Occurrence {
                span,
                symbol: id,
                is_definition: false,
            });
        }
        self.occurrences
            .sort_by_key(|o| (o.span.start, o.span.end, !o.is_definition));
        // A store evaluates its target twice; keep one occurrence per span.
        self.occurrences
            .dedup_by(|a, b| a.span == b.span && a.symbol == b.symbol);
    }
}

/// A name in a binding position: an assignment or loop target, a `with ... as`
/// target or a parameter, with the statement it is in.
struct Binder {
    name: String,
    name_span: ast::Span,
    statement: ast::Span,
}

fn push_target_names(target: &ast::Expr, statement: ast::Span, out: &mut Vec<Binder>) {
    match &target.kind {
        ast::ExprKind::Name(name) => out.push(Binder {
            name: name.clone(),
            name_span: target.span,
            statement,
        }),
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
            for item in items {
                push_target_names(item, statement, out);
            }
        }
        _ => {}
    }
}

fn collect_binders(stmt: &ast::Stmt, out: &mut Vec<Binder>) {
    let span = stmt.span;
    match &stmt.kind {
        ast::StmtKind::FunctionDef(def) => {
            for param in &def.params {
                out.push(Binder {
                    name: param.name.name.clone(),
                    name_span: param.name.span,
                    statement: param.span,
                });
            }
            for inner in &def.body {
                collect_binders(inner, out);
            }
        }
        ast::StmtKind::ClassDef(class) => {
            for inner in &class.body {
                collect_binders(inner, out);
            }
        }
        ast::StmtKind::Assign { target, .. } | ast::StmtKind::AnnAssign { target, .. } => {
            push_target_names(target, span, out)
        }
        ast::StmtKind::For { target, body, .. } => {
            push_target_names(target, span, out);
            for inner in body {
                collect_binders(inner, out);
            }
        }
        ast::StmtKind::While { body, .. } => {
            for inner in body {
                collect_binders(inner, out);
            }
        }
        ast::StmtKind::If { body, orelse, .. } => {
            for inner in body.iter().chain(orelse) {
                collect_binders(inner, out);
            }
        }
        ast::StmtKind::With { items, body } => {
            for item in items {
                if let Some(target) = &item.target {
                    push_target_names(target, span, out);
                }
            }
            for inner in body {
                collect_binders(inner, out);
            }
        }
        _ => {}
    }
}

/// Every dotted path `T.x.y` (the longest chain) with its span.
fn collect_builtin_paths(stmt: &ast::Stmt, out: &mut Vec<(String, ast::Span)>) {
    let mut visit = |expr: &ast::Expr| collect_expr_builtins(expr, out);
    match &stmt.kind {
        ast::StmtKind::FunctionDef(def) => {
            for decorator in &def.decorators {
                visit(decorator);
            }
            for param in &def.params {
                if let Some(annotation) = &param.annotation {
                    visit(annotation);
                }
                if let Some(default) = &param.default {
                    visit(default);
                }
            }
            if let Some(returns) = &def.returns {
                visit(returns);
            }
            for inner in &def.body {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::ClassDef(class) => {
            for inner in &class.body {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::Assign { target, value } => {
            visit(target);
            visit(value);
        }
        ast::StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            visit(target);
            visit(annotation);
            if let Some(value) = value {
                visit(value);
            }
        }
        ast::StmtKind::AugAssign { target, value, .. } => {
            visit(target);
            visit(value);
        }
        ast::StmtKind::Expr(expr) => visit(expr),
        ast::StmtKind::For { target, iter, body } => {
            visit(target);
            visit(iter);
            for inner in body {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::While { test, body } => {
            visit(test);
            for inner in body {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::If { test, body, orelse } => {
            visit(test);
            for inner in body.iter().chain(orelse) {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::With { items, body } => {
            for item in items {
                visit(&item.context);
            }
            for inner in body {
                collect_builtin_paths(inner, out);
            }
        }
        ast::StmtKind::Return(Some(value)) => visit(value),
        ast::StmtKind::Assert { test, msg } => {
            visit(test);
            if let Some(msg) = msg {
                visit(msg);
            }
        }
        _ => {}
    }
}

fn collect_expr_builtins(expr: &ast::Expr, out: &mut Vec<(String, ast::Span)>) {
    if let ast::ExprKind::Attribute { .. } = &expr.kind {
        if let Some(path) = expr.dotted_name() {
            out.push((path, expr.span));
            return;
        }
    }
    let mut visit = |e: &ast::Expr| collect_expr_builtins(e, out);
    match &expr.kind {
        ast::ExprKind::Attribute { value, .. } => visit(value),
        ast::ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            visit(func);
            for arg in args {
                visit(arg);
            }
            for keyword in keywords {
                visit(&keyword.value);
            }
        }
        ast::ExprKind::Subscript { value, indices } => {
            visit(value);
            for index in indices {
                visit(index);
            }
        }
        ast::ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                visit(part);
            }
        }
        ast::ExprKind::BinOp { lhs, rhs, .. } | ast::ExprKind::BoolOp { lhs, rhs, .. } => {
            visit(lhs);
            visit(rhs);
        }
        ast::ExprKind::UnaryOp { operand, .. } => visit(operand),
        ast::ExprKind::Compare { left, rest } => {
            visit(left);
            for (_, operand) in rest {
                visit(operand);
            }
        }
        ast::ExprKind::IfExp { test, body, orelse } => {
            visit(test);
            visit(body);
            visit(orelse);
        }
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
            for item in items {
                visit(item);
            }
        }
        ast::ExprKind::Dict(items) => {
            for (key, value) in items {
                visit(key);
                visit(value);
            }
        }
        ast::ExprKind::Lambda { body, .. } => visit(body),
        ast::ExprKind::Starred(value) => visit(value),
        _ => {}
    }
}
