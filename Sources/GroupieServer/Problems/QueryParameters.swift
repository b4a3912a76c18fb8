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

/// A query of the API that names a parameter twice (`mission=a&mission=b`) is refused with 400
/// `duplicate-parameter`, as a JSON body that gives a field twice is: which of the two a route
/// would read is no contract a client should lean on.
struct SingleQueryParameters<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix("/api/"), let name = Self.repeated(in: request.uri.queryParameters) {
            throw Problem.badRequest("duplicate-parameter", "The query gives '\(name.prefix(40))' more than once; give each parameter once.")
        }
        return try await next(request, context)
    }

    static func repeated(in parameters: Parameters) -> Substring? {
        var seen = Set<Substring>()
        for (name, _) in parameters where !seen.insert(name).inserted { return name }
        return nil
    }
}
