//! Data types of TIR values: scalar kinds, bit widths and vector lanes.

use std::fmt;
use std::str::FromStr;

/// The kind of a scalar type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum TypeCode {
    /// Signed two's-complement integer.
    Int,
    /// Unsigned integer.
    UInt,
    /// IEEE floating point (16, 32, 64 bits).
    Float,
    /// bfloat16.
    BFloat,
    /// 8-bit float with 4 exponent bits, 3 mantissa bits, finite and NaN only.
    Float8E4M3FN,
    /// 8-bit float with 5 exponent bits, 2 mantissa bits.
    Float8E5M2,
    /// Boolean (one bit of information).
    Bool,
    /// An opaque pointer.
    Handle,
    /// No value.
    Void,
}

/// A TIR data type such as `float32`, `int64` or `float32x8`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    /// The scalar kind.
    pub code: TypeCode,
    /// Bits of one lane.
    pub bits: u16,
    /// Number of vector lanes; 1 for scalars.
    pub lanes: u16,
}

impl DataType {
    /// A scalar type of the given kind and width.
    pub const fn scalar(code: TypeCode, bits: u16) -> DataType {
        DataType {
            code,
            bits,
            lanes: 1,
        }
    }
    /// `int{bits}`.
    pub const fn int(bits: u16) -> DataType {
        DataType::scalar(TypeCode::Int, bits)
    }
    /// `uint{bits}`.
    pub const fn uint(bits: u16) -> DataType {
        DataType::scalar(TypeCode::UInt, bits)
    }
    /// `float{bits}`.
    pub const fn float(bits: u16) -> DataType {
        DataType::scalar(TypeCode::Float, bits)
    }
    /// `int32`, the default index type.
    pub const fn int32() -> DataType {
        DataType::int(32)
    }
    /// `int64`.
    pub const fn int64() -> DataType {
        DataType::int(64)
    }
    /// `float32`.
    pub const fn float32() -> DataType {
        DataType::float(32)
    }
    /// `bool`.
    pub const fn bool() -> DataType {
        DataType::scalar(TypeCode::Bool, 1)
    }
    /// `handle`, an opaque pointer.
    pub const fn handle() -> DataType {
        DataType::scalar(TypeCode::Handle, 64)
    }
    /// `void`.
    pub const fn void() -> DataType {
        DataType {
            code: TypeCode::Void,
            bits: 0,
            lanes: 1,
        }
    }

    /// The same scalar type with `lanes` lanes.
    pub fn with_lanes(self, lanes: u16) -> DataType {
        DataType { lanes, ..self }
    }
    /// The scalar type of one lane.
    pub fn element_of(self) -> DataType {
        self.with_lanes(1)
    }
    /// True when the type has one lane.
    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
    /// True for vector types.
    pub fn is_vector(self) -> bool {
        self.lanes > 1
    }
    /// True for signed integers.
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int
    }
    /// True for unsigned integers.
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt
    }
    /// True for signed or unsigned integers (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.code, TypeCode::Int | TypeCode::UInt)
    }
    /// True for every floating-point kind, bfloat16 and float8 included.
    pub fn is_float(self) -> bool {
        matches!(
            self.code,
            TypeCode::Float | TypeCode::BFloat | TypeCode::Float8E4M3FN | TypeCode::Float8E5M2
        )
    }
    /// True for `bool`.
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::Bool
    }
    /// True for `handle`.
    pub fn is_handle(self) -> bool {
        self.code == TypeCode::Handle
    }
    /// True for `void`.
    pub fn is_void(self) -> bool {
        self.code == TypeCode::Void
    }
    /// Size in bytes of one lane, rounded up (bool takes one byte in memory).
    pub fn bytes(self) -> usize {
        (self.bits as usize).div_ceil(8)
    }
    /// Size in bytes of a value with all its lanes, as it lies in memory.
    pub fn bytes_of_all_lanes(self) -> usize {
        self.bytes() * usize::from(self.lanes)
    }
}

impl fmt::Display for DataType {
    // Written straight into the formatter: printing a module shows a dtype per
    // literal and buffer, and a `String` per spelling showed in its profile.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            TypeCode::Int => write!(f, "int{}", self.bits)?,
            TypeCode::UInt => write!(f, "uint{}", self.bits)?,
            TypeCode::Float => write!(f, "float{}", self.bits)?,
            TypeCode::BFloat => write!(f, "bfloat{}", self.bits)?,
            TypeCode::Float8E4M3FN => f.write_str("float8_e4m3fn")?,
            TypeCode::Float8E5M2 => f.write_str("float8_e5m2")?,
            TypeCode::Bool => f.write_str("bool")?,
            TypeCode::Handle => f.write_str("handle")?,
            TypeCode::Void => f.write_str("void")?,
        }
        if self.lanes > 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a dtype string was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataTypeParseError {
    /// The string that was not a data type.
    pub text: String,
    /// The closest known spelling, when one is close.
    pub suggestion: Option<String>,
}

