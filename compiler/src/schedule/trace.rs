//! The trace of applied primitives, printed as TVM 0.27 prints
//! `sch.trace` (`def apply_trace(sch: s_tir.Schedule) -> None:`), so that it
//! runs in TVM as it is.
//!
//! Every loop or block a primitive returns, and every integer a sampling
//! instruction draws, is a random variable (`Rv`); the printer names them
//! from one counter in order of appearance: `b0`, `l1`, `v2`, ... (`b` for
//! blocks, `l` for loops, `v` for sampled integers), as TVM does.

use super::state::SRefKind;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A loop, block or sampled integer returned by a primitive: an index into
/// the run's table.
pub type Rv = usize;

/// What a random variable stands for, which names it in a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RvKind {
    /// A loop (`l3`).
    Loop,
    /// A block (`b0`).
    Block,
    /// An integer a sampling instruction drew (`v4`; TVM's `ExprRV`).
    Expr,
}

impl From<SRefKind> for RvKind {
    fn from(kind: SRefKind) -> RvKind {
        match kind {
            SRefKind::Loop => RvKind::Loop,
            SRefKind::Block => RvKind::Block,
        }
    }
}

/// An argument of a recorded call.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceArg {
    /// A loop or block returned earlier.
    Rv(Rv),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string, printed quoted.
    Str(String),
    /// A bool.
    Bool(bool),
    /// `None`.
    None,
    /// A list.
    List(Vec<TraceArg>),
    /// A dict with string keys (printed sorted by key, as TVM does).
    Dict(Vec<(String, TraceArg)>),
    /// A tuple (`("write", 0)`), printed with parentheses.
    Tuple(Vec<TraceArg>),
    /// Python source printed as it is (an index map's `lambda`).
    Source(String),
}

/// What a recorded call returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Outputs {
    /// Nothing.
    Nothing,
    /// One loop or block: `l4 = sch.fuse(...)`.
    Single(Rv),
    /// A list: `l1, l2 = ...`, or `b1, = ...` for one element.
    List(Vec<Rv>),
}

/// One recorded call.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// The method of `sch` as TVM 0.27 names it (`get_sblock`, `split`).
    pub method: &'static str,
    /// The arguments in TVM's order, with their keyword (`None`: positional).
    pub args: Vec<(Option<&'static str>, TraceArg)>,
    /// What it returned.
    pub outputs: Outputs,
}

/// The calls applied so far, with the kind of every random variable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The calls in order.
    pub instructions: Vec<Instruction>,
    /// The kind of each random variable, by index.
    pub rv_kinds: Vec<RvKind>,
}

impl Trace {
    /// A new random variable of the given kind.
    pub fn new_rv(&mut self, kind: impl Into<RvKind>) -> Rv {
        self.rv_kinds.push(kind.into());
        self.rv_kinds.len() - 1
    }

    /// The trace as TVM prints it: the `# from tvm import s_tir` line, the
    /// `def apply_trace` line and the calls indented by two spaces (no
    /// trailing newline).
    pub fn to_python(&self) -> String {
        self.to_python_in(crate::printer::Dialect::Tirx)
    }

    /// The trace in a dialect's spelling: TVM 0.27's (`s_tir`,
    /// `get_sblock`) for tirx, TVM 0.20's (`tir`, `get_block`) for classic.
    pub fn to_python_in(&self, dialect: crate::printer::Dialect) -> String {
        let classic = dialect == crate::printer::Dialect::Classic;
        let mut out = String::from(if classic {
            "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:"
        } else {
            "# from tvm import s_tir\ndef apply_trace(sch: s_tir.Schedule) -> None:"
        });
        if self.instructions.is_empty() {
            out.push_str("\n  pass");
            return out;
        }
        let mut names: HashMap<Rv, String> = HashMap::new();
        let mut counter = 0usize;
        let mut name_of = |rv: Rv, names: &mut HashMap<Rv, String>| -> String {
            names
                .entry(rv)
                .or_insert_with(|| {
                    let prefix = match self.rv_kinds.get(rv) {
                        Some(RvKind::Loop) => 'l',
                        Some(RvKind::Expr) => 'v',
                        _ => 'b',
                    };
                    let name = format!("{prefix}{counter}");
                    counter += 1;
                    name
                })
                .clone()
        };
        for instruction in &self.instructions {
            // Inputs were named when they were returned; outputs get the next names.
            let args: Vec<String> = instruction
                .args
                .iter()
                .map(|(keyword, arg)| {
                    let value = format_arg(arg, &names);
                    match keyword {
                        Some(k) => format!("{k}={value}"),
                        None => value,
                    }
                })
                .collect();
            out.push_str("\n  ");
            match &instruction.outputs {
                Outputs::Nothing => {}
                Outputs::Single(rv) => {
                    let name = name_of(*rv, &mut names);
                    let _ = write!(out, "{name} = ");
                }
                Outputs::List(rvs) if rvs.is_empty() => {}
                Outputs::List(rvs) => {
                    let list: Vec<String> = rvs.iter().map(|rv| name_of(*rv, &mut names)).collect();
                    if list.len() == 1 {
                        let _ = write!(out, "{}, = ", list[0]);
                    } else {
                        let _ = write!(out, "{} = ", list.join(", "));
                    }
                }
            }
            let method = match instruction.method {
                "get_sblock" if classic => "get_block",
                method => method,
            };
            let _ = write!(out, "sch.{method}({})", args.join(", "));
        }
        out
    }
}

