//! `InterestIndex::heap_bytes` against the allocator: the bytes the index
//! counts from its structure are the bytes it asked the allocator for, as
//! this test binary's counting global allocator sees them — after inserts
//! (vectors growing, literal children moving to maps) and after removals
//! (lists shrinking, maps going back to vectors, nodes freed).
//!
//! One test in this binary, so that nothing else allocates while it counts.

use mqgate_codecs::rv::{InterestIndex, MarketDataMix, Mode, Subject};

#[path = "../benches/common/counting_alloc.rs"]
mod counting_alloc;

#[test]
fn heap_bytes_are_the_bytes_allocated() {
    let patterns = MarketDataMix::new().patterns(50_000);
    let checked: Vec<Subject<'_>> = patterns
        .iter()
        .map(|p| Subject::parse(p, Mode::Listen).unwrap())
        .collect();

    let before = counting_alloc::live();
    let mut index = InterestIndex::new();
    for (id, p) in checked.iter().enumerate() {
        index.insert(p, id as u64);
    }
    // A second subscriber on every tenth pattern: lists of two.
    for (id, p) in checked.iter().enumerate().step_by(10) {
        index.insert(p, (id + checked.len()) as u64);
    }
    let allocated = (counting_alloc::live() - before) as usize;
    let counted = index.heap_bytes();
    assert_eq!(counted, allocated);
    // 50,000 subscriptions need more than a node's two words each.
    assert!(counted > 50_000 * 16, "{counted}");

    for (id, p) in checked.iter().enumerate().filter(|(id, _)| id % 3 != 0) {
        assert!(index.remove(p, id as u64));
    }
    let allocated = (counting_alloc::live() - before) as usize;
    assert_eq!(index.heap_bytes(), allocated);
    assert!(index.heap_bytes() < counted);

    drop(index);
    assert_eq!(counting_alloc::live(), before);
}
