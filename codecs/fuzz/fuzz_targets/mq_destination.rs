//! Fuzz the destination split (`mq::destination`, the AVX-512 form where the
//! CPU has it): no panic on any buffer, nothing outside RemoteQName and
//! RemoteQMgrName (bytes 8..104) ever changes, nothing at all unless it
//! answers Rewritten, and a rewritten ASCII RemoteQName holds no separator.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::mq::destination::{DestinationSplit, RewriteOutcome};

fuzz_target!(|data: &[u8]| {
    // First byte: separator choice and prefix length; the rest is the buffer.
    let Some((&head, msg)) = data.split_first() else {
        return;
    };
    let separator = [b'%', b'/', b'.', b'Q'][usize::from(head & 3)];
    let prefix = vec![b'D'; usize::from(head >> 2) % 48];
    let split = DestinationSplit::new(separator, &prefix).expect("name characters, < 48");
    let mut buf = msg.to_vec();
    let outcome = split.apply(&mut buf);
    if outcome == RewriteOutcome::Rewritten {
        assert_eq!(buf[..8], msg[..8]);
        assert_eq!(buf[104..], msg[104..]);
        // An ASCII header (StrucId `XQH `): the separator is gone.
        if msg[0] == b'X' {
            assert!(!buf[8..56].contains(&separator));
        }
    } else {
        assert_eq!(buf, msg);
    }
});
