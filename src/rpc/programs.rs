//! The programs RPC clients can call: every program of the IDL files named in
//! `rpc.idl_files`, parsed and bound once (Software AG "Software AG IDL
//! Grammar"; docs/rpc.md "IDL and payload").

use mqgate_codecs::idl::{BridgeProgram, parse};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The callable programs by library and program name (compared without case,
/// as IDL names are unique after case folding).
#[derive(Clone, Debug, Default)]
pub struct Programs {
    by_name: HashMap<(String, String), Arc<BridgeProgram>>,
}

/// Why an IDL file (or one of its programs) cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// Index of the file in `rpc.idl_files`.
    pub file_index: usize,
    /// What was wrong, with the file name and, for IDL faults, line and column.
    pub message: String,
}

fn key(library: &str, program: &str) -> (String, String) {
    (library.to_uppercase(), program.to_uppercase())
}

impl Programs {
    /// Reads, parses and binds every file. Returns the programs that could be
    /// bound and an error for each unreadable file, IDL fault, program
    /// without a text layout, or program defined twice.
    pub fn load(files: &[PathBuf]) -> (Programs, Vec<LoadError>) {
        let mut programs = Programs::default();
        let mut errors = Vec::new();
        for (file_index, path) in files.iter().enumerate() {
            let name = path.display();
            let mut fail = |message: String| {
                errors.push(LoadError {
                    file_index,
                    message,
                })
            };
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    fail(format!("cannot read IDL file {name}: {e}"));
                    continue;
                }
            };
            let file = match parse(&text) {
                Ok(f) => f,
                Err(es) => {
                    for e in es.0 {
                        fail(format!("IDL file {name}: {e}"));
                    }
                    continue;
                }
            };
            let (bound, failed) = BridgeProgram::bind_all(&file);
            for e in failed {
                fail(format!("IDL file {name}: {e}"));
            }
            for b in bound {
                let k = key(&b.library, &b.program);
                if programs.by_name.contains_key(&k) {
                    fail(format!(
                        "IDL file {name}: program '{}' of library '{}' is defined twice",
                        b.program, b.library
                    ));
                    continue;
                }
                programs.by_name.insert(k, Arc::new(b));
            }
        }
        (programs, errors)
    }

    /// The program `program` of library `library`.
    pub fn find(&self, library: &str, program: &str) -> Option<Arc<BridgeProgram>> {
        self.by_name.get(&key(library, program)).cloned()
    }

    /// Every program, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<BridgeProgram>> {
        self.by_name.values()
    }
}
