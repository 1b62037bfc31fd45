//! The MQ message fixtures the project makes itself (fixtures/mq/README.md).
//!
//! Each file is built here field by field from IBM MQ's structure layout,
//! without the project's codecs, so a fixture is never only what mqgate's own
//! writer produces. The test checks that the file in the repository is
//! exactly these bytes; with `MQGATE_WRITE_FIXTURES=1` it writes the files
//! first (this is how they are made:
//! `MQGATE_WRITE_FIXTURES=1 cargo test -p mqgate --test mq_fixtures`).

use std::path::Path;

/// MQRFH2's fixed part and folders (IBM MQ "MQRFH2 - Rules and formatting
/// header 2", "Fields for MQRFH2"): StrucId MQCHAR4 at 0, Version at 4,
/// StrucLength at 8, Encoding at 12, CodedCharSetId at 16, Format MQCHAR8 at
/// 20, Flags at 28, NameValueCCSID at 32 (MQRFH_STRUC_LENGTH_FIXED_2 = 36),
/// then NameValueLength + NameValueData pairs, each NameValueData a multiple
/// of four bytes long. The integers are big-endian here: the MQMD in front
/// says Encoding 273 (MQENC_INTEGER_NORMAL | MQENC_DECIMAL_NORMAL |
/// MQENC_FLOAT_IEEE_NORMAL; IBM MQ "Encoding (MQLONG)").
fn rfh2(encoding: i32, ccsid: i32, format: &[u8; 8], nv_ccsid: i32, folders: &[&str]) -> Vec<u8> {
    let mut nv = Vec::new();
    for f in folders {
        let mut data = f.as_bytes().to_vec();
        // "The length must be a multiple of four": pad with blanks.
        while data.len() % 4 != 0 {
            data.push(b' ');
        }
        nv.extend_from_slice(&(data.len() as i32).to_be_bytes());
        nv.extend_from_slice(&data);
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"RFH "); // MQRFH2_STRUC_ID
    out.extend_from_slice(&2i32.to_be_bytes()); // MQRFH_VERSION_2
    out.extend_from_slice(&(36 + nv.len() as i32).to_be_bytes()); // StrucLength
    out.extend_from_slice(&encoding.to_be_bytes());
    out.extend_from_slice(&ccsid.to_be_bytes());
    out.extend_from_slice(format);
    out.extend_from_slice(&0i32.to_be_bytes()); // Flags MQRFH_NONE
    out.extend_from_slice(&nv_ccsid.to_be_bytes());
    out.extend_from_slice(&nv);
    out
}

/// `device_rfh2.dat`: what a device application receives for a JMS text
/// message put to queue INBOX of device DEV0001 — one MQRFH2 with the
/// `<mcd>` (message content descriptor: JMS text), `<jms>` (destination and
/// priority) and `<usr>` (application properties) folders, then the text in
/// UTF-8 (CodedCharSetId 1208, Format MQSTR).
fn device_rfh2() -> Vec<u8> {
    let mut out = rfh2(
        273,
        1208,
        b"MQSTR   ",
        1208,
        &[
            "<mcd><Msd>jms_text</Msd></mcd>",
            "<jms><Dst>queue:///INBOX</Dst><Pri>4</Pri></jms>",
            "<usr><Device>DEV0001</Device><Sequence>42</Sequence></usr>",
        ],
    );
    out.extend_from_slice(b"Meter reading 2026-12-01T20:00:00Z: 1234.5 kWh (device DEV0001)");
    out
}

#[test]
fn device_rfh2_dat_is_what_its_generator_writes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mq/device_rfh2.dat");
    let want = device_rfh2();
    if std::env::var_os("MQGATE_WRITE_FIXTURES").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(have, want, "{} differs from its generator", path.display());
    // The sizes fixtures/mq/README.md gives: 251 bytes, StrucLength 188
    // (36 fixed + 4+32 + 4+48 + 4+60), a 63-byte body.
    assert_eq!(want.len(), 251);
    assert_eq!(&want[8..12], &188i32.to_be_bytes());
}
