//! The rustls configurations a `tls:` setting makes: a listener's
//! (its certificate, the client certificate check) and an outbound
//! connection's (the trust anchors, a client certificate), each with the
//! cipher suites of its `ciphers` and the revocation lists of its `crl`.

use super::{ClientAuth, TlsConfig, TlsError, ciphers, files, versions};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, ServerConfig, SupportedProtocolVersion};
use std::sync::Arc;

/// The one certificate a listener presents.
#[derive(Debug)]
struct Fixed(Arc<CertifiedKey>);

impl rustls::server::ResolvesServerCert for Fixed {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }
}

/// The ring provider with the suites `c.ciphers` allows, and the TLS
/// versions of `c.min_version` those suites run on.
fn provider_and_versions(
    c: &TlsConfig,
) -> Result<(Arc<CryptoProvider>, Vec<&'static SupportedProtocolVersion>), TlsError> {
    let suites =
        ciphers::suites(&c.ciphers).map_err(|e| TlsError::Setting(format!("ciphers: {e}")))?;
    let versions = ciphers::versions(versions(c.min_version), &suites);
    if versions.is_empty() {
        return Err(TlsError::Setting(
            "ciphers: no CipherSpec of the list runs on a TLS version min_version allows".into(),
        ));
    }
    let provider = CryptoProvider {
        cipher_suites: suites,
        ..rustls::crypto::ring::default_provider()
    };
    Ok((Arc::new(provider), versions))
}

/// The error of a verifier that cannot be built from `c`'s `ca` and `crl`.
fn verifier_error(c: &TlsConfig, e: rustls::client::VerifierBuilderError) -> TlsError {
    match (&e, c.crl.as_slice()) {
        (rustls::client::VerifierBuilderError::InvalidCrl(_), [one]) => TlsError::Pem {
            file: one.clone(),
            what: format!("not a usable revocation list: {e}"),
        },
        (rustls::client::VerifierBuilderError::InvalidCrl(_), _) => TlsError::Setting(format!(
            "crl: {}: {e}",
            c.crl
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => TlsError::Pem {
            file: c.ca.clone().unwrap_or_default(),
            what: format!("cannot check certificates: {e}"),
        },
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
    let (provider, versions) = provider_and_versions(c)?;
    ciphers::usable_with_key(
        &provider.cipher_suites,
        &versions,
        certified.key.algorithm(),
    )
    .map_err(|e| TlsError::Setting(format!("ciphers: {}: {e}", cert.display())))?;
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&versions)
        .map_err(|e| TlsError::Setting(e.to_string()))?;
    let builder = match (c.client_auth, &c.ca) {
        (ClientAuth::None, _) => builder.with_no_client_auth(),
        (auth, Some(ca)) => {
            let roots = Arc::new(files::roots(ca)?);
            let mut v = WebPkiClientVerifier::builder_with_provider(roots, provider)
                .with_crls(files::all_crls(&c.crl)?);
            if auth == ClientAuth::Optional {
                v = v.allow_unauthenticated();
            }
            builder.with_client_cert_verifier(v.build().map_err(|e| verifier_error(c, e))?)
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

/// The check of a server's certificate an outbound connection makes: the
/// chain to `ca`, and the revocation lists of `crl`.
fn server_verifier(
    c: &TlsConfig,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, TlsError> {
    let Some(ca) = &c.ca else {
        return Err(TlsError::Setting(
            "an outbound TLS connection needs ca".into(),
        ));
    };
    let roots = Arc::new(files::roots(ca)?);
    WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(provider))
        .with_crls(files::all_crls(&c.crl)?)
        .build()
        .map_err(|e| verifier_error(c, e))
}

/// Whether the revocation lists of `c` can be used with its `ca` (for
/// `check-config`: the lists are parsed as a verifier is built).
pub(super) fn check_crls(c: &TlsConfig) -> Result<(), TlsError> {
    if c.crl.is_empty() || c.ca.is_none() {
        return Ok(());
    }
    server_verifier(c, &super::provider()).map(|_| ())
}

/// Builds an outbound connection's rustls configuration from `c`.
pub fn client_config(c: &TlsConfig) -> Result<ClientConfig, TlsError> {
    let (provider, versions) = provider_and_versions(c)?;
    let verifier = server_verifier(c, &provider)?;
    let builder = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| TlsError::Setting(e.to_string()))?
        .with_webpki_verifier(verifier);
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
