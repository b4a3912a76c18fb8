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

    /// A new random code of `length` characters.
    public static func random(length: Int = 6, using generator: inout some RandomNumberGenerator) -> JoinCode {
        precondition(lengths.contains(length))
        let value = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        return JoinCode(typed: value)!
    }

    public static func random(length: Int = 6) -> JoinCode {
        var generator = SystemRandomNumberGenerator()
        return random(length: length, using: &generator)
    }
}
