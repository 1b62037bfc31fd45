//! The gateway as a library: [`Gateway::start`] opens the store and the
//! queue manager, binds the HTTP, channel and MQTT listeners and starts every
//! service of the configuration (receiver and sender channels, the Tuxedo
//! gateway, the RPC bridge, queue exits) inside the caller's tokio runtime;
//! the [`Handle`] it returns tells the bound addresses and stops it.
//!
//! Every task the gateway starts is owned by its task groups
//! (src/tasks.rs): the channel listener, each receiver connection and each
//! sender channel (`Channels`); the HTTP server, each HTTP connection,
//! each RPC call, the MQTT listener and each MQTT connection with its
//! pullers (`Requests`); each unit of work's expiry timer and each delayed
//! MQTT Will Message (`Timers`).
//! HTTP connections are spawned by the HTTP server loop; each holds a
//! membership of `Requests` through its stream (src/gateway/http.rs). Not
//! owned: work on the blocking pool (store writes, exits), which the task
//! that started it awaits and which ends on its own. [`Handle::stop`] returns only when every
//! owned task has ended (docs/config.md "Stopping").

pub mod check;
pub mod ft;
mod http;
mod outbound;
mod reload;
mod security;
mod stop;
mod trim;

pub use trim::PERIOD as TRIM_PERIOD;

pub use reload::ReloadReport;
pub use stop::Stopped;

use crate::channel::StatusBoard;
use crate::channel::receiver::Receivers;
use crate::config::{ChannelDef, Config, ConfigErrors};
use crate::metrics::{Listener, Readiness};
use crate::mqi::{Mqi, QueueExits};
use crate::qmgr::QueueManager;
use crate::rpc::RpcService;
use crate::store::redb::RedbStore;
use crate::tasks::{TaskGroup, Tasks};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinError, JoinHandle};
use tokio_util::sync::CancellationToken;

/// The gateway service; [`Gateway::start`] runs one.
#[derive(Debug)]
pub struct Gateway;

/// Why [`Gateway::start`] failed. Nothing it started is left running.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// Two listeners on one address: one error per clash, each naming both
    /// entries (src/config/listeners.rs).
    #[error("{0}")]
    Listeners(ConfigErrors),
    /// The Tuxedo DMCONFIG or its field tables cannot be used: one line per
    /// problem, with file and line (docs/tuxedo.md).
    #[error("{}", .0.join("\n"))]
    Tuxedo(Vec<String>),
    /// The store cannot be opened or read, or the queue manager cannot load
    /// its messages (2102 MQRC_RESOURCE_PROBLEM).
    #[error("{0}")]
    Store(String),
    /// The HTTP listener cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Http {
        /// `http.listen`.
        addr: SocketAddr,
        /// The operating system's error.
        source: io::Error,
    },
    /// The channel listener cannot be bound.
    #[error("cannot listen for channels on {addr}: {source}")]
    Channel {
        /// `listener.listen`.
        addr: SocketAddr,
        /// The operating system's error.
        source: io::Error,
    },
    /// The MQTT listener cannot be bound (docs/mqtt.md).
    #[error("cannot listen for MQTT on {addr}: {source}")]
    Mqtt {
        /// `mqtt.listen`.
        addr: SocketAddr,
        /// The operating system's error.
        source: io::Error,
    },
    /// The SVRCONN listener cannot be bound (docs/mq-client-protocol.md).
    #[error("cannot listen for MQ clients on {addr}: {source}")]
    Svrconn {
        /// `svrconn.listen`.
        addr: SocketAddr,
        /// The operating system's error.
        source: io::Error,
    },
    /// `mqtt.password_file` cannot be used (docs/mqtt.md "Authentication").
    #[error("{0}")]
    MqttPasswords(String),
    /// The RPC bridge cannot start: an IDL file, exit or CCSID of `rpc:`
    /// cannot be used (docs/rpc.md).
    #[error("{0}")]
    Rpc(String),
    /// The MessageQ group initialization file of `messageq:` cannot be
    /// used: one line per problem, with file, line and column
    /// (docs/messageq.md).
    #[error("{}", .0.join("\n"))]
    MessageQ(Vec<String>),
    /// The routing daemon of `rv.routing` cannot start: its listen
    /// address cannot be bound (docs/rendezvous.md "Routing between
    /// gateways").
    #[error("{0}")]
    RvRouting(String),
    /// A role of `fault_tolerance.roles` names what the loaded group
    /// initialization file or DMCONFIG does not have: one line per problem,
    /// `fault_tolerance.PATH: what` (docs/config.md `fault_tolerance`).
    #[error("{}", .0.join("\n"))]
    FaultTolerance(Vec<String>),
    /// `security:` cannot be used: a tokens file that cannot be read or
    /// has a bad line, or a non-loopback HTTP listener without tokens and
    /// without `security.insecure` (docs/security.md).
    #[error("{0}")]
    Security(String),
    /// A `tls:` setting cannot be used: a PEM file that cannot be read or
    /// parsed, or a key that is not its certificate's; names the setting
    /// and the file (docs/security.md "TLS").
    #[error("{0}")]
    Tls(String),
    /// The bus between gateways (`bus:`) cannot connect: no server
    /// answers, the credentials are refused, TLS fails (docs/cluster.md
    /// "The bus between gateways"); one sentence starting with `bus:`.
    #[error("{0}")]
    Bus(String),
}

