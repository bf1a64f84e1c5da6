//! Tensors passed to and from an interpreted function: a data type, a shape
//! and contiguous row-major little-endian bytes; with constructors, seeded
//! random fill and the comparisons tests use to check results.

use super::error::{InterpError, InterpResult};
use super::layout::{decode_element, encode_element};
use super::value::{cast_scalar, scalar_as_f64, ElementType, Scalar, Value};
use crate::ir::DataType;

/// A dense row-major tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    dtype: DataType,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

/// How far two tensors may differ and still be equal: `|actual - expected| <=
/// absolute + relative * |expected|` in every element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Allowed absolute difference.
    pub absolute: f64,
    /// Allowed difference relative to the expected value.
    pub relative: f64,
}

impl Tolerance {
    /// No difference at all.
    pub const EXACT: Tolerance = Tolerance {
        absolute: 0.0,
        relative: 0.0,
    };

    /// The tolerance for results of type `dtype`: exact for integers and
    /// bools, a few ulps of accumulated rounding for floats (about 1e-5 for
    /// float32, 1e-2 for float16 and bfloat16).
    pub fn for_dtype(dtype: DataType) -> Tolerance {
        let both = |value: f64| Tolerance {
            absolute: value,
            relative: value,
        };
        match ElementType::of(dtype) {
            Ok(ElementType::Float64) => both(1e-10),
            Ok(ElementType::Float32) => both(1e-5),
            Ok(ElementType::Float16) | Ok(ElementType::BFloat16) => both(1e-2),
            Ok(ElementType::Float8E4M3FN) => both(0.125),
            Ok(ElementType::Float8E5M2) => both(0.25),
            _ => Tolerance::EXACT,
        }
    }

    /// [`Tolerance::for_dtype`] for comparing with `expected`, an output a
    /// reduction may have computed in another order: such an order errs by
    /// the size of the partial sums, not of the result (which cancellation
    /// can make tiny), so the absolute part scales with the largest magnitude
    /// in `expected`.
    pub fn for_output(expected: &Tensor) -> Tolerance {
        let mut tolerance = Tolerance::for_dtype(expected.dtype());
        let largest = expected
            .to_f64_vec()
            .map(|values| values.iter().fold(0.0f64, |m, v| m.max(v.abs())))
            .unwrap_or(1.0);
        if largest.is_finite() {
            tolerance.absolute *= largest.max(1.0);
        }
        tolerance
    }
}

/// A SplitMix64 generator: tiny, deterministic on every platform, and good
/// enough to fill test inputs.
#[derive(Clone, Debug)]
pub struct SeededRandom {
    state: u64,
}

