//! destination-rewrite on a 4 KiB transmission message next to a memcpy of
//! the same 4 KiB, in the same run; allocations counted with a counting
//! global allocator (benchmark; results in docs/performance.md).
//!
//! Time is the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not
//! wall time: the machine is shared, and time spent preempted is not the
//! exit's. Values are nanoseconds per iteration.
//!
//! cargo bench -p mqgate-exits --bench destination_rewrite -- --warm-up-time 1 --measurement-time 3

use bytes::BytesMut;
use criterion::{Criterion, Throughput, black_box};
use mqgate_codecs::mq::xqh::{Mqxqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd};
use mqgate_exits::builtin::destination_rewrite::{DestinationRewrite, RewriteOutcome};
use mqgate_exits::{ChainEntry, ExitChain, ExitPoint, Verdict};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts every allocation and reallocation made through the global allocator.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[path = "../../codecs/benches/common/cpu_model.rs"]
mod cpu_model;
#[path = "../../codecs/benches/common/thread_cpu.rs"]
mod thread_cpu;
use thread_cpu::ThreadCpuTime;

const SIZE: usize = 4096;

/// A 4096-byte transmission message: MQXQH (RemoteQName `INBOX%0001`,
/// RemoteQMgrName `GATEWAY`, little-endian, ASCII) + data.
fn message() -> Vec<u8> {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("INBOX%0001", Charset::Ascii).unwrap(),
        remote_q_mgr_name: CharField::new("GATEWAY", Charset::Ascii).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            format: CharField::new("MQSTR", Charset::Ascii).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut v = Vec::with_capacity(SIZE);
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
    v.resize(SIZE, b'x');
    v
}

/// RemoteQName and RemoteQMgrName as they were before the rewrite: each
/// iteration puts them back (96 bytes) so every call does the full rewrite.
fn restore_names(buf: &mut [u8], template: &[u8]) {
    buf[8..104].copy_from_slice(&template[8..104]);
}

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let template = message();
    let exit = DestinationRewrite::from_exit_data("prefix=DEV").unwrap();
    let mut g = c.benchmark_group("exits 4 KiB transmission message");
    g.throughput(Throughput::Bytes(SIZE as u64));

    let mut dst = vec![0u8; SIZE];
    g.bench_function("memcpy 4096 bytes (reference)", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&template));
            black_box(&dst);
        })
    });

    let mut buf = template.clone();
    g.bench_function("destination-rewrite (in place)", |b| {
        b.iter(|| {
            restore_names(&mut buf, &template);
            let r = exit.rewrite(black_box(&mut buf));
            debug_assert_eq!(r, RewriteOutcome::Rewritten);
            black_box(r)
        })
    });

    let mut chain = chain(&exit);
    let mut bytes = BytesMut::from(&template[..]);
    g.bench_function("destination-rewrite through an ExitChain", |b| {
        b.iter(|| {
            restore_names(&mut bytes, &template);
            black_box(chain.run_buffer(black_box(&mut bytes)))
        })
    });
    g.finish();
}

fn chain(exit: &DestinationRewrite) -> ExitChain {
    ExitChain::start(
        ExitPoint::Receive,
        "TO.GW",
        "GW",
        vec![ChainEntry::new(
            "destination-rewrite",
            "prefix=DEV",
            Box::new(exit.clone()),
        )],
    )
    .unwrap()
}

/// Allocations made by `n` calls of `f` on this thread.
fn count(n: usize, mut f: impl FnMut()) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..n {
        f();
    }
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

fn main() {
    println!("{}", cpu_model::describe());
    let mut c = Criterion::default()
        .with_measurement(ThreadCpuTime)
        .configure_from_args();
    benches(&mut c);
    c.final_summary();

    let template = message();
    let exit = DestinationRewrite::from_exit_data("prefix=DEV").unwrap();
    let mut buf = template.clone();
    let n = 10_000;
    let direct = count(n, || {
        restore_names(&mut buf, &template);
        assert_eq!(exit.rewrite(&mut buf), RewriteOutcome::Rewritten);
    });
    let mut chain = chain(&exit);
    let mut bytes = BytesMut::from(&template[..]);
    let through_chain = count(n, || {
        restore_names(&mut bytes, &template);
        assert_eq!(chain.run_buffer(&mut bytes), Verdict::Continue);
    });
    assert_eq!(&bytes[..], &buf[..]);
    println!("allocations in {n} destination-rewrite calls (in place): {direct}");
    println!("allocations in {n} destination-rewrite calls through an ExitChain: {through_chain}");
    assert_eq!(direct, 0, "destination-rewrite must not allocate");
    assert_eq!(through_chain, 0, "an inline chain must not allocate");
}