impl StartError {
    /// Whether the configuration is at fault (`mqgate run` exits 2 then,
    /// as for any configuration error; 1 otherwise).
    pub fn is_config(&self) -> bool {
        matches!(
            self,
            StartError::Listeners(_)
                | StartError::Tuxedo(_)
                | StartError::MessageQ(_)
                | StartError::MqttPasswords(_)
                | StartError::FaultTolerance(_)
                | StartError::Security(_)
                | StartError::Tls(_)
        )
    }
}

/// A gateway part that ended without being asked to ([`Handle::wait`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{part}: {message}")]
pub struct Fault {
    /// `HTTP server` or `channel listener`.
    pub part: &'static str,
    /// What happened.
    pub message: String,
}

/// A running gateway, from [`Gateway::start`]. Stop it with
/// [`Handle::stop`]; dropping it instead ends every task at once, without
/// draining and without backing out units of work (what is stored stays as
/// after a crash: persistent messages got under an open unit of work are
/// back on their queue after a restart).
pub struct Handle {
    http_addr: SocketAddr,
    channel_addr: SocketAddr,
    mqtt_addr: SocketAddr,
    svrconn_addr: Option<SocketAddr>,
    /// Every TLS listener and outbound connection, for
    /// [`Handle::reload_tls`].
    tls: crate::security::tls::TlsEndpoints,
    /// `None` once stopped.
    running: Option<Running>,
}

/// What a running gateway holds.
struct Running {
    qm: Arc<QueueManager>,
    /// The store the queue manager holds: the stop waits until it is
    /// dropped (the database file closed), so that a gateway started on the
    /// same directory afterwards can open it.
    store: std::sync::Weak<dyn crate::store::Store>,
    exits: Arc<QueueExits>,
    /// Kept so that its exits end (MQXR_TERM, on drop) on the blocking pool
    /// when the gateway stops.
    rpc: Arc<RpcService>,
    /// Channel status: the stop waits until no channel is running.
    board: Arc<StatusBoard>,
    /// The Rendezvous subject bus: closed at the start of a stop, which
    /// ends its listeners' event streams.
    rv: crate::rv::Bus,
    /// The CM transports (certified delivery).
    rv_cm: crate::rv::cm::CmTransports,
    /// The distributed queue members.
    rv_dq: crate::rv::dq::DistributedQueues,
    /// The routing daemon, when `rv.routing` is set.
    routing: Option<crate::rv::route::service::Routing>,
    /// The bus between gateways, when `bus:` is set.
    bus: Option<Arc<crate::bus::status::BusStatus>>,
    /// The fault tolerance roles, when `fault_tolerance` is set.
    ft: Option<ft::FtRoles>,
    tasks: Tasks,
    /// Tells the channel listener, receiver connections and sender channels to stop.
    stop_channels: watch::Sender<bool>,
    /// Starts the HTTP server's graceful shutdown.
    stop_http: CancellationToken,
    /// Stops the MQTT listener and closes its connections (docs/mqtt.md).
    stop_mqtt: CancellationToken,
    mqtt: Option<JoinHandle<Option<()>>>,
    /// Stops the SVRCONN listener and closes its connections
    /// (docs/mq-client-protocol.md).
    stop_svrconn: CancellationToken,
    http: Option<JoinHandle<Option<io::Result<()>>>>,
    channel_listener: Option<JoinHandle<Option<()>>>,
    /// What `GET /readyz` reads: marked stopping at the start of a stop.
    readiness: Arc<Readiness>,
    /// What a configuration reload changes ([`Handle::reload`]).
    live: Arc<reload::Live>,
}

/// How many tasks a gateway runs; stays usable after [`Handle::stop`].
#[derive(Clone)]
pub struct TaskMonitor(Tasks);

impl TaskMonitor {
    /// Tasks of the gateway still running (connections, channels, calls,
    /// timers); 0 once [`Handle::stop`] has returned.
    pub fn running(&self) -> usize {
        self.0.running()
    }

    /// Of those, the channel tasks: the channel listener, each receiver
    /// connection, each sender channel.
    pub fn channels(&self) -> usize {
        self.0.running_in(&[crate::tasks::TaskGroup::Channels])
    }

    /// Of those, the request tasks: the HTTP server and each of its
    /// connections, RPC calls, the SBS server, the MQTT listener and each
    /// MQTT connection with its pullers.
    pub fn requests(&self) -> usize {
        self.0.running_in(&[crate::tasks::TaskGroup::Requests])
    }
}

