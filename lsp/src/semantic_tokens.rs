//! Semantic tokens: buffers, loop variables, block iteration variables,
//! parameters, functions, `T.*` builtins, data types, schedule primitives and
//! handles, strings, numbers and comments, from the symbol index and the lexer.

use crate::analysis::Analysis;
use crate::program_tree::{role_of, VarRole};
use std::collections::HashMap;
use tirc::frontend::symbols::{SymbolKind, SymbolTarget};
use tirc_grammar::lexer::{tokenize, Tok};
use tower_lsp::lsp_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokensLegend,
};

/// The token types, in legend order.
pub const TOKEN_TYPES: &[&str] = &[
    "namespace",
    "type",
    "function",
    "method",
    "variable",
    "parameter",
    "string",
    "number",
    "comment",
    "buffer",
    "loopVariable",
    "iterVariable",
    "builtin",
    "primitive",
    "handle",
];

const NAMESPACE: u32 = 0;
const TYPE: u32 = 1;
const FUNCTION: u32 = 2;
const VARIABLE: u32 = 4;
const PARAMETER: u32 = 5;
const STRING: u32 = 6;
const NUMBER: u32 = 7;
const COMMENT: u32 = 8;
const BUFFER: u32 = 9;
const LOOP_VARIABLE: u32 = 10;
const ITER_VARIABLE: u32 = 11;
const BUILTIN: u32 = 12;
const PRIMITIVE: u32 = 13;
const HANDLE: u32 = 14;

/// The token modifiers, in legend order.
pub const TOKEN_MODIFIERS: &[&str] = &["declaration", "defaultLibrary"];
const DECLARATION: u32 = 1;
const DEFAULT_LIBRARY: u32 = 2;

/// The legend announced in the server's capabilities.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES
            .iter()
            .map(|t| SemanticTokenType::new(t))
            .collect(),
        token_modifiers: TOKEN_MODIFIERS
            .iter()
            .map(|m| SemanticTokenModifier::new(m))
            .collect(),
    }
}

/// A classified byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Index into [`TOKEN_TYPES`].
    pub token_type: u32,
    /// Bit set of [`TOKEN_MODIFIERS`].
    pub modifiers: u32,
}