impl SeededRandom {
    /// A generator whose sequence depends only on `seed`.
    pub fn new(seed: u64) -> SeededRandom {
        SeededRandom { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A float uniformly distributed in `[-1, 1)`.
    pub fn next_signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn element_count(shape: &[usize]) -> InterpResult<usize> {
    shape
        .iter()
        .try_fold(1usize, |count, extent| count.checked_mul(*extent))
        .ok_or_else(|| InterpError::new(format!("a tensor of shape {shape:?} is too large")))
}

impl Tensor {
    /// A tensor of zeros (`False` for bool, `+0.0` for floats).
    pub fn zeros(dtype: DataType, shape: &[usize]) -> InterpResult<Tensor> {
        let element = ElementType::of(dtype)?;
        let size = element_count(shape)?
            .checked_mul(element.byte_size() * dtype.lanes as usize)
            .ok_or_else(|| InterpError::new(format!("a tensor of shape {shape:?} is too large")))?;
        Ok(Tensor {
            dtype,
            shape: shape.to_vec(),
            bytes: vec![0; size],
        })
    }

    /// A tensor of type `dtype` from raw little-endian bytes.
    pub fn from_bytes(dtype: DataType, shape: &[usize], bytes: Vec<u8>) -> InterpResult<Tensor> {
        let zeros = Tensor::zeros(dtype, &[])?;
        let expected = element_count(shape)?
            .checked_mul(zeros.bytes.len())
            .ok_or_else(|| InterpError::new(format!("a tensor of shape {shape:?} is too large")))?;
        if bytes.len() != expected {
            return Err(InterpError::new(format!(
                "a {dtype} tensor of shape {shape:?} takes {expected} bytes, found {}",
                bytes.len()
            )));
        }
        Ok(Tensor {
            dtype,
            shape: shape.to_vec(),
            bytes,
        })
    }

    /// A tensor of type `dtype` from lane values: floats are rounded to the
    /// format, integers truncated (out of range is an error).
    pub fn from_f64s(dtype: DataType, shape: &[usize], values: &[f64]) -> InterpResult<Tensor> {
        let mut tensor = Tensor::zeros(dtype, shape)?;
        tensor.check_lane_count(values.len())?;
        let element = dtype.element_of();
        for (position, value) in values.iter().enumerate() {
            tensor.write_lane(position, &Value::float(element, *value)?)?;
        }
        Ok(tensor)
    }

    /// A tensor of type `dtype` from integer lane values, wrapped to the width.
    pub fn from_i64s(dtype: DataType, shape: &[usize], values: &[i64]) -> InterpResult<Tensor> {
        let mut tensor = Tensor::zeros(dtype, shape)?;
        tensor.check_lane_count(values.len())?;
        let element = dtype.element_of();
        for (position, value) in values.iter().enumerate() {
            tensor.write_lane(position, &Value::int(element, *value)?)?;
        }
        Ok(tensor)
    }

    /// A `float32` tensor.
    pub fn from_f32(shape: &[usize], values: Vec<f32>) -> InterpResult<Tensor> {
        let values: Vec<f64> = values.into_iter().map(f64::from).collect();
        Tensor::from_f64s(DataType::float32(), shape, &values)
    }

    /// An `int32` tensor.
    pub fn from_i32(shape: &[usize], values: Vec<i32>) -> InterpResult<Tensor> {
        let values: Vec<i64> = values.into_iter().map(i64::from).collect();
        Tensor::from_i64s(DataType::int32(), shape, &values)
    }

    /// A tensor filled from a seeded generator: floats uniform in `[-1, 1)`
    /// (rounded to the format), signed integers in `[-8, 8)`, unsigned in
    /// `[0, 16)` (small, so sums of products stay exact), bools fair.
    pub fn random(dtype: DataType, shape: &[usize], seed: u64) -> InterpResult<Tensor> {
        let mut tensor = Tensor::zeros(dtype, shape)?;
        let element = ElementType::of(dtype)?;
        if element == ElementType::Handle {
            return Err(InterpError::new("a tensor of handles cannot be random"));
        }
        let mut generator = SeededRandom::new(seed);
        // Lane by lane straight into the bytes, converted as `Value` converts:
        // inputs of hundreds of megabytes are made in a fraction of a second.
        // float32, the common case, rounds as the conversion does: `as f32`.
        if element == ElementType::Float32 {
            for lane in tensor.bytes.chunks_exact_mut(4) {
                lane.copy_from_slice(&(generator.next_signed_unit() as f32).to_le_bytes());
            }
            return Ok(tensor);
        }
        for lane in tensor.bytes.chunks_exact_mut(element.byte_size()) {
            let scalar = match element {
                ElementType::Bool => Scalar::Bool(generator.next_u64() & 1 == 1),
                ElementType::Int(_) => cast_scalar(
                    ElementType::Int(64),
                    Scalar::Int((generator.next_u64() % 16) as i64 - 8),
                    element,
                )?,
                ElementType::UInt(_) => cast_scalar(
                    ElementType::Int(64),
                    Scalar::Int((generator.next_u64() % 16) as i64),
                    element,
                )?,
                _ => cast_scalar(
                    ElementType::Float64,
                    Scalar::Float(generator.next_signed_unit()),
                    element,
                )?,
            };
            encode_element(scalar, element, lane)?;
        }
        Ok(tensor)
    }

    /// The element type (with lanes, for tensors of vectors).
    pub fn dtype(&self) -> DataType {
        self.dtype
    }
    /// The extents.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The raw little-endian bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The number of elements.
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }
    /// The number of scalar lanes (elements times the lanes of the dtype).
    pub fn lane_count(&self) -> usize {
        self.element_count() * self.dtype.lanes as usize
    }

    /// Takes the bytes out, leaving the tensor empty; the interpreter lends
    /// them to the program and gives them back with [`Tensor::restore_bytes`].
    pub(crate) fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
    /// Puts back bytes taken by [`Tensor::take_bytes`].
    pub(crate) fn restore_bytes(&mut self, bytes: Vec<u8>) {
        self.bytes = bytes;
    }

    fn check_lane_count(&self, count: usize) -> InterpResult<()> {
        if count == self.lane_count() {
            Ok(())
        } else {
            Err(InterpError::new(format!(
                "a {} tensor of shape {:?} holds {} values, {count} were given",
                self.dtype,
                self.shape,
                self.lane_count()
            )))
        }
    }

    fn lane_offset(&self, position: usize) -> InterpResult<(ElementType, usize)> {
        let element = ElementType::of(self.dtype)?;
        if position >= self.lane_count() {
            return Err(InterpError::new(format!(
                "lane {position} is outside a tensor of {} lanes",
                self.lane_count()
            )));
        }
        Ok((element, position * element.byte_size()))
    }

    /// One scalar lane, counting lanes in row-major order.
    pub fn lane(&self, position: usize) -> InterpResult<Scalar> {
        let (element, offset) = self.lane_offset(position)?;
        decode_element(self.bytes.get(offset..).unwrap_or_default(), element)
    }

    fn write_lane(&mut self, position: usize, value: &Value) -> InterpResult<()> {
        let (element, offset) = self.lane_offset(position)?;
        let bytes = self.bytes.get_mut(offset..).unwrap_or_default();
        encode_element(value.scalar()?, element, bytes)
    }

    /// The element at a multi-dimensional index.
    pub fn get(&self, index: &[usize]) -> InterpResult<Value> {
        let flat = self.flat_index(index)?;
        let lanes_per_element = self.dtype.lanes as usize;
        let lanes = (0..lanes_per_element)
            .map(|lane| self.lane(flat * lanes_per_element + lane))
            .collect::<InterpResult<Vec<Scalar>>>()?;
        Ok(Value::from_canonical_lanes(self.dtype.element_of(), lanes))
    }

    /// Sets the element at a multi-dimensional index to `value` converted to
    /// the tensor's type.
    pub fn set(&mut self, index: &[usize], value: &Value) -> InterpResult<()> {
        let flat = self.flat_index(index)?;
        let converted = value.cast(self.dtype)?;
        let lanes_per_element = self.dtype.lanes as usize;
        for (lane, scalar) in converted.lanes().iter().enumerate() {
            let single = Value::from_canonical_scalar(self.dtype.element_of(), *scalar);
            self.write_lane(flat * lanes_per_element + lane, &single)?;
        }
        Ok(())
    }

    fn flat_index(&self, index: &[usize]) -> InterpResult<usize> {
        if index.len() != self.shape.len()
            || index.iter().zip(&self.shape).any(|(i, extent)| i >= extent)
        {
            return Err(InterpError::new(format!(
                "index {index:?} is outside a tensor of shape {:?}",
                self.shape
            )));
        }
        Ok(index
            .iter()
            .zip(&self.shape)
            .fold(0, |flat, (i, extent)| flat * extent + i))
    }

    fn unravel(&self, element: usize) -> Vec<usize> {
        let mut index = vec![0; self.shape.len()];
        let mut rest = element;
        for (slot, extent) in index.iter_mut().zip(&self.shape).rev() {
            if *extent > 0 {
                *slot = rest % extent;
                rest /= extent;
            }
        }
        index
    }

    /// Every lane as `f64` (bools as 0/1), in row-major order.
    pub fn to_f64_vec(&self) -> InterpResult<Vec<f64>> {
        (0..self.lane_count())
            .map(|position| self.lane_f64(position))
            .collect()
    }

    /// Every lane of an integer or bool tensor as `i64` (unsigned values
    /// above `i64::MAX` wrap).
    pub fn to_i64_vec(&self) -> InterpResult<Vec<i64>> {
        (0..self.lane_count())
            .map(|position| match self.lane(position)? {
                Scalar::Bool(value) => Ok(value as i64),
                Scalar::Int(value) => Ok(value),
                Scalar::UInt(value) => Ok(value as i64),
                _ => Err(InterpError::new(format!(
                    "a {} tensor has no integer values",
                    self.dtype
                ))),
            })
            .collect()
    }

    /// Compares `self` with `expected` lane by lane, in one pass that
    /// decodes each lane as it goes: outputs of a gigabyte are compared
    /// without building arrays of them.
    pub fn compare(&self, expected: &Tensor, tolerance: Tolerance) -> InterpResult<Comparison> {
        if self.shape != expected.shape || self.dtype.lanes != expected.dtype.lanes {
            return Err(InterpError::new(format!(
                "cannot compare a {} tensor of shape {:?} with a {} tensor of shape {:?}",
                self.dtype, self.shape, expected.dtype, expected.shape
            )));
        }
        let mut comparison = Comparison {
            lanes: self.lane_count(),
            max_abs_error: 0.0,
            max_rel_error: 0.0,
            mismatches: 0,
            first_mismatch: None,
        };
        let mut record = |position: usize, actual: f64, wanted: f64| {
            let error = absolute_error(actual, wanted);
            comparison.max_abs_error = comparison.max_abs_error.max(error);
            // Zero where both are equal, infinite where only `expected` is zero.
            let relative = if error == 0.0 {
                0.0
            } else {
                error / wanted.abs()
            };
            comparison.max_rel_error = comparison.max_rel_error.max(relative);
            if error > tolerance.absolute + tolerance.relative * wanted.abs() {
                comparison.mismatches += 1;
                comparison
                    .first_mismatch
                    .get_or_insert((position, actual, wanted));
            }
        };
        let float32 = |tensor: &Tensor| tensor.dtype.element_of() == DataType::float32();
        if float32(self) && float32(expected) {
            // The common case, read straight from the bytes.
            let pairs = self
                .bytes
                .chunks_exact(4)
                .zip(expected.bytes.chunks_exact(4));
            let decode = |lane: &[u8]| f32::from_le_bytes([lane[0], lane[1], lane[2], lane[3]]);
            for (position, (actual, wanted)) in pairs.enumerate() {
                record(position, decode(actual) as f64, decode(wanted) as f64);
            }
        } else {
            for position in 0..self.lane_count() {
                record(
                    position,
                    self.lane_f64(position)?,
                    expected.lane_f64(position)?,
                );
            }
        }
        Ok(comparison)
    }

    /// One lane as `f64`.
    fn lane_f64(&self, position: usize) -> InterpResult<f64> {
        scalar_as_f64(self.lane(position)?)
            .ok_or_else(|| InterpError::new("a tensor of handles has no numeric values"))
    }

    /// The largest `|self - other|` over all elements; two NaNs count as equal,
    /// one NaN as an infinite error.
    pub fn max_abs_error(&self, other: &Tensor) -> InterpResult<f64> {
        Ok(self.compare(other, Tolerance::EXACT)?.max_abs_error)
    }

    /// The largest `|self - expected| / |expected|` over all elements (zero
    /// where both are zero, infinite where only `expected` is).
    pub fn max_rel_error(&self, expected: &Tensor) -> InterpResult<f64> {
        Ok(self.compare(expected, Tolerance::EXACT)?.max_rel_error)
    }

    /// Checks that `self` equals `expected` within `tolerance` in every
    /// element; the error says how many differ and shows the first.
    pub fn check_close(&self, expected: &Tensor, tolerance: Tolerance) -> InterpResult<()> {
        self.compare(expected, tolerance)?
            .into_result(self, tolerance)
    }
}

/// What [`Tensor::compare`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Lanes compared.
    pub lanes: usize,
    /// The largest absolute difference (two NaNs are equal, one NaN is infinitely far).
    pub max_abs_error: f64,
    /// The largest difference relative to the expected value.
    pub max_rel_error: f64,
    /// Lanes that differ beyond the tolerance.
    pub mismatches: usize,
    /// The first such lane, with the value found and the value expected.
    pub first_mismatch: Option<(usize, f64, f64)>,
}

impl Comparison {
    /// `Ok` when nothing differs beyond `tolerance`; otherwise an error that
    /// says how many values differ and where the first is in `actual`.
    pub fn into_result(&self, actual: &Tensor, tolerance: Tolerance) -> InterpResult<()> {
        let Some((first, found, wanted)) = self.first_mismatch else {
            return Ok(());
        };
        let lanes_per_element = actual.dtype.lanes.max(1) as usize;
        Err(InterpError::new(format!(
            "{} of {} values differ beyond {} + {} * |expected|; the first at {:?}: expected {wanted}, found {found}",
            self.mismatches,
            self.lanes,
            tolerance.absolute,
            tolerance.relative,
            actual.unravel(first / lanes_per_element)
        )))
    }
}

fn absolute_error(a: f64, b: f64) -> f64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0.0,
        (false, false) if a == b => 0.0,
        (false, false) => (a - b).abs(),
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fill converts each lane as a `Value` of the type would: the
    /// same bytes as building one per lane and writing it.
    #[test]
    fn random_fill_matches_conversion_through_values() {
        let types = [
            DataType::bool(),
            DataType::int(8),
            DataType::int(32),
            DataType::int(64),
            DataType::uint(8),
            DataType::uint(16),
            DataType::float(16),
            DataType::scalar(crate::ir::TypeCode::BFloat, 16),
            DataType::float32(),
            DataType::float(64),
            DataType::float32().with_lanes(4),
        ];
        for dtype in types {
            let filled = Tensor::random(dtype, &[3, 5], 11).unwrap();
            let mut expected = Tensor::zeros(dtype, &[3, 5]).unwrap();
            let mut generator = SeededRandom::new(11);
            let scalar_type = dtype.element_of();
            for position in 0..expected.lane_count() {
                let value = match ElementType::of(dtype).unwrap() {
                    ElementType::Bool => Value::bool(generator.next_u64() & 1 == 1),
                    ElementType::Int(_) => {
                        Value::int(scalar_type, (generator.next_u64() % 16) as i64 - 8).unwrap()
                    }
                    ElementType::UInt(_) => {
                        Value::int(scalar_type, (generator.next_u64() % 16) as i64).unwrap()
                    }
                    _ => Value::float(scalar_type, generator.next_signed_unit()).unwrap(),
                };
                expected.write_lane(position, &value).unwrap();
            }
            assert_eq!(filled, expected, "{dtype}");
        }
        assert!(Tensor::random(DataType::handle(), &[2], 1).is_err());
    }

