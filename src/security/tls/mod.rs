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

mod build;
pub mod ciphers;
pub mod config;
pub mod dn;
mod endpoint;
pub mod files;
pub mod peer;
mod reload;
pub mod sslpeer;
pub mod stream;

pub use build::{client_config, server_config};
pub use config::{ClientAuth, MinVersion, Side, TlsConfig};
pub use endpoint::{ClientTls, NoCommonVersion, TlsClient, TlsServer, rustls_detail};
pub use peer::PeerIdentity;
pub use reload::{TlsEndpoints, reload_certificates};
pub use sslpeer::SslPeer;
pub use stream::Stream;

use rustls::crypto::CryptoProvider;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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

pub(crate) fn versions(min: MinVersion) -> &'static [&'static rustls::SupportedProtocolVersion] {
    match min {
        MinVersion::Tls12 => &FROM_1_2,
        MinVersion::Tls13 => &FROM_1_3,
    }
}

/// How long a TLS handshake may take before the connection is dropped.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
