import Foundation

/// What a task asks of a group: a photo (the heart of the game), an answer to a question, or
/// the code of a sticker found at an exhibit. The right answers and codes stay on the server:
/// the venue document phones read leaves them out.
public enum TaskKind: Sendable, Hashable {
    case photo
    case question(Question)
    case code(FoundCode)

    /// The word the mission file and the API use: `photo`, `question` or `code`.
    public var name: String {
        switch self {
        case .photo: "photo"
        case .question: "question"
        case .code: "code"
        }
    }

    public static let names = ["photo", "question", "code"]
}

/// A question: multiple choice (`choices`, the right ones by their index in `right`), or a
/// short answer typed in (`accepted` variants, compared by `AnswerText`).
public struct Question: Sendable, Hashable {
    public var choices: [LocalizedText]
    /// Indexes into `choices` of the right ones; empty for a short answer.
    public var right: Set<Int>
    /// Accepted variants of a short answer; empty for multiple choice.
    public var accepted: [String]

    public static let choiceRange = 2...8
    public static let acceptedRange = 1...20

    public init(choices: [LocalizedText], right: Set<Int>) {
        self.choices = choices
        self.right = right
        self.accepted = []
    }

    public init(accepted: [String]) {
        self.choices = []
        self.right = []
        self.accepted = accepted
    }

    public var isMultipleChoice: Bool { !choices.isEmpty }
}

/// The code printed on a sticker at an exhibit: what a phone scans from its QR code or a
/// visitor types, compared by `FoundCode.normalized`.
public struct FoundCode: Sendable, Hashable {
    /// 4 to 16 letters A to Z and digits, with dashes between groups: "WHALE-42".
    public var code: String

    public init(code: String) {
        self.code = code
    }

    public static let lengthRange = 4...16

    /// Whether a code written in a mission file can be printed, read out and typed: letters
    /// A to Z (either case) and digits, dashes inside, 4 to 16 characters.
    public static func isValid(_ code: String) -> Bool {
        guard lengthRange.contains(code.count), code.first != "-", code.last != "-", !code.contains("--") else { return false }
        return code.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// A typed or scanned code as compared: upper case, without spaces and dashes.
    public static func normalized(_ typed: String) -> String {
        String(typed.uppercased().unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) && $0 != "-" }.map(Character.init))
    }

    public func matches(_ typed: String) -> Bool {
        Self.normalized(typed) == Self.normalized(code)
    }

    /// Below this many codes of the same shape, a code can be guessed: a group trying one a
    /// few seconds apart would get through them within a visit.
    public static let guessableBelow = 1_000_000.0

    /// How many codes have the shape of `code` (as compared: its length, and whether it has
    /// digits only, letters only, or both).
    public static func possibleCodes(like code: String) -> Double {
        let characters = normalized(code).unicodeScalars
        let digits = characters.contains { ("0"..."9").contains($0) }, letters = characters.contains { ("A"..."Z").contains($0) }
        let alphabet: Double = digits && letters ? 36 : digits ? 10 : 26
        return pow(alphabet, Double(characters.count))
    }
}

/// How a typed short answer is compared with the accepted ones: case, accents and spaces do
/// not count ("Blåval", "blaval" and "Bla val" are one answer), nor do punctuation marks at
/// either end ("Jupiter!").
public enum AnswerText {
    public static func normalized(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        let kept = folded.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }
        return String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .punctuationCharacters)
    }

    public static func matches(_ typed: String, accepted: [String]) -> Bool {
        let given = normalized(typed)
        return !given.isEmpty && accepted.contains { normalized($0) == given }
    }
}
