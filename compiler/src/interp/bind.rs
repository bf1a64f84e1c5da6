//! Binding buffers to storage: function arguments to parameters (symbolic
//! shapes and strides take their values from the tensors) and
//! `T.match_buffer` views to regions of outer buffers.
//!
//! Both work the same way: each declared shape, stride and offset
//! expression must equal a known number. An expression that is a variable
//! not yet bound is bound to that number; every other expression (including
//! a variable bound by an earlier dimension) is evaluated and compared, so
//! `(n, n)` with a 3 x 4 tensor is refused.

use super::buffer_access::{compact_strides, BufferGeometry};
use super::error::{InterpError, InterpResult};
use super::machine::{Interpreter, SavedBinding};
use super::value::Value;
use super::Arg;
use crate::ir::{Expr, MatchBufferRegion, PrimFunc};

/// A buffer's view replaced by a block, to put back when the block ends.
pub type SavedView = (usize, Option<std::rc::Rc<BufferGeometry>>);

/// A declared expression and the number it must equal.
struct Constraint<'a> {
    declared: &'a Expr,
    actual: i64,
    /// What the number is, for messages ("dimension 0 of argument `A`").
    what: String,
}

fn format_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

impl Interpreter<'_> {
    /// Binds the unbound variables the constraints name, then checks every
    /// constraint.
    fn satisfy(&mut self, constraints: &[Constraint<'_>]) -> InterpResult<Vec<SavedBinding>> {
        let mut saved = Vec::new();
        for constraint in constraints {
            if let Some(var) = constraint.declared.as_var() {
                if !self.is_bound(var) {
                    saved.push(self.bind(var, Value::int(var.dtype(), constraint.actual)?));
                }
            }
        }
        for constraint in constraints {
            let declared = self.eval_i64(constraint.declared)?;
            if declared != constraint.actual {
                let expression = constraint.declared.to_string();
                let declared_text = if expression == declared.to_string() {
                    expression
                } else {
                    format!("{expression} = {declared}")
                };
                return Err(InterpError::at(
                    format!(
                        "{} is {}, but the buffer declares {declared_text}",
                        constraint.what, constraint.actual
                    ),
                    constraint.declared.span(),
                ));
            }
        }
        Ok(saved)
    }

    /// Binds the function's parameters to `args`. Tensors' bytes move into
    /// the interpreter's memory; each `(argument index, handle)` is pushed to
    /// `lent` as soon as it moves, so the caller can give every one back even
    /// when binding fails half way.
    pub fn bind_arguments(
        &mut self,
        func: &PrimFunc,
        args: &mut [Arg],
        lent: &mut Vec<(usize, u64)>,
    ) -> InterpResult<()> {
        if func.params.len() != args.len() {
            return Err(InterpError::at(
                format!(
                    "function `{}` takes {} arguments, {} were given",
                    func.name,
                    func.params.len(),
                    args.len()
                ),
                func.span,
            ));
        }
        let mut constraints_per_buffer = Vec::new();
        for (position, (param, arg)) in func.params.iter().zip(args.iter_mut()).enumerate() {
            let Some(buffer) = func.buffer_of(param) else {
                let value =
                    scalar_argument(param, arg).map_err(|error| error.or_at(param.span()))?;
                self.bind(param, value);
                continue;
            };
            let Arg::Tensor(tensor) = arg else {
                return Err(InterpError::at(
                    format!(
                        "argument `{}` is the buffer `{}`, but a scalar was given",
                        param.name(),
                        buffer.name()
                    ),
                    param.span(),
                ));
            };
            if tensor.dtype() != buffer.dtype() || tensor.shape().len() != buffer.rank() {
                return Err(InterpError::at(
                    format!(
                        "argument `{}` is a {} tensor of shape {:?}, but the buffer `{}` holds {} in {} dimensions",
                        param.name(),
                        tensor.dtype(),
                        tensor.shape(),
                        buffer.name(),
                        buffer.dtype(),
                        buffer.rank()
                    ),
                    buffer.span(),
                ));
            }
            let shape: Vec<i64> = tensor.shape().iter().map(|extent| *extent as i64).collect();
            let bytes = tensor.take_bytes();
            let handle = self.memory.adopt(buffer.name(), bytes);
            // A fragment argument (a wmma intrinsic's implementation run on
            // its own) holds compact tiles.
            let strides = super::buffer_access::compact_strides(&shape)?;
            self.memory.get_mut(handle)?.fragment =
                super::wmma::FragmentStorage::of(buffer, &strides)?;
            lent.push((position, handle));
            self.bind(param, Value::handle(handle));
            self.bind(buffer.data(), Value::handle(handle));
            constraints_per_buffer.push((buffer.clone(), shape));
        }
        let mut constraints = Vec::new();
        for (buffer, shape) in &constraints_per_buffer {
            let node = buffer.node();
            for (dimension, (declared, actual)) in node.shape.iter().zip(shape).enumerate() {
                constraints.push(Constraint {
                    declared,
                    actual: *actual,
                    what: format!(
                        "dimension {dimension} of the tensor for `{}` (shape {})",
                        buffer.name(),
                        format_list(shape)
                    ),
                });
            }
            if !node.strides.is_empty() {
                let strides = compact_strides(shape)?;
                for (dimension, (declared, actual)) in node.strides.iter().zip(strides).enumerate()
                {
                    constraints.push(Constraint {
                        declared,
                        actual,
                        what: format!(
                            "stride {dimension} of the row-major tensor for `{}`",
                            buffer.name()
                        ),
                    });
                }
            }
            constraints.push(Constraint {
                declared: &node.elem_offset,
                actual: 0,
                what: format!("the element offset of the tensor for `{}`", buffer.name()),
            });
        }
        self.satisfy(&constraints)?;
        Ok(())
    }

    /// Binds a `T.match_buffer` view: its data pointer to the source's
    /// storage, its shape to the region's extents (trailing dimensions when
    /// it has fewer), its strides to the source's, its element offset to the
    /// region's first element. Returns the bindings and the view to restore
    /// when the block ends.
    pub fn bind_match_buffer(
        &mut self,
        matched: &MatchBufferRegion,
    ) -> InterpResult<(Vec<SavedBinding>, SavedView)> {
        let source = &matched.source.buffer;
        let target = &matched.buffer;
        let geometry = self.buffer_geometry(source)?;
        let region = &matched.source.region;
        if region.len() != geometry.shape.len() {
            return Err(InterpError::new(format!(
                "match_buffer `{}` names {} dimensions of `{}`, which has {}",
                target.name(),
                region.len(),
                source.name(),
                geometry.shape.len()
            )));
        }
        let mut mins = Vec::with_capacity(region.len());
        let mut extents = Vec::with_capacity(region.len());
        for range in region {
            mins.push(self.eval_i64(&range.min)?);
            extents.push(self.eval_i64(&range.extent)?);
        }
        for dimension in 0..region.len() {
            let (min, extent, size) = (
                mins[dimension],
                extents[dimension],
                geometry.shape[dimension],
            );
            if min < 0 || extent < 0 || min.saturating_add(extent) > size {
                return Err(InterpError::new(format!(
                    "match_buffer `{}` views [{min}, {}) of dimension {dimension} of `{}`, whose extent is {size}",
                    target.name(),
                    min.saturating_add(extent),
                    source.name()
                )));
            }
        }
        let rank = target.rank();
        let Some(dropped) = region.len().checked_sub(rank) else {
            return Err(InterpError::new(format!(
                "match_buffer `{}` has {rank} dimensions, more than the {} of its region of `{}`",
                target.name(),
                region.len(),
                source.name()
            )));
        };
        if extents[..dropped].iter().any(|extent| *extent != 1) {
            return Err(InterpError::new(format!(
                "match_buffer `{}` has {rank} dimensions; the leading dimensions of its region {} of `{}` must have extent 1",
                target.name(),
                format_list(&extents),
                source.name()
            )));
        }
        let mut first_element = geometry.elem_offset;
        for (min, stride) in mins.iter().zip(&geometry.strides) {
            first_element = min
                .checked_mul(*stride)
                .and_then(|step| first_element.checked_add(step))
                .ok_or_else(|| InterpError::new("element offset overflows 64 bits"))?;
        }
        let node = target.node();
        let mut constraints = vec![Constraint {
            declared: &node.elem_offset,
            actual: first_element,
            what: format!(
                "the first element of the region of `{}` viewed by `{}`",
                source.name(),
                target.name()
            ),
        }];
        for (dimension, declared) in node.shape.iter().enumerate() {
            constraints.push(Constraint {
                declared,
                actual: extents[dropped + dimension],
                what: format!(
                    "dimension {dimension} of the region of `{}` viewed by `{}`",
                    source.name(),
                    target.name()
                ),
            });
        }
        // Declared strides are bound to (or checked against) the source's;
        // a view that declares none still indexes with the source's strides.
        for (dimension, declared) in node.strides.iter().enumerate() {
            let Some(actual) = geometry.strides.get(dropped + dimension) else {
                break;
            };
            constraints.push(Constraint {
                declared,
                actual: *actual,
                what: format!(
                    "stride {dimension} of `{}` as viewed by `{}`",
                    source.name(),
                    target.name()
                ),
            });
        }
        let storage = self.lookup(source.data())?.clone();
        let mut saved = vec![self.bind(target.data(), storage)];
        saved.extend(self.satisfy(&constraints)?);
        let view = BufferGeometry {
            shape: extents[dropped..].to_vec(),
            strides: geometry.strides[dropped..].to_vec(),
            elem_offset: first_element,
        };
        let previous_view = self
            .buffer_views
            .insert(target.id(), std::rc::Rc::new(view));
        Ok((saved, (target.id(), previous_view)))
    }
}

/// The value of a scalar parameter from its argument, in the parameter's type.
fn scalar_argument(param: &crate::ir::Var, arg: &Arg) -> InterpResult<Value> {
    let dtype = param.dtype();
    match arg {
        Arg::Int(value) => {
            let converted = Value::int(dtype, *value)?;
            let fits = dtype.is_float() || converted.as_i64().ok() == Some(*value);
            if !fits {
                return Err(InterpError::new(format!(
                    "argument `{}` is {dtype}, which cannot hold {value}",
                    param.name()
                )));
            }
            Ok(converted)
        }
        Arg::Float(value) if dtype.is_float() => Value::float(dtype, *value),
        Arg::Float(value) => Err(InterpError::new(format!(
            "argument `{}` is {dtype}, but the float {value} was given",
            param.name()
        ))),
        Arg::Tensor(tensor) => Err(InterpError::new(format!(
            "argument `{}` is a scalar {dtype}, but a {} tensor was given",
            param.name(),
            tensor.dtype()
        ))),
    }
}
