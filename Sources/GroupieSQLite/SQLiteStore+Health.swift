import GRDB
import GroupieStorage
import Synchronization

extension SQLiteStore {
    public func isReachable() async -> Bool {
        (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    public func health() async -> StoreHealth {
        if damage.isSet { return .damaged }
        return await isReachable() ? .ok : .unreachable
    }

    public func noteFailure(_ error: any Error) -> Bool {
        Self.isNotADatabase(error) && damage.set()
    }

    /// `PRAGMA integrity_check`, "ok" when the file is sound.
    public func integrityCheck() async throws -> String {
        try await writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }
}

/// Whether the database file was found damaged, shared by every copy of the database's value.
final class DamageMark: Sendable {
    private let damaged = Mutex(false)

    var isSet: Bool { damaged.withLock { $0 } }

    /// Sets the mark; true when it was not set before.
    func set() -> Bool {
        damaged.withLock { damaged in
            defer { damaged = true }
            return !damaged
        }
    }
}
