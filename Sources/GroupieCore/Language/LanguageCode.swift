/// Language codes as mission files and clients use them: an ISO 639-1 language,
/// optionally with an ISO 3166 region or an ISO 15924 script (`sv`, `en-GB`, `zh-Hant`).
public enum LanguageCode {
    /// ISO 639-1, every two-letter code in use.
    public static let iso639_1: Set<String> = [
        "aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az", "ba", "be", "bg", "bi",
        "bm", "bn", "bo", "br", "bs", "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy", "da", "de",
        "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu", "fa", "ff", "fi", "fj", "fo", "fr", "fy",
        "ga", "gd", "gl", "gn", "gu", "gv", "ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz", "ia",
        "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu", "ja", "jv", "ka", "kg", "ki", "kj", "kk",
        "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky", "la", "lb", "lg", "li", "ln", "lo",
        "lt", "lu", "lv", "mg", "mh", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "na", "nb", "nd",
        "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny", "oc", "oj", "om", "or", "os", "pa", "pi", "pl",
        "ps", "pt", "qu", "rm", "rn", "ro", "ru", "rw", "sa", "sc", "sd", "se", "sg", "si", "sk", "sl",
        "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw", "ta", "te", "tg", "th", "ti", "tk",
        "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty", "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa",
        "wo", "xh", "yi", "yo", "za", "zh", "zu",
    ]

    /// The language of a tag without its region or script, lowercased: `en` for `en-GB`, as the
    /// web client names its languages.
    public static func base(_ tag: String) -> String {
        String(tag.lowercased().split(separator: "-").first ?? "")
    }

    public static func isValid(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, iso639_1.contains(String(language)) else { return false }
        switch parts.count {
        case 1:
            return true
        case 2:
            let subtag = parts[1]
            let isRegion = subtag.count == 2 && subtag.allSatisfy { $0.isASCII && $0.isUppercase }
            let isScript = subtag.count == 4 && subtag.first!.isUppercase
                && subtag.allSatisfy { $0.isASCII && $0.isLetter } && subtag.dropFirst().allSatisfy { $0.isLowercase }
            return isRegion || isScript
        default:
            return false
        }
    }

    /// A language tag of the shape BCP 47 gives (`sv`, `en-GB`, `de-CH-1996`), at most 35
    /// characters: what a visitor's phone may say it prefers. Unlike a venue's languages it
    /// need not be one Groupie knows; one no venue offers falls back like any other.
    public static func isWellFormed(_ tag: String) -> Bool {
        guard (2...35).contains(tag.utf8.count) else { return false }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.utf8.count),
            language.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return false }
        return parts.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.utf8.count)
                && subtag.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        }
    }
}
