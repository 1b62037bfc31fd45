//! Parameter lines → a tree by level number (docs/rpc.md "Reading an IDL
//! file", levels: a deeper level belongs to the nearest preceding lower one; levels must not
//! be skipped).

use super::ast::{ParamKind, Parameter};
use super::error::{IdlError, IdlErrorKind};

/// Turns the parameter lines of one block into a tree by level number; checks
/// that levels are not skipped and that only groups get members (Software
/// AG "Software AG IDL Grammar"; docs/rpc.md "Reading an IDL file"). Members
/// take the direction of their level-1 parent.
pub(crate) fn build_tree(flat: Vec<Parameter>, errors: &mut Vec<IdlError>) -> Vec<Parameter> {
    let mut roots: Vec<Parameter> = Vec::new();
    let mut stack: Vec<Parameter> = Vec::new();
    for mut p in flat {
        while stack.last().is_some_and(|top| top.level >= p.level) {
            close(&mut stack, &mut roots, errors);
        }
        let max_allowed = stack.last().map_or(1, |top| top.level.saturating_add(1));
        if p.level > max_allowed {
            errors.push(IdlError::new(
                p.position,
                IdlErrorKind::SkippedLevel {
                    found: p.level,
                    max_allowed,
                },
            ));
            p.level = max_allowed;
        }
        if let Some(top) = stack.last() {
            if top.kind != ParamKind::Group {
                errors.push(IdlError::new(
                    p.position,
                    IdlErrorKind::NotAGroup {
                        parent: top.name.clone(),
                    },
                ));
            }
            p.direction = top.direction;
        }
        stack.push(p);
    }
    while !stack.is_empty() {
        close(&mut stack, &mut roots, errors);
    }
    roots
}

fn close(stack: &mut Vec<Parameter>, roots: &mut Vec<Parameter>, errors: &mut Vec<IdlError>) {
    let Some(p) = stack.pop() else { return };
    if p.kind == ParamKind::Group && p.members.is_empty() {
        errors.push(IdlError::new(
            p.position,
            IdlErrorKind::EmptyGroup {
                group: p.name.clone(),
            },
        ));
    }
    match stack.last_mut() {
        Some(parent) => parent.members.push(p),
        None => roots.push(p),
    }
}