impl Gateway {
    /// Starts a gateway for `config` in the current tokio runtime: loads the
    /// Tuxedo DMCONFIG (if any), opens the store in `storage.data_dir` and
    /// the queue manager, binds `http.listen` and `listener.listen` (port 0:
    /// a free port, see [`Handle::http_addr`]), starts the RPC bridge and
    /// the queue exits, then serves the HTTP API, the receiver channels and
    /// the sender channels.
    ///
    /// Errors: [`StartError`]; on error nothing started is left running.
    pub async fn start(mut config: Config) -> Result<Handle, StartError> {
        let clashes = config.listener_clashes();
        if !clashes.is_empty() {
            return Err(StartError::Listeners(ConfigErrors {
                file: "configuration".into(),
                errors: clashes,
            }));
        }
        let security = security::load(&config)?;
        // `security.certificates` map MQTT client certificates to devices
        // too (docs/security.md "MQTT devices").
        let mqtt_certificates = security
            .as_ref()
            .map(|a| Arc::clone(&a.certificates))
            .unwrap_or_default();
        let channel_rules = security::channel_rules(&config)?;
        // Every TLS file, those read later (the NATS bridge's) too.
        if let Some((path, message)) = config.tls_file_problems().into_iter().next() {
            return Err(StartError::Tls(format!("{path}: {message}")));
        }
        let tls = crate::security::tls::TlsEndpoints::default();
        let tls_servers = tls_listeners(&config, &tls)?;
        let sender_tls = sender_tls(&config, &tls)?;
        let tedg = crate::tedg::load_from_config(&mut config).map_err(StartError::Tuxedo)?;
        let messageq = crate::sbs::load_from_config(&mut config).map_err(StartError::MessageQ)?;
        if let Some(f) = &config.fault_tolerance {
            let problems = ft::config::loaded_problems(f, messageq.as_ref(), tedg.as_ref());
            if !problems.is_empty() {
                return Err(StartError::FaultTolerance(
                    problems
                        .into_iter()
                        .map(|(path, message)| format!("fault_tolerance.{path}: {message}"))
                        .collect(),
                ));
            }
        }
        // The configuration in force, as checked (a reload compares with it).
        let in_force = config.clone();
        let ft_config = config.fault_tolerance.clone();
        let sbs_is_role = ft_config.as_ref().is_some_and(|c| c.roles.sbs_server);
        let qspace_role = ft_config
            .as_ref()
            .filter(|c| !c.roles.tedg.is_empty())
            .map(|c| Arc::new(crate::tedg::QspaceRole::new(c.roles.tedg.clone())));
        let config_for_open = config.clone();
        let commits = crate::metrics::store::commit_histogram();
        let timed = commits.clone();
        let qm = tokio::task::spawn_blocking(move || open_queue_manager(&config_for_open, timed))
            .await
            .map_err(|e| StartError::Store(format!("opening the store failed: {e}")))??;
        let (qm, store) = qm;
        let qm = Arc::new(qm);
        // Several gateways on one stream: the others' changes from now on
        // (docs/cluster.md "Several gateways on one stream").
        qm.follow_shared()
            .map_err(|e| StartError::Store(e.to_string()))?;
        if let Some(loaded) = &tedg {
            // RTQ queues hold RTQ requests only, whoever puts (docs/tuxedo.md).
            qm.set_put_check(Arc::new(crate::tedg::RtqQueues::new(loaded)));
        }
        let (http_listener, http_addr) = bind(config.http.listen)
            .await
            .map_err(|(addr, source)| StartError::Http { addr, source })?;
        let (channel_listener, channel_addr) = bind(config.listener.listen)
            .await
            .map_err(|(addr, source)| StartError::Channel { addr, source })?;
        let passwords = match &config.mqtt.password_file {
            Some(p) => {
                Some(crate::mqtt::auth::Passwords::load(p).map_err(StartError::MqttPasswords)?)
            }
            None => None,
        };
        let (mqtt_listener, mqtt_addr) = bind(config.mqtt.listen)
            .await
            .map_err(|(addr, source)| StartError::Mqtt { addr, source })?;
        let svrconn_listener = match &config.svrconn {
            Some(s) => Some(
                bind(s.listen)
                    .await
                    .map_err(|(addr, source)| StartError::Svrconn { addr, source })?,
            ),
            None => None,
        };
        let routing_listener = match &config.rv.routing {
            Some(r) => crate::rv::route::service::bind(r)
                .await
                .map_err(|(addr, e)| {
                    StartError::RvRouting(format!("cannot listen for routing links on {addr}: {e}"))
                })?,
            None => None,
        };
        // Port 0 asked for any free port: report (and serve /v1/status) the real one.
        config.http.listen = http_addr;
        config.listener.listen = channel_addr;
        config.mqtt.listen = mqtt_addr;
        let svrconn_addr = svrconn_listener.as_ref().map(|(_, a)| *a);
        if let (Some(s), Some(a)) = (config.svrconn.as_mut(), svrconn_addr) {
            s.listen = a;
        }
        let readiness = Arc::new(Readiness::new(&bound_listeners(
            &config,
            svrconn_addr,
            routing_listener.as_ref(),
        )));
        let exits = Arc::new(QueueExits::new(&config.exits, qm.name()));
        let mut mqi = Mqi::new(Arc::clone(&qm), Arc::clone(&exits));
        if let Some(authentication) = &security {
            mqi = mqi.with_authorities(Arc::clone(&authentication.credentials));
        }
        mqi = mqi.with_channel_rules(Arc::clone(&channel_rules));
        mqi = mqi.with_limits(Arc::new(crate::security::limits::Limits::new(
            config.security.limits.clone(),
        )));
        let live = Arc::new(reload::Live::new(
            in_force,
            &qm,
            &exits,
            &tls,
            security.as_ref(),
            &channel_rules,
            mqi.limits(),
        ));
        let rpc = RpcService::start(&mqi, &config.rpc).map_err(StartError::Rpc)?;
        let gateway_bus = match &config.bus {
            Some(b) => Some(crate::bus::connect(b).await.map_err(StartError::Bus)?),
            None => None,
        };
        let (messageq, sbs_server) = match messageq {
            Some(loaded) => {
                // Universal broadcasts of an SBS server go on the bus.
                let universal = gateway_bus
                    .as_ref()
                    .filter(|_| loaded.enable_sbs)
                    .map(|b| b.start_sbs(&mqi, Arc::clone(&loaded.queues)));
                let (group, server) = crate::sbs::start(&mqi, loaded, sbs_is_role, universal);
                (Some(group), server)
            }
            None => (None, None),
        };
        let tasks = mqi.tasks();
        let rv = crate::rv::Bus::new(&config.rv);
        let rv_cm = crate::rv::cm::CmTransports::start(&rv, &mqi).await;
        // After the transports: a certified rule's reopened correspondent
        // and the senders it asks for old messages are open by then.
        crate::rv::bridge::start(&rv, &mqi, &config.rv, &rv_cm, &tls).await;
        let rv_dq = crate::rv::dq::DistributedQueues::start(&rv, &rv_cm, &tasks);
        let bus_status = gateway_bus.as_ref().map(crate::bus::Connected::status);
        if let Some(b) = gateway_bus {
            b.start_rv(&rv, &tasks);
        }
        let board = Arc::new(StatusBoard::default());
        let (stop_channels, stop_rx) = watch::channel(false);
        let sender_roles: Vec<String> = ft_config
            .as_ref()
            .map(|c| c.roles.sender_channels.clone())
            .unwrap_or_default();
        let outbound = Arc::new(outbound::Outbound::new(
            &mqi,
            &board,
            &config.exits,
            &stop_rx,
            (&tls, sender_tls.clone()),
        ));
        let (channel_listener, receivers) = start_channels(
            &config,
            &mqi,
            &board,
            (channel_listener, tls_servers.channel.clone()),
            &stop_rx,
            &sender_roles,
            &readiness,
            &outbound,
        )
        .await;
        live.set_channels(receivers, outbound, sender_roles.clone());
        let routing = match &config.rv.routing {
            Some(r) => Some(
                crate::rv::route::service::start(
                    r,
                    &rv,
                    (routing_listener, routing_tls(r, &tls)?),
                    Arc::clone(mqi.limits()),
                    &tasks,
                    stop_rx.clone(),
                )
                .map_err(|e| StartError::RvRouting(format!("routing daemon: {e}")))?,
            ),
            None => None,
        };
        let ft_service = crate::rv::ft::FtService::new(&rv, &tasks);
        let ft_roles = ft::start(
            &config,
            &mqi,
            &board,
            &ft_service,
            sbs_server,
            qspace_role.clone(),
            &sender_tls,
            stop_rx.clone(),
        );
        tracing::info!(
            queue_manager = %qm.name(),
            http = %config.http.listen,
            listener = %config.listener.listen,
            mqtt = %config.mqtt.listen,
            data_dir = %config.storage.data_dir.display(),
            "mqgate running"
        );
        let app = routes(
            &config,
            tedg.map(|t| (t, qspace_role)),
            messageq.as_ref(),
            &mqi,
            Arc::clone(&board),
            &rpc,
            crate::http::rv::with_subject_authorities(
                crate::http::rv::routes(rv.clone(), config.http.max_wait_ms)
                    .merge(crate::http::rv::cm::routes(rv_cm.clone(), rv.clone()))
                    .merge(crate::http::rv::dq::routes(rv_dq.clone())),
                &mqi,
            )
            .merge(crate::http::rv_routing::routes(routing.clone()))
            .merge(crate::http::bus::routes(bus_status.clone()))
            .merge(crate::http::rv::ft::routes(ft_service))
            .merge(crate::http::fault_tolerance::routes(ft_roles.clone()))
            .merge(crate::http::ops::routes(crate::http::ops::OpsState {
                registry: Arc::new(crate::metrics::registry(
                    Arc::clone(&qm),
                    Arc::clone(&board),
                    Arc::clone(&readiness),
                    commits,
                )),
                readiness: Arc::clone(&readiness),
                qm: Arc::clone(&qm),
                started: std::time::Instant::now(),
            })),
        );
        let app = app.merge(reload::routes(&live, &mqi));
        let app = guarded(app, &config, security);
        tasks.spawn_timer(trim::run(Arc::clone(&qm)));
        let app = http::end_requests(app, tasks.cancel_token(TaskGroup::Requests));
        let stop_http = CancellationToken::new();
        let listener =
            http::TrackedListener::new(http_listener, tasks.clone(), Arc::clone(mqi.limits()));
        let timeouts = http::Timeouts::of(&config.http);
        let http = tasks.spawn(
            TaskGroup::Requests,
            Arc::clone(&readiness).watch(
                Listener::Http,
                http::serve(
                    listener,
                    app,
                    timeouts,
                    tls_servers.http.clone(),
                    stop_http.clone(),
                ),
            ),
        );
        let stop_mqtt = CancellationToken::new();
        let devices = crate::devices::Devices::new(
            mqi.clone(),
            std::time::Duration::from_millis(config.http.lease_ms),
            std::time::Duration::from_millis(config.http.max_wait_ms),
        );
        let mqtt_service = crate::mqtt::Service::new(
            &devices,
            &config.mqtt,
            passwords,
            mqtt_certificates,
            tasks.clone(),
            stop_mqtt.clone(),
        );
        let mqtt = tasks.spawn(
            TaskGroup::Requests,
            Arc::clone(&readiness).watch(
                Listener::Mqtt,
                crate::mqtt::serve(mqtt_listener, mqtt_service, tls_servers.mqtt.clone()),
            ),
        );
        let stop_svrconn = CancellationToken::new();
        if let (Some(s), Some((listener, _))) = (&config.svrconn, svrconn_listener) {
            let svc = crate::svrconn::Service::new(&mqi, s, tasks.clone(), stop_svrconn.clone());
            live.set_svrconn(Arc::clone(&svc));
            tracing::info!(svrconn = %s.listen, "SVRCONN listener for MQ clients running");
            tasks.spawn(
                TaskGroup::Requests,
                Arc::clone(&readiness).watch(
                    Listener::Svrconn,
                    crate::svrconn::serve(listener, svc, tls_servers.svrconn.clone()),
                ),
            );
        }
        Ok(Handle {
            http_addr,
            channel_addr,
            mqtt_addr,
            svrconn_addr,
            tls,
            running: Some(Running {
                qm,
                store,
                exits,
                rpc,
                board,
                rv,
                rv_cm,
                rv_dq,
                routing,
                bus: bus_status,
                ft: ft_roles,
                tasks,
                stop_channels,
                stop_http,
                stop_mqtt,
                mqtt: Some(mqtt),
                stop_svrconn,
                http: Some(http),
                channel_listener: Some(channel_listener),
                readiness,
                live,
            }),
        })
    }
}

