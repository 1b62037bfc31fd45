//! The TLS of one listener ([`TlsServer`]) or outbound connection
//! ([`TlsClient`], [`ClientTls`]): the rustls configuration current for new
//! connections, swapped by a reload.

use super::reload::Reload;
use super::{
    HANDSHAKE_TIMEOUT, PeerIdentity, SslPeer, Stream, TlsConfig, TlsEndpoints, TlsError,
    client_config, server_config,
};
use crate::security::current::Current;
use rustls::{ClientConfig, ServerConfig};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use tokio::net::TcpStream;

/// TLS for an outbound connection that checks the server's certificate
/// against an SSLPEER filter too (mq-client channels, routing links).
#[derive(Clone, Debug)]
pub struct ClientTls {
    /// The connection's TLS client.
    pub client: Arc<TlsClient>,
    /// The SSLPEER filter the server's subject DN must pass, if any.
    pub sslpeer: Option<SslPeer>,
}

impl ClientTls {
    /// Runs the TLS handshake on `tcp` connected to `host` at `addr`, then
    /// checks the server's subject DN against the SSLPEER filter. Errors:
    /// the handshake failed (`Err(Ok(io error))`), or the DN does not pass
    /// (`Err(Err(text))`, to be reported with 2035 MQRC_NOT_AUTHORIZED).
    pub async fn connect(
        &self,
        tcp: TcpStream,
        host: &str,
        addr: SocketAddr,
    ) -> Result<(Stream, PeerIdentity), Result<std::io::Error, String>> {
        let (stream, peer) = self.client.connect(tcp, host, addr).await.map_err(Ok)?;
        if let Some(filter) = &self.sslpeer
            && !peer.dn.as_deref().is_some_and(|dn| filter.matches(dn))
        {
            return Err(Err(format!(
                "the certificate subject DN {:?} of {addr} does not match SSLPEER {:?}",
                peer.dn.as_deref().unwrap_or(""),
                filter.as_str()
            )));
        }
        Ok((stream, peer))
    }
}

/// A listener's TLS: accepts connections with the current configuration.
pub struct TlsServer {
    setting: String,
    config: TlsConfig,
    alpn: Vec<Vec<u8>>,
    current: Current<ServerConfig>,
}

impl fmt::Debug for TlsServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsServer")
            .field("setting", &self.setting)
            .finish_non_exhaustive()
    }
}

impl TlsServer {
    /// The TLS of the listener whose `tls:` setting is `config` at path
    /// `setting` (e.g. `http.tls`, for logs), offering ALPN `alpn`,
    /// registered in `endpoints` for reloads. Errors: the files cannot be
    /// used ([`TlsError`]).
    pub fn new(
        setting: &str,
        config: &TlsConfig,
        alpn: &[&[u8]],
        endpoints: &TlsEndpoints,
    ) -> Result<Arc<TlsServer>, TlsError> {
        let built = server_config(config, alpn)?;
        let s = Arc::new(TlsServer {
            setting: setting.to_string(),
            config: config.clone(),
            alpn: alpn.iter().map(|p| p.to_vec()).collect(),
            current: Current::new(built),
        });
        let weak: Weak<dyn Reload> = Arc::downgrade(&(Arc::clone(&s) as Arc<dyn Reload>));
        endpoints.add(weak);
        Ok(s)
    }

    /// Runs the TLS handshake on `tcp` from `addr` (at most
    /// [`HANDSHAKE_TIMEOUT`]). Returns the stream and the peer with the
    /// subject DN of its certificate. Errors: the handshake failed (an
    /// untrusted, expired or missing client certificate, an old TLS
    /// version, ...) or timed out; the connection is then closed. A client
    /// that offered no version the listener accepts is [`NoCommonVersion`].
    pub async fn accept(
        &self,
        tcp: TcpStream,
        addr: SocketAddr,
    ) -> std::io::Result<(Stream, PeerIdentity)> {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.current.get());
        let tls = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp))
            .await
            .map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::TimedOut, "TLS handshake timed out")
            })?
            .map_err(|e| no_common_version(e, self.config.min_version))?;
        let peer = PeerIdentity::of_certificates(addr, tls.get_ref().1.peer_certificates());
        Ok((Stream::Server(Box::new(tls)), peer))
    }
}

/// A handshake refused because the client offered no TLS version the
/// listener accepts (a TLS 1.0 or 1.1 client, or a TLS 1.2 one where
/// `min_version` is `"1.3"`; docs/security.md "TLS"). Its text says so in
/// plain words; `detail` keeps rustls' own name of the refusal.
#[derive(Debug)]
pub struct NoCommonVersion {
    /// The versions the listener accepts, e.g. `TLS 1.2 or later`.
    pub accepted: &'static str,
    /// rustls' error, e.g. `peer is incompatible: Tls12NotOffered`.
    pub detail: String,
}

