//! Hash maps keyed by IR node identity (variables, buffers, loop and block
//! ids). Those keys hash to an address or a counter that is already unique,
//! so rustc's Fx hash (one multiplication a word) spreads them well enough;
//! SipHash was a tenth of the time of a schedule step.

use super::{Buffer, NodeId, Var};
use std::collections::{HashMap, HashSet};

/// Builds the hashers of identity-keyed maps: rustc's Fx hash, a multiply
/// and rotate per word, which suits keys that are already unique integers.
pub type IdentityState = rustc_hash::FxBuildHasher;
/// A map keyed by variable identity.
pub type VarMap<V> = HashMap<Var, V, IdentityState>;
/// A set of variables.
pub type VarSet = HashSet<Var, IdentityState>;
/// A map keyed by buffer identity.
pub type BufferMap<V> = HashMap<Buffer, V, IdentityState>;
/// A set of buffers.
pub type BufferSet = HashSet<Buffer, IdentityState>;
/// A map keyed by loop or block.
pub type NodeMap<V> = HashMap<NodeId, V, IdentityState>;
/// A set of loops and blocks.
pub type NodeSet = HashSet<NodeId, IdentityState>;
/// A map keyed by an address ([`Var::id`], [`Buffer::id`]).
pub type AddressMap<V> = HashMap<usize, V, IdentityState>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DataType;
    use crate::source::Span;

    #[test]
    fn distinct_variables_with_one_name_are_distinct_keys() {
        let vars: Vec<Var> = (0..1000)
            .map(|_| Var::new("i", DataType::int32(), Span::NONE))
            .collect();
        let map: VarMap<usize> = vars.iter().cloned().zip(0..).collect();
        assert_eq!(map.len(), 1000);
        for (index, var) in vars.iter().enumerate() {
            assert_eq!(map[var], index);
        }
    }

    #[test]
    fn hashes_spread_over_low_and_high_bits() {
        // hashbrown indexes buckets by the low bits and tags by the top 7.
        let hashes: Vec<u64> = (0..256u64)
            .map(|address| {
                use std::hash::BuildHasher;
                IdentityState::default().hash_one((0x7f00_0000 + address * 16) as usize)
            })
            .collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 0xff).collect();
        let tags: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert!(low.len() > 150, "only {} distinct low bytes", low.len());
        assert!(tags.len() > 64, "only {} distinct tags", tags.len());
    }
}
