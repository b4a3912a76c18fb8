import Foundation
import GRDB
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Logging
import PostgresNIO
import Testing

/// The backends the contract tests run on: every test that takes a `Backend` runs on both.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }

    /// The backends the contract runs on: both, unless `GROUPIE_TEST_BACKENDS` names some
    /// (`make test-fast` runs it on SQLite alone, with no PostgreSQL to start).
    static var chosen: [Backend] {
        guard let names = ProcessInfo.processInfo.environment["GROUPIE_TEST_BACKENDS"] else { return allCases }
        return names.split(separator: ",").compactMap { Backend(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A new, empty store of this kind: a SQLite file in a temporary folder, or a database of
    /// its own on the test cluster.
    func open() async throws -> any GroupieStore {
        switch self {
        case .sqlite:
            return try SQLiteStore.open(atPath: FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString).sqlite").path)
        case .postgresql:
            return try await PostgresStore.open(url: try await TestPostgres.freshDatabase(), logger: Self.logger)
        }
    }

    /// Two stores on one new database, as two instances of the server hold them; SQLite has
    /// one writer process, so there it is one store twice.
    func openTwo() async throws -> (any GroupieStore, any GroupieStore) {
        switch self {
        case .sqlite:
            let store = try await open()
            return (store, store)
        case .postgresql:
            let url = try await TestPostgres.freshDatabase()
            return (try await PostgresStore.open(url: url, logger: Self.logger), try await PostgresStore.open(url: url, logger: Self.logger))
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "groupie-test")
        logger.logLevel = .warning
        return logger
    }

    /// Runs a statement behind the store's back, as a broken or hostile client could.
    /// Whether `error` is the database refusing a player's second active membership: the unique
    /// index `membership_one_active_per_player`, not any other failure of the statement.
    static func isOneActiveMembershipViolation(_ error: any Error) -> Bool {
        switch error {
        case let error as DatabaseError:
            return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE && (error.message ?? "").contains("membership.player_id")
        case let error as PSQLError:
            return error.serverInfo?[.sqlState] == PostgresError.Code.uniqueViolation.raw
                && error.serverInfo?[.constraintName] == "membership_one_active_per_player"
        default:
            return false
        }
    }

    static func execute(_ sql: String, on store: any GroupieStore) async throws {
        switch store {
        case let database as SQLiteStore:
            try await database.writer.write { try $0.execute(sql: sql) }
        case let postgres as PostgresStore:
            try await postgres.client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        default:
            Issue.record("unknown store \(type(of: store))")
        }
    }
}
