import Foundation
import GRDB
import GroupieCore
@testable import GroupieSQLite
@testable import GroupieStorage
import Testing

@Suite("Durability and stored names")
struct HardeningStorageTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString).sqlite").path
    }

    /// A database written by an older Groupie: migrated up to `migration`, given `seed`, then
    /// opened as the server opens it (which runs the migrations after it).
    static func upgraded(from migration: String, _ seed: @escaping @Sendable (Database) throws -> Void) async throws -> SQLiteStore {
        let path = Self.path()
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteStore.migrator.migrate(queue, upTo: migration)
            try await queue.write(seed)
        }
        return try SQLiteStore.open(atPath: path)
    }

    @Test("The writer really runs with synchronous=FULL, read back from the writer connection itself")
    func writerIsFull() async throws {
        let database = try SQLiteStore.open(atPath: Self.path())
        #expect(try await database.writerSynchronous() == 2)
        // GRDB's pool, left alone, would run its writer with NORMAL: the reason for the check.
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let plain = try DatabasePool(path: Self.path(), configuration: configuration)
        let plainLevel = try await plain.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(plainLevel == 1, "if GRDB changes this, the guard in SQLiteStore.open may go")
    }

    @Test("The writer's commits never checkpoint; a connection of its own copies the log back into the file past 1,000 pages")
    func checkpointsBesideTheWriter() async throws {
        let path = Self.path()
        let database = try SQLiteStore.open(atPath: path)
        let checkpointer = try #require(database.checkpointer)
        #expect(try await database.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0)
        let pages = { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) / 4096 }
        let before = try pages()
        // About 1,200 pages in one commit: past the threshold, so the commit's hook starts a checkpoint.
        try await database.writer.write { db in
            try db.execute(sql: "CREATE TABLE scratch (b BLOB)")
            for _ in 0..<1200 { try db.execute(sql: "INSERT INTO scratch VALUES (zeroblob(4000))") }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while checkpointer.completed == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(checkpointer.completed >= 1)
        #expect(try pages() >= before + 1200, "the checkpoint copied the pages into the database file")
        #expect(try await database.integrityCheck() == "ok")
    }

    @Test("Past 4,000 pages the writer's own commit checkpoints, so that the log starts over under writes without a pause")
    func writerCheckpointsALongLog() async throws {
        let path = Self.path()
        let database = try SQLiteStore.open(atPath: path)
        let checkpointer = try #require(database.checkpointer)
        // About 4,200 pages in one commit: the commit's hook copies them back before it returns.
        try await database.writer.write { db in
            try db.execute(sql: "CREATE TABLE scratch (b BLOB)")
            for _ in 0..<4200 { try db.execute(sql: "INSERT INTO scratch VALUES (zeroblob(4000))") }
        }
        #expect(checkpointer.completedByWriter == 1)
        #expect(checkpointer.completed == 0, "no checkpoint was started beside the writer")
        // The next write finds every page copied back and starts the log over.
        let logPages = try await database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO scratch VALUES (x'00')")
            return try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")?[1] as Int?
        }
        #expect(try #require(logPages) < 10, "the log started over")
        #expect(try await database.integrityCheck() == "ok")
    }

    @Test("The database file is readable by its owner only")
    func privateFile() throws {
        let path = Self.path()
        _ = try SQLiteStore.open(atPath: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("Names stored before the byte and mark bounds are shortened by a migration, with their copies in events")
    func migrationShortensNames() async throws {
        let huge = "a" + String(repeating: "\u{0301}", count: 32_761)
        let long = String(repeating: "👨‍👩‍👧‍👦", count: 30)
        let database = try await Self.upgraded(from: "v5 photo focus") { db in
            for (id, name) in [("p1", huge), ("p2", long), ("p3", "Ada")] {
                try db.execute(sql: "INSERT INTO player (id, name, token_hash, created_at) VALUES (?, ?, ?, 0)", arguments: [id, name, Data(id.utf8)])
            }
            try db.execute(sql: "INSERT INTO play_group (id, venue_id, name, join_code, creator_id, created_at, joinable_until) VALUES ('g1', 'v', ?, 'ABCDEF', 'p3', 0, 1)", arguments: [huge])
            for player in ["p1", "p2", "p3"] {
                try db.execute(sql: "INSERT INTO membership (group_id, player_id, joined_at) VALUES ('g1', ?, 0)", arguments: [player])
            }
            let event = String(decoding: try JSONSerialization.data(withJSONObject: ["playerId": "p1", "name": huge]), as: UTF8.self)
            try db.execute(sql: "INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES ('g1', 1, 'member-joined', ?, 0)", arguments: [event])
            try db.execute(sql: "INSERT INTO photo (id, group_id, photographer_id, blob, format, width, height, created_at, idempotency_key) VALUES ('f1', 'g1', 'p1', 'b', 'jpeg', 1, 1, 0, 'key-1')")
        }
        let p1 = try #require(try await database.player(id: "p1"))
        let p2 = try #require(try await database.player(id: "p2"))
        #expect(try DisplayName.validated(p1.name).get() == p1.name)
        #expect(try DisplayName.validated(p2.name).get() == p2.name)
        #expect(p1.name == "á")
        #expect(p2.name.utf8.count <= DisplayName.player.bytes && p2.name.count >= 5)
        #expect(try await database.player(id: "p3")?.name == "Ada")
        let event = try #require(try await database.events(groupId: "g1", after: 0, limit: 10).first)
        #expect(event.data.contains("\"name\":\"á\""))
        #expect(event.data.utf8.count < 100)
        let group = try #require(try await database.currentGroup(of: "p3"))
        #expect((group.name ?? "").utf8.count <= DisplayName.group.bytes)
        // The idempotency key moved to its own table, scoped to the group.
        #expect(try await database.uploadedPhoto(playerId: "p1", groupId: "g1", key: "key-1", now: Date(timeIntervalSince1970: 3600))?.photo.id == "f1")
        #expect(try await database.uploadedPhoto(playerId: "p1", groupId: "g1", key: "key-1", now: Date(timeIntervalSince1970: 2 * 86_400)) == nil, "keys expire after a day")
    }

    @Test("Groups playing across the upgrade keep the chosen photos they saw: the latest of a task with several, unless picked")
    func migrationKeepsChosenPhotos() async throws {
        let database = try await Self.upgraded(from: "v6 bounded names, upload keys per group") { db in
            try db.execute(sql: "INSERT INTO player (id, name, token_hash, created_at) VALUES ('p1', 'Ada', x'01', 0)")
            try db.execute(sql: "INSERT INTO play_group (id, venue_id, join_code, creator_id, created_at, joinable_until) VALUES ('g1', 'v', 'ABCDEF', 'p1', 0, 1)")
            // Task a/1: three photos, no pick. Task a/2: one photo. Task b/1: two photos, the first picked.
            for (id, mission, task, time) in [("x1", "a", "1", 1), ("x2", "a", "1", 3), ("x3", "a", "1", 2), ("y1", "a", "2", 1), ("z1", "b", "1", 1), ("z2", "b", "1", 2)] {
                try db.execute(
                    sql: "INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at) VALUES (?, 'g1', 'p1', ?, ?, ?, 'jpeg', 1, 1, ?)",
                    arguments: [id, mission, task, "b" + id, time]
                )
            }
            try db.execute(sql: "INSERT INTO task_choice (group_id, mission_id, task_id, photo_id) VALUES ('g1', 'b', '1', 'z1')")
        }
        let photos = try await database.taskPhotos(groupId: "g1")
        #expect(photos.chosen[.init(missionId: "a", taskId: "1")]?.id == "x2", "the latest of three, as before the upgrade")
        #expect(photos.chosen[.init(missionId: "a", taskId: "2")]?.id == "y1")
        #expect(photos.chosen[.init(missionId: "b", taskId: "1")]?.id == "z1", "a member's pick stays")
        #expect(photos.picks.count == 2)
    }

    @Test("The numbers of groups stored before the upgrade are tallied by the migration, as their events say")
    func migrationTalliesVisits() async throws {
        let database = try await Self.upgraded(from: "v9 photos held for review") { db in
            try db.execute(sql: "INSERT INTO player (id, name, token_hash, created_at) VALUES ('p1', 'Ada', x'01', 0)")
            for (group, created) in [("g1", 1_800_000_000.0), ("g2", 1_800_090_000.0), ("g3", 1_800_000_100.0)] {
                try db.execute(
                    sql: "INSERT INTO play_group (id, venue_id, join_code, creator_id, created_at, joinable_until) VALUES (?, 'v', ?, 'p1', ?, ?)",
                    arguments: [group, "CODE" + group, created, created + 3600]
                )
                // Ada played in each (a group nobody joined does not count in the numbers).
                try db.execute(
                    sql: "INSERT INTO membership (group_id, player_id, joined_at, left_at) VALUES (?, 'p1', ?, ?)",
                    arguments: [group, created, group == "g3" ? nil : created + 1]
                )
            }
            // g1 completes mission m (two tasks) in 250 s, with a free photo; g2 starts it and stops; g3 plays nothing.
            let events: [(String, String, String, Double)] = [
                ("g1", "photo-added", #"{"missionId":"m","taskId":"a","photoId":"x1"}"#, 1_800_000_010),
                ("g1", "task-done", #"{"missionId":"m","taskId":"a"}"#, 1_800_000_010),
                ("g1", "photo-added", #"{"photoId":"x2"}"#, 1_800_000_100),
                ("g1", "photo-added", #"{"missionId":"m","taskId":"b","photoId":"x3"}"#, 1_800_000_260),
                ("g1", "task-done", #"{"missionId":"m","taskId":"b"}"#, 1_800_000_260),
                ("g1", "mission-completed", #"{"missionId":"m"}"#, 1_800_000_260),
                ("g2", "photo-added", #"{"missionId":"m","taskId":"b","photoId":"y1"}"#, 1_800_090_050),
                ("g2", "task-done", #"{"missionId":"m","taskId":"b"}"#, 1_800_090_050),
            ]
            for (seq, event) in events.enumerated() {
                try db.execute(
                    sql: "INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [event.0, seq + 1, event.1, event.2, event.3]
                )
            }
        }
        let tally = try await database.visitTally(venueId: "v")
        #expect(tally == VisitNumbers.Tally(histories: try await database.venueHistories(venueId: "v")))
        #expect(tally.missions["m"] == [250: 1, -1: 1])
        #expect(tally.tasks[.init(missionId: "m", taskId: "b")] == [250: 1, 0: 1])
        #expect(tally.photosPerGroup == [3: 1, 1: 1, 0: 1])
        #expect(tally.groupsStarted.values.reduce(0, +) == 3 && tally.missionsCompleted == [2_000_000: 1])

        // The research export's pages, a group at a time, are the whole history in order.
        var pages: [VisitNumbers.History] = []
        var after: HistoryCursor?
        while let page = Optional(try await database.venueHistories(venueId: "v", after: after, limit: 1)), let last = page.last {
            #expect(page.count == 1)
            pages += page
            after = .init(after: last)
        }
        let whole = try await database.venueHistories(venueId: "v")
        #expect(pages.map(\.groupId) == ["g1", "g3", "g2"] && pages.map(\.groupId) == whole.map(\.groupId))
        #expect(pages.map(\.events.count) == whole.map(\.events.count) && whole.map(\.events.count) == [6, 0, 2])
    }
}
