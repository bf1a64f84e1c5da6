//! The cost model of `tirc tune`: gradient-boosted regression trees that
//! predict a candidate's speed from its [`features`](super::features),
//! refitted from every measurement so far after each batch.
//!
//! Trees rather than a ridge model: speed is not monotone in the features
//! that matter (an accumulator tile is fast up to the register file and slow
//! past it, a copy pays only above some size, a unit of lanes is wasted on a
//! short loop), and thresholds are what trees learn and a linear model
//! cannot; MetaSchedule uses XGBoost for the same reason. The model is
//! small (depth 3, 50 rounds) and fits a few hundred candidates in
//! milliseconds.

/// Depth of each tree.
const MAX_DEPTH: usize = 3;
/// Boosting rounds.
const ROUNDS: usize = 50;
/// The step each tree's prediction is scaled by.
const LEARNING_RATE: f64 = 0.2;
/// The fewest samples a leaf holds.
const MIN_LEAF: usize = 2;

#[derive(Clone, Debug)]
enum Node {
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    Leaf(f64),
}

/// One regression tree: nodes in an arena, the root first.
#[derive(Clone, Debug)]
struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn predict(&self, features: &[f64]) -> f64 {
        let mut index = 0;
        loop {
            match &self.nodes[index] {
                Node::Leaf(value) => return *value,
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    let value = features.get(*feature).copied().unwrap_or(0.0);
                    index = if value <= *threshold { *left } else { *right };
                }
            }
        }
    }
}

/// A fitted model: the mean target plus the trees' scaled corrections.
#[derive(Clone, Debug, Default)]
pub struct CostModel {
    base: f64,
    trees: Vec<Tree>,
}

impl CostModel {
    /// Fits `targets` (higher is faster) from `samples` (one feature vector
    /// each; a missing feature reads as 0).
    pub fn fit(samples: &[Vec<f64>], targets: &[f64]) -> CostModel {
        let count = samples.len().min(targets.len());
        if count == 0 {
            return CostModel::default();
        }
        let width = samples.iter().map(Vec::len).max().unwrap_or(0);
        let rows: Vec<Vec<f64>> = samples[..count]
            .iter()
            .map(|row| {
                let mut row = row.clone();
                row.resize(width, 0.0);
                row
            })
            .collect();
        let base = targets[..count].iter().sum::<f64>() / count as f64;
        let mut residuals: Vec<f64> = targets[..count].iter().map(|t| t - base).collect();
        let mut trees = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let mut nodes = Vec::new();
            let all: Vec<usize> = (0..count).collect();
            grow(&rows, &residuals, &all, 0, &mut nodes);
            let tree = Tree { nodes };
            for (row, residual) in rows.iter().zip(residuals.iter_mut()) {
                *residual -= LEARNING_RATE * tree.predict(row);
            }
            trees.push(tree);
        }
        CostModel { base, trees }
    }

    /// The predicted target of one candidate.
    pub fn predict(&self, features: &[f64]) -> f64 {
        self.base
            + LEARNING_RATE
                * self
                    .trees
                    .iter()
                    .map(|tree| tree.predict(features))
                    .sum::<f64>()
    }
}

/// Adds the subtree fitting `residuals` of `rows[indices]` to `nodes`;
/// returns its index.
fn grow(
    rows: &[Vec<f64>],
    residuals: &[f64],
    indices: &[usize],
    depth: usize,
    nodes: &mut Vec<Node>,
) -> usize {
    let mean = indices.iter().map(|i| residuals[*i]).sum::<f64>() / indices.len() as f64;
    let here = nodes.len();
    nodes.push(Node::Leaf(mean));
    if depth >= MAX_DEPTH || indices.len() < 2 * MIN_LEAF {
        return here;
    }
    let Some((feature, threshold)) = best_split(rows, residuals, indices) else {
        return here;
    };
    let (low, high): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .partition(|i| rows[**i][feature] <= threshold);
    let left = grow(rows, residuals, &low, depth + 1, nodes);
    let right = grow(rows, residuals, &high, depth + 1, nodes);
    nodes[here] = Node::Split {
        feature,
        threshold,
        left,
        right,
    };
    here
}

