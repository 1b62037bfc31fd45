//! The MQTT listener for devices (docs/mqtt.md): MQTT 3.1.1 and 5.0
//! clients whose client identifier is a device queue manager name receive
//! the messages stored for them on their device queues (each a QoS 1
//! PUBLISH; the device's PUBACK acknowledges its lease) and put messages
//! into the MQ network by publishing to `QUEUE@QMGR`. A thin translation
//! onto [`crate::devices`] and [`crate::mqi`]: no queue logic here.
//!
//! The packet codec is mqgate's own (`mqgate_codecs::mqtt`, docs/mqtt.md
//! "The codec").

pub(crate) mod auth;
pub mod client;
pub mod config;
mod connection;
mod delivery;
mod frame;
mod mapping;
mod names;
mod publish;
mod session;
mod sessions;

use crate::devices::{AckGroup, Devices};
use crate::log_limit::Repeats;
use crate::tasks::Tasks;
use config::MqttConfig;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A device's lease lasts as long as its connection: the connection acks
/// or backs it out. This bound only frees a lease whose holder vanished
/// without either (it cannot, short of a bug: leases also end with the
/// run); MQTT allows no resend on a live connection (5.0 4.4).
const LEASE: Duration = Duration::from_secs(24 * 3600);

/// Failed accepts of the MQTT listener (src/log_limit.rs).
static ACCEPT_FAILED: Repeats = Repeats::per_minute();

/// What every connection of the listener shares.
pub(crate) struct Service {
    devices: Devices,
    /// Acknowledgements (PUBACKs) of all connections, committed in groups.
    acks: AckGroup,
    config: MqttConfig,
    sessions: sessions::Sessions,
    passwords: Option<auth::Passwords>,
    /// `security.certificates`: client certificate filters and the
    /// principals they map to, first match wins.
    certificates: Arc<Vec<(crate::security::tls::SslPeer, crate::security::Principal)>>,
    tasks: Tasks,
    /// Cancelled when the gateway stops.
    stop: CancellationToken,
    next_conn: AtomicU64,
}

impl Service {
    /// The service over `devices` (its leases replaced by connection-long
    /// ones) with `config`; `passwords` from `mqtt.password_file`;
    /// `certificates` (`security.certificates`) map client certificates
    /// (`mqtt.tls` with `client_auth`) to principals (docs/security.md
    /// "MQTT devices").
    pub(crate) fn new(
        devices: &Devices,
        config: &MqttConfig,
        passwords: Option<auth::Passwords>,
        certificates: Arc<Vec<(crate::security::tls::SslPeer, crate::security::Principal)>>,
        tasks: Tasks,
        stop: CancellationToken,
    ) -> Arc<Service> {
        Arc::new(Service {
            devices: devices.with_times(LEASE, Duration::from_secs(60)),
            acks: AckGroup::start(devices.mqi().clone()),
            config: config.clone(),
            sessions: sessions::Sessions::default(),
            passwords,
            certificates,
            tasks,
            stop,
            next_conn: AtomicU64::new(1),
        })
    }

    /// The principal the first `security.certificates` entry whose filter
    /// subject DN `dn` passes maps to.
    fn certificate_principal(&self, dn: &str) -> Option<&crate::security::Principal> {
        self.certificates
            .iter()
            .find(|(filter, _)| filter.matches(dn))
            .map(|(_, p)| p)
    }
}

/// Accepts connections on `listener` until the service's stop token is
/// cancelled; each connection is a task of the gateway's requests, over
/// TLS when `tls` (`mqtt.tls`) is given: a failed handshake is logged and
/// the connection closed.
pub(crate) async fn serve(
    listener: TcpListener,
    svc: Arc<Service>,
    tls: Option<Arc<crate::security::tls::TlsServer>>,
) {
    loop {
        let accepted = tokio::select! {
            () = svc.stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                let _ = stream.set_nodelay(true);
                let s = Arc::clone(&svc);
                // Over a limit the connection is still read up to its
                // CONNECT, which is refused (connection.rs).
                let permit = svc
                    .devices
                    .mqi()
                    .limits()
                    .admit(crate::metrics::Listener::Mqtt, peer.ip());
                let open = crate::metrics::accepted(crate::metrics::Listener::Mqtt);
                let tls = tls.clone();
                svc.tasks.spawn_request(async move {
                    let _open = open;
                    let (stream, dn) = match tls {
                        None => (crate::security::tls::Stream::Plain(stream), None),
                        Some(tls) => match tokio::select! {
                            r = tls.accept(stream, peer) => r,
                            () = s.stop.cancelled() => return,
                        } {
                            Ok((s, identity)) => (s, identity.dn),
                            Err(e) => {
                                tracing::info!(%peer, error = %e,
                                    detail = crate::security::tls::rustls_detail(&e), "MQTT TLS handshake failed");
                                return;
                            }
                        },
                    };
                    connection::run(s, stream, peer, dn, permit).await
                });
            }
            Err(e) => {
                // Out of file descriptors and the like: try again shortly.
                if let Some(suppressed) = ACCEPT_FAILED.admit("") {
                    tracing::warn!(error = %e, suppressed, "MQTT listener could not accept a connection");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