impl fmt::Display for DataTypeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown data type \"{}\"", self.text)?;
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean \"{s}\"?")?;
        }
        Ok(())
    }
}

/// Every scalar spelling tirc reads, in the order suggestions prefer them.
pub const KNOWN_SCALARS: &[&str] = &[
    "float32",
    "float16",
    "float64",
    "bfloat16",
    "int32",
    "int64",
    "int8",
    "int16",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "handle",
    "void",
    "float8_e4m3fn",
    "float8_e5m2",
];

fn parse_scalar(text: &str) -> Option<DataType> {
    let with_bits = |prefix: &str, code: TypeCode, allowed: &[u16]| -> Option<DataType> {
        let bits: u16 = text.strip_prefix(prefix)?.parse().ok()?;
        allowed
            .contains(&bits)
            .then_some(DataType::scalar(code, bits))
    };
    match text {
        "bool" => return Some(DataType::bool()),
        "handle" => return Some(DataType::handle()),
        "void" => return Some(DataType::void()),
        "float8_e4m3fn" | "e4m3_float8" => {
            return Some(DataType::scalar(TypeCode::Float8E4M3FN, 8))
        }
        "float8_e5m2" | "e5m2_float8" => return Some(DataType::scalar(TypeCode::Float8E5M2, 8)),
        _ => {}
    }
    if text.starts_with("uint") {
        with_bits("uint", TypeCode::UInt, &[1, 8, 16, 32, 64])
    } else if text.starts_with("int") {
        with_bits("int", TypeCode::Int, &[1, 4, 8, 16, 32, 64])
    } else if text.starts_with("bfloat") {
        with_bits("bfloat", TypeCode::BFloat, &[16])
    } else if text.starts_with("float") {
        with_bits("float", TypeCode::Float, &[16, 32, 64])
    } else {
        None
    }
}

/// Edit distance between two short strings (insertions, deletions,
/// substitutions and transpositions of neighbours), for "did you mean".
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in table[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[i - 1][j] + 1)
                .min(table[i][j - 1] + 1)
                .min(table[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
}

impl DataType {
    /// Parses a dtype name without building a suggestion on failure (the
    /// frontend tries every `T.name` as a dtype, so failure must be cheap).
    pub fn parse_known(text: &str) -> Option<DataType> {
        if let Some(dtype) = parse_scalar(text) {
            return Some(dtype);
        }
        // A vector type is a scalar name followed by `x` and the lane count.
        let position = text.rfind('x')?;
        let (scalar, lanes) = (&text[..position], &text[position + 1..]);
        match (parse_scalar(scalar), lanes.parse::<u16>()) {
            (Some(dtype), Ok(lanes)) if lanes >= 1 && !dtype.is_void() => {
                Some(dtype.with_lanes(lanes))
            }
            _ => None,
        }
    }
}

impl FromStr for DataType {
    type Err = DataTypeParseError;

    fn from_str(text: &str) -> Result<DataType, DataTypeParseError> {
        if let Some(dtype) = DataType::parse_known(text) {
            return Ok(dtype);
        }
        let suggestion = KNOWN_SCALARS
            .iter()
            .map(|known| (edit_distance(text, known), *known))
            .filter(|(distance, _)| *distance <= 2)
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, known)| known.to_string());
        Err(DataTypeParseError {
            text: text.to_string(),
            suggestion,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_scalar_kind() {
        for name in KNOWN_SCALARS {
            let dtype: DataType = name.parse().unwrap();
            assert_eq!(dtype.to_string(), *name);
        }
    }

    #[test]
    fn parses_vector_lanes() {
        let dtype: DataType = "float32x8".parse().unwrap();
        assert_eq!(dtype, DataType::float32().with_lanes(8));
        assert_eq!(dtype.to_string(), "float32x8");
        assert_eq!("float8_e4m3fnx4".parse::<DataType>().unwrap().lanes, 4);
    }

    #[test]
    fn misspelled_dtype_suggests_the_closest_name() {
        let error = "float33".parse::<DataType>().unwrap_err();
        assert_eq!(error.suggestion.as_deref(), Some("float32"));
        assert!("int7".parse::<DataType>().is_err());
        assert!("floatx4".parse::<DataType>().is_err());
    }
}
