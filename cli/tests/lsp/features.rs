//! Every feature of the server, driven through the real `tirc` binary (`tirc lsp`)
//! over stdio on the repository's example and corpus files.

use crate::support::{apply_edits, hover_text, position_of, read, uri, Server};
use serde_json::{json, Value};

const MATMUL: &str = "examples/matmul_128.tir";

fn at(text: &str, needle: &str, nth: usize, extra: usize) -> Value {
    let (line, character) = position_of(text, needle, nth, extra);
    json!({"line": line, "character": character})
}

fn params(document: &str, position: Value) -> Value {
    json!({"textDocument": {"uri": document}, "position": position})
}

fn open_matmul(server: &mut Server) -> (String, String) {
    let text = read(MATMUL);
    let document = uri("matmul_128.tir");
    server.open(&document, &text);
    (document, text)
}

#[test]
fn diagnostics_appear_for_an_error_and_clear_after_the_fix() {
    let mut server = Server::start();
    let good = read(MATMUL);
    let document = uri("broken.tir");
    let broken = good.replace("C[vi, vj] + A[vi, vk]", "C[vi, vj] + Q[vi, vk]");
    server.open(&document, &broken);
    let (diagnostics, _) = server.diagnostics_for(&document, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "E0101");
    assert!(diagnostics[0]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("undefined name `Q`"));
    assert_eq!(diagnostics[0]["range"]["start"], at(&broken, "Q[vi", 0, 0));
    // A syntax error: the colon of the `for` header removed.
    let syntax = good.replace("T.grid(128, 128, 128):", "T.grid(128, 128, 128)");
    server.replace(&document, 2, &syntax);
    let (diagnostics, _) = server.diagnostics_for(&document, 2);
    assert!(!diagnostics.is_empty());
    assert_eq!(diagnostics[0]["code"], "E0001");
    // The fix clears them.
    server.replace(&document, 3, &good);
    let (diagnostics, _) = server.diagnostics_for(&document, 3);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    server.shutdown();
}

#[test]
fn incremental_edits_are_applied() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    server.diagnostics_for(&document, 1);
    // Replace `A[vi, vk] * B` by `Z[vi, vk] * B` with a range edit, then undo it.
    let start = position_of(&text, "A[vi, vk] * B", 0, 0);
    let range = json!({"start": {"line": start.0, "character": start.1}, "end": {"line": start.0, "character": start.1 + 1}});
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": document, "version": 2},
            "contentChanges": [{"range": range, "text": "Z"}],
        }),
    );
    let (diagnostics, _) = server.diagnostics_for(&document, 2);
    assert_eq!(diagnostics.len(), 1);
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": document, "version": 3},
            "contentChanges": [{"range": range, "text": "A"}],
        }),
    );
    let (diagnostics, _) = server.diagnostics_for(&document, 3);
    assert!(diagnostics.is_empty());
    server.shutdown();
}

#[test]
fn hover_describes_variables_buffers_blocks_builtins_and_primitives() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    let hover = |server: &mut Server, needle: &str, nth: usize, extra: usize| {
        hover_text(&server.request(
            "textDocument/hover",
            params(&document, at(&text, needle, nth, extra)),
        ))
    };
    let loop_var = hover(&mut server, "i, j, k]", 0, 0);
    assert!(
        loop_var.contains("i: int32")
            && loop_var.contains("loop variable")
            && loop_var.contains("range(128)"),
        "{loop_var}"
    );
    let iter_var = hover(&mut server, "vi, vk]", 0, 0);
    assert!(
        iter_var.contains("vi: int32")
            && iter_var.contains("spatial")
            && iter_var.contains("block \"C\""),
        "{iter_var}"
    );
    let reduce = hover(&mut server, "vk, vj]", 0, 0);
    assert!(reduce.contains("reduce"), "{reduce}");
    let buffer = hover(&mut server, "A[vi, vk]", 0, 0);
    assert!(
        buffer.contains("T.Buffer((128, 128), \"float32\")")
            && buffer.contains("scope `global`")
            && buffer.contains("line 9"),
        "{buffer}"
    );
    let block = hover(&mut server, "\"C\"):", 0, 1);
    assert!(
        block.contains("reads: `A[vi, vk], B[vk, vj]`") && block.contains("writes: `C[vi, vj]`"),
        "{block}"
    );
    let grid = hover(&mut server, "T.grid", 0, 3);
    assert!(
        grid.contains("T.grid(*extents)") && grid.contains("Nested serial loops"),
        "{grid}"
    );
    let exp_doc = hover(&mut server, "T.float32(0.0)", 0, 3);
    assert!(exp_doc.contains("float32"), "{exp_doc}");
    let split = hover(&mut server, "sch.split", 0, 5);
    assert!(
        split.contains("sch.split(loop, factors: list") && split.contains("Splits a loop"),
        "{split}"
    );
    let function = hover(&mut server, "def main", 0, 5);
    assert!(
        function.contains("def main(A: T.Buffer((128, 128), \"float32\")"),
        "{function}"
    );
    server.shutdown();
}

