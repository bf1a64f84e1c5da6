//! Completion: `T.` builtins with their signatures, `sch.` primitives with
//! parameter snippets, block names inside `get_block("`, data types and
//! storage scopes inside strings, and the buffers, variables and schedule
//! handles in scope.

use crate::analysis::Analysis;
use crate::call_context::{dotted_prefix, line_before, open_string};
use crate::catalog;
use tirc::frontend::symbols::{SymbolKind, SymbolTarget};
use tower_lsp::lsp_types::{
    CompletionItem, CompletionItemKind, Documentation, InsertTextFormat, MarkupContent, MarkupKind,
    Position,
};

fn documentation(text: &str) -> Option<Documentation> {
    Some(Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value: text.to_string(),
    }))
}

fn simple(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..CompletionItem::default()
    }
}

/// The names of the script parameter that schedule sections use (`sch`).
fn schedule_params(analysis: &Analysis) -> Vec<String> {
    let mut names: Vec<String> = analysis
        .schedule_scripts()
        .iter()
        .map(|s| s.schedule_param.clone())
        .collect();
    names.push("sch".to_string());
    names
}

fn builtin_items(namespace: &str) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = Vec::new();
    for entry in catalog::builtins() {
        let name = match namespace {
            "" => {
                if let Some((head, _)) = entry.name.split_once('.') {
                    if !items.iter().any(|i| i.label == head) {
                        items.push(simple(
                            head,
                            CompletionItemKind::MODULE,
                            Some(format!("T.{head}")),
                        ));
                    }
                    continue;
                }
                entry.name.clone()
            }
            prefix => match entry
                .name
                .strip_prefix(prefix)
                .and_then(|n| n.strip_prefix('.'))
            {
                Some(rest) if !rest.contains('.') => rest.to_string(),
                _ => continue,
            },
        };
        items.push(CompletionItem {
            label: name,
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(entry.signature("T")),
            documentation: documentation(&entry.doc),
            ..CompletionItem::default()
        });
    }
    if namespace.is_empty() {
        for dtype in catalog::DTYPES {
            if !items.iter().any(|i| i.label == *dtype) {
                items.push(simple(
                    dtype,
                    CompletionItemKind::TYPE_PARAMETER,
                    Some(format!("T.{dtype}")),
                ));
            }
        }
    }
    items
}

fn primitive_items() -> Vec<CompletionItem> {
    catalog::primitives()
        .into_iter()
        .map(|entry| CompletionItem {
            label: entry.name.clone(),
            kind: Some(CompletionItemKind::METHOD),
            detail: Some(entry.signature("sch")),
            documentation: documentation(&entry.doc),
            insert_text: Some(entry.snippet()),
            insert_text_format: Some(InsertTextFormat::SNIPPET),
            ..CompletionItem::default()
        })
        .collect()
}

fn block_name_items(analysis: &Analysis) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = Vec::new();
    if let Some(program) = analysis.program() {
        for (block, _) in crate::program_tree::blocks(program) {
            if block.name == "root" || items.iter().any(|i| i.label == block.name) {
                continue;
            }
            items.push(simple(
                &block.name,
                CompletionItemKind::STRUCT,
                Some("block".to_string()),
            ));
        }
    }
    items
}

fn names_in_scope(analysis: &Analysis, offset: usize) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = Vec::new();
    let offset = offset as u32;
    // A schedule section sees its handles; a function sees its own names.
    if let Some(script) = analysis
        .schedule_scripts()
        .iter()
        .find(|s| s.span.start <= offset && offset <= s.span.end)
    {
        for handle in script.handles.iter().filter(|h| h.span.end < offset) {
            if !items.iter().any(|i| i.label == handle.name) {
                items.push(simple(
                    &handle.name,
                    CompletionItemKind::VARIABLE,
                    Some(handle.denotes.describe()),
                ));
            }
        }
        items.push(simple(
            &script.schedule_param,
            CompletionItemKind::VARIABLE,
            Some("T.Schedule".to_string()),
        ));
        return items;
    }
    let Some(program) = analysis.program() else {
        return items;
    };
    let function = analysis
        .syntax()
        .file
        .body
        .iter()
        .flat_map(|stmt| match &stmt.kind {
            tirc_grammar::ast::StmtKind::ClassDef(class) => {
                class.body.iter().map(|s| s.span).collect::<Vec<_>>()
            }
            _ => vec![stmt.span],
        })
        .find(|span| span.start <= offset && offset <= span.end);
    for symbol in &program.symbols.symbols {
        let inside = function
            .is_some_and(|f| f.start <= symbol.definition.start && symbol.definition.end <= f.end);
        let visible = match symbol.kind {
            SymbolKind::Variable | SymbolKind::Buffer => inside && symbol.definition.end <= offset,
            SymbolKind::Function => true,
            _ => false,
        };
        if !visible || items.iter().any(|i| i.label == symbol.name) {
            continue;
        }
        let (kind, detail) = match &symbol.target {
            SymbolTarget::Var(var) => (CompletionItemKind::VARIABLE, var.dtype().to_string()),
            SymbolTarget::Buffer(buffer) => {
                let shape: Vec<String> = buffer
                    .shape()
                    .iter()
                    .map(tirc::printer::expr_to_string)
                    .collect();
                (
                    CompletionItemKind::FIELD,
                    format!("buffer ({}) {}", shape.join(", "), buffer.dtype()),
                )
            }
            _ => (CompletionItemKind::FUNCTION, "prim_func".to_string()),
        };
        items.push(simple(&symbol.name, kind, Some(detail)));
    }
    items.push(simple(
        "T",
        CompletionItemKind::MODULE,
        Some("tvm.script.tir".to_string()),
    ));
    items
}

/// The completion items at `position`.
pub fn completion(analysis: &Analysis, position: Position) -> Vec<CompletionItem> {
    let offset = analysis.offset(position);
    let before = line_before(&analysis.text, offset);
    if before.trim_start().starts_with('#') {
        return Vec::new();
    }
    if let Some((before_quote, _)) = open_string(before) {
        let trimmed = before_quote.trim_end();
        if trimmed.ends_with("get_block(")
            || trimmed.ends_with("get_sblock(")
            || trimmed.ends_with("name=") && trimmed.contains("get_")
        {
            return block_name_items(analysis);
        }
        if trimmed.ends_with("scope=") || trimmed.ends_with("storage_scope=") {
            return catalog::SCOPES
                .iter()
                .map(|s| {
                    simple(
                        s,
                        CompletionItemKind::ENUM_MEMBER,
                        Some("storage scope".to_string()),
                    )
                })
                .collect();
        }
        if trimmed.ends_with("block(")
            || trimmed.ends_with("func_attr({")
            || trimmed.ends_with("thread=")
        {
            return Vec::new();
        }
        return catalog::DTYPES
            .iter()
            .map(|d| {
                simple(
                    d,
                    CompletionItemKind::TYPE_PARAMETER,
                    Some("data type".to_string()),
                )
            })
            .collect();
    }
    let prefix = dotted_prefix(before);
    if let Some((object, _)) = prefix.rsplit_once('.') {
        if object == "T" || object.starts_with("T.") {
            return builtin_items(
                object
                    .strip_prefix("T")
                    .and_then(|o| o.strip_prefix('.'))
                    .unwrap_or(""),
            );
        }
        if schedule_params(analysis).iter().any(|p| p == object) {
            return primitive_items();
        }
        return Vec::new();
    }
    names_in_scope(analysis, offset)
}
