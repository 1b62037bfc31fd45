//! External exits: C functions in shared libraries, named `library(function)`
//! as IBM MQ channel definitions name exits, loaded with libloading. The ABI
//! is `exits/include/mqgate_exit.h`; [`RawParms`] mirrors its struct.
//!
//! A C exit runs inside the gateway process: mqgate can stop waiting for it
//! (isolation `thread`) but cannot survive a crash or memory corruption in it
//! (docs/exits.md "Isolation").

use crate::api::{Exit, ExitContext, ExitReason, ExitResponse, Payload, PutOptions};
use bytes::BytesMut;
use libloading::Library;
use mqgate_codecs::mq::constants::{md::LENGTH_2 as MD_V2_LENGTH, xcc};
use mqgate_codecs::mq::md::{parse_md, write_md};
use mqgate_codecs::mq::{ByteOrder, Charset, Mqmd, Mqrc};
use std::ffi::{CString, c_char};
use std::sync::Arc;

/// `MQGATE_EXIT_PARMS_VERSION` of the header.
pub const PARMS_VERSION: i32 = 1;

/// `mqgate_exit_parms` from `exits/include/mqgate_exit.h`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct RawParms {
    pub version: i32,
    pub exit_id: i32,
    pub exit_point: i32,
    pub exit_reason: i32,
    pub exit_response: i32,
    pub feedback: i32,
    pub options: i32,
    pub wait_interval: i32,
    pub match_options: i32,
    pub md_encoding: i32,
    pub md_length: u32,
    pub data_length: u32,
    pub buffer_length: u32,
    pub exit_space: i32,
    pub exit_user_area: [u8; 16],
    pub object_name: *const c_char,
    pub q_mgr_name: *const c_char,
    pub exit_data: *const c_char,
    pub buffer: *mut u8,
}

/// `mqgate_exit_fn`.
pub type RawExitFn = unsafe extern "C" fn(parms: *mut RawParms);

/// Why a C exit could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot load library {library:?}: {source}")]
    Library {
        library: String,
        #[source]
        source: libloading::Error,
    },
    #[error("library {library:?} has no function {function:?}: {source}")]
    Function {
        library: String,
        function: String,
        #[source]
        source: libloading::Error,
    },
}

/// A loaded C exit function; one instance per chain link (it keeps the
/// NUL-terminated copies of the names it hands to C).
pub struct CExit {
    // Keeps the code mapped as long as the function may be called.
    _library: Arc<Library>,
    func: RawExitFn,
    label: String,
    strings: [(String, CString); 3],
    headroom: usize,
}

impl std::fmt::Debug for CExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CExit").field("exit", &self.label).finish()
    }
}

impl CExit {
    /// Loads `library` (a path, or a bare name searched as dlopen does) and
    /// looks up `function`.
    ///
    /// Loading runs the library's initialisers: only configure libraries you
    /// trust as much as the gateway itself.
    pub fn load(library: &str, function: &str) -> Result<CExit, LoadError> {
        // SAFETY: loading foreign code is inherently trusted; the operator named
        // this library in the configuration (documented in docs/exits.md).
        let lib = unsafe { Library::new(library) }.map_err(|source| LoadError::Library {
            library: library.to_string(),
            source,
        })?;
        Self::from_library(Arc::new(lib), library, function)
    }

    /// Looks up `function` in an already loaded library.
    pub fn from_library(
        lib: Arc<Library>,
        library: &str,
        function: &str,
    ) -> Result<CExit, LoadError> {
        // SAFETY: the symbol is declared by the ABI as `mqgate_exit_fn`; a
        // library exporting something else under that name breaks the contract
        // the operator accepted by configuring it.
        let func: RawExitFn = unsafe {
            *lib.get::<RawExitFn>(function.as_bytes())
                .map_err(|source| LoadError::Function {
                    library: library.to_string(),
                    function: function.to_string(),
                    source,
                })?
        };
        Ok(CExit {
            _library: lib,
            func,
            label: format!("{library}({function})"),
            strings: Default::default(),
            headroom: 0,
        })
    }

    /// Lets the exit lengthen the data by up to `bytes`: `buffer_length` is
    /// then `data_length + bytes` (the extra bytes are zero on entry).
    pub fn with_buffer_headroom(mut self, bytes: usize) -> Self {
        self.headroom = bytes;
        self
    }

    /// A NUL-terminated copy of `s`, cached: the context strings of one exit
    /// instance do not change, so this allocates only on the first call.
    fn c_str(slot: &mut (String, CString), s: &str) -> *const c_char {
        if slot.0 != s {
            // Text after an embedded NUL cannot reach C; it is cut there.
            let cut = s.split('\0').next().unwrap_or("");
            slot.0 = s.to_string();
            slot.1 = CString::new(cut).unwrap_or_default();
        }
        slot.1.as_ptr()
    }

    fn invoke(&self, p: &mut RawParms) {
        // SAFETY: `p` is a valid, exclusively borrowed `mqgate_exit_parms`;
        // its pointers stay valid for the call. What the C code does is outside
        // Rust's control (see the module docs).
        unsafe { (self.func)(p) }
    }
}

