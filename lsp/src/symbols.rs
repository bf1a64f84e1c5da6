//! Document symbols (module → functions → loops and blocks, with ranges, read
//! from the syntax tree so they stay while the file is broken) and workspace
//! symbols (functions, blocks, buffers and schedule sections of every open
//! document).

use crate::analysis::Analysis;
use tirc::frontend::is_schedule_def;
use tirc_grammar::ast;
#[allow(deprecated)]
use tower_lsp::lsp_types::{DocumentSymbol, Location, SymbolInformation, SymbolKind, Url};

fn block_name(expr: &ast::Expr) -> Option<String> {
    let ast::ExprKind::Call { func, args, .. } = &expr.kind else {
        return None;
    };
    let path = func.dotted_name()?;
    if !(path.ends_with(".block") || path.ends_with(".sblock")) {
        return None;
    }
    match args.first().map(|a| &a.kind) {
        Some(ast::ExprKind::Str(name)) => Some(name.clone()),
        _ => Some(String::new()),
    }
}

fn target_text(analysis: &Analysis, expr: &ast::Expr) -> String {
    analysis
        .text
        .get(expr.span.range())
        .unwrap_or_default()
        .to_string()
}

#[allow(deprecated)]
fn symbol(
    analysis: &Analysis,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    span: ast::Span,
    selection: ast::Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    let name = if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        name
    };
    let range = analysis
        .line_index
        .range(&analysis.text, span.start as usize, span.end as usize);
    let mut selection_range = analysis.line_index.range(
        &analysis.text,
        selection.start as usize,
        selection.end as usize,
    );
    // The protocol requires the selection inside the range.
    if selection_range.start < range.start || selection_range.end > range.end {
        selection_range = range;
    }
    DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: (!children.is_empty()).then_some(children),
    }
}

fn body_symbols(analysis: &Analysis, stmts: &[ast::Stmt]) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    for stmt in stmts {
        match &stmt.kind {
            ast::StmtKind::For { target, iter, body } => {
                let children = body_symbols(analysis, body);
                out.push(symbol(
                    analysis,
                    target_text(analysis, target),
                    Some(target_text(analysis, iter)),
                    SymbolKind::OPERATOR,
                    stmt.span,
                    target.span,
                    children,
                ));
            }
            ast::StmtKind::With { items, body } => {
                let children = body_symbols(analysis, body);
                match items.first().and_then(|i| block_name(&i.context)) {
                    Some(name) => {
                        let selection = items[0].context.span;
                        out.push(symbol(
                            analysis,
                            name,
                            Some("block".to_string()),
                            SymbolKind::STRUCT,
                            stmt.span,
                            selection,
                            children,
                        ));
                    }
                    None => out.extend(children),
                }
            }
            ast::StmtKind::If { body, orelse, .. } => {
                out.extend(body_symbols(analysis, body));
                out.extend(body_symbols(analysis, orelse));
            }
            ast::StmtKind::While { body, .. } => out.extend(body_symbols(analysis, body)),
            _ => {}
        }
    }
    out
}

fn function_symbol(analysis: &Analysis, def: &ast::FunctionDef, span: ast::Span) -> DocumentSymbol {
    let schedule = is_schedule_def(def);
    let children = if schedule {
        Vec::new()
    } else {
        body_symbols(analysis, &def.body)
    };
    symbol(
        analysis,
        def.name.name.clone(),
        Some(if schedule { "schedule" } else { "prim_func" }.to_string()),
        if schedule {
            SymbolKind::METHOD
        } else {
            SymbolKind::FUNCTION
        },
        span,
        def.name.span,
        children,
    )
}

/// The outline of a document.
pub fn document_symbols(analysis: &Analysis) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    for stmt in &analysis.syntax().file.body {
        match &stmt.kind {
            ast::StmtKind::ClassDef(class) => {
                let children = class
                    .body
                    .iter()
                    .filter_map(|inner| match &inner.kind {
                        ast::StmtKind::FunctionDef(def) => {
                            Some(function_symbol(analysis, def, inner.span))
                        }
                        _ => None,
                    })
                    .collect();
                out.push(symbol(
                    analysis,
                    class.name.name.clone(),
                    Some("ir_module".to_string()),
                    SymbolKind::MODULE,
                    stmt.span,
                    class.name.span,
                    children,
                ));
            }
            ast::StmtKind::FunctionDef(def) => out.push(function_symbol(analysis, def, stmt.span)),
            _ => {}
        }
    }
    out
}

/// True when every character of `query` appears in `name` in order, ignoring case.
fn matches_query(name: &str, query: &str) -> bool {
    let mut name_chars = name.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| name_chars.any(|n| n == q))
}

/// Symbols of every open document whose name matches `query`.
#[allow(deprecated)]
pub fn workspace_symbols(
    documents: &[(Url, std::sync::Arc<Analysis>)],
    query: &str,
) -> Vec<SymbolInformation> {
    let mut out = Vec::new();
    for (uri, analysis) in documents {
        let mut push =
            |name: &str, kind: SymbolKind, span: tirc::source::Span, container: Option<String>| {
                if matches_query(name, query) && span.is_known() {
                    out.push(SymbolInformation {
                        name: name.to_string(),
                        kind,
                        tags: None,
                        deprecated: None,
                        location: Location::new(uri.clone(), analysis.range(span)),
                        container_name: container,
                    });
                }
            };
        if let Some(program) = analysis.program() {
            for symbol in &program.symbols.symbols {
                let kind = match symbol.kind {
                    tirc::frontend::symbols::SymbolKind::Function => SymbolKind::FUNCTION,
                    tirc::frontend::symbols::SymbolKind::Block => SymbolKind::STRUCT,
                    tirc::frontend::symbols::SymbolKind::Buffer => SymbolKind::ARRAY,
                    _ => continue,
                };
                push(
                    &symbol.name,
                    kind,
                    symbol.definition,
                    Some(program.module.name.clone()),
                );
            }
        }
        for script in analysis.schedule_scripts() {
            let span = tirc::source::Span::from_syntax(analysis.file(), script.name_span);
            push(
                &script.name,
                SymbolKind::METHOD,
                span,
                Some("schedule".to_string()),
            );
        }
    }
    out
}
