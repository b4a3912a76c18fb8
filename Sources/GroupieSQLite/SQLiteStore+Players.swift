import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    /// Creates an anonymous player whose token hashes to `tokenHash`.
    public func createPlayer(name: String, language: String?, tokenHash: Data, now: Date) async throws -> Player {
        let player = Player(id: Self.newId(), name: name, language: language, createdAt: now)
        try await commits.write { db in
            try db.executeCached(
                sql: "INSERT INTO player (id, name, language, token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [player.id, player.name, player.language, tokenHash, now.timeIntervalSince1970]
            )
        }
        return player
    }

    public func player(id: String) async throws -> Player? {
        try await lookup { db in
            try Row.fetchOne(db, sql: "SELECT id, name, language, created_at FROM player WHERE id = ?", arguments: [id]).map(Self.player(from:))
        }
    }

    /// The player a bearer token belongs to.
    public func player(tokenHash: Data) async throws -> Player? {
        try await lookupOne { db in try Self.player(db, tokenHash: tokenHash) }
    }

    static func player(_ db: Database, id: String) throws -> Player? {
        try db.cachedStatement(sql: "SELECT id, name, language, created_at FROM player WHERE id = ?").firstRow(arguments: [id], Self.player(from:))
    }

    static func player(_ db: Database, tokenHash: Data) throws -> Player? {
        try db.cachedStatement(sql: "SELECT id, name, language, created_at FROM player WHERE token_hash = ?")
            .firstRow(arguments: [tokenHash], Self.player(from:))
    }

    /// Changes what is given; returns the player as it is now, and the `member-renamed` a new
    /// name stored in the player's group.
    public func updatePlayer(id: String, name: String?, language: String??, now: Date) async throws -> PlayerUpdate? {
        try await commits.write { db in
            guard var player = try Self.player(db, id: id) else { return nil }
            if let language {
                try db.executeCached(sql: "UPDATE player SET language = ? WHERE id = ?", arguments: [language, id])
                player.language = language
            }
            guard let name else { return PlayerUpdate(player: player, events: []) }
            let decision = MembershipRules.rename(player, to: name, groupId: try Self.activeGroupId(db, playerId: id))
            player.name = name
            return PlayerUpdate(player: player, events: try Self.apply(db, decision, now: now))
        }
    }

    /// Erases the player and every trace of them: their memberships and photos go with them,
    /// their name is blanked in every stored event of every group, and groups they created
    /// pass to their longest-standing member.
    @discardableResult
    public func erasePlayer(id: String, now: Date, venue: @escaping @Sendable (String) -> Venue?) async throws -> Erasure {
        try await commits.write { db in
            let blobs = try String.fetchAll(
                db, sql: "SELECT blob FROM photo WHERE photographer_id = ? UNION SELECT blob FROM hidden_photo WHERE photographer_id = ?",
                arguments: [id, id]
            )
            let groups = try String.fetchAll(db, sql: "SELECT DISTINCT group_id FROM photo WHERE photographer_id = ? ORDER BY group_id", arguments: [id])
            // Names blanked in what is stored first: the events written below carry none.
            try Self.renameInEvents(db, playerId: id, to: "")
            try Self.forgetAnswers(db, playerId: id)
            var events: [GroupEvent] = []
            // Each group is told its photos by the player are gone, as if staff withdrew them.
            for groupId in groups {
                let photos = try Row.fetchAll(
                    db, sql: Self.photoSelect + " WHERE photo.group_id = ? AND photo.photographer_id = ? ORDER BY photo.created_at, photo.id", arguments: [groupId, id]
                ).map(Self.photo(from:))
                let venueId = try String.fetchOne(db, sql: "SELECT venue_id FROM play_group WHERE id = ?", arguments: [groupId])
                let payloads = try PhotoRules.erasure(ofPhotos: photos, before: try Self.taskPhotos(db, groupId: groupId), venue: venueId.flatMap(venue))
                try db.executeCached(sql: "DELETE FROM photo WHERE group_id = ? AND photographer_id = ?", arguments: [groupId, id])
                events += try Self.appendEvents(db, groupId: groupId, payloads, now: now)
            }
            if let seats = try Self.activeGroupId(db, playerId: id).flatMap({ try Self.seats(db, groupId: $0) }) {
                events += try Self.apply(db, MembershipRules.leave(seats, playerId: id), now: now)
            }
            try db.executeCached(sql: "UPDATE play_group SET creator_id = NULL WHERE creator_id = ?", arguments: [id])
            try db.executeCached(sql: "DELETE FROM player WHERE id = ?", arguments: [id])
            return Erasure(unusedBlobs: try blobs.filter { try !Self.isBlobUsed(db, $0) }, groupsWithPhotos: groups, events: events)
        }
    }

    static func player(from row: some PositionalColumns) -> Player {
        Player(id: row.value(0), name: row.value(1), language: row.optional(2), createdAt: Date(timeIntervalSince1970: row.value(3)))
    }

    static func newId() -> String { StoreIds.newId() }
}

extension SQLiteStore {
    /// Blanks what an erased player typed as answers, in their attempts and in the events that
    /// told them; an attempt keeps whether it was right, so a task answered right stays done.
    static func forgetAnswers(_ db: Database, playerId: String) throws {
        try db.execute(sql: "UPDATE task_answer SET answer = '' WHERE player_id = ?", arguments: [playerId])
        try db.execute(sql: """
            UPDATE group_event SET data = json_set(data, '$.answer', '')
            WHERE group_id IN (SELECT group_id FROM membership WHERE player_id = ?)
              AND json_extract(data, '$.playerId') = ? AND json_type(data, '$.answer') IS NOT NULL
            """, arguments: [playerId, playerId])
    }

    /// Writes `name` over the copies of a player's name in the stored events of the groups they
    /// were ever in: on erasure, and when a stored name is shortened.
    static func renameInEvents(_ db: Database, playerId: String, to name: String) throws {
        try db.execute(sql: """
            UPDATE group_event SET data = json_set(data, '$.name', ?)
            WHERE group_id IN (SELECT group_id FROM membership WHERE player_id = ?)
              AND json_extract(data, '$.playerId') = ? AND json_type(data, '$.name') IS NOT NULL
            """, arguments: [name, playerId, playerId])
        try db.execute(sql: """
            UPDATE group_event SET data = json_set(data, '$.photographerName', ?)
            WHERE group_id IN (SELECT group_id FROM membership WHERE player_id = ?)
              AND json_extract(data, '$.photographerId') = ? AND json_type(data, '$.photographerName') IS NOT NULL
            """, arguments: [name, playerId, playerId])
    }
}
