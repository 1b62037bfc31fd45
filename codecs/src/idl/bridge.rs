//! One IDL program prepared for the MQ RPC bridge: its operation, dynamic
//! parameters and both text layouts, checked once when the IDL is loaded
//! (docs/rpc.md "IDL and payload").

use std::fmt;

use super::ast::IdlFile;
use super::call::{CallKind, call_kind};
use super::dynamic::DynamicParams;
use super::error::IdlErrors;
use super::layout::{LayoutError, PayloadDirection, TextLayout};

/// Everything the service needs to run calls of one program in text mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgeProgram {
    /// Library name as in the IDL (it goes on the wire unchanged).
    pub library: String,
    /// Program name as in the IDL.
    pub program: String,
    /// Put, get or request/reply.
    pub call_kind: CallKind,
    /// The MQ_* parameters.
    pub dynamic: DynamicParams,
    /// Layout of the message put (IN and IN OUT data parameters).
    pub request: TextLayout,
    /// Layout of the message got (OUT and IN OUT data parameters).
    pub reply: TextLayout,
}

/// Why a program cannot be used by the bridge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindError {
    /// No library of that name (compared without case).
    UnknownLibrary(String),
    /// No program of that name in the library (compared without case).
    UnknownProgram {
        /// Library name.
        library: String,
        /// Program name asked for.
        program: String,
    },
    /// The dynamic parameters break their rules.
    Dynamic(IdlErrors),
    /// A payload has no text layout.
    Layout(LayoutError),
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindError::UnknownLibrary(l) => write!(f, "no library '{l}' in the IDL"),
            BindError::UnknownProgram { library, program } => {
                write!(f, "no program '{program}' in library '{library}'")
            }
            BindError::Dynamic(e) => write!(f, "{e}"),
            BindError::Layout(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BindError {}

impl BridgeProgram {
    /// Prepares `library`/`program` of `file` for text-mode calls.
    ///
    /// Errors: [`BindError`] — unknown names, broken dynamic-parameter rules,
    /// or a payload without a text layout (B/F formats, a variable-length
    /// value that is not last, ...).
    pub fn bind(file: &IdlFile, library: &str, program: &str) -> Result<BridgeProgram, BindError> {
        let lib = file
            .library(library)
            .ok_or_else(|| BindError::UnknownLibrary(library.to_string()))?;
        let prog = lib
            .program(program)
            .ok_or_else(|| BindError::UnknownProgram {
                library: lib.name.clone(),
                program: program.to_string(),
            })?;
        let dynamic = DynamicParams::of_program(prog, lib).map_err(BindError::Dynamic)?;
        let request = TextLayout::for_program(prog, lib, PayloadDirection::Request)
            .map_err(BindError::Layout)?;
        let reply = TextLayout::for_program(prog, lib, PayloadDirection::Reply)
            .map_err(BindError::Layout)?;
        Ok(BridgeProgram {
            library: lib.name.clone(),
            program: prog.name.clone(),
            call_kind: call_kind(prog),
            dynamic,
            request,
            reply,
        })
    }

    /// Prepares every program of `file`; the ones that cannot be used come
    /// back as errors next to the ones that can.
    pub fn bind_all(file: &IdlFile) -> (Vec<BridgeProgram>, Vec<BindError>) {
        let mut ok = Vec::new();
        let mut failed = Vec::new();
        for lib in &file.libraries {
            for prog in &lib.programs {
                match BridgeProgram::bind(file, &lib.name, &prog.name) {
                    Ok(b) => ok.push(b),
                    Err(e) => failed.push(e),
                }
            }
        }
        (ok, failed)
    }
}
