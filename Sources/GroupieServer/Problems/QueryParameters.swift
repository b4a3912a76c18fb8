import Hummingbird

extension Request {
    /// A whole-number query parameter within `range`, `fallback` when absent; anything else
    /// is a 422 with `code` (e.g. `invalid-size`) and a sentence naming the range.
    func integerParameter(_ name: String, in range: ClosedRange<Int>, fallback: Int, code: String, unit: String = "") throws -> Int {
        guard let text = uri.queryParameters[Substring(name)] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Problem(.unprocessableContent, code: code, detail: "'\(name)' must be a number\(unit) from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }
}

extension Request {
    /// An id query parameter (`mission`, `task`): `[a-z0-9-]`, 1 to 64 characters, as mission
    /// files allow; nil when absent, 400 `invalid-parameter` for anything else.
    func identifierParameter(_ name: String) throws -> String? {
        guard let text = uri.queryParameters[Substring(name)] else { return nil }
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }) else {
            throw Problem.badRequest("invalid-parameter", "'\(name)' must be an id of 1 to 64 lower-case letters, digits and hyphens.")
        }
        return String(text)
    }
}
