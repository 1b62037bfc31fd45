//! The gateway configuration: the YAML model (serde_yaml) and its validation.
//!
//! Every setting has a default (documented in docs/config.md), so an empty file
//! and no file at all give the embedded default gateway. Unknown keys are errors,
//! which keeps typos from being silently ignored; later features add their own
//! top-level sections. Every error carries the line and column it refers to.

mod channels;
mod exit_names;
mod listeners;
mod locate;
mod raw;
mod raw_channel;
mod tls;
mod validate;

pub use channels::*;
pub use listeners::Listen;

pub use crate::store::nats_config::{NatsStorage, NatsTls, StorageType};
use serde::Deserialize;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The whole configuration file.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The queue manager's own attributes.
    pub queue_manager: QueueManagerConfig,
    /// The HTTP API.
    pub http: HttpConfig,
    /// The message channel listener (used by the channel protocol).
    pub listener: ListenerConfig,
    /// Where persistent messages are kept.
    pub storage: StorageConfig,
    /// Queue definitions, in MQ's object types.
    pub queues: Vec<QueueDef>,
    /// Message channels; default: receiver `TO.MQGATE` with destination-rewrite.
    pub channels: Vec<ChannelDef>,
    /// Device queue managers; default: names matching `DEV*`.
    pub devices: DevicesConfig,
    /// A Tuxedo DMCONFIG file: its QSPACEs are served as RTQ queues
    /// (docs/tuxedo.md). `mqgate run --dmconfig` overrides it.
    pub dmconfig: Option<PathBuf>,
    /// Tuxedo gateway settings (docs/tuxedo.md).
    pub tedg: crate::tedg::config::TedgConfig,
    /// RPC calls mapped to queue operations (docs/rpc.md).
    pub rpc: RpcConfig,
    /// BEA MessageQ: the gateway as one message queuing group, its group
    /// initialization file and SBS server (docs/messageq.md); default none.
    pub messageq: Option<crate::sbs::config::MessageqConfig>,
    /// TIBCO Rendezvous: the subject bus's limits (docs/rendezvous.md
    /// "Subject bus"); absent = the defaults.
    pub rv: crate::rv::config::RvConfig,
    /// User exits per channel, per queue and global (mqgate-exits YAML,
    /// docs/exits.md "Registering exits (YAML)"); default none.
    pub exits: mqgate_exits::config::ExitsConfig,
    /// The MQTT listener for devices (docs/mqtt.md); default 127.0.0.1:1883.
    pub mqtt: crate::mqtt::config::MqttConfig,
    /// The fault tolerance group of the gateway's single-owner roles (the
    /// SBS server, sender channels, TEDG queue spaces; docs/rendezvous.md
    /// "mqgate's own roles"); default none: every role runs.
    pub fault_tolerance: Option<crate::gateway::ft::config::FaultToleranceConfig>,
    /// The listener for IBM MQ client applications and its server-connection
    /// channels (docs/mq-client-protocol.md); default none.
    pub svrconn: Option<crate::svrconn::config::SvrconnConfig>,
    /// HTTP bearer tokens, principals and authorities (docs/security.md);
    /// default none: the HTTP API listens on loopback only.
    pub security: crate::security::SecurityConfig,
    /// The bus between gateways over NATS: Rendezvous subjects and
    /// universal MOT broadcasts (docs/cluster.md "The bus between
    /// gateways"); default none.
    pub bus: Option<crate::bus::config::BusConfig>,
    /// Where the listen addresses were set (the file's line and column, or
    /// a command-line option), for listener clash errors.
    #[serde(skip)]
    pub(crate) origins: listeners::Origins,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            queue_manager: QueueManagerConfig::default(),
            http: HttpConfig::default(),
            listener: ListenerConfig::default(),
            storage: StorageConfig::default(),
            queues: Vec::new(),
            channels: default_channels(),
            devices: DevicesConfig::default(),
            dmconfig: None,
            tedg: Default::default(),
            rpc: RpcConfig::default(),
            messageq: None,
            rv: Default::default(),
            exits: Default::default(),
            mqtt: Default::default(),
            fault_tolerance: None,
            svrconn: None,
            security: Default::default(),
            bus: None,
            origins: Default::default(),
        }
    }
}

