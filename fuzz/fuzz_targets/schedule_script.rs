//! Random schedule sections on real programs. The input bytes are a random
//! stream: they pick one of the seed programs below (cases of
//! `tests/schedule/` with their schedule sections cut off) and write a
//! schedule section of 1 to 12 calls of primitives drawn from
//! `tirc::schedule::primitive::all()` (so a new primitive is fuzzed as soon as
//! it is in the table), with handles of the program's real blocks and loops,
//! made-up names and wrong values for every parameter. The schedule then
//! runs through `apply_schedule`, and:
//!
//! - nothing panics;
//! - every step that changed the program leaves a module the verifier
//!   accepts, that prints and reads back unchanged (`step_check`, as the
//!   golden schedule tests check every step);
//! - a run that stops has exactly one error diagnostic (a schedule code
//!   `E03xx`) and its module is the last applied step's
//!   (or the program's, when no step applied); a run that does not stop has
//!   no error;
//! - the trace of the applied steps, run again on the program, gives the
//!   same module.
//!
//! A violated property panics with the generated `.tir` text. Set
//! `TIRC_FUZZ_PRINT=1` to print the text of every input run (to decode an
//! artifact: `cargo fuzz run schedule_script -s none ARTIFACT`), and
//! `TIRC_FUZZ_SKIP=blockize,split` to leave primitives out (to fuzz past a
//! known bug).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tirc::frontend::{parse_program, Program};
use tirc::ir::structural::module_equal;
use tirc::schedule::primitive::{self, Param, Primitive};
use tirc::schedule::{apply_schedule, step_check};
use tirc::source::SourceMap;

/// Index maps for `transform_layout`: layouts that fit the seed programs'
/// buffers, ones that pad, shift or fold them, and wrong arities.
const INDEX_MAPS: &[&str] = &[
    "lambda i, j: (j, i)",
    "lambda i, j: (i // 16, j // 16, i % 16, j % 16)",
    "lambda i, j: (i, j // 8, j % 8)",
    "lambda i, j: (i // 10, j, i % 10)",
    "lambda i: (i // 4, i % 4)",
    "lambda n, c, h, w: (n, h, w, c)",
    "lambda n, h, w, c: (n, c // 4, h, w, c % 4)",
    "lambda i, j: (i + 1, j)",
    "lambda i, j: (i * 2, j)",
    "lambda i, j: (i + j, j)",
    "lambda i, j, k: (k, j, i)",
    "lambda i, j: i",
    "T.index_map(lambda i, j: (j, i))",
];

/// Iterator orders for `reorder_block_iter_var`: permutations of the seed
/// blocks' one to four iterators, and ones that are not.
const ITER_ORDERS: &[&str] = &[
    "[1, 0]",
    "[0, 1]",
    "[2, 0, 1]",
    "[1, 2, 0]",
    "[0, 2, 1]",
    "[3, 2, 1, 0]",
    "[0, 1, 3, 2]",
    "[0]",
    "[]",
    "[0, 0]",
    "[0, 1, 5]",
];

/// Region maps for `annotate_buffer_access`: points, halos, tiles, wrong
/// arities and a pair of three.
const RANGE_MAPS: &[&str] = &[
    "lambda i, j: (i, j)",
    "lambda i, j: ((i - 1, i + 2), j)",
    "lambda i, j: ((i // 4 * 4, i // 4 * 4 + 4), (j, j + 8))",
    "lambda i, j, k: (i, (j, j + 1), k)",
    "lambda i, j, k: ((i, i + 2), j, (k - 1, k))",
    "lambda i: ((i, i + 1),)",
    "lambda n, c, h, w: (n, c, (h, h + 3), (w, w + 3))",
    "lambda i, j: ((i, i + 1, i + 2), j)",
];

/// Types for `unsafe_set_dtype`, and names that are not types.
const DTYPES: &[&str] = &[
    "\"float16\"",
    "\"float64\"",
    "\"float32\"",
    "\"int32\"",
    "\"bfloat16\"",
    "\"int8\"",
    "\"half\"",
];

/// Buffer names for `transform_layout`: the seed programs' and a made-up one.
const BUFFER_NAMES: &[&str] = &["\"A\"", "\"B\"", "\"C\"", "\"D\"", "\"pad\"", "\"X\"", "\"Y\"", "\"nope\""];