#[test]
fn hover_shows_what_schedule_handles_denote() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    let hover = |server: &mut Server, needle: &str, nth: usize| {
        hover_text(&server.request(
            "textDocument/hover",
            params(&document, at(&text, needle, nth, 0)),
        ))
    };
    assert!(hover(&mut server, "b0 =", 0).contains("block \"C\""));
    let first_loop = hover(&mut server, "i, j, k = sch", 0);
    assert!(
        first_loop.contains("loop i (extent 128) above block \"C\""),
        "{first_loop}"
    );
    let outer = hover(&mut server, "i0, i1", 0);
    assert!(
        outer.contains("loop i_0") && outer.contains("step 3"),
        "{outer}"
    );
    // The factor written `None` is the one TVM infers: 128 / 32.
    assert!(outer.contains("loop i_0 (extent 4)"), "{outer}");
    let inner = hover(&mut server, "i1 = sch", 0);
    assert!(inner.contains("loop i_1 (extent 32)"), "{inner}");
    // A use of the handle later in the script.
    let used = hover(&mut server, "i0)", 0);
    assert!(used.contains("loop i_0"), "{used}");
    server.shutdown();
}

#[test]
fn definition_and_references_resolve_names_blocks_and_handles() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    let definition = server.request(
        "textDocument/definition",
        params(&document, at(&text, "vi, vk]", 0, 0)),
    );
    assert_eq!(
        definition["range"]["start"],
        at(&text, "vi, vj, vk =", 0, 0)
    );
    let definition = server.request(
        "textDocument/definition",
        params(&document, at(&text, "\"C\")\n    i", 0, 1)),
    );
    assert_eq!(definition["range"]["start"], at(&text, "\"C\"):", 0, 0));
    let definition = server.request(
        "textDocument/definition",
        params(&document, at(&text, "b0)", 0, 0)),
    );
    assert_eq!(definition["range"]["start"], at(&text, "b0 =", 0, 0));
    let definition = server.request(
        "textDocument/definition",
        params(&document, at(&text, "A[vi, vk] * B", 0, 0)),
    );
    assert_eq!(definition["range"]["start"], at(&text, "A: T.Buffer", 0, 0));
    let references = server.request(
        "textDocument/references",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "C[vi, vj] = C", 0, 0),
            "context": {"includeDeclaration": true},
        }),
    );
    // The parameter, T.writes, the init store, the store and the load.
    assert_eq!(references.as_array().map(Vec::len), Some(5), "{references}");
    let block_references = server.request(
        "textDocument/references",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "\"C\"):", 0, 1),
            "context": {"includeDeclaration": true},
        }),
    );
    assert_eq!(
        block_references.as_array().map(Vec::len),
        Some(2),
        "{block_references}"
    );
    server.shutdown();
}

