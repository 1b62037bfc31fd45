//! Interest index: which subscribers listen to a subject (docs/rendezvous.md
//! "Interest index").
//!
//! A trie of elements, one level per element, in the manner of nats-server's
//! sublist: each node has its literal children by element text, one child
//! for `*`, and the subscribers of its own pattern and of its pattern
//! followed by `>`. A lookup follows at most two branches per element (the
//! literal one and `*`) and collects the `>` subscribers on the way, so its
//! cost grows with the number of elements and of matching patterns, not
//! with the number of subscriptions. Element maps use hashbrown's seeded
//! hasher (foldhash), so subject text from clients cannot be chosen to
//! collide.

use hashbrown::HashMap;
use smallvec::SmallVec;

use super::subject::Subject;

/// Subscriptions (pattern, subscriber id) and their lookup by subject.
///
/// A subscriber may hold several patterns, overlapping or not, and a
/// pattern may have several subscribers; a (pattern, subscriber) pair is
/// held once. Patterns are [`Subject`]s checked in any mode (a literal
/// subject is a pattern matching itself); matching is
/// [`matches`](super::subject::matches).
#[derive(Clone, Debug)]
pub struct InterestIndex<Id> {
    root: Node<Id>,
    len: usize,
}

#[derive(Clone, Debug)]
struct Node<Id> {
    /// Subscribers of the pattern that ends at this node.
    here: Vec<Id>,
    /// Subscribers of this node's pattern followed by `>`.
    rest: Vec<Id>,
    children: Option<Box<Children<Id>>>,
}

#[derive(Clone, Debug)]
struct Children<Id> {
    literal: HashMap<Box<str>, Node<Id>>,
    star: Option<Node<Id>>,
}

impl<Id> Node<Id> {
    fn new() -> Self {
        Node {
            here: Vec::new(),
            rest: Vec::new(),
            children: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.here.is_empty() && self.rest.is_empty() && self.children.is_none()
    }
}

/// Elements of a subject on the stack (most subjects have fewer than 16).
type Elements<'s> = SmallVec<[&'s str; 16]>;

impl<Id: Copy + Ord> Default for InterestIndex<Id> {
    fn default() -> Self {
        InterestIndex::new()
    }
}

impl<Id: Copy + Ord> InterestIndex<Id> {
    /// An empty index.
    pub fn new() -> Self {
        InterestIndex {
            root: Node::new(),
            len: 0,
        }
    }

    /// Number of (pattern, subscriber) pairs held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no subscription is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `id`'s interest in `pattern`; false when it was already held.
    pub fn insert(&mut self, pattern: &Subject<'_>, id: Id) -> bool {
        let mut node = &mut self.root;
        let mut full_wildcard = false;
        for el in pattern.elements() {
            if el == ">" {
                // Always the last element of a checked subject.
                full_wildcard = true;
                break;
            }
            let children = node.children.get_or_insert_with(|| {
                Box::new(Children {
                    literal: HashMap::default(),
                    star: None,
                })
            });
            node = if el == "*" {
                children.star.get_or_insert_with(Node::new)
            } else {
                children.literal.entry_ref(el).or_insert_with(Node::new)
            };
        }
        let list = if full_wildcard {
            &mut node.rest
        } else {
            &mut node.here
        };
        if list.contains(&id) {
            return false;
        }
        list.push(id);
        self.len += 1;
        true
    }

    /// Removes `id`'s interest in `pattern`; false when it was not held.
    /// Nodes left without subscriptions are freed.
    pub fn remove(&mut self, pattern: &Subject<'_>, id: Id) -> bool {
        let elements: Elements<'_> = pattern.elements().collect();
        let removed = remove_at(&mut self.root, &elements, id);
        if removed {
            self.len -= 1;
        }
        removed
    }

    /// The subscribers whose patterns match `subject`, each once, in no
    /// particular order.
    pub fn lookup(&self, subject: &Subject<'_>) -> Vec<Id> {
        let mut out = Vec::new();
        self.lookup_into(subject, &mut out);
        out
    }

