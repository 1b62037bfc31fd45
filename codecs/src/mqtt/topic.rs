//! Topic Names and Topic Filters (5.0 4.7; 3.1.1 4.7): their rules and the
//! matching of a name by a filter with the `+` and `#` wildcards.

/// Why a Topic Name or Topic Filter is not valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopicError {
    /// Empty (5.0 4.7.3 [MQTT-4.7.3-1]).
    Empty,
    /// A wildcard in a Topic Name (5.0 3.3.2.1 [MQTT-3.3.2-2]).
    WildcardInName,
    /// `#` not alone in the last level of a filter (5.0 4.7.1.2 [MQTT-4.7.1-1]).
    MultiLevelWildcard,
    /// `+` not alone in its level (5.0 4.7.1.3 [MQTT-4.7.1-2]).
    SingleLevelWildcard,
}

impl std::fmt::Display for TopicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TopicError::Empty => "topic is empty",
            TopicError::WildcardInName => "a Topic Name must not hold + or #",
            TopicError::MultiLevelWildcard => "# must be alone in the last level",
            TopicError::SingleLevelWildcard => "+ must be alone in its level",
        })
    }
}

/// Checks a Topic Name (a PUBLISH's topic, a Will Topic).
pub fn check_name(name: &str) -> Result<(), TopicError> {
    if name.is_empty() {
        return Err(TopicError::Empty);
    }
    if name.contains(['+', '#']) {
        return Err(TopicError::WildcardInName);
    }
    Ok(())
}

/// Checks a Topic Filter.
pub fn check_filter(filter: &str) -> Result<(), TopicError> {
    if filter.is_empty() {
        return Err(TopicError::Empty);
    }
    let levels: Vec<&str> = filter.split('/').collect();
    for (i, level) in levels.iter().enumerate() {
        if level.contains('#') && (*level != "#" || i + 1 != levels.len()) {
            return Err(TopicError::MultiLevelWildcard);
        }
        if level.contains('+') && *level != "+" {
            return Err(TopicError::SingleLevelWildcard);
        }
    }
    Ok(())
}

/// True when `filter` (valid, [`check_filter`]) matches Topic Name `name`:
/// levels split at `/`, `+` one whole level, `#` the parent level and every
/// level below it (5.0 4.7.1.2: `sport/#` matches `sport`); a wildcard in
/// the first level never matches a name starting with `$` (4.7.2).
pub fn matches(filter: &str, name: &str) -> bool {
    if name.starts_with('$') && filter.starts_with(['+', '#']) {
        return false;
    }
    let mut f = filter.split('/');
    let mut n = name.split('/');
    loop {
        match (f.next(), n.next()) {
            (Some("#"), _) => return true,
            (Some("+"), Some(_)) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, None) => return true,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specification_examples() {
        // 5.0 4.7.1.2: "sport/tennis/player1/#" matches these three.
        for n in [
            "sport/tennis/player1",
            "sport/tennis/player1/ranking",
            "sport/tennis/player1/score/wimbledon",
        ] {
            assert!(matches("sport/tennis/player1/#", n), "{n}");
        }
        // "sport/#" also matches the singular "sport".
        assert!(matches("sport/#", "sport"));
        assert!(matches("#", "sport/tennis"));
        // 4.7.1.3: "sport/tennis/+" matches "sport/tennis/player1" but not
        // "sport/tennis/player1/ranking"; "sport/+" does not match "sport"
        // but matches "sport/".
        assert!(matches("sport/tennis/+", "sport/tennis/player1"));
        assert!(!matches("sport/tennis/+", "sport/tennis/player1/ranking"));
        assert!(!matches("sport/+", "sport"));
        assert!(matches("sport/+", "sport/"));
        assert!(matches("+/+", "/finance"));
        assert!(matches("/+", "/finance"));
        assert!(!matches("+", "/finance"));
        // 4.7.2: $-topics and wildcards.
        assert!(!matches("#", "$SYS/broker"));
        assert!(!matches("+/monitor/Clients", "$SYS/monitor/Clients"));
        assert!(matches("$SYS/#", "$SYS/broker"));
        // 4.7.1.2 and 4.7.1.3: valid and invalid filters.
        for ok in ["#", "sport/#", "+", "+/tennis/#", "sport/+/player1", "/"] {
            assert_eq!(check_filter(ok), Ok(()), "{ok}");
        }
        assert_eq!(
            check_filter("sport/tennis#"),
            Err(TopicError::MultiLevelWildcard)
        );
        assert_eq!(
            check_filter("sport/tennis/#/ranking"),
            Err(TopicError::MultiLevelWildcard)
        );
        assert_eq!(check_filter("sport+"), Err(TopicError::SingleLevelWildcard));
        assert_eq!(check_filter(""), Err(TopicError::Empty));
        assert_eq!(check_name("a/+"), Err(TopicError::WildcardInName));
        assert_eq!(check_name(""), Err(TopicError::Empty));
        assert_eq!(check_name("INBOX"), Ok(()));
    }
}
