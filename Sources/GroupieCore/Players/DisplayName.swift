import Foundation

/// The rules for names people type: players' names and groups' names.
///
/// A name is bounded three ways, because each unit is what some part of the system pays for:
/// characters as a person counts them (what fits on a phone), UTF-8 bytes (what storage, ZIP
/// entries and caption layout pay for), and marks per character (one visible character may
/// otherwise carry thousands of combining marks).
public enum DisplayName {
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong(maximum: Int)
        case tooManyBytes(maximum: Int)
        case tooManyMarks(maximum: Int)
        case forbiddenCharacter
        case invisible
    }

    /// The bounds of one kind of name.
    public struct Limits: Sendable, Equatable {
        /// Characters as a person counts them (grapheme clusters).
        public var characters: Int
        /// Bytes of UTF-8.
        public var bytes: Int

        public init(characters: Int, bytes: Int) {
            self.characters = characters
            self.bytes = bytes
        }
    }

    public static let player = Limits(characters: 32, bytes: 128)
    public static let group = Limits(characters: 40, bytes: 160)
    /// Combining marks on one character: Vietnamese needs two, no script needs more than four.
    public static let maximumMarksPerCharacter = 4
    /// Unicode scalars in one character: an emoji family with skin tones has eleven.
    public static let maximumScalarsPerCharacter = 16

    /// Trimmed, in Unicode NFC, within `limits`, without control or invisible formatting
    /// characters, and with at least one visible character.
    public static func validated(_ raw: String, limits: Limits = player) -> Result<String, Problem> {
        // Bounded before any Unicode work, so that a hostile megabyte costs nothing.
        guard raw.utf8.count <= limits.bytes * 4 else { return .failure(.tooManyBytes(maximum: limits.bytes)) }
        let name = raw.precomposedStringWithCanonicalMapping.trimmingWhitespace()
        guard !name.isEmpty else { return .failure(.empty) }
        guard name.utf8.count <= limits.bytes else { return .failure(.tooManyBytes(maximum: limits.bytes)) }
        for scalar in name.unicodeScalars where isForbidden(scalar) {
            return .failure(.forbiddenCharacter)
        }
        for character in name {
            let scalars = character.unicodeScalars
            guard scalars.count <= maximumScalarsPerCharacter,
                scalars.lazy.filter(isMark).count <= maximumMarksPerCharacter
            else { return .failure(.tooManyMarks(maximum: maximumMarksPerCharacter)) }
        }
        guard name.count <= limits.characters else { return .failure(.tooLong(maximum: limits.characters)) }
        guard name.unicodeScalars.contains(where: isVisible) else { return .failure(.invisible) }
        return .success(name)
    }

    /// A stored name cut to `limits` at a character boundary: for names stored before the
    /// limits were what they are now.
    public static func shortened(_ name: String, limits: Limits = player) -> String {
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: name.unicodeScalars.filter { !isForbidden($0) })
        var result = ""
        var bytes = 0
        for character in String(cleaned).precomposedStringWithCanonicalMapping.prefix(limits.characters) {
            let scalars = character.unicodeScalars
            guard scalars.count <= maximumScalarsPerCharacter, scalars.lazy.filter(isMark).count <= maximumMarksPerCharacter else {
                // A character overloaded with marks keeps its base only.
                if let base = scalars.first, bytes + String(base).utf8.count <= limits.bytes {
                    result.unicodeScalars.append(base)
                    bytes += String(base).utf8.count
                }
                continue
            }
            let size = String(character).utf8.count
            guard bytes + size <= limits.bytes else { break }
            result.append(character)
            bytes += size
        }
        let trimmed = result.trimmingWhitespace()
        return trimmed.unicodeScalars.contains(where: isVisible) ? trimmed : "?"
    }

    /// Control characters, line and paragraph separators, and format characters (bidi
    /// overrides and isolates, zero-width spaces) — except the zero-width joiner that emoji
    /// sequences need.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return true
        case .format:
            return scalar != "\u{200D}"
        default:
            // Whitespace other than the plain space would make names look alike or break layouts.
            return scalar.properties.isWhitespace && scalar != " "
        }
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Whether the scalar draws something: not a space, a mark, a joiner, a variation
    /// selector, a filler (Hangul fillers are letters that draw nothing) or a blank pattern.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint || isMark(scalar) { return false }
        // Braille pattern blank, and the Hangul fillers in case a Unicode table lacks them.
        return !["\u{2800}", "\u{3164}", "\u{FFA0}", "\u{115F}", "\u{1160}"].contains(scalar)
    }
}