/// The seed programs: schedule cases whose schedule sections are cut off.
const SEEDS: &[&str] = &[
    // A 64^3 matmul with a bias and relu epilogue.
    include_str!("../../tests/schedule/chain_cpu_matmul_bias_relu.tir"),
    // An int8 matmul accumulating in int32.
    include_str!("../../tests/schedule/decompose_reduction_i8.tir"),
    // conv2d NCHW with a padding block and a relu epilogue.
    include_str!("../../tests/schedule/chain_conv2d_nchw_pad_compute_at.tir"),
    // Depthwise conv2d NHWC with padding.
    include_str!("../../tests/schedule/chain_dwconv_cpu.tir"),
    // Softmax: two reductions and two elementwise blocks.
    include_str!("../../tests/schedule/chain_softmax_cpu_rows.tir"),
    // Row sum.
    include_str!("../../tests/schedule/rfactor_rowsum_factor0.tir"),
    // Three elementwise blocks in a chain.
    include_str!("../../tests/schedule/compute_inline_chain_three_both.tir"),
    // A transposing consumer.
    include_str!("../../tests/schedule/compute_at_transpose.tir"),
    // A matmul with a symbolic row count and an epilogue.
    include_str!("../../tests/schedule/chain_cpu_matmul_symbolic_tile.tir"),
    // An elementwise block over two symbolic extents.
    include_str!("../../tests/schedule/symbolic_split_fuse.tir"),
    // Layer norm: reductions, a loop-free-axis block, elementwise.
    include_str!("../../tests/schedule/chain_layernorm_gpu.tir"),
    // Max pooling with stride 2 and padding.
    include_str!("../../tests/schedule/chain_maxpool_inline_pad.tir"),
    // int64 extents.
    include_str!("../../tests/schedule/int64_split_fuse.tir"),
    // Average pooling: a reduction then a scale.
    include_str!("../../tests/schedule/chain_avgpool.tir"),
];

/// The module of a seed: the text before its first schedule `def`.
fn module_text(seed: &str) -> &str {
    let mut end = seed.len();
    let mut offset = 0;
    for line in seed.split_inclusive('\n') {
        if line.starts_with("def ") {
            end = offset;
            break;
        }
        offset += line.len();
    }
    seed[..end].trim_end()
}

/// The blocks of a program (`with T.block("C"):`, `T.sblock`) and how many
/// loops are around each: the names of the `for` line above it (the seeds
/// have one `for` line per loop nest).
fn blocks(text: &str) -> Vec<(String, usize)> {
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut loops = 0;
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("for ") {
            loops = rest.split(" in ").next().map_or(1, |names| names.split(',').count());
        }
        for marker in ["with T.block(\"", "with T.sblock(\""] {
            if let Some(rest) = line.strip_prefix(marker) {
                if let Some(end) = rest.find('"') {
                    let name = rest[..end].to_string();
                    if !found.iter().any(|(n, _)| *n == name) {
                        found.push((name, loops));
                    }
                }
            }
        }
    }
    found
}

/// The fuzz input read as a stream of random choices (zeros once it runs out).
struct Stream<'a> {
    data: &'a [u8],
    at: usize,
}

impl Stream<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number in `0..n` (`n` at most 65536).
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let value = if n <= 256 {
            self.byte() as usize
        } else {
            (self.byte() as usize) << 8 | self.byte() as usize
        };
        value % n
    }

    /// True `percent` times in a hundred; false once the input runs out.
    fn chance(&mut self, percent: usize) -> bool {
        self.at < self.data.len() && self.below(100) < percent
    }

    fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[self.below(items.len())]
    }
}

/// What a name of the schedule should hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A block, with the number of loops around it when known.
    Block(Option<usize>),
    Loop,
    List,
    Other,
}

impl Kind {
    fn same(self, other: Kind) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }
}

const SCOPES: &[&str] = &[
    "\"shared\"",
    "\"local\"",
    "\"global\"",
    "\"shared.dyn\"",
    "\"sharde\"",
    "\"\"",
    "\"warp\"",
    "\"local.fragment\"",
];

const THREADS: &[&str] = &[
    "\"blockIdx.x\"",
    "\"blockIdx.y\"",
    "\"threadIdx.x\"",
    "\"threadIdx.y\"",
    "\"vthread.x\"",
    "\"vthread\"",
    "\"threadIdx.w\"",
    "\"\"",
];

