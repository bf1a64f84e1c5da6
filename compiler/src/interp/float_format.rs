//! Binary floating-point formats narrower than `float32` (float16, bfloat16,
//! float8 e4m3fn and e5m2): correctly rounded encoding from `f64` and exact
//! decoding back.
//!
//! One routine serves every format so that all of them round the same way:
//! to nearest, ties to even, directly from the `f64` value (never through an
//! intermediate format, which would round twice). The `half` crate is not used
//! because its `f64` conversions truncate the low 32 mantissa bits before
//! rounding and, where the CPU has F16C, go through `f32` first; both give a
//! wrong answer just above a tie (`1 + 2^-11 + 2^-40` must round up in
//! float16).

/// The layout and special values of one binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Bits of the biased exponent field.
    pub exponent_bits: u32,
    /// Bits of the stored mantissa (without the implicit leading one).
    pub mantissa_bits: u32,
    /// True when the all-ones exponent means infinity or NaN (IEEE style).
    /// False for e4m3fn, where only the all-ones pattern is NaN and every
    /// other pattern with the top exponent is a finite number.
    pub has_infinity: bool,
}

impl FloatFormat {
    /// IEEE binary16.
    pub const FLOAT16: FloatFormat = FloatFormat {
        exponent_bits: 5,
        mantissa_bits: 10,
        has_infinity: true,
    };
    /// bfloat16: float32's exponent with 7 mantissa bits.
    pub const BFLOAT16: FloatFormat = FloatFormat {
        exponent_bits: 8,
        mantissa_bits: 7,
        has_infinity: true,
    };
    /// float8 e4m3fn: finite values up to 448, NaN, no infinity.
    pub const FLOAT8_E4M3FN: FloatFormat = FloatFormat {
        exponent_bits: 4,
        mantissa_bits: 3,
        has_infinity: false,
    };
    /// float8 e5m2: IEEE-style with infinities, finite values up to 57344.
    pub const FLOAT8_E5M2: FloatFormat = FloatFormat {
        exponent_bits: 5,
        mantissa_bits: 2,
        has_infinity: true,
    };
    /// IEEE binary32; used to check this module against the hardware's rounding.
    pub const FLOAT32: FloatFormat = FloatFormat {
        exponent_bits: 8,
        mantissa_bits: 23,
        has_infinity: true,
    };

    fn total_bits(self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }
    fn sign_mask(self) -> u64 {
        1 << (self.exponent_bits + self.mantissa_bits)
    }
    fn bias(self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }
    fn all_ones_exponent(self) -> u64 {
        (1 << self.exponent_bits) - 1
    }
    fn infinity_bits(self) -> u64 {
        self.all_ones_exponent() << self.mantissa_bits
    }
    /// The canonical quiet NaN (positive).
    fn nan_bits(self) -> u64 {
        if self.has_infinity {
            self.infinity_bits() | (1 << (self.mantissa_bits - 1))
        } else {
            (1 << (self.exponent_bits + self.mantissa_bits)) - 1
        }
    }
    /// The bit pattern of the largest finite value (positive).
    fn max_finite_bits(self) -> u64 {
        if self.has_infinity {
            self.infinity_bits() - 1
        } else {
            self.nan_bits() - 1
        }
    }

    /// The largest finite value of the format.
    pub fn max_finite(self) -> f64 {
        self.decode(self.max_finite_bits())
    }

    /// Rounds `value` to the nearest value of the format (ties to even) and
    /// returns its bit pattern. Values beyond the largest finite one become
    /// infinity, or NaN in formats without infinity (e4m3fn), as ml_dtypes and
    /// IEEE do; nothing saturates.
    pub fn encode(self, value: f64) -> u64 {
        let sign = if value.is_sign_negative() {
            self.sign_mask()
        } else {
            0
        };
        if value.is_nan() {
            return sign | self.nan_bits();
        }
        let magnitude = value.abs();
        if magnitude.is_infinite() {
            return sign
                | if self.has_infinity {
                    self.infinity_bits()
                } else {
                    self.nan_bits()
                };
        }
        if magnitude == 0.0 {
            return sign;
        }
        let mantissa_bits = self.mantissa_bits as i32;
        let min_normal_exponent = 1 - self.bias();
        // Below the smallest normal, values are multiples of the smallest
        // subnormal; otherwise of 2^(exponent - mantissa_bits).
        let exponent = binary_exponent(magnitude).max(min_normal_exponent);
        let quantum = power_of_two(exponent - mantissa_bits);
        // Dividing by a power of two is exact, so the only rounding is here.
        let significand = (magnitude / quantum).round_ties_even() as u64;
        let (significand, exponent) = if significand >> (mantissa_bits + 1) != 0 {
            // Rounding carried into a new binade: 1.11..1 became 10.00..0.
            (significand >> 1, exponent + 1)
        } else {
            (significand, exponent)
        };
        let implicit_one = 1u64 << mantissa_bits;
        let bits = if significand < implicit_one {
            // Subnormal: biased exponent field zero.
            significand
        } else {
            let biased_exponent = (exponent + self.bias()) as u64;
            (biased_exponent << mantissa_bits) | (significand - implicit_one)
        };
        if bits > self.max_finite_bits() {
            return sign
                | if self.has_infinity {
                    self.infinity_bits()
                } else {
                    self.nan_bits()
                };
        }
        sign | bits
    }

