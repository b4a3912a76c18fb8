import Foundation

/// The names of the folders and files in an album download: safe on every system, short
/// enough for every unzipper, and, when shortened, cut where a line may break (after a space
/// or a punctuation mark, or between two Japanese or Chinese characters), never inside a word,
/// a character or a UTF-8 sequence, with "…" to show that something was left out. A photo's
/// file keeps its photographer's name whole: its task's prompt gives way.
enum EntryName {
    /// At most this many characters and bytes of UTF-8 (file systems allow 255 bytes: the
    /// extension and a " (2)" for a name taken twice fit in what is left).
    static let maxCharacters = 80
    static let maxBytes = 240
    static let ellipsis: Character = "…"
    static let separator = " - "

    /// `text` without separators, control or reserved characters, not empty, at most
    /// `maxCharacters` and `maxBytes`, shortened at a word's end.
    static func safe(_ text: String, maxCharacters: Int = EntryName.maxCharacters, maxBytes: Int = EntryName.maxBytes) -> String {
        let cleaned = trimmed(String(clean(text)))
        let short = shortened(cleaned, maxCharacters: maxCharacters, maxBytes: maxBytes)
        return short.isEmpty ? "_" : short
    }

    /// A photo's file name without its extension: `task - photographer`, the photographer's
    /// name whole and the task shortened to what is left.
    static func photo(task: String, photographer: String) -> String {
        // Visitors' names have at most 32 characters; a longer one (a staff upload, an old
        // record) gives way too, but keeps its start.
        let name = safe(photographer, maxCharacters: 40, maxBytes: 120)
        let roomCharacters = maxCharacters - separator.count - name.count
        let roomBytes = maxBytes - separator.utf8.count - name.utf8.count
        let task = trimmed(String(clean(task)))
        let shortTask = shortened(task, maxCharacters: roomCharacters, maxBytes: roomBytes)
        return (shortTask.isEmpty ? "_" : shortTask) + separator + name
    }

    // MARK: The rule

    /// Characters that are path separators, control or format characters (but the joiner of
    /// emoji sequences) or reserved on Windows become "_", checked scalar by scalar: a "/" that
    /// a combining mark joins into one character is a separator all the same.
    static func clean(_ text: String) -> [Character] {
        let reserved: Set<Unicode.Scalar> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]
        return text.map { character in
            character.unicodeScalars.contains {
                reserved.contains($0) || $0.properties.generalCategory == .control || $0.properties.generalCategory == .format && $0 != "\u{200D}"
            } ? "_" : character
        }
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: ".")))
    }

    /// `text` as it is when it fits; else its longest start that ends at a break and leaves room
    /// for "…", then "…". A start with no break in it (one long word) is cut between two
    /// characters, which keeps every character whole.
    static func shortened(_ text: String, maxCharacters: Int, maxBytes: Int) -> String {
        let characters = Array(text)
        if characters.count <= maxCharacters, text.utf8.count <= maxBytes { return text }
        guard maxCharacters > 1, maxBytes > String(ellipsis).utf8.count else { return "" }
        // The longest start that fits with the ellipsis.
        var fits = 0, bytes = String(ellipsis).utf8.count
        while fits < characters.count, fits + 1 < maxCharacters, bytes + characters[fits].utf8.count <= maxBytes {
            bytes += characters[fits].utf8.count
            fits += 1
        }
        var cut = fits
        while cut > 0, !isBreak(characters, at: cut) { cut -= 1 }
        // No break at all, or only one in the first few characters: the word is cut instead.
        if cut < min(fits, 8) { cut = fits }
        var start = String(characters[..<cut])
        while let last = start.last, last.isWhitespace || isTrailingPunctuation(last) { start.removeLast() }
        return start.isEmpty ? "" : start + String(ellipsis)
    }

    /// Whether a line may break before `characters[index]`: after a space or a punctuation
    /// mark, before a space, or beside a character of a script written without spaces
    /// (ideographs, kana, emoji).
    static func isBreak(_ characters: [Character], at index: Int) -> Bool {
        guard index > 0, index < characters.count else { return index > 0 }
        let before = characters[index - 1], after = characters[index]
        if after.isWhitespace || before.isWhitespace { return true }
        if before.isPunctuation && !isJoiningPunctuation(before) { return true }
        return isUnspaced(before) || isUnspaced(after)
    }

    /// Marks inside a word rather than after one: "it's", "e.g", "9.5", "Saint-Malo".
    static func isJoiningPunctuation(_ character: Character) -> Bool {
        ["'", "’", ".", "-", "‐", "_"].contains(character)
    }

    static func isTrailingPunctuation(_ character: Character) -> Bool {
        [",", ";", "-", "–", "—", "(", "[", "、", "・", "«", "“", "‘", "「", "『", "،", "_"].contains(character)
    }

    /// Han ideographs, hiragana, katakana, hangul syllables are written without spaces and may
    /// break between any two; so may emoji.
    static func isUnspaced(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        if scalar.properties.isEmojiPresentation || (character.unicodeScalars.count > 1 && scalar.properties.isEmoji && scalar.value > 0xFF) {
            return true
        }
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x2FA1F, 0xAC00...0xD7AF:
            return true
        case 0x3000...0x303F, 0xFF00...0xFF65:
            // Ideographic punctuation: 、。「」 and full-width forms.
            return true
        default:
            return false
        }
    }
}
