//! The program `mqgate ft run` makes fault tolerant, and its prepare hook:
//! started in a process group of their own (so that a signal reaches what
//! they start too), on Linux with PR_SET_PDEATHSIG so that they are killed
//! if `mqgate ft run` itself dies, and stopped with SIGTERM, then SIGKILL
//! after a grace period (docs/rendezvous.md "mqgate ft run").

use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};

/// Environment variables the program and the hook get.
pub const ENV_GROUP: &str = "MQGATE_FT_GROUP";
/// The member id (docs/rendezvous.md "mqgate ft run").
pub const ENV_MEMBER: &str = "MQGATE_FT_MEMBER";

/// A started process.
pub struct Running {
    /// What it is, for messages: the program's name or `prepare hook`.
    pub what: String,
    /// Its process id (and process group id).
    pub pid: u32,
    child: Child,
}

/// Starts `argv` (program and arguments) with stdin closed, stdout and
/// stderr shared with `mqgate ft run`, and the group and member in its
/// environment.
///
/// Errors: the operating system's (no such program, not executable, ...).
pub fn start(what: &str, argv: &[String], group: &str, member: &str) -> io::Result<Running> {
    let Some((program, args)) = argv.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .env(ENV_GROUP, group)
        .env(ENV_MEMBER, member)
        .kill_on_drop(false);
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the closure runs in the child between fork and exec and
        // calls only prctl, which is async-signal-safe and touches no
        // memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let child = cmd.spawn()?;
    let pid = child.id().unwrap_or(0);
    Ok(Running {
        what: what.to_string(),
        pid,
        child,
    })
}

/// Sends `signal` to the process group of `pid`.
#[cfg(unix)]
fn signal_group(pid: u32, signal: i32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    if pid <= 0 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory; a group
    // that is gone gives ESRCH, which changes nothing.
    unsafe {
        libc::kill(-pid, signal);
    }
}

impl Running {
    /// Waits for it to end by itself.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The status if it has ended, without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Stops it: SIGTERM to its process group, then SIGKILL when it has
    /// not ended within `grace`. Returns how it ended and whether SIGKILL
    /// was needed.
    pub async fn stop(&mut self, grace: Duration) -> (io::Result<ExitStatus>, bool) {
        #[cfg(unix)]
        {
            signal_group(self.pid, libc::SIGTERM);
            if let Ok(r) = tokio::time::timeout(grace, self.child.wait()).await {
                return (r, false);
            }
            signal_group(self.pid, libc::SIGKILL);
            (self.child.wait().await, true)
        }
        #[cfg(not(unix))]
        {
            let _ = grace;
            let _ = self.child.start_kill();
            (self.child.wait().await, true)
        }
    }
}

/// How a process ended, for messages: `exit status 0`, `signal 15`.
pub fn describe(status: &io::Result<ExitStatus>) -> String {
    match status {
        Err(e) => format!("unknown ({e})"),
        Ok(s) => {
            if let Some(code) = s.code() {
                return format!("exit status {code}");
            }
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                if let Some(sig) = s.signal() {
                    return format!("signal {sig}");
                }
            }
            s.to_string()
        }
    }
}
