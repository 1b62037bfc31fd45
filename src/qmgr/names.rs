//! MQ object names (IBM MQ "Rules for naming IBM MQ objects").

use super::QmError;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::constants::len;

/// Most characters of a value that an error message repeats.
pub const SHOWN_CHARS: usize = 64;

/// `text` as an error message quotes it: in full (Rust string quoting) when
/// it has at most [`SHOWN_CHARS`] characters, else its first
/// [`SHOWN_CHARS`] characters, `…` and its length in bytes, e.g.
/// `"QQQQ…"… (5000 bytes)`, so an overlong request is never echoed whole.
pub fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &text[..cut], text.len()),
    }
}

/// Checks an object name: 1 to `max` characters from `A-Z a-z 0-9 . / _ %`, no
/// blanks (IBM MQ "Rules for naming IBM MQ objects"). Returns what is wrong.
pub fn check_object_name(name: &str, max: usize) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    let count = name.chars().count();
    if count > max {
        return Err(format!(
            "the name {} has {count} characters; at most {max} are allowed",
            shown(name)
        ));
    }
    if let Some((i, c)) = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '%')))
    {
        return Err(format!(
            "the name {} has {c:?} at position {i}; MQ names use A-Z a-z 0-9 . / _ %",
            shown(name)
        ));
    }
    Ok(())
}

/// Checks a queue name given to the queue manager API (put, get, browse): 2152
/// MQRC_OBJECT_NAME_ERROR naming what is wrong (IBM MQ "Rules for naming IBM MQ
/// objects": at most 48 characters from `A-Z a-z 0-9 . / _ %`).
pub fn check_q_name(name: &str) -> Result<(), QmError> {
    check_object_name(name, len::Q_NAME)
        .map_err(|e| QmError::new(Mqrc::OBJECT_NAME_ERROR, format!("queue name: {e}")))
}

/// Checks a queue manager name (empty = the local one): 2058
/// MQRC_Q_MGR_NAME_ERROR naming what is wrong (at most 48 characters, same
/// character set as queue names; IBM MQ "Rules for naming IBM MQ objects").
pub fn check_q_mgr_name(name: &str) -> Result<(), QmError> {
    if name.is_empty() {
        return Ok(());
    }
    check_object_name(name, len::Q_MGR_NAME)
        .map_err(|e| QmError::new(Mqrc::Q_MGR_NAME_ERROR, format!("queue manager name: {e}")))
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
        // IBM MQ "Rules for naming IBM MQ objects": A-Z a-z 0-9 . / _ %, 48 for queues.
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
    fn api_names_get_2152_or_2058() {
        // IBM MQ reason codes 2152 OBJECT_NAME_ERROR, 2058 Q_MGR_NAME_ERROR; IBM MQ
        // "Rules for naming IBM MQ objects": 48 characters, A-Z a-z 0-9 . / _ %.
        let e = check_q_name(&"Q".repeat(49)).unwrap_err();
        assert_eq!(e.mqrc, Mqrc(2152));
        assert!(e.message.contains("49 characters"), "{}", e.message);
        assert_eq!(check_q_name("DEV.a b").unwrap_err().mqrc, Mqrc(2152));
        assert!(check_q_name("DEV.é").unwrap_err().message.contains("'é'"));
        assert!(check_q_name(&"Q".repeat(48)).is_ok());
        assert_eq!(check_q_mgr_name("bad name").unwrap_err().mqrc, Mqrc(2058));
        assert!(check_q_mgr_name("").is_ok());
        assert!(check_q_mgr_name("QM1").is_ok());
    }

    #[test]
    fn overlong_values_are_cut_in_errors() {
        assert_eq!(shown("APP.IN"), "\"APP.IN\"");
        let exact = "Q".repeat(SHOWN_CHARS);
        assert_eq!(shown(&exact), format!("{exact:?}"));
        let long = "é".repeat(300);
        let cut = format!("{:?}… (600 bytes)", "é".repeat(SHOWN_CHARS));
        assert_eq!(shown(&long), cut);
        let e = check_object_name(&"Q".repeat(5000), 48).unwrap_err();
        assert!(e.contains("… (5000 bytes) has 5000 characters"), "{e}");
        assert!(e.len() < 200, "{e}");
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