/// Opens the store `storage.type` names — the redb file in
/// `storage.data_dir`, or the JetStream stream of `storage` (docs/cluster.md)
/// — and the queue manager over it; also returns a weak reference to the
/// store, which tells when the store is closed. Every store transaction is
/// timed into `commits` (`GET /metrics`).
fn open_queue_manager(
    config: &Config,
    commits: prometheus_client::metrics::histogram::Histogram,
) -> Result<(QueueManager, std::sync::Weak<dyn crate::store::Store>), StartError> {
    let (timed, weak): (
        Arc<dyn crate::store::Store>,
        std::sync::Weak<dyn crate::store::Store>,
    ) = match config.storage.nats() {
        None => {
            let store = Arc::new(
                RedbStore::open(&config.storage.data_dir)
                    .map_err(|e| StartError::Store(e.to_string()))?,
            );
            let weak = Arc::downgrade(&store);
            (
                Arc::new(crate::metrics::store::TimedStore::new(store, commits)),
                weak,
            )
        }
        Some(nats) => open_jetstream(&nats, commits)?,
    };
    let qm = QueueManager::open(config, timed).map_err(|e| StartError::Store(e.to_string()))?;
    Ok((qm, weak))
}

/// The store and its weak reference.
type Opened = (
    Arc<dyn crate::store::Store>,
    std::sync::Weak<dyn crate::store::Store>,
);

