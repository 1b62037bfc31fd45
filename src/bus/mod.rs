//! The bus between gateways (docs/cluster.md "The bus between gateways"):
//! with `bus:` set, gateways on one nats-server (or cluster) exchange
//! Rendezvous subjects ([`rv`]) and universal MOT broadcasts ([`sbs`])
//! over core NATS subjects under `bus.subject_prefix`, instead of routing
//! links and channels to each other's SBS servers.
//!
//! - `config`: the `bus:` section and its checks.
//! - `peers`: the other gateways' announced interest (pure).
//! - `connect`: the NATS connection and its start-up errors.
//! - `rv`, `sbs`: the tasks that move messages; `status`: what they show.

pub mod config;
#[cfg(feature = "nats")]
pub mod peers;
pub mod status;

#[cfg(feature = "nats")]
pub mod connect;
#[cfg(feature = "nats")]
pub mod rv;
#[cfg(feature = "nats")]
pub mod sbs;

/// How many universal broadcasts may wait for NATS before the SBS server
/// counts the next one as not forwarded.
#[cfg(feature = "nats")]
pub const UNIVERSAL_QUEUE: usize = 4096;

/// A connected bus, between its connection at start and its tasks.
#[cfg(feature = "nats")]
pub struct Connected {
    client: async_nats::Client,
    events: tokio::sync::mpsc::UnboundedReceiver<connect::Link>,
    config: config::BusConfig,
    /// 16 hex digits drawn for this run: the origin of its universal
    /// broadcasts.
    id: String,
    status: std::sync::Arc<status::BusStatus>,
}

/// Connects to the servers of `c`.
///
/// Errors: as [`connect::connect`], one sentence starting with `bus:`.
#[cfg(feature = "nats")]
pub async fn connect(c: &config::BusConfig) -> Result<Connected, String> {
    let (tx, events) = tokio::sync::mpsc::unbounded_channel();
    let status = std::sync::Arc::new(status::BusStatus::new(&c.servers, &c.subject_prefix));
    let client = connect::connect(c, tx, std::sync::Arc::clone(&status)).await?;
    Ok(Connected {
        client,
        events,
        config: c.clone(),
        id: crate::rv::bus::gateway_unique(),
        status,
    })
}

/// Without the `nats` feature there is no bus to connect.
#[cfg(not(feature = "nats"))]
pub async fn connect(_c: &config::BusConfig) -> Result<Connected, String> {
    Err("bus: type nats needs mqgate built with the nats feature".into())
}

/// Never made without the `nats` feature.
#[cfg(not(feature = "nats"))]
pub struct Connected {
    _never: std::convert::Infallible,
}

impl Connected {
    /// The bus's status, for `GET /v1/bus`.
    #[cfg(feature = "nats")]
    pub fn status(&self) -> std::sync::Arc<status::BusStatus> {
        std::sync::Arc::clone(&self.status)
    }

    /// Without the `nats` feature: never called.
    #[cfg(not(feature = "nats"))]
    pub fn status(&self) -> std::sync::Arc<status::BusStatus> {
        match self._never {}
    }

    /// A sender for the SBS server's universal broadcasts, and the task
    /// that publishes them and puts other gateways' on queue 99 of
    /// `queues`' group, spawned in `mqi`'s tasks.
    #[cfg(feature = "nats")]
    pub fn start_sbs(
        &self,
        mqi: &crate::mqi::Mqi,
        queues: std::sync::Arc<crate::sbs::group::GroupQueues>,
    ) -> crate::sbs::server::UniversalOut {
        let (tx, rx) = tokio::sync::mpsc::channel(UNIVERSAL_QUEUE);
        mqi.tasks().spawn(
            crate::tasks::TaskGroup::Requests,
            sbs::run(
                self.client.clone(),
                self.config.subject_prefix.clone(),
                self.id.clone(),
                mqi.clone(),
                queues,
                rx,
                self.status(),
            ),
        );
        crate::sbs::server::UniversalOut::new(tx)
    }

    /// Without the `nats` feature: never called.
    #[cfg(not(feature = "nats"))]
    pub fn start_sbs(
        &self,
        _mqi: &crate::mqi::Mqi,
        _queues: std::sync::Arc<crate::sbs::group::GroupQueues>,
    ) -> crate::sbs::server::UniversalOut {
        match self._never {}
    }

    /// Starts the Rendezvous part on `bus` in `tasks`.
    #[cfg(feature = "nats")]
    pub fn start_rv(self, bus: &crate::rv::Bus, tasks: &crate::tasks::Tasks) {
        let status = self.status();
        match rv::RvBus::new(
            bus,
            self.client,
            &self.config.subject_prefix,
            self.config.interest_refresh_ms,
            status,
        ) {
            Ok(r) => {
                tasks.spawn(crate::tasks::TaskGroup::Requests, r.run(self.events));
            }
            Err(e) => tracing::error!(error = %e, "bus: cannot listen on the subject bus"),
        }
    }

    /// Without the `nats` feature: never called.
    #[cfg(not(feature = "nats"))]
    pub fn start_rv(self, _bus: &crate::rv::Bus, _tasks: &crate::tasks::Tasks) {
        match self._never {}
    }
}
