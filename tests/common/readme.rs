//! The README as a test oracle: its sections, their code blocks, and its
//! shell walk-throughs run as written.
//!
//! A walk-through is a `sh` block of commands, each followed by the output
//! the README shows for it as comment lines `# -> LINE` (one per line of
//! output; none: the command prints nothing). Other comment lines explain
//! and are skipped. In a shown line `…` stands for text that differs at
//! every run (a MsgId's unique part, a lease).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The README's section under the heading `## {heading}`, up to the next
/// `## ` heading (its `###` subsections included).
pub fn section(heading: &str) -> String {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let title = format!("\n## {heading}\n");
    let start = readme
        .find(&title)
        .unwrap_or_else(|| panic!("README has no section \"## {heading}\""))
        + 1;
    let body = start + title.len() - 1;
    let end = readme[body..]
        .find("\n## ")
        .map_or(readme.len(), |e| body + e + 1);
    readme[start..end].to_string()
}

/// The fenced code blocks of `text` whose info string is `lang`, in order,
/// without their fences.
pub fn code_blocks(text: &str, lang: &str) -> Vec<String> {
    let open = format!("```{lang}\n");
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let body = &rest[i + open.len()..];
        let end = body
            .find("```")
            .unwrap_or_else(|| panic!("a ```{lang} block is not closed"));
        blocks.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    blocks
}

/// One command of a walk-through (with its continuation lines and here
/// documents) and the lines the README shows it printing.
#[derive(Debug)]
pub struct Step {
    pub command: String,
    pub output: Vec<String>,
}

/// The steps of a walk-through block: a command runs to the end of a line
/// not ending with `\`, or, when it opens a here document (`<<'EOF'`), to
/// the document's terminator line.
pub fn steps(block: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut lines = block.lines();
    while let Some(line) = lines.next() {
        if let Some(shown) = line.strip_prefix("# -> ") {
            steps
                .last_mut()
                .expect("an output line after a command")
                .output
                .push(shown.to_string());
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut command = line.to_string();
        let mut last = line.to_string();
        while last.ends_with('\\') {
            last = lines.next().expect("a continued line").to_string();
            command = format!("{command}\n{last}");
        }
        if let Some((_, word)) = command.split_once("<<") {
            let terminator: String = word
                .trim_start_matches('-')
                .trim_start()
                .trim_matches(|c| c == '\'' || c == '"')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            loop {
                let l = lines.next().expect("a here document's terminator");
                command = format!("{command}\n{l}");
                if l == terminator {
                    break;
                }
            }
        }
        steps.push(Step {
            command,
            output: Vec::new(),
        });
    }
    steps
}

/// Whether `actual` is the line `shown`, each `…` of it standing for any
/// text (possibly none).
pub fn matches(shown: &str, actual: &str) -> bool {
    let parts: Vec<&str> = shown.split('…').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return shown == actual;
    }
    if actual.len() < first.len() + last.len()
        || !actual.starts_with(first)
        || !actual.ends_with(last)
    {
        return false;
    }
    // Leftmost matches of the inner parts are enough for `*`-only patterns.
    let mut middle = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match middle.find(part) {
            Some(i) => middle = &middle[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// `text` with every loopback port it names (`127.0.0.1:PORT`) moved to a
/// free one, the same port always to the same new one, so that a
/// walk-through runs beside anything else on the machine. Also returns the
/// ports found, in order.
pub fn relocate_ports(text: &str) -> (String, Vec<u16>) {
    const HOST: &str = "127.0.0.1:";
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(HOST) {
        rest = &rest[i + HOST.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(p) = digits.parse::<u16>()
            && !found.contains(&p)
        {
            found.push(p);
        }
    }
    let mut taken = BTreeSet::new();
    let mut map = BTreeMap::new();
    for p in &found {
        let new = loop {
            let n = super::nats::free_port();
            if taken.insert(n) {
                break n;
            }
        };
        map.insert(*p, new);
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(HOST) {
        out.push_str(&rest[..i + HOST.len()]);
        rest = &rest[i + HOST.len()..];
        let n = rest.chars().take_while(char::is_ascii_digit).count();
        match rest[..n].parse::<u16>().ok().and_then(|p| map.get(&p)) {
            Some(new) => out.push_str(&new.to_string()),
            None => out.push_str(&rest[..n]),
        }
        rest = &rest[n..];
    }
    out.push_str(rest);
    (out, found)
}

/// Written after each step's output, so that the outputs can be told apart.
const END_OF_STEP: &str = "@@mqgate-readme-step-end@@";

/// A bash running a walk-through in a process group of its own; the group
/// (bash and the jobs it left in the background) is killed when dropped.
struct Session(Child);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.wait();
    }
}

/// Runs `steps` one after the other in one bash in `dir`, as pasted into a
/// terminal (shell variables and background jobs carry over), with `bin`
/// first on PATH, and returns what each step printed on stdout, as lines.
/// Panics, with the output so far and bash's stderr, when the whole takes
/// longer than `limit`. Background jobs still running at the end are
/// killed.
pub fn run(steps: &[Step], dir: &Path, bin: &Path, limit: Duration) -> Vec<Vec<String>> {
    use std::os::unix::process::CommandExt;
    let mut script = String::new();
    for s in steps {
        script.push_str(&s.command);
        script.push_str(&format!("\nprintf '%s\\n' '{END_OF_STEP}'\n"));
    }
    std::fs::write(dir.join("walk-through.sh"), &script).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let stderr = std::fs::File::create(dir.join("walk-through.stderr")).unwrap();
    let mut session = Session(
        Command::new("bash")
            .arg("walk-through.sh")
            .current_dir(dir)
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .unwrap(),
    );
    let mut stdout = session.0.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    });
    let deadline = Instant::now() + limit;
    let finished = loop {
        if session.0.try_wait().unwrap().is_some() {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Ends the jobs left running, so that the pipe closes.
    drop(session);
    let out = reader.join().unwrap();
    let stderr = std::fs::read_to_string(dir.join("walk-through.stderr")).unwrap_or_default();
    let outputs: Vec<Vec<String>> = out
        .split_inclusive(&format!("{END_OF_STEP}\n"))
        .filter_map(|chunk| chunk.strip_suffix(&format!("{END_OF_STEP}\n")))
        .map(|o| o.lines().map(str::to_string).collect())
        .collect();
    assert!(
        finished && outputs.len() == steps.len(),
        "the walk-through {} after {} of {} steps (next: {:?});\nstdout:\n{out}\nstderr:\n{stderr}",
        if finished {
            "ended"
        } else {
            "did not end in time"
        },
        outputs.len(),
        steps.len(),
        steps.get(outputs.len()).map(|s| &s.command),
    );
    outputs
}