/// Opens the JetStream store (docs/cluster.md "Start-up checks").
#[cfg(feature = "nats")]
fn open_jetstream(
    nats: &crate::config::NatsStorage,
    commits: prometheus_client::metrics::histogram::Histogram,
) -> Result<Opened, StartError> {
    let store = Arc::new(
        crate::store::jetstream::JetStreamStore::open(nats)
            .map_err(|e| StartError::Store(e.to_string()))?,
    );
    tracing::info!(
        servers = %nats.servers.join(","),
        stream_prefix = %nats.stream_prefix,
        "storage: JetStream stream opened"
    );
    let weak = Arc::downgrade(&store);
    Ok((
        Arc::new(crate::metrics::store::TimedStore::new(store, commits)),
        weak,
    ))
}

/// Without the `nats` feature `type: nats` cannot start.
#[cfg(not(feature = "nats"))]
fn open_jetstream(
    _nats: &crate::config::NatsStorage,
    _commits: prometheus_client::metrics::histogram::Histogram,
) -> Result<Opened, StartError> {
    Err(StartError::Store(
        "storage: type: nats needs mqgate built with the nats feature".into(),
    ))
}

/// The listeners a gateway bound, with their addresses (the ports chosen
/// for port 0 already in `config`): HTTP, channel and MQTT always, SVRCONN
/// and the routing daemon's when configured.
fn bound_listeners(
    config: &Config,
    svrconn: Option<SocketAddr>,
    routing: Option<&TcpListener>,
) -> Vec<(Listener, SocketAddr)> {
    let mut out = vec![
        (Listener::Http, config.http.listen),
        (Listener::Channel, config.listener.listen),
        (Listener::Mqtt, config.mqtt.listen),
    ];
    out.extend(svrconn.map(|a| (Listener::Svrconn, a)));
    out.extend(
        routing
            .and_then(|l| l.local_addr().ok())
            .map(|a| (Listener::RvRouting, a)),
    );
    out
}