    #[test]
    fn random_fill_is_deterministic_and_in_range() {
        let a = Tensor::random(DataType::float32(), &[4, 8], 1).unwrap();
        let b = Tensor::random(DataType::float32(), &[4, 8], 1).unwrap();
        let c = Tensor::random(DataType::float32(), &[4, 8], 2).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a
            .to_f64_vec()
            .unwrap()
            .iter()
            .all(|x| (-1.0..1.0).contains(x)));
        let ints = Tensor::random(DataType::int(8), &[100], 3).unwrap();
        assert!(ints
            .to_i64_vec()
            .unwrap()
            .iter()
            .all(|x| (-8..8).contains(x)));
    }

    #[test]
    fn get_and_set_use_row_major_indices() {
        let mut tensor = Tensor::from_f32(&[2, 3], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(tensor.get(&[1, 2]).unwrap().as_f64().unwrap(), 5.0);
        tensor
            .set(&[0, 1], &Value::float(DataType::float(64), 9.5).unwrap())
            .unwrap();
        assert_eq!(
            tensor.to_f64_vec().unwrap(),
            vec![0.0, 9.5, 2.0, 3.0, 4.0, 5.0]
        );
        assert!(tensor.get(&[2, 0]).is_err());
        assert!(Tensor::from_f32(&[2, 2], vec![1.0]).is_err());
    }

    #[test]
    fn constructors_round_to_the_format() {
        let tensor =
            Tensor::from_f64s(DataType::float(16), &[2], &[1.0 + 2f64.powi(-11), 0.1]).unwrap();
        assert_eq!(tensor.to_f64_vec().unwrap(), vec![1.0, 0.0999755859375]);
        assert_eq!(tensor.bytes().len(), 4);
        let bytes = Tensor::from_i64s(DataType::uint(8), &[2], &[256, -1]).unwrap();
        assert_eq!(bytes.to_i64_vec().unwrap(), vec![0, 255]);
    }

    /// A reduction summed in another order (rfactor) errs by its partial
    /// sums: a small element beside a large one gets the large one's slack
    /// (seed 64 trial 1552: 1.2e-5 off at -0.026 beside elements above 1).
    #[test]
    fn output_tolerance_scales_with_the_largest_expected_magnitude() {
        let expected = Tensor::from_f32(&[2], vec![-0.026435, 4.0]).unwrap();
        let reordered = Tensor::from_f32(&[2], vec![-0.026423, 4.0]).unwrap();
        let for_dtype = Tolerance::for_dtype(DataType::float32());
        assert!(reordered.check_close(&expected, for_dtype).is_err());
        let for_output = Tolerance::for_output(&expected);
        assert!((for_output.absolute - 4e-5).abs() < 1e-12);
        assert!(reordered.check_close(&expected, for_output).is_ok());
        let wrong = Tensor::from_f32(&[2], vec![-0.0262, 4.0]).unwrap();
        assert!(wrong.check_close(&expected, for_output).is_err());
    }

    #[test]
    fn comparisons_report_errors_and_mismatches() {
        let expected = Tensor::from_f32(&[3], vec![1.0, 2.0, 0.0]).unwrap();
        let actual = Tensor::from_f32(&[3], vec![1.0, 2.001, 0.0]).unwrap();
        let abs = actual.max_abs_error(&expected).unwrap();
        assert!((abs - 0.001).abs() < 1e-6);
        assert!((actual.max_rel_error(&expected).unwrap() - 0.0005).abs() < 1e-6);
        let error = actual
            .check_close(&expected, Tolerance::for_dtype(DataType::float32()))
            .unwrap_err();
        assert!(error.message.contains("1 of 3 values"), "{error}");
        assert!(error.message.contains("[1]"), "{error}");
        assert!(actual
            .check_close(
                &expected,
                Tolerance {
                    absolute: 0.01,
                    relative: 0.0
                }
            )
            .is_ok());
        let nan = Tensor::from_f32(&[1], vec![f32::NAN]).unwrap();
        assert_eq!(nan.max_abs_error(&nan).unwrap(), 0.0);
        let other_shape = Tensor::from_f32(&[1, 3], vec![1.0, 2.0, 0.0]).unwrap();
        assert!(actual.max_abs_error(&other_shape).is_err());
        // One pass gives all three answers; an expected zero with a nonzero
        // result is infinitely far in relative terms.
        let wrong = Tensor::from_f32(&[3], vec![1.5, 2.0, 0.25]).unwrap();
        let comparison = wrong.compare(&expected, Tolerance::EXACT).unwrap();
        assert_eq!(comparison.lanes, 3);
        assert_eq!(comparison.max_abs_error, 0.5);
        assert_eq!(comparison.max_rel_error, f64::INFINITY);
        assert_eq!(comparison.mismatches, 2);
        assert_eq!(comparison.first_mismatch, Some((0, 1.5, 1.0)));
        let message = comparison
            .into_result(&wrong, Tolerance::EXACT)
            .unwrap_err()
            .message;
        assert!(message.starts_with("2 of 3 values"), "{message}");
        assert!(
            message.contains("the first at [0]: expected 1, found 1.5"),
            "{message}"
        );
        // Other types go lane by lane through their decoders, float32 through its bytes.
        let ints = Tensor::from_i64s(DataType::int32(), &[3], &[1, 3, 0]).unwrap();
        let comparison = ints.compare(&expected, Tolerance::EXACT).unwrap();
        assert_eq!(comparison.mismatches, 1);
        assert_eq!(comparison.first_mismatch, Some((1, 3.0, 2.0)));
    }
}