const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "8",
    "16",
    "-1",
    "-2",
    "-7",
    "7",
    "1000",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "99999999999999999999",
];

const KEYS: &[&str] = &[
    "\"pragma_auto_unroll_max_step\"",
    "\"pragma_unroll_explicit\"",
    "\"k\"",
    "\"\"",
    "\"meta_schedule.tiling_structure\"",
    "\"software_pipeline_stage\"",
];

/// Writes one schedule section.
struct Generator<'a, 's> {
    input: &'a mut Stream<'s>,
    /// The program's blocks and the loops around each.
    blocks: Vec<(String, usize)>,
    /// The names the schedule has assigned, with what they should hold.
    vars: Vec<(String, Kind)>,
    counter: usize,
    /// How often a value is wrong on purpose, in percent (per input).
    chaos: usize,
    lines: Vec<String>,
}

impl Generator<'_, '_> {
    fn fresh(&mut self, prefix: &str, kind: Kind) -> String {
        self.counter += 1;
        let name = format!("{prefix}{}", self.counter);
        self.vars.push((name.clone(), kind));
        name
    }

    /// True when a value should be wrong on purpose.
    fn wrong(&mut self) -> bool {
        self.input.chance(self.chaos)
    }

    /// A variable of `kind`, preferring recent ones.
    fn var_of(&mut self, kind: Kind) -> Option<(String, Kind)> {
        let matching: Vec<&(String, Kind)> =
            self.vars.iter().filter(|(_, k)| k.same(kind)).collect();
        if matching.is_empty() {
            return None;
        }
        let back = self.input.below(matching.len().min(4));
        Some(matching[matching.len() - 1 - back].clone())
    }

    fn var_name(&mut self, kind: Kind) -> Option<String> {
        self.var_of(kind).map(|(name, _)| name)
    }

    fn any_var(&mut self) -> Option<String> {
        if self.vars.is_empty() {
            return None;
        }
        let i = self.input.below(self.vars.len());
        Some(self.vars[i].0.clone())
    }

    /// A block name as a string literal, and the loops around the block
    /// when it is one of the program's.
    fn block_name(&mut self) -> (String, Option<usize>) {
        if !self.blocks.is_empty() && !self.wrong() {
            let (name, loops) = self.blocks[self.input.below(self.blocks.len())].clone();
            return (format!("\"{name}\""), Some(loops));
        }
        if !self.blocks.is_empty() && self.input.chance(60) {
            // Names later steps create: caches, rfactor and init blocks.
            let i = self.input.below(self.blocks.len());
            let suffix = self.input.pick(&[
                "_rf", "_init", "_local", "_shared", "_global", "_o", "_update", "_l",
            ]);
            return (format!("\"{}{suffix}\"", self.blocks[i].0), None);
        }
        let name = self
            .input
            .pick(&["\"root\"", "\"nope\"", "\"\"", "\"A_shared\"", "\"C\"", "7"]);
        (name.to_string(), None)
    }

    /// An expression that should be a block, and the loops around it when known.
    fn block_expr(&mut self) -> (String, Option<usize>) {
        if self.wrong() {
            return match self.input.below(4) {
                0 => (self.list_item(Kind::Block(None)), None),
                1 => (self.var_name(Kind::Loop).unwrap_or_else(|| "nope".to_string()), None),
                2 => (self.any_var().unwrap_or_else(|| "nope".to_string()), None),
                _ => (self.wrong_value(), None),
            };
        }
        if !self.input.chance(15) {
            if let Some((name, Kind::Block(loops))) = self.var_of(Kind::Block(None)) {
                return (name, loops);
            }
        }
        let (name, loops) = self.block_name();
        (format!("sch.get_block({name})"), loops)
    }

    /// An item of a list variable (`ls[2]`, `ls[-1]`), or of the loops of a
    /// block (`sch.get_loops(b)[0]`) when there is no list yet.
    fn list_item(&mut self, fallback: Kind) -> String {
        let index = if self.wrong() {
            self.input.pick(&["5", "9", "-9", "None"])
        } else {
            self.input.pick(&["0", "1", "2", "-1", "-2", "0", "1", "-1"])
        };
        match self.var_name(Kind::List) {
            Some(list) => format!("{list}[{index}]"),
            None => match self.var_name(fallback) {
                Some(var) => var,
                None => {
                    let block = match self.var_name(Kind::Block(None)) {
                        Some(var) => var,
                        None => format!("sch.get_block({})", self.block_name().0),
                    };
                    format!("sch.get_loops({block})[{index}]")
                }
            },
        }
    }

