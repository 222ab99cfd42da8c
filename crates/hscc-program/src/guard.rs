//! Memory a program may write, with no way out of it: a value of its own
//! mapping that ends where an inaccessible page begins, with another such page
//! before it. A write past the value's last byte (past the private area at
//! the socket's end, or through pointer arithmetic running away) faults inside
//! the hook, which fault.rs reports with the program's line, instead of
//! landing in the simulator's memory. The kernel's verifier refuses such a
//! program; the simulator stops its run.
//!
//! The mapping is made once per value (a connection's socket), not per hook
//! call. runtime.c does the same for socket-storage values.

use core::ptr::NonNull;
use std::sync::OnceLock;

/// A `T` at the end of its own pages, between two inaccessible pages.
pub struct Guarded<T: Copy> {
    /// The mapping: guard page, the value's pages, guard page.
    base: NonNull<u8>,
    len: usize,
    value: NonNull<T>,
}

// SAFETY: a Guarded owns its mapping and the T in it, as a Box would.
unsafe impl<T: Copy + Send> Send for Guarded<T> {}
// SAFETY: `&Guarded<T>` gives only `&T`.
unsafe impl<T: Copy + Sync> Sync for Guarded<T> {}

pub(crate) fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as usize,
        _ => 4096,
    })
}

impl<T: Copy> Guarded<T> {
    /// `value` in a new mapping, its last byte the last before the guard
    /// page; why not when the system maps no more (out of memory, or of
    /// mappings: vm.max_map_count).
    pub fn new(value: T) -> Result<Guarded<T>, String> {
        let page = page_size();
        let size = core::mem::size_of::<T>();
        // The value ends at a page boundary: its size must keep it aligned.
        assert!(
            size.is_multiple_of(core::mem::align_of::<T>()) && size > 0,
            "a guarded type ends at a page boundary"
        );
        let data = size.div_ceil(page) * page;
        let len = data + 2 * page;
        let fail = || {
            format!(
                "cannot map {len} bytes for a program's connection: {} (each connection \
                 holds a few mappings, and vm.max_map_count limits them)",
                std::io::Error::last_os_error()
            )
        };
        // SAFETY: a new private anonymous mapping, inaccessible; then its
        // middle pages made readable and writable. Nothing else refers to it.
        let base = unsafe {
            let m = libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if m == libc::MAP_FAILED {
                return Err(fail());
            }
            let m = m.cast::<u8>();
            if libc::mprotect(m.add(page).cast(), data, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                let e = fail();
                libc::munmap(m.cast(), len);
                return Err(e);
            }
            m
        };
        // SAFETY: `base + page + data - size` lies in the writable pages and
        // is aligned for T (the page is, and size is a multiple of T's
        // alignment); the mapping is fresh, so writing the value is its
        // initialisation.
        let value = unsafe {
            let at = base.add(page + data - size).cast::<T>();
            at.write(value);
            NonNull::new_unchecked(at)
        };
        Ok(Guarded {
            // SAFETY: mmap returned a mapping, not null.
            base: unsafe { NonNull::new_unchecked(base) },
            len,
            value,
        })
    }

    /// The value's address, for the program.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.value.as_ptr()
    }

    /// Whether `addr` is in the inaccessible page right after the value:
    /// where a run past its end faults.
    pub fn just_past(&self, addr: u64) -> bool {
        let end = self.value.as_ptr() as u64 + core::mem::size_of::<T>() as u64;
        (end..end + page_size() as u64).contains(&addr)
    }
}

impl<T: Copy> core::ops::Deref for Guarded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the value lives in the mapping this Guarded owns.
        unsafe { self.value.as_ref() }
    }
}

impl<T: Copy> core::ops::DerefMut for Guarded<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and `&mut self` makes the borrow unique.
        unsafe { self.value.as_mut() }
    }
}

impl<T: Copy + core::fmt::Debug> core::fmt::Debug for Guarded<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: Copy> Drop for Guarded<T> {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping `new` made; the value is Copy (nothing
        // to drop) and no borrow of it outlives `self`.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_ends_where_the_guard_page_begins() {
        let mut g = Guarded::new([7u64; 13]).unwrap();
        assert_eq!(*g, [7; 13]);
        g[12] = 9;
        let end = g.as_mut_ptr() as usize + core::mem::size_of::<[u64; 13]>();
        assert_eq!(end % page_size(), 0);
        assert!(g.just_past(end as u64) && !g.just_past(end as u64 - 1));
        let c = Guarded::new(*g).unwrap();
        assert_eq!(c[12], 9);
        assert_ne!(c.value, g.value);
    }
}