/// The TLS of the listeners whose `tls:` is set.
struct TlsListeners {
    http: Option<Arc<crate::security::tls::TlsServer>>,
    channel: Option<Arc<crate::security::tls::TlsServer>>,
    svrconn: Option<Arc<crate::security::tls::TlsServer>>,
    mqtt: Option<Arc<crate::security::tls::TlsServer>>,
}

/// Reads the certificates of `http.tls` and `listener.tls`, registered in
/// `endpoints`. Errors: [`StartError::Tls`] naming the setting and file.
fn tls_listeners(
    config: &Config,
    endpoints: &crate::security::tls::TlsEndpoints,
) -> Result<TlsListeners, StartError> {
    use crate::security::tls::TlsServer;
    let make = |setting: &str, t: &Option<crate::security::tls::TlsConfig>, alpn: &[&[u8]]| {
        t.as_ref()
            .map(|t| TlsServer::new(setting, t, alpn, endpoints))
            .transpose()
            .map_err(|e| StartError::Tls(format!("{setting}: {e}")))
    };
    Ok(TlsListeners {
        http: make("http.tls", &config.http.tls, &[b"http/1.1"])?,
        channel: make("listener.tls", &config.listener.tls, &[])?,
        svrconn: make(
            "svrconn.tls",
            &config.svrconn.as_ref().and_then(|s| s.tls.clone()),
            &[],
        )?,
        mqtt: make("mqtt.tls", &config.mqtt.tls, &[])?,
    })
}

/// Binds `addr`; returns the listener and the address it got (the port
/// chosen for port 0).
async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), (SocketAddr, io::Error)> {
    let l = TcpListener::bind(addr).await.map_err(|e| (addr, e))?;
    let bound = l.local_addr().map_err(|e| (addr, e))?;
    Ok((l, bound))
}

/// Starts the channel listener with the receiver channels of `config`, and
/// every sender channel but those in `roles` (fault tolerance roles, which
/// start when the gateway activates, src/gateway/ft/), all working through
/// `mqi` (so the queue exits of the `exits:` section run for their puts);
/// returns the listener's task.
/// The receiver channels' stored sequence numbers are on `board` when this
/// returns (before the HTTP API serves `GET /v1/status`). The sender and
/// mq-client channels run in `outbound`; the receivers are returned with
/// the listener's task (a configuration reload changes both).
#[allow(clippy::too_many_arguments)]
async fn start_channels(
    config: &Config,
    mqi: &Mqi,
    board: &Arc<StatusBoard>,
    (listener, listener_tls): (TcpListener, Option<Arc<crate::security::tls::TlsServer>>),
    stop: &watch::Receiver<bool>,
    roles: &[String],
    readiness: &Arc<Readiness>,
    outbound: &outbound::Outbound,
) -> (JoinHandle<Option<()>>, Arc<Receivers>) {
    let tasks = mqi.tasks();
    let receivers: Vec<_> = config
        .channels
        .iter()
        .filter_map(|c| match c {
            ChannelDef::Receiver(r) => Some(r.clone()),
            ChannelDef::Sender(_) | ChannelDef::MqClient(_) => None,
        })
        .collect();
    let receivers = Arc::new(
        Receivers::new(mqi.clone(), Arc::clone(board), &receivers)
            .with_exits(&config.exits)
            .with_tls(listener_tls),
    );
    receivers.show_stored_seqs().await;
    let listener_task = tasks.spawn(
        TaskGroup::Channels,
        Arc::clone(readiness).watch(
            Listener::Channel,
            Arc::clone(&receivers).serve(listener, stop.clone()),
        ),
    );
    for c in &config.channels {
        match c {
            ChannelDef::Sender(def) if roles.contains(&def.name) => {}
            ChannelDef::Sender(_) | ChannelDef::MqClient(_) => outbound.start(c),
            ChannelDef::Receiver(_) => {}
        }
    }
    (listener_task, receivers)
}

/// The TLS of the routing daemon `r`: its listener's and each dialled
/// neighbor's, registered in `endpoints`. Errors: [`StartError::Tls`].
fn routing_tls(
    r: &crate::rv::route::config::RoutingConfig,
    endpoints: &crate::security::tls::TlsEndpoints,
) -> Result<crate::rv::route::service::RoutingTls, StartError> {
    use crate::security::tls::{TlsClient, TlsServer};
    let mut out = crate::rv::route::service::RoutingTls::default();
    if let Some(t) = &r.tls {
        out.listener = Some(
            TlsServer::new("rv.routing.tls", t, &[], endpoints)
                .map_err(|e| StartError::Tls(format!("rv.routing.tls: {e}")))?,
        );
    }
    for n in &r.neighbors {
        if let Some(t) = &n.tls {
            let setting = format!("rv.routing neighbor {} tls", n.name);
            let client = TlsClient::new(&setting, t, endpoints)
                .map_err(|e| StartError::Tls(format!("{setting}: {e}")))?;
            out.neighbors.insert(n.name.clone(), client);
        }
    }
    Ok(out)
}

/// The TLS clients of sender and mq-client channels, by channel name.
pub(crate) type SenderTls = std::collections::HashMap<String, Arc<crate::security::tls::TlsClient>>;

