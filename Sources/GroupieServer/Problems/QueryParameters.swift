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
