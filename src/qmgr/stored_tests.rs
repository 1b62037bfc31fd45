//! Persistent messages in the store, not in memory: a start reads summaries
//! only, a get reads its message back byte for byte, the body cache keeps to
//! its bound, and the recovery rules (BackoutCount, expiry with its report,
//! units of work in doubt) hold across a restart.

use super::*;
use crate::store::redb::RedbStore;

const CONFIG: &str = "
queue_manager:
  name: QM1
  body_cache_bytes: 20000
queues:
  - type: local
    name: PERSIST
    default_persistence: persistent
  - type: local
    name: REPLIES
";

fn open(dir: &std::path::Path) -> Arc<QueueManager> {
    let config = Config::from_yaml(CONFIG, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir).unwrap());
    Arc::new(QueueManager::open(&config, store).unwrap())
}

fn md(priority: i32, correl: u8) -> Mqmd {
    Mqmd {
        priority,
        correl_id: [correl; 24],
        persistence: per::PERSISTENT,
        format: CharField(*b"MQSTR   "),
        ..Mqmd::default()
    }
}

/// `len` bytes that differ from one message to the next.
fn data(seed: u8, len: usize) -> Bytes {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect::<Vec<u8>>()
        .into()
}

fn put(qm: &QueueManager, m: Mqmd, body: Bytes, uow: Option<u64>) -> PutResult {
    let opts = PutOptions {
        uow,
        ..PutOptions::default()
    };
    qm.put("PERSIST", m, Charset::Ascii, body, &opts).unwrap()
}

fn by_correl_id(qm: &QueueManager, correl: u8) -> GetResult {
    let sel = Selector {
        correl_id: Some([correl; 24]),
        ..Selector::default()
    };
    qm.get("PERSIST", &sel, GetMode::Destructive { uow: None })
        .unwrap()
}

#[test]
fn a_start_reads_no_message_and_a_get_reads_its_message_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut before = Vec::new();
    {
        let qm = open(dir.path());
        // Three single records (puts outside a unit of work), then a unit
        // of work of five (stored together as one segment).
        for (correl, len) in [(1u8, 0usize), (2, 256), (3, 100_000)] {
            put(&qm, md(correl as i32, correl), data(correl, len), None);
        }
        let uow = qm.begin_uow(None, None).unwrap();
        for correl in 4u8..=8 {
            put(&qm, md(5, correl), data(correl, 300), Some(uow));
        }
        qm.commit(uow).unwrap();
        for correl in 1u8..=8 {
            let sel = Selector {
                correl_id: Some([correl; 24]),
                ..Selector::default()
            };
            before.push(
                qm.get("PERSIST", &sel, GetMode::Browse { after: None })
                    .unwrap(),
            );
        }
    }
    let qm = open(dir.path());
    // No record was read: the index came from the summaries alone.
    assert_eq!(qm.store_read_counts(), crate::store::ReadCounts::default());
    assert_eq!(qm.depth("PERSIST"), Some(8));
    // Priority order survives: 5 (the unit of work's), then 3, 2, 1.
    let order: Vec<u8> = (0..8)
        .scan(None, |after, _| {
            let got = qm
                .get(
                    "PERSIST",
                    &Selector::default(),
                    GetMode::Browse { after: *after },
                )
                .unwrap();
            *after = Some(got.position);
            Some(got.md.correl_id[0])
        })
        .collect();
    assert_eq!(order, [4, 5, 6, 7, 8, 3, 2, 1]);
    let reads = qm.store_read_counts().values;
    let cached = qm.body_cache_stats().entries;
    for want in &before {
        let got = by_correl_id(&qm, want.md.correl_id[0]);
        assert_eq!(got.data, want.data, "data of {:?}", want.md.correl_id[0]);
        assert_eq!(got.md.msg_id, want.md.msg_id);
        assert_eq!(got.md.priority, want.md.priority);
        assert_eq!(got.md.format, want.md.format);
        assert_eq!(got.md.put_date, want.md.put_date);
        assert_eq!(got.md.put_time, want.md.put_time);
        assert_eq!(got.md.put_appl_name, want.md.put_appl_name);
    }
    // The browse above read (and cached) what fitted the 20,000-byte cache;
    // the gets read the rest again, one value each.
    assert!(qm.store_read_counts().values - reads <= (8 - cached) as u64);
    assert_eq!(qm.depth("PERSIST"), Some(0));
    // Nothing is left in the cache of messages that are gone.
    assert_eq!(qm.body_cache_stats().entries, 0);
}

