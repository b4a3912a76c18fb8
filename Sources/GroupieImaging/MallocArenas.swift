import CVipsShim
import Foundation

/// glibc gives each thread that meets a busy heap an arena of its own, up to eight per core.
/// Photo and collage work moves buffers of many megabytes through libvips' worker threads,
/// the database's and the event loops, and freed space then stays scattered across those
/// arenas: the server's memory keeps rising for hours though nothing leaks. A server gives
/// up little by sharing two arenas, so it does, unless `MALLOC_ARENA_MAX` says otherwise.
public enum MallocArenas {
    /// The arenas the server runs with when the environment does not choose.
    public static let serverDefault: Int32 = 2

    /// Limits the arenas; call before the server starts its threads. Returns the limit set,
    /// or nil when the environment sets one or the C library is not glibc.
    @discardableResult
    public static func limit(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32? {
        guard environment["MALLOC_ARENA_MAX"] == nil else { return nil }
        return groupie_malloc_arenas_limit(serverDefault) == 1 ? serverDefault : nil
    }
}
