//! How one element of each type sits in memory: little-endian bytes, one
//! byte for `bool`, whole bytes for integers narrower than 8 bits.

use super::error::{InterpError, InterpResult};
use super::value::{wrap_signed, wrap_unsigned, ElementType, Scalar};

impl ElementType {
    /// Bytes one lane takes in memory.
    pub fn byte_size(self) -> usize {
        match self {
            ElementType::Bool | ElementType::Float8E4M3FN | ElementType::Float8E5M2 => 1,
            ElementType::Int(bits) | ElementType::UInt(bits) => (bits as usize).div_ceil(8),
            ElementType::Float16 | ElementType::BFloat16 => 2,
            ElementType::Float32 => 4,
            ElementType::Float64 | ElementType::Handle => 8,
        }
    }
}

/// Reads one lane from the start of `bytes`, which holds at least
/// `element.byte_size()` bytes.
pub fn decode_element(bytes: &[u8], element: ElementType) -> InterpResult<Scalar> {
    let size = element.byte_size();
    let Some(bytes) = bytes.get(..size) else {
        return Err(InterpError::new(format!(
            "reading {element:?} needs {size} bytes, {} are left",
            bytes.len()
        )));
    };
    let mut little_endian = [0u8; 8];
    little_endian[..size].copy_from_slice(bytes);
    let pattern = u64::from_le_bytes(little_endian);
    Ok(match element {
        ElementType::Bool => Scalar::Bool(pattern != 0),
        ElementType::Int(bits) => Scalar::Int(wrap_signed(pattern as i64, bits)),
        ElementType::UInt(bits) => Scalar::UInt(wrap_unsigned(pattern, bits)),
        ElementType::Float32 => Scalar::Float(f32::from_bits(pattern as u32) as f64),
        ElementType::Float64 => Scalar::Float(f64::from_bits(pattern)),
        ElementType::Handle => Scalar::Handle(pattern),
        narrow => match narrow.narrow_float_format() {
            Some(format) => Scalar::Float(format.decode(pattern)),
            None => Scalar::UInt(pattern),
        },
    })
}

/// Writes one lane (canonical for `element`) to the start of `bytes`.
pub fn encode_element(scalar: Scalar, element: ElementType, bytes: &mut [u8]) -> InterpResult<()> {
    let size = element.byte_size();
    let available = bytes.len();
    let Some(target) = bytes.get_mut(..size) else {
        return Err(InterpError::new(format!(
            "writing {element:?} needs {size} bytes, {available} are left"
        )));
    };
    let pattern: u64 = match (scalar, element) {
        (Scalar::Bool(value), _) => value as u64,
        (Scalar::Int(value), _) => value as u64,
        (Scalar::UInt(value), _) => value,
        (Scalar::Handle(value), _) => value,
        (Scalar::Float(value), ElementType::Float32) => (value as f32).to_bits() as u64,
        (Scalar::Float(value), ElementType::Float64) => value.to_bits(),
        (Scalar::Float(value), narrow) => match narrow.narrow_float_format() {
            Some(format) => format.encode(value),
            None => {
                return Err(InterpError::new(format!(
                    "cannot store the float {value} as {element:?}"
                )))
            }
        },
    };
    target.copy_from_slice(&pattern.to_le_bytes()[..size]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_type_round_trips_through_bytes() {
        let cases = [
            (ElementType::Bool, Scalar::Bool(true)),
            (ElementType::Int(8), Scalar::Int(-5)),
            (ElementType::Int(4), Scalar::Int(-8)),
            (ElementType::UInt(16), Scalar::UInt(65535)),
            (ElementType::Int(64), Scalar::Int(i64::MIN)),
            (ElementType::Float16, Scalar::Float(-1.5)),
            (ElementType::BFloat16, Scalar::Float(-2f64.powi(100))),
            (ElementType::Float32, Scalar::Float(0.1f32 as f64)),
            (ElementType::Float64, Scalar::Float(0.1)),
            (ElementType::Float8E4M3FN, Scalar::Float(-448.0)),
            (ElementType::Float8E5M2, Scalar::Float(0.75)),
            (ElementType::Handle, Scalar::Handle(42)),
        ];
        for (element, scalar) in cases {
            let mut bytes = [0u8; 8];
            encode_element(scalar, element, &mut bytes).unwrap();
            let decoded = decode_element(&bytes, element).unwrap();
            assert_eq!(decoded, scalar, "{element:?}");
        }
    }

    #[test]
    fn float16_is_little_endian() {
        let mut bytes = [0u8; 2];
        encode_element(Scalar::Float(1.0), ElementType::Float16, &mut bytes).unwrap();
        assert_eq!(bytes, [0x00, 0x3c]);
    }

    #[test]
    fn short_buffers_are_errors() {
        assert!(decode_element(&[0, 0], ElementType::Float32).is_err());
        assert!(encode_element(Scalar::Float(1.0), ElementType::Float64, &mut [0u8; 4]).is_err());
    }
}