/// Hands `buf` (the first `data_len` bytes in use, the rest headroom) to the
/// exit; returns the data length it left, or `None` (logged) when it broke
/// the contract.
fn raw_buffer_call(
    exit: &CExit,
    p: &mut RawParms,
    buf: &mut [u8],
    data_len: usize,
    md_length: u32,
) -> Option<usize> {
    let (Ok(len), Ok(capacity)) = (u32::try_from(data_len), u32::try_from(buf.len())) else {
        tracing::error!(exit = %exit.label, len = buf.len(), "data longer than 4 GiB cannot be passed to a C exit");
        return None;
    };
    p.md_length = md_length;
    p.data_length = len;
    p.buffer_length = capacity;
    p.buffer = buf.as_mut_ptr();
    exit.invoke(p);
    p.buffer = std::ptr::null_mut();
    if p.data_length > capacity {
        tracing::error!(exit = %exit.label, data_length = p.data_length, buffer_length = capacity,
            "C exit set data_length above buffer_length");
        return None;
    }
    if p.data_length < md_length {
        tracing::error!(exit = %exit.label, data_length = p.data_length, md_length,
            "C exit cut into the MQMD");
        return None;
    }
    Some(p.data_length as usize)
}

/// Before put / after get: the exit gets an MQMD version 2 (364 bytes, this
/// machine's byte order — `md_encoding` says which — StrucId and character
/// fields in the MD's own charset) followed
/// by the data, and its changes to both are read back.
fn call_with_md(
    exit: &CExit,
    p: &mut RawParms,
    md: &mut Mqmd,
    charset: Charset,
    data: &mut BytesMut,
    pmo: Option<&mut PutOptions>,
) -> bool {
    let order = if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };
    let md2 = Mqmd {
        version: 2,
        ..md.clone()
    };
    let mut v = Vec::with_capacity(MD_V2_LENGTH + data.len());
    write_md(&md2, order, charset, &mut v);
    v.extend_from_slice(data);
    let data_len = v.len();
    v.resize(data_len + exit.headroom, 0);
    p.md_encoding = order.encoding();
    if let Some(pmo) = &pmo {
        p.options = pmo.options;
    }
    let Some(len) = raw_buffer_call(exit, p, &mut v, data_len, MD_V2_LENGTH as u32) else {
        return false;
    };
    let mut new_md = match parse_md(&v[..MD_V2_LENGTH], order) {
        Ok((m, _)) => m,
        Err(e) => {
            tracing::error!(exit = %exit.label, error = %e, "C exit left an MQMD mqgate cannot read");
            return false;
        }
    };
    // A version 1 MD stays version 1 unless the exit set a v2-only field.
    if md.version < 2 && !new_md.needs_mde() {
        new_md.version = md.version;
    }
    *md = new_md;
    data.clear();
    data.extend_from_slice(&v[MD_V2_LENGTH..len]);
    if let Some(pmo) = pmo {
        pmo.options = p.options;
    }
    true
}

impl Exit for CExit {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        let [obj, qm, data] = &mut self.strings;
        let object_name = Self::c_str(obj, ctx.object_name);
        let q_mgr_name = Self::c_str(qm, ctx.q_mgr_name);
        let exit_data = Self::c_str(data, ctx.exit_data);
        let mut p = RawParms {
            version: PARMS_VERSION,
            exit_id: ctx.exit_point.exit_id(),
            exit_point: ctx.exit_point.c_code(),
            exit_reason: ctx.exit_reason.value(),
            exit_response: xcc::OK,
            feedback: 0,
            options: 0,
            wait_interval: 0,
            match_options: 0,
            md_encoding: 0,
            md_length: 0,
            data_length: 0,
            buffer_length: 0,
            exit_space: i32::try_from(ctx.exit_space).unwrap_or(i32::MAX),
            exit_user_area: *ctx.exit_user_area,
            object_name,
            q_mgr_name,
            exit_data,
            buffer: std::ptr::null_mut(),
        };
        let ok = match payload {
            Payload::None => {
                self.invoke(&mut p);
                // ExitSpace counts only as MQXR_INIT returns it.
                if ctx.exit_reason == ExitReason::Init {
                    match u32::try_from(p.exit_space) {
                        Ok(n) => {
                            ctx.exit_space = n;
                            true
                        }
                        Err(_) => {
                            tracing::error!(exit = %self.label, exit_space = p.exit_space,
                                "C exit set a negative ExitSpace");
                            false
                        }
                    }
                } else {
                    true
                }
            }
            Payload::Buffer(buf) => {
                let len = buf.len();
                // A send exit's ExitSpace is room after the data, like the
                // configured headroom (MQ: MQCXP ExitSpace).
                let room = self.headroom.max(ctx.exit_space as usize);
                if room > 0 {
                    buf.resize(len + room, 0);
                }
                let left = raw_buffer_call(self, &mut p, buf, len, 0);
                buf.truncate(left.unwrap_or(len));
                left.is_some()
            }
            Payload::Get { gmo } => {
                p.options = gmo.options;
                p.wait_interval = gmo.wait_interval;
                p.match_options = gmo.match_options;
                self.invoke(&mut p);
                gmo.options = p.options;
                gmo.wait_interval = p.wait_interval;
                gmo.match_options = p.match_options;
                true
            }
            Payload::Put {
                md,
                charset,
                data,
                pmo,
            } => call_with_md(self, &mut p, md, charset, data, Some(pmo)),
            Payload::Got { md, charset, data } => {
                call_with_md(self, &mut p, md, charset, data, None)
            }
        };
        *ctx.exit_user_area = p.exit_user_area;
        if !ok {
            return ExitResponse::Failed;
        }
        match p.exit_response {
            xcc::OK => ExitResponse::Ok,
            xcc::SUPPRESS_FUNCTION => ExitResponse::SuppressFunction(if p.feedback > 0 {
                Mqrc(p.feedback)
            } else {
                Mqrc::API_EXIT_ERROR
            }),
            xcc::CLOSE_CHANNEL => ExitResponse::CloseChannel,
            xcc::FAILED => ExitResponse::Failed,
            other => {
                tracing::error!(exit = %self.label, exit_response = other,
                    "C exit answered an ExitResponse mqgate does not accept");
                ExitResponse::Failed
            }
        }
    }
}