/// The `rpc:` section: the MQ RPC bridge of Software AG EntireX "EntireX WebSphere MQ RPC
/// Server" (docs/rpc.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RpcConfig {
    /// Software AG IDL files whose programs can be called; relative paths are
    /// taken from the current directory of the process. None = RPC off.
    pub idl_files: Vec<PathBuf>,
    /// Default output queue: where puts and requests go (EntireX's output queue).
    pub output_queue: String,
    /// Default input queue: where gets and replies are read from, and the
    /// ReplyToQ of requests. Must differ from `output_queue` when a program is
    /// a request/reply.
    pub input_queue: String,
    /// Default get wait in ms (MQ_WAIT_INTERVAL overrides it per call; -1 = unlimited).
    pub wait_interval_ms: i64,
    /// Payload form: fixed-position `text` (EntireX "Mapping RPC Data to the MQ Message
    /// Buffer") or `xml`.
    pub payload: RpcPayload,
    /// CodedCharSetId of payloads mqgate puts (1208 = UTF-8).
    pub ccsid: i32,
    /// Messages put by RPC calls are persistent.
    pub persistent: bool,
    /// Expiry of request messages in ms (MQMD Expiry, in tenths of a second);
    /// 0 = unlimited. A request nobody answered in time then does not wait for
    /// a responder forever (mqgate's choice, docs/rpc.md "Configuration").
    pub request_expiry_ms: u64,
    /// An idle conversation is backed out after this many ms.
    pub conversation_timeout_ms: u64,
    /// before_put, before_get and after_get exits (mqgate-exits YAML, docs/exits.md)
    /// run around every RPC MQ call.
    pub exits: mqgate_exits::config::PointChains,
}

impl Default for RpcConfig {
    fn default() -> Self {
        RpcConfig {
            idl_files: Vec::new(),
            output_queue: String::new(),
            input_queue: String::new(),
            wait_interval_ms: 30_000,
            payload: RpcPayload::Text,
            ccsid: 1208,
            persistent: false,
            request_expiry_ms: 0,
            conversation_timeout_ms: 60_000,
            exits: mqgate_exits::config::PointChains::default(),
        }
    }
}

/// How parameters are written into a message body.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RpcPayload {
    /// Fixed-position text, MQFMT_STRING (EntireX "Mapping RPC Data to the MQ Message
    /// Buffer").
    #[default]
    Text,
    /// One XML element per parameter (docs/rpc.md "XML payload").
    Xml,
}

/// Queue manager attributes (MQ: QMNAME, DEADQ, DEFXMITQ, MAXMSGL).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueManagerConfig {
    /// Queue manager name; also the 12 characters after `AMQ ` in generated MsgIds.
    pub name: String,
    /// Dead-letter queue (DEADQ); created as a local queue when not defined.
    pub dead_letter_queue: String,
    /// Default transmission queue (DEFXMITQ); empty for none. Created as a local
    /// queue with usage `xmitq` when not defined.
    pub default_xmit_queue: String,
    /// Largest message the queue manager accepts, in bytes (MAXMSGL; 2031 above it).
    pub max_msg_length: usize,
    /// Bytes of stored messages (MQMD and data) kept in memory after a put
    /// or a read, the least recently used going first (docs/config.md
    /// `queue_manager`); 0 = none.
    pub body_cache_bytes: usize,
}

impl Default for QueueManagerConfig {
    fn default() -> Self {
        QueueManagerConfig {
            name: "MQGATE".into(),
            dead_letter_queue: "SYSTEM.DEAD.LETTER.QUEUE".into(),
            default_xmit_queue: "MQGATE.DEFAULT.XMITQ".into(),
            max_msg_length: DEFAULT_MAX_MSG_LENGTH,
            body_cache_bytes: DEFAULT_BODY_CACHE_BYTES,
        }
    }
}