fn format_arg(arg: &TraceArg, names: &HashMap<Rv, String>) -> String {
    match arg {
        TraceArg::Rv(rv) => names.get(rv).cloned().unwrap_or_else(|| format!("_{rv}")),
        TraceArg::Int(v) => v.to_string(),
        TraceArg::Float(v) => python_float(*v),
        TraceArg::Str(s) => python_string(s),
        TraceArg::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        TraceArg::None => "None".to_string(),
        TraceArg::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| format_arg(i, names))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TraceArg::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|i| format_arg(i, names)).collect();
            match items.as_slice() {
                [one] => format!("({one},)"),
                _ => format!("({})", items.join(", ")),
            }
        }
        TraceArg::Source(text) => text.clone(),
        TraceArg::Dict(items) => {
            let mut sorted: Vec<&(String, TraceArg)> = items.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            format!(
                "{{{}}}",
                sorted
                    .iter()
                    .map(|(k, v)| format!("{}: {}", python_string(k), format_arg(v, names)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

/// A float as Python's `repr` writes it (so the trace reads back the same value).
pub fn python_float(value: f64) -> String {
    if value.is_nan() {
        return "float(\"nan\")".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "float(\"inf\")"
        } else {
            "float(\"-inf\")"
        }
        .to_string();
    }
    // Rust's `Debug` picks the same digits and the same switch to scientific
    // notation as Python's `repr`; Python writes the exponent with a sign and
    // at least two digits.
    let text = format!("{value:?}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let sign = if exponent < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", exponent.abs())
        }
        None => text,
    }
}

/// A string literal in double quotes, as TVM prints trace strings.
pub fn python_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_one_counter_across_kinds() {
        let mut trace = Trace::default();
        let b0 = trace.new_rv(SRefKind::Block);
        trace.instructions.push(Instruction {
            method: "get_sblock",
            args: vec![
                (Some("name"), TraceArg::Str("C".into())),
                (Some("func_name"), TraceArg::Str("main".into())),
            ],
            outputs: Outputs::Single(b0),
        });
        let loops: Vec<Rv> = (0..3).map(|_| trace.new_rv(SRefKind::Loop)).collect();
        trace.instructions.push(Instruction {
            method: "get_loops",
            args: vec![(Some("block"), TraceArg::Rv(b0))],
            outputs: Outputs::List(loops.clone()),
        });
        let child = trace.new_rv(SRefKind::Block);
        trace.instructions.push(Instruction {
            method: "get_child_blocks",
            args: vec![(None, TraceArg::Rv(loops[0]))],
            outputs: Outputs::List(vec![child]),
        });
        trace.instructions.push(Instruction {
            method: "annotate",
            args: vec![
                (Some("block_or_loop"), TraceArg::Rv(child)),
                (Some("ann_key"), TraceArg::Str("k".into())),
                (
                    Some("ann_val"),
                    TraceArg::Dict(vec![
                        ("b".into(), TraceArg::Float(0.5)),
                        (
                            "a".into(),
                            TraceArg::List(vec![TraceArg::Int(1), TraceArg::None]),
                        ),
                    ]),
                ),
            ],
            outputs: Outputs::Nothing,
        });
        assert_eq!(
            trace.to_python(),
            "# from tvm import s_tir\ndef apply_trace(sch: s_tir.Schedule) -> None:\n  b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n  l1, l2, l3 = sch.get_loops(block=b0)\n  b4, = sch.get_child_blocks(l1)\n  sch.annotate(block_or_loop=b4, ann_key=\"k\", ann_val={\"a\": [1, None], \"b\": 0.5})"
        );
    }

    #[test]
    fn empty_trace_is_pass() {
        assert!(Trace::default().to_python().ends_with(":\n  pass"));
        assert!(Trace::default()
            .to_python_in(crate::printer::Dialect::Classic)
            .starts_with("# from tvm import tir\ndef apply_trace(sch: tir.Schedule)"));
    }

    #[test]
    fn floats_print_as_python_repr() {
        assert_eq!(python_float(0.25), "0.25");
        assert_eq!(python_float(1.0), "1.0");
        assert_eq!(python_float(1e20), "1e+20");
        assert_eq!(python_float(1.5e-7), "1.5e-07");
    }
}