    /// [`lookup`](Self::lookup) into `out` (cleared first), so that a caller
    /// delivering many messages reuses one buffer.
    pub fn lookup_into(&self, subject: &Subject<'_>, out: &mut Vec<Id>) {
        out.clear();
        let elements: Elements<'_> = subject.elements().collect();
        let mut sources = 0usize;
        collect(&self.root, &elements, out, &mut sources);
        // One list holds each subscriber once; several lists may share some.
        if sources > 1 {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// True when some pattern matches `subject` (a routing daemon's "is
    /// there a listener" question), without collecting subscribers.
    pub fn has_interest(&self, subject: &Subject<'_>) -> bool {
        let elements: Elements<'_> = subject.elements().collect();
        any(&self.root, &elements)
    }
}

fn collect<Id: Copy>(node: &Node<Id>, elements: &[&str], out: &mut Vec<Id>, sources: &mut usize) {
    let Some((first, rest)) = elements.split_first() else {
        if !node.here.is_empty() {
            out.extend_from_slice(&node.here);
            *sources += 1;
        }
        return;
    };
    if !node.rest.is_empty() {
        out.extend_from_slice(&node.rest);
        *sources += 1;
    }
    if let Some(children) = &node.children {
        if let Some(next) = children.literal.get(*first) {
            collect(next, rest, out, sources);
        }
        if let Some(next) = &children.star {
            collect(next, rest, out, sources);
        }
    }
}

fn any<Id>(node: &Node<Id>, elements: &[&str]) -> bool {
    let Some((first, rest)) = elements.split_first() else {
        return !node.here.is_empty();
    };
    if !node.rest.is_empty() {
        return true;
    }
    let Some(children) = &node.children else {
        return false;
    };
    children
        .literal
        .get(*first)
        .is_some_and(|next| any(next, rest))
        || children.star.as_ref().is_some_and(|next| any(next, rest))
}

fn remove_at<Id: Copy + Ord>(node: &mut Node<Id>, elements: &[&str], id: Id) -> bool {
    let take = |list: &mut Vec<Id>| match list.iter().position(|x| *x == id) {
        Some(i) => {
            list.swap_remove(i);
            if list.is_empty() {
                *list = Vec::new();
            }
            true
        }
        None => false,
    };
    match elements {
        [] => take(&mut node.here),
        [">"] => take(&mut node.rest),
        [first, rest @ ..] => {
            let Some(children) = node.children.as_deref_mut() else {
                return false;
            };
            let removed = if *first == "*" {
                match children.star.as_mut() {
                    Some(next) => {
                        let removed = remove_at(next, rest, id);
                        if next.is_empty() {
                            children.star = None;
                        }
                        removed
                    }
                    None => false,
                }
            } else {
                match children.literal.get_mut(*first) {
                    Some(next) => {
                        let removed = remove_at(next, rest, id);
                        if next.is_empty() {
                            children.literal.remove(*first);
                        }
                        removed
                    }
                    None => false,
                }
            };
            if children.star.is_none() && children.literal.is_empty() {
                node.children = None;
            }
            removed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InterestIndex;
    use crate::rv::{Mode, Subject};

    #[test]
    fn removing_every_subscription_frees_every_node() {
        let patterns = ["A.B.C", "A.*.C", "A.>", "*.B", ">", "A.B.C.D"];
        let mut index = InterestIndex::new();
        for (id, p) in patterns.iter().enumerate() {
            index.insert(&Subject::parse(p, Mode::Listen).unwrap(), id);
        }
        assert!(index.root.children.is_some());
        for (id, p) in patterns.iter().enumerate().rev() {
            assert!(index.remove(&Subject::parse(p, Mode::Listen).unwrap(), id));
        }
        assert!(index.root.is_empty(), "{:?}", index.root);
        assert!(index.is_empty());
    }
}
