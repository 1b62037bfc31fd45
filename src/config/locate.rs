//! Where each node of a YAML document is, by path (`queues[2].target`), so that
//! validation errors found after deserialising can name a line and column.
//!
//! serde_yaml reports positions only for its own errors; this walks the same
//! text once with yaml-rust2's marked event parser.

use std::collections::{HashMap, HashSet};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// Positions of the nodes of one document: 1-based (line, column).
#[derive(Debug, Default)]
pub struct Places {
    nodes: HashMap<String, (usize, usize)>,
    /// Mapping keys by the path of their value (`exits.queues.APP.IN`).
    keys: HashMap<String, (usize, usize)>,
    /// Keys seen a second time in the same mapping: (path, position of the key).
    duplicates: Vec<(String, (usize, usize))>,
}

impl Places {
    /// Maps every node of `text`. A text that does not parse maps nothing
    /// (serde_yaml reports that error itself).
    pub fn of(text: &str) -> Places {
        let mut walker = Walker::default();
        let mut parser = Parser::new_from_str(text);
        if parser.load(&mut walker, false).is_err() {
            return Places::default();
        }
        Places {
            nodes: walker.nodes,
            keys: walker.keys,
            duplicates: walker.duplicates,
        }
    }

    /// The position of the first repeated key named `key` (serde reports a
    /// duplicate field without a useful position), with its path.
    pub fn duplicate(&self, key: &str) -> Option<&(String, (usize, usize))> {
        self.duplicates
            .iter()
            .find(|(p, _)| p == key || p.ends_with(&format!(".{key}")))
    }

    /// The position of the node at `path` itself, if the file has it.
    pub fn exact(&self, path: &str) -> Option<(usize, usize)> {
        self.nodes.get(path).copied()
    }

    /// The position of the mapping key whose value is at `path` (the key
    /// `APP.IN` of `exits.queues.APP.IN`), for errors about the name itself;
    /// [`Places::at`] of `path` when it is no mapping key in the file.
    pub fn key_at(&self, path: &str) -> (usize, usize) {
        self.keys
            .get(path)
            .copied()
            .unwrap_or_else(|| self.at(path))
    }

    /// The position of the node at `path`, or of its nearest ancestor that is
    /// in the file (a defaulted setting points at its section); (0, 0) when none is.
    pub fn at(&self, path: &str) -> (usize, usize) {
        let mut p = path;
        loop {
            if let Some(&pos) = self.nodes.get(p) {
                return pos;
            }
            match p.rfind(['.', '[']) {
                Some(i) => p = &p[..i],
                None => return self.nodes.get("").copied().unwrap_or((0, 0)),
            }
        }
    }
}

enum Frame {
    Map {
        path: String,
        key: Option<String>,
        seen: HashSet<String>,
    },
    Seq {
        path: String,
        index: usize,
    },
}

#[derive(Default)]
struct Walker {
    stack: Vec<Frame>,
    nodes: HashMap<String, (usize, usize)>,
    keys: HashMap<String, (usize, usize)>,
    duplicates: Vec<(String, (usize, usize))>,
}

impl Walker {
    /// The path of the node starting now, or `None` when it is a mapping key
    /// (then the key is remembered for the value that follows).
    fn node_path(&mut self, key_text: Option<&str>, pos: (usize, usize)) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Seq { path, index }) => {
                let p = format!("{path}[{index}]");
                *index += 1;
                Some(p)
            }
            Some(Frame::Map { path, key, seen }) => match key.take() {
                Some(k) if path.is_empty() => Some(k),
                Some(k) => Some(format!("{path}.{k}")),
                None => {
                    let k = key_text.unwrap_or("?").to_string();
                    let full = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    if !seen.insert(k.clone()) {
                        self.duplicates.push((full, pos));
                    } else {
                        self.keys.insert(full, pos);
                    }
                    *key = Some(k);
                    None
                }
            },
        }
    }
}

impl MarkedEventReceiver for Walker {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let pos = (mark.line(), mark.col() + 1);
        match ev {
            Event::Scalar(text, ..) => {
                if let Some(p) = self.node_path(Some(&text), pos) {
                    self.nodes.insert(p, pos);
                }
            }
            Event::Alias(_) => {
                if let Some(p) = self.node_path(None, pos) {
                    self.nodes.insert(p, pos);
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_map = matches!(ev, Event::MappingStart(..));
                let path = self.node_path(None, pos).unwrap_or_default();
                self.nodes.insert(path.clone(), pos);
                self.stack.push(if is_map {
                    Frame::Map {
                        path,
                        key: None,
                        seen: HashSet::new(),
                    }
                } else {
                    Frame::Seq { path, index: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}
