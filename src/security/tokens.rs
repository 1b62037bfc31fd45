//! Bearer tokens (RFC 6750 "The OAuth 2.0 Authorization Framework: Bearer
//! Token Usage"): the gateway keeps only each token's SHA-256 and the
//! principal it authenticates; a presented token is hashed and compared with
//! every stored digest in constant time.

use super::Principal;
use sha2::{Digest, Sha256};
use std::path::Path;
use subtle::ConstantTimeEq;

/// A SHA-256 digest, 32 bytes.
pub type Sha256Digest = [u8; 32];

/// The tokens the gateway accepts. A configuration reload replaces them,
/// with the grants, in one step (src/security/credentials.rs).
#[derive(Debug, Default)]
pub struct Tokens {
    entries: std::sync::RwLock<Vec<(Sha256Digest, Principal)>>,
}

/// Parses a digest written as 64 hex digits (any case). Errors say what is
/// wrong.
pub fn parse_digest(text: &str) -> Result<Sha256Digest, String> {
    let mut out = [0u8; 32];
    if text.len() != 64 {
        return Err(format!(
            "a SHA-256 digest is 64 hex digits, not {} characters",
            text.len()
        ));
    }
    hex::decode_to_slice(text, &mut out)
        .map_err(|e| format!("a SHA-256 digest is 64 hex digits: {e}"))?;
    Ok(out)
}

/// SHA-256 of `token` as 64 lowercase hex digits (what `sha256sum` prints
/// for the token's bytes without a newline).
pub fn digest_hex(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Tokens {
    /// The inline tokens of the `security:` section. Errors: (setting
    /// path, message) as [`super::config::SecurityConfig::problems`].
    pub fn from_config(c: &super::config::SecurityConfig) -> Result<Tokens, String> {
        let mut entries = Vec::new();
        for (i, e) in c.tokens.iter().enumerate() {
            let d = parse_digest(&e.sha256).map_err(|m| format!("security.tokens[{i}]: {m}"))?;
            entries.push((d, Principal::new(&e.principal)?));
        }
        if let Some(f) = &c.tokens_file {
            entries.extend(load_file(f)?);
        }
        Ok(Tokens {
            entries: std::sync::RwLock::new(entries),
        })
    }

    fn entries(&self) -> std::sync::RwLockReadGuard<'_, Vec<(Sha256Digest, Principal)>> {
        self.entries.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The principal `token` authenticates, or `None`. Every stored digest
    /// is compared, each in constant time, so the time taken does not tell
    /// which digest (or how much of one) matched.
    pub fn authenticate(&self, token: &str) -> Option<Principal> {
        let d: Sha256Digest = Sha256::digest(token.as_bytes()).into();
        let mut found = None;
        for (stored, p) in self.entries().iter() {
            if bool::from(stored.ct_eq(&d)) && found.is_none() {
                found = Some(p.clone());
            }
        }
        found
    }
}

/// Reads a tokens file: one `SHA256HEX PRINCIPAL` a line; `#` starts a
/// comment line; blank lines are skipped. Errors name the file and line.
pub fn load_file(path: &Path) -> Result<Vec<(Sha256Digest, Principal)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: String| format!("{}:{}: {m}", path.display(), i + 1);
        let mut parts = line.split_whitespace();
        let (Some(digest), Some(principal), None) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(at("expected `SHA256HEX PRINCIPAL`".into()));
        };
        let d = parse_digest(digest).map_err(at)?;
        out.push((d, Principal::new(principal).map_err(at)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_known_by_its_sha256() {
        // FIPS 180-4 test vector: SHA-256("abc") =
        // ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.
        assert_eq!(
            digest_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let c = super::super::config::SecurityConfig {
            tokens: vec![super::super::config::TokenEntry {
                principal: "app1".into(),
                sha256: "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD".into(),
            }],
            ..Default::default()
        };
        let t = Tokens::from_config(&c).unwrap();
        assert_eq!(t.authenticate("abc").unwrap().name(), "app1");
        assert!(t.authenticate("abd").is_none());
        assert!(t.authenticate("").is_none());
    }

    #[test]
    fn a_tokens_file_names_its_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tokens");
        std::fs::write(
            &f,
            "# app tokens\n\nba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad device:DEV0001\nnot-hex app2\n",
        )
        .unwrap();
        let e = load_file(&f).unwrap_err();
        assert!(
            e.ends_with(":4: a SHA-256 digest is 64 hex digits, not 7 characters"),
            "{e}"
        );
        std::fs::write(
            &f,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad device:DEV0001\n",
        )
        .unwrap();
        let v = load_file(&f).unwrap();
        assert_eq!(v[0].1.device(), Some("DEV0001"));
    }
}