/// The default `queue_manager.body_cache_bytes`: 16 MiB.
pub const DEFAULT_BODY_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// MQ's default MAXMSGL for queues and queue managers: 4 MiB.
pub const DEFAULT_MAX_MSG_LENGTH: usize = 4 * 1024 * 1024;
/// MQ's largest MAXMSGL: 100 MiB.
pub const LIMIT_MAX_MSG_LENGTH: usize = 100 * 1024 * 1024;
/// MQ's default MAXDEPTH.
pub const DEFAULT_MAX_DEPTH: usize = 5000;
/// MQ's largest MAXDEPTH.
pub const LIMIT_MAX_DEPTH: usize = 999_999_999;

/// The HTTP API.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Address and port to listen on.
    pub listen: SocketAddr,
    /// How long a destructive get's lease lasts before the message is backed out, in ms.
    pub lease_ms: u64,
    /// How long an idle unit of work opened over HTTP lives before it is backed out, in ms.
    pub uow_timeout_ms: u64,
    /// Largest `wait_ms` a get may ask for, in ms.
    pub max_wait_ms: u64,
    /// Origins (`scheme://host[:port]`, RFC 6454) whose cross-origin browser
    /// requests are accepted; a request with any other `Origin` is refused
    /// with 403 (docs/http-api.md "Origins and hosts"). Default: none.
    pub allowed_origins: Vec<String>,
    /// How long a request head (request line and headers) may take from its
    /// first byte to its end, in ms; the connection is closed when it takes
    /// longer (slow-header attacks). At least 1.
    pub header_read_timeout_ms: u64,
    /// How long a connection may wait for a request, from being accepted
    /// or from the previous answer (keep-alive) until the request head is
    /// complete, in ms; it is closed then. At least 1.
    pub idle_timeout_ms: u64,
    /// More names (`host`: any port, or `host:port`) the gateway answers
    /// to in the `Host` header, besides its listen address and `localhost`
    /// on loopback; any other Host is refused with 403 (DNS rebinding).
    /// Default: none.
    pub allowed_hosts: Vec<String>,
    /// TLS on the HTTP API (HTTPS); default none (docs/security.md "TLS").
    /// With `client_auth`, a client certificate mapped by
    /// `security.certificates` authenticates a principal.
    pub tls: Option<crate::security::tls::TlsConfig>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            lease_ms: 30_000,
            uow_timeout_ms: 60_000,
            max_wait_ms: 60_000,
            header_read_timeout_ms: 10_000,
            idle_timeout_ms: 60_000,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            tls: None,
        }
    }
}

/// The message channel listener.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListenerConfig {
    /// Address and port the channel listener binds (MQ's default port is 1414).
    pub listen: SocketAddr,
    /// TLS for the message channels; default none (docs/security.md
    /// "TLS"). A receiver channel's `sslpeer` needs it, with `client_auth`.
    pub tls: Option<crate::security::tls::TlsConfig>,
}

impl Default for ListenerConfig {
    fn default() -> Self {
        ListenerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 1414)),
            tls: None,
        }
    }
}

/// The durable store (docs/config.md "storage"): the embedded redb file in
/// `data_dir` (`type: redb`, the default) or a NATS JetStream stream
/// (`type: nats`, docs/cluster.md). The NATS settings are allowed with
/// `type: nats` only.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// Directory of the store files (and of the gateway's other local
    /// files); created when missing.
    pub data_dir: PathBuf,
    /// Which backend keeps the queues.
    #[serde(rename = "type")]
    pub kind: StorageType,
    /// NATS server URLs (`type: nats`; at least one).
    pub servers: Option<Vec<String>>,
    /// A NATS credentials file (JWT and NKey seed).
    pub credentials: Option<PathBuf>,
    /// TLS to the NATS servers.
    pub tls: Option<NatsTls>,
    /// Names the stream and its subjects; default `MQGATE`.
    pub stream_prefix: Option<String>,
    /// Stream replicas, 1 to 5; default 1 (3 in a cluster).
    pub replicas: Option<u8>,
    /// Refuse to start unless every server reports `sync_interval: always`;
    /// default true.
    pub require_sync_always: Option<bool>,
    /// The NATS servers' HTTP monitoring endpoints, where the sync policy
    /// is read.
    pub monitor_urls: Option<Vec<String>>,
    /// Several gateways serve the stream's queues together; default false.
    pub shared: Option<bool>,
    /// With `shared`: the lifetime of a claim on a message got, in ms;
    /// default 30000.
    pub claim_ttl_ms: Option<u64>,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            data_dir: PathBuf::from("./mqgate-data"),
            kind: StorageType::Redb,
            servers: None,
            credentials: None,
            tls: None,
            stream_prefix: None,
            replicas: None,
            require_sync_always: None,
            monitor_urls: None,
            shared: None,
            claim_ttl_ms: None,
        }
    }
}