    /// An expression that should be a loop.
    fn loop_expr(&mut self) -> String {
        if self.wrong() {
            return match self.input.below(3) {
                0 => self.var_name(Kind::Block(None)).unwrap_or_else(|| "nope".to_string()),
                1 => self.any_var().unwrap_or_else(|| "nope".to_string()),
                _ => self.wrong_value(),
            };
        }
        if self.input.chance(75) {
            if let Some(v) = self.var_name(Kind::Loop) {
                return v;
            }
        }
        self.list_item(Kind::Loop)
    }

    fn int(&mut self) -> String {
        if self.wrong() {
            self.input.pick(INTS).to_string()
        } else {
            self.input.pick(&["0", "1", "2", "-1", "3", "0", "1", "-1"]).to_string()
        }
    }

    fn factor(&mut self) -> String {
        if self.wrong() {
            return if self.input.chance(50) {
                self.input.pick(&["0", "-1", "1000", "2147483648", "99999999999999999999", "3"])
                    .to_string()
            } else {
                self.wrong_value()
            };
        }
        self.input
            .pick(&["None", "1", "2", "4", "8", "16", "32", "3", "5", "7", "64"])
            .to_string()
    }

    /// A factors list, and how many factors it has.
    fn factors(&mut self) -> (String, usize) {
        if self.wrong() && self.input.chance(30) {
            return match self.input.below(3) {
                0 => ("[]".to_string(), 0),
                1 => ("[None, None]".to_string(), 2),
                _ => (self.wrong_value(), 2),
            };
        }
        let count = 2 + self.input.below(3) - usize::from(self.input.chance(5));
        let items: Vec<String> = (0..count).map(|_| self.factor()).collect();
        let open = if self.input.chance(10) { ("(", ")") } else { ("[", "]") };
        (format!("{}{}{}", open.0, items.join(", "), open.1), count)
    }

    fn list_of_blocks(&mut self) -> String {
        if self.input.chance(20) {
            return self.var_name(Kind::List).unwrap_or_else(|| "[]".to_string());
        }
        let count = self.input.below(4);
        let items: Vec<String> = (0..count).map(|_| self.block_expr().0).collect();
        format!("[{}]", items.join(", "))
    }

    /// A value of any type, usually not what the parameter takes.
    fn wrong_value(&mut self) -> String {
        match self.input.below(14) {
            0 => "None".to_string(),
            1 => "True".to_string(),
            2 => "False".to_string(),
            3 => self.input.pick(INTS).to_string(),
            4 => self.input.pick(SCOPES).to_string(),
            5 => "2.5".to_string(),
            6 => "[]".to_string(),
            7 => "[1, 2]".to_string(),
            8 => "{\"a\": 1}".to_string(),
            9 => "(1, None)".to_string(),
            10 => self.any_var().unwrap_or_else(|| "None".to_string()),
            11 => "nope".to_string(),
            12 => "-(3)".to_string(),
            _ => self.input.pick(THREADS).to_string(),
        }
    }

    fn annotation_value(&mut self) -> String {
        match self.input.below(8) {
            0..=2 => self.int(),
            3 => "\"s\"".to_string(),
            4 => "[1, 2]".to_string(),
            5 => "True".to_string(),
            6 => "2.5".to_string(),
            _ => self.wrong_value(),
        }
    }