#[test]
fn a_single_record_is_read_whole_once() {
    let dir = tempfile::tempdir().unwrap();
    {
        let qm = open(dir.path());
        put(&qm, md(0, 1), data(1, 1000), None);
    }
    let qm = open(dir.path());
    let got = by_correl_id(&qm, 1);
    assert_eq!(got.data, data(1, 1000));
    // One value: the record (src/qmgr/record.rs): a 10-byte header, the
    // queue name PERSIST (7), the MQMD version 2 (364 bytes, IBM MQ "MQMD -
    // Message descriptor") and the 1000 bytes of data.
    assert_eq!(
        qm.store_read_counts(),
        crate::store::ReadCounts {
            values: 1,
            bytes: 10 + 7 + 364 + 1000
        }
    );
}

#[test]
fn the_body_cache_keeps_to_its_byte_bound() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let one = body_cache::cost(&Message {
        md: Mqmd::default(),
        charset: Charset::Ascii,
        data: data(0, 1000),
        expires_at_ms: None,
    });
    // The bound of CONFIG (20,000 bytes) holds this many 1000-byte messages.
    let fits = 20_000 / one;
    for i in 0..100u8 {
        put(&qm, md(0, i), data(i, 1000), None);
        let s = qm.body_cache_stats();
        assert!(s.bytes <= 20_000, "{s:?} after {i}");
        assert_eq!(s.entries, usize::from(i + 1).min(fits));
    }
    assert_eq!(qm.body_cache_stats().evictions, (100 - fits) as u64);
    let reads = qm.store_read_counts().values;
    for i in 0..100u8 {
        let got = qm
            .get(
                "PERSIST",
                &Selector::default(),
                GetMode::Destructive { uow: None },
            )
            .unwrap();
        assert_eq!(got.data, data(i, 1000));
    }
    // The oldest were pushed out and read from the store; the newest came
    // from the cache.
    let s = qm.body_cache_stats();
    assert_eq!((s.hits, s.misses), (fits as u64, (100 - fits) as u64));
    assert_eq!(qm.store_read_counts().values - reads, (100 - fits) as u64);
    assert_eq!((s.entries, s.bytes), (0, 0));
}

