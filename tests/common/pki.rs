//! Certificates made with the `openssl` command for the TLS tests
//! (docs/security.md "TLS"): a CA, another CA nobody trusts, and
//! end-entity certificates signed by either, valid or expired, and
//! revocation lists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `program` with `args` in `dir`; panics when it cannot be started
/// (the tool is missing).
pub fn run(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} cannot be run ({e}): install it (.ci/run does)"))
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = run(dir, "openssl", args);
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Certificates made with the openssl command in one directory.
pub struct Pki {
    dir: PathBuf,
}

/// Extensions of every end-entity certificate: usable by servers and
/// clients on 127.0.0.1 (webpki checks the extended key usage and the
/// subject alternative name, RFC 5280 4.2.1.12 and 4.2.1.6).
const LEAF_EXT: &str = "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n";

impl Pki {
    /// A CA (`ca.pem`) and another one nobody trusts (`other-ca.pem`).
    pub fn new(dir: &Path) -> Pki {
        std::fs::write(dir.join("leaf.ext"), LEAF_EXT).unwrap();
        for (name, cn) in [("ca", "Test CA"), ("other-ca", "Other CA")] {
            openssl(
                dir,
                &[
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:P-256",
                    "-nodes",
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.pem"),
                    "-days",
                    "30",
                    "-subj",
                    &format!("/O=Example/CN={cn}"),
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                ],
            );
        }
        Pki {
            dir: dir.to_path_buf(),
        }
    }

    /// A certificate `NAME.pem` with key `NAME.key` for subject `subj`
    /// (`/O=Example/CN=gw2`), signed by CA `ca`, serial `serial`, valid
    /// for `days` days from now (-1: expired yesterday).
    pub fn leaf(
        &self,
        name: &str,
        subj: &str,
        ca: &str,
        serial: u32,
        days: i32,
    ) -> (String, String) {
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        openssl(
            &self.dir,
            &[
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                &key,
                "-out",
                &csr,
                "-subj",
                subj,
            ],
        );
        openssl(
            &self.dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                &format!("{ca}.pem"),
                "-CAkey",
                &format!("{ca}.key"),
                "-set_serial",
                &serial.to_string(),
                "-days",
                &days.to_string(),
                "-extfile",
                "leaf.ext",
                "-out",
                &pem,
            ],
        );
        (self.path(&pem), self.path(&key))
    }

    /// A certificate revocation list `NAME.crl` signed by CA `ca` that revokes
    /// the certificates `revoked` (`NAME.pem` files of [`Pki::leaf`]), made
    /// as an IBM MQ administrator would with `openssl ca -revoke` and
    /// `openssl ca -gencrl` (RFC 5280 section 5). Returns its path.
    pub fn crl(&self, name: &str, ca: &str, revoked: &[&str]) -> String {
        let conf = format!("{ca}-crl.cnf");
        let db = format!("{ca}-index.txt");
        std::fs::write(
            self.dir.join(&conf),
            format!(
                "[ca]\ndefault_ca = crl\n[crl]\ndatabase = {db}\ncrlnumber = {ca}-crlnumber\n\
                 certificate = {ca}.pem\nprivate_key = {ca}.key\ndefault_md = sha256\n\
                 default_crl_days = 30\n"
            ),
        )
        .unwrap();
        std::fs::write(self.dir.join(&db), "").unwrap();
        std::fs::write(self.dir.join(format!("{ca}-crlnumber")), "01\n").unwrap();
        for name in revoked {
            openssl(
                &self.dir,
                &["ca", "-config", &conf, "-revoke", &format!("{name}.pem")],
            );
        }
        let out = format!("{name}.crl");
        openssl(
            &self.dir,
            &["ca", "-config", &conf, "-gencrl", "-out", &out],
        );
        self.path(&out)
    }

    pub fn path(&self, file: &str) -> String {
        self.dir.join(file).display().to_string()
    }
}

/// `openssl s_client` to `addr` with more `args`, no input, run in `dir`
/// off the async runtime: (exit status success, stdout and stderr
/// together).
pub async fn s_client(dir: &Path, addr: String, args: Vec<String>) -> (bool, String) {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut all = vec!["s_client".to_string(), "-connect".into(), addr];
        all.extend(args);
        let out = Command::new("openssl")
            .args(&all)
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("openssl cannot be run: install it (.ci/run does)");
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    })
    .await
    .unwrap()
}