/// The TLS client of every sender and mq-client channel with `tls:`
/// (those of fault tolerance roles too), registered in `endpoints`. Errors:
/// [`StartError::Tls`] naming the channel and the file.
fn sender_tls(
    config: &Config,
    endpoints: &crate::security::tls::TlsEndpoints,
) -> Result<SenderTls, StartError> {
    let mut out = SenderTls::new();
    for c in &config.channels {
        let tls = match c {
            ChannelDef::Sender(def) => def.tls.as_ref(),
            ChannelDef::MqClient(def) => def.tls.as_ref(),
            ChannelDef::Receiver(_) => None,
        };
        if let Some(t) = tls {
            let setting = format!("channel {} tls", c.name());
            let client = crate::security::tls::TlsClient::new(&setting, t, endpoints)
                .map_err(|e| StartError::Tls(format!("{setting}: {e}")))?;
            out.insert(c.name().to_string(), client);
        }
    }
    Ok(out)
}

/// The HTTP API, the RPC bridge's routes and the Tuxedo gateway's routes,
/// all answering errors as JSON ([`guarded`] puts them behind the checks).
fn routes(
    config: &Config,
    tedg: Option<(crate::tedg::Loaded, Option<Arc<crate::tedg::QspaceRole>>)>,
    messageq: Option<&crate::sbs::Group>,
    mqi: &Mqi,
    channels: Arc<StatusBoard>,
    rpc: &Arc<RpcService>,
    rv_routes: axum::Router,
) -> axum::Router {
    let tedg_routes = tedg.map(|(loaded, role)| {
        let mut t = crate::tedg::Tedg::new(
            loaded,
            mqi.clone(),
            Arc::new(crate::tedg::clock::SystemClock),
            config.http.lease_ms,
        );
        if let Some(role) = role {
            t = t.with_role(role);
        }
        let r = crate::tedg::http::routes(crate::tedg::http::TedgState {
            tedg: Arc::new(t),
            max_wait_ms: config.http.max_wait_ms,
        });
        crate::http::auth::with_route_authorities(r, mqi, rtq_needs(mqi.q_mgr_name()))
    });
    let state = crate::http::AppState::new(mqi.clone(), Arc::new(config.clone()), channels);
    let mut app = crate::http::router(state)
        .merge(crate::http::auth::with_route_authorities(
            crate::rpc::http::router(Arc::clone(rpc)),
            mqi,
            rpc_needs(mqi.q_mgr_name()),
        ))
        .merge(rv_routes);
    if let Some(r) = tedg_routes {
        app = app.merge(r);
    }
    if let Some(group) = messageq {
        // The PAMS API (docs/messageq.md "PAMS API").
        app = app.merge(crate::http::pams::routes(config, mqi, group));
    }
    // After the merges, so RPC and Tuxedo routes answer JSON errors too.
    crate::http::with_json_errors(app)
}

/// The authorities of the Tuxedo RTQ routes (docs/security.md
/// "Authorities"): +dsp on this queue manager to list the RTQ queues, +get
/// on the queue-manager queue of an RTQ queue to take, acknowledge or back
/// out its requests, +chg on it to change its state. `tpenqueue` needs a
/// token only.
fn rtq_needs(q_mgr: &str) -> crate::http::auth::Needs {
    use crate::security::{Authority, ObjectType};
    let q_mgr = q_mgr.to_string();
    Arc::new(move |route, p| {
        let rtq = || {
            let get = |k: &str| p.get(k).cloned().unwrap_or_default();
            crate::tedg::qm_queue_name(&get("group"), &get("queue"))
        };
        match route {
            "/v1/rtq" => vec![(ObjectType::Qmgr, q_mgr.clone(), Authority::Dsp)],
            "/v1/rtq/{group}/{queue}/next"
            | "/v1/rtq/{group}/{queue}/ack/{lease}"
            | "/v1/rtq/{group}/{queue}/backout/{lease}" => {
                vec![(ObjectType::Queue, rtq(), Authority::Get)]
            }
            "/v1/rtq/{group}/{queue}/state" => vec![(ObjectType::Queue, rtq(), Authority::Chg)],
            _ => Vec::new(),
        }
    })
}

/// The authorities of the RPC routes beyond each call's own checks
/// ([`crate::rpc::RpcService::call`]): +dsp on this queue manager to list
/// the programs.
fn rpc_needs(q_mgr: &str) -> crate::http::auth::Needs {
    use crate::security::{Authority, ObjectType};
    let q_mgr = q_mgr.to_string();
    Arc::new(move |route, _| match route {
        "/v1/rpc/programs" => vec![(ObjectType::Qmgr, q_mgr.clone(), Authority::Dsp)],
        _ => Vec::new(),
    })
}

/// `app` behind the gateway's checks: the bearer token of every request
/// (docs/security.md), and outermost the origin and host checks, so nothing
/// runs for a refused origin or host.
fn guarded(
    app: axum::Router,
    config: &Config,
    authentication: Option<crate::http::auth::Authentication>,
) -> axum::Router {
    let app = match authentication {
        Some(a) => crate::http::auth::with_authentication(app, a),
        None => app,
    };
    let guard = crate::http::guard::Guard::new(&config.http);
    crate::http::guard::with_origin_and_host_checks(app, guard)
}

impl Handle {
    /// The address the HTTP API listens on (the port chosen when
    /// `http.listen` had port 0).
    pub fn http_addr(&self) -> SocketAddr {
        self.http_addr
    }

