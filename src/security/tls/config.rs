//! The `tls:` setting, one shape for every listener and every outbound
//! connection (docs/security.md "TLS"), and the checks of its files that
//! `mqgate check-config` and the gateway's start make.

use super::TlsError;
use serde::Deserialize;
use std::fmt;
use std::path::PathBuf;

/// TLS for one listener or one outbound connection.
///
/// On a listener, `cert` and `key` are the gateway's own certificate chain
/// and private key, and `ca` the trust anchors for client certificates. On
/// an outbound connection, `ca` is the trust anchors for the server's
/// certificate (required) and `cert`/`key` an optional client certificate.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM file: the certificate chain, end-entity certificate first.
    pub cert: Option<PathBuf>,
    /// PEM file: the private key (PKCS#8, PKCS#1 RSA or SEC1 EC).
    pub key: Option<PathBuf>,
    /// PEM file: trust anchors (CA certificates) for the peer's certificate.
    pub ca: Option<PathBuf>,
    /// Listeners: whether a client certificate is asked for; default none.
    #[serde(default)]
    pub client_auth: ClientAuth,
    /// The lowest TLS version accepted: `"1.2"` (default) or `"1.3"`.
    /// TLS 1.0 and 1.1 are never accepted (RFC 8996).
    #[serde(default)]
    pub min_version: MinVersion,
    /// Outbound only: the name the server's certificate must carry
    /// (RFC 6125 DNS name or IP address); default the host connected to.
    pub server_name: Option<String>,
    /// IBM MQ CipherSpec names (SSLCIPH) or alias CipherSpecs that restrict
    /// the cipher suites offered and accepted ([`super::ciphers`]); empty:
    /// every suite of the ring provider.
    #[serde(default)]
    pub ciphers: Vec<String>,
    /// PEM files of certificate revocation lists (RFC 5280 section 5): a
    /// peer certificate they revoke is refused. One path or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    pub crl: Vec<PathBuf>,
}

/// A path or a list of paths.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(PathBuf),
        Many(Vec<PathBuf>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(p) => vec![p],
        OneOrMany::Many(v) => v,
    })
}

/// Whether a listener asks for a client certificate (mutual TLS).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ClientAuth {
    /// No client certificate is asked for.
    #[default]
    None,
    /// One is asked for; a client without one is accepted, a client with an
    /// untrusted one refused.
    Optional,
    /// A client without a trusted certificate is refused.
    Required,
}

/// The lowest TLS version a connection may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinVersion {
    /// TLS 1.2 (RFC 5246) and 1.3 (RFC 8446).
    #[default]
    Tls12,
    /// TLS 1.3 only.
    Tls13,
}

