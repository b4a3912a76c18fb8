import Foundation
import GRDB
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import Testing

extension UpgradeTests {
    /// Events stored before the numbers' rules changed, after the fixture's: its free photo
    /// hidden and restored (a second `photo-added`, without `restored`, as restores were then
    /// stored), and a first answer to a mission of questions.
    static let eventsBeforeRecount = """
        INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES
            ('g-1', 50, 'photo-removed', '{"photoId":"ph-free","photographerId":"p-ada","photographerName":"Ada"}', 1800000400),
            ('g-1', 51, 'photo-added', '{"photoId":"ph-free","photographerId":"p-ada","photographerName":"Ada"}', 1800000450),
            ('g-1', 52, 'task-answered', '{"missionId":"quiz","taskId":"colour","playerId":"p-ada","name":"Ada","answer":"2","right":"false"}', 1800000500);
        """

    static func expectRecounted(_ store: any GroupieStore, backend: String) async throws {
        let tally = try await store.visitTally(venueId: SchemaFixtures.venue)
        #expect(tally.photosPerGroup.filter { $0.value > 0 } == [2: 1], "\(backend): the restored photo once: \(tally.photosPerGroup)")
        #expect(tally.missions["quiz"] == [VisitNumbers.Tally.notCompleted: 1], "\(backend): the answer started the quiz: \(tally.missions)")
        #expect(tally == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: SchemaFixtures.venue)), "\(backend)")
    }

    @Test("Upgrading counts the numbers again by today's rules: a photo restored before once, a mission started by an answer")
    func numbersCountedAgain() async throws {
        let folder = try ScratchFolder.make("groupie-upgrade")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/groupie.sqlite"
        let last = try #require(SchemaFixtures.sqliteVersions.last)
        try FileManager.default.copyItem(atPath: SchemaFixtures.sqlite(last), toPath: path)
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: Self.eventsBeforeRecount) }
        let database = try SQLiteStore.open(atPath: path)
        #expect(try await database.integrityCheck() == "ok")
        try await Self.expectRecounted(database, backend: "SQLite v\(last)")

        let url = try await TestPostgres.freshDatabase()
        let previous = PostgresSchema.recountVersion - 1
        try await TestPostgres.psql(url, file: SchemaFixtures.postgres(previous))
        _ = try await TestPostgres.psql(url, Self.eventsBeforeRecount)
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        defer { store.close() }
        try await Self.expectRecounted(store, backend: "PostgreSQL v\(previous)")
    }
}
