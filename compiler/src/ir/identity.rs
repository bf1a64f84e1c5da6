//! Hash maps keyed by IR node identity (variables, buffers, loop and block
//! ids). Those keys hash to an address or a counter that is already unique,
//! so one multiplication spreads it well enough; SipHash was a tenth of the
//! time of a schedule step.

use super::{Buffer, NodeId, Var};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for keys that are unique integers: node addresses and ids.
/// Other input is folded in byte by byte, so any key still hashes correctly.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdentityHasher(u64);

/// The golden-ratio multiplier: odd, so the low bits stay a bijection of the
/// key's low bits, and its high bits (hashbrown's tag) mix every key bit.
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl IdentityHasher {
    fn add(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.add(u64::from(*byte));
        }
    }
    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }
    fn write_usize(&mut self, address: usize) {
        // Every IR node is larger than 16 bytes, so two live nodes' addresses
        // still differ after dropping the low 4 bits, which vary least.
        self.add(address as u64 >> 4);
    }
}

/// Builds [`IdentityHasher`]s.
pub type IdentityState = BuildHasherDefault<IdentityHasher>;
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
                let mut hasher = IdentityHasher::default();
                hasher.write_usize((0x7f00_0000 + address * 16) as usize);
                hasher.finish()
            })
            .collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 0xff).collect();
        let tags: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert_eq!(low.len(), 256);
        assert!(tags.len() > 64, "only {} distinct tags", tags.len());
    }
}
