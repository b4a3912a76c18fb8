import CSQLite
import Foundation
import GRDB
import GroupieCore
import GroupieStorage
import Logging
import Synchronization

extension SQLiteStore {
    public func counts() async throws -> RowCounts {
        try await writer.read { db in
            RowCounts(
                players: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0,
                groups: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM play_group") ?? 0,
                memberships: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership") ?? 0,
                photos: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            )
        }
    }
}

extension Database {
    /// Runs one statement through the connection's statement cache. A statement is compiled
    /// once per connection: compiling one makes GRDB's authorizer walk every table it touches,
    /// which may cost more than the write itself.
    func executeCached(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

/// The read-only connections of `SQLiteStore.lookup`, taken and given back without waiting.
/// They are opened as lookups need them, up to `count`.
final class LookupConnections: Sendable {
    /// As many as the cooperative threads that run requests on this machine.
    static let count = 2
    private let path: String
    private let state = Mutex<(idle: [DatabaseQueue], opened: Int)>(([], 0))

    init(path: String) {
        self.path = path
    }

    /// An idle connection, a new one while fewer than `count` are open, or nil.
    func take() -> DatabaseQueue? {
        let taken = state.withLock { state -> (DatabaseQueue?, opens: Bool) in
            if let idle = state.idle.popLast() { return (idle, false) }
            guard state.opened < Self.count else { return (nil, false) }
            state.opened += 1
            return (nil, true)
        }
        guard taken.opens else { return taken.0 }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "lookup"
        if let connection = try? DatabaseQueue(path: path, configuration: configuration) { return connection }
        state.withLock { $0.opened -= 1 }
        return nil
    }

    func give(_ connection: DatabaseQueue) { state.withLock { $0.idle.append(connection) } }

    /// A read of several statements in one transaction, which sees one snapshot. BEGIN and
    /// COMMIT are compiled once per connection (GRDB's `read` compiles them at every read).
    static func read<T>(_ connection: DatabaseQueue, _ body: (Database) throws -> T) throws -> T {
        try connection.inDatabase { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            defer {
                do {
                    try db.cachedStatement(sql: "COMMIT").execute()
                } catch {
                    // A read-only transaction has nothing to keep: end it, whatever it takes.
                    try? db.rollback()
                }
            }
            return try body(db)
        }
    }
}
