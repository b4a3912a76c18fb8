import Foundation
import GroupieCore
import PostgresNIO

extension PostgresSchema {
    /// The migration after whose SQL every group's numbers are counted again.
    static let recountVersion = 11
}

extension PostgresStore {
    /// Applies the migrations not applied yet, each in a transaction of its own with its row in
    /// `groupie_migration`. Under the migration lock (`migrate`).
    func applyMigrations(_ connection: PostgresConnection) async throws -> [Int] {
        try await connection.run("""
            CREATE TABLE IF NOT EXISTS groupie_migration (
                version bigint PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL
            )
            """, logger: logger)
        let done = Set(try await connection.column("SELECT version FROM groupie_migration", as: Int.self, logger: logger))
        if let unknown = done.max(), unknown > PostgresSchema.migrations.map({ $0.version }).max() ?? 0 {
            throw PostgresStoreError.schemaTooNew(version: unknown)
        }
        var applied: [Int] = []
        for migration in PostgresSchema.migrations where !done.contains(migration.version) {
            try await connection.run("BEGIN", logger: logger)
            do {
                for statement in PostgresSchema.statements(of: migration.sql) {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                if migration.version == PostgresSchema.recountVersion { try await Self.recountVisits(connection, logger: logger) }
                try await connection.run("""
                    INSERT INTO groupie_migration (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(Date().timeIntervalSince1970))
                    """, logger: logger)
                try await connection.run("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw error
            }
            logger.info("applied PostgreSQL migration \(migration.version): \(migration.name)")
            applied.append(migration.version)
        }
        return applied
    }

    /// Migration 11's work after its SQL (which emptied the numbers' rows): every group's numbers
    /// counted again from its stored events by today's rules, 2,000 groups at a time.
    static func recountVisits(_ connection: PostgresConnection, logger: Logger) async throws {
        let ids = try await connection.column("SELECT id FROM play_group ORDER BY id", as: String.self, logger: logger)
        for start in stride(from: 0, to: ids.count, by: 2_000) {
            try await countCopiedGroups(connection, ids: Array(ids[start..<min(ids.count, start + 2_000)]), logger: logger)
        }
    }
}
