//! MQ header codec benchmarks (docs/performance.md): (a) parse the header
//! chain of a 4 KiB transmission message (MQXQH with its MQMD + MQRFH2 +
//! body) and (b) rewrite RemoteQName/RemoteQMgrName in place, each next to a
//! memcpy of the same 4 KiB buffer measured in the same run. Time is the
//! benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the machine is
//! shared, and time spent preempted is not the code's.
//! Figures and the command: docs/performance.md "MQ header codecs".

use std::hint::black_box;

use bytes::BytesMut;
use criterion::{Criterion, criterion_group, criterion_main};
use mqgate_codecs::mq::edit::set_remote_names;
use mqgate_codecs::mq::rfh2::write_rfh2;
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{
    ByteOrder, ChainOptions, CharField, Charset, Descriptor, Mqmd, Mqrfh2, Mqxqh, parse_chain,
};

const MESSAGE_LEN: usize = 4096;

/// XQH (428, embedded MD v1 with Format MQHRF2) + RFH2 (mcd, jms, usr
/// folders) + body, little-endian, ASCII, exactly 4096 bytes.
fn transmission_message() -> Vec<u8> {
    let cs = Charset::Ascii;
    let order = ByteOrder::Little;
    let md = Mqmd {
        version: 1,
        encoding: 546,
        coded_char_set_id: 1208,
        format: CharField(*b"MQHRF2  "),
        ..Mqmd::default()
    };
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("DEV0042%APP.IN", cs).expect("name"),
        remote_q_mgr_name: CharField::new("GATEWAY1", cs).expect("name"),
        msg_desc: md,
    };
    let next = Descriptor {
        encoding: 546,
        coded_char_set_id: 1208,
        format: CharField(*b"MQSTR   "),
        charset: cs,
    };
    let mut rfh2 = Mqrfh2::new(&next, 1208);
    for f in [
        "<mcd><Msd>jms_text</Msd></mcd>",
        "<jms><Dst>queue:///APP.IN</Dst><Tms>1609376523440</Tms><Dlv>2</Dlv></jms>",
        "<usr><Region>EU</Region><Priority>high</Priority></usr>",
    ] {
        rfh2.push_folder(f, order).expect("UTF-8 folder");
    }
    let mut out = Vec::with_capacity(MESSAGE_LEN);
    write_xqh(&xqh, order, cs, &mut out);
    write_rfh2(&rfh2, order, cs, &mut out);
    out.resize(MESSAGE_LEN, b'x');
    out
}

#[path = "common/cpu_model.rs"]
mod cpu_model;
#[path = "common/thread_cpu.rs"]
mod thread_cpu;
use thread_cpu::ThreadCpuTime;

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    println!("{}", cpu_model::describe());
    let msg = transmission_message();
    let opts = ChainOptions::default();
    let chain = parse_chain(&msg, &opts).expect("bench message parses");
    assert_eq!(chain.links.len(), 2);

    let mut group = c.benchmark_group("mq_4KiB");
    let mut dst = vec![0u8; MESSAGE_LEN];
    group.bench_function("memcpy", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&msg[..])));
    });
    group.bench_function("parse_chain", |b| {
        b.iter(|| parse_chain(black_box(&msg[..]), &opts).map(|c| c.body_offset))
    });
    group.bench_function("parse_chain_and_decode", |b| {
        b.iter(|| {
            parse_chain(black_box(&msg[..]), &opts)
                .ok()
                .and_then(|c| c.decode().ok().map(|d| d.headers.len()))
        })
    });
    let mut buf = BytesMut::from(&msg[..]);
    group.bench_function("rewrite_remote_names", |b| {
        b.iter(|| set_remote_names(black_box(&mut buf), 0, "APP.IN", "DEV0042"))
    });
    group.finish();
}

criterion_group! {
    name = mq;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = benches
}
criterion_main!(mq);
