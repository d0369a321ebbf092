//! A label value in Prometheus' text exposition: backslash, double quote and newline escaped,
//! as the format asks. Shared by every family the metrics render.

/// `s` as it may stand between a label's double quotes.
pub(crate) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn quotes_backslashes_and_newlines_are_escaped() {
        assert_eq!(super::escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
