//! MQ object names (spec: mq-structures.md §11).

/// Checks an object name: 1 to `max` characters from `A-Z a-z 0-9 . / _ %`,
/// no blanks (spec: mq-structures.md §11). Returns what is wrong.
pub fn check_object_name(name: &str, max: usize) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    let count = name.chars().count();
    if count > max {
        return Err(format!(
            "the name {name:?} has {count} characters; at most {max} are allowed"
        ));
    }
    if let Some((i, c)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '%')))
    {
        return Err(format!(
            "the name {name:?} has {c:?} at position {i}; MQ names use A-Z a-z 0-9 . / _ %"
        ));
    }
    Ok(())
}

/// A model queue's DynamicQName pattern: `*` matches any (possibly empty) tail,
/// elsewhere characters match themselves.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Checks a DynamicQName pattern: an object name whose last character may be `*`.
pub fn check_pattern(pattern: &str, max: usize) -> Result<(), String> {
    let body = pattern.strip_suffix('*').unwrap_or(pattern);
    if body.is_empty() {
        return Err("a pattern needs at least one character before `*`".into());
    }
    check_object_name(body, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_mq_character_rules() {
        // spec: mq-structures.md §11: A-Z a-z 0-9 . / _ %, 48 for queues.
        assert!(check_object_name("SYSTEM.DEAD.LETTER.QUEUE", 48).is_ok());
        assert!(check_object_name("a/b_c%d", 48).is_ok());
        assert!(
            check_object_name("BAD NAME", 48)
                .unwrap_err()
                .contains("position 3")
        );
        assert!(check_object_name("Q-1", 48).unwrap_err().contains("'-'"));
        assert!(
            check_object_name(&"Q".repeat(49), 48)
                .unwrap_err()
                .contains("49 characters")
        );
        assert!(check_object_name("", 48).is_err());
    }

    #[test]
    fn patterns_match_a_prefix() {
        assert!(matches_pattern("DEVICE.*", "DEVICE.A1"));
        assert!(!matches_pattern("DEVICE.*", "DEVICES.A1"));
        assert!(matches_pattern("EXACT", "EXACT"));
        assert!(check_pattern("*", 48).is_err());
        assert!(check_pattern("DEV.*", 48).is_ok());
    }
}
