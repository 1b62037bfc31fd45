//! Device passwords (docs/mqtt.md "Authentication"): a password file in the
//! format of the mosquitto broker's `password_file`, written with
//! `mosquitto_passwd` (Debian `mosquitto`): one line `NAME:HASH` per
//! device, NAME its client identifier, HASH `$7$ITERATIONS$SALT$HASH`
//! (PBKDF2-HMAC-SHA512 of the password, base64 salt and hash; mosquitto
//! 2.0's default) or `$6$SALT$HASH` (SHA-512 of the password then the
//! salt; mosquitto 1.x). No device is defined in mqgate's own
//! configuration: the file is the only per-device data.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha512};
use std::collections::HashMap;
use std::path::Path;

/// One stored password hash.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Hash {
    /// `$7$`: PBKDF2-HMAC-SHA512 with this many iterations.
    Pbkdf2 {
        iterations: u32,
        salt: Vec<u8>,
        hash: Vec<u8>,
    },
    /// `$6$`: SHA-512(password, salt).
    Sha512 { salt: Vec<u8>, hash: Vec<u8> },
}

/// The most iterations accepted for a `$7$` hash: a file cannot make a
/// CONNECT cost more than this (mosquitto_passwd writes 101).
const MAX_ITERATIONS: u32 = 1_000_000;

impl Hash {
    fn parse(text: &str) -> Result<Hash, String> {
        let b64 = |s: &str, what: &str| {
            STANDARD
                .decode(s)
                .map_err(|e| format!("{what} is not base64: {e}"))
        };
        let parts: Vec<&str> = text.split('$').collect();
        match parts.as_slice() {
            ["", "7", iterations, salt, hash] => {
                let iterations: u32 = iterations
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_ITERATIONS).contains(n))
                    .ok_or_else(|| {
                        format!("iterations {iterations:?} is not 1 to {MAX_ITERATIONS}")
                    })?;
                Ok(Hash::Pbkdf2 {
                    iterations,
                    salt: b64(salt, "the salt")?,
                    hash: b64(hash, "the hash")?,
                })
            }
            ["", "6", salt, hash] => Ok(Hash::Sha512 {
                salt: b64(salt, "the salt")?,
                hash: b64(hash, "the hash")?,
            }),
            _ => Err("not a mosquitto_passwd hash ($7$... or $6$...)".into()),
        }
    }

    fn matches(&self, password: &[u8]) -> bool {
        let (want, got) = match self {
            Hash::Pbkdf2 {
                iterations,
                salt,
                hash,
            } => {
                let mut out = vec![0u8; hash.len()];
                pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, *iterations, &mut out);
                (hash, out)
            }
            Hash::Sha512 { salt, hash } => {
                let mut d = Sha512::new();
                d.update(password);
                d.update(salt);
                (hash, d.finalize().to_vec())
            }
        };
        // Compared in time independent of where they differ.
        want.len() == got.len() && want.iter().zip(&got).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// The passwords of the devices.
#[derive(Debug)]
pub struct Passwords {
    entries: HashMap<String, Hash>,
}

impl Passwords {
    /// Reads a password file (blank lines and `#` comments allowed).
    /// Errors: the file cannot be read, or a line is not `NAME:HASH` of a
    /// known hash (the message names the file, line and problem).
    pub fn load(path: &Path) -> Result<Passwords, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("mqtt.password_file {}: cannot read: {e}", path.display()))?;
        Passwords::parse(&text).map_err(|e| format!("mqtt.password_file {}:{e}", path.display()))
    }

    /// [`Passwords::load`] of the file's text; errors are `LINE: problem`.
    fn parse(text: &str) -> Result<Passwords, String> {
        let mut entries = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, hash)) = line.split_once(':') else {
                return Err(format!("{}: not NAME:HASH", i + 1));
            };
            let hash = Hash::parse(hash).map_err(|e| format!("{}: {name}: {e}", i + 1))?;
            entries.insert(name.to_string(), hash);
        }
        Ok(Passwords { entries })
    }

    /// Checks the User Name and Password of device `client_id` (MQTT 5.0
    /// 3.1.3.5, 3.1.3.6): the User Name must be the client identifier and
    /// the password the one recorded for it. Errors: what was wrong, for
    /// the log (the device is told 0x86 Bad User Name or Password only).
    pub fn check(
        &self,
        client_id: &str,
        user: Option<&str>,
        password: Option<&[u8]>,
    ) -> Result<(), String> {
        let Some(user) = user else {
            return Err("no User Name: a device authenticates as its client identifier".into());
        };
        if user != client_id {
            return Err(format!(
                "User Name {user:?} is not the client identifier {client_id:?}"
            ));
        }
        let Some(hash) = self.entries.get(client_id) else {
            return Err(format!(
                "device {client_id} has no password in the password file"
            ));
        };
        match password {
            Some(p) if hash.matches(p) => Ok(()),
            Some(_) => Err(format!("wrong password for device {client_id}")),
            None => Err("no Password".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mosquitto_passwd_hashes_are_checked() {
        // Written by `mosquitto_passwd -c -b FILE DEV0001 secret`
        // (mosquitto 2.0.11): PBKDF2-HMAC-SHA512, 101 iterations.
        let p = Passwords::parse(
            "# devices\nDEV0001:$7$101$zwZVRvE/uLehT0A+$ogOhyoGIb/tCIlSlz9GiHld1HiwpO8PU3KAj/4klZLZt5BE32pwN9bb84qlZ4Xh+efatGuRGISVQc+6HP29KFA==\n",
        )
        .unwrap();
        assert_eq!(p.check("DEV0001", Some("DEV0001"), Some(b"secret")), Ok(()));
        assert!(
            p.check("DEV0001", Some("DEV0001"), Some(b"Secret"))
                .is_err()
        );
        assert!(p.check("DEV0001", Some("other"), Some(b"secret")).is_err());
        assert!(p.check("DEV0001", None, None).is_err());
        assert!(
            p.check("DEV0002", Some("DEV0002"), Some(b"secret"))
                .is_err()
        );
        // $6$: SHA-512 of "secret" then the salt bytes "salt" (sha512sum of
        // the 10 bytes "secretsalt").
        let h = Sha512::digest(b"secretsalt");
        let line = format!(
            "D2:$6${}${}\n",
            STANDARD.encode(b"salt"),
            STANDARD.encode(h)
        );
        let p = Passwords::parse(&line).unwrap();
        assert_eq!(p.check("D2", Some("D2"), Some(b"secret")), Ok(()));
        assert!(
            Passwords::parse("D3:plain\n")
                .unwrap_err()
                .starts_with("1: D3:")
        );
        assert!(
            Passwords::parse("\nD3\n")
                .unwrap_err()
                .starts_with("2: not NAME:HASH")
        );
        assert!(Passwords::parse("D4:$7$0$AA==$AA==\n").is_err());
    }
}
