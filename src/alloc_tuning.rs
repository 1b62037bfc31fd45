//! glibc malloc settings for a store-and-forward gateway.
//!
//! Each group commit hands redb about a megabyte of fresh page buffers and
//! frees them after the fsync. With glibc's defaults, blocks that large are
//! mmapped and unmapped again, or trimmed off the heap, so every commit
//! page-faults its buffers in anew: on the reference VM that was a third of
//! the channel benchmark's time (docs/performance.md "Message channels").
//! Keeping blocks up to 32 MiB on the heap and up to 256 MiB of free heap
//! before returning it to the kernel halved the page faults. Memory freed
//! by many messages leaving the queues is given back all the same, by the
//! gateway's trim (src/gateway/trim.rs).

/// Blocks at least this large (bytes) are mmapped on their own.
const MMAP_THRESHOLD: i32 = 32 * 1024 * 1024;
/// Free heap (bytes) kept before it is returned to the kernel.
const TRIM_THRESHOLD: i32 = 256 * 1024 * 1024;
/// Extra heap (bytes) asked for whenever the heap grows.
const TOP_PAD: i32 = 16 * 1024 * 1024;

/// Applies the settings; call first thing in `main`, before any thread.
/// A setting glibc refuses is left at its default (nothing else changes).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune() {
    for (param, value) in [
        (libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        (libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        (libc::M_TOP_PAD, TOP_PAD),
    ] {
        // SAFETY: mallopt only changes allocator parameters; it is called
        // before any other thread exists, with values glibc documents.
        unsafe {
            libc::mallopt(param, value);
        }
    }
}

/// Other platforms keep their allocator's defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune() {}
