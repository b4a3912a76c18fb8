import Foundation

/// The rules for names people type: players' names and groups' names.
public enum DisplayName {
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong(maximum: Int)
        case forbiddenCharacter
    }

    public static let playerMaximum = 32
    public static let groupMaximum = 40

    /// Trimmed, in Unicode NFC, 1...`maximum` characters as a person counts them (an emoji
    /// with its modifiers is one), without control or invisible formatting characters.
    public static func validated(_ raw: String, maximum: Int = playerMaximum) -> Result<String, Problem> {
        let name = raw.precomposedStringWithCanonicalMapping.trimmingWhitespace()
        guard !name.isEmpty else { return .failure(.empty) }
        for scalar in name.unicodeScalars where isForbidden(scalar) {
            return .failure(.forbiddenCharacter)
        }
        guard name.count <= maximum else { return .failure(.tooLong(maximum: maximum)) }
        return .success(name)
    }

    /// Control characters, line and paragraph separators, and format characters (bidi
    /// overrides, zero-width spaces) — except the zero-width joiner that emoji sequences need.
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
}
