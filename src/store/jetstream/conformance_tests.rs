//! The JetStream backend against the store conformance suite
//! (src/store/conformance), each test on a nats-server of its own
//! (src/store/jetstream/test_server.rs). A data directory of the suite
//! names a stream prefix of its own, so a reopen finds the same stream.

use super::JetStreamStore;
use super::test_server::{Server, binary};
use crate::store::Store;
use crate::store::conformance::{crash, queue_manager, records};
use crate::store::nats_config::NatsStorage;
use std::path::Path;
use std::sync::Arc;

/// The settings of a store on the server at `url` (monitoring endpoint
/// `monitor`) under `prefix`, sync policy required.
pub fn options(url: &str, monitor: &str, prefix: &str) -> NatsStorage {
    NatsStorage {
        servers: vec![url.to_string()],
        credentials: None,
        tls: None,
        stream_prefix: prefix.to_string(),
        replicas: 1,
        require_sync_always: true,
        monitor_urls: vec![monitor.to_string()],
        shared: false,
        claim_ttl_ms: crate::store::nats_config::DEFAULT_CLAIM_TTL_MS,
    }
}

/// The stream prefix of a data directory: a hash of its path.
fn prefix_of(dir: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dir.hash(&mut h);
    format!("T{:016x}", h.finish())
}

/// An `open` for the suite on the server at `url` / `monitor`.
fn opener(url: String, monitor: String) -> impl Fn(&Path) -> Arc<dyn Store> {
    move |dir: &Path| {
        let o = options(&url, &monitor, &prefix_of(dir));
        Arc::new(JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}"))) as Arc<dyn Store>
    }
}

/// Runs `suite` with an `open` on a fresh server; nothing when there is no
/// server binary outside CI.
fn with_server(suite: impl FnOnce(&dyn Fn(&Path) -> Arc<dyn Store>)) {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let open = opener(server.url.clone(), server.monitor.clone());
    suite(&open);
}

#[test]
fn batch_and_meta_survive_reopen_together() {
    with_server(|open| records::batch_and_meta_survive_reopen_together(open));
}

#[test]
fn load_is_in_key_order_with_overwrite_and_delete_rules() {
    with_server(|open| records::load_is_in_key_order_with_overwrite_and_delete_rules(open));
}

#[test]
fn grouped_records_survive_partial_deletes_across_reopen() {
    with_server(|open| records::grouped_records_survive_partial_deletes_across_reopen(open));
}

#[test]
fn random_histories_match_a_plain_map() {
    with_server(|open| records::random_histories_match_a_plain_map(open));
}

#[test]
fn concurrent_applies_are_each_kept() {
    with_server(|open| records::concurrent_applies_are_each_kept(open));
}

#[test]
fn queue_manager_crash_at_every_store_write() {
    with_server(|open| crash::queue_manager_crash_at_every_store_write(open));
}

#[test]
fn leases_and_backouts_survive_a_restart() {
    with_server(|open| queue_manager::leases_and_backouts_survive_a_restart(open));
}

/// Where the parent of the kill -9 test leaves its server's addresses for
/// the writer child (which it starts directly, so the child finds it by its
/// parent's process id).
fn addresses_file(pid: u32) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("mqgate-jetstream-kill9-{pid}.addr"))
}

/// A file removed when dropped, also when the test fails.
struct RemovedOnDrop(std::path::PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn kill_9_leaves_every_batch_whole_or_absent() {
    let this = concat!(
        module_path!(),
        "::kill_9_leaves_every_batch_whole_or_absent"
    );
    if std::env::var_os(crash::WRITER_DIR).is_some() {
        let file = addresses_file(std::os::unix::process::parent_id());
        let text = std::fs::read_to_string(&file).expect("the parent's server addresses");
        let (url, monitor) = text.split_once('\n').expect("two lines");
        crash::kill_9_leaves_every_batch_whole_or_absent(
            opener(url.to_string(), monitor.to_string()),
            this,
        );
        return;
    }
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let file = RemovedOnDrop(addresses_file(std::process::id()));
    std::fs::write(&file.0, format!("{}\n{}", server.url, server.monitor))
        .expect("write addresses");
    crash::kill_9_leaves_every_batch_whole_or_absent(
        opener(server.url.clone(), server.monitor.clone()),
        this,
    );
}
