import Foundation
import GRDB

/// The game's state in SQLite. Every statement lives behind a method named for what it means,
/// so that another backend can come later behind the same methods.
public struct GroupieDatabase: Sendable {
    let writer: any DatabaseWriter

    /// Opens (or creates) the database file in WAL mode and migrates it to the current schema.
    public static func open(atPath path: String) throws -> GroupieDatabase {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        return try GroupieDatabase(writer: pool)
    }

    /// An in-memory database for tests of storage rules alone.
    public static func inMemory() throws -> GroupieDatabase {
        try GroupieDatabase(writer: DatabaseQueue())
    }

    init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// Whether the database answers; what `/healthz` asks.
    public func isReachable() async -> Bool {
        (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// `PRAGMA integrity_check`, "ok" when the file is sound.
    public func integrityCheck() async throws -> String {
        try await writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
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
        return migrator
    }
}

extension GroupieDatabase {
    public struct Counts: Sendable, Equatable {
        public var players: Int
        public var groups: Int
        public var memberships: Int
        public var photos: Int

        public init(players: Int, groups: Int, memberships: Int, photos: Int = 0) {
            self.players = players
            self.groups = groups
            self.memberships = memberships
            self.photos = photos
        }
    }

    /// How many rows of each kind there are: for metrics, and for tests that check that a
    /// refused request changed nothing.
    public func counts() async throws -> Counts {
        try await writer.read { db in
            Counts(
                players: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0,
                groups: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM play_group") ?? 0,
                memberships: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership") ?? 0,
                photos: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            )
        }
    }
}
