import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

// MARK: - Reading rows

extension PostgresConnection {
    /// `query`, refused at once when the connection has closed. postgres-nio 1.33.2 hands a
    /// query to the connection's channel without a way to hear that the channel refused it, and
    /// answers it from the channel's handler, which a closed channel no longer has: a query on a
    /// closed connection waits for ever. That is where a restart of the database left Groupie: the
    /// ROLLBACK after a statement that failed with the connection, or the unlock at the end of a
    /// retention sweep, hung and kept their connection, the sweep's slot and a shutdown waiting.
    /// Every statement of the store goes through here (or `rows` of a prepared statement, which
    /// checks the same).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try ensureOpen()
        return try await self.query(query, logger: logger)
    }

    /// Throws `PostgresConnectionClosed` when the connection has closed.
    func ensureOpen() throws {
        if isClosed { throw PostgresConnectionClosed() }
    }

    /// Every row of the query, for reading by position.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await run(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// The first row of the query, if any.
    func one(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// The first column of the first row, if any row; an SQL NULL is nil too.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self, logger: Logger) async throws -> T? {
        guard let cell = try await one(query, logger: logger)?[0], cell.bytes != nil else { return nil }
        return try cell.decode(T.self)
    }

    /// The first column of every row.
    func column<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self, logger: Logger) async throws -> [T] {
        try await rows(query, logger: logger).map { try $0.get(0) }
    }
}

extension PostgresRandomAccessRow {
    func get<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try self[index].decode(T.self)
    }
}

/// A statement asked of a connection that PostgreSQL (or the network) had already closed.
public struct PostgresConnectionClosed: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the connection to PostgreSQL is closed" }
}

extension PostgresStore {
    /// The contract's `StoreUnavailable` for an error that says PostgreSQL cannot be reached just
    /// now; nil for any other error, which goes on as it is.
    public static func unavailable(_ error: any Error) -> StoreUnavailable? {
        guard isUnreachable(error) else { return nil }
        return error as? StoreUnavailable ?? StoreUnavailable(reason(error))
    }

    /// Whether `error` says that PostgreSQL cannot be reached just now (a connection lost or
    /// refused, the pool unable to make one) rather than that a statement failed: the request
    /// may succeed when asked again, once the database is back.
    public static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is PostgresConnectionClosed:
            true
        case is StoreUnavailable:
            true
        case let error as PSQLError:
            [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code)
                // The server ending its sessions: admin_shutdown, crash_shutdown, cannot_connect_now.
                || ["57P01", "57P02", "57P03"].contains(error.serverInfo?[.sqlState] ?? "")
        case let error as ConnectionPoolError:
            error == .connectionCreationCircuitBreakerTripped
        default:
            false
        }
    }
}
