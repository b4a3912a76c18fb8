import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import Testing

/// A database made by each earlier schema version, migrated by this one: its groups, photos,
/// events and numbers are all there after.
@Suite("Upgrades")
struct UpgradeTests {
    /// What the fixture of `version` holds, read through the store after the upgrade.
    static func expectIntact(_ store: any GroupieStore, version: Int, backend: String) async throws {
        let context = "\(backend) schema v\(version)"
        let group = try #require(try await store.group(id: "g-1"), "\(context)")
        #expect(group.venueId == SchemaFixtures.venue && group.name == "Hajarna", "\(context)")
        #expect(try await store.currentGroup(of: "p-bo")?.id == "g-1", "\(context)")
        #expect(try await store.player(id: "p-ada")?.name == "Ada", "\(context)")
        let counts = try await store.counts()
        #expect(counts.players == 2 && counts.groups == 1 && counts.memberships == 2, "\(context): \(counts)")
        let tally = try await store.visitTally(venueId: SchemaFixtures.venue)
        #expect(tally.groupsStarted.values.reduce(0, +) == 1, "\(context): the group is counted")
        guard version >= 2 else { return }
        #expect(counts.photos == 2, "\(context): \(counts)")
        let shark = try #require(try await store.photo(id: "ph-shark"), "\(context)")
        #expect(shark.missionId == "sharks" && shark.taskId == "shark" && shark.width == 1600, "\(context)")
        #expect(try await store.photo(id: "ph-free")?.photographerId == "p-ada", "\(context)")
        #expect(try await store.taskPhotos(groupId: "g-1").done.contains(GroupProgress.TaskKey(missionId: "sharks", taskId: "shark")), "\(context)")
        guard version >= 3 else { return }
        let events = try await store.events(groupId: "g-1", after: 0, limit: 100)
        #expect(events.map(\.seq) == Array(1...6), "\(context)")
        // The numbers kept since v10 are made from the events stored before, as the numbers page
        // would count them from the events themselves.
        #expect(tally == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: SchemaFixtures.venue)), "\(context)")
        #expect(tally.missionsCompleted.values.reduce(0, +) == 1, "\(context)")
        #expect(tally.photosPerGroup == [2: 1], "\(context)")
        guard version >= 4 else { return }
        #expect(try await store.collages(groupId: "g-1").map(\.missionId) == ["sharks"], "\(context)")
        guard version >= 8 else { return }
        #expect(try await store.allStaff().map(\.email) == ["eva@museum.example"], "\(context)")
        #expect(try await store.moderatedPhoto(id: "ph-hidden")?.hidden == true, "\(context)")
        guard version >= 9 else { return }
        #expect(try await store.heldPhotos(groupId: "g-1", photographerId: "p-bo").map(\.id) == ["ph-held"], "\(context)")
    }

    /// After the upgrade, new events count on top of the numbers kept before, as the numbers page
    /// would count them from the events themselves: a task undone takes the completion back, a
    /// new mission completes, the first one completes again.
    static func expectNewEventsCounted(_ store: any GroupieStore, context: String) async throws {
        let later = Date(timeIntervalSince1970: SchemaFixtures.start + 7200)
        let shark = GroupProgress.TaskKey(missionId: "sharks", taskId: "shark"), ray = GroupProgress.TaskKey(missionId: "rays", taskId: "ray")
        _ = try await store.appendEvents(groupId: "g-1", [.taskUndone(shark)], now: later)
        var tally = try await store.visitTally(venueId: SchemaFixtures.venue)
        #expect(tally.missionsCompleted.values.reduce(0, +) == 0, "\(context): \(tally)")
        #expect(tally == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: SchemaFixtures.venue)), "\(context)")
        let photo = Photo(
            id: "ph-ray", groupId: "g-1", photographerId: "p-ada", photographerName: "Ada", missionId: "rays", taskId: "ray",
            blob: String(repeating: "c", count: 64), format: "jpeg", width: 800, height: 600, createdAt: later
        )
        _ = try await store.appendEvents(
            groupId: "g-1", [.photoAdded(photo), .taskDone(ray), .missionCompleted(missionId: "rays"), .taskDone(shark), .missionCompleted(missionId: "sharks")],
            now: later.addingTimeInterval(60)
        )
        tally = try await store.visitTally(venueId: SchemaFixtures.venue)
        #expect(tally.missionsCompleted.values.reduce(0, +) == 2, "\(context): \(tally)")
        #expect(tally.missions["rays"] == [0: 1], "\(context): \(tally)")
        #expect(tally.groupsStarted.values.reduce(0, +) == 1, "\(context): \(tally)")
        #expect(tally == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: SchemaFixtures.venue)), "\(context)")
    }

