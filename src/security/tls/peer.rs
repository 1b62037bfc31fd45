//! Who is at the other end of a connection, as the channel handshake code
//! sees it: the address, and the subject DN of the certificate the peer
//! presented over TLS.

use std::net::SocketAddr;

/// The peer of one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerIdentity {
    /// The peer's address.
    pub addr: SocketAddr,
    /// The subject DN of the peer's verified certificate
    /// (`CN=gw2,O=Example`, as [`super::dn::subject_dn`] writes it); `None`
    /// without TLS or when the peer sent no certificate.
    pub dn: Option<String>,
}

impl PeerIdentity {
    /// A peer without a certificate.
    pub fn plain(addr: SocketAddr) -> PeerIdentity {
        PeerIdentity { addr, dn: None }
    }

    /// The peer of a TLS connection whose peer certificates rustls verified
    /// (`certs`, end-entity first). A certificate whose subject cannot be
    /// decoded gives `None`, which no SSLPEER filter accepts.
    pub fn of_certificates(
        addr: SocketAddr,
        certs: Option<&[rustls::pki_types::CertificateDer<'_>]>,
    ) -> PeerIdentity {
        let dn = certs
            .and_then(|c| c.first())
            .and_then(|c| super::dn::subject_dn(c).ok());
        PeerIdentity { addr, dn }
    }
}
