use mqgate_codecs::mq::rfh2::write_rfh2;
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{
    ByteOrder, ChainOptions, CharField, Charset, Descriptor, Mqmd, Mqrfh2, Mqxqh, parse_chain,
};
use std::hint::black_box;
fn main() {
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
        remote_q_name: CharField::new("DEV0042%APP.IN", cs).unwrap(),
        remote_q_mgr_name: CharField::new("GATEWAY1", cs).unwrap(),
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
        rfh2.push_folder(f, order).unwrap();
    }
    let mut msg = Vec::new();
    write_xqh(&xqh, order, cs, &mut msg);
    write_rfh2(&rfh2, order, cs, &mut msg);
    msg.resize(4096, b'x');
    let opts = ChainOptions::default();
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let cpu = || {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
    };
    let t = cpu();
    let mut s = 0;
    for _ in 0..n {
        s += parse_chain(black_box(&msg[..]), &opts)
            .map(|c| c.body_offset)
            .unwrap_or(0);
    }
    println!("{s} {:.2} ns cpu/iter", (cpu() - t) / n as f64);
}
