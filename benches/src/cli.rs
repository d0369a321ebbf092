//! Value parsers shared by the load generators' command lines (`dubbo-load`, `triple-load`).

/// A count over 0.
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{s:?} is not a positive integer")),
    }
}

/// A number of seconds over 0.
pub fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a positive number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_seconds_must_be_over_zero() {
        assert_eq!(at_least_one("3"), Ok(3));
        assert!(at_least_one("0").is_err());
        assert!(at_least_one("x").is_err());
        assert_eq!(positive("0.5"), Ok(0.5));
        assert!(positive("0").is_err());
        assert!(positive("-1").is_err());
    }
}
