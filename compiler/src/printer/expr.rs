//! Expressions to text, with Python's precedence and TVM's literal formats.

use super::Printer;
use crate::ir::builtin::DtypePosition;
use crate::ir::operators::{self, rebuilds_unchanged};
use crate::ir::{BinaryOp, DataType, Expr, ExprKind};

/// Python operator precedence, as TVM's doc printer ranks it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Precedence {
    Or = 3,
    And = 4,
    Not = 5,
    Comparison = 6,
    BitOr = 7,
    BitXor = 8,
    BitAnd = 9,
    Shift = 10,
    Add = 11,
    Mult = 12,
    Unary = 13,
    Identity = 15,
}

/// C's `%.17g`: 17 significant digits, trailing zeros removed.
fn format_g17(value: f64) -> String {
    let scientific = format!("{value:.16e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |text: &str| -> String {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text.to_string()
        }
    };
    if !(-4..17).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", trim(mantissa), sign, exponent.abs())
    } else {
        let decimals = (16 - exponent).max(0) as usize;
        trim(&format!("{value:.decimals$}"))
    }
}

/// A float literal as TVM prints it inside `T.float32(...)`: integer values
/// with one decimal (`2.0`), others with 17 significant digits, and
/// `"inf"`/`"nan"` quoted.
pub fn format_float(value: f64) -> String {
    if value.is_nan() {
        "\"nan\"".to_string()
    } else if value.is_infinite() {
        if value > 0.0 {
            "\"inf\"".to_string()
        } else {
            "\"-inf\"".to_string()
        }
    } else if value.round() == value {
        format!("{value:.1}")
    } else {
        format_g17(value)
    }
}

/// A string literal with double quotes and escapes.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn operator_symbol(op: BinaryOp) -> (&'static str, Precedence) {
    match op {
        BinaryOp::Add => ("+", Precedence::Add),
        BinaryOp::Sub => ("-", Precedence::Add),
        BinaryOp::Mul => ("*", Precedence::Mult),
        BinaryOp::Div => ("/", Precedence::Mult),
        BinaryOp::FloorDiv => ("//", Precedence::Mult),
        BinaryOp::FloorMod => ("%", Precedence::Mult),
        BinaryOp::Lt => ("<", Precedence::Comparison),
        BinaryOp::Le => ("<=", Precedence::Comparison),
        BinaryOp::Eq => ("==", Precedence::Comparison),
        BinaryOp::Ne => ("!=", Precedence::Comparison),
        BinaryOp::Gt => (">", Precedence::Comparison),
        BinaryOp::Ge => (">=", Precedence::Comparison),
        BinaryOp::And => ("and", Precedence::And),
        BinaryOp::Or => ("or", Precedence::Or),
        BinaryOp::Mod | BinaryOp::Min | BinaryOp::Max => ("", Precedence::Identity),
    }
}

/// Builtins that TVM prints as Python operators.
fn call_operator(name: &str) -> Option<(&'static str, Precedence)> {
    match name {
        "shift_left" => Some(("<<", Precedence::Shift)),
        "shift_right" => Some((">>", Precedence::Shift)),
        "bitwise_and" => Some(("&", Precedence::BitAnd)),
        "bitwise_or" => Some(("|", Precedence::BitOr)),
        "bitwise_xor" => Some(("^", Precedence::BitXor)),
        _ => None,
    }
}

impl Printer {
    /// An expression as text.
    pub fn expr(&mut self, expr: &Expr) -> String {
        self.expr_with_precedence(expr).0
    }

    /// Prints a child, parenthesised when it binds more loosely than its parent
    /// (or equally, for the right operand of a left-associative operator).
    fn child(&mut self, expr: &Expr, parent: Precedence, parens_on_equal: bool) -> String {
        let (text, precedence) = self.expr_with_precedence(expr);
        if precedence < parent || (parens_on_equal && precedence == parent) {
            format!("({text})")
        } else {
            text
        }
    }

    /// A comma-separated list of expressions.
    pub fn expr_list(&mut self, exprs: &[Expr]) -> String {
        let parts: Vec<String> = exprs.iter().map(|e| self.expr(e)).collect();
        parts.join(", ")
    }

