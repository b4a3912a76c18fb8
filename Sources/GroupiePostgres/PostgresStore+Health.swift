import Foundation
import Logging
import PostgresNIO

/// What `groupie doctor` asks of a PostgreSQL database: one connection, questions only,
/// nothing migrated or written.
public struct PostgresHealth: Sendable {
    /// `fsync` and `synchronous_commit` as the server has them: a commit is durable only with
    /// `fsync` on and `synchronous_commit` other than `off`.
    public var fsync: String
    public var synchronousCommit: String
    public var serverVersion: String
    /// The migrations the database has; empty for a new database.
    public var migrations: [Int]
    /// The newest migration this Groupie knows.
    public var currentMigration: Int
}

extension PostgresStore {
    public static func health(url text: String, logger: Logger) async throws -> PostgresHealth {
        let url = try PostgresURL(text)
        let connection = try await PostgresConnection.connect(configuration: try url.connection(), id: 0, logger: logger)
        do {
            let fsync = try await connection.value("SHOW fsync", as: String.self, logger: logger) ?? "?"
            let synchronousCommit = try await connection.value("SHOW synchronous_commit", as: String.self, logger: logger) ?? "?"
            let version = try await connection.value("SHOW server_version", as: String.self, logger: logger) ?? "?"
            let hasTable = try await connection.value("SELECT to_regclass('groupie_migration') IS NOT NULL", as: Bool.self, logger: logger) ?? false
            let migrations = hasTable ? try await connection.column("SELECT version FROM groupie_migration ORDER BY version", as: Int.self, logger: logger) : []
            try? await connection.close()
            return PostgresHealth(
                fsync: fsync, synchronousCommit: synchronousCommit, serverVersion: version, migrations: migrations,
                currentMigration: PostgresSchema.migrations.map(\.version).max() ?? 0
            )
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
