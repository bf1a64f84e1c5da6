//! Random schedule scripts: whatever the script says, applying it never
//! panics, and a script that applies leaves a module the verifier accepts
//! and that prints and reads back unchanged. `PROPTEST_CASES` sets how many.

use super::step_check::check_module;
use super::testing::{program, MATMUL_RELU};
use super::{apply_schedule, codes};
use crate::printer::Dialect;
use proptest::prelude::*;

/// One line of a schedule built from four random bytes.
fn line(op: u8, a: u8, b: u8, c: u8) -> String {
    let handle =
        |n: u8| ["l0", "l1", "l2", "l3", "l4", "l5", "b0", "b1", "x", "nope"][n as usize % 10];
    let factor =
        |n: u8| ["None", "0", "-1", "1", "2", "3", "4", "16", "64", "1000"][n as usize % 10];
    let block = |n: u8| ["\"C\"", "\"D\"", "\"root\"", "\"E\"", "3"][n as usize % 5];
    let tag = |n: u8| {
        [
            "\"blockIdx.x\"",
            "\"threadIdx.x\"",
            "\"vthread.y\"",
            "\"threadIdx.w\"",
            "7",
        ][n as usize % 5]
    };
    let value = |n: u8| {
        [
            "1",
            "2.5",
            "\"s\"",
            "[1, 2]",
            "{\"a\": 1}",
            "True",
            "None",
            "b0",
        ][n as usize % 8]
    };
    match op % 17 {
        0 => format!("b{} = sch.get_block({})", a % 2, block(b)),
        1 => format!(
            "l{}, l{}, l{} = sch.get_loops({})",
            a % 6,
            b % 6,
            c % 6,
            handle(a.wrapping_add(c))
        ),
        2 => format!("l{}, l{} = sch.get_loops({})", a % 6, b % 6, handle(c)),
        3 => format!(
            "l{}, l{} = sch.split({}, factors=[{}, {}])",
            a % 6,
            b % 6,
            handle(c),
            factor(a),
            factor(b)
        ),
        4 => format!(
            "x = sch.split({}, factors=[{}, {}, {}], preserve_unit_iters={})",
            handle(a),
            factor(b),
            factor(c),
            factor(a ^ b),
            ["True", "False", "1"][c as usize % 3]
        ),
        5 => format!("l{} = sch.fuse({}, {})", a % 6, handle(b), handle(c)),
        6 => format!("l{} = sch.fuse({})", a % 6, handle(b)),
        7 => format!("sch.reorder({}, {}, {})", handle(a), handle(b), handle(c)),
        8 => format!("sch.parallel({})", handle(a)),
        9 => format!("sch.vectorize({})", handle(a)),
        10 => format!("sch.unroll({})", handle(a)),
        11 => format!("sch.bind({}, {})", handle(a), tag(b)),
        12 => format!("sch.annotate({}, \"k\", {})", handle(a), value(b)),
        13 => format!("sch.unannotate({}, \"k\")", handle(a)),
        14 => format!("l{} = sch.add_unit_loop({})", a % 6, handle(b)),
        15 => format!("x = sch.get_child_blocks({})", handle(a)),
        _ => format!(
            "x = sch.{}({})",
            ["get_producers", "get_consumers", "compute_at", "splt"][a as usize % 4],
            handle(b)
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
    ))]

    #[test]
    fn random_scripts_never_panic_and_leave_valid_modules(
        ops in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()), 1..14)
    ) {
        let mut text = format!("{MATMUL_RELU}\ndef schedule(sch: T.Schedule):\n");
        text.push_str("    b0 = sch.get_block(\"C\")\n    b1 = sch.get_block(\"D\")\n");
        text.push_str("    l0, l1, l2 = sch.get_loops(b0)\n    l3, l4 = sch.get_loops(b1)\n");
        for (op, a, b, c) in ops {
            text.push_str("    ");
            text.push_str(&line(op, a, b, c));
            text.push('\n');
        }
        let run = apply_schedule(&program(&text), None);
        // At most one refusal, with a schedule code and a help line.
        prop_assert!(run.diagnostics.len() <= 1);
        for diagnostic in &run.diagnostics {
            prop_assert!(diagnostic.code.starts_with("E03"), "{:?}", diagnostic);
            prop_assert!(diagnostic.help.is_some(), "{:?}", diagnostic);
            prop_assert!(diagnostic.code != codes::NO_SCHEDULE);
        }
        if let Err(problem) = check_module(run.module(), Dialect::Tirx, &[]) {
            prop_assert!(false, "{problem}\n{text}");
        }
    }
}