    /// A value for a parameter, usually of the kind it takes, by its name,
    /// declared kind and default.
    fn argument(&mut self, param: &Param) -> String {
        if self.input.chance(self.chaos / 3) {
            return self.wrong_value();
        }
        let name = param.name;
        match name {
            "factors" => return self.factors().0,
            "storage_scope" | "scope" => {
                return if self.wrong() {
                    self.input.pick(SCOPES).to_string()
                } else {
                    self.input.pick(&SCOPES[..4]).to_string()
                }
            }
            "thread_axis" => return self.input.pick(THREADS).to_string(),
            "ann_key" => return self.input.pick(KEYS).to_string(),
            "ann_val" => return self.annotation_value(),
            "name" => return self.block_name().0,
            "func_name" => {
                return if self.wrong() {
                    self.input.pick(&["\"nope\"", "1", "\"\""]).to_string()
                } else {
                    self.input.pick(&["\"main\"", "None"]).to_string()
                }
            }
            "index_map" => return self.input.pick(INDEX_MAPS).to_string(),
            "new_order" => return self.input.pick(ITER_ORDERS).to_string(),
            "gen_new_ranges" => return self.input.pick(RANGE_MAPS).to_string(),
            "dtype" => return self.input.pick(DTYPES).to_string(),
            "buf_type" => {
                return self
                    .input
                    .pick(&["\"read\"", "\"write\"", "\"read\"", "\"both\""])
                    .to_string()
            }
            "buf_index_array" => {
                return self
                    .input
                    .pick(&["[0]", "[1]", "[0, 1]", "[]", "[1, 0, 1]", "[3]", "[-1]"])
                    .to_string()
            }
            "buffer" => {
                return match self.input.below(3) {
                    0 => format!("(\"read\", {})", self.int()),
                    1 => format!("(\"write\", {})", self.int()),
                    _ => self.input.pick(BUFFER_NAMES).to_string(),
                }
            }
            "consumer_blocks" => {
                return if self.input.chance(30) {
                    "None".to_string()
                } else {
                    self.list_of_blocks()
                }
            }
            _ => {}
        }
        if name.contains("block_or_loop") || name == "target" {
            return if self.input.chance(50) {
                self.loop_expr()
            } else {
                self.block_expr().0
            };
        }
        if name.contains("loop") && name.contains("preserve") {
            return self.input.pick(&["True", "False", "True", "False", "1"]).to_string();
        }
        if name.contains("loop") {
            return self.loop_expr();
        }
        if name.contains("block") {
            return self.block_expr().0;
        }
        if param.kind == Some("int")
            || ["index", "axis", "factor", "offset"]
                .iter()
                .any(|n| name.contains(n))
        {
            return self.int();
        }
        match param.default {
            Some("True") | Some("False") => {
                return self.input.pick(&["True", "False", "True", "False", "1"]).to_string()
            }
            Some(default) if default.parse::<i64>().is_ok() => return self.int(),
            _ => {}
        }
        if param.kind == Some("str") {
            return self.input.pick(SCOPES).to_string();
        }
        if param.kind == Some("list") {
            return self.list_of_blocks();
        }
        self.wrong_value()
    }

    /// A call of `primitive`, as `sch.NAME(...)`, and the split's factor count.
    fn call(&mut self, primitive: &Primitive) -> (String, Option<usize>) {
        let names: Vec<&str> = primitive.names().collect();
        let method = names[self.input.below(names.len())];
        let mut positional: Vec<String> = Vec::new();
        let mut keywords: Vec<String> = Vec::new();
        let mut split_arity = None;
        for param in primitive.params {
            let required = param.default.is_none();
            // Leave out a required one now and then, and most optional ones:
            // what follows a left-out one goes by keyword.
            let leave_out = if required {
                self.input.chance(self.chaos / 4)
            } else {
                self.input.chance(60)
            };
            if leave_out {
                if required {
                    positional.push(String::new()); // marks the gap
                }
                continue;
            }
            let value = if param.name == "factors" {
                let (text, count) = self.factors();
                split_arity = Some(count);
                text
            } else {
                self.argument(param)
            };
            let gap = positional.iter().any(String::is_empty) || !keywords.is_empty();
            if gap || self.input.chance(20) {
                keywords.push(format!("{}={value}", param.name));
            } else {
                positional.push(value);
            }
        }
        positional.retain(|a| !a.is_empty());
        if primitive.varargs.is_some() {
            if self.input.chance(10) && self.var_name(Kind::List).is_some() {
                let list = self.var_name(Kind::List).unwrap_or_default();
                positional.push(format!("*{list}"));
            } else {
                let count = 1 + self.input.below(4) - usize::from(self.wrong());
                for _ in 0..count {
                    positional.push(self.loop_expr());
                }
            }
        }
        for param in primitive.keyword_only {
            if self.input.chance(40) {
                let value = self.argument(param);
                keywords.push(format!("{}={value}", param.name));
            }
        }
        // Now and then a stray argument.
        if self.wrong() && self.input.chance(20) {
            if self.input.chance(50) {
                keywords.push("bogus=1".to_string());
            } else {
                let value = self.wrong_value();
                positional.push(value);
            }
        }
        positional.extend(keywords);
        (format!("sch.{method}({})", positional.join(", ")), split_arity)
    }

