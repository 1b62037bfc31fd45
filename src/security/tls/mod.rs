//! TLS on every listener and outbound connection (docs/security.md "TLS"):
//! rustls with the ring provider, TLS 1.2 (RFC 5246) and 1.3 (RFC 8446)
//! only, certificates checked as RFC 5280 says (webpki).
//!
//! A [`TlsServer`] (a listener's side) or [`TlsClient`] (an outbound
//! connection's) holds the rustls configuration built from its `tls:`
//! setting behind a lock, and each new connection takes the one current
//! then: [`reload_certificates`] re-reads every endpoint's PEM files
//! (on SIGHUP) and swaps in the new configuration, so connections already
//! open keep theirs and are not dropped; a file that cannot be used keeps
//! the old configuration and logs an error naming the file.

pub mod config;
pub mod dn;
pub mod files;
pub mod peer;
pub mod sslpeer;
pub mod stream;

pub use config::{ClientAuth, MinVersion, Side, TlsConfig};
pub use peer::PeerIdentity;
pub use sslpeer::SslPeer;
pub use stream::Stream;

use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ServerConfig};
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;
use tokio::net::TcpStream;

/// Why a `tls:` setting cannot be used; each names the file at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TlsError {
    /// The file cannot be read.
    #[error("{}: cannot read: {error}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The operating system's error.
        error: String,
    },
    /// The file is not the PEM certificates it should be.
    #[error("{}: {what}", file.display())]
    Pem {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The key file holds no usable private key.
    #[error("{}: {what}", file.display())]
    Key {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The private key is not the certificate's.
    #[error("{}: the private key does not match the certificate of {}", key.display(), cert.display())]
    KeyMismatch {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
    },
    /// The settings cannot make a TLS configuration (e.g. client
    /// certificates asked for without CA certificates).
    #[error("{0}")]
    Setting(String),
}

/// The one crypto provider: ring (no aws-lc build).
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// TLS 1.3 and 1.2, the versions `min_version: "1.2"` allows.
static FROM_1_2: [&rustls::SupportedProtocolVersion; 2] =
    [&rustls::version::TLS13, &rustls::version::TLS12];
/// TLS 1.3 alone.
static FROM_1_3: [&rustls::SupportedProtocolVersion; 1] = [&rustls::version::TLS13];

fn versions(min: MinVersion) -> &'static [&'static rustls::SupportedProtocolVersion] {
    match min {
        MinVersion::Tls12 => &FROM_1_2,
        MinVersion::Tls13 => &FROM_1_3,
    }
}

/// How long a TLS handshake may take before the connection is dropped.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The one certificate a listener presents.
#[derive(Debug)]
struct Fixed(Arc<CertifiedKey>);

impl rustls::server::ResolvesServerCert for Fixed {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }
}

/// Builds a listener's rustls configuration from `c` (reading its files);
/// `alpn` the protocols offered (e.g. `http/1.1`).
pub fn server_config(c: &TlsConfig, alpn: &[&[u8]]) -> Result<ServerConfig, TlsError> {
    let (Some(cert), Some(key)) = (&c.cert, &c.key) else {
        return Err(TlsError::Setting(
            "a TLS listener needs cert and key".into(),
        ));
    };
    let certified = files::certified_key(cert, key)?;
    let provider = provider();
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(versions(c.min_version))
        .map_err(|e| TlsError::Setting(e.to_string()))?;
    let builder = match (c.client_auth, &c.ca) {
        (ClientAuth::None, _) => builder.with_no_client_auth(),
        (auth, Some(ca)) => {
            let roots = Arc::new(files::roots(ca)?);
            let mut v = WebPkiClientVerifier::builder_with_provider(roots, provider);
            if auth == ClientAuth::Optional {
                v = v.allow_unauthenticated();
            }
            let v = v.build().map_err(|e| TlsError::Pem {
                file: ca.clone(),
                what: format!("cannot check client certificates: {e}"),
            })?;
            builder.with_client_cert_verifier(v)
        }
        (_, None) => {
            return Err(TlsError::Setting(
                "client_auth optional or required needs ca".into(),
            ));
        }
    };
    let mut config = builder.with_cert_resolver(Arc::new(Fixed(certified)));
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// Builds an outbound connection's rustls configuration from `c`.
pub fn client_config(c: &TlsConfig) -> Result<ClientConfig, TlsError> {
    let Some(ca) = &c.ca else {
        return Err(TlsError::Setting(
            "an outbound TLS connection needs ca".into(),
        ));
    };
    let roots = files::roots(ca)?;
    let builder = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(versions(c.min_version))
        .map_err(|e| TlsError::Setting(e.to_string()))?
        .with_root_certificates(roots);
    match (&c.cert, &c.key) {
        (Some(cert), Some(key)) => {
            // Checked first, for the error that names the files.
            files::certified_key(cert, key)?;
            builder
                .with_client_auth_cert(files::certificates(cert)?, files::private_key(key)?)
                .map_err(|e| TlsError::Key {
                    file: key.clone(),
                    what: format!("the client certificate cannot be used: {e}"),
                })
        }
        _ => Ok(builder.with_no_client_auth()),
    }
}

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

/// Something whose certificates [`reload_certificates`] re-reads.
trait Reload: Send + Sync {
    fn reload(&self) -> Result<(), TlsError>;
    fn setting(&self) -> &str;
}

/// Every TLS endpoint of a gateway, for [`reload_certificates`]. Endpoints
/// register themselves when made; one that is dropped drops out.
#[derive(Clone, Default)]
pub struct TlsEndpoints(Arc<Mutex<Vec<Weak<dyn Reload>>>>);

impl fmt::Debug for TlsEndpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsEndpoints").finish_non_exhaustive()
    }
}