    @Test("A SQLite database of each earlier schema is migrated with all it held", arguments: SchemaFixtures.sqliteVersions)
    func sqlite(version: Int) async throws {
        let folder = try ScratchFolder.make("groupie-upgrade")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/groupie.sqlite"
        try FileManager.default.copyItem(atPath: SchemaFixtures.sqlite(version), toPath: path)
        let database = try SQLiteStore.open(atPath: path)
        #expect(try await database.integrityCheck() == "ok")
        try await Self.expectIntact(database, version: version, backend: "SQLite")
        try await Self.expectNewEventsCounted(database, context: "SQLite schema v\(version)")
    }

    @Test("A PostgreSQL database of each schema version, restored from its dump, opens with all it held", arguments: PostgresSchema.migrations.map(\.version))
    func postgres(version: Int) async throws {
        let url = try await TestPostgres.freshDatabase()
        try await TestPostgres.psql(url, file: SchemaFixtures.postgres(version))
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        defer { store.close() }
        #expect(try await store.appliedMigrations() == PostgresSchema.migrations.map(\.version))
        try await Self.expectIntact(store, version: SchemaFixtures.sqliteVersions.last ?? 1, backend: "PostgreSQL v\(version)")
        // The group's next event follows its newest kept one (its row's counter, migration 2).
        let next = try await store.appendEvents(groupId: "g-1", [.groupClosed(reason: "upgrade")], now: Date(timeIntervalSince1970: 1_900_000_000))
        #expect(next.map(\.seq) == [7], "PostgreSQL v\(version)")
        try await Self.expectNewEventsCounted(store, context: "PostgreSQL v\(version)")
    }

    /// Makes the fixtures again: `GROUPIE_WRITE_SCHEMA_FIXTURES=1 swift test --filter UpgradeTests.write`.
    /// Only a new schema version needs it (its fixture is the one before it); fixtures already
    /// kept are never made again, as the versions that made them are gone.
    @Test("Writes the fixture of each schema version not kept yet", .enabled(if: ProcessInfo.processInfo.environment["GROUPIE_WRITE_SCHEMA_FIXTURES"] == "1"))
    func write() async throws {
        for version in SchemaFixtures.sqliteVersions where !FileManager.default.fileExists(atPath: SchemaFixtures.sqlite(version)) {
            try SchemaFixtures.writeSQLite(version: version, to: SchemaFixtures.sqlite(version))
        }
        // PostgreSQL's current schema, holding the newest SQLite fixture's rows: its dump is the
        // fixture an upgrade to the next PostgreSQL migration starts from.
        guard let current = PostgresSchema.migrations.last?.version, let newest = SchemaFixtures.sqliteVersions.last,
            !FileManager.default.fileExists(atPath: SchemaFixtures.postgres(current))
        else { return }
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        let folder = try ScratchFolder.make("groupie-fixture")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: SchemaFixtures.sqlite(newest), toPath: folder + "/source.sqlite")
        _ = try await store.importRows(from: try SQLiteStore.open(atPath: folder + "/source.sqlite"))
        store.close()
        let dump = try await TestPostgres.tool("pg_dump", ["--no-owner", "--no-privileges", "--inserts", url])
            // `\restrict` guards a dump from an untrusted server; psql before 15.14 would not read it.
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }
            .joined(separator: "\n")
        try Data(dump.utf8).write(to: URL(fileURLWithPath: SchemaFixtures.postgres(current)))
    }
}
