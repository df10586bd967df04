//! Chinese typesetting of messages assembled from pieces: a space where Latin text meets
//! Chinese, as the hover docs write it. The pieces themselves are rendered in Chinese by the
//! values they describe (`python::labels`, `StartMethod::describe`, `Provenance::note`).

/// Joins pieces of Chinese text, with a space where Latin text meets Chinese, as the hover
/// docs write it ("传入的 lambda 还需", "传入的嵌套函数还需").
pub(crate) fn join(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        if let (Some(before), Some(after)) = (out.chars().last(), part.chars().next())
            && is_ideograph(before) != is_ideograph(after)
            && [before, after]
                .iter()
                .all(|c| !c.is_whitespace() && (is_ideograph(*c) || !is_cjk(*c)))
        {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}')
}

/// CJK ideographs and full-width punctuation.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words_get_spaces_between_chinese() {
        assert_eq!(join(&["传入的", "lambda", "还需"]), "传入的 lambda 还需");
        assert_eq!(join(&["传入的", "嵌套函数", "还需"]), "传入的嵌套函数还需");
        assert_eq!(join(&["`f`", "（由"]), "`f`（由");
    }
}