    /// `T.int64(5)`, `5`, `T.bool(True)`: an integer literal of `dtype`.
    pub fn int_literal(&self, value: i64, dtype: DataType) -> String {
        if dtype == DataType::int32() {
            value.to_string()
        } else if dtype.is_bool() {
            format!("T.bool({})", if value != 0 { "True" } else { "False" })
        } else if dtype.is_uint() && dtype.bits == 64 {
            format!("T.{dtype}({})", value as u64)
        } else {
            format!("T.{dtype}({value})")
        }
    }

    /// Store indices, with constant-stride ramps printed as slices (loads
    /// print ramps as `T.Ramp`, as TVM 0.27 does).
    pub fn store_indices(&mut self, indices: &[Expr]) -> String {
        let parts: Vec<String> = indices
            .iter()
            .map(|index| {
                if let ExprKind::Ramp {
                    base,
                    stride,
                    lanes,
                } = index.kind()
                {
                    if let Some(step) = stride.as_int() {
                        let span = operators::make_const_int(stride.dtype(), *lanes as i64 * step);
                        let stop =
                            operators::add(base.clone(), span).unwrap_or_else(|_| base.clone());
                        let start = self.expr(base);
                        let stop = self.expr(&stop);
                        return if step == 1 {
                            format!("{start}:{stop}")
                        } else {
                            format!("{start}:{stop}:{}", self.expr(stride))
                        };
                    }
                }
                self.expr(index)
            })
            .collect();
        parts.join(", ")
    }

