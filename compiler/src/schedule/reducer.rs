//! Commutative reducers, after TVM's `ReducerRegistry` and
//! `GetReducerAndCombinerLhsRhs`: which reduction a block's `T.init()` and
//! update compute, over one buffer (`C[i] = C[i] + v`) or a tuple of buffers
//! that update together (argmax: an index and a value, through `T.let`s).

use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::structural::expr_equal;
use crate::ir::{BinaryOp, Block, BufferStore, DataType, Expr, ExprKind, Stmt, StmtKind, Var};
use crate::source::Span;

/// A commutative reducer: how two values combine and its identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reducer {
    Sum,
    Product,
    Min,
    Max,
}

impl Reducer {
    pub(crate) fn combine(self, lhs: Expr, rhs: Expr) -> Expr {
        let op = match self {
            Reducer::Sum => BinaryOp::Add,
            Reducer::Product => BinaryOp::Mul,
            Reducer::Min => BinaryOp::Min,
            Reducer::Max => BinaryOp::Max,
        };
        Expr::binary(op, lhs, rhs)
    }

    fn of(op: BinaryOp) -> Option<Reducer> {
        Some(match op {
            BinaryOp::Add => Reducer::Sum,
            BinaryOp::Mul => Reducer::Product,
            BinaryOp::Min => Reducer::Min,
            BinaryOp::Max => Reducer::Max,
            _ => return None,
        })
    }

    /// The identity element, as TVM builds it (`max_value` for `min`, ...).
    pub(crate) fn identity(self, dtype: DataType) -> Expr {
        match self {
            Reducer::Sum => Expr::zero(dtype),
            Reducer::Product => Expr::one(dtype),
            Reducer::Min => extreme_value(dtype, true),
            Reducer::Max => extreme_value(dtype, false),
        }
    }
}

