import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// The schema: every migration SQLite databases have had, and what this version would apply.
extension SQLiteStore {
    /// The migrations this version would apply to `db`, in order: "v12 …", its number and what it does.
    static func pending(_ db: Database) throws -> [String] {
        let applied = try Self.migrator.appliedIdentifiers(db)
        return Self.migrator.migrations.filter { !applied.contains($0) }
    }

    /// The migrations this version would apply to the database file at `path` (every one when
    /// there is no file yet), without changing its schema or rows, or creating the file.
    public static func pendingMigrations(atPath path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return migrator.migrations }
        // SQLite may make `-wal` and `-shm` beside a WAL-mode file to read it; they are left, as a
        // server that opened the file meanwhile may be using them.
        var configuration = Configuration()
        configuration.readonly = true
        let file = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? file.close() }
        return try file.read { db in try pending(db) }
    }

    /// Shipped migrations are never edited; a change of schema is a new migration.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 players, groups and memberships") { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    language TEXT,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at REAL NOT NULL
                );
                CREATE TABLE play_group (
                    id TEXT PRIMARY KEY NOT NULL,
                    venue_id TEXT NOT NULL,
                    name TEXT,
                    join_code TEXT NOT NULL UNIQUE,
                    creator_id TEXT REFERENCES player(id) ON DELETE SET NULL,
                    created_at REAL NOT NULL,
                    joinable_until REAL NOT NULL
                );
                CREATE TABLE membership (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    player_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                    joined_at REAL NOT NULL,
                    left_at REAL
                );
                -- A player is in at most one group at a time, whatever the code above does.
                CREATE UNIQUE INDEX membership_one_active_per_player ON membership(player_id) WHERE left_at IS NULL;
                CREATE INDEX membership_by_group ON membership(group_id, left_at);
                """)
        }
        migrator.registerMigration("v2 photos and chosen photos") { db in
            try db.execute(sql: """
                CREATE TABLE photo (
                    id TEXT PRIMARY KEY NOT NULL,
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    photographer_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                    mission_id TEXT,
                    task_id TEXT,
                    blob TEXT NOT NULL,
                    format TEXT NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    idempotency_key TEXT,
                    UNIQUE (photographer_id, idempotency_key)
                );
                CREATE INDEX photo_by_group ON photo(group_id, created_at, id);
                CREATE INDEX photo_by_blob ON photo(blob);
                -- A task's chosen photo when a member picked one; otherwise the latest counts.
                CREATE TABLE task_choice (
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    mission_id TEXT NOT NULL,
                    task_id TEXT NOT NULL,
                    photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                    PRIMARY KEY (group_id, mission_id, task_id)
                );
                """)
        }
        migrator.registerMigration("v3 group events") { db in
            try db.execute(sql: """
                CREATE TABLE group_event (
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    data TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (group_id, seq)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4 collages") { db in
            try db.execute(sql: """
                CREATE TABLE collage (
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    mission_id TEXT NOT NULL,
                    photo_ids TEXT NOT NULL,
                    key TEXT NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (group_id, mission_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v5 photo focus") { db in
            // Where a photo's subject is, found at upload; collages crop around it. Null for
            // photos from before, which are looked at when their collage is made.
            try db.execute(sql: """
                ALTER TABLE photo ADD COLUMN focus_x REAL;
                ALTER TABLE photo ADD COLUMN focus_y REAL;
                """)
        }
        migrator.registerMigration("v6 bounded names, upload keys per group") { db in
            // Erasure finds every group a player was ever in.
            try db.execute(sql: "CREATE INDEX membership_by_player ON membership(player_id)")
            // Names from before names were bounded in bytes and marks are cut to the bounds,
            // in every place that stores a copy of them.
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM player") {
                let name: String = row["name"]
                guard case .failure = DisplayName.validated(name, limits: DisplayName.player) else { continue }
                let shortened = DisplayName.shortened(name, limits: DisplayName.player)
                guard shortened != name else { continue }
                try db.execute(sql: "UPDATE player SET name = ? WHERE id = ?", arguments: [shortened, row["id"] as String])
                try renameInEvents(db, playerId: row["id"], to: shortened)
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM play_group WHERE name IS NOT NULL") {
                let name: String = row["name"]
                guard case .failure = DisplayName.validated(name, limits: DisplayName.group) else { continue }
                let shortened = DisplayName.shortened(name, limits: DisplayName.group)
                if shortened != name {
                    try db.execute(sql: "UPDATE play_group SET name = ? WHERE id = ?", arguments: [shortened, row["id"] as String])
                }
            }
            // An idempotency key belongs to a player in a group for a day, no longer to the
            // player forever; the column of v2 stays, unused.
            try db.execute(sql: """
                CREATE TABLE upload_key (
                    player_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                    mission_id TEXT,
                    task_id TEXT,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (player_id, group_id, key)
                ) WITHOUT ROWID;
                CREATE INDEX upload_key_by_time ON upload_key(created_at);
                INSERT OR IGNORE INTO upload_key (player_id, group_id, key, photo_id, mission_id, task_id, created_at)
                    SELECT photographer_id, group_id, substr(idempotency_key, 1, 128), id, mission_id, task_id, created_at
                    FROM photo WHERE idempotency_key IS NOT NULL;
                UPDATE photo SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL;
                """)
        }
        migrator.registerMigration("v7 chosen photos kept when the first photo becomes the default") { db in
            // A task's chosen photo was its latest unless picked; it is now its first. Groups
            // playing across the upgrade keep what they saw: the latest photo of each task with
            // several and no pick becomes the pick.
            try db.execute(sql: """
                INSERT OR IGNORE INTO task_choice (group_id, mission_id, task_id, photo_id)
                    SELECT p.group_id, p.mission_id, p.task_id, p.id FROM photo p
                    WHERE p.task_id IS NOT NULL AND p.mission_id IS NOT NULL
                      AND EXISTS (SELECT 1 FROM photo q WHERE q.group_id = p.group_id AND q.mission_id = p.mission_id
                                  AND q.task_id = p.task_id AND q.id != p.id)
                      AND NOT EXISTS (SELECT 1 FROM photo q WHERE q.group_id = p.group_id AND q.mission_id = p.mission_id
                                      AND q.task_id = p.task_id
                                      AND (q.created_at > p.created_at OR (q.created_at = p.created_at AND q.id > p.id)))
                """)
        }
        migrator.registerMigration("v8 staff, their sessions and audit log, hidden photos, closed groups") { db in
            try db.execute(sql: """
                CREATE TABLE staff (
                    id TEXT PRIMARY KEY NOT NULL,
                    email TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE staff_venue (
                    staff_id TEXT NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
                    venue_id TEXT NOT NULL,
                    PRIMARY KEY (staff_id, venue_id)
                ) WITHOUT ROWID;
                -- Only a hash of the session cookie is kept, like the visitors' tokens.
                CREATE TABLE staff_session (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    staff_id TEXT NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
                    csrf_token TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX staff_session_by_staff ON staff_session(staff_id);
                -- Who did what, when; kept when the member of staff is removed.
                CREATE TABLE staff_audit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at REAL NOT NULL,
                    staff_email TEXT NOT NULL,
                    venue_id TEXT,
                    action TEXT NOT NULL,
                    subject TEXT,
                    reason TEXT
                );
                CREATE INDEX staff_audit_by_venue ON staff_audit(venue_id, at);
                -- A photo staff hid leaves the photo table for this one, so that nothing that
                -- serves visitors can show it; restoring moves it back.
                CREATE TABLE hidden_photo (
                    id TEXT PRIMARY KEY NOT NULL,
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    photographer_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                    mission_id TEXT,
                    task_id TEXT,
                    blob TEXT NOT NULL,
                    format TEXT NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    focus_x REAL,
                    focus_y REAL,
                    hidden_at REAL NOT NULL,
                    hidden_reason TEXT NOT NULL
                );
                CREATE INDEX hidden_photo_by_group ON hidden_photo(group_id);
                CREATE INDEX hidden_photo_by_blob ON hidden_photo(blob);
                ALTER TABLE play_group ADD COLUMN closed_at REAL;
                ALTER TABLE play_group ADD COLUMN closed_reason TEXT;
                """)
        }
        migrator.registerMigration("v9 photos held for review") { db in
            // A held photo waits in `hidden_photo` until staff share it (it moves to `photo`) or
            // keep it hidden (`held` becomes 0 and the reason is theirs).
            // An upload key may name a held photo, which is not in `photo`: the key loses its
            // reference to that table (a key whose photo is gone answers nothing, and goes with
            // the others after a day).
            try db.execute(sql: """
                ALTER TABLE hidden_photo ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX hidden_photo_held ON hidden_photo(created_at, id) WHERE held = 1;
                CREATE TABLE upload_key_v9 (
                    player_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
                    group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    photo_id TEXT NOT NULL,
                    mission_id TEXT,
                    task_id TEXT,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (player_id, group_id, key)
                ) WITHOUT ROWID;
                INSERT INTO upload_key_v9 (player_id, group_id, key, photo_id, mission_id, task_id, created_at)
                    SELECT player_id, group_id, key, photo_id, mission_id, task_id, created_at FROM upload_key;
                DROP TABLE upload_key;
                ALTER TABLE upload_key_v9 RENAME TO upload_key;
                CREATE INDEX upload_key_by_time ON upload_key(created_at);
                """)
        }
        migrator.registerMigration("v10 the venue numbers kept as events are stored") { db in
            try db.execute(sql: Self.visitTallySchema)
        }
        migrator.registerMigration("v11 members' claims of tasks") { db in
            try db.execute(sql: Self.taskClaimSchema)
        }
        migrator.registerMigration("v12 groups count in the numbers once joined, a task undone takes its mission's completion back; staff sign-in locks lifted") { db in
            try db.execute(sql: Self.playedSchema)
            try db.execute(sql: "ALTER TABLE staff ADD COLUMN unlocked_at REAL")
        }
        migrator.registerMigration("v13 the staff's photo feed reads a venue's photos newest first") { db in
            try db.execute(sql: """
                CREATE INDEX photo_by_time ON photo(created_at, id);
                CREATE INDEX play_group_by_venue ON play_group(venue_id, created_at, id);
                """)
        }
        migrator.registerMigration("v14 members' answers to questions and found codes") { db in
            try db.execute(sql: Self.taskAnswerSchema)
        }
        migrator.registerMigration("v15 the venue numbers counted by Core as events are stored, not by triggers") { db in
            try db.execute(sql: Self.tallyTriggersDropped)
        }
        migrator.registerMigration("v16 a class's table cards as a batch of groups, with its label") { db in try db.execute(sql: Self.batchSchema) }
        migrator.registerMigration("v17 what erased players typed as answers, blanked") { db in try db.execute(sql: Self.erasedAnswersBlanked) }
        migrator.registerMigration("v18 the venue numbers counted again: a restored photo once, an answer starting its mission") { db in try Self.recountVisits(db) }
        return migrator
    }
}
