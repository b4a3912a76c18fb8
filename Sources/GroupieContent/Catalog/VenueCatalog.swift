import GroupieCore
import Synchronization

/// The venues being served right now: the last valid version of each mission file.
/// Readers never wait on a reload; a reload swaps one venue at a time.
public final class VenueCatalog: Sendable {
    public struct Entry: Sendable {
        public var venue: Venue
        /// SHA-256 of the file that produced `venue`, hex; the basis of ETags.
        public var contentHash: String
        public var path: String
    }

    private let entries = Mutex<[String: Entry]>([:])

    public init() {}

    public func venue(id: String) -> Entry? {
        entries.withLock { $0[id] }
    }

    /// Every venue, ordered by id.
    public var all: [Entry] {
        entries.withLock { Array($0.values) }.sorted { $0.venue.id < $1.venue.id }
    }

    public var count: Int {
        entries.withLock { $0.count }
    }

    /// Puts `entry` live; returns whether anything changed.
    @discardableResult
    public func publish(_ entry: Entry) -> Bool {
        entries.withLock { entries in
            if entries[entry.venue.id]?.contentHash == entry.contentHash { return false }
            entries[entry.venue.id] = entry
            return true
        }
    }

    /// Takes the venue served from `path` offline; returns its id when there was one.
    @discardableResult
    public func withdraw(path: String) -> String? {
        entries.withLock { entries in
            guard let id = entries.first(where: { $0.value.path == path })?.key else { return nil }
            entries[id] = nil
            return id
        }
    }
}
