//! Parse, lower, verify and apply the schedule sections of arbitrary text,
//! with every optional check on, through the driver's `analyze` (what `tirc
//! check` and the language server run): whatever the input, it returns
//! diagnostics and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tirc::check::CheckOptions;
use tirc::driver::{analyze, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = CheckOptions {
        strict_casts: true,
        warn_loose_regions: true,
        ..CheckOptions::default()
    };
    let analysis = analyze(&SourceFile::new("fuzz.tir", text), &options);
    // Rendering touches every span; it must stay inside the text.
    let _ = tirc::diagnostics::render_text(&analysis.diagnostics(), &analysis.sources, false);
});
