//! "Did you mean": the valid name nearest to a misspelt one, for errors about policies, tunables, device kinds
//! and keys. Nearness is Jaro similarity over 0.7, the rule clap uses for subcommands and flags, so that every
//! kind of name in iosched is suggested alike.

/// The candidate most like `name`, if any is like it at all.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro(name, c), c))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// "; did you mean 'X'?" for the nearest candidate, or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(name, candidates).map_or_else(String::new, |c| format!("; did you mean '{c}'?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let policies = ["noop", "deadline", "cfq", "bfq", "kyber"];
        assert_eq!(nearest("cfqq", policies), Some("cfq"));
        assert_eq!(nearest("dealine", policies), Some("deadline"));
        assert_eq!(nearest("xyzzy", policies), None);
        assert_eq!(did_you_mean("kyebr", policies), "; did you mean 'kyber'?");
        assert_eq!(did_you_mean("zzzz", policies), "");
    }
}