impl StorageConfig {
    /// The JetStream settings with their defaults, `None` unless
    /// `type: nats`.
    pub fn nats(&self) -> Option<NatsStorage> {
        (self.kind == StorageType::Nats).then(|| NatsStorage {
            servers: self.servers.clone().unwrap_or_default(),
            credentials: self.credentials.clone(),
            tls: self.tls.clone(),
            stream_prefix: self
                .stream_prefix
                .clone()
                .unwrap_or_else(|| crate::store::nats_config::DEFAULT_PREFIX.into()),
            replicas: self.replicas.unwrap_or(1),
            require_sync_always: self.require_sync_always.unwrap_or(true),
            monitor_urls: self.monitor_urls.clone().unwrap_or_default(),
            shared: self.shared.unwrap_or(false),
            claim_ttl_ms: self
                .claim_ttl_ms
                .unwrap_or(crate::store::nats_config::DEFAULT_CLAIM_TTL_MS),
        })
    }

    /// (path, problem) for each wrong setting.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut err = |field: &str, m: String| out.push((format!("storage.{field}"), m));
        let Some(n) = self.nats() else {
            let given = [
                ("servers", self.servers.is_some()),
                ("credentials", self.credentials.is_some()),
                ("tls", self.tls.is_some()),
                ("stream_prefix", self.stream_prefix.is_some()),
                ("replicas", self.replicas.is_some()),
                ("require_sync_always", self.require_sync_always.is_some()),
                ("monitor_urls", self.monitor_urls.is_some()),
                ("shared", self.shared.is_some()),
                ("claim_ttl_ms", self.claim_ttl_ms.is_some()),
            ];
            for (field, _) in given.iter().filter(|(_, g)| *g) {
                err(field, "is a setting of type: nats".into());
            }
            return out;
        };
        if !cfg!(feature = "nats") {
            err(
                "type",
                "this mqgate was built without the nats feature: type: nats is not available"
                    .into(),
            );
        }
        if n.servers.is_empty() {
            err("servers", "type: nats needs at least one server URL".into());
        }
        for (i, s) in n.servers.iter().enumerate() {
            if let Err(e) = crate::store::nats_config::check_server(s) {
                err(&format!("servers[{i}]"), e);
            }
        }
        if let Err(e) = crate::store::nats_config::check_prefix(&n.stream_prefix) {
            err("stream_prefix", e);
        }
        if !(1..=5).contains(&n.replicas) {
            err(
                "replicas",
                format!("{} replicas: JetStream streams have 1 to 5", n.replicas),
            );
        }
        if let Some(t) = &n.tls {
            match (&t.cert, &t.key) {
                (Some(_), None) => err("tls.cert", "needs tls.key beside it".into()),
                (None, Some(_)) => err("tls.key", "needs tls.cert beside it".into()),
                _ => {}
            }
        }
        for (i, u) in n.monitor_urls.iter().enumerate() {
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                err(
                    &format!("monitor_urls[{i}]"),
                    format!("{u:?} is not an http:// or https:// URL"),
                );
            }
        }
        if self.claim_ttl_ms.is_some() && !n.shared {
            err("claim_ttl_ms", "is a setting of shared: true".into());
        }
        if n.claim_ttl_ms < 1000 || n.claim_ttl_ms % 1000 != 0 {
            err(
                "claim_ttl_ms",
                format!(
                    "{} ms: a claim lasts whole seconds, at least 1000 ms (NATS message TTLs are whole seconds)",
                    n.claim_ttl_ms
                ),
            );
        }
        if n.require_sync_always && n.monitor_urls.is_empty() {
            err(
                "monitor_urls",
                "needed while require_sync_always is true: the servers' HTTP monitoring \
                 endpoints, where mqgate reads their sync policy (or set \
                 require_sync_always: false to start without checking it)"
                    .into(),
            );
        }
        out
    }
}