/// The split of `indices` that most reduces the squared error of the
/// residuals, as (feature, threshold); `None` when no split helps.
// `feature` indexes the columns of every row, not `rows` itself.
#[allow(clippy::needless_range_loop)]
fn best_split(rows: &[Vec<f64>], residuals: &[f64], indices: &[usize]) -> Option<(usize, f64)> {
    let width = rows.first().map_or(0, Vec::len);
    let total: f64 = indices.iter().map(|i| residuals[*i]).sum();
    let count = indices.len() as f64;
    let mut best: Option<(f64, usize, f64)> = None;
    let mut sorted = indices.to_vec();
    for feature in 0..width {
        sorted.sort_by(|a, b| rows[*a][feature].total_cmp(&rows[*b][feature]));
        let mut left_sum = 0.0;
        for split in 0..sorted.len() - 1 {
            left_sum += residuals[sorted[split]];
            let (value, next) = (
                rows[sorted[split]][feature],
                rows[sorted[split + 1]][feature],
            );
            let left_count = (split + 1) as f64;
            if value == next || split + 1 < MIN_LEAF || sorted.len() - split - 1 < MIN_LEAF {
                continue;
            }
            let right_sum = total - left_sum;
            // The reduction of squared error is the gain in sum^2 / count.
            let gain = left_sum * left_sum / left_count
                + right_sum * right_sum / (count - left_count)
                - total * total / count;
            if gain > 1e-12 && best.is_none_or(|(g, _, _)| gain > g) {
                best = Some((gain, feature, (value + next) / 2.0));
            }
        }
    }
    best.map(|(_, feature, threshold)| (feature, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target with a threshold and a peak, as speed has: fast when the
    /// first feature is at most 5 and the second is near 3.
    fn target(x: &[f64]) -> f64 {
        let threshold = if x[0] <= 5.0 { 2.0 } else { 0.0 };
        threshold - (x[1] - 3.0).abs()
    }

    #[test]
    fn the_trees_learn_thresholds_and_peaks_and_rank_unseen_points() {
        let mut samples = Vec::new();
        for a in 0..10 {
            for b in 0..7 {
                // Every other point is kept back to be predicted.
                if (a + b) % 2 == 0 {
                    samples.push(vec![a as f64, b as f64, ((a * 7 + b) % 5) as f64]);
                }
            }
        }
        let targets: Vec<f64> = samples.iter().map(|x| target(x)).collect();
        let model = CostModel::fit(&samples, &targets);
        let unseen: Vec<Vec<f64>> = (0..10)
            .flat_map(|a| (0..7).map(move |b| (a, b)))
            .filter(|(a, b)| (a + b) % 2 == 1)
            .map(|(a, b)| vec![a as f64, b as f64, 0.0])
            .collect();
        let mean = targets.iter().sum::<f64>() / targets.len() as f64;
        let model_error: f64 = unseen
            .iter()
            .map(|x| (model.predict(x) - target(x)).powi(2))
            .sum();
        let mean_error: f64 = unseen.iter().map(|x| (mean - target(x)).powi(2)).sum();
        assert!(
            model_error < mean_error / 4.0,
            "model {model_error}, mean {mean_error}"
        );
        // The best unseen point by the model is among the truly best.
        let best = unseen
            .iter()
            .max_by(|a, b| model.predict(a).total_cmp(&model.predict(b)))
            .unwrap();
        assert!(target(best) >= 1.0, "{best:?}");
    }

    #[test]
    fn an_empty_or_constant_history_predicts_its_mean() {
        assert_eq!(CostModel::fit(&[], &[]).predict(&[1.0]), 0.0);
        let model = CostModel::fit(&[vec![1.0], vec![2.0], vec![3.0]], &[4.0, 4.0, 4.0]);
        assert!((model.predict(&[9.0]) - 4.0).abs() < 1e-9);
    }
}
