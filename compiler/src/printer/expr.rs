//! Expressions to text, with Python's precedence and TVM's literal formats.

use super::Printer;
use crate::ir::builtin::DtypePosition;
use crate::ir::operators::{self, rebuilds_unchanged};
use crate::ir::{BinaryOp, DataType, Expr, ExprKind};
use std::fmt::Write as _;

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
    write_quoted(&mut out, text);
    out
}

/// Appends [`quote`] of `text` to `out`.
pub(crate) fn write_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
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
        let mut out = String::new();
        self.write_expr(&mut out, expr);
        out
    }

    /// A comma-separated list of expressions.
    pub fn expr_list(&mut self, exprs: &[Expr]) -> String {
        let mut out = String::new();
        self.write_list(&mut out, exprs);
        out
    }

    /// Appends `items` separated by `, `, each written by `write_item`.
    pub(crate) fn write_separated<T>(
        &mut self,
        out: &mut String,
        items: impl IntoIterator<Item = T>,
        mut write_item: impl FnMut(&mut Printer, &mut String, T),
    ) {
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_item(self, out, item);
        }
    }

    fn write_list(&mut self, out: &mut String, exprs: &[Expr]) {
        self.write_separated(out, exprs, |printer, out, e| printer.write_expr(out, e));
    }

    /// Appends store indices, with constant-stride ramps printed as slices
    /// (loads print ramps as `T.Ramp`, as TVM 0.27 does).
    pub(crate) fn write_store_indices(&mut self, out: &mut String, indices: &[Expr]) {
        self.write_separated(out, indices, |printer, out, index| {
            if let ExprKind::Ramp {
                base,
                stride,
                lanes,
            } = index.kind()
            {
                if let Some(step) = stride.as_int() {
                    let span = operators::make_const_int(stride.dtype(), *lanes as i64 * step);
                    let stop = operators::add(base.clone(), span).unwrap_or_else(|_| base.clone());
                    printer.write_expr(out, base);
                    out.push(':');
                    printer.write_expr(out, &stop);
                    if step != 1 {
                        out.push(':');
                        printer.write_expr(out, stride);
                    }
                    return;
                }
            }
            printer.write_expr(out, index);
        });
    }

    /// How tightly the printed form of `expr` binds: decides parentheses
    /// before the child is written.
    fn precedence_of(&self, expr: &Expr) -> Precedence {
        match expr.kind() {
            ExprKind::Binary(op, a, b) => match op {
                BinaryOp::Mod | BinaryOp::Min | BinaryOp::Max => Precedence::Identity,
                BinaryOp::Div if a.dtype().is_integer() && b.dtype().is_integer() => {
                    Precedence::Identity
                }
                _ if rebuilds_unchanged(*op, a, b) => operator_symbol(*op).1,
                _ => Precedence::Identity,
            },
            ExprKind::Not(value) if !value.is_const() => Precedence::Not,
            ExprKind::Call { op, args } => match call_operator(op.name()) {
                Some((_, precedence)) if args.len() == 2 => precedence,
                _ if op.name() == "bitwise_not" && args.len() == 1 => Precedence::Unary,
                _ => Precedence::Identity,
            },
            ExprKind::Load(load)
                if self.scalars.contains(&load.buffer)
                    && super::stmt::is_first_element(&load.indices) =>
            {
                Precedence::Identity
            }
            _ => Precedence::Identity,
        }
    }

    /// Writes a child, parenthesised when it binds more loosely than its parent
    /// (or equally, for the right operand of a left-associative operator).
    fn write_child(
        &mut self,
        out: &mut String,
        expr: &Expr,
        parent: Precedence,
        parens_on_equal: bool,
    ) {
        let precedence = self.precedence_of(expr);
        let parens = precedence < parent || (parens_on_equal && precedence == parent);
        if parens {
            out.push('(');
        }
        self.write_expr(out, expr);
        if parens {
            out.push(')');
        }
    }

    /// Writes `name(a, b)`.
    fn write_call(&mut self, out: &mut String, name: &str, args: &[Expr]) {
        out.push_str(name);
        out.push('(');
        self.write_list(out, args);
        out.push(')');
    }

    /// Writes an expression.
    pub(crate) fn write_expr(&mut self, out: &mut String, expr: &Expr) {
        match expr.kind() {
            ExprKind::Var(var) => match self.names.var(var) {
                Some(name) => out.push_str(name),
                None => out.push_str(&super::names::sanitized(var.name())),
            },
            ExprKind::Int(value) => write_int_literal(out, *value, expr.dtype()),
            ExprKind::Float(value) => {
                let _ = write!(out, "T.{}({})", expr.dtype(), format_float(*value));
            }
            ExprKind::Str(text) => write_quoted(out, text),
            ExprKind::Cast(value) => {
                let _ = write!(out, "T.Cast(\"{}\", ", expr.dtype());
                self.write_expr(out, value);
                out.push(')');
            }
            ExprKind::Binary(op, a, b) => self.write_binary(out, *op, a, b),
            ExprKind::Not(value) => {
                if value.is_const() {
                    self.write_call(out, "T.Not", std::slice::from_ref(value));
                } else {
                    out.push_str("not ");
                    self.write_child(out, value, Precedence::Not, false);
                }
            }
            ExprKind::Select(c, a, b) => {
                self.write_call(out, "T.Select", &[c.clone(), a.clone(), b.clone()])
            }
            ExprKind::Load(load)
                if self.scalars.contains(&load.buffer)
                    && super::stmt::is_first_element(&load.indices) =>
            {
                self.write_buffer_name(out, &load.buffer);
            }
            ExprKind::Load(load) => {
                self.write_buffer_name(out, &load.buffer);
                out.push('[');
                if load.indices.is_empty() {
                    out.push_str("()");
                } else {
                    self.write_list(out, &load.indices);
                }
                out.push(']');
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                out.push_str("T.Ramp(");
                self.write_expr(out, base);
                out.push_str(", ");
                self.write_expr(out, stride);
                let _ = write!(out, ", {lanes})");
            }
            ExprKind::Broadcast { value, lanes } => {
                out.push_str("T.Broadcast(");
                self.write_expr(out, value);
                let _ = write!(out, ", {lanes})");
            }
            ExprKind::Let { var, value, body } => {
                out.push_str("T.Let(");
                self.write_expr(out, body);
                out.push_str(", where={");
                self.write_expr(out, &var.to_expr());
                out.push_str(": ");
                self.write_expr(out, value);
                out.push_str("})");
            }
            ExprKind::Call { op, args } => self.write_builtin_call(out, expr, *op, args),
            ExprKind::CallFunction { name, args } => {
                let module = self
                    .module_name
                    .clone()
                    .unwrap_or_else(|| "Module".to_string());
                let _ = write!(out, "{module}.{name}");
                out.push('(');
                self.write_list(out, args);
                out.push(')');
            }
            ExprKind::Shuffle { vectors, indices } => {
                out.push_str("T.Shuffle([");
                self.write_list(out, vectors);
                out.push_str("], [");
                self.write_list(out, indices);
                out.push_str("])");
            }
        }
    }

    fn write_builtin_call(
        &mut self,
        out: &mut String,
        expr: &Expr,
        op: crate::ir::Op,
        args: &[Expr],
    ) {
        if let Some((symbol, precedence)) = call_operator(op.name()) {
            if args.len() == 2 {
                self.write_child(out, &args[0], precedence, false);
                let _ = write!(out, " {symbol} ");
                self.write_child(out, &args[1], precedence, true);
                return;
            }
        }
        // `T.if_then_else` with a constant condition would fold when parsed:
        // the generic intrinsic call keeps the node.
        if op.name() == "if_then_else" && args.first().is_some_and(|c| c.is_const()) {
            let _ = write!(
                out,
                "T.call_intrin(\"{}\", \"{}\", ",
                expr.dtype(),
                op.info().tvm_name
            );
            self.write_list(out, args);
            out.push(')');
            return;
        }
        if op.name() == "bitwise_not" && args.len() == 1 {
            out.push('~');
            self.write_child(out, &args[0], Precedence::Unary, false);
            return;
        }
        let _ = write!(out, "T.{}(", op.name());
        let mut first = true;
        let mut separator = |out: &mut String| {
            if !first {
                out.push_str(", ");
            }
            first = false;
        };
        if op.info().dtype_position == DtypePosition::First {
            separator(out);
            let _ = write!(out, "\"{}\"", expr.dtype());
        }
        for arg in args {
            separator(out);
            self.write_expr(out, arg);
        }
        if op.info().dtype_position == DtypePosition::Last {
            separator(out);
            let _ = write!(out, "\"{}\"", expr.dtype());
        }
        out.push(')');
    }

    fn write_binary(&mut self, out: &mut String, op: BinaryOp, a: &Expr, b: &Expr) {
        let pair = [a.clone(), b.clone()];
        // The folding functions print only when parsing them rebuilds this very
        // node; otherwise the node constructor (`T.Min`) keeps the round trip.
        let unchanged = rebuilds_unchanged(op, a, b);
        let name = match op {
            BinaryOp::Mod => Some(if unchanged { "T.truncmod" } else { "T.Mod" }),
            BinaryOp::Min => Some(if unchanged { "T.min" } else { "T.Min" }),
            BinaryOp::Max => Some(if unchanged { "T.max" } else { "T.Max" }),
            BinaryOp::Div if a.dtype().is_integer() && b.dtype().is_integer() => Some("T.Div"),
            _ if !unchanged => None,
            _ => {
                let (symbol, precedence) = operator_symbol(op);
                self.write_child(out, a, precedence, false);
                out.push(' ');
                out.push_str(symbol);
                out.push(' ');
                self.write_child(out, b, precedence, true);
                return;
            }
        };
        match name {
            Some(name) => self.write_call(out, name, &pair),
            None => {
                let name = format!("T.{}", op.tvm_name());
                self.write_call(out, &name, &pair);
            }
        }
    }
}

/// Appends `value` in decimal; int32 literals are most of what is printed,
/// and this skips the formatting machinery.
pub(crate) fn write_decimal(out: &mut String, value: i64) {
    let mut digits = [0u8; 20];
    let mut position = digits.len();
    let mut magnitude = value.unsigned_abs();
    loop {
        position -= 1;
        digits[position] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if value < 0 {
        out.push('-');
    }
    for &digit in &digits[position..] {
        out.push(digit as char);
    }
}

fn write_int_literal(out: &mut String, value: i64, dtype: DataType) {
    if dtype == DataType::int32() {
        write_decimal(out, value);
    } else if dtype.is_bool() {
        out.push_str(if value != 0 {
            "T.bool(True)"
        } else {
            "T.bool(False)"
        });
    } else if dtype.is_uint() && dtype.bits == 64 {
        let _ = write!(out, "T.{dtype}({})", value as u64);
    } else {
        let _ = write!(out, "T.{dtype}({value})");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_match_display() {
        for value in [0, 7, -7, 10, 1234567890, i64::MAX, i64::MIN, -1] {
            let mut out = String::new();
            write_decimal(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }

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