/// One queue definition, chosen by its `type:` key.
///
/// Read through [`raw::RawQueueDef`], a flat struct, rather than an
/// internally tagged enum: serde buffers a tagged entry before choosing the
/// variant, and errors inside it then lose their line and column.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(try_from = "raw::RawQueueDef")]
pub enum QueueDef {
    /// A local queue (MQ QLOCAL), also a transmission queue with `usage: xmitq`.
    Local(LocalQueueDef),
    /// A model queue (MQ QMODEL): local queues whose names match
    /// `dynamic_q_name` are created from it on first use.
    Model(LocalQueueDef),
    /// A remote queue definition (MQ QREMOTE); without `remote_q_name` it is a
    /// queue manager alias.
    Remote(RemoteQueueDef),
    /// An alias queue (MQ QALIAS) naming a base queue.
    Alias(AliasQueueDef),
}

impl QueueDef {
    /// The object's name.
    pub fn name(&self) -> &str {
        match self {
            QueueDef::Local(d) | QueueDef::Model(d) => &d.name,
            QueueDef::Remote(d) => &d.name,
            QueueDef::Alias(d) => &d.name,
        }
    }
}

/// Persistence of messages put with MQPER_PERSISTENCE_AS_Q_DEF (MQ DEFPSIST).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DefaultPersistence {
    /// MQ's default: DEFPSIST(NO).
    #[default]
    NotPersistent,
    /// DEFPSIST(YES).
    Persistent,
}

/// What a local queue is for (MQ USAGE).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Usage {
    /// USAGE(NORMAL): an ordinary local queue.
    #[default]
    Normal,
    /// A transmission queue: messages carry an MQXQH for a sender channel.
    Xmitq,
}

/// A local or model queue's attributes (MQ QLOCAL / QMODEL).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LocalQueueDef {
    /// Queue name (48 characters at most, MQ name characters).
    pub name: String,
    /// Model queues only: the names created from this model, `*` matching any tail
    /// (MQ DynamicQName, e.g. `DEVICE.*`).
    #[serde(default)]
    pub dynamic_q_name: Option<String>,
    /// USAGE.
    #[serde(default)]
    pub usage: Usage,
    /// MAXDEPTH: most messages on the queue, committed or not (2053 above it).
    #[serde(default = "default_max_depth")]
    pub max_depth: usize,
    /// MAXMSGL in bytes (2030 above it).
    #[serde(default = "default_max_msg_length")]
    pub max_msg_length: usize,
    /// Most bytes of message data on the queue, committed or not (the byte
    /// quota of a MessageQ %QCT entry; 2053 MQRC_Q_FULL above it). `None` =
    /// no byte quota. Set from a group initialization file only
    /// (docs/messageq.md "Configuration"); not a YAML attribute.
    #[serde(skip)]
    pub max_queue_bytes: Option<usize>,
    /// DEFPSIST.
    #[serde(default)]
    pub default_persistence: DefaultPersistence,
    /// DEFPRTY, 0-9.
    #[serde(default)]
    pub default_priority: i32,
    /// PUT(DISABLED): puts fail with 2051.
    #[serde(default)]
    pub put_inhibited: bool,
    /// GET(DISABLED): gets fail with 2016.
    #[serde(default)]
    pub get_inhibited: bool,
    /// BOTHRESH: when a backed-out message's BackoutCount reaches this, the
    /// gateway moves it to `backout_requeue_q` (0 = never).
    #[serde(default)]
    pub backout_threshold: i32,
    /// BOQNAME: the local queue backed-out messages move to; required when
    /// `backout_threshold` is set.
    #[serde(default)]
    pub backout_requeue_q: String,
    /// A temporary dynamic queue (IBM MQ DefinitionType
    /// MQQDT_TEMPORARY_DYNAMIC): created at run time by its owner, deleted
    /// with the messages on it when its owner ends, never in the store — a
    /// persistent put to it fails with 2048 MQRC_PERSISTENT_NOT_ALLOWED
    /// (IBM MQ "Properties of temporary dynamic queues"). Not a YAML
    /// attribute.
    #[serde(skip)]
    pub temporary: bool,
}