#[test]
fn backout_counts_expiry_reports_and_units_in_doubt_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let qm = open(dir.path());
        let rt = tokio::runtime::Runtime::new().unwrap();
        let _guard = rt.enter();
        put(&qm, md(0, 1), data(1, 2000), None);
        put(&qm, md(0, 2), data(2, 2000), None);
        let short = Mqmd {
            expiry: 3, // tenths of a second (IBM MQ "Expiry (MQLONG)")
            // MQRO_EXPIRATION_WITH_FULL_DATA (IBM MQ "Report (MQLONG)").
            report: 0x00E0_0000,
            reply_to_q: CharField::new("REPLIES", Charset::Ascii).unwrap(),
            ..md(0, 3)
        };
        put(&qm, short, data(3, 5000), None);
        // Backed out twice: BackoutCount 2 is stored.
        for _ in 0..2 {
            let uow = qm.begin_uow(None, None).unwrap();
            let sel = Selector {
                correl_id: Some([1; 24]),
                ..Selector::default()
            };
            qm.get("PERSIST", &sel, GetMode::Destructive { uow: Some(uow) })
                .unwrap();
            qm.backout(uow).unwrap();
        }
        // In doubt at the crash: a get and a put under a unit of work that
        // never committed.
        let uow = qm.begin_uow(None, None).unwrap();
        let sel = Selector {
            correl_id: Some([2; 24]),
            ..Selector::default()
        };
        qm.get("PERSIST", &sel, GetMode::Destructive { uow: Some(uow) })
            .unwrap();
        put(&qm, md(0, 4), data(4, 10), Some(uow));
    }
    std::thread::sleep(Duration::from_millis(400));
    let qm = open(dir.path());
    assert_eq!(qm.store_read_counts(), crate::store::ReadCounts::default());
    let one = by_correl_id(&qm, 1);
    assert_eq!((one.data, one.md.backout_count), (data(1, 2000), 2));
    let two = by_correl_id(&qm, 2);
    assert_eq!((two.data, two.md.backout_count), (data(2, 2000), 0));
    // The expired message is discarded by the get that meets it, and its
    // report carries all its data (MQRO_EXPIRATION_WITH_FULL_DATA), read
    // back from the store.
    assert_eq!(
        qm.get(
            "PERSIST",
            &Selector::default(),
            GetMode::Destructive { uow: None }
        )
        .unwrap_err()
        .mqrc,
        Mqrc::NO_MSG_AVAILABLE
    );
    let report = qm
        .get(
            "REPLIES",
            &Selector::default(),
            GetMode::Destructive { uow: None },
        )
        .unwrap();
    // IBM MQ "Feedback (MQLONG)": MQFB_EXPIRATION 258.
    assert_eq!((report.md.feedback, report.data), (258, data(3, 5000)));
    assert_eq!(qm.depth("PERSIST"), Some(0));
}

#[test]
fn a_message_stored_without_a_summary_is_read_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let msg = Message {
        md: Mqmd {
            msg_id: [9; 24],
            ..md(7, 9)
        },
        charset: Charset::Ascii,
        data: data(9, 50),
        expires_at_ms: None,
    };
    {
        // As a gateway before summaries wrote it: the record alone.
        let store = RedbStore::open(dir.path()).unwrap();
        let batch = Batch {
            puts: vec![(41, record::encode("PERSIST", &msg))],
            ..Batch::default()
        };
        crate::store::Store::apply(&store, &batch).unwrap();
    }
    let qm = open(dir.path());
    assert_eq!(qm.store_read_counts().values, 1);
    let got = by_correl_id(&qm, 9);
    assert_eq!(
        (got.md.msg_id, got.md.priority, got.data),
        ([9; 24], 7, data(9, 50))
    );
}

#[test]
fn segmented_messages_stored_without_summaries_are_read_at_a_start_in_many_parts() {
    // Twenty records written as one segment, without summaries: the start
    // takes them in parts of three (src/store/redb.rs in tests), more than
    // the reading thread may run ahead of the building one, and reads their
    // records once that thread is done (it holds the segment index's lock
    // that a read of a segmented record waits for).
    let dir = tempfile::tempdir().unwrap();
    {
        let store = RedbStore::open(dir.path()).unwrap();
        let puts = (0..20u8)
            .map(|i| {
                let msg = Message {
                    md: md(5, i + 1),
                    charset: Charset::Ascii,
                    data: data(i, 40),
                    expires_at_ms: None,
                };
                (100 + u64::from(i), record::encode("PERSIST", &msg))
            })
            .collect();
        let batch = Batch {
            puts,
            ..Batch::default()
        };
        crate::store::Store::apply(&store, &batch).unwrap();
    }
    let qm = open(dir.path());
    assert_eq!(qm.depth("PERSIST"), Some(20));
    assert_eq!(qm.next_put_sequence(), 120);
    let got = by_correl_id(&qm, 20);
    assert_eq!(got.data, data(19, 40));
}
