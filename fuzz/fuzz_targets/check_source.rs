//! Parse, lower and verify arbitrary text with every optional check on:
//! whatever the input, `check_source` returns diagnostics and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tirc::check::{check_source, CheckOptions};
use tirc::source::SourceMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = CheckOptions {
        strict_casts: true,
        warn_loose_regions: true,
    };
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, "fuzz.tir", text, &options);
    // Rendering touches every span; it must stay inside the text.
    let _ = tirc::diagnostics::render_text(&checked.diagnostics, &sources, false);
});
