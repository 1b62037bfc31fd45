//! Checks across a parsed file: name rules, struct references, struct cycles
//! (Software AG "Software AG IDL Grammar"; docs/rpc.md "Reading an IDL file").

use std::collections::HashMap;

use super::ast::{IdlFile, Library, ParamKind, Parameter, Position};
use super::error::{IdlError, IdlErrorKind};

/// Longest struct name in characters (docs/rpc.md).
pub const MAX_STRUCT_NAME: usize = 31;
/// Longest library, program or alias name in characters (docs/rpc.md).
pub const MAX_NAME: usize = 128;

fn fold(name: &str) -> String {
    name.to_lowercase()
}

fn check_name(name: &str, max: usize, at: Position, errors: &mut Vec<IdlError>) {
    if name.chars().count() > max {
        errors.push(IdlError::new(
            at,
            IdlErrorKind::NameTooLong {
                name: name.to_string(),
                max,
            },
        ));
    }
    if name.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("SAG")) {
        errors.push(IdlError::new(
            at,
            IdlErrorKind::ReservedName {
                name: name.to_string(),
            },
        ));
    }
}

/// The name and, when it differs after case folding, the alias: an alias equal
/// to its own name is no clash.
fn names_of<'a>(name: &'a String, alias: Option<&'a String>) -> impl Iterator<Item = &'a String> {
    std::iter::once(name).chain(alias.filter(|a| fold(a) != fold(name)))
}

/// Adds every name-rule, struct-reference and cycle fault of `file` to `errors`.
pub(crate) fn check_file(file: &IdlFile, errors: &mut Vec<IdlError>) {
    let mut library_names: HashMap<String, ()> = HashMap::new();
    for library in &file.libraries {
        for name in names_of(&library.name, library.alias.as_ref()) {
            check_name(name, MAX_NAME, library.position, errors);
            if library_names.insert(fold(name), ()).is_some() {
                errors.push(IdlError::new(
                    library.position,
                    IdlErrorKind::LibraryNameClash { name: name.clone() },
                ));
            }
        }
        check_library(library, errors);
    }
}

fn check_library(library: &Library, errors: &mut Vec<IdlError>) {
    let mut program_names: HashMap<String, ()> = HashMap::new();
    for program in &library.programs {
        for name in names_of(&program.name, program.alias.as_ref()) {
            check_name(name, MAX_NAME, program.position, errors);
            if program_names.insert(fold(name), ()).is_some() {
                errors.push(IdlError::new(
                    program.position,
                    IdlErrorKind::ProgramNameClash { name: name.clone() },
                ));
            }
        }
        check_siblings(&program.params, errors);
    }
    let mut struct_index: HashMap<String, usize> = HashMap::new();
    for (i, s) in library.structs.iter().enumerate() {
        check_name(&s.name, MAX_STRUCT_NAME, s.position, errors);
        if struct_index.insert(fold(&s.name), i).is_some() {
            errors.push(IdlError::new(
                s.position,
                IdlErrorKind::DuplicateName {
                    name: s.name.clone(),
                },
            ));
        }
        check_siblings(&s.params, errors);
    }
    // Every reference must name a struct of this library.
    let mut edges: Vec<Vec<(usize, Position)>> = vec![Vec::new(); library.structs.len()];
    for program in &library.programs {
        for_each_ref(&program.params, &mut |name, at| {
            if !struct_index.contains_key(&fold(name)) {
                errors.push(undefined(name, at));
            }
        });
    }
    for (i, s) in library.structs.iter().enumerate() {
        for_each_ref(
            &s.params,
            &mut |name, at| match struct_index.get(&fold(name)) {
                Some(&j) => edges[i].push((j, at)),
                None => errors.push(undefined(name, at)),
            },
        );
    }
    find_cycles(library, &edges, errors);
}

fn undefined(name: &str, at: Position) -> IdlError {
    IdlError::new(
        at,
        IdlErrorKind::UndefinedStruct {
            name: name.to_string(),
        },
    )
}

/// Sibling names must differ after case folding; checked level by level.
fn check_siblings(params: &[Parameter], errors: &mut Vec<IdlError>) {
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut pending: Vec<&[Parameter]> = vec![params];
    while let Some(list) = pending.pop() {
        seen.clear();
        for p in list {
            if seen.insert(fold(&p.name), ()).is_some() {
                errors.push(IdlError::new(
                    p.position,
                    IdlErrorKind::DuplicateName {
                        name: p.name.clone(),
                    },
                ));
            }
            if !p.members.is_empty() {
                pending.push(&p.members);
            }
        }
    }
}

fn for_each_ref(params: &[Parameter], f: &mut impl FnMut(&str, Position)) {
    let mut pending: Vec<&Parameter> = params.iter().rev().collect();
    while let Some(p) = pending.pop() {
        if let ParamKind::StructRef(name) = &p.kind {
            f(name, p.position);
        }
        pending.extend(p.members.iter().rev());
    }
}

/// Depth-first search without recursion (a long chain of structs must not
/// exhaust the stack); each back edge is one self-reference (20010003).
fn find_cycles(library: &Library, edges: &[Vec<(usize, Position)>], errors: &mut Vec<IdlError>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour = vec![Colour::White; edges.len()];
    for start in 0..edges.len() {
        if colour[start] != Colour::White {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = Colour::Grey;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(target, at)) = edges[node].get(*next) {
                *next += 1;
                match colour[target] {
                    Colour::White => {
                        colour[target] = Colour::Grey;
                        stack.push((target, 0));
                    }
                    Colour::Grey => {
                        let from = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
                        let mut cycle: Vec<String> = stack[from..]
                            .iter()
                            .map(|&(n, _)| library.structs[n].name.clone())
                            .collect();
                        cycle.push(library.structs[target].name.clone());
                        errors.push(IdlError::new(
                            at,
                            IdlErrorKind::SelfReferencingStruct { cycle },
                        ));
                    }
                    Colour::Black => {}
                }
            } else {
                colour[node] = Colour::Black;
                stack.pop();
            }
        }
    }
}
