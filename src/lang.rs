//! The language of everything dldoctor says to a person: rule messages and fix titles in the
//! editor, hover text, and the knowledge base's fields. English, or Chinese from the `_zh`
//! text beside it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// An IETF tag as editors send it ("zh-cn", "zh-Hans", "en-US"); anything not Chinese is
    /// English.
    pub fn from_tag(tag: &str) -> Self {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// `zh` where this is Chinese and a Chinese text exists, else `en`.
    pub fn pick<'a>(self, en: &'a str, zh: Option<&'a str>) -> &'a str {
        match (self, zh) {
            (Lang::Zh, Some(zh)) if !zh.trim().is_empty() => zh,
            _ => en,
        }
    }
}

/// The strict reading, for a command-line flag or a file: `en`, `zh` or a tag of one of them.
impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        if lower == "en" || lower.starts_with("en-") || lower.starts_with("en_") {
            Ok(Lang::En)
        } else if lower == "zh" || lower.starts_with("zh-") || lower.starts_with("zh_") {
            Ok(Lang::Zh)
        } else {
            Err(format!("unknown language `{s}` (expected en or zh)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_names() {
        assert_eq!(Lang::from_tag("zh-Hans"), Lang::Zh);
        assert_eq!(Lang::from_tag("en-US"), Lang::En);
        assert_eq!(Lang::from_tag("fr"), Lang::En);
        assert_eq!("zh_CN".parse::<Lang>(), Ok(Lang::Zh));
        assert!("fr".parse::<Lang>().is_err());
    }

    #[test]
    fn picks_chinese_only_where_there_is_some() {
        assert_eq!(Lang::Zh.pick("a", Some("甲")), "甲");
        assert_eq!(Lang::Zh.pick("a", Some(" ")), "a");
        assert_eq!(Lang::Zh.pick("a", None), "a");
        assert_eq!(Lang::En.pick("a", Some("甲")), "a");
    }
}
