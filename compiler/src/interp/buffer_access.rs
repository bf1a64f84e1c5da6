//! Loads and stores through buffers: evaluating a buffer's shape, strides and
//! element offset, turning indices (scalar or `Ramp` vectors) into element
//! offsets with a bounds check per dimension, and moving the bytes.

use super::error::{InterpError, InterpResult};
use super::layout::{decode_element, encode_element};
use super::machine::Interpreter;
use super::value::{wrap_signed, ElementType, Scalar, Value};
use crate::ir::{Buffer, BufferType, Expr};
use std::rc::Rc;

/// A buffer's layout with every expression evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferGeometry {
    /// Extent of each dimension.
    pub shape: Vec<i64>,
    /// Stride of each dimension in elements (row-major when the buffer
    /// declares none; 0 for broadcast dimensions of `buffer_type="auto"`).
    pub strides: Vec<i64>,
    /// Offset of element `[0, ..., 0]` in elements.
    pub elem_offset: i64,
}

impl BufferGeometry {
    /// How many elements of storage the buffer reaches, from the start of
    /// the storage: one past its furthest element.
    pub fn required_elements(&self) -> InterpResult<i64> {
        if self.shape.contains(&0) {
            return Ok(0);
        }
        let mut furthest = self.elem_offset;
        for (extent, stride) in self.shape.iter().zip(&self.strides) {
            let reach = (extent - 1)
                .checked_mul(*stride)
                .ok_or_else(|| InterpError::new("buffer size overflows 64 bits"))?;
            furthest = furthest
                .checked_add(reach.max(0))
                .ok_or_else(|| InterpError::new("buffer size overflows 64 bits"))?;
        }
        Ok(furthest + 1)
    }
}

/// Row-major strides of `shape`.
pub fn compact_strides(shape: &[i64]) -> InterpResult<Vec<i64>> {
    let mut strides = vec![1i64; shape.len()];
    for dimension in (0..shape.len().saturating_sub(1)).rev() {
        strides[dimension] = strides[dimension + 1]
            .checked_mul(shape[dimension + 1].max(0))
            .ok_or_else(|| InterpError::new("buffer strides overflow 64 bits"))?;
    }
    Ok(strides)
}

/// Whether an access reads or writes, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A `BufferLoad`.
    Load,
    /// A `BufferStore`.
    Store,
}

impl AccessKind {
    fn describe(self) -> &'static str {
        match self {
            AccessKind::Load => "load from",
            AccessKind::Store => "store to",
        }
    }
}

fn format_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

