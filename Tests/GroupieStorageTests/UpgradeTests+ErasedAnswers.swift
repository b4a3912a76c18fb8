import Foundation
import GRDB
@testable import GroupiePostgres
@testable import GroupieSQLite
import GroupieStorage
import GroupieTestSupport
import Testing

extension UpgradeTests {
    /// The rows of an answer typed by a player erased before erasure blanked answers (its player
    /// gone, `p-gone`), and one by Ada, who is still there; events numbered after the fixture's.
    static let erasedAnswers = """
        INSERT INTO task_answer (group_id, mission_id, task_id, player_id, answer, correct, answered_at)
            VALUES ('g-1', 'quiz', 'colour', NULL, 'My address is 12 Elm Street', false, 1800000100), ('g-1', 'quiz', 'colour', 'p-ada', 'White', true, 1800000101);
        INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES
            ('g-1', 100, 'task-answered', '{"missionId":"quiz","taskId":"colour","playerId":"p-gone","name":"","answer":"My address is 12 Elm Street","right":"false"}', 1800000100),
            ('g-1', 101, 'task-answered', '{"missionId":"quiz","taskId":"colour","playerId":"p-ada","name":"Ada","answer":"White","right":"true"}', 1800000101);
        """

    static func expectErasedAnswersBlanked(_ answers: [String], _ events: [String], backend: String) {
        #expect(answers == ["", "White"], "\(backend)")
        #expect(events.count == 2 && !events[0].contains("Elm Street") && events[0].contains("p-gone") && events[1].contains("\"White\""), "\(backend): \(events)")
    }

    @Test("Upgrading blanks what players erased before it typed as answers, in their attempts and events; others' stay")
    func erasedAnswersBlanked() async throws {
        let folder = try ScratchFolder.make("groupie-upgrade")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/groupie.sqlite"
        // The schema before the migration that blanks them.
        let last = try #require(SQLiteStore.migrator.migrations.firstIndex { $0.contains("erased players") })
        try FileManager.default.copyItem(atPath: SchemaFixtures.sqlite(last), toPath: path)
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: Self.erasedAnswers) }
        let database = try SQLiteStore.open(atPath: path)
        #expect(try await database.integrityCheck() == "ok")
        let (answers, events) = try await DatabaseQueue(path: path).read { db in
            (try String.fetchAll(db, sql: "SELECT answer FROM task_answer ORDER BY answered_at"),
             try String.fetchAll(db, sql: "SELECT data FROM group_event WHERE type = 'task-answered' ORDER BY seq"))
        }
        Self.expectErasedAnswersBlanked(answers, events, backend: "SQLite v\(last)")

        let url = try await TestPostgres.freshDatabase()
        // The schema before migration 9, which blanks them.
        let previous = 8
        try await TestPostgres.psql(url, file: SchemaFixtures.postgres(previous))
        _ = try await TestPostgres.psql(url, Self.erasedAnswers)
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        store.close()
        // Quoted: psql's output is trimmed, which would drop a blank first line.
        let pgAnswers = try await TestPostgres.psql(url, "SELECT quote_literal(answer) FROM task_answer ORDER BY answered_at").split(separator: "\n")
            .map { String($0.dropFirst().dropLast()) }
        let pgEvents = try await TestPostgres.psql(url, "SELECT data FROM group_event WHERE type = 'task-answered' ORDER BY seq").split(separator: "\n").map(String.init)
        Self.expectErasedAnswersBlanked(pgAnswers, pgEvents, backend: "PostgreSQL v\(previous)")
    }
}