#[test]
fn rename_changes_every_occurrence() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    let edit = server.request(
        "textDocument/rename",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "vk = T.axis", 0, 0),
            "newName": "reduction_k",
        }),
    );
    let renamed = apply_edits(&text, edit["changes"][&document].as_array().expect("edits"));
    assert!(renamed.contains("vi, vj, reduction_k = T.axis.remap"));
    assert!(renamed.contains("A[vi, reduction_k] * B[reduction_k, vj]"));
    assert!(!renamed.contains("vk"));
    // Renaming the block renames the string in `sch.get_block` too.
    let prepare = server.request(
        "textDocument/prepareRename",
        params(&document, at(&text, "\"C\"):", 0, 1)),
    );
    assert_eq!(prepare["start"], at(&text, "\"C\"):", 0, 1));
    let edit = server.request(
        "textDocument/rename",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "get_block(\"C\")", 0, 11),
            "newName": "matmul",
        }),
    );
    let renamed = apply_edits(&text, edit["changes"][&document].as_array().expect("edits"));
    assert!(
        renamed.contains("with T.block(\"matmul\"):")
            && renamed.contains("sch.get_block(\"matmul\")"),
        "{renamed}"
    );
    // Handles rename within the schedule.
    let edit = server.request(
        "textDocument/rename",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "i0, i1", 0, 0),
            "newName": "outer",
        }),
    );
    let renamed = apply_edits(&text, edit["changes"][&document].as_array().expect("edits"));
    assert!(
        renamed.contains("outer, i1 = sch.split")
            && renamed.contains("sch.reorder(outer, k")
            && renamed.contains("sch.parallel(outer)")
    );
    // An invalid name is refused.
    let refused = server.request_raw(
        "textDocument/rename",
        json!({
            "textDocument": {"uri": document},
            "position": at(&text, "vk = T.axis", 0, 0),
            "newName": "not a name",
        }),
    );
    assert!(refused.get("error").is_some());
    // A keyword, the `T` alias and a name already in use would break the program.
    for (needle, new_name, why) in [
        ("vk = T.axis", "for", "keyword"),
        ("vk = T.axis", "T", "reserves"),
        ("A: T.Buffer", "B", "already the name"),
    ] {
        let refused = server.request_raw(
            "textDocument/rename",
            json!({
                "textDocument": {"uri": document},
                "position": at(&text, needle, 0, 0),
                "newName": new_name,
            }),
        );
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{new_name}: {refused}");
    }
    server.shutdown();
}

#[test]
fn document_and_workspace_symbols() {
    let mut server = Server::start();
    let (document, _) = open_matmul(&mut server);
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": document}}),
    );
    let module = &symbols[0];
    assert_eq!(module["name"], "Module");
    let main = &module["children"][0];
    assert_eq!(main["name"], "main");
    let grid = &main["children"][0];
    assert_eq!(grid["name"], "i, j, k");
    assert_eq!(grid["children"][0]["name"], "C");
    assert_eq!(symbols[1]["name"], "schedule");
    let conv = read("examples/conv2d.tir");
    server.open(&uri("conv2d.tir"), &conv);
    let found = server.request("workspace/symbol", json!({"query": "conv"}));
    let kinds: Vec<(String, u64)> = found
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap_or_default().to_string(),
                        s["kind"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // Block "conv" (a struct) and buffer "conv" (an array).
    assert!(
        kinds.contains(&("conv".to_string(), 23)) && kinds.contains(&("conv".to_string(), 18)),
        "{kinds:?}"
    );
    let found = server.request("workspace/symbol", json!({"query": "tiled"}));
    assert_eq!(found[0]["name"], "schedule_tiled");
    assert!(found[0]["location"]["uri"]
        .as_str()
        .unwrap_or_default()
        .ends_with("conv2d.tir"));
    server.shutdown();
}

/// Decodes semantic tokens into (line, character, length, type name).
fn decode_tokens(data: &[Value], legend: &[String]) -> Vec<(u32, u32, u32, String)> {
    let mut out = Vec::new();
    let (mut line, mut character) = (0u32, 0u32);
    for chunk in data.chunks(5) {
        let number = |i: usize| chunk[i].as_u64().unwrap_or(0) as u32;
        let (delta_line, delta_start) = (number(0), number(1));
        line += delta_line;
        character = if delta_line == 0 {
            character + delta_start
        } else {
            delta_start
        };
        out.push((
            line,
            character,
            number(2),
            legend[number(3) as usize].clone(),
        ));
    }
    out
}

