//! JSON pointers (RFC 6901), as the kit writes them into its errors: every
//! input problem names the file and the pointer of the member at fault, and
//! a member's name may hold `/` or `~` (a file path, a header name).

/// One reference token, escaped: `~` becomes `~0`, then `/` becomes `~1`
/// (in that order, so an escaped `/` is never read back as `~` and `1`).
pub fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Append `key` to `out` as one reference token, escaped as [`token`]
/// escapes it, without a string of its own: for walks that extend one
/// pointer member by member.
pub fn push_token(out: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// `parent` extended by the member `key` (escaped).
pub fn child(parent: &str, key: &str) -> String {
    format!("{parent}/{}", token(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_escapes_tilde_before_slash() {
        assert_eq!(token("a/b~c"), "a~1b~0c");
        // `~1` in a key stays the key's: it must not read back as `/`.
        assert_eq!(token("~1"), "~01");
        assert_eq!(token("plain"), "plain");
        for key in ["a/b~c", "~1", "plain", "", "//~~", "é/~"] {
            let mut out = String::from("/x/");
            push_token(&mut out, key);
            assert_eq!(out, format!("/x/{}", token(key)), "{key}");
        }
    }

    #[test]
    fn a_child_pointer_resolves_to_the_member_it_names() {
        let value = serde_json::json!({"hooks": {"a/b~c": 1}});
        let pointer = child(&child("", "hooks"), "a/b~c");
        assert_eq!(pointer, "/hooks/a~1b~0c");
        assert_eq!(value.pointer(&pointer), Some(&serde_json::json!(1)));
    }
}
