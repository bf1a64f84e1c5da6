//! The float16 conversion routines LLVM calls when the CPU has no F16C
//! instructions (compiler-rt's names), provided to the JIT so generated code
//! never depends on a runtime library being loaded.

/// `__extendhfsf2`: float16 bits to float32.
pub extern "C" fn extend_half_to_single(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// `__truncsfhf2`: float32 to float16 bits, rounding to nearest even.
pub extern "C" fn truncate_single_to_half(value: f32) -> u16 {
    half::f16::from_f32(value).to_bits()
}

/// `__truncdfhf2`: float64 to float16 bits, rounding once.
pub extern "C" fn truncate_double_to_half(value: f64) -> u16 {
    half::f16::from_f64(value).to_bits()
}

/// The symbols and their addresses, for the JIT's global mapping.
pub fn symbols() -> [(&'static str, usize); 5] {
    let extend: extern "C" fn(u16) -> f32 = extend_half_to_single;
    let truncate: extern "C" fn(f32) -> u16 = truncate_single_to_half;
    let truncate_double: extern "C" fn(f64) -> u16 = truncate_double_to_half;
    [
        ("__extendhfsf2", extend as usize),
        ("__gnu_h2f_ieee", extend as usize),
        ("__truncsfhf2", truncate as usize),
        ("__gnu_f2h_ieee", truncate as usize),
        ("__truncdfhf2", truncate_double as usize),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_to_nearest_even() {
        assert_eq!(extend_half_to_single(0x3c00), 1.0);
        assert_eq!(truncate_single_to_half(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(truncate_double_to_half(65504.0), 0x7bff);
    }
}
