//! Structures mqgate builds itself are blank padded even when the fields they
//! come from were NUL padded (IBM MQ "Rules for naming IBM MQ objects": a NUL ends a name;
//! mqgate writers pad with blanks), against the built binary: a transmission
//! message with NUL-padded MQXQH names arrives on a receiver channel, cannot be
//! delivered and is dead-lettered behind an MQDLH. MQDLH layout:
//! IBM MQ "MQDLH - Dead-letter header"; MQRC values: IBM MQ "Constants".
#![cfg(unix)]

mod common;

use common::{BIN, Gateway, data};
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqxqh};
use std::process::Command;

/// A 48-byte name field holding `name`, NUL padded.
fn nul_padded(name: &[u8]) -> CharField<48> {
    let mut f = [0u8; 48];
    f[..name.len()].copy_from_slice(name);
    CharField(f)
}

#[test]
fn a_dead_lettered_message_with_nul_padded_xqh_names_gets_a_blank_padded_mqdlh() {
    let dir = tempfile::tempdir().unwrap();
    // No default transmission queue: a queue manager that is neither this
    // one, nor defined, nor a device is 2087 MQRC_UNKNOWN_REMOTE_Q_MGR, and
    // the channel's undelivered rule dead-letters it (docs/config.md).
    let g = Gateway::start(
        dir.path(),
        "queue_manager:\n  default_xmit_queue: \"\"\nchannels:\n  - type: receiver\n    name: TO.GW\n    undelivered: dead-letter\n",
    );
    let md = Mqmd {
        version: 1,
        format: CharField(*b"MQSTR\0\0\0"),
        encoding: 546,
        coded_char_set_id: 1208,
        persistence: 1,
        ..Mqmd::default()
    };
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: nul_padded(b"APP.NOWHERE"),
        remote_q_mgr_name: nul_padded(b"QM.NOWHERE"),
        msg_desc: md,
    };
    let mut msg = Vec::new();
    write_xqh(&xqh, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"body");
    let file = dir.path().join("nul.xmit");
    std::fs::write(&file, &msg).unwrap();
    let out = Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", "TO.GW"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (st, m) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{m}");
    assert_eq!(m["md"]["Format"], "MQDEAD", "{m}");
    let d = data(&m);
    // IBM MQ "MQDLH - Dead-letter header": StrucId "DLH " @0, Reason @8, DestQName @12
    // (48), DestQMgrName @60 (48), Format @116 (8), PutApplName @128 (28),
    // PutDate @156, PutTime @164; integers in the MD's Encoding 546.
    assert_eq!(&d[..4], b"DLH ");
    assert_eq!(&d[8..12], &2087i32.to_le_bytes());
    let blank_after = |at: usize, len: usize, text: &[u8]| {
        let f = &d[at..at + len];
        assert_eq!(&f[..text.len()], text, "field at {at}");
        assert!(f[text.len()..].iter().all(|&b| b == b' '), "{at}: {f:02X?}");
    };
    blank_after(12, 48, b"APP.NOWHERE");
    blank_after(60, 48, b"QM.NOWHERE");
    blank_after(116, 8, b"MQSTR");
    blank_after(128, 28, b"TO.GW");
    assert!(!d[156..172].contains(&0), "{:02X?}", &d[156..172]);
    assert_eq!(&d[172..], b"body");
}
