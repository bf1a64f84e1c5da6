//! NumPy `.npy` files (format versions 1 to 3, little-endian, C order) to and
//! from tensors. bfloat16, which NumPy lacks, is stored as its 16-bit
//! patterns (`<u2`) and read back from `<u2`, `<i2` or `|V2`.

use crate::interp::Tensor;
use crate::ir::{DataType, TypeCode};
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The NumPy type string of `dtype`.
fn descr_of(dtype: DataType) -> Result<&'static str, String> {
    Ok(match (dtype.code, dtype.bits) {
        (TypeCode::Bool, _) => "|b1",
        (TypeCode::Int, 8) => "|i1",
        (TypeCode::Int, 16) => "<i2",
        (TypeCode::Int, 32) => "<i4",
        (TypeCode::Int, 64) => "<i8",
        (TypeCode::UInt, 8) => "|u1",
        (TypeCode::UInt, 16) | (TypeCode::BFloat, 16) => "<u2",
        (TypeCode::UInt, 32) => "<u4",
        (TypeCode::UInt, 64) => "<u8",
        (TypeCode::Float, 16) => "<f2",
        (TypeCode::Float, 32) => "<f4",
        (TypeCode::Float, 64) => "<f8",
        _ => return Err(format!("{dtype} cannot be written as .npy")),
    })
}

/// Writes `tensor` to `path` (version 1.0). Vector element types add a
/// trailing dimension of their lanes.
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<(), String> {
    std::fs::write(path, encode_npy(tensor)?)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The bytes of a `.npy` file holding `tensor`.
pub fn encode_npy(tensor: &Tensor) -> Result<Vec<u8>, String> {
    let dtype = tensor.dtype();
    let descr = descr_of(dtype.element_of())?;
    let mut shape: Vec<usize> = tensor.shape().to_vec();
    if dtype.is_vector() {
        shape.push(usize::from(dtype.lanes));
    }
    let shape_text = match shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic, version, length, header and newline fill a multiple of 64 bytes.
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + header.len() + tensor.bytes().len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(tensor.bytes());
    Ok(bytes)
}

/// The value text of `key` in a `.npy` header dictionary.
fn header_field<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let start = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[start..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else if let Some(quoted) = rest.strip_prefix('\'') {
        quoted.find('\'')? + 2
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(rest[..end].trim())
}

/// Reads a `.npy` file as a tensor of `dtype` (the file's type must be that
/// type's NumPy type).
pub fn read_npy(path: &Path, dtype: DataType) -> Result<Tensor, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    decode_npy(&bytes, dtype).map_err(|message| format!("{}: {message}", path.display()))
}

/// Decodes `.npy` bytes as a tensor of `dtype`.
pub fn decode_npy(bytes: &[u8], dtype: DataType) -> Result<Tensor, String> {
    if !bytes.starts_with(MAGIC) || bytes.len() < 10 {
        return Err("not a .npy file".to_string());
    }
    let (header_length, header_start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        version => return Err(format!(".npy format version {version} is not supported")),
    };
    let header_end = header_start + header_length;
    let header = bytes
        .get(header_start..header_end)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("the .npy header is cut short or not text")?;
    let descr = header_field(header, "descr")
        .map(|d| d.trim_matches('\''))
        .ok_or("the .npy header has no 'descr'")?;
    if header_field(header, "fortran_order") == Some("True") {
        return Err("Fortran-ordered arrays are not supported; save a C-ordered copy".to_string());
    }
    let shape_text = header_field(header, "shape").ok_or("the .npy header has no 'shape'")?;
    let shape = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad shape {shape_text}"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let wanted = descr_of(dtype.element_of())?;
    let same_width_bits = dtype.code == TypeCode::BFloat && matches!(descr, "<i2" | "|V2" | "<V2");
    if descr != wanted && !same_width_bits {
        return Err(format!(
            "the array holds `{descr}`, but the parameter is {dtype} (`{wanted}`)"
        ));
    }
    let data = bytes[header_end..].to_vec();
    Tensor::from_bytes(dtype, &shape, data).map_err(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_type_shape_and_bytes() {
        let tensor = Tensor::from_f32(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let bytes = encode_npy(&tensor).unwrap();
        assert_eq!(
            (MAGIC.len() + 4 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]))) % 64,
            0
        );
        assert_eq!(decode_npy(&bytes, DataType::float32()).unwrap(), tensor);
        let scalar = Tensor::from_i32(&[], vec![7]).unwrap();
        assert_eq!(
            decode_npy(&encode_npy(&scalar).unwrap(), DataType::int32()).unwrap(),
            scalar
        );
    }

    #[test]
    fn mismatched_types_and_bad_files_say_why() {
        let tensor = Tensor::from_i32(&[1], vec![1]).unwrap();
        let error = decode_npy(&encode_npy(&tensor).unwrap(), DataType::float32()).unwrap_err();
        assert!(error.contains("<i4"), "{error}");
        assert!(decode_npy(b"hello", DataType::float32()).is_err());
    }
}
