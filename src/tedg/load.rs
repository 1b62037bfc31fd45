//! Loading DMCONFIG and the field tables at start-up, and the queue-manager
//! queues the QSPACEs need.

use super::config::{RtqQueueConfig, TedgConfig};
use super::{HEADER_ALLOWANCE, qm_queue_name};
use crate::config::{
    DefaultPersistence, LIMIT_MAX_DEPTH, LIMIT_MAX_MSG_LENGTH, LocalQueueDef, QueueDef, Usage,
};
use crate::mqi::names::check_object_name;
use mqgate_codecs::tux::dmconfig::DmConfig;
use mqgate_codecs::tux::fieldtbl::FieldTable;
use std::path::Path;

/// A DMCONFIG and its companions, ready for [`super::Tedg::new`].
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The parsed DMCONFIG.
    pub dm: DmConfig,
    /// The field tables merged (first definition of a name wins), if any.
    pub fields: Option<FieldTable>,
    /// Per-queue attributes from the `tedg:` section.
    pub queue_config: Vec<RtqQueueConfig>,
}

/// Reads and checks DMCONFIG `path` and the field tables of `cfg`. Errors are
/// one line each, `FILE: DMCONFIG line L, column C: what` (or the field
/// table's `FILE: line L: what`), plus RTQ queue names the queue manager
/// cannot hold and `tedg.queues` entries no QSPACE names.
pub fn load(path: &Path, cfg: &TedgConfig) -> Result<Loaded, Vec<String>> {
    let file = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("{file}: cannot read the DMCONFIG file: {e}")])?;
    let dm = DmConfig::parse(&text).map_err(|e| vec![format!("{file}: {e}")])?;
    let mut errors = Vec::new();
    for q in &dm.remote_services.qspaces {
        let name = qm_queue_name(&q.rtq_group, &q.rtq_name);
        if let Err(e) = check_object_name(&name, 48) {
            errors.push(format!(
                "{file}: DMCONFIG line {}: QSPACE {}: RTQ queue {name:?} cannot be a queue-manager queue: {e}",
                q.pos.line, q.name
            ));
        }
    }
    for c in &cfg.queues {
        let named = dm
            .remote_services
            .qspaces
            .iter()
            .any(|q| q.rtq_group == c.group && q.rtq_name == c.name);
        if c.capacity == 0 || c.capacity > LIMIT_MAX_DEPTH {
            errors.push(format!(
                "tedg.queues: RTQ queue {}/{}: capacity must be 1 to {LIMIT_MAX_DEPTH}",
                c.group, c.name
            ));
        }
        if c.max_request_bytes == 0 || c.max_request_bytes > LIMIT_MAX_MSG_LENGTH {
            errors.push(format!(
                "tedg.queues: RTQ queue {}/{}: max_request_bytes must be 1 to {LIMIT_MAX_MSG_LENGTH}",
                c.group, c.name
            ));
        }
        if !named {
            errors.push(format!(
                "tedg.queues: RTQ queue {}/{} is named by no QSPACE entry of {file}",
                c.group, c.name
            ));
        }
    }
    let mut fields: Option<FieldTable> = None;
    let mut text_all = String::new();
    for t in &cfg.field_tables {
        match std::fs::read_to_string(t) {
            Ok(text) => match FieldTable::parse(&text) {
                Ok(_) => {
                    // Each file starts without a *base, as Tuxedo reads it.
                    text_all.push_str("*base 0\n");
                    text_all.push_str(&text);
                    text_all.push('\n');
                }
                Err(e) => errors.push(format!("{}: {e}", t.display())),
            },
            Err(e) => errors.push(format!("{}: cannot read the field table: {e}", t.display())),
        }
    }
    if !cfg.field_tables.is_empty() && errors.is_empty() {
        // One table from every file, so duplicate names across files are found.
        match FieldTable::parse(&text_all) {
            Ok(t) => fields = Some(t),
            Err(e) => errors.push(format!("field tables together: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(Loaded {
            dm,
            fields,
            queue_config: cfg.queues.clone(),
        })
    } else {
        Err(errors)
    }
}

/// The local queues for every RTQ queue a QSPACE names (once per
/// group/name), persistent by default, MAXDEPTH = the queue's capacity.
pub fn queue_defs(loaded: &Loaded) -> Vec<QueueDef> {
    let mut out: Vec<QueueDef> = Vec::new();
    for q in &loaded.dm.remote_services.qspaces {
        let name = qm_queue_name(&q.rtq_group, &q.rtq_name);
        if out.iter().any(|d| d.name() == name) {
            continue;
        }
        let cfg = loaded
            .queue_config
            .iter()
            .find(|c| c.group == q.rtq_group && c.name == q.rtq_name);
        let mut def = LocalQueueDef::with_defaults(&name, Usage::Normal);
        def.default_persistence = DefaultPersistence::Persistent;
        if let Some(c) = cfg {
            def.max_depth = c.capacity;
            def.max_msg_length = c.max_request_bytes.saturating_add(HEADER_ALLOWANCE);
        } else {
            def.max_msg_length = super::config::DEFAULT_MAX_REQUEST_BYTES + HEADER_ALLOWANCE;
        }
        out.push(QueueDef::Local(def));
    }
    out
}
