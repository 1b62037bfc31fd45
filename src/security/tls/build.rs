//! The rustls configurations a `tls:` setting makes: a listener's
//! (its certificate, the client certificate check) and an outbound
//! connection's (the trust anchors, a client certificate).

use super::{ClientAuth, TlsConfig, TlsError, files, provider, versions};
use rustls::server::WebPkiClientVerifier;
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ServerConfig};
use std::sync::Arc;

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
