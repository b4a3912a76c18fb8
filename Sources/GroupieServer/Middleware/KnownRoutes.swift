import HTTPTypes
import Hummingbird
import Synchronization

/// The server's routes by path and method: what tells a 405 (a path the server has under other
/// methods) from a 404. Filled in once every route is registered.
final class KnownRoutes: Sendable {
    private let patterns = Mutex<[(segments: [Substring], method: HTTPRequest.Method)]>([])

    func set(_ routes: [(method: HTTPRequest.Method, path: String)]) {
        patterns.withLock { $0 = routes.map { (Self.segments($0.path), $0.method) } }
    }

    /// The methods the path has, in a stable order; empty when no route has the path.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let requested = Self.segments(path)
        let matching = patterns.withLock { $0.filter { Self.matches($0.segments, requested) } }
        // As the router does: a literal segment wins over a parameter (`groups/join` is not
        // `groups/{groupId}`), so only the most specific of the matching routes count.
        guard let best = matching.map({ Self.literals($0.segments) }).max(by: { $0.lexicographicallyPrecedes($1) }) else { return [] }
        var seen: Set<String> = []
        return matching.filter { Self.literals($0.segments) == best }.map(\.method)
            .filter { seen.insert($0.rawValue).inserted }.sorted { $0.rawValue < $1.rawValue }
    }

    /// 1 for each literal segment, 0 for each parameter.
    static func literals(_ pattern: [Substring]) -> [Int] {
        pattern.map { $0.hasPrefix("{") || $0 == "*" ? 0 : 1 }
    }

    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        pattern.count == path.count && zip(pattern, path).allSatisfy { part, segment in
            (part.hasPrefix("{") && part.hasSuffix("}")) || part == "*" || part == segment
        }
    }
}
