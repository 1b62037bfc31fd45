//! `InterestIndex::heap_bytes` against the allocator: the bytes the index
//! counts from its structure are the bytes it asked the allocator for, as
//! this test binary's counting global allocator sees them — after inserts
//! (vectors growing, literal children moving to maps) and after removals
//! (lists shrinking, maps going back to vectors, nodes freed).
//!
//! One test in this binary, so that nothing else allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use mqgate_codecs::rv::{InterestIndex, MarketDataMix, Mode, Subject};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to `System` unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        // SAFETY: the caller's contract for `realloc` is `System::realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn heap_bytes_are_the_bytes_allocated() {
    let patterns = MarketDataMix::new().patterns(50_000);
    let checked: Vec<Subject<'_>> = patterns
        .iter()
        .map(|p| Subject::parse(p, Mode::Listen).unwrap())
        .collect();

    let before = LIVE.load(Ordering::SeqCst);
    let mut index = InterestIndex::new();
    for (id, p) in checked.iter().enumerate() {
        index.insert(p, id as u64);
    }
    // A second subscriber on every tenth pattern: lists of two.
    for (id, p) in checked.iter().enumerate().step_by(10) {
        index.insert(p, (id + checked.len()) as u64);
    }
    let allocated = (LIVE.load(Ordering::SeqCst) - before) as usize;
    let counted = index.heap_bytes();
    assert_eq!(counted, allocated);
    // 50,000 subscriptions need more than a node's two words each.
    assert!(counted > 50_000 * 16, "{counted}");

    for (id, p) in checked.iter().enumerate().filter(|(id, _)| id % 3 != 0) {
        assert!(index.remove(p, id as u64));
    }
    let allocated = (LIVE.load(Ordering::SeqCst) - before) as usize;
    assert_eq!(index.heap_bytes(), allocated);
    assert!(index.heap_bytes() < counted);

    drop(index);
    assert_eq!(LIVE.load(Ordering::SeqCst), before);
}