    pub(crate) fn expr_with_precedence(&mut self, expr: &Expr) -> (String, Precedence) {
        use Precedence::*;
        let identity = |text: String| (text, Identity);
        match expr.kind() {
            ExprKind::Var(var) => identity(match self.names.var(var) {
                Some(name) => name.to_string(),
                None => super::names::sanitize(var.name()),
            }),
            ExprKind::Int(value) => identity(self.int_literal(*value, expr.dtype())),
            ExprKind::Float(value) => {
                identity(format!("T.{}({})", expr.dtype(), format_float(*value)))
            }
            ExprKind::Str(text) => identity(quote(text)),
            ExprKind::Cast(value) => {
                let inner = self.expr(value);
                identity(format!("T.Cast(\"{}\", {inner})", expr.dtype()))
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Not(value) => {
                let (inner, precedence) = self.expr_with_precedence(value);
                if value.is_const() {
                    identity(format!("T.Not({inner})"))
                } else if precedence < Not {
                    (format!("not ({inner})"), Not)
                } else {
                    (format!("not {inner}"), Not)
                }
            }
            ExprKind::Select(c, a, b) => {
                let args = self.expr_list(&[c.clone(), a.clone(), b.clone()]);
                identity(format!("T.Select({args})"))
            }
            ExprKind::Load(load)
                if self.scalars.contains(&load.buffer)
                    && super::stmt::is_first_element(&load.indices) =>
            {
                identity(self.buffer_name(&load.buffer))
            }
            ExprKind::Load(load) => {
                let buffer = self.buffer_name(&load.buffer);
                if load.indices.is_empty() {
                    identity(format!("{buffer}[()]"))
                } else {
                    let indices = self.expr_list(&load.indices);
                    identity(format!("{buffer}[{indices}]"))
                }
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let (base, stride) = (self.expr(base), self.expr(stride));
                identity(format!("T.Ramp({base}, {stride}, {lanes})"))
            }
            ExprKind::Broadcast { value, lanes } => {
                let value = self.expr(value);
                identity(format!("T.Broadcast({value}, {lanes})"))
            }
            ExprKind::Let { var, value, body } => {
                let value = self.expr(value);
                let name = self.expr(&var.to_expr());
                let body = self.expr(body);
                identity(format!("T.Let({body}, where={{{name}: {value}}})"))
            }
            ExprKind::Call { op, args } => {
                if let Some((symbol, precedence)) = call_operator(op.name()) {
                    if args.len() == 2 {
                        let lhs = self.child(&args[0], precedence, false);
                        let rhs = self.child(&args[1], precedence, true);
                        return (format!("{lhs} {symbol} {rhs}"), precedence);
                    }
                }
                // `T.if_then_else` with a constant condition would fold when parsed:
                // the generic intrinsic call keeps the node.
                if op.name() == "if_then_else" && args.first().is_some_and(|c| c.is_const()) {
                    let args = self.expr_list(args);
                    return identity(format!(
                        "T.call_intrin(\"{}\", \"{}\", {args})",
                        expr.dtype(),
                        op.info().tvm_name
                    ));
                }
                if op.name() == "bitwise_not" && args.len() == 1 {
                    let operand = self.child(&args[0], Unary, false);
                    return (format!("~{operand}"), Unary);
                }
                let mut parts = Vec::with_capacity(args.len() + 1);
                let dtype = format!("\"{}\"", expr.dtype());
                if op.info().dtype_position == DtypePosition::First {
                    parts.push(dtype.clone());
                }
                for arg in args {
                    parts.push(self.expr(arg));
                }
                if op.info().dtype_position == DtypePosition::Last {
                    parts.push(dtype);
                }
                identity(format!("T.{}({})", op.name(), parts.join(", ")))
            }
            ExprKind::CallFunction { name, args } => {
                let args = self.expr_list(args);
                let module = self
                    .module_name
                    .clone()
                    .unwrap_or_else(|| "Module".to_string());
                identity(format!("{module}.{name}({args})"))
            }
            ExprKind::Shuffle { vectors, indices } => {
                let vectors = self.expr_list(vectors);
                let indices = self.expr_list(indices);
                identity(format!("T.Shuffle([{vectors}], [{indices}])"))
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> (String, Precedence) {
        let call = |this: &mut Printer, name: &str| {
            let args = this.expr_list(&[a.clone(), b.clone()]);
            (format!("T.{name}({args})"), Precedence::Identity)
        };
        // The folding functions print only when parsing them rebuilds this very
        // node; otherwise the node constructor (`T.Min`) keeps the round trip.
        let folding = |this: &mut Printer, function: &str, constructor: &str| {
            if rebuilds_unchanged(op, a, b) {
                call(this, function)
            } else {
                call(this, constructor)
            }
        };
        match op {
            BinaryOp::Mod => folding(self, "truncmod", "Mod"),
            BinaryOp::Min => folding(self, "min", "Min"),
            BinaryOp::Max => folding(self, "max", "Max"),
            BinaryOp::Div => {
                let integer = a.dtype().is_integer() && b.dtype().is_integer();
                if integer || !rebuilds_unchanged(op, a, b) {
                    call(self, "Div")
                } else {
                    self.operator(op, a, b)
                }
            }
            _ => {
                if rebuilds_unchanged(op, a, b) {
                    self.operator(op, a, b)
                } else {
                    call(self, op.tvm_name())
                }
            }
        }
    }

    fn operator(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> (String, Precedence) {
        let (symbol, precedence) = operator_symbol(op);
        let lhs = self.child(a, precedence, false);
        let rhs = self.child(b, precedence, true);
        (format!("{lhs} {symbol} {rhs}"), precedence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_tvm() {
        assert_eq!(format_float(0.0), "0.0");
        assert_eq!(format_float(-3.0), "-3.0");
        assert_eq!(format_float(2.5), "2.5");
        assert_eq!(format_float(0.1), "0.10000000000000001");
        assert_eq!(format_float(1e-5), "1.0000000000000001e-05");
        assert_eq!(
            format_float(3.4028234663852886e38),
            "340282346638528859811704183484516925440.0"
        );
        assert_eq!(format_float(f64::INFINITY), "\"inf\"");
        assert_eq!(format_float(f64::NAN), "\"nan\"");
        assert_eq!(format_float(0.001), "0.001");
        assert_eq!(format_float(123456.789), "123456.789");
        assert_eq!(format_float(1.5e-7), "1.4999999999999999e-07");
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }
}
