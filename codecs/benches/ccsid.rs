//! CCSID conversion speed next to glibc iconv on the same input, same run
//! (benchmark; results in docs/performance.md "CCSID conversion").
//!
//! Run: cargo bench -p mqgate-codecs --bench ccsid -- --warm-up-time 1 --measurement-time 3

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mqgate_codecs::ccsid::{
    Ccsid, Converter, NewlinePolicy, OnUnmappable, Options, decode, decode_into, encode,
};
use std::ffi::CString;
use std::hint::black_box;

const SIZE: usize = 16 * 1024 * 1024;

/// TABLE policy: the same mapping iconv uses, so outputs can be compared.
const OPTIONS: Options = Options {
    newline: NewlinePolicy::Table,
    on_unmappable: OnUnmappable::Fail,
};

/// 16 MiB of EBCDIC 037 text: English business text (ASCII-range
/// characters, the common case on the mainframe) with one Latin-1 letter or
/// sign in about every 50 bytes and EBCDIC NL line ends.
fn ebcdic_text() -> Vec<u8> {
    let line = "INVOICE 004711 CUSTOMER MUELLER AND SONS LTD, ZURICH BRANCH\u{85}\
                ITEM 12 X WIDGET AT £3.50 EACH = £42.00, DELIVERY TO JOSÉ PEÑA, MADRID\u{85}\
                Status: shipped on 2026-11-29; reference A-17/B, contact desk [ops] 555-0100\u{85}";
    let one = encode(line, Ccsid::new(37).unwrap(), &OPTIONS)
        .unwrap()
        .bytes;
    one.iter().copied().cycle().take(SIZE).collect()
}

/// glibc iconv through libc, the reference converter.
struct Iconv(libc::iconv_t);

impl Iconv {
    fn new(from: &str, to: &str) -> Iconv {
        let (f, t) = (CString::new(from).unwrap(), CString::new(to).unwrap());
        // SAFETY: valid NUL-terminated names; checked for (iconv_t)-1 below.
        let cd = unsafe { libc::iconv_open(t.as_ptr(), f.as_ptr()) };
        assert_ne!(cd as isize, -1, "iconv_open {from} -> {to}");
        Iconv(cd)
    }

    /// Converts all of `input` into a buffer of `cap` bytes.
    fn convert(&self, input: &[u8], cap: usize) -> Vec<u8> {
        let mut out = vec![0u8; cap];
        let n = self.convert_into(input, &mut out);
        out.truncate(n);
        out
    }

    /// Converts all of `input` into `out` (reused, no allocation); returns
    /// the output length.
    fn convert_into(&self, input: &[u8], out: &mut [u8]) -> usize {
        let cap = out.len();
        let mut inp = input.as_ptr() as *mut libc::c_char;
        let mut inleft = input.len();
        let mut outp = out.as_mut_ptr() as *mut libc::c_char;
        let mut outleft = out.len();
        // SAFETY: the pointers and lengths describe live buffers.
        let r = unsafe { libc::iconv(self.0, &mut inp, &mut inleft, &mut outp, &mut outleft) };
        assert_ne!(r, usize::MAX, "iconv failed");
        cap - outleft
    }
}

impl Drop for Iconv {
    fn drop(&mut self) {
        // SAFETY: opened by iconv_open.
        unsafe { libc::iconv_close(self.0) };
    }
}

#[path = "common/cpu_model.rs"]
mod cpu_model;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use thread_cpu::ThreadCpuTime;

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    println!("{}", cpu_model::describe());
    let input = ebcdic_text();
    let c37 = Ccsid::new(37).unwrap();
    let c819 = Ccsid::new(819).unwrap();
    let text = decode(&input, c37, &OPTIONS).unwrap().text;
    let to_utf8 = Iconv::new("IBM037", "UTF-8");
    let from_utf8 = Iconv::new("UTF-8", "IBM037");
    let to_819 = Iconv::new("IBM037", "ISO-8859-1");
    // Same bytes as the reference before timing anything.
    assert_eq!(text.as_bytes(), to_utf8.convert(&input, SIZE * 3));
    assert_eq!(encode(&text, c37, &OPTIONS).unwrap().bytes, input);
    assert_eq!(
        Converter::new(c37, Ccsid::new(1208).unwrap(), &OPTIONS)
            .convert(&input)
            .unwrap()
            .bytes,
        text.as_bytes()
    );
    assert_eq!(from_utf8.convert(text.as_bytes(), SIZE), input);
    let direct = Converter::new(c37, c819, &OPTIONS);
    assert_eq!(
        direct.convert(&input).unwrap().bytes,
        to_819.convert(&input, SIZE)
    );

    // Output buffers are reused across iterations on both sides, so the
    // figures measure conversion, not page faults of fresh allocations.
    let mut g = c.benchmark_group("ccsid");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(SIZE as u64));
    let c1208 = Ccsid::new(1208).unwrap();
    let to_1208 = Converter::new(c37, c1208, &OPTIONS);
    let from_1208 = Converter::new(c1208, c37, &OPTIONS);
    let mut v = Vec::with_capacity(SIZE * 2);
    g.bench_function("037_to_utf8/mqgate", |b| {
        b.iter(|| {
            v.clear();
            to_1208.convert_into(black_box(&input), &mut v).unwrap()
        })
    });
    let mut s = String::with_capacity(SIZE * 2);
    g.bench_function("037_to_utf8_string/mqgate", |b| {
        b.iter(|| {
            s.clear();
            decode_into(black_box(&input), c37, &OPTIONS, &mut s).unwrap()
        })
    });
    let mut raw = vec![0u8; SIZE * 3];
    g.bench_function("037_to_utf8/iconv", |b| {
        b.iter(|| to_utf8.convert_into(black_box(&input), &mut raw))
    });
    g.bench_function("utf8_to_037/mqgate", |b| {
        b.iter(|| {
            v.clear();
            from_1208
                .convert_into(black_box(text.as_bytes()), &mut v)
                .unwrap()
        })
    });
    g.bench_function("utf8_to_037/iconv", |b| {
        b.iter(|| from_utf8.convert_into(black_box(text.as_bytes()), &mut raw))
    });
    g.bench_function("037_to_819/mqgate", |b| {
        b.iter(|| {
            v.clear();
            direct.convert_into(black_box(&input), &mut v).unwrap()
        })
    });
    g.bench_function("037_to_819/iconv", |b| {
        b.iter(|| to_819.convert_into(black_box(&input), &mut raw))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench
}
criterion_main!(benches);
