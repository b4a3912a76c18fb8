import Foundation
@testable import GroupiePostgres
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Testing

/// Instances of the server that start at once on one new PostgreSQL database.
@Suite("PostgreSQL migrations")
struct MigrationTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A session on the database at `url` of the test's own, outside any store (a store's open
    /// would migrate).
    static func session(_ url: String) async throws -> PostgresConnection {
        let components = try #require(URLComponents(string: url))
        let configuration = PostgresConnection.Configuration(
            host: try #require(components.host), port: components.port ?? 5432, username: try #require(components.user),
            password: components.password, database: String(components.path.dropFirst()), tls: .disable
        )
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Backend.logger)
    }

    @Test("Two stores opening a new database at the same moment both open; every migration is applied once, and they share the data")
    func concurrentOpen() async throws {
        let url = try await TestPostgres.freshDatabase()
        let holder = try await Self.session(url)
        // The migrations' lock is taken first, so that both opens are surely waiting for it at
        // the same moment, and race for it when it is let go.
        try await holder.query("SELECT pg_advisory_lock(\(PostgresStore.migrationLock))", logger: Backend.logger)
        async let first = PostgresStore.open(url: url, logger: Backend.logger)
        async let second = PostgresStore.open(url: url, logger: Backend.logger)
        let waitingForLock = """
            SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        var waiting = 0
        do {
            let start = ContinuousClock.now
            // Generous: beside the whole suite on two cores, an open may take seconds to get there.
            while waiting < 2, ContinuousClock.now - start < .seconds(60) {
                try await Task.sleep(for: .milliseconds(20))
                waiting = try await holder.value(PostgresQuery(unsafeSQL: waitingForLock), as: Int.self, logger: Backend.logger) ?? 0
            }
            #expect(waiting == 2, "both opens wait for the migrations' lock")
            #expect(try await holder.value("SELECT to_regclass('groupie_migration') IS NULL", as: Bool.self, logger: Backend.logger) == true, "nothing migrated before")
            try await holder.query("SELECT pg_advisory_unlock(\(PostgresStore.migrationLock))", logger: Backend.logger)
        } catch {
            // Ending the session lets the lock go: the opens must not wait for ever.
            try? await holder.close()
            throw error
        }
        let (one, other) = try await (first, second)
        defer {
            one.close()
            other.close()
        }

        let versions = PostgresSchema.migrations.map(\.version)
        let rows = try await holder.rows("SELECT version, COUNT(*) OVER (PARTITION BY version) FROM groupie_migration ORDER BY version", logger: Backend.logger)
        #expect(try rows.map { try $0.get(0, as: Int.self) } == versions, "every migration recorded, once")
        #expect(try rows.allSatisfy { try $0.get(1, as: Int.self) == 1 })
        #expect(try await one.appliedMigrations() == versions)
        #expect(try await other.appliedMigrations() == versions)
        #expect(try await holder.value(PostgresQuery(unsafeSQL: waitingForLock.replacingOccurrences(of: "NOT granted", with: "TRUE")), as: Int.self, logger: Backend.logger) == 0,
                "no store keeps the lock")
        // Migrating again finds nothing left to do.
        #expect(try await one.migrate() == [])

        // A write through either store is read through the other.
        let ada = try await one.createPlayer(name: "Ada", language: "en", tokenHash: Data("ada".utf8), now: now)
        #expect(try await other.player(id: ada.id) == ada)
        let group = try await other.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now).group
        #expect(try await one.group(code: group.joinCode)?.id == group.id)
        #expect(try await one.currentGroup(of: ada.id)?.id == group.id)
        try await holder.close()
    }
}
