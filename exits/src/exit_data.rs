//! The exit user data convention of the built-in exits: `key=value` items
//! separated by blanks or commas, e.g. `separator=/ prefix=DEV`.
//! (MQ's EXITDATA is free text; each exit defines its own. External exits get
//! the string as written.)

/// A malformed item in an exit data string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("exit data item {item:?} at character {position}: {problem}")]
pub struct ExitDataError {
    /// The item as written.
    pub item: String,
    /// Character offset of the item in the exit data string.
    pub position: usize,
    pub problem: &'static str,
}

/// The `key=value` items of `data`, in order. Empty data yields nothing.
pub fn items(data: &str) -> impl Iterator<Item = Result<(&str, &str), ExitDataError>> {
    data.char_indices()
        .filter(|&(i, c)| !is_gap(c) && data[..i].chars().next_back().is_none_or(is_gap))
        .map(move |(start, _)| {
            let end = data[start..].find(is_gap).map_or(data.len(), |n| start + n);
            let item = &data[start..end];
            let position = data[..start].chars().count();
            match item.split_once('=') {
                Some((k, v)) if !k.is_empty() => Ok((k, v)),
                _ => Err(ExitDataError {
                    item: item.to_string(),
                    position,
                    problem: "expected key=value",
                }),
            }
        })
}

fn is_gap(c: char) -> bool {
    c == ',' || c.is_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_split_on_blanks_and_commas() {
        let v: Vec<_> = items(" separator=/, prefix=DEV  invalid=pass")
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            v,
            [("separator", "/"), ("prefix", "DEV"), ("invalid", "pass")]
        );
        assert_eq!(items("").count(), 0);
        assert_eq!(items("prefix=").next().unwrap().unwrap(), ("prefix", ""));
    }

    #[test]
    fn items_without_equals_are_errors_with_position() {
        let e = items("prefix=DEV oops").nth(1).unwrap().unwrap_err();
        assert_eq!(e.item, "oops");
        assert_eq!(e.position, 11);
        assert!(items("=x").next().unwrap().is_err());
    }
}
