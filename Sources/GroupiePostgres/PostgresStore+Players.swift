import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Players: made, renamed (with the event told to their group) and erased (with the events of
// what each group lost), each change locking the player's row first.
extension PostgresStore {
    // MARK: Players

    public func createPlayer(name: String, language: String?, tokenHash: Data, now: Date) async throws -> Player {
        let player = Player(id: Self.newId(), name: name, language: language, createdAt: now)
        try await statement("""
            INSERT INTO player (id, name, language, token_hash, created_at) VALUES (\(player.id), \(name), \(language), \(tokenHash), \(now.timeIntervalSince1970))
            """)
        return player
    }

    public func player(id: String) async throws -> Player? {
        try await once { try await Self.player($0, "SELECT id, name, language, created_at FROM player WHERE id = \(id)", logger: logger) }
    }

    /// What every request of a player asks first: prepared, so that PostgreSQL plans it once.
    public func player(tokenHash: Data) async throws -> Player? {
        try await once { connection in
            try await connection.one(Prepared<PlayerByToken>(tokenHash), logger: logger).map { try Self.player(from: $0) }
        }
    }

    /// The group the player is in now, its row locked until the transaction ends.
    enum LockActiveGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT id FROM play_group WHERE id = (SELECT group_id FROM membership WHERE player_id = $1 AND left_at IS NULL) FOR UPDATE"
    }

    enum PlayerByToken: PreparedSQL {
        static let types: [PostgresDataType] = [.bytea]
        static let sql = "SELECT id, name, language, created_at FROM player WHERE token_hash = $1"
    }

    public func updatePlayer(id: String, name: String?, language: String??, now: Date) async throws -> PlayerUpdate? {
        try await write { connection in
            // Locked as a change of group locks it: the rename is told to the group the player is in.
            guard var player = try await Self.lockPlayer(connection, id: id, logger: logger) else { return nil }
            if let language {
                try await connection.run("UPDATE player SET language = \(language) WHERE id = \(id)", logger: logger)
                player.language = language
            }
            guard let name else { return PlayerUpdate(player: player, events: []) }
            // With the player's row locked, their group cannot change: the group read is theirs
            // until the commit.
            let groupId = try await connection.one(Prepared<LockActiveGroup>(id), logger: logger).map { try $0.get(0, as: String.self) }
            let decision = MembershipRules.rename(player, to: name, groupId: groupId)
            player.name = name
            return PlayerUpdate(player: player, events: try await Self.apply(connection, decision, now: now, logger: logger))
        }
    }

    @discardableResult
    public func erasePlayer(id: String, now: Date, venue: @escaping @Sendable (String) -> Venue?) async throws -> Erasure {
        try await write { connection in
            try await Self.lockPlayer(connection, id: id, logger: logger)
            let blobs = try await connection.column(
                "SELECT blob FROM photo WHERE photographer_id = \(id) UNION SELECT blob FROM hidden_photo WHERE photographer_id = \(id)",
                as: String.self, logger: logger
            )
            let active = try await Self.activeGroupId(connection, playerId: id, logger: logger)
            let groups = try await connection.column("SELECT DISTINCT group_id FROM photo WHERE photographer_id = \(id) ORDER BY group_id", as: String.self, logger: logger)
            // Every group the erasure changes, locked in the order of their ids.
            var locked: [String: Group] = [:]
            for groupId in Set(groups + [active].compactMap { $0 }).sorted() {
                locked[groupId] = try await Self.lockGroup(connection, id: groupId, logger: logger)
            }
            // Names blanked in what is stored first: the events written below carry none.
            try await Self.renameInEvents(connection, playerId: id, to: "", logger: logger)
            try await Self.forgetAnswers(connection, playerId: id, logger: logger)
            var events: [GroupEvent] = []
            // Each group is told its photos by the player are gone, as if staff withdrew them.
            for groupId in groups {
                let photos = try await connection.rows(
                    "\(unescaped: Self.photoSelect) WHERE photo.group_id = \(groupId) AND photo.photographer_id = \(id) ORDER BY photo.created_at, photo.id",
                    logger: logger
                ).map(Self.photo(from:))
                let payloads = try PhotoRules.erasure(
                    ofPhotos: photos, before: try await Self.taskPhotos(connection, groupId: groupId, logger: logger), venue: locked[groupId].flatMap { venue($0.venueId) }
                )
                try await connection.run("DELETE FROM photo WHERE group_id = \(groupId) AND photographer_id = \(id)", logger: logger)
                events += try await Self.appendEvents(connection, groupId: groupId, payloads, now: now, logger: logger)
            }
            if let groupId = active, let seats = try await Self.seats(connection, groupId: groupId, logger: logger) {
                events += try await Self.apply(connection, MembershipRules.leave(seats, playerId: id), now: now, logger: logger)
            }
            try await connection.run("UPDATE play_group SET creator_id = NULL WHERE creator_id = \(id)", logger: logger)
            try await connection.run("DELETE FROM player WHERE id = \(id)", logger: logger)
            var unused: [String] = []
            for blob in blobs where try await !Self.isBlobUsed(connection, blob, logger: logger) { unused.append(blob) }
            return Erasure(unusedBlobs: unused, groupsWithPhotos: groups, events: events)
        }
    }

    static func player(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Player? {
        try await connection.one(query, logger: logger).map { row in
            try player(from: row)
        }
    }

    /// The player in columns id, name, language and time made, from column `first`.
    static func player(from row: PostgresRandomAccessRow, at first: Int = 0) throws -> Player {
        Player(id: try row.get(first), name: try row.get(first + 1), language: try row.get(first + 2), createdAt: Date(timeIntervalSince1970: try row.get(first + 3)))
    }

    /// Blanks what an erased player typed as answers, in their attempts and in the events that
    /// told them; an attempt keeps whether it was right, so a task answered right stays done.
    static func forgetAnswers(_ connection: PostgresConnection, playerId: String, logger: Logger) async throws {
        try await connection.run("UPDATE task_answer SET answer = '' WHERE player_id = \(playerId)", logger: logger)
        try await connection.run("""
            UPDATE group_event SET data = jsonb_set(data::jsonb, '{answer}', '""'::jsonb)::text
            WHERE group_id IN (SELECT group_id FROM membership WHERE player_id = \(playerId))
              AND data::jsonb ->> 'playerId' = \(playerId) AND data::jsonb ? 'answer'
            """, logger: logger)
    }

    /// Writes `name` over the copies of a player's name in the stored events of their groups.
    static func renameInEvents(_ connection: PostgresConnection, playerId: String, to name: String, logger: Logger) async throws {
        for (idField, nameField) in [("playerId", "name"), ("photographerId", "photographerName")] {
            try await connection.run("""
                UPDATE group_event SET data = jsonb_set(data::jsonb, ARRAY[\(nameField)], to_jsonb(\(name)::text))::text
                WHERE group_id IN (SELECT group_id FROM membership WHERE player_id = \(playerId))
                  AND data::jsonb ->> \(idField) = \(playerId) AND data::jsonb ? \(nameField)
                """, logger: logger)
        }
    }
}
