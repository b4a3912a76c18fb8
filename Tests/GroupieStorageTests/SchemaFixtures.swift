import Foundation
import GRDB
@testable import GroupieSQLite

/// Databases as each earlier schema left them, for the upgrade tests: the SQLite files
/// `Tests/Fixtures/Schemas/sqlite-v<N>.sqlite`, made by this version's migrator stopped at
/// migration N (shipped migrations are never edited, so that is the schema version N wrote),
/// with a group's rows as that version stored them; and `postgres-v<N>.sql`, a `pg_dump` of a
/// PostgreSQL database at its migration N holding the same rows.
enum SchemaFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Schemas").path

    /// The SQLite schema versions before the current one.
    static var sqliteVersions: [Int] { Array(1..<SQLiteStore.migrator.migrations.count) }

    static func sqlite(_ version: Int) -> String { folder + "/sqlite-v\(version).sqlite" }
    static func postgres(_ version: Int) -> String { folder + "/postgres-v\(version).sql" }

    /// The schema version whose migration dropped the triggers that kept the numbers.
    static var countedByCore: Int {
        (SQLiteStore.migrator.migrations.firstIndex { $0.contains("counted by Core") } ?? Int.max - 1) + 1
    }

    static let start = 1_800_000_000.0
    static let venue = "aquarium"

    /// Writes the SQLite fixture of `version` to `path` (a new file).
    static func writeSQLite(version: Int, to path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA page_size = 1024") }
        try SQLiteStore.migrator.migrate(queue, upTo: SQLiteStore.migrator.migrations[version - 1])
        try queue.write { db in
            let t = start
            try db.execute(sql: """
                INSERT INTO player (id, name, language, token_hash, created_at) VALUES
                    ('p-ada', 'Ada', 'sv', X'01', \(t)), ('p-bo', 'Bo', NULL, X'02', \(t + 5));
                INSERT INTO play_group (id, venue_id, name, join_code, creator_id, created_at, joinable_until)
                    VALUES ('g-1', '\(venue)', 'Hajarna', 'ABCD2345', 'p-ada', \(t), \(t + 28_800));
                INSERT INTO membership (group_id, player_id, joined_at, left_at) VALUES
                    ('g-1', 'p-ada', \(t), NULL), ('g-1', 'p-bo', \(t + 10), NULL);
                """)
            guard version >= 2 else { return }
            try db.execute(sql: """
                INSERT INTO photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at) VALUES
                    ('ph-shark', 'g-1', 'p-bo', 'sharks', 'shark', '\(String(repeating: "a", count: 64))', 'jpeg', 1600, 1200, \(t + 60)),
                    ('ph-free', 'g-1', 'p-ada', NULL, NULL, '\(String(repeating: "b", count: 64))', 'png', 800, 600, \(t + 90));
                INSERT INTO task_choice (group_id, mission_id, task_id, photo_id) VALUES ('g-1', 'sharks', 'shark', 'ph-shark');
                """)
            guard version >= 3 else { return }
            let events: [(String, String)] = [
                ("member-joined", #"{"playerId":"p-ada","name":"Ada"}"#),
                ("member-joined", #"{"playerId":"p-bo","name":"Bo"}"#),
                ("photo-added", #"{"photoId":"ph-shark","photographerId":"p-bo","photographerName":"Bo","missionId":"sharks","taskId":"shark"}"#),
                ("task-done", #"{"missionId":"sharks","taskId":"shark"}"#),
                ("mission-completed", #"{"missionId":"sharks"}"#),
                ("photo-added", #"{"photoId":"ph-free","photographerId":"p-ada","photographerName":"Ada"}"#),
            ]
            for (index, (type, data)) in events.enumerated() {
                try db.execute(
                    sql: "INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES ('g-1', ?, ?, ?, ?)",
                    arguments: [index + 1, type, data, t + Double(index * 30)])
            }
            guard version >= 4 else { return }
            try db.execute(sql: """
                INSERT INTO collage (group_id, mission_id, photo_ids, key, width, height, created_at)
                    VALUES ('g-1', 'sharks', 'ph-shark', 'k1', 2048, 1536, \(t + 200));
                """)
            if version >= 5 { try db.execute(sql: "UPDATE photo SET focus_x = 0.4, focus_y = 0.6 WHERE id = 'ph-shark'") }
            if version >= 6 {
                try db.execute(sql: """
                    INSERT INTO upload_key (player_id, group_id, key, photo_id, mission_id, task_id, created_at)
                        VALUES ('p-bo', 'g-1', 'upload-1', 'ph-shark', 'sharks', 'shark', \(t + 60));
                    """)
            }
            guard version >= 8 else { return }
            try db.execute(sql: """
                INSERT INTO staff (id, email, password_hash, role, created_at) VALUES ('s-eva', 'eva@museum.example', 'x', 'moderator', \(t));
                INSERT INTO staff_venue (staff_id, venue_id) VALUES ('s-eva', '\(venue)');
                INSERT INTO staff_audit (at, staff_email, venue_id, action, subject, reason)
                    VALUES (\(t + 300), 'eva@museum.example', '\(venue)', 'hide', 'ph-hidden', 'blurry');
                INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, hidden_at, hidden_reason)
                    VALUES ('ph-hidden', 'g-1', 'p-ada', NULL, NULL, '\(String(repeating: "c", count: 64))', 'jpeg', 640, 480, \(t + 120), \(t + 300), 'blurry');
                """)
            guard version >= 9 else { return }
            try db.execute(sql: """
                INSERT INTO hidden_photo (id, group_id, photographer_id, mission_id, task_id, blob, format, width, height, created_at, hidden_at, hidden_reason, held)
                    VALUES ('ph-held', 'g-1', 'p-bo', NULL, NULL, '\(String(repeating: "d", count: 64))', 'jpeg', 640, 480, \(t + 150), \(t + 150), '', 1);
                """)
        }
        // From the version that dropped the tally's triggers on, the numbers are counted by Core
        // as events are stored: the rows written above are counted as that version would have.
        if version >= countedByCore { try queue.write { db in try SQLiteStore.countCopiedGroups(db, where: "1 = 1") } }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        try queue.close()
    }
}