    /// The exact value of a bit pattern (bits above the format's width are ignored).
    pub fn decode(self, bits: u64) -> f64 {
        let bits = bits & ((1u64 << self.total_bits()) - 1);
        let negative = bits & self.sign_mask() != 0;
        let exponent_field = (bits >> self.mantissa_bits) & self.all_ones_exponent();
        let mantissa = bits & ((1 << self.mantissa_bits) - 1);
        let magnitude = if self.has_infinity && exponent_field == self.all_ones_exponent() {
            if mantissa == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if !self.has_infinity && bits & !self.sign_mask() == self.nan_bits() {
            f64::NAN
        } else if exponent_field == 0 {
            mantissa as f64 * power_of_two(1 - self.bias() - self.mantissa_bits as i32)
        } else {
            let significand = (mantissa | (1 << self.mantissa_bits)) as f64;
            significand
                * power_of_two(exponent_field as i32 - self.bias() - self.mantissa_bits as i32)
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// `value` rounded to the nearest value of the format, as an `f64`.
    pub fn round(self, value: f64) -> f64 {
        self.decode(self.encode(value))
    }
}

/// `floor(log2(x))` for a finite positive `x`, exact for subnormals too.
fn binary_exponent(x: f64) -> i32 {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // An f64 subnormal: its exponent is below -1022 by the leading zeros
        // of its 52-bit mantissa.
        let mantissa = x.to_bits() & ((1u64 << 52) - 1);
        -1022 - (mantissa.leading_zeros() as i32 - 11)
    } else {
        biased - 1023
    }
}

/// `2^exponent` as an `f64`, exact over the whole range the formats need.
fn power_of_two(exponent: i32) -> f64 {
    if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52)
    } else {
        // Subnormal powers of two (only reached by the f32 self-check).
        f64::from_bits(1u64 << (exponent + 1074))
    }
}

