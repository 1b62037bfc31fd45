//! Device passwords (docs/mqtt.md "Authentication"): a file in the format
//! of mosquitto_passwd (the mosquitto broker's `password_file`), one line
//! `NAME:HASH` per device, NAME the device's client identifier.
//! Placeholder until the file format is read; see [`Passwords::load`].

use std::collections::HashMap;
use std::path::Path;

/// The passwords of the devices.
pub struct Passwords {
    entries: HashMap<String, String>,
}

impl Passwords {
    /// Reads a password file. Errors: the file cannot be read, or a line is
    /// not `NAME:HASH` (the message names the line).
    pub fn load(path: &Path) -> Result<Passwords, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let mut entries = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, hash)) = line.split_once(':') else {
                return Err(format!("{}:{}: not NAME:HASH", path.display(), i + 1));
            };
            entries.insert(name.to_string(), hash.to_string());
        }
        Ok(Passwords { entries })
    }

    /// Checks device `client_id`'s User Name and Password: the User Name
    /// must be the client identifier. Errors: what was wrong.
    pub fn check(
        &self,
        client_id: &str,
        user: Option<&str>,
        password: Option<&[u8]>,
    ) -> Result<(), String> {
        let _ = (&self.entries, client_id, user, password);
        Err("password checking is not available".into())
    }
}