    /// The address the channel listener listens on (the port chosen when
    /// `listener.listen` had port 0).
    pub fn channel_addr(&self) -> SocketAddr {
        self.channel_addr
    }

    /// The address the MQTT listener listens on (the port chosen when
    /// `mqtt.listen` had port 0).
    pub fn mqtt_addr(&self) -> SocketAddr {
        self.mqtt_addr
    }

    /// The address the SVRCONN listener for MQ clients listens on (the port
    /// chosen when `svrconn.listen` had port 0); `None` without a
    /// `svrconn:` section.
    pub fn svrconn_addr(&self) -> Option<SocketAddr> {
        self.svrconn_addr
    }

    /// The Rendezvous subject bus (docs/rendezvous.md "Subject bus"): what
    /// the HTTP API publishes to and listens on, for parts of the gateway
    /// and tests in the same process. Closed once the gateway stops;
    /// `None` after [`Handle::stop`].
    pub fn rv_bus(&self) -> Option<crate::rv::Bus> {
        self.running.as_ref().map(|r| r.rv.clone())
    }

    /// The CM transports (docs/rendezvous.md "Certified delivery"), for
    /// parts of the gateway and tests in the same process. `None` after
    /// [`Handle::stop`].
    pub fn rv_cm(&self) -> Option<crate::rv::cm::CmTransports> {
        self.running.as_ref().map(|r| r.rv_cm.clone())
    }

    /// The distributed queue members (docs/rendezvous.md "Distributed
    /// queues"), to join queues in the same process. `None` after
    /// [`Handle::stop`].
    pub fn rv_dq(&self) -> Option<crate::rv::dq::DistributedQueues> {
        self.running.as_ref().map(|r| r.rv_dq.clone())
    }

    /// The bus between gateways' status as `GET /v1/bus` answers it
    /// (docs/cluster.md "Bus status"), when `bus:` is set.
    pub fn bus_status(&self) -> Option<serde_json::Value> {
        self.running
            .as_ref()
            .and_then(|r| r.bus.as_ref())
            .map(|b| b.json())
    }

    /// The routing daemon (docs/rendezvous.md "Routing between gateways"),
    /// when `rv.routing` is set: its listen address and status. `None`
    /// after [`Handle::stop`].
    pub fn rv_routing(&self) -> Option<crate::rv::route::service::Routing> {
        self.running.as_ref().and_then(|r| r.routing.clone())
    }

    /// The fault tolerance roles (docs/rendezvous.md "mqgate's own
    /// roles"), when `fault_tolerance` is set: the group, the member and
    /// whether the roles run. `None` after [`Handle::stop`].
    pub fn fault_tolerance(&self) -> Option<ft::FtRoles> {
        self.running.as_ref().and_then(|r| r.ft.clone())
    }

    /// Re-reads the PEM files of every TLS listener and outbound connection
    /// (what SIGHUP does in `mqgate run`, [`crate::security::tls::reload_certificates`]):
    /// new connections get the new certificates, open ones keep theirs; a
    /// setting whose files cannot be used keeps its old ones and is
    /// returned with its error (also logged).
    pub fn reload_tls(&self) -> Vec<(String, crate::security::tls::TlsError)> {
        crate::security::tls::reload_certificates(&self.tls)
    }

    /// A count of the gateway's running tasks, valid after [`Handle::stop`].
    pub fn tasks(&self) -> TaskMonitor {
        match &self.running {
            Some(r) => TaskMonitor(r.tasks.clone()),
            None => TaskMonitor(Tasks::default()),
        }
    }

    /// Resolves when a part of the gateway ends without being asked to:
    /// the HTTP server or the channel listener failed (a panic). The
    /// gateway is then no longer fully serving; [`Handle::stop`] ends the
    /// rest. Never resolves while both run.
    pub async fn wait(&mut self) -> Fault {
        let Some(r) = self.running.as_mut() else {
            return std::future::pending().await;
        };
        tokio::select! {
            ended = joined(&mut r.http) => Fault {
                part: "HTTP server",
                message: match ended {
                    Ok(Some(Err(e))) => e.to_string(),
                    Ok(_) => "ended".into(),
                    Err(e) => format!("task failed: {e}"),
                },
            },
            ended = joined(&mut r.channel_listener) => Fault {
                part: "channel listener",
                message: match ended {
                    Ok(_) => "ended".into(),
                    Err(e) => format!("task failed: {e}"),
                },
            },
            ended = joined(&mut r.mqtt) => Fault {
                part: "MQTT listener",
                message: match ended {
                    Ok(_) => "ended".into(),
                    Err(e) => format!("task failed: {e}"),
                },
            },
        }
    }
}

/// The outcome of the task in `slot`, once; pending when there is none.
async fn joined<T>(slot: &mut Option<JoinHandle<T>>) -> Result<T, JoinError> {
    let Some(h) = slot.as_mut() else {
        return std::future::pending().await;
    };
    let r = h.await;
    *slot = None;
    r
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.readiness.stopping();
            r.stop_http.cancel();
            r.stop_mqtt.cancel();
            r.stop_svrconn.cancel();
            r.rv.close();
            r.stop_channels.send_replace(true);
            r.tasks.end();
        }
    }
}