    /// What a call of a primitive returns, by its name (`None` for a split).
    fn result_kind(name: &str) -> Option<Kind> {
        match name {
            "split" => None,
            "fuse" | "add_unit_loop" => Some(Kind::Loop),
            "get_sblock" | "cache_read" | "cache_write" | "rfactor" | "blockize"
            | "decompose_reduction" | "decompose_padding" | "read_at" | "write_at" => {
                Some(Kind::Block(None))
            }
            "get_loops" | "get_child_blocks" | "get_producers" | "get_consumers"
            | "get_output_blocks" | "cache_inplace" => {
                Some(Kind::List)
            }
            _ => Some(Kind::Other),
        }
    }

    /// `a, b, c` with `count` new loop names.
    fn unpack(&mut self, count: usize) -> String {
        let names: Vec<String> = (0..count).map(|_| self.fresh("l", Kind::Loop)).collect();
        if count == 1 {
            format!("{},", names[0])
        } else {
            names.join(", ")
        }
    }

    fn get_block(&mut self) -> String {
        let (name, loops) = self.block_name();
        let method = self.input.pick(&["get_block", "get_block", "get_sblock"]);
        let func = if self.input.chance(10) {
            format!(", {}", self.input.pick(&["\"main\"", "func_name=\"main\"", "None"]))
        } else {
            String::new()
        };
        let var = self.fresh("b", Kind::Block(loops));
        format!("{var} = sch.{method}({name}{func})")
    }

    fn get_loops(&mut self) -> String {
        let (block, loops) = self.block_expr();
        match loops {
            // The program's block, before anything moved its loops: unpacked.
            Some(n) if n > 0 && self.input.chance(60) => {
                let count = if self.wrong() { n + 1 } else { n };
                let targets = self.unpack(count);
                format!("{targets} = sch.get_loops({block})")
            }
            _ => {
                let var = self.fresh("ls", Kind::List);
                format!("{var} = sch.get_loops({block})")
            }
        }
    }

    fn statement(&mut self, primitives: &[&Primitive]) {
        let has_block = self.vars.iter().any(|(_, k)| k.same(Kind::Block(None)));
        let has_loops = self
            .vars
            .iter()
            .any(|(_, k)| matches!(k, Kind::Loop | Kind::List));
        let choice = self.input.below(100);
        let line = if (!has_block && choice < 50) || choice < 10 {
            self.get_block()
        } else if (!has_loops && choice < 75) || choice < 22 {
            self.get_loops()
        } else if choice < 25 {
            // A loop over a list of handles.
            let list = self.var_name(Kind::List).unwrap_or_else(|| "[]".to_string());
            let method = self.input.pick(&["unroll", "parallel", "vectorize", "get_loops"]);
            format!("for h in {list}:\n        sch.{method}(h)")
        } else {
            let primitive = primitives[self.input.below(primitives.len())];
            let (call, split_arity) = self.call(primitive);
            let bind = self.input.below(10);
            match Self::result_kind(primitive.name) {
                None if bind < 9 => {
                    // A split: as many names as factors, unless wrong.
                    let count = match split_arity {
                        Some(n) if n > 0 && !self.wrong() => n,
                        _ => 1 + self.input.below(4),
                    };
                    let targets = self.unpack(count);
                    format!("{targets} = {call}")
                }
                Some(kind) if bind < 7 => {
                    let prefix = match kind {
                        Kind::Block(_) => "b",
                        Kind::Loop => "l",
                        Kind::List => "ls",
                        Kind::Other => "x",
                    };
                    let var = self.fresh(prefix, kind);
                    format!("{var} = {call}")
                }
                _ => call,
            }
        };
        self.lines.push(line);
    }
}