#[test]
fn semantic_tokens_classify_buffers_variables_builtins_and_primitives() {
    let mut server = Server::start();
    let initialize = server.request_raw("initialize", json!({"capabilities": {}}));
    let _ = initialize; // A second initialize is refused; the legend is fixed anyway.
    let legend: Vec<String> = tirc_lsp::semantic_tokens::TOKEN_TYPES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (document, text) = open_matmul(&mut server);
    let tokens = server.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": document}}),
    );
    let tokens = decode_tokens(tokens["data"].as_array().expect("data"), &legend);
    let kind_at = |needle: &str, nth: usize, extra: usize| {
        let (line, character) = position_of(&text, needle, nth, extra);
        tokens
            .iter()
            .find(|(l, c, _, _)| *l == line && *c == character)
            .map(|(_, _, _, kind)| kind.clone())
            .unwrap_or_default()
    };
    assert_eq!(kind_at("A[vi, vk] * B", 0, 0), "buffer");
    assert_eq!(kind_at("vi, vk] * B", 0, 0), "iterVariable");
    assert_eq!(kind_at("i, j, k]", 0, 0), "loopVariable");
    assert_eq!(kind_at("grid", 0, 0), "builtin");
    assert_eq!(kind_at("\"float32\")", 0, 0), "string");
    assert_eq!(kind_at("float32(0.0)", 0, 0), "type");
    assert_eq!(kind_at("128, 128, 128)", 0, 0), "number");
    assert_eq!(kind_at("sch.split", 0, 4), "primitive");
    assert_eq!(kind_at("b0 =", 0, 0), "handle");
    assert_eq!(kind_at("# The", 0, 0), "comment");
    server.shutdown();
}

