//! Property tests: `parse_file` never panics and never gives up on a file, whatever the input.

use proptest::prelude::*;
use tirc_grammar::parse_file;

/// A valid TVMScript file that the mutations start from.
const SEED: &str = r#"# from tvm.script import tir as T
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, k in T.grid(128, 128):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, 0:128:1])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + A[vi, vk] * -2 ** 2 if vi < 4 else 1e-5
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  sch.reorder(l2, l1); x = lambda y: (y, [1, 2], {'a': 0x1F})
"#;

/// Snippets that mutations insert: the characters and tokens most likely to upset layout and recovery.
const SNIPPETS: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ":", ",", "\n", "\n    ", "\t", "\\", "\\\n", "\"", "'",
    "\"\"\"", "#", "@", "=", "**", "if", "else", "elif", "for", "def", "lambda", "not", "in", "is",
    ";", ".", "->", "    ", "\r\n", "0x", "1e", "é",
];

/// Checks the invariants every parse must keep.
fn check_parse(source: &str) {
    let parsed = parse_file(source);
    for error in &parsed.errors {
        assert!(
            error.span.start <= error.span.end,
            "backwards span {error:?}"
        );
        assert!(
            error.span.end as usize <= source.len(),
            "span past the end {error:?}"
        );
        assert!(!error.message.is_empty());
        // Recovery must always reach the end of the file; a parse that gives up loses the tree.
        assert!(
            !error.message.contains("the parser stopped"),
            "parser gave up: {error:?} in {source:?}"
        );
    }
    let starts: Vec<u32> = parsed.errors.iter().map(|error| error.span.start).collect();
    assert!(
        starts.windows(2).all(|pair| pair[0] <= pair[1]),
        "errors out of order"
    );
    for statement in &parsed.file.body {
        assert!(
            statement.span.end as usize <= source.len(),
            "statement span past the end"
        );
    }
}

/// One edit of the seed file.
#[derive(Clone, Debug)]
enum Mutation {
    /// Insert a snippet at a byte position.
    Insert(usize, usize),
    /// Delete a byte range.
    Delete(usize, usize),
    /// Replace a byte with an arbitrary byte.
    Replace(usize, u8),
}

/// Applies mutations to the seed, working on bytes and repairing UTF-8 afterwards.
fn mutate(mutations: &[Mutation]) -> String {
    let mut bytes = SEED.as_bytes().to_vec();
    for mutation in mutations {
        let length = bytes.len().max(1);
        match *mutation {
            Mutation::Insert(position, snippet) => {
                let position = position % (length + 1);
                let position = position.min(bytes.len());
                let snippet = SNIPPETS[snippet % SNIPPETS.len()].as_bytes();
                bytes.splice(position..position, snippet.iter().copied());
            }
            Mutation::Delete(position, count) => {
                let start = position % length;
                let end = (start + count % 16).min(bytes.len());
                if start < end {
                    bytes.drain(start..end);
                }
            }
            Mutation::Replace(position, byte) => {
                if !bytes.is_empty() {
                    let position = position % bytes.len();
                    bytes[position] = byte;
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A strategy for one mutation.
fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>())
            .prop_map(|(position, snippet)| Mutation::Insert(position, snippet)),
        (any::<usize>(), any::<usize>())
            .prop_map(|(position, count)| Mutation::Delete(position, count)),
        (any::<usize>(), any::<u8>())
            .prop_map(|(position, byte)| Mutation::Replace(position, byte)),
    ]
}

proptest! {
    // 2,000 cases per property by default; PROPTEST_CASES=100000 runs a longer search.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_text_from_python_characters_never_panics(source in "[a-z0-9_ \\n\\t()\\[\\]{}:,.=+*/%<>!@#'\"\\\\-]{0,120}") {
        check_parse(&source);
    }

    #[test]
    fn mutated_tvmscript_never_panics(mutations in proptest::collection::vec(mutation(), 1..6)) {
        check_parse(&mutate(&mutations));
    }
}

#[test]
fn the_seed_itself_parses_cleanly() {
    let parsed = parse_file(SEED);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.file.body.len(), 2);
}