impl<'de> Deserialize<'de> for MinVersion {
    /// `"1.2"` or `"1.3"`; the unquoted YAML numbers `1.2` and `1.3` too.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = MinVersion;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"1.2\" or \"1.3\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<MinVersion, E> {
                match v {
                    "1.2" => Ok(MinVersion::Tls12),
                    "1.3" => Ok(MinVersion::Tls13),
                    other => Err(E::custom(format!(
                        "unknown TLS version {other:?}: expected \"1.2\" or \"1.3\" (older versions are never accepted)"
                    ))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<MinVersion, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

/// Which end of a connection a `tls:` setting configures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A listener: accepts TLS.
    Listener,
    /// An outbound connection: starts TLS.
    Outbound,
}

impl TlsConfig {
    /// What is wrong with the settings themselves (no file is read):
    /// `(key, message)`, the key relative to the `tls:` setting.
    pub fn problems(&self, side: Side) -> Vec<(String, String)> {
        let mut out = Vec::new();
        self.cipher_problems(&mut out);
        match side {
            Side::Listener => {
                if self.cert.is_none() {
                    out.push(("cert".into(), "a listener needs its certificate".into()));
                }
                if self.key.is_none() {
                    out.push(("key".into(), "a listener needs its private key".into()));
                }
                if self.client_auth != ClientAuth::None && self.ca.is_none() {
                    out.push((
                        "ca".into(),
                        "client_auth optional or required needs the CA certificates that client certificates are checked against".into(),
                    ));
                }
                if self.server_name.is_some() {
                    out.push((
                        "server_name".into(),
                        "only outbound connections check a server name".into(),
                    ));
                }
                if !self.crl.is_empty() && self.client_auth == ClientAuth::None {
                    out.push((
                        "crl".into(),
                        "revocation lists are checked on client certificates: needs client_auth optional or required".into(),
                    ));
                }
            }
            Side::Outbound => {
                if self.ca.is_none() {
                    out.push((
                        "ca".into(),
                        "an outbound connection needs the CA certificates the server's certificate is checked against".into(),
                    ));
                }
                if self.cert.is_some() != self.key.is_some() {
                    let missing = if self.cert.is_none() { "cert" } else { "key" };
                    out.push((
                        missing.into(),
                        "a client certificate needs both cert and key".into(),
                    ));
                }
                if self.client_auth != ClientAuth::None {
                    out.push((
                        "client_auth".into(),
                        "only listeners ask for client certificates".into(),
                    ));
                }
                if let Some(n) = &self.server_name
                    && rustls::pki_types::ServerName::try_from(n.as_str()).is_err()
                {
                    out.push((
                        "server_name".into(),
                        format!("{n:?} is not a DNS name or an IP address"),
                    ));
                }
            }
        }
        out
    }

    /// Names of `ciphers` that are no usable CipherSpec, and a list whose
    /// CipherSpecs all belong to a version `min_version` excludes.
    fn cipher_problems(&self, out: &mut Vec<(String, String)>) {
        let mut all_known = true;
        for (i, name) in self.ciphers.iter().enumerate() {
            if let Err(e) = super::ciphers::check(name) {
                out.push((format!("ciphers[{i}]"), e.to_string()));
                all_known = false;
            }
        }
        if all_known
            && let Ok(suites) = super::ciphers::suites(&self.ciphers)
            && super::ciphers::versions(super::versions(self.min_version), &suites).is_empty()
        {
            out.push((
                "ciphers".into(),
                "no CipherSpec of the list runs on TLS 1.3, the only version min_version \"1.3\" allows".into(),
            ));
        }
    }

    /// What is wrong with the files: each is read and parsed as PEM, the
    /// key checked against the certificate. `(key, message)` as
    /// [`TlsConfig::problems`], which should be empty first.
    pub fn file_problems(&self, side: Side) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut unusable_ciphers = None;
        let mut note = |key: &str, e: TlsError| out.push((key.to_string(), e.to_string()));
        // Each file on its own first, so an error is placed at its setting.
        let cert_ok = match &self.cert {
            Some(c) => super::files::certificates(c)
                .map_err(|e| note("cert", e))
                .is_ok(),
            None => false,
        };
        let key_ok = match &self.key {
            Some(k) => super::files::private_key(k)
                .map_err(|e| note("key", e))
                .is_ok(),
            None => false,
        };
        if let (true, true, Some(cert), Some(key)) = (cert_ok, key_ok, &self.cert, &self.key) {
            match super::files::certified_key(cert, key) {
                Err(e) => note("key", e),
                // A listener's certificate must suit a suite it offers.
                Ok(certified) if side == Side::Listener => {
                    if let Ok(suites) = super::ciphers::suites(&self.ciphers) {
                        let versions =
                            super::ciphers::versions(super::versions(self.min_version), &suites);
                        if let Err(e) = super::ciphers::usable_with_key(
                            &suites,
                            &versions,
                            certified.key.algorithm(),
                        ) {
                            unusable_ciphers = Some(format!("{}: {e}", cert.display()));
                        }
                    }
                }
                Ok(_) => {}
            }
        }
        if let Some(ca) = &self.ca
            && let Err(e) = super::files::roots(ca)
        {
            note("ca", e);
        }
        let mut crls_ok = true;
        for (i, crl) in self.crl.iter().enumerate() {
            if let Err(e) = super::files::crls(crl) {
                let key = if self.crl.len() == 1 {
                    "crl".to_string()
                } else {
                    format!("crl[{i}]")
                };
                note(&key, e);
                crls_ok = false;
            }
        }
        if crls_ok && let Err(e) = super::build::check_crls(self) {
            note("crl", e);
        }
        if let Some(e) = unusable_ciphers {
            out.push(("ciphers".into(), e));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TlsConfig, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn min_version_takes_strings_and_yaml_numbers() {
        assert_eq!(
            parse("min_version: \"1.3\"").unwrap().min_version,
            MinVersion::Tls13
        );
        assert_eq!(
            parse("min_version: 1.2").unwrap().min_version,
            MinVersion::Tls12
        );
        assert_eq!(parse("{}").unwrap().min_version, MinVersion::Tls12);
        let e = parse("min_version: \"1.1\"").unwrap_err();
        assert!(e.contains("unknown TLS version \"1.1\""), "{e}");
    }

    #[test]
    fn a_listener_needs_cert_and_key_and_ca_for_client_auth() {
        let c = parse("client_auth: required").unwrap();
        let keys: Vec<String> = c
            .problems(Side::Listener)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["cert", "key", "ca"]);
        let ok = parse("{cert: a.pem, key: k.pem}").unwrap();
        assert!(ok.problems(Side::Listener).is_empty());
    }

    #[test]
    fn each_file_error_is_placed_at_its_own_setting() {
        let dir = tempfile::tempdir().unwrap();
        let cert = dir.path().join("c.pem");
        std::fs::write(&cert, "-----BEGIN CERTIFICATE-----\nAAAA\n").unwrap();
        let c = TlsConfig {
            cert: Some(cert.clone()),
            key: Some(dir.path().join("k.pem")),
            ca: Some(dir.path().join("ca.pem")),
            ..TlsConfig::default()
        };
        let p = c.file_problems(Side::Listener);
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["cert", "key", "ca"], "{p:?}");
        assert!(
            p[0].1
                .starts_with(&format!("{}: not PEM certificates", cert.display())),
            "{p:?}"
        );
        // ENOENT's text as the operating system gives it.
        assert!(
            p[1].1
                .ends_with("k.pem: cannot read: No such file or directory (os error 2)"),
            "{p:?}"
        );
    }

    #[test]
    fn an_outbound_connection_needs_ca_and_both_halves_of_a_client_certificate() {
        let c = parse("{cert: c.pem, client_auth: optional, server_name: 'a b'}").unwrap();
        let keys: Vec<String> = c
            .problems(Side::Outbound)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["ca", "key", "client_auth", "server_name"]);
        let ok = parse("{ca: ca.pem, server_name: gw2.example}").unwrap();
        assert!(ok.problems(Side::Outbound).is_empty());
    }

