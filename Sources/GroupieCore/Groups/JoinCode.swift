/// The short code a group is joined by: typed from a screen or read from a QR code.
/// Its alphabet leaves out characters that look alike (0/O, 1/I/L), and it is read
/// case-insensitively, with spaces and dashes ignored.
public struct JoinCode: Sendable, Hashable, CustomStringConvertible {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let lengths = 6...8

    /// Upper case, only alphabet characters.
    public let value: String

    public var description: String { value }

    /// Reads a code as a person typed it; nil when it cannot be a code at all.
    public init?(typed: String) {
        let cleaned = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard Self.lengths.contains(cleaned.count), cleaned.allSatisfy(Self.alphabet.contains) else { return nil }
        self.value = cleaned
    }

    /// A new random code of `length` characters that spells no word of `blockedWords`.
    public static func random(length: Int = 6, using generator: inout some RandomNumberGenerator) -> JoinCode {
        precondition(lengths.contains(length))
        while true {
            let value = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if !spellsBlockedWord(value) { return JoinCode(typed: value)! }
        }
    }

    /// Words a code shown to children must not spell, in the venues' languages (English,
    /// Swedish, French, German), written with the letters of the alphabet only: the others
    /// cannot appear in a code.
    public static let blockedWords: [String] = [
        // English
        "ASS", "CUM", "CUNT", "DAMN", "DYKE", "FAG", "FUCK", "FUK", "FUX", "GAY", "JEW", "NAZ", "NGGR", "NGGA",
        "PENS", "PUSSY", "RAPE", "SEX", "SHT", "TWAT", "WANK", "XXX", "DEAD", "KKK", "PSS", "WTF",
        // Swedish
        "KUK", "FAN", "HYNDA", "SATAN", "SKT", "PATTAR", "RUMPA", "NEGER", "BAJS",
        // French
        "PUTE", "MERDE", "CACA", "NEGRE", "TEUB", "ZEB",
        // German
        "ARSCH", "FUTZ", "KACKE", "NUTTE", "SAU", "HURE",
    ]

    /// Digits read as the letters they resemble, for the check: `A55` spells `ASS`.
    private static let lookAlikes: [Character: Character] = ["2": "Z", "3": "E", "4": "A", "5": "S", "6": "G", "7": "T", "8": "B", "9": "G"]

    /// Whether `code` (upper case) contains a blocked word, digits read as letters.
    public static func spellsBlockedWord(_ code: String) -> Bool {
        let read = String(code.map { lookAlikes[$0] ?? $0 })
        return blockedWords.contains { read.contains($0) }
    }

    public static func random(length: Int = 6) -> JoinCode {
        var generator = SystemRandomNumberGenerator()
        return random(length: length, using: &generator)
    }
}
