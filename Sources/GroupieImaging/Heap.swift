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

/// The C heap of the process as glibc sees it, and the two settings that keep photo work from
/// leaving it larger than it needs to be.
///
/// Every photo and collage allocates buffers of one to many megabytes. glibc serves a large
/// request from mmap only while it is above a threshold that it raises to the size of each
/// large block freed, so after the first photos those buffers come from the arenas instead, and
/// the holes they leave are kept by the process though nothing uses them. A fixed threshold
/// sends them back to the system when freed; a periodic trim returns whatever free pages remain.
public enum Heap {
    /// Allocations at least this large are mapped on their own and returned when freed.
    public static let serverMmapThreshold: Int32 = 1 << 20

    public struct Statistics: Sendable, Equatable {
        /// Bytes in blocks the program holds.
        public var inUse: UInt64
        /// Bytes the allocator keeps free for later, not returned to the system.
        public var freeHeld: UInt64
    }

    /// Fixes the mmap threshold; call before the server starts its threads. Returns the
    /// threshold set, or nil when the environment sets one or the C library is not glibc.
    @discardableResult
    public static func fixMmapThreshold(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32? {
        guard environment["MALLOC_MMAP_THRESHOLD_"] == nil else { return nil }
        return groupie_malloc_mmap_threshold(serverMmapThreshold) == 1 ? serverMmapThreshold : nil
    }

    /// The heap now, or nil when the C library cannot say.
    public static func statistics() -> Statistics? {
        var inUse: UInt64 = 0
        var freeHeld: UInt64 = 0
        guard groupie_heap_statistics(&inUse, &freeHeld) == 1 else { return nil }
        return Statistics(inUse: inUse, freeHeld: freeHeld)
    }

    /// Returns free heap pages to the system; true when some were released.
    @discardableResult
    public static func trim() -> Bool {
        groupie_heap_trim() == 1
    }
}
