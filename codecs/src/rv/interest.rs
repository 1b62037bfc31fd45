//! Interest index: which subscribers listen to a subject (docs/rendezvous.md
//! "Interest index").
//!
//! A trie of elements, one level per element, in the manner of nats-server's
//! sublist: each node has the subscribers of the pattern that ends there,
//! its literal children by element text, one child for `*`, and the
//! subscribers of its pattern followed by `>`. A lookup follows at most two
//! branches per element (the literal one and `*`) and collects the `>`
//! subscribers on the way, so its cost grows with the number of elements and
//! of matching patterns, not with the number of subscriptions.
//!
//! Memory: most nodes of a large index are leaves with one subscriber, so a
//! node is two words and a subscriber list, and a node with up to
//! [`FEW_MAX`] literal children keeps them in a vector searched in order;
//! more go to a hashbrown map with its seeded hasher (foldhash), so subject
//! text from clients cannot be chosen to collide. Lists grow one entry at a
//! time.

use hashbrown::HashMap;
use smallvec::SmallVec;

use super::subject::Subject;

/// Literal children a node keeps in a vector before it uses a map.
pub const FEW_MAX: usize = 8;

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
    children: Option<Box<Children<Id>>>,
}

#[derive(Clone, Debug)]
struct Children<Id> {
    literal: Literal<Id>,
    star: Option<Box<Node<Id>>>,
    /// Subscribers of this node's pattern followed by `>`.
    full: Vec<Id>,
}

#[derive(Clone, Debug)]
enum Literal<Id> {
    Few(Vec<(Box<str>, Node<Id>)>),
    Many(HashMap<Box<str>, Node<Id>>),
}

impl<Id> Node<Id> {
    fn new() -> Self {
        Node {
            here: Vec::new(),
            children: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.here.is_empty() && self.children.is_none()
    }
}

impl<Id> Children<Id> {
    fn is_empty(&self) -> bool {
        self.star.is_none() && self.full.is_empty() && self.literal.is_empty()
    }
}

impl<Id> Literal<Id> {
    fn is_empty(&self) -> bool {
        match self {
            Literal::Few(v) => v.is_empty(),
            Literal::Many(m) => m.is_empty(),
        }
    }

    fn get(&self, el: &str) -> Option<&Node<Id>> {
        match self {
            Literal::Few(v) => v.iter().find(|(k, _)| **k == *el).map(|(_, n)| n),
            Literal::Many(m) => m.get(el),
        }
    }

    fn get_mut(&mut self, el: &str) -> Option<&mut Node<Id>> {
        match self {
            Literal::Few(v) => v.iter_mut().find(|(k, _)| **k == *el).map(|(_, n)| n),
            Literal::Many(m) => m.get_mut(el),
        }
    }

    /// The child for `el`, made when missing.
    fn child(&mut self, el: &str) -> &mut Node<Id> {
        if let Literal::Few(v) = self
            && v.len() >= FEW_MAX
            && !v.iter().any(|(k, _)| **k == *el)
        {
            *self = Literal::Many(std::mem::take(v).into_iter().collect());
        }
        match self {
            Literal::Few(v) => {
                let i = match v.iter().position(|(k, _)| **k == *el) {
                    Some(i) => i,
                    None => {
                        v.reserve_exact(1);
                        v.push((el.into(), Node::new()));
                        v.len() - 1
                    }
                };
                &mut v[i].1
            }
            Literal::Many(m) => m.entry_ref(el).or_insert_with(Node::new),
        }
    }