/// The primitives `TIRC_FUZZ_SKIP` names (comma-separated), left out to
/// fuzz past a known bug.
fn skipped() -> &'static [String] {
    static SKIPPED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SKIPPED.get_or_init(|| {
        std::env::var("TIRC_FUZZ_SKIP")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

/// The program: a seed's module and a random schedule section.
fn generate(data: &[u8]) -> String {
    let mut input = Stream { data, at: 0 };
    let seed = module_text(SEEDS[input.below(SEEDS.len())]);
    let chaos = [2, 5, 12, 30][input.below(4)];
    let calls = 1 + input.below(12);
    let mut primitives: Vec<&Primitive> = primitive::all()
        .filter(|p| !skipped().iter().any(|name| p.names().any(|n| n == name)))
        .collect();
    if primitives.is_empty() {
        primitives = primitive::all().collect();
    }
    let mut generator = Generator {
        input: &mut input,
        blocks: blocks(seed),
        vars: Vec::new(),
        counter: 0,
        chaos,
        lines: Vec::new(),
    };
    for _ in 0..calls {
        generator.statement(&primitives);
    }
    let mut text = String::from(seed);
    text.push_str("\n\ndef schedule(sch: T.Schedule):\n");
    for line in &generator.lines {
        text.push_str("    ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn parse(sources: &mut SourceMap, text: &str) -> Program {
    let (program, diagnostics) = parse_program(sources, "fuzz.tir", text);
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect();
    match program {
        Some(program) if errors.is_empty() => program,
        _ => panic!("the generated program does not parse: {errors:?}\n{text}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = generate(data);
    if std::env::var_os("TIRC_FUZZ_PRINT").is_some() {
        eprintln!("{text}");
    }
    let mut sources = SourceMap::new();
    let program = parse(&mut sources, &text);
    let run = apply_schedule(&program, None);
    if std::env::var_os("TIRC_FUZZ_PRINT").is_some() {
        let stop: Vec<String> = run
            .diagnostics
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect();
        eprintln!("# {} steps applied; {stop:?}", run.steps.len());
    }
    if run.schedule.is_none() {
        panic!("the schedule section did not run:\n{text}");
    }

    // Every step that changed the program leaves a valid module.
    // `disable_predication=True` binds iterators outside their domains on
    // purpose (what `tirc schedule --verify-each` tolerates too).
    let tolerated = run.tolerated_verifier_codes();
    for step in run.steps.iter().filter(|s| s.changed) {
        if let Err(problem) = step_check::check_module(&step.module, program.dialect, tolerated) {
            panic!(
                "after step {} ({}): {problem}\n--- program:\n{text}",
                step.number, step.text
            );
        }
    }

    // A refused step: one error, and the module of the last applied step.
    let errors: Vec<_> = run.diagnostics.iter().filter(|d| d.is_error()).collect();
    if run.succeeded() {
        assert!(errors.is_empty());
    } else {
        if errors.len() != 1 {
            panic!(
                "a stopped run has {} error diagnostics: {:?}\n{text}",
                errors.len(),
                errors.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
        }
        let error = errors[0];
        if !error.code.starts_with("E03") {
            panic!(
                "the refusal is not a schedule error: [{}] {}\n{text}",
                error.code, error.message
            );
        }
        let last_good = run.steps.last().map(|s| &s.module).unwrap_or(&run.initial);
        if let Err(difference) = module_equal(run.module(), last_good) {
            panic!(
                "after a refused step the run's module is not the last applied step's: {difference}\n{text}"
            );
        }
    }

    // The trace of what applied, run again on the program, gives the same module.
    let trace = run.trace.to_python();
    let replay_text = format!("{}\n\n{trace}\n", module_text(&text));
    let mut replay_sources = SourceMap::new();
    let (replayed, diagnostics) = parse_program(&mut replay_sources, "trace.tir", &replay_text);
    let replayed = match replayed {
        Some(p) if !diagnostics.iter().any(|d| d.is_error()) => p,
        _ => panic!(
            "the trace does not parse: {:?}\n--- trace:\n{trace}\n--- program:\n{text}",
            diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        ),
    };
    let replay = apply_schedule(&replayed, None);
    if !replay.succeeded() {
        panic!(
            "the trace does not run again: {:?}\n--- trace:\n{trace}\n--- program:\n{text}",
            replay.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
    if let Err(difference) = module_equal(run.module(), replay.module()) {
        panic!(
            "running the trace again gives another module: {difference}\n--- trace:\n{trace}\n--- program:\n{text}"
        );
    }
});