    #[test]
    fn ciphers_are_checked_by_name_and_against_min_version() {
        // IBM MQ "Enabling CipherSpecs": TLS_RSA_WITH_AES_256_GCM_SHA384 is
        // a TLS 1.2 CipherSpec with RSA key exchange; ANY_TLS12 an alias of
        // every TLS 1.2 one ("Alias CipherSpecs").
        let c = parse("{cert: c.pem, key: k.pem, ciphers: [TLS_AES_128_GCM_SHA256, TLS_RSA_WITH_AES_256_GCM_SHA384, ROT13]}").unwrap();
        let p = c.problems(Side::Listener);
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ciphers[1]", "ciphers[2]"], "{p:?}");
        assert!(p[0].1.contains("RSA key exchange"), "{p:?}");
        assert!(
            p[1].1.starts_with(
                "unknown CipherSpec \"ROT13\"; expected one of TLS_AES_128_GCM_SHA256, "
            ),
            "{p:?}"
        );
        let c = parse("{ca: ca.pem, min_version: '1.3', ciphers: [ANY_TLS12]}").unwrap();
        let p = c.problems(Side::Outbound);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].0, "ciphers");
        assert!(
            parse("{ca: ca.pem, ciphers: [ANY_TLS12_OR_HIGHER]}")
                .unwrap()
                .problems(Side::Outbound)
                .is_empty()
        );
    }

    #[test]
    fn crl_takes_one_path_or_a_list_and_needs_client_auth_on_a_listener() {
        assert_eq!(parse("crl: a.crl").unwrap().crl, [PathBuf::from("a.crl")]);
        assert_eq!(parse("crl: [a.crl, b.crl]").unwrap().crl.len(), 2);
        let c = parse("{cert: c.pem, key: k.pem, crl: a.crl}").unwrap();
        let keys: Vec<String> = c
            .problems(Side::Listener)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["crl"]);
    }
}
