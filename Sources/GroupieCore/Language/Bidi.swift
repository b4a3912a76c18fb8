/// Text in more than one direction laid out as readers expect (the Unicode bidi algorithm's
/// isolates and marks): a line runs in its language's direction whatever letter comes first,
/// and a name or a date within it keeps its own direction without reordering its neighbours.
public enum Bidi {
    /// `text` isolated (FSI … PDI): it takes its own direction from its first strong letter
    /// and cannot move the commas, colons and words around it.
    public static func isolate(_ text: String) -> String {
        "\u{2068}" + text + "\u{2069}"
    }

    /// Each line of `text` opened with the mark of `language`'s direction (RLM or LRM): what
    /// finds a line's direction from its first strong letter (Pango, a browser's `dir=auto`)
    /// finds the language's, not that of a name the line starts with.
    public static func lines(_ text: String, language: String) -> String {
        guard !text.isEmpty else { return text }
        let mark = LanguageCode.isRightToLeft(language) ? "\u{200F}" : "\u{200E}"
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { mark + $0 }.joined(separator: "\n")
    }
}

extension LanguageCode {
    /// Languages written right to left, by their ISO 639-1 code.
    static let rightToLeft: Set<String> = ["ar", "dv", "fa", "he", "ks", "ps", "sd", "ug", "ur", "yi"]

    /// Whether `tag` is written right to left: by its script when it names one (`az-Arab`,
    /// `ku-Latn`), else by its language.
    public static func isRightToLeft(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-").map(String.init)
        if let script = parts.dropFirst().first(where: { $0.count == 4 }) {
            return ["arab", "hebr", "thaa", "syrc", "nkoo", "adlm", "rohg"].contains(script.lowercased())
        }
        return parts.first.map { rightToLeft.contains($0.lowercased()) } ?? false
    }
}
