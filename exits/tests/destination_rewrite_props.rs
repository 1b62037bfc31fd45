//! destination-rewrite on arbitrary RemoteQName bytes: never panics, changes
//! nothing outside RemoteQName/RemoteQMgrName (bytes 8..104, IBM MQ
//! "MQXQH - Transmission-queue header"), and either leaves the buffer exactly as it was or
//! leaves two valid, blank-padded MQ names whose concatenation with the
//! separator was the original name.

use mqgate_exits::builtin::destination_rewrite::{
    DestinationRewrite, RewriteOutcome, is_name_char,
};
use proptest::prelude::*;

fn header(name: &[u8], little: bool) -> Vec<u8> {
    let mut v = vec![0xA5u8; 600];
    v[..4].copy_from_slice(b"XQH ");
    v[4..8].copy_from_slice(&if little { [1, 0, 0, 0] } else { [0, 0, 0, 1] });
    v[8..56].fill(b' ');
    v[8..8 + name.len()].copy_from_slice(name);
    v
}

fn name_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        30 => prop::sample::select(b"AZaz09./_%%%%//".to_vec()),
        1 => any::<u8>(),
    ]
}

proptest! {
    #[test]
    fn only_the_two_names_change_and_only_validly(
        name in prop::collection::vec(name_byte(), 0..=48),
        little in any::<bool>(),
        slash in any::<bool>(),
        prefix in "[A-Z]{0,12}",
    ) {
        let before = header(&name, little);
        let mut buf = before.clone();
        let sep = if slash { "/" } else { "%" };
        let exit = DestinationRewrite::from_exit_data(&format!("separator={sep} prefix={prefix}")).unwrap();
        let outcome = exit.rewrite(&mut buf);
        prop_assert_eq!(&buf[..8], &before[..8]);
        prop_assert_eq!(&buf[104..], &before[104..]);
        if outcome == RewriteOutcome::Rewritten {
            let q = &buf[8..56];
            let qm = &buf[56..104];
            let q_len = q.iter().position(|&b| b == b' ').unwrap_or(48);
            let qm_len = qm.iter().position(|&b| b == b' ').unwrap_or(48);
            prop_assert!(q_len > 0 && qm_len > 0);
            prop_assert!(q[q_len..].iter().all(|&b| b == b' '));
            prop_assert!(qm[qm_len..].iter().all(|&b| b == b' '));
            prop_assert!(q[..q_len].iter().chain(&qm[..qm_len]).all(|&b| is_name_char(b)));
            prop_assert!(qm[..qm_len].starts_with(prefix.as_bytes()));
            // QUEUE + sep + QMGR (without prefix) is the original significant name.
            let mut joined = q[..q_len].to_vec();
            joined.push(sep.as_bytes()[0]);
            joined.extend_from_slice(&qm[prefix.len()..qm_len]);
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            let mut original = name[..end].to_vec();
            while original.last() == Some(&b' ') {
                original.pop();
            }
            prop_assert_eq!(joined, original);
        } else {
            prop_assert_eq!(buf, before);
        }
    }
}