/// The identifiers of a dotted path written at `start..end`, with offsets.
fn path_components(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let Some(slice) = text.get(start..end) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut component_start: Option<usize> = None;
    for (index, character) in slice.char_indices() {
        let part_of_name = character == '_' || character.is_alphanumeric();
        match (part_of_name, component_start) {
            (true, None) => component_start = Some(index),
            (false, Some(s)) => {
                out.push((start + s, start + index));
                component_start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = component_start {
        out.push((start + s, end));
    }
    out
}

/// Every classified range of the document, sorted and without overlaps.
pub fn classify(analysis: &Analysis) -> Vec<Classified> {
    let text = analysis.text.as_str();
    let mut names: Vec<Classified> = Vec::new();
    if let Some(program) = analysis.program() {
        let mut variable_types: HashMap<u32, u32> = HashMap::new();
        for occurrence in &program.symbols.occurrences {
            let Some(symbol) = program.symbols.symbol(occurrence.symbol) else {
                continue;
            };
            let modifiers = if occurrence.is_definition {
                DECLARATION
            } else {
                0
            };
            let (start, end) = (occurrence.span.start as usize, occurrence.span.end as usize);
            let token_type = match (&symbol.kind, &symbol.target) {
                (SymbolKind::Variable, SymbolTarget::Var(var)) => *variable_types
                    .entry(occurrence.symbol.0)
                    .or_insert_with(|| match role_of(program, var) {
                        Some(VarRole::Loop(_)) => LOOP_VARIABLE,
                        Some(VarRole::IterVar(..)) => ITER_VARIABLE,
                        Some(VarRole::Param(_)) => PARAMETER,
                        _ => VARIABLE,
                    }),
                (SymbolKind::Buffer, _) => BUFFER,
                (SymbolKind::Function, _) => FUNCTION,
                (SymbolKind::Builtin, _) => {
                    let components = path_components(text, start, end);
                    for (index, (s, e)) in components.iter().enumerate() {
                        let component = &text[*s..*e];
                        let token_type = if index == 0 {
                            NAMESPACE
                        } else if component.parse::<tirc::ir::DataType>().is_ok()
                            || component == "handle"
                            || component == "Buffer"
                        {
                            TYPE
                        } else {
                            BUILTIN
                        };
                        names.push(Classified {
                            start: *s,
                            end: *e,
                            token_type,
                            modifiers: DEFAULT_LIBRARY,
                        });
                    }
                    continue;
                }
                _ => continue,
            };
            names.push(Classified {
                start,
                end,
                token_type,
                modifiers,
            });
        }
    }
    for script in analysis.schedule_scripts() {
        for step in &script.steps {
            if let Some(span) = step.primitive_span {
                names.push(Classified {
                    start: span.start as usize,
                    end: span.end as usize,
                    token_type: PRIMITIVE,
                    modifiers: DEFAULT_LIBRARY,
                });
            }
        }
        for handle in &script.handles {
            names.push(Classified {
                start: handle.span.start as usize,
                end: handle.span.end as usize,
                token_type: HANDLE,
                modifiers: DECLARATION,
            });
        }
        for (span, _) in &script.handle_uses {
            names.push(Classified {
                start: span.start as usize,
                end: span.end as usize,
                token_type: HANDLE,
                modifiers: 0,
            });
        }
    }
    let mut all = names;
    for (token, range) in tokenize(text) {
        let token_type = match token {
            Ok(Tok::Str(_)) => STRING,
            Ok(Tok::Int(_)) | Ok(Tok::Float(_)) => NUMBER,
            Ok(Tok::Comment(_)) => COMMENT,
            _ => continue,
        };
        all.push(Classified {
            start: range.start,
            end: range.end,
            token_type,
            modifiers: 0,
        });
    }
    // Names first at equal starts: a name token is more specific than a lexer token.
    all.sort_by_key(|c| (c.start, c.token_type >= STRING && c.token_type <= COMMENT));
    let mut out: Vec<Classified> = Vec::with_capacity(all.len());
    for token in all {
        if token.end <= token.start || out.last().is_some_and(|last| token.start < last.end) {
            continue;
        }
        out.push(token);
    }
    out
}

/// The classified ranges encoded as the protocol's relative tokens
/// (UTF-16 columns; a token spanning lines is split per line).
pub fn semantic_tokens(analysis: &Analysis) -> Vec<SemanticToken> {
    let text = analysis.text.as_str();
    let mut out = Vec::new();
    let (mut previous_line, mut previous_start) = (0u32, 0u32);
    for token in classify(analysis) {
        let mut pieces = Vec::new();
        let mut piece_start = token.start;
        for (index, character) in text[token.start..token.end].char_indices() {
            if character == '\n' {
                pieces.push((piece_start, token.start + index));
                piece_start = token.start + index + 1;
            }
        }
        pieces.push((piece_start, token.end));
        for (start, end) in pieces {
            let end = text[start..end].trim_end_matches('\r').len() + start;
            if end <= start {
                continue;
            }
            let position = analysis.line_index.position(text, start);
            let length: usize = text[start..end].chars().map(char::len_utf16).sum();
            let delta_line = position.line - previous_line;
            let delta_start = if delta_line == 0 {
                position.character - previous_start
            } else {
                position.character
            };
            out.push(SemanticToken {
                delta_line,
                delta_start,
                length: length as u32,
                token_type: token.token_type,
                token_modifiers_bitset: token.modifiers,
            });
            previous_line = position.line;
            previous_start = position.character;
        }
    }
    out
}
