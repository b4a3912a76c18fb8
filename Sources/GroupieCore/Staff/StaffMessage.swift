import Foundation

/// A short message from a venue's staff to its groups ("We close in 15 minutes"): plain text on
/// one line, 1 to 200 characters. Visitors do not reply; each group's members see it until they
/// dismiss it.
public enum StaffMessage {
    /// The most characters a message has, as people count them.
    public static let maximumLength = 200
    /// The most bytes of UTF-8: 200 characters of most scripts, never a page of emoji.
    public static let maximumBytes = 800

    public enum Refusal: Error, Equatable, Sendable {
        case empty
        case tooLong
    }

    /// The message as groups see it: line breaks, tabs and other control characters become
    /// spaces, runs of spaces one, the ends trimmed; bidi embeddings, overrides and isolates
    /// are dropped, as one left open would reorder whatever a phone or a staff page shows after
    /// the message (right-to-left text needs none of them). Refused when nothing is left or too
    /// much.
    public static func text(_ typed: String) throws(Refusal) -> String {
        var text = ""
        var space = false
        for scalar in typed.unicodeScalars where !isBidiControl(scalar) {
            let blank = scalar.properties.generalCategory == .control || scalar.properties.isWhitespace
                || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
            if blank {
                space = !text.isEmpty
            } else {
                if space { text.unicodeScalars.append(" ") }
                space = false
                text.unicodeScalars.append(scalar)
            }
        }
        // A message of marks and joiners alone would show nothing on the phones.
        guard text.unicodeScalars.contains(where: DisplayName.isVisible) else { throw .empty }
        guard text.count <= maximumLength, text.utf8.count <= maximumBytes else { throw .tooLong }
        return text
    }

    /// U+202A to U+202E (embeddings and overrides) and U+2066 to U+2069 (isolates). The marks
    /// U+200E and U+200F stay: they set the direction of what is next to them and no more.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