impl TlsEndpoints {
    fn add(&self, e: Weak<dyn Reload>) {
        if let Ok(mut v) = self.0.lock() {
            v.retain(|w| w.strong_count() > 0);
            v.push(e);
        }
    }

    fn live(&self) -> Vec<Arc<dyn Reload>> {
        self.0
            .lock()
            .map(|v| v.iter().filter_map(Weak::upgrade).collect())
            .unwrap_or_default()
    }
}

/// Re-reads the PEM files of every endpoint of `endpoints` and makes the
/// new certificates, keys and CA certificates those of new connections;
/// open connections keep theirs. An endpoint whose files cannot be used
/// keeps its old configuration; the error, naming the setting and the
/// file, is logged and returned. What SIGHUP runs (and what a reload of
/// the whole configuration is to call).
pub fn reload_certificates(endpoints: &TlsEndpoints) -> Vec<(String, TlsError)> {
    let mut failed = Vec::new();
    let live = endpoints.live();
    for e in &live {
        match e.reload() {
            Ok(()) => tracing::info!(setting = e.setting(), "TLS certificates reloaded"),
            Err(err) => {
                tracing::error!(setting = e.setting(), error = %err,
                    "TLS certificates not reloaded: the old ones stay in use");
                failed.push((e.setting().to_string(), err));
            }
        }
    }
    failed
}

/// A listener's TLS: accepts connections with the current configuration.
pub struct TlsServer {
    setting: String,
    config: TlsConfig,
    alpn: Vec<Vec<u8>>,
    current: RwLock<Arc<ServerConfig>>,
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
            current: RwLock::new(Arc::new(built)),
        });
        let weak: Weak<dyn Reload> = Arc::downgrade(&(Arc::clone(&s) as Arc<dyn Reload>));
        endpoints.add(weak);
        Ok(s)
    }

    fn current(&self) -> Arc<ServerConfig> {
        match self.current.read() {
            Ok(c) => Arc::clone(&c),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// Runs the TLS handshake on `tcp` from `addr` (at most
    /// [`HANDSHAKE_TIMEOUT`]). Returns the stream and the peer with the
    /// subject DN of its certificate. Errors: the handshake failed (an
    /// untrusted, expired or missing client certificate, an old TLS
    /// version, ...) or timed out; the connection is then closed.
    pub async fn accept(
        &self,
        tcp: TcpStream,
        addr: SocketAddr,
    ) -> std::io::Result<(Stream, PeerIdentity)> {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.current());
        let tls = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp))
            .await
            .map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::TimedOut, "TLS handshake timed out")
            })??;
        let peer = PeerIdentity::of_certificates(addr, tls.get_ref().1.peer_certificates());
        Ok((Stream::Server(Box::new(tls)), peer))
    }
}

impl Reload for TlsServer {
    fn reload(&self) -> Result<(), TlsError> {
        let alpn: Vec<&[u8]> = self.alpn.iter().map(Vec::as_slice).collect();
        let built = Arc::new(server_config(&self.config, &alpn)?);
        match self.current.write() {
            Ok(mut c) => *c = built,
            Err(p) => *p.into_inner() = built,
        }
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
    current: RwLock<Arc<ClientConfig>>,
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
            current: RwLock::new(Arc::new(built)),
        });
        let weak: Weak<dyn Reload> = Arc::downgrade(&(Arc::clone(&c) as Arc<dyn Reload>));
        endpoints.add(weak);
        Ok(c)
    }

    fn current(&self) -> Arc<ClientConfig> {
        match self.current.read() {
            Ok(c) => Arc::clone(&c),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// The rustls configuration new connections use now (for clients that
    /// run TLS themselves, e.g. the NATS client).
    pub fn client_config(&self) -> Arc<ClientConfig> {
        self.current()
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
        let connector = tokio_rustls::TlsConnector::from(self.current());
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
        let built = Arc::new(client_config(&self.config)?);
        match self.current.write() {
            Ok(mut c) => *c = built,
            Err(p) => *p.into_inner() = built,
        }
        Ok(())
    }

    fn setting(&self) -> &str {
        &self.setting
    }
}