impl Interpreter<'_> {
    /// Evaluates an expression that must be a scalar integer.
    pub fn eval_i64(&mut self, expr: &Expr) -> InterpResult<i64> {
        // A literal of a signed type that holds it, such as a domain bound,
        // is its own value: no `Value` needs building.
        if let (Some(value), Ok(ElementType::Int(bits))) =
            (expr.as_int(), ElementType::of(expr.dtype()))
        {
            if expr.dtype().lanes <= 1 && wrap_signed(value, bits) == value {
                return Ok(value);
            }
        }
        self.eval(expr)?
            .as_i64()
            .map_err(|error| error.or_at(expr.span()))
    }

    /// The evaluated layout of `buffer`.
    /// Shared, since the same layout serves every access to the buffer.
    pub fn buffer_geometry(&mut self, buffer: &Buffer) -> InterpResult<Rc<BufferGeometry>> {
        if let Some(view) = self.buffer_views.get(&buffer.id()) {
            return Ok(Rc::clone(view));
        }
        if let Some(geometry) = self.constant_geometries.get(&buffer.id()) {
            return Ok(Rc::clone(geometry));
        }
        let node = buffer.node();
        let is_constant = node
            .shape
            .iter()
            .chain(&node.strides)
            .chain(std::iter::once(&node.elem_offset))
            .all(|expr| expr.as_int().is_some());
        let shape = node
            .shape
            .iter()
            .map(|extent| self.eval_i64(extent))
            .collect::<InterpResult<Vec<i64>>>()?;
        let mut strides = if node.strides.is_empty() {
            compact_strides(&shape)?
        } else {
            if node.strides.len() != shape.len() {
                return Err(InterpError::at(
                    format!(
                        "buffer `{}` has {} strides for {} dimensions",
                        buffer.name(),
                        node.strides.len(),
                        shape.len()
                    ),
                    buffer.span(),
                ));
            }
            node.strides
                .iter()
                .map(|stride| self.eval_i64(stride))
                .collect::<InterpResult<Vec<i64>>>()?
        };
        if node.buffer_type == BufferType::AutoBroadcast {
            for (stride, extent) in strides.iter_mut().zip(&shape) {
                if *extent == 1 {
                    *stride = 0;
                }
            }
        }
        let elem_offset = self.eval_i64(&node.elem_offset)?;
        let geometry = Rc::new(BufferGeometry {
            shape,
            strides,
            elem_offset,
        });
        if is_constant {
            self.constant_geometries
                .insert(buffer.id(), Rc::clone(&geometry));
        }
        Ok(geometry)
    }

    /// The storage handle behind `buffer`'s data pointer.
    fn buffer_storage(&self, buffer: &Buffer) -> InterpResult<u64> {
        if !self.is_bound(buffer.data()) {
            return Err(InterpError::new(format!(
                "buffer `{}` is used outside the scope that gives it storage",
                buffer.name()
            )));
        }
        let handle = self.lookup(buffer.data())?.as_handle()?;
        if handle == 0 {
            return Err(InterpError::new(format!(
                "buffer `{}` has a null data pointer (its allocation's condition was false)",
                buffer.name()
            )));
        }
        Ok(handle)
    }

    /// The element offset of every lane of an access, after checking each
    /// index against the buffer's shape.
    fn element_offsets(
        &mut self,
        buffer: &Buffer,
        indices: &[Expr],
        kind: AccessKind,
    ) -> InterpResult<Vec<i64>> {
        let geometry = self.buffer_geometry(buffer)?;
        if indices.len() != geometry.shape.len() {
            return Err(InterpError::new(format!(
                "{} buffer `{}` with {} indices, but it has {} dimensions",
                kind.describe(),
                buffer.name(),
                indices.len(),
                geometry.shape.len()
            )));
        }
        let index_values = indices
            .iter()
            .map(|index| self.eval(index))
            .collect::<InterpResult<Vec<Value>>>()?;
        let lanes = index_values
            .iter()
            .map(Value::lane_count)
            .max()
            .unwrap_or(1);
        if let Some(bad) = index_values
            .iter()
            .find(|value| value.lane_count() != 1 && value.lane_count() != lanes)
        {
            return Err(InterpError::new(format!(
                "{} buffer `{}` mixes vector indices of {} and {lanes} lanes",
                kind.describe(),
                buffer.name(),
                bad.lane_count()
            )));
        }
        let broadcast = buffer.node().buffer_type == BufferType::AutoBroadcast;
        // A vector index may run past its own dimension as long as the access
        // stays inside the buffer: TVM's tensor intrinsics read a 4 x 4
        // buffer as `B[0, T.Ramp(0, 1, 16)]`. Those dimensions are checked
        // through the flat offset instead.
        let is_vector = |dimension: usize| index_values[dimension].lane_count() > 1;
        let footprint_end = if lanes > 1 {
            geometry.required_elements()?
        } else {
            i64::MAX
        };
        let index_at = |dimension: usize, lane: usize| -> InterpResult<i64> {
            let value = &index_values[dimension];
            match value.lanes()[if value.lane_count() == 1 { 0 } else { lane }] {
                Scalar::Int(index) => Ok(index),
                Scalar::UInt(index) => i64::try_from(index)
                    .map_err(|_| InterpError::new(format!("index {index} is too large"))),
                _ => Err(InterpError::new(format!(
                    "an index of buffer `{}` is a {}, not an integer",
                    buffer.name(),
                    value.dtype()
                ))),
            }
        };
        // Built only for the message, so that accesses in bounds allocate nothing per lane.
        let out_of_bounds = |lane: usize, detail: String| {
            let lane_indices: Vec<i64> = (0..index_values.len())
                .map(|dimension| index_at(dimension, lane).unwrap_or(i64::MIN))
                .collect();
            let lane_note = if lanes > 1 {
                format!(" (lane {lane} of a {lanes}-lane vector index)")
            } else {
                String::new()
            };
            InterpError::new(format!(
                "out-of-bounds {} buffer `{}` at {}{lane_note}: {detail} (shape {})",
                kind.describe(),
                buffer.name(),
                format_list(&lane_indices),
                format_list(&geometry.shape)
            ))
        };
        let mut offsets = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            let mut offset = geometry.elem_offset;
            for dimension in 0..index_values.len() {
                let index = index_at(dimension, lane)?;
                let extent = geometry.shape[dimension];
                let unchecked = (broadcast && extent == 1) || is_vector(dimension);
                if !unchecked && !(0..extent).contains(&index) {
                    return Err(out_of_bounds(
                        lane,
                        format!("index {index} of dimension {dimension} is outside [0, {extent})"),
                    ));
                }
                offset = index
                    .checked_mul(geometry.strides[dimension])
                    .and_then(|step| offset.checked_add(step))
                    .ok_or_else(|| InterpError::new("element offset overflows 64 bits"))?;
            }
            if offset < geometry.elem_offset || offset >= footprint_end {
                return Err(out_of_bounds(
                    lane,
                    format!(
                        "element {} is outside the buffer's {} elements",
                        offset - geometry.elem_offset,
                        footprint_end - geometry.elem_offset
                    ),
                ));
            }
            offsets.push(offset);
        }
        Ok(offsets)
    }

    /// The byte offset of a scalar element addressed by scalar indices, all
    /// in bounds: the common access, made without allocating. `None` leaves
    /// every other access, and every error, to [`Self::element_offsets`].
    fn scalar_element_start(
        &mut self,
        buffer: &Buffer,
        handle: u64,
        indices: &[Expr],
    ) -> InterpResult<Option<usize>> {
        if buffer.dtype().lanes > 1 {
            return Ok(None);
        }
        let geometry = self.buffer_geometry(buffer)?;
        if indices.len() != geometry.shape.len() {
            return Ok(None);
        }
        let broadcast = buffer.node().buffer_type == BufferType::AutoBroadcast;
        let mut offset = geometry.elem_offset;
        for ((index, &extent), &stride) in
            indices.iter().zip(&geometry.shape).zip(&geometry.strides)
        {
            // Indices are pure, so the general path may evaluate them again.
            let Ok(Scalar::Int(index)) = self.eval(index)?.scalar() else {
                return Ok(None);
            };
            // A broadcast dimension of extent 1 takes any index (its stride is 0).
            let in_bounds = (0..extent).contains(&index) || (broadcast && extent == 1);
            if !in_bounds {
                return Ok(None);
            }
            let Some(next) = index
                .checked_mul(stride)
                .and_then(|step| offset.checked_add(step))
            else {
                return Ok(None);
            };
            offset = next;
        }
        if offset < geometry.elem_offset {
            return Ok(None);
        }
        let element_size = ElementType::of(buffer.dtype())?.byte_size();
        let storage_bytes = self.memory.get(handle)?.bytes.len();
        Ok(usize::try_from(offset)
            .ok()
            .and_then(|offset| offset.checked_mul(element_size))
            .filter(|start| start + element_size <= storage_bytes))
    }

    /// Byte ranges of the addressed elements, checked against the storage.
    fn byte_offsets(
        &self,
        buffer: &Buffer,
        handle: u64,
        offsets: &[i64],
        element_size: usize,
        kind: AccessKind,
    ) -> InterpResult<Vec<usize>> {
        let storage = self.memory.get(handle)?;
        let capacity = storage.bytes.len() / element_size.max(1);
        offsets
            .iter()
            .map(|offset| {
                usize::try_from(*offset)
                    .ok()
                    .filter(|offset| *offset < capacity)
                    .map(|offset| offset * element_size)
                    .ok_or_else(|| {
                        InterpError::new(format!(
                            "out-of-bounds {} buffer `{}`: element {offset} is outside its storage `{}` of {capacity} elements",
                            kind.describe(),
                            buffer.name(),
                            storage.name
                        ))
                    })
            })
            .collect()
    }

    /// `buffer[indices]`: one element per index lane (each element is a
    /// vector when the buffer's dtype has lanes).
    pub fn load(&mut self, buffer: &Buffer, indices: &[Expr]) -> InterpResult<Value> {
        let handle = self.buffer_storage(buffer)?;
        let dtype = buffer.dtype();
        if let Some(start) = self.scalar_element_start(buffer, handle, indices)? {
            let bytes = &self.memory.get(handle)?.bytes;
            let scalar = decode_element(&bytes[start..], ElementType::of(dtype)?)?;
            return Ok(Value::from_canonical_scalar(dtype, scalar));
        }
        let offsets = self.element_offsets(buffer, indices, AccessKind::Load)?;
        let element = ElementType::of(dtype)?;
        let lanes_per_element = dtype.lanes.max(1) as usize;
        let element_size = element.byte_size() * lanes_per_element;
        let starts = self.byte_offsets(buffer, handle, &offsets, element_size, AccessKind::Load)?;
        let bytes = &self.memory.get(handle)?.bytes;
        let mut lanes = Vec::with_capacity(starts.len() * lanes_per_element);
        for start in starts {
            for lane in 0..lanes_per_element {
                lanes.push(decode_element(
                    &bytes[start + lane * element.byte_size()..],
                    element,
                )?);
            }
        }
        Ok(Value::from_canonical_lanes(dtype.element_of(), lanes))
    }

    /// `buffer[indices] = value`; the value's type must be the buffer's, with
    /// one element per index lane.
    pub fn store(&mut self, buffer: &Buffer, indices: &[Expr], value: &Value) -> InterpResult<()> {
        let dtype = buffer.dtype();
        if value.dtype().element_of() != dtype.element_of() {
            return Err(InterpError::new(format!(
                "store of a {} value into buffer `{}` of {}",
                value.dtype(),
                buffer.name(),
                dtype
            )));
        }
        let handle = self.buffer_storage(buffer)?;
        let element = ElementType::of(dtype)?;
        if let Ok(scalar) = value.scalar() {
            if let Some(start) = self.scalar_element_start(buffer, handle, indices)? {
                let bytes = &mut self.memory.get_mut(handle)?.bytes;
                return encode_element(scalar, element, &mut bytes[start..]);
            }
        }
        let offsets = self.element_offsets(buffer, indices, AccessKind::Store)?;
        let lanes_per_element = dtype.lanes.max(1) as usize;
        if value.lane_count() != offsets.len() * lanes_per_element {
            return Err(InterpError::new(format!(
                "store of a {}-lane value into {} element(s) of buffer `{}` of {}",
                value.lane_count(),
                offsets.len(),
                buffer.name(),
                dtype
            )));
        }
        let element_size = element.byte_size() * lanes_per_element;
        let starts =
            self.byte_offsets(buffer, handle, &offsets, element_size, AccessKind::Store)?;
        let bytes = &mut self.memory.get_mut(handle)?.bytes;
        let mut lanes = value.lanes().iter();
        for start in starts {
            for lane in 0..lanes_per_element {
                if let Some(scalar) = lanes.next() {
                    encode_element(
                        *scalar,
                        element,
                        &mut bytes[start + lane * element.byte_size()..],
                    )?;
                }
            }
        }
        Ok(())
    }

    /// A fresh storage large enough for `buffer`, bound to its data pointer;
    /// returns the binding to restore and the handle to release.
    pub fn allocate_buffer(
        &mut self,
        buffer: &Buffer,
    ) -> InterpResult<(super::machine::SavedBinding, u64)> {
        let geometry = self.buffer_geometry(buffer)?;
        let elements = geometry.required_elements()?;
        let element_size =
            ElementType::of(buffer.dtype())?.byte_size() * buffer.dtype().lanes.max(1) as usize;
        let size = usize::try_from(elements.max(0))
            .ok()
            .and_then(|elements| elements.checked_mul(element_size))
            .ok_or_else(|| InterpError::new(format!("buffer `{}` is too large", buffer.name())))?;
        let handle = self.memory.allocate(
            buffer.name(),
            size,
            self.options.uninitialized,
            self.options.memory_limit,
        )?;
        self.memory.get_mut(handle)?.fragment =
            super::wmma::FragmentStorage::of(buffer, &geometry.strides)?;
        let saved = self.bind(buffer.data(), Value::handle(handle));
        Ok((saved, handle))
    }
}
