//! The client-protocol codec never panics and always writes back what it
//! accepted: the segments of a real JMS client capture
//! (../shared/fixtures/mq/capture/jms_client_qm.pcap) with bytes changed at
//! random, and random bytes behind a valid segment header of every type.

mod pcap;

use mqgate_codecs::fap::{
    Reassembler, SegmentType, Tsh, TshKind, decode_body, encode_body, parse_segment, segment_len,
    tcf, write_segment,
};
use proptest::prelude::*;
use std::sync::OnceLock;

fn capture_segments() -> &'static [Vec<u8>] {
    static SEGS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEGS.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/fixtures/mq/capture/jms_client_qm.pcap"
        );
        let Ok(file) = std::fs::read(path) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{path} is absent, and CI is set: .ci/run clones ../shared beside the repository"
            );
            println!("SKIP: {path} is absent");
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in pcap::connections(&file) {
            for d in [&c.to_server, &c.to_client] {
                let mut at = 0;
                while at < d.data.len() {
                    let n = segment_len(&d.data[at..], usize::MAX).unwrap().unwrap();
                    out.push(d.data[at..at + n].to_vec());
                    at += n;
                }
            }
        }
        out
    })
}

/// Decodes `b` as one segment; when it decodes, the body writes back byte
/// for byte and every error's offset lies inside the segment.
fn check(b: &[u8]) {
    let Ok(Some(n)) = segment_len(b, 1 << 20) else {
        return;
    };
    let Ok(s) = parse_segment(&b[..n.min(b.len())]) else {
        return;
    };
    let mut r = Reassembler::new(1 << 20);
    let Ok(Some(m)) = r.push(&s) else { return };
    match decode_body(&m.tsh, &m.body) {
        Ok(body) => {
            let mut out = Vec::new();
            encode_body(&body, m.tsh.byte_order, &mut out);
            assert_eq!(out, m.body);
        }
        Err(e) => assert!(e.offset <= n, "{e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn changed_capture_segments(i in any::<prop::sample::Index>(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let segs = capture_segments();
        if segs.is_empty() {
            return Ok(());
        }
        let mut b = segs[i.index(segs.len())].clone();
        for (at, v) in edits {
            let k = at.index(b.len());
            b[k] = v;
        }
        check(&b);
    }

    #[test]
    fn random_bodies_of_every_type(t in any::<u8>(), big in any::<bool>(), body in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut h = Tsh::new(TshKind::Tshm, SegmentType(t));
        h.byte_order = if big { mqgate_codecs::mq::ByteOrder::Big } else { mqgate_codecs::mq::ByteOrder::Little };
        h.control_flags1 = tcf::FIRST | tcf::LAST;
        let mut b = Vec::new();
        write_segment(&h, &body, &mut b);
        check(&b);
    }
}