/// An `f64` close enough to the integer `magnitude` that rounding it once more
/// to a format with at most 51 significant bits gives the correctly rounded
/// result: exact up to 2^53, otherwise truncated to 53 bits with the last bit
/// set when anything was cut ("round to odd").
pub fn integer_to_f64_round_to_odd(magnitude: u64) -> f64 {
    let significant_bits = 64 - magnitude.leading_zeros();
    if significant_bits <= 53 {
        return magnitude as f64;
    }
    let dropped = significant_bits - 53;
    let kept = (magnitude >> dropped) << dropped;
    let sticky = if kept != magnitude {
        1u64 << dropped
    } else {
        0
    };
    // `kept | sticky` has at most 53 significant bits, so the conversion is exact.
    (kept | sticky) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator of f64 test inputs.
    fn next_random(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn float32_layout_matches_hardware_rounding() {
        let mut state = 7;
        for _ in 0..200_000 {
            // Random f64 bit patterns in float32's range, subnormals included.
            let exponent = (next_random(&mut state) % 300) as i64 - 160;
            let mantissa = next_random(&mut state) & ((1 << 52) - 1);
            let bits = (((exponent + 1023) as u64) << 52) | mantissa;
            let value = f64::from_bits(bits);
            let expected = (value as f32) as f64;
            assert_eq!(
                FloatFormat::FLOAT32.round(value).to_bits(),
                expected.to_bits(),
                "{value:e}"
            );
        }
    }

    #[test]
    fn every_float16_pattern_decodes_and_encodes_back() {
        for bits in 0..=0xffffu64 {
            let value = FloatFormat::FLOAT16.decode(bits);
            if value.is_nan() {
                continue;
            }
            assert_eq!(FloatFormat::FLOAT16.encode(value), bits, "{bits:#x}");
        }
    }

    #[test]
    fn float16_rounds_ties_to_even_and_honours_sticky_bits() {
        let f16 = FloatFormat::FLOAT16;
        let ulp = 2f64.powi(-10);
        assert_eq!(f16.round(1.0 + ulp / 2.0), 1.0);
        assert_eq!(f16.round(1.0 + ulp / 2.0 + 2f64.powi(-40)), 1.0 + ulp);
        assert_eq!(f16.round(1.0 + 1.5 * ulp), 1.0 + 2.0 * ulp);
        assert_eq!(f16.max_finite(), 65504.0);
        assert_eq!(f16.round(65519.0), 65504.0);
        assert_eq!(f16.round(65520.0), f64::INFINITY);
        // The smallest subnormal and the halfway point below it.
        assert_eq!(f16.round(2f64.powi(-24)), 2f64.powi(-24));
        assert_eq!(f16.round(2f64.powi(-25)), 0.0);
        assert_eq!(f16.round(2f64.powi(-25) * 1.01), 2f64.powi(-24));
        assert_eq!(f16.encode(-0.0), 0x8000);
        assert!(f16.round(f64::NAN).is_nan());
    }

    #[test]
    fn bfloat16_keeps_float32_range_with_eight_bits_of_precision() {
        let bf16 = FloatFormat::BFLOAT16;
        assert_eq!(bf16.encode(1.0), 0x3f80);
        assert_eq!(bf16.round(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(
            bf16.round(1.0 + 2f64.powi(-8) + 2f64.powi(-30)),
            1.0 + 2f64.powi(-7)
        );
        // 3e38 = 1.763... * 2^127, and 1.763 * 128 = 225.7 rounds to 226.
        assert_eq!(bf16.round(3.0e38), 226.0 * 2f64.powi(120));
        assert_eq!(bf16.round(f64::MAX), f64::INFINITY);
    }

    #[test]
    fn float8_e4m3fn_has_no_infinity() {
        let e4m3 = FloatFormat::FLOAT8_E4M3FN;
        assert_eq!(e4m3.max_finite(), 448.0);
        assert_eq!(e4m3.encode(448.0), 0x7e);
        // 464 is halfway between 448 and the NaN pattern's slot; ties go to even (448).
        assert_eq!(e4m3.round(464.0), 448.0);
        assert!(e4m3.round(465.0).is_nan());
        assert!(e4m3.round(f64::INFINITY).is_nan());
        assert_eq!(e4m3.encode(f64::NAN), 0x7f);
        assert_eq!(e4m3.encode(-f64::NAN), 0xff);
        // Smallest subnormal 2^-9; the value below rounds to it or to zero.
        assert_eq!(e4m3.round(2f64.powi(-9)), 2f64.powi(-9));
        assert_eq!(e4m3.round(2f64.powi(-10)), 0.0);
        assert_eq!(e4m3.round(0.3), 0.3125);
        for bits in 0..=0xffu64 {
            let value = e4m3.decode(bits);
            if !value.is_nan() {
                assert_eq!(e4m3.encode(value), bits);
            }
        }
    }

    #[test]
    fn float8_e5m2_overflows_to_infinity() {
        let e5m2 = FloatFormat::FLOAT8_E5M2;
        assert_eq!(e5m2.max_finite(), 57344.0);
        assert_eq!(e5m2.round(61439.0), 57344.0);
        assert_eq!(e5m2.round(61440.0), f64::INFINITY);
        assert_eq!(e5m2.encode(f64::NEG_INFINITY), 0xfc);
        assert!(e5m2.decode(0x7e).is_nan());
        assert_eq!(e5m2.round(1.1), 1.0);
        assert_eq!(e5m2.round(1.125), 1.0);
        assert_eq!(e5m2.round(1.126), 1.25);
    }

    #[test]
    fn large_integers_round_once() {
        // 2^60 + 2^52 + 1 lies just above a bfloat16 tie only because of its
        // last bit, which a plain conversion to f64 would drop.
        let value = (1u64 << 60) + (1u64 << 52) + 1;
        let via_odd = integer_to_f64_round_to_odd(value);
        assert_eq!(
            FloatFormat::BFLOAT16.round(via_odd),
            2f64.powi(60) + 2f64.powi(53)
        );
        assert_eq!(integer_to_f64_round_to_odd(12345), 12345.0);
    }
}