#[test]
fn formatting_equals_tirc_fmt_byte_for_byte() {
    let mut server = Server::start();
    let mut files: Vec<String> =
        std::fs::read_dir(crate::support::repository_root().join("examples"))
            .expect("examples exist")
            .filter_map(|e| e.ok())
            .map(|e| format!("examples/{}", e.file_name().to_string_lossy()))
            .collect();
    files.sort();
    files.extend([
        "tests/roundtrip/tvm/hand_loop_kinds.tir".to_string(),
        "tests/roundtrip/tvm/hand_thread_bindings.tir".to_string(),
        "tests/roundtrip/tvm/hand_lowlevel_launch_thread.tir".to_string(),
    ]);
    for (index, file) in files.iter().enumerate() {
        let original = read(file);
        // Make the layout non-canonical: squeeze spaces after commas in calls.
        let messy = original.replace("T.grid(128, 128, 128)", "T.grid(128,128,   128)");
        let document = uri(&format!("fmt{index}.tir"));
        server.open(&document, &messy);
        let expected =
            tirc::format::format_source("x.tir", &messy, Some(tirc::printer::Dialect::Classic))
                .unwrap_or_else(|_| panic!("{file} formats"));
        let edits = server.request(
            "textDocument/formatting",
            json!({
                "textDocument": {"uri": document},
                "options": {"tabSize": 4, "insertSpaces": true},
            }),
        );
        let formatted = apply_edits(&messy, edits.as_array().expect("edits"));
        assert_eq!(formatted, expected, "{file}");
    }
    // Range formatting touches only the lines in the range.
    let text = read(MATMUL).replace("T.grid(128, 128, 128)", "T.grid(128,128,   128)");
    let document = uri("range.tir");
    server.open(&document, &text);
    let line = position_of(&text, "T.grid", 0, 0).0;
    let edits = server.request("textDocument/rangeFormatting", json!({
        "textDocument": {"uri": document},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}},
        "options": {"tabSize": 4, "insertSpaces": true},
    }));
    let formatted = apply_edits(&text, edits.as_array().expect("edits"));
    assert_eq!(formatted, read(MATMUL));
    server.shutdown();
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|i| i["label"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn completion_offers_builtins_primitives_blocks_dtypes_and_names() {
    let mut server = Server::start();
    let text = read(MATMUL);
    let document = uri("complete.tir");
    // Lines being typed: `T.` in the body, `sch.` in the schedule, a get_block string, a dtype string.
    let typed = text
        .replace("                C[vi, vj] = C[vi, vj] +", "                T.\n                C[vi, vj] = C[vi, vj] +")
        .replace("    sch.parallel(i0)", "    sch.parallel(i0)\n    sch.\n    b1 = sch.get_block(\"\n    x = T.alloc_buffer((4,), \"f");
    server.open(&document, &typed);
    let (line, character) = position_of(&typed, "T.\n", 0, 2);
    let items = server.request(
        "textDocument/completion",
        params(&document, json!({"line": line, "character": character})),
    );
    let names = labels(&items);
    assert!(
        names.contains(&"grid".to_string())
            && names.contains(&"exp".to_string())
            && names.contains(&"axis".to_string()),
        "{names:?}"
    );
    let grid = items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["label"] == "grid"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(grid["detail"], "T.grid(*extents)");
    let (line, character) = position_of(&typed, "sch.\n", 0, 4);
    let items = server.request(
        "textDocument/completion",
        params(&document, json!({"line": line, "character": character})),
    );
    let split = items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["label"] == "split"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(split["insertText"], "split(${1:loop}, ${2:factors})");
    assert_eq!(split["insertTextFormat"], 2);
    let (line, character) = position_of(&typed, "get_block(\"\n", 0, 11);
    let items = server.request(
        "textDocument/completion",
        params(&document, json!({"line": line, "character": character})),
    );
    assert_eq!(labels(&items), vec!["C".to_string()]);
    let (line, character) = position_of(&typed, "\"f\n", 0, 2);
    let items = server.request(
        "textDocument/completion",
        params(&document, json!({"line": line, "character": character})),
    );
    assert!(labels(&items).contains(&"float32".to_string()));
    // Names in scope inside the block body.
    let (line, character) = position_of(&typed, "                C[vi, vj] = C[vi, vj] +", 0, 16);
    let items = server.request(
        "textDocument/completion",
        params(&document, json!({"line": line, "character": character})),
    );
    let names = labels(&items);
    for name in ["A", "B", "C", "i", "vi", "vk"] {
        assert!(
            names.contains(&name.to_string()),
            "{name} missing from {names:?}"
        );
    }
    server.shutdown();
}

#[test]
fn signature_help_marks_the_active_parameter() {
    let mut server = Server::start();
    let text = read(MATMUL);
    let document = uri("signature.tir");
    server.open(&document, &text);
    let help = server.request(
        "textDocument/signatureHelp",
        params(&document, at(&text, "None, 32]", 0, 0)),
    );
    assert_eq!(
        help["signatures"][0]["label"],
        "sch.split(loop, factors: list, preserve_unit_iters=True, disable_predication=False)"
    );
    assert_eq!(help["activeParameter"], 1);
    let help = server.request(
        "textDocument/signatureHelp",
        params(&document, at(&text, "[i, j, k])", 0, 1)),
    );
    assert_eq!(
        help["signatures"][0]["label"],
        "T.axis.remap(kinds: str, bindings: list)"
    );
    assert_eq!(help["activeParameter"], 1);
    server.shutdown();
}

fn without_regions(text: &str) -> String {
    text.lines()
        .filter(|l| {
            !l.trim_start().starts_with("T.reads(") && !l.trim_start().starts_with("T.writes(")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn inlay_hints_show_inferred_regions_and_handles() {
    let mut server = Server::start();
    let text = without_regions(&read(MATMUL));
    let document = uri("hints.tir");
    server.open(&document, &text);
    let hints = server.request(
        "textDocument/inlayHint",
        json!({
            "textDocument": {"uri": document},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}},
        }),
    );
    let labels: Vec<String> = hints
        .as_array()
        .expect("hints")
        .iter()
        .map(|h| h["label"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        labels.contains(&"inferred: T.reads(A[vi, vk], B[vk, vj]) T.writes(C[vi, vj])".to_string()),
        "{labels:?}"
    );
    assert!(labels.contains(&": block \"C\"".to_string()), "{labels:?}");
    assert!(
        labels.iter().any(|l| l.starts_with(": loop i_1")),
        "{labels:?}"
    );
    server.shutdown();
}

#[test]
fn code_actions_insert_regions_convert_dialects_and_fix_misspellings() {
    let mut server = Server::start();
    let text = without_regions(&read(MATMUL));
    let document = uri("actions.tir");
    server.open(&document, &text);
    server.diagnostics_for(&document, 1);
    let actions = server.request("textDocument/codeAction", json!({
        "textDocument": {"uri": document},
        "range": {"start": at(&text, "vi, vj, vk =", 0, 0), "end": at(&text, "vi, vj, vk =", 0, 0)},
        "context": {"diagnostics": []},
    }));
    let actions = actions.as_array().expect("actions").clone();
    let insert = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap_or_default()
                .starts_with("Insert the inferred")
        })
        .expect("insert action");
    let inserted = apply_edits(
        &text,
        insert["edit"]["changes"][&document]
            .as_array()
            .expect("edits"),
    );
    assert!(inserted.contains("                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n                T.reads(A[vi, vk], B[vk, vj])\n                T.writes(C[vi, vj])\n                with T.init():"), "{inserted}");
    let convert = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap_or_default().contains("tirx"))
        .expect("convert action");
    let converted = apply_edits(
        &text,
        convert["edit"]["changes"][&document]
            .as_array()
            .expect("edits"),
    );
    let expected = tirc::format::format_source("x.tir", &text, Some(tirc::printer::Dialect::Tirx))
        .expect("formats");
    assert_eq!(converted, expected);
    assert!(converted.contains("T.sblock(\"C\")"));
    // A misspelled builtin and a misspelled buffer get quick fixes; the
    // second error shows once the first is fixed.
    let mut fixed = read(MATMUL)
        .replace("T.grid(", "T.gird(")
        .replace("+ A[vi, vk]", "+ AA[vi, vk]");
    for version in 2..5 {
        server.replace(&document, version, &fixed);
        let (diagnostics, _) = server.diagnostics_for(&document, version as i64);
        if diagnostics.is_empty() {
            break;
        }
        let actions = server.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": document},
                "range": diagnostics[0]["range"],
                "context": {"diagnostics": diagnostics},
            }),
        );
        let fixes: Vec<Value> = actions
            .as_array()
            .expect("actions")
            .iter()
            .filter(|a| a["kind"] == "quickfix")
            .cloned()
            .collect();
        assert!(!fixes.is_empty(), "no quick fix for {diagnostics:?}");
        for fix in &fixes {
            fixed = apply_edits(
                &fixed,
                fix["edit"]["changes"][&document].as_array().expect("edits"),
            );
        }
    }
    assert_eq!(fixed, read(MATMUL));
    server.shutdown();
}