/// The largest (or smallest) value of a type.
fn extreme_value(dtype: DataType, largest: bool) -> Expr {
    if dtype.is_float() {
        let max = match dtype.bits {
            16 => 65504.0,
            32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        return Expr::float(if largest { max } else { -max }, dtype);
    }
    let bits = u32::from(dtype.bits).min(64);
    let value = match (dtype.is_uint(), largest) {
        (true, true) if bits >= 64 => -1,
        (true, true) => (1i64 << bits) - 1,
        (true, false) => 0,
        (false, true) if bits >= 64 => i64::MAX,
        (false, true) => (1i64 << (bits - 1)) - 1,
        (false, false) if bits >= 64 => i64::MIN,
        (false, false) => -(1i64 << (bits - 1)),
    };
    Expr::int(value, dtype)
}

/// True when two constants are the same number.
fn same_constant(a: &Expr, b: &Expr) -> bool {
    match (a.as_int(), b.as_int(), a.as_float(), b.as_float()) {
        (Some(x), Some(y), _, _) => x == y,
        (_, _, Some(x), Some(y)) => x == y || (x as f32) == (y as f32) && a.dtype().bits <= 32,
        _ => expr_equal(a, b),
    }
}

/// The reducer of a block `C[i] = T.init(identity); C[i] = C[i] op rhs`:
/// the reducer, the store, and the other operand (TVM's
/// `GetReducerAndCombinerLhsRhs` for one buffer).
pub(crate) fn match_reducer(block: &Block) -> Option<(Reducer, BufferStore, Expr, Expr)> {
    let StmtKind::BufferStore(init) = block.init.as_ref()?.kind() else {
        return None;
    };
    let StmtKind::BufferStore(update) = block.body.kind() else {
        return None;
    };
    if init.buffer != update.buffer
        || init.indices.len() != update.indices.len()
        || !init
            .indices
            .iter()
            .zip(&update.indices)
            .all(|(a, b)| expr_equal(a, b))
    {
        return None;
    }
    let ExprKind::Binary(op, a, b) = update.value.kind() else {
        return None;
    };
    let reducer = Reducer::of(*op)?;
    if !same_constant(&init.value, &reducer.identity(init.value.dtype())) {
        return None;
    }
    let is_self = |e: &Expr| match e.kind() {
        ExprKind::Load(load) => {
            load.buffer == update.buffer
                && load.indices.len() == update.indices.len()
                && load
                    .indices
                    .iter()
                    .zip(&update.indices)
                    .all(|(x, y)| expr_equal(x, y))
        }
        _ => false,
    };
    let (lhs, rhs) = if is_self(a) {
        (a.clone(), b.clone())
    } else if is_self(b) {
        (b.clone(), a.clone())
    } else {
        return None;
    };
    Some((reducer, update.clone(), lhs, rhs))
}

/// A commutative reducer over one or more buffers (TVM's `CommReducer`):
/// `result[i]` combines the accumulated values `lhs` with new values `rhs`.
#[derive(Clone, Debug)]
pub(crate) struct CommReducer {
    lhs: Vec<Var>,
    rhs: Vec<Var>,
    result: Vec<Expr>,
    identity: Vec<Expr>,
}

impl CommReducer {
    /// The reducer of `build(x, y)` over values of `dtypes`, with `identity`.
    fn new(
        dtypes: &[DataType],
        build: impl Fn(&[Expr], &[Expr]) -> Vec<Expr>,
        identity: Vec<Expr>,
    ) -> CommReducer {
        let vars = |prefix: &str| -> Vec<Var> {
            dtypes
                .iter()
                .enumerate()
                .map(|(i, dtype)| Var::new(format!("{prefix}{i}"), *dtype, Span::NONE))
                .collect()
        };
        let (lhs, rhs) = (vars("x"), vars("y"));
        let exprs = |vars: &[Var]| vars.iter().map(Var::to_expr).collect::<Vec<_>>();
        let result = build(&exprs(&lhs), &exprs(&rhs));
        CommReducer {
            lhs,
            rhs,
            result,
            identity,
        }
    }

    /// The reducers of TVM's registry over values of `dtypes`, in its order.
    fn registry(dtypes: &[DataType]) -> Vec<CommReducer> {
        let select = |c: Expr, t: &Expr, f: &Expr| {
            let dtype = t.dtype();
            Expr::new(ExprKind::Select(c, t.clone(), f.clone()), dtype, Span::NONE)
        };
        let cmp = |op, a: &Expr, b: &Expr| Expr::binary(op, a.clone(), b.clone());
        match *dtypes {
            [dtype] => [Reducer::Sum, Reducer::Product, Reducer::Min, Reducer::Max]
                .into_iter()
                .map(|r| {
                    CommReducer::new(
                        dtypes,
                        |x, y| vec![r.combine(x[0].clone(), y[0].clone())],
                        vec![r.identity(dtype)],
                    )
                })
                .collect(),
            [index, value] => {
                let minus_one = Expr::int(-1, index);
                // Argmax and argmin, the first index of a tie kept by `>=` or
                // `<=`, or by comparing the indices.
                let arg = |keep: BinaryOp, identity: Expr| {
                    CommReducer::new(
                        dtypes,
                        move |x, y| {
                            let c = cmp(keep, &x[1], &y[1]);
                            vec![select(c.clone(), &x[0], &y[0]), select(c, &x[1], &y[1])]
                        },
                        vec![minus_one.clone(), identity],
                    )
                };
                let arg_ties = |strict: BinaryOp, identity: Expr| {
                    CommReducer::new(
                        dtypes,
                        move |x, y| {
                            let tie = Expr::binary(
                                BinaryOp::And,
                                cmp(BinaryOp::Eq, &x[1], &y[1]),
                                cmp(BinaryOp::Lt, &x[0], &y[0]),
                            );
                            let better = Expr::binary(BinaryOp::Or, cmp(strict, &x[1], &y[1]), tie);
                            let value = select(cmp(strict, &x[1], &y[1]), &x[1], &y[1]);
                            vec![select(better, &x[0], &y[0]), value]
                        },
                        vec![minus_one.clone(), identity],
                    )
                };
                vec![
                    CommReducer::new(
                        dtypes,
                        |x, y| {
                            vec![
                                Reducer::Sum.combine(x[0].clone(), y[0].clone()),
                                Reducer::Sum.combine(x[1].clone(), y[1].clone()),
                            ]
                        },
                        vec![Expr::zero(index), Expr::zero(value)],
                    ),
                    arg(BinaryOp::Ge, extreme_value(value, false)),
                    arg_ties(BinaryOp::Gt, extreme_value(value, false)),
                    arg(BinaryOp::Le, extreme_value(value, true)),
                    arg_ties(BinaryOp::Lt, extreme_value(value, true)),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// The identity elements, one per buffer.
    pub(crate) fn identity(&self) -> &[Expr] {
        &self.identity
    }

    /// The values `lhs` combined with `rhs`, one per buffer.
    pub(crate) fn combine(&self, lhs: &[Expr], rhs: &[Expr]) -> Vec<Expr> {
        let mut map: VarMap<Expr> = VarMap::default();
        for (var, value) in self.lhs.iter().zip(lhs).chain(self.rhs.iter().zip(rhs)) {
            map.insert(var.clone(), value.clone());
        }
        self.result.iter().map(|r| substitute(r, &map)).collect()
    }

    /// The operands `(lhs, rhs)` that make `values` this reducer's result,
    /// each `lhs[i]` being `accumulated[i]`.
    fn operands(&self, values: &[Expr], accumulated: &[Expr]) -> Option<(Vec<Expr>, Vec<Expr>)> {
        let mut filled: VarMap<Expr> = VarMap::default();
        for (pattern, value) in self.result.iter().zip(values) {
            if !match_pattern(pattern, value, &mut filled) {
                return None;
            }
        }
        let lhs: Vec<Expr> = self
            .lhs
            .iter()
            .map(|v| filled.get(v).cloned())
            .collect::<Option<_>>()?;
        let rhs: Vec<Expr> = self
            .rhs
            .iter()
            .map(|v| filled.get(v).cloned())
            .collect::<Option<_>>()?;
        lhs.iter()
            .zip(accumulated)
            .all(|(l, a)| expr_equal(l, a))
            .then_some((lhs, rhs))
    }
}

/// Whether `target` has the form of `pattern`, whose variables are holes
/// (TVM's `PatternMatcher`): a hole met twice must match equal expressions.
fn match_pattern(pattern: &Expr, target: &Expr, filled: &mut VarMap<Expr>) -> bool {
    match (pattern.kind(), target.kind()) {
        (ExprKind::Var(hole), _) => match filled.get(hole) {
            Some(previous) => expr_equal(previous, target),
            None => {
                filled.insert(hole.clone(), target.clone());
                true
            }
        },
        (ExprKind::Binary(op, a, b), ExprKind::Binary(target_op, c, d)) => {
            op == target_op && match_pattern(a, c, filled) && match_pattern(b, d, filled)
        }
        (ExprKind::Select(c, t, f), ExprKind::Select(target_c, target_t, target_f)) => {
            match_pattern(c, target_c, filled)
                && match_pattern(t, target_t, filled)
                && match_pattern(f, target_f, filled)
        }
        (ExprKind::Not(a), ExprKind::Not(b)) => match_pattern(a, b, filled),
        _ => same_constant(pattern, target) && pattern.is_const(),
    }
}

/// A reduction block's update matched with its reducer: the buffers it
/// stores (in the reducer's order, each storing its combined value) and the
/// combiner's operands, `lhs[i]` the accumulated value of `stores[i]`.
#[derive(Clone, Debug)]
pub(crate) struct ReductionUpdate {
    pub(crate) reducer: CommReducer,
    pub(crate) stores: Vec<BufferStore>,
    pub(crate) lhs: Vec<Expr>,
    pub(crate) rhs: Vec<Expr>,
}

/// The reducer and update of a reduction block (TVM's
/// `GetInitValuesAndUpdatesFromReductionBlock` and
/// `GetReducerAndCombinerLhsRhs`): one store, or for several buffers
/// `T.let`s of the combined values followed by one store of each, all at the
/// same indices, with `T.init()` storing each buffer's identity.
pub(crate) fn match_reduction_update(block: &Block) -> Option<ReductionUpdate> {
    if let Some((reducer, update, lhs, rhs)) = match_reducer(block) {
        let dtype = update.value.dtype();
        return Some(ReductionUpdate {
            reducer: CommReducer::new(
                &[dtype],
                |x, y| vec![reducer.combine(x[0].clone(), y[0].clone())],
                vec![reducer.identity(dtype)],
            ),
            stores: vec![update],
            lhs: vec![lhs],
            rhs: vec![rhs],
        });
    }
    let inits = stores_of(block.init.as_ref()?)?;
    // The `T.let`s, then one store of each bound variable.
    let mut lets: Vec<(Var, Expr)> = Vec::new();
    let mut body = &block.body;
    while let StmtKind::LetStmt {
        var,
        value,
        body: rest,
    } = body.kind()
    {
        lets.push((var.clone(), value.clone()));
        body = rest;
    }
    let stored = stores_of(body)?;
    if lets.is_empty() || stored.len() != lets.len() || inits.len() != lets.len() {
        return None;
    }
    let mut stores: Vec<BufferStore> = Vec::with_capacity(lets.len());
    let mut identities: Vec<Expr> = Vec::with_capacity(lets.len());
    for (var, value) in &lets {
        let store = stored.iter().find(|s| s.value.as_var() == Some(var))?;
        let init = inits.iter().find(|i| i.buffer == store.buffer)?;
        stores.push(BufferStore {
            value: value.clone(),
            ..store.clone()
        });
        identities.push(init.value.clone());
    }
    let indices = &stores[0].indices;
    let same_indices = |other: &[Expr]| {
        other.len() == indices.len() && other.iter().zip(indices).all(|(a, b)| expr_equal(a, b))
    };
    if stores.iter().any(|s| !same_indices(&s.indices))
        || inits.iter().any(|i| !same_indices(&i.indices))
        || (1..stores.len()).any(|i| stores[..i].iter().any(|s| s.buffer == stores[i].buffer))
    {
        return None;
    }
    let dtypes: Vec<DataType> = stores.iter().map(|s| s.value.dtype()).collect();
    let values: Vec<Expr> = stores.iter().map(|s| s.value.clone()).collect();
    let accumulated: Vec<Expr> = stores
        .iter()
        .map(|s| Expr::load(&s.buffer, s.indices.clone()))
        .collect();
    CommReducer::registry(&dtypes)
        .into_iter()
        .find_map(|reducer| {
            let identities_match = reducer
                .identity
                .iter()
                .zip(&identities)
                .all(|(a, b)| same_constant(a, b));
            let (lhs, rhs) =
                identities_match.then(|| reducer.operands(&values, &accumulated))??;
            Some(ReductionUpdate {
                reducer,
                stores: stores.clone(),
                lhs,
                rhs,
            })
        })
}

/// The stores of a statement that is one store or a sequence of stores.
fn stores_of(stmt: &Stmt) -> Option<Vec<BufferStore>> {
    match stmt.kind() {
        StmtKind::BufferStore(store) => Some(vec![store.clone()]),
        StmtKind::Seq(stmts) => stmts
            .iter()
            .map(|s| match s.kind() {
                StmtKind::BufferStore(store) => Some(store.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}
