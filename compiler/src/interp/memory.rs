//! The interpreter's memory: byte storages addressed by handle, created by
//! allocations and function arguments and released when their scope ends.

use super::error::{InterpError, InterpResult};

/// What fresh allocations (`alloc_buffer`, `T.allocate`, a `decl_buffer`
/// with its own data) hold before the program writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UninitializedMemory {
    /// Every byte 0xFF: NaN in every float format (float16, bfloat16,
    /// float32, float64 and both float8s) and -1 or the maximum in integers,
    /// so a result computed from memory nobody wrote shows as NaN or as an
    /// obviously wrong number. The default.
    Poison,
    /// Every byte zero, as a fresh page would be; hides missing
    /// initialisation, so use it only to compare with code that relies on it.
    Zero,
}

impl UninitializedMemory {
    fn fill_byte(self) -> u8 {
        match self {
            UninitializedMemory::Poison => 0xff,
            UninitializedMemory::Zero => 0,
        }
    }
}

/// One storage: the bytes behind a data pointer.
#[derive(Debug)]
pub struct Storage {
    /// The buffer or allocation it was created for, for messages.
    pub name: String,
    /// The contents.
    pub bytes: Vec<u8>,
    /// True for the program's own allocations, which count against the limit.
    counts_against_limit: bool,
    /// For a `wmma.*` fragment buffer: what its tiles hold.
    pub fragment: Option<super::wmma::FragmentStorage>,
    /// The m, n, k of the wmma calls that last filled or loaded its tiles.
    pub fragment_mnk: Option<[i64; 3]>,
}

/// Every live storage; handle `n` names slot `n - 1`, handle 0 is null.
#[derive(Debug, Default)]
pub struct Memory {
    slots: Vec<Option<Storage>>,
    free_slots: Vec<usize>,
    live_bytes: usize,
}

impl Memory {
    /// Adds a storage holding `bytes` (a function argument's) and returns its handle.
    pub fn adopt(&mut self, name: &str, bytes: Vec<u8>) -> u64 {
        self.insert(Storage {
            name: name.to_string(),
            bytes,
            counts_against_limit: false,
            fragment: None,
            fragment_mnk: None,
        })
    }

    fn insert(&mut self, storage: Storage) -> u64 {
        match self.free_slots.pop() {
            Some(slot) => {
                self.slots[slot] = Some(storage);
                slot as u64 + 1
            }
            None => {
                self.slots.push(Some(storage));
                self.slots.len() as u64
            }
        }
    }

    /// A fresh storage of `size` bytes filled as `uninitialized` says,
    /// refused when live memory would pass `limit` bytes.
    pub fn allocate(
        &mut self,
        name: &str,
        size: usize,
        uninitialized: UninitializedMemory,
        limit: usize,
    ) -> InterpResult<u64> {
        if self.live_bytes.saturating_add(size) > limit {
            return Err(InterpError::new(format!(
                "allocating {size} bytes for `{name}` would pass the interpreter's memory limit of {limit} bytes"
            )));
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(size)
            .map_err(|_| InterpError::new(format!("cannot allocate {size} bytes for `{name}`")))?;
        bytes.resize(size, uninitialized.fill_byte());
        self.live_bytes += size;
        Ok(self.insert(Storage {
            name: name.to_string(),
            bytes,
            counts_against_limit: true,
            fragment: None,
            fragment_mnk: None,
        }))
    }

    /// Removes a storage and returns its bytes.
    pub fn release(&mut self, handle: u64) -> Option<Vec<u8>> {
        let slot = (handle as usize).checked_sub(1)?;
        let storage = self.slots.get_mut(slot)?.take()?;
        self.free_slots.push(slot);
        if storage.counts_against_limit {
            self.live_bytes -= storage.bytes.len();
        }
        Some(storage.bytes)
    }

    /// The storage behind a handle.
    pub fn get(&self, handle: u64) -> InterpResult<&Storage> {
        (handle as usize)
            .checked_sub(1)
            .and_then(|slot| self.slots.get(slot))
            .and_then(Option::as_ref)
            .ok_or_else(|| dangling(handle))
    }

    /// The storage behind a handle, for writing.
    pub fn get_mut(&mut self, handle: u64) -> InterpResult<&mut Storage> {
        (handle as usize)
            .checked_sub(1)
            .and_then(|slot| self.slots.get_mut(slot))
            .and_then(Option::as_mut)
            .ok_or_else(|| dangling(handle))
    }
}

fn dangling(handle: u64) -> InterpError {
    if handle == 0 {
        InterpError::new("access through a null data pointer")
    } else {
        InterpError::new("access through a data pointer whose allocation has ended")
    }
}