fn default_max_depth() -> usize {
    DEFAULT_MAX_DEPTH
}
fn default_max_msg_length() -> usize {
    DEFAULT_MAX_MSG_LENGTH
}

impl LocalQueueDef {
    /// A local queue with MQ's default attributes.
    pub fn with_defaults(name: &str, usage: Usage) -> Self {
        LocalQueueDef {
            name: name.into(),
            dynamic_q_name: None,
            usage,
            max_depth: DEFAULT_MAX_DEPTH,
            max_msg_length: DEFAULT_MAX_MSG_LENGTH,
            max_queue_bytes: None,
            default_persistence: DefaultPersistence::NotPersistent,
            default_priority: 0,
            put_inhibited: false,
            get_inhibited: false,
            backout_threshold: 0,
            backout_requeue_q: String::new(),
            temporary: false,
        }
    }
}

/// A remote queue definition or queue manager alias (MQ QREMOTE).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RemoteQueueDef {
    /// Queue name (48 characters at most, MQ name characters).
    pub name: String,
    /// RNAME; absent = queue manager alias.
    #[serde(default)]
    pub remote_q_name: Option<String>,
    /// RQMNAME.
    #[serde(default)]
    pub remote_q_mgr_name: Option<String>,
    /// XMITQ; absent = the queue named like RQMNAME, else the default transmission queue.
    #[serde(default)]
    pub xmit_q: Option<String>,
    /// PUT(DISABLED).
    #[serde(default)]
    pub put_inhibited: bool,
}

/// An alias queue (MQ QALIAS).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AliasQueueDef {
    /// Queue name (48 characters at most, MQ name characters).
    pub name: String,
    /// TARGET: a local or remote queue (not another alias: 2001).
    pub target: String,
    /// PUT(DISABLED): puts through the alias fail with 2051.
    #[serde(default)]
    pub put_inhibited: bool,
    /// GET(DISABLED): gets through the alias fail with 2016.
    #[serde(default)]
    pub get_inhibited: bool,
}

/// One configuration error with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based line; 0 when the error has no place in the file (then it
    /// prints without a position).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, starting with the setting's path (`queues[0].name: ...`).
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // No place in the file (e.g. it could not be read): no fake 0:0.
            write!(f, " {}", self.message)
        } else {
            write!(f, "{}:{}: {}", self.line, self.column, self.message)
        }
    }
}

/// A serde_yaml error as a [`ConfigError`]: serde_yaml's " at line X column
/// Y" is dropped (the position is printed in front), and errors serde_yaml
/// cannot place well are placed from the text: a repeated key at its second
/// occurrence, a key of another queue type at that key.
fn place_serde_error(e: &serde_yaml::Error, text: &str) -> ConfigError {
    let (mut line, mut column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
    let mut message = e.to_string();
    if let Some(i) = message.rfind(" at line ") {
        let tail = &message[i + " at line ".len()..];
        if tail
            .split(" column ")
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            message.truncate(i);
        }
    }
    let places = locate::Places::of(text);
    if let Some(i) = message
        .find(raw::MISPLACED)
        .or_else(|| message.find(raw::MISPLACED_TARGET))
    {
        if let Some((path, at)) = raw::first_misplaced(text) {
            (line, column) = places.at(&at);
            message = format!("{path}: {}", &message[i..]);
        }
    } else if raw_channel::is_entry_error(&message) {
        if let Some((path, at)) = raw_channel::first_entry_error(text) {
            (line, column) = places.at(&at);
            let i = message.find(": ").map_or(0, |i| i + 2);
            message = format!("{path}: {}", &message[i..]);
        }
    } else if let Some(i) = message.find("duplicate field `") {
        let rest = &message[i + "duplicate field `".len()..];
        let key = rest.split('`').next().unwrap_or("");
        if let Some((path, pos)) = places.duplicate(key) {
            (line, column) = *pos;
            message = format!("{path}: {}", &message[i..]);
        }
    }
    ConfigError {
        line,
        column,
        message: plain_types(&message),
    }
}