#[test]
fn schedule_preview_command_and_code_lens() {
    let mut server = Server::start();
    let (document, text) = open_matmul(&mut server);
    let lenses = server.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": document}}),
    );
    let lens = &lenses[0];
    assert_eq!(lens["command"]["title"], "Preview schedule (6 steps)");
    assert_eq!(lens["range"]["start"], at(&text, "schedule(sch", 0, 0));
    let preview = |server: &mut Server, step: usize, diff: bool| {
        server.request(
            "workspace/executeCommand",
            json!({
                "command": "tirc.schedulePreview",
                "arguments": [{"uri": document, "step": step, "diff": diff}],
            }),
        )
    };
    let before = preview(&mut server, 0, false);
    assert_eq!(before["steps"], 6);
    assert!(before["text"]
        .as_str()
        .unwrap_or_default()
        .contains("for i, j, k in T.grid(128, 128, 128):"));
    let split = preview(&mut server, 3, false);
    assert!(
        split["title"]
            .as_str()
            .unwrap_or_default()
            .contains("sch.split(i, factors=[None, 32])"),
        "{split}"
    );
    assert!(
        split["text"].as_str().unwrap_or_default().contains("i_0"),
        "{split}"
    );
    let diff = preview(&mut server, 3, true);
    let diff = diff["text"].as_str().unwrap_or_default().to_string();
    assert!(
        diff.contains("--- before step 3")
            && diff
                .lines()
                .any(|l| l.starts_with('+') && l.contains("i_1")),
        "{diff}"
    );
    let last = preview(&mut server, 6, false);
    assert!(
        last["text"]
            .as_str()
            .unwrap_or_default()
            .contains("T.parallel"),
        "{last}"
    );
    let missing = server.request_raw(
        "workspace/executeCommand",
        json!({
            "command": "tirc.schedulePreview",
            "arguments": [{"uri": document, "step": 9}],
        }),
    );
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("applied 6 steps"));
    server.shutdown();
}

#[test]
fn a_refused_schedule_step_is_a_diagnostic_at_its_line() {
    let mut server = Server::start();
    let text = read(MATMUL).replace("sch.vectorize(j)", "sch.vectorize(k)");
    let document = uri("refused.tir");
    server.open(&document, &text);
    let (diagnostics, _) = server.diagnostics_for(&document, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"],
        at(&text, "sch.vectorize(k)", 0, 0)["line"]
    );
    let lenses = server.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": document}}),
    );
    assert_eq!(
        lenses[0]["command"]["title"],
        "Preview schedule (4 steps applied, then refused)"
    );
    server.shutdown();
}

