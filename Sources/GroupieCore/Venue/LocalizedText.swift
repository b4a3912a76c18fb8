/// A text that museum staff write once for every language, or per language.
public enum LocalizedText: Sendable, Hashable {
    /// One text for every language (a proper name, a number, a text that needs no translation).
    case plain(String)
    /// Language code to text.
    case translated([String: String])

    /// The text in `language`, else in `fallback`, else any text there is.
    public func resolved(language: String, fallback: String) -> String {
        switch self {
        case .plain(let text):
            return text
        case .translated(let texts):
            if let text = texts[language] { return text }
            if let text = texts[fallback] { return text }
            return texts.sorted { $0.key < $1.key }.first?.value ?? ""
        }
    }

    /// The languages this text was written in, or nil for a plain text.
    public var languages: Set<String>? {
        switch self {
        case .plain: return nil
        case .translated(let texts): return Set(texts.keys)
        }
    }
}