/// `message` with serde's Rust type names after "expected" (`expected
/// usize`) in plain words (`expected a whole number (0 or more)`), the
/// range of the smaller integer types included.
fn plain_types(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number (0 or more)"),
        ("usize", "a whole number (0 or more)"),
        ("i8", "a whole number from -128 to 127"),
        ("i16", "a whole number from -32768 to 32767"),
        ("i32", "a whole number from -2147483648 to 2147483647"),
        ("i64", "a whole number"),
        ("isize", "a whole number"),
        ("f32", "a number"),
        ("f64", "a number"),
    ];
    const EXPECTED: &str = "expected ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(EXPECTED) {
        let after = &rest[i + EXPECTED.len()..];
        let word_len = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        out.push_str(&rest[..i + EXPECTED.len()]);
        match WORDS.iter().find(|(rust, _)| *rust == &after[..word_len]) {
            Some((_, plain)) => out.push_str(plain),
            None => out.push_str(&after[..word_len]),
        }
        rest = &after[word_len..];
    }
    out.push_str(rest);
    out
}

/// All the errors found in one file.
#[derive(Debug)]
pub struct ConfigErrors {
    /// The file's name as given.
    pub file: String,
    /// The errors in the order they were found.
    pub errors: Vec<ConfigError>,
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{e}", self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl ConfigErrors {
    /// Problems found after the configuration file `path` was loaded (in
    /// the files it names), each `(path, message)` placed at the setting
    /// `path` in the file, as validation errors are; a file that cannot be
    /// read any more leaves them without a position.
    pub fn placed(file: &Path, problems: Vec<(String, String)>) -> ConfigErrors {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let places = locate::Places::of(&text);
        ConfigErrors {
            file: file.display().to_string(),
            errors: problems
                .into_iter()
                .map(|(path, message)| {
                    let (line, column) = places.at(&path);
                    ConfigError {
                        line,
                        column,
                        message: format!("{path}: {message}"),
                    }
                })
                .collect(),
        }
    }
}

impl Config {
    /// Parses and validates YAML text. `file` names the source in errors.
    ///
    /// Errors: the YAML or type error (one, where parsing stopped), or every
    /// validation error found, each with line and column.
    pub fn from_yaml(text: &str, file: &str) -> Result<Config, ConfigErrors> {
        let wrap = |errors| ConfigErrors {
            file: file.to_string(),
            errors,
        };
        // An empty file (or only comments) is the embedded default.
        let mut config: Config = if text.trim().lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#')
        }) {
            Config::default()
        } else {
            serde_yaml::from_str(text).map_err(|e| wrap(vec![place_serde_error(&e, text)]))?
        };
        let places = locate::Places::of(text);
        listeners::record_origins(&mut config, &places);
        let errors = validate::check(&config, &places);
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(wrap(errors))
        }
    }

    /// Reads and validates a file. Errors as [`Config::from_yaml`]; a read error
    /// has no position (line 0) and prints as `FILE: cannot read: <os error>`.
    pub fn load(path: &Path) -> Result<Config, ConfigErrors> {
        let file = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Config::from_yaml(&text, &file),
            Err(e) => Err(ConfigErrors {
                file,
                errors: vec![ConfigError {
                    line: 0,
                    column: 0,
                    message: format!("cannot read: {e}"),
                }],
            }),
        }
    }

    /// The queue definitions plus the dead-letter queue and the default
    /// transmission queue when the file does not define them.
    pub fn effective_queues(&self) -> Vec<QueueDef> {
        let mut queues = self.queues.clone();
        let qm = &self.queue_manager;
        let implicit = [
            (qm.dead_letter_queue.as_str(), Usage::Normal),
            (qm.default_xmit_queue.as_str(), Usage::Xmitq),
        ];
        for (name, usage) in implicit {
            if !name.is_empty() && !queues.iter().any(|q| q.name() == name) {
                queues.push(QueueDef::Local(LocalQueueDef::with_defaults(name, usage)));
            }
        }
        queues
    }
}

#[cfg(test)]
mod tests;
