//! IBM MQ CipherSpec names (SSLCIPH) for the `ciphers` of a `tls:` setting
//! (docs/security.md "CipherSpecs"): which rustls cipher suites of the ring
//! provider each name allows, and why the names rustls cannot do are
//! refused.
//!
//! The names and their protocols are those of IBM MQ "Enabling
//! CipherSpecs", "Alias CipherSpecs" and "Deprecated and removed
//! CipherSpecs"; the suites they stand for are the IANA TLS cipher suites
//! of the same hexadecimal code (IBM MQ "CipherSpec order in TLS
//! handshake").

use rustls::{CipherSuite, SupportedCipherSuite, SupportedProtocolVersion};

/// A TLS protocol version as a CipherSpec names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    Tls12,
    Tls13,
}

/// The CipherSpecs rustls can do, each one IANA cipher suite.
const SPECS: &[(&str, CipherSuite)] = &[
    (
        "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_AES_128_GCM_SHA256,
    ),
    (
        "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_256_GCM_SHA384,
    ),
    (
        "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    ),
    (
        "ECDHE_ECDSA_AES_128_GCM_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "ECDHE_ECDSA_AES_256_GCM_SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "ECDHE_ECDSA_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
    (
        "ECDHE_RSA_AES_128_GCM_SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "ECDHE_RSA_AES_256_GCM_SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "ECDHE_RSA_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
];

/// The alias CipherSpecs (IBM MQ "Alias CipherSpecs"): every suite of the
/// protocols they name. `ANY` would allow SSL 3.0 to TLS 1.1 in IBM MQ;
/// those are never accepted here (RFC 7568, RFC 8996), so it is
/// `ANY_TLS12_OR_HIGHER`.
const ALIASES: &[(&str, &[Protocol])] = &[
    ("ANY", &[Protocol::Tls12, Protocol::Tls13]),
    ("ANY_TLS12", &[Protocol::Tls12]),
    ("ANY_TLS12_OR_HIGHER", &[Protocol::Tls12, Protocol::Tls13]),
    ("ANY_TLS13", &[Protocol::Tls13]),
    ("ANY_TLS13_OR_HIGHER", &[Protocol::Tls13]),
];

const RSA_KX: &str = "RSA key exchange (no forward secrecy), which rustls does not offer";
const CBC: &str = "CBC mode, which rustls does not offer (AES-GCM and ChaCha20-Poly1305 only)";
const WEAK: &str = "a cipher rustls does not offer (3DES, RC4 or no encryption)";
const CCM: &str = "AES-CCM, which rustls does not offer";
const TLS10: &str = "TLS 1.0, which is never accepted (RFC 8996)";
const SSL3: &str = "SSL 3.0, which is never accepted (RFC 7568)";

/// CipherSpecs IBM MQ knows that rustls cannot do, and why.
const REFUSED: &[(&str, &str)] = &[
    ("TLS_AES_128_CCM_SHA256", CCM),
    ("TLS_AES_128_CCM_8_SHA256", CCM),
    ("TLS_RSA_WITH_AES_128_GCM_SHA256", RSA_KX),
    ("TLS_RSA_WITH_AES_256_GCM_SHA384", RSA_KX),
    ("TLS_RSA_WITH_AES_128_CBC_SHA256", RSA_KX),
    ("TLS_RSA_WITH_AES_256_CBC_SHA256", RSA_KX),
    ("TLS_RSA_WITH_NULL_SHA256", RSA_KX),
    ("ECDHE_ECDSA_AES_128_CBC_SHA256", CBC),
    ("ECDHE_ECDSA_AES_256_CBC_SHA384", CBC),
    ("ECDHE_RSA_AES_128_CBC_SHA256", CBC),
    ("ECDHE_RSA_AES_256_CBC_SHA384", CBC),
    ("ECDHE_ECDSA_3DES_EDE_CBC_SHA256", WEAK),
    ("ECDHE_RSA_3DES_EDE_CBC_SHA256", WEAK),
    ("ECDHE_ECDSA_RC4_128_SHA256", WEAK),
    ("ECDHE_RSA_RC4_128_SHA256", WEAK),
    ("ECDHE_ECDSA_NULL_SHA256", WEAK),
    ("ECDHE_RSA_NULL_SHA256", WEAK),
    ("TLS_RSA_WITH_AES_128_CBC_SHA", TLS10),
    ("TLS_RSA_WITH_AES_256_CBC_SHA", TLS10),
    ("TLS_RSA_WITH_DES_CBC_SHA", TLS10),
    ("TLS_RSA_WITH_3DES_EDE_CBC_SHA", TLS10),
    ("FIPS_WITH_DES_CBC_SHA", SSL3),
    ("FIPS_WITH_3DES_EDE_CBC_SHA", SSL3),
    ("AES_SHA_US", SSL3),
    ("DES_SHA_EXPORT", SSL3),
    ("DES_SHA_EXPORT1024", SSL3),
    ("NULL_MD5", SSL3),
    ("NULL_SHA", SSL3),
    ("RC2_MD5_EXPORT", SSL3),
    ("RC4_MD5_EXPORT", SSL3),
    ("RC4_MD5_US", SSL3),
    ("RC4_SHA_US", SSL3),
    ("RC4_56_SHA_EXPORT1024", SSL3),
    ("TRIPLE_DES_SHA_US", SSL3),
];

/// Why a CipherSpec name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CipherSpecError {
    /// An IBM MQ CipherSpec rustls cannot do.
    #[error("CipherSpec {name} uses {why}; expected one of {}", valid_names())]
    Unsupported {
        /// The name as given.
        name: String,
        /// What rustls lacks.
        why: &'static str,
    },
    /// Not a CipherSpec name.
    #[error("unknown CipherSpec {name:?}; expected one of {}", valid_names())]
    Unknown {
        /// The name as given.
        name: String,
    },
}

/// Every name [`suites`] takes, aliases last, comma-separated.
pub fn valid_names() -> String {
    SPECS
        .iter()
        .map(|(n, _)| *n)
        .chain(ALIASES.iter().map(|(n, _)| *n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `name` is a CipherSpec (or alias) rustls can do, in the case
/// IBM MQ writes it (SSLCIPH values are upper case; any case is taken).
pub fn check(name: &str) -> Result<(), CipherSpecError> {
    lookup(name).map(|_| ())
}

/// The name as IBM MQ writes it (upper case), for a CipherSpec or alias
/// rustls can do. Errors: as [`check`].
pub fn canonical(name: &str) -> Result<&'static str, CipherSpecError> {
    lookup(name).map(|(n, _)| n)
}

/// What a name stands for: its suite, or the protocols of an alias.
enum Meaning {
    Suite(CipherSuite),
    Protocols(&'static [Protocol]),
}

fn lookup(name: &str) -> Result<(&'static str, Meaning), CipherSpecError> {
    let upper = name.trim().to_ascii_uppercase();
    if let Some((n, s)) = SPECS.iter().find(|(n, _)| *n == upper) {
        return Ok((n, Meaning::Suite(*s)));
    }
    if let Some((n, p)) = ALIASES.iter().find(|(n, _)| *n == upper) {
        return Ok((n, Meaning::Protocols(p)));
    }
    match REFUSED.iter().find(|(n, _)| *n == upper) {
        Some((_, why)) => Err(CipherSpecError::Unsupported {
            name: name.to_string(),
            why,
        }),
        None => Err(CipherSpecError::Unknown {
            name: name.to_string(),
        }),
    }
}

fn protocol(s: &SupportedCipherSuite) -> Protocol {
    if s.version() == &rustls::version::TLS13 {
        Protocol::Tls13
    } else {
        Protocol::Tls12
    }
}

/// The suites of the ring provider (`rustls::crypto::ring::ALL_CIPHER_SUITES`,
/// in its order of preference) that the CipherSpecs `names` allow; every
/// suite when `names` is empty. Errors: the first name that is not a
/// usable CipherSpec.
pub fn suites(names: &[String]) -> Result<Vec<SupportedCipherSuite>, CipherSpecError> {
    let all = rustls::crypto::ring::ALL_CIPHER_SUITES;
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let meanings = names
        .iter()
        .map(|n| lookup(n).map(|(_, m)| m))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(all
        .iter()
        .filter(|s| {
            meanings.iter().any(|m| match m {
                Meaning::Suite(id) => s.suite() == *id,
                Meaning::Protocols(p) => p.contains(&protocol(s)),
            })
        })
        .copied()
        .collect())
}

/// Whether a listener whose private key signs with `key` can run one of
/// `suites` on one of `versions`: every TLS 1.3 suite can; a TLS 1.2 suite
/// only with the key its name says (`ECDHE_ECDSA_*` an EC key, `ECDHE_RSA_*`
/// an RSA key; IBM MQ "Enabling CipherSpecs", RFC 8422 §2). Errors: why
/// not, naming the key's algorithm and the CipherSpecs' key type.
pub fn usable_with_key(
    suites: &[SupportedCipherSuite],
    versions: &[&'static SupportedProtocolVersion],
    key: rustls::SignatureAlgorithm,
) -> Result<(), String> {
    let usable = suites
        .iter()
        .any(|s| versions.contains(&s.version()) && s.usable_for_signature_algorithm(key));
    if usable {
        return Ok(());
    }
    let wants = if suites
        .iter()
        .any(|s| s.usable_for_signature_algorithm(rustls::SignatureAlgorithm::RSA))
    {
        "an RSA"
    } else {
        "an EC (ECDSA)"
    };
    Err(format!(
        "every CipherSpec of the list needs {wants} certificate, and this certificate's key is {key:?}: no client could complete a handshake"
    ))
}

/// The versions of `allowed` (those `min_version` lets through) that at
/// least one of `suites` can run: a CipherSpec of one protocol fixes the
/// protocol, as in IBM MQ.
pub fn versions(
    allowed: &'static [&'static SupportedProtocolVersion],
    suites: &[SupportedCipherSuite],
) -> Vec<&'static SupportedProtocolVersion> {
    allowed
        .iter()
        .filter(|v| suites.iter().any(|s| s.version() == **v))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<CipherSuite> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        suites(&names).unwrap().iter().map(|s| s.suite()).collect()
    }

    #[test]
    fn names_map_to_the_iana_suite_of_the_same_code() {
        // IBM MQ "CipherSpec order in TLS handshake": TLS_AES_256_GCM_SHA384
        // is 1302, ECDHE_RSA_AES_256_GCM_SHA384 C030 (RFC 8446 B.4, RFC 5289).
        assert_eq!(
            ids(&["TLS_AES_256_GCM_SHA384"]),
            [CipherSuite::TLS13_AES_256_GCM_SHA384]
        );
        assert_eq!(u16::from(CipherSuite::TLS13_AES_256_GCM_SHA384), 0x1302);
        assert_eq!(u16::from(ids(&["ecdhe_rsa_aes_256_gcm_sha384"])[0]), 0xC030);
    }

    #[test]
    fn aliases_take_every_suite_of_their_protocols() {
        assert_eq!(ids(&["ANY_TLS13"]).len(), 3);
        assert_eq!(ids(&["ANY_TLS13_OR_HIGHER"]).len(), 3);
        assert_eq!(ids(&["ANY_TLS12"]).len(), 6);
        assert_eq!(ids(&["ANY_TLS12_OR_HIGHER"]).len(), 9);
        assert_eq!(ids(&[]).len(), 9);
        let only12 = suites(&["ANY_TLS12".into()]).unwrap();
        let v = versions(super::super::versions(Default::default()), &only12);
        assert_eq!(v, [&rustls::version::TLS12]);
    }

    #[test]
    fn what_rustls_cannot_do_is_refused_with_its_reason() {
        let e = check("TLS_RSA_WITH_AES_256_GCM_SHA384").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("CipherSpec TLS_RSA_WITH_AES_256_GCM_SHA384 uses RSA key exchange"),
            "{e}"
        );
        assert!(e.to_string().contains("ANY_TLS12_OR_HIGHER"), "{e}");
        assert!(matches!(
            check("TLS_RSA_WITH_AES_128_CBC_SHA"),
            Err(CipherSpecError::Unsupported { why: TLS10, .. })
        ));
        assert!(matches!(
            check("ECDHE_RSA_AES_256_CBC_SHA384"),
            Err(CipherSpecError::Unsupported { why: CBC, .. })
        ));
        assert!(matches!(
            check("PINK"),
            Err(CipherSpecError::Unknown { .. })
        ));
    }
}