impl fmt::Display for NoCommonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the client offered no TLS version this listener accepts ({})",
            self.accepted
        )
    }
}

impl std::error::Error for NoCommonVersion {}

/// rustls' detail of a failed handshake that [`TlsServer::accept`] reported
/// in plain words ([`NoCommonVersion`]), for a log field; `None` for others.
pub fn rustls_detail(e: &std::io::Error) -> Option<&str> {
    e.get_ref()?
        .downcast_ref::<NoCommonVersion>()
        .map(|n| n.detail.as_str())
}

/// `e` as [`NoCommonVersion`] when rustls refused the client for offering
/// no version this side accepts: an old client sends neither the
/// supported_versions (RFC 8446 4.2.1) nor the signature_algorithms (RFC
/// 5246 7.4.1.4.1) extension, or a version below TLS 1.2; others as they are.
fn no_common_version(e: std::io::Error, min: super::MinVersion) -> std::io::Error {
    use rustls::PeerIncompatible as P;
    let old_client = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|r| {
            matches!(
                r,
                rustls::Error::PeerIncompatible(
                    P::SupportedVersionsExtensionRequired
                        | P::SignatureAlgorithmsExtensionRequired
                        | P::Tls12NotOffered
                        | P::Tls12NotOfferedOrEnabled
                )
            )
        });
    if !old_client {
        return e;
    }
    let accepted = match min {
        super::MinVersion::Tls12 => "TLS 1.2 or later",
        super::MinVersion::Tls13 => "TLS 1.3",
    };
    std::io::Error::new(
        e.kind(),
        NoCommonVersion {
            accepted,
            detail: e.to_string(),
        },
    )
}

impl Reload for TlsServer {
    fn reload(&self) -> Result<(), TlsError> {
        let alpn: Vec<&[u8]> = self.alpn.iter().map(Vec::as_slice).collect();
        self.current.set(server_config(&self.config, &alpn)?);
        Ok(())
    }

    fn setting(&self) -> &str {
        &self.setting
    }
}

/// An outbound connection's TLS: connects with the current configuration
/// and checks the server's certificate (and its SSLPEER filter).
pub struct TlsClient {
    setting: String,
    config: TlsConfig,
    current: Current<ClientConfig>,
}

impl fmt::Debug for TlsClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsClient")
            .field("setting", &self.setting)
            .finish_non_exhaustive()
    }
}

impl TlsClient {
    /// The TLS of the outbound connection whose `tls:` setting is `config`
    /// at path `setting`, registered in `endpoints`. Errors: the files
    /// cannot be used.
    pub fn new(
        setting: &str,
        config: &TlsConfig,
        endpoints: &TlsEndpoints,
    ) -> Result<Arc<TlsClient>, TlsError> {
        let built = client_config(config)?;
        let c = Arc::new(TlsClient {
            setting: setting.to_string(),
            config: config.clone(),
            current: Current::new(built),
        });
        let weak: Weak<dyn Reload> = Arc::downgrade(&(Arc::clone(&c) as Arc<dyn Reload>));
        endpoints.add(weak);
        Ok(c)
    }

    /// The rustls configuration new connections use now (for clients that
    /// run TLS themselves, e.g. the NATS client).
    pub fn client_config(&self) -> Arc<ClientConfig> {
        self.current.get()
    }

    /// Runs the TLS handshake on `tcp`, connected to `host` at `addr`: the
    /// server's certificate must chain to `ca`, be valid now and carry
    /// `server_name` (default `host`). Returns the stream and the server
    /// as a peer with its certificate's subject DN. Errors: the handshake
    /// failed or timed out (at most [`HANDSHAKE_TIMEOUT`]).
    pub async fn connect(
        &self,
        tcp: TcpStream,
        host: &str,
        addr: SocketAddr,
    ) -> std::io::Result<(Stream, PeerIdentity)> {
        let name = self.config.server_name.as_deref().unwrap_or(host);
        let server_name =
            rustls::pki_types::ServerName::try_from(name.to_string()).map_err(|e| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{name:?}: {e}"))
            })?;
        let connector = tokio_rustls::TlsConnector::from(self.current.get());
        let tls = tokio::time::timeout(HANDSHAKE_TIMEOUT, connector.connect(server_name, tcp))
            .await
            .map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::TimedOut, "TLS handshake timed out")
            })??;
        let peer = PeerIdentity::of_certificates(addr, tls.get_ref().1.peer_certificates());
        Ok((Stream::Client(Box::new(tls)), peer))
    }
}

impl Reload for TlsClient {
    fn reload(&self) -> Result<(), TlsError> {
        self.current.set(client_config(&self.config)?);
        Ok(())
    }

    fn setting(&self) -> &str {
        &self.setting
    }
}