#[test]
fn utf16_positions_ignore_astral_characters_in_strings_and_comments() {
    let mut server = Server::start();
    let good = read(MATMUL)
        .replace("# The 128x128x128", "# 𝔸𝔹ℂ é — the 128x128x128")
        .replace(
            "T.func_attr({\"tir.noalias\": True})",
            "T.func_attr({\"tir.noalias\": True, \"note\": \"𝔸é𝔹\"})  # 😀 emoji",
        );
    let broken = good.replace("C[vi, vj] + A[vi, vk]", "C[vi, vj] + Q[vi, vk]");
    let document = uri("unicode.tir");
    server.open(&document, &broken);
    let (diagnostics, _) = server.diagnostics_for(&document, 1);
    assert_eq!(diagnostics[0]["range"]["start"], at(&broken, "Q[vi", 0, 0));
    server.replace(&document, 2, &good);
    server.diagnostics_for(&document, 2);
    let hover = server.request(
        "textDocument/hover",
        params(&document, at(&good, "A[vi, vk] * B", 0, 0)),
    );
    assert!(hover_text(&hover).contains("A: T.Buffer"));
    assert_eq!(hover["range"]["start"], at(&good, "A[vi, vk] * B", 0, 0));
    // A rename whose occurrences sit after multi-unit characters on their lines.
    let edit = server.request(
        "textDocument/rename",
        json!({
            "textDocument": {"uri": document},
            "position": at(&good, "A: T.Buffer", 0, 0),
            "newName": "Input",
        }),
    );
    let renamed = apply_edits(&good, edit["changes"][&document].as_array().expect("edits"));
    assert!(
        renamed.contains("Input: T.Buffer")
            && renamed.contains("Input[vi, vk]")
            && renamed.contains("\"𝔸é𝔹\"})  # 😀 emoji")
    );
    // Semantic tokens after the emoji comment are still aligned.
    let tokens = server.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": document}}),
    );
    let legend: Vec<String> = tirc_lsp::semantic_tokens::TOKEN_TYPES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let tokens = decode_tokens(tokens["data"].as_array().expect("data"), &legend);
    let (line, character) = position_of(&good, "\"𝔸é𝔹\"", 0, 0);
    let string = tokens
        .iter()
        .find(|(l, c, _, _)| *l == line && *c == character)
        .expect("a token at the string");
    assert_eq!((string.2, string.3.as_str()), (7, "string"));
    server.shutdown();
}

/// Hover keeps answering on a line with an error, and while the file has a
/// syntax error, from the last analysis that had a program (issue 25.10).
#[test]
fn hover_answers_on_error_lines_and_through_syntax_errors() {
    let mut server = Server::start();
    let good = read(MATMUL);
    let document = uri("hover_errors.tir");
    let broken = good.replace("C[vi, vj] + A[vi, vk]", "C[vi, vj] + Q[vi, vk] + A[vi, vk]");
    server.open(&document, &broken);
    server.diagnostics_for(&document, 1);
    let hover_at = |server: &mut Server, text: &str, needle: &str| {
        hover_text(&server.request(
            "textDocument/hover",
            params(&document, at(text, needle, 0, 0)),
        ))
    };
    let (line, character) = position_of(&broken, "+ A[vi, vk] *", 0, 2);
    let on_error_line = hover_text(&server.request(
        "textDocument/hover",
        params(&document, json!({"line": line, "character": character})),
    ));
    assert!(
        on_error_line.contains("float32"),
        "nothing on the error line: {on_error_line:?}"
    );
    // A syntax error elsewhere: the colon of the `for` header removed.
    let syntax = good.replace("T.grid(128, 128, 128):", "T.grid(128, 128, 128)");
    server.replace(&document, 2, &good);
    server.diagnostics_for(&document, 2);
    server.replace(&document, 3, &syntax);
    server.diagnostics_for(&document, 3);
    let through_syntax_error = hover_at(&mut server, &syntax, "B[vk, vj]");
    assert!(
        through_syntax_error.contains("float32"),
        "nothing while the file has a syntax error: {through_syntax_error:?}"
    );
    server.shutdown();
}