    /// Drops the child for `el`; back to a vector when few are left.
    fn remove(&mut self, el: &str) {
        match self {
            Literal::Few(v) => {
                v.retain(|(k, _)| **k != *el);
                v.shrink_to_fit();
            }
            Literal::Many(m) => {
                m.remove(el);
                if m.len() <= FEW_MAX / 2 {
                    let few: Vec<_> = std::mem::take(m).into_iter().collect();
                    *self = Literal::Few(few);
                }
            }
        }
    }
}

/// Adds `id` to `list` unless it is there; one entry more of capacity at a
/// time, since most lists hold one subscriber.
fn add<Id: Copy + Ord>(list: &mut Vec<Id>, id: Id) -> bool {
    if list.contains(&id) {
        return false;
    }
    list.reserve_exact(1);
    list.push(id);
    true
}

/// Takes `id` out of `list`; false when it was not there.
fn take<Id: Copy + Ord>(list: &mut Vec<Id>, id: Id) -> bool {
    match list.iter().position(|x| *x == id) {
        Some(i) => {
            list.swap_remove(i);
            list.shrink_to_fit();
            true
        }
        None => false,
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
        for el in pattern.elements() {
            let children = node.children.get_or_insert_with(|| {
                Box::new(Children {
                    literal: Literal::Few(Vec::new()),
                    star: None,
                    full: Vec::new(),
                })
            });
            if el == ">" {
                // Always the last element of a checked subject.
                if add(&mut children.full, id) {
                    self.len += 1;
                    return true;
                }
                return false;
            }
            node = if el == "*" {
                children.star.get_or_insert_with(|| Box::new(Node::new()))
            } else {
                children.literal.child(el)
            };
        }
        let added = add(&mut node.here, id);
        if added {
            self.len += 1;
        }
        added
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

    /// Bytes of heap the index holds, counted from its structure: every
    /// block it allocated (node lists, child vectors and maps, element
    /// texts) at the size it asked the allocator for. The allocator's own
    /// overhead per block comes on top, and so does the index value itself
    /// (`size_of::<InterestIndex<Id>>()`).
    pub fn heap_bytes(&self) -> usize {
        node_heap(&self.root)
    }

    /// True when some pattern matches `subject` (a routing daemon's "is
    /// there a listener" question), without collecting subscribers.
    pub fn has_interest(&self, subject: &Subject<'_>) -> bool {
        let elements: Elements<'_> = subject.elements().collect();
        any(&self.root, &elements)
    }
}

fn list_heap<T>(list: &Vec<T>) -> usize {
    list.capacity() * size_of::<T>()
}

fn node_heap<Id>(node: &Node<Id>) -> usize {
    list_heap(&node.here)
        + node
            .children
            .as_deref()
            .map_or(0, |c| size_of::<Children<Id>>() + children_heap(c))
}

fn children_heap<Id>(children: &Children<Id>) -> usize {
    let literal = match &children.literal {
        Literal::Few(v) => {
            list_heap(v) + v.iter().map(|(k, n)| k.len() + node_heap(n)).sum::<usize>()
        }
        Literal::Many(m) => {
            m.allocation_size() + m.iter().map(|(k, n)| k.len() + node_heap(n)).sum::<usize>()
        }
    };
    literal
        + list_heap(&children.full)
        + children
            .star
            .as_deref()
            .map_or(0, |n| size_of::<Node<Id>>() + node_heap(n))
}

fn collect<Id: Copy>(node: &Node<Id>, elements: &[&str], out: &mut Vec<Id>, sources: &mut usize) {
    let Some((first, rest)) = elements.split_first() else {
        if !node.here.is_empty() {
            out.extend_from_slice(&node.here);
            *sources += 1;
        }
        return;
    };
    let Some(children) = &node.children else {
        return;
    };
    if !children.full.is_empty() {
        out.extend_from_slice(&children.full);
        *sources += 1;
    }
    if let Some(next) = children.literal.get(first) {
        collect(next, rest, out, sources);
    }
    if let Some(next) = &children.star {
        collect(next, rest, out, sources);
    }
}

fn any<Id>(node: &Node<Id>, elements: &[&str]) -> bool {
    let Some((first, rest)) = elements.split_first() else {
        return !node.here.is_empty();
    };
    let Some(children) = &node.children else {
        return false;
    };
    !children.full.is_empty()
        || children
            .literal
            .get(first)
            .is_some_and(|next| any(next, rest))
        || children.star.as_ref().is_some_and(|next| any(next, rest))
}

fn remove_at<Id: Copy + Ord>(node: &mut Node<Id>, elements: &[&str], id: Id) -> bool {
    let Some((first, rest)) = elements.split_first() else {
        return take(&mut node.here, id);
    };
    let Some(children) = node.children.as_deref_mut() else {
        return false;
    };
    let removed = if *first == ">" && rest.is_empty() {
        take(&mut children.full, id)
    } else if *first == "*" {
        match children.star.as_deref_mut() {
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
        match children.literal.get_mut(first) {
            Some(next) => {
                let removed = remove_at(next, rest, id);
                if next.is_empty() {
                    children.literal.remove(first);
                }
                removed
            }
            None => false,
        }
    };
    if children.is_empty() {
        node.children = None;
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::{FEW_MAX, InterestIndex, Literal};
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

    fn literal_of_root(index: &InterestIndex<usize>) -> Option<&Literal<usize>> {
        index.root.children.as_ref().map(|c| &c.literal)
    }

    #[test]
    fn many_children_go_to_a_map_and_back() {
        let names: Vec<String> = (0..20).map(|i| format!("E{i}.X")).collect();
        let mut index = InterestIndex::new();
        for (id, p) in names.iter().enumerate() {
            index.insert(&Subject::parse(p, Mode::Listen).unwrap(), id);
            let many = matches!(literal_of_root(&index), Some(Literal::Many(_)));
            assert_eq!(many, id >= FEW_MAX, "{id}");
        }
        for (id, p) in names.iter().enumerate() {
            let s = Subject::parse(p, Mode::Listen).unwrap();
            assert_eq!(index.lookup(&s), [id]);
        }
        for (id, p) in names.iter().enumerate().skip(FEW_MAX / 2) {
            assert!(index.remove(&Subject::parse(p, Mode::Listen).unwrap(), id));
        }
        assert!(matches!(literal_of_root(&index), Some(Literal::Few(v)) if v.len() == FEW_MAX / 2));
        for (id, p) in names.iter().enumerate().take(FEW_MAX / 2) {
            let s = Subject::parse(p, Mode::Listen).unwrap();
            assert_eq!(index.lookup(&s), [id]);
        }
    }
}
