//! Reading the PEM files of a `tls:` setting (RFC 7468 textual encoding):
//! certificate chains, private keys and trust anchors, each error naming
//! the file.

use super::TlsError;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, CertificateRevocationListDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use std::path::Path;
use std::sync::Arc;

/// Every certificate of the PEM file `path`, in file order. Errors: the
/// file cannot be read, a PEM section is malformed, or it holds none.
pub fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bytes = read(path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Pem {
            file: path.to_path_buf(),
            what: format!("not PEM certificates: {e}"),
        })?;
    if certs.is_empty() {
        return Err(TlsError::Pem {
            file: path.to_path_buf(),
            what: "holds no CERTIFICATE section".into(),
        });
    }
    Ok(certs)
}

/// The first private key of the PEM file `path` (PKCS#8, PKCS#1 or SEC1).
pub fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let bytes = read(path)?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| TlsError::Key {
        file: path.to_path_buf(),
        what: format!("no usable PEM private key: {e}"),
    })
}

/// The certificate chain of `cert` with the private key of `key`, checked
/// to belong together (the key's public key is the certificate's).
pub fn certified_key(cert: &Path, key: &Path) -> Result<Arc<CertifiedKey>, TlsError> {
    let chain = certificates(cert)?;
    let der = private_key(key)?;
    let provider = super::provider();
    let signing = provider
        .key_provider
        .load_private_key(der)
        .map_err(|e| TlsError::Key {
            file: key.to_path_buf(),
            what: format!("the key cannot be used: {e}"),
        })?;
    let ck = CertifiedKey::new(chain, signing);
    match ck.keys_match() {
        Ok(()) => {}
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {}
        Err(rustls::Error::InconsistentKeys(_)) => {
            return Err(TlsError::KeyMismatch {
                cert: cert.to_path_buf(),
                key: key.to_path_buf(),
            });
        }
        Err(e) => {
            return Err(TlsError::Pem {
                file: cert.to_path_buf(),
                what: format!("the certificate cannot be used: {e}"),
            });
        }
    }
    Ok(Arc::new(ck))
}

/// The trust anchors of the PEM file `path`. Errors: as [`certificates`],
/// or a certificate that is not a usable trust anchor.
pub fn roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let mut store = RootCertStore::empty();
    for c in certificates(path)? {
        store.add(c).map_err(|e| TlsError::Pem {
            file: path.to_path_buf(),
            what: format!("not a usable CA certificate: {e}"),
        })?;
    }
    Ok(store)
}

/// Every certificate revocation list of the PEM file `path` (`X509 CRL`
/// sections, RFC 7468 section 6), in file order. Errors: the file cannot be
/// read, a section is malformed, or it holds none. The lists are parsed
/// when a verifier is built with them ([`super::build`]), their signatures
/// checked against the issuing CA when a certificate is.
pub fn crls(path: &Path) -> Result<Vec<CertificateRevocationListDer<'static>>, TlsError> {
    let bytes = read(path)?;
    let crls = CertificateRevocationListDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Pem {
            file: path.to_path_buf(),
            what: format!("not PEM revocation lists: {e}"),
        })?;
    if crls.is_empty() {
        return Err(TlsError::Pem {
            file: path.to_path_buf(),
            what: "holds no X509 CRL section".into(),
        });
    }
    Ok(crls)
}

/// The revocation lists of every file of `paths`.
pub fn all_crls(
    paths: &[std::path::PathBuf],
) -> Result<Vec<CertificateRevocationListDer<'static>>, TlsError> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(crls(p)?);
    }
    Ok(out)
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| TlsError::Read {
        file: path.to_path_buf(),
        error: e.to_string(),
    })
}
