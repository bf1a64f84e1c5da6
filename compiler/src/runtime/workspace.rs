//! Workspace memory for large allocations inside kernels, as TVM's
//! `TVMBackendAllocWorkspace`: 64-byte-aligned blocks, kept in a pool by
//! size when freed and handed out again, so a kernel that is run many times
//! does not fault fresh pages in on every run.

use std::alloc::{alloc, dealloc, Layout};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Alignment of every workspace block.
pub const WORKSPACE_ALIGNMENT: usize = 64;

/// Free blocks by size, and the size of every block handed out.
#[derive(Default)]
struct Pool {
    free: HashMap<usize, Vec<usize>>,
    sizes: HashMap<usize, usize>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// `tirc_workspace_allocate`: a block of at least `bytes` bytes, or null.
pub extern "C" fn tirc_workspace_allocate(bytes: i64) -> *mut u8 {
    let size = usize::try_from(bytes.max(1))
        .unwrap_or(usize::MAX)
        .next_multiple_of(WORKSPACE_ALIGNMENT);
    let mut guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let pool = guard.get_or_insert_with(Pool::default);
    if let Some(address) = pool.free.get_mut(&size).and_then(Vec::pop) {
        pool.sizes.insert(address, size);
        return address as *mut u8;
    }
    let Ok(layout) = Layout::from_size_align(size, WORKSPACE_ALIGNMENT) else {
        return std::ptr::null_mut();
    };
    // SAFETY: the layout has a non-zero size.
    let pointer = unsafe { alloc(layout) };
    if !pointer.is_null() {
        pool.sizes.insert(pointer as usize, size);
    }
    pointer
}

/// `tirc_workspace_free`: takes back a block from [`tirc_workspace_allocate`].
pub extern "C" fn tirc_workspace_free(pointer: *mut u8) {
    let mut guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let pool = guard.get_or_insert_with(Pool::default);
    if let Some(size) = pool.sizes.remove(&(pointer as usize)) {
        pool.free.entry(size).or_default().push(pointer as usize);
    }
}

/// Returns every pooled block to the system allocator.
pub fn release_workspace() {
    let mut guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pool) = guard.as_mut() {
        for (size, blocks) in pool.free.drain() {
            for address in blocks {
                if let Ok(layout) = Layout::from_size_align(size, WORKSPACE_ALIGNMENT) {
                    // SAFETY: allocated in `tirc_workspace_allocate` with this layout.
                    unsafe { dealloc(address as *mut u8, layout) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_blocks_are_reused_and_aligned() {
        let first = tirc_workspace_allocate(1000);
        assert!(!first.is_null());
        assert_eq!(first as usize % WORKSPACE_ALIGNMENT, 0);
        tirc_workspace_free(first);
        let second = tirc_workspace_allocate(1000);
        assert_eq!(first, second);
        tirc_workspace_free(second);
    }
}
