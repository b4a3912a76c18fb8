import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    public func createGroup(venueId: String, name: String?, creatorId: String, joinableFor: TimeInterval, now: Date) async throws -> Join {
        try await commits.write { db in
            let current = try Self.activeGroupId(db, playerId: creatorId).flatMap { try Self.seats(db, groupId: $0) }
            let group = try Self.insertGroup(db, venueId: venueId, name: name, creatorId: creatorId, joinableFor: joinableFor, now: now)
            let events = try Self.apply(db, MembershipRules.create(group, creatorId: creatorId, current: current), now: now)
            return Join.created(group, left: events, creator: try Self.player(db, id: creatorId), at: now)
        }
    }

    /// Groups made in advance by the venue's staff (a class's table cards): no members yet;
    /// the first to join becomes the group's creator.
    public func createGroupsInAdvance(venueId: String, names: [String], joinableFor: TimeInterval, now: Date) async throws -> [Group] {
        try await commits.write { db in
            try names.map { try Self.insertGroup(db, venueId: venueId, name: $0, creatorId: nil, joinableFor: joinableFor, now: now) }
        }
    }

    /// A new group row with a join code unique among all groups ever made; a clash is rare, so
    /// try again, and make codes longer should the short ones ever get crowded.
    static func insertGroup(
        _ db: Database, venueId: String, name: String?, creatorId: String?, joinableFor: TimeInterval, now: Date, batch: (id: String, label: String?)? = nil
    ) throws -> Group {
        let id = newId()
        for attempt in 0..<30 {
            let code = JoinCode.random(length: 6 + attempt / 10)
            let exists = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM play_group WHERE join_code = ?)"), arguments: [code.value]) ?? false
            if exists { continue }
            let group = Group(
                id: id, venueId: venueId, name: name, joinCode: code, creatorId: creatorId,
                createdAt: now, joinableUntil: now.addingTimeInterval(joinableFor)
            )
            try db.executeCached(
                sql: """
                    INSERT INTO play_group (id, venue_id, name, join_code, creator_id, created_at, joinable_until, batch_id, batch_label)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    group.id, venueId, name, code.value, creatorId, now.timeIntervalSince1970, group.joinableUntil.timeIntervalSince1970, batch?.id,
                    batch?.label,
                ]
            )
            return group
        }
        throw DatabaseError(message: "no free join code after 30 attempts")
    }

    public func joinGroup(
        code: JoinCode, playerId: String, now: Date, gate: FailureGate?, maximumSize: @escaping @Sendable (String) -> Int
    ) async throws -> Join {
        // The failures are counted in this process's memory: read before the write, which they do not hold up.
        if let gate { try gate.check(try await failures(of: gate.keys, within: gate.window, now: now)) }
        return try await commits.write { db in
            guard let groupId = try String.fetchOne(db.cachedStatement(sql: "SELECT id FROM play_group WHERE join_code = ?"), arguments: [code.value]),
                  let target = try Self.seats(db, groupId: groupId)
            else { throw MembershipError.unknownCode }
            guard let player = try Self.player(db, id: playerId) else { throw MembershipError.groupNotFound }
            let current = try Self.activeGroupId(db, playerId: playerId).flatMap { try Self.seats(db, groupId: $0) }
            let decision = try MembershipRules.join(target, player: player, current: current, maximumSize: maximumSize(target.group.venueId), now: now)
            let events = try Self.apply(db, decision, now: now)
            return Join(
                group: target.group.applying(decision.mutations),
                left: events.filter { $0.groupId != groupId }, joined: events.filter { $0.groupId == groupId }
            )
        }
    }

    /// Ends `playerId`'s membership of the group, as `MembershipRules.remove` allows.
    @discardableResult
    public func removeMember(groupId: String, playerId: String, by actorId: String, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            guard let seats = try Self.seats(db, groupId: groupId) else { throw MembershipError.groupNotFound }
            return try Self.apply(db, MembershipRules.remove(seats, playerId: playerId, by: actorId), now: now)
        }
    }

    /// The group and its version, when `playerId` is a member; nil otherwise, so that a
    /// stranger cannot tell a group that exists from one that does not. One read: every
    /// request of a member to its group asks this first.
    public func membership(playerId: String, groupId: String) async throws -> Membership? {
        try await lookupOne { db in
            try db.cachedStatement(sql: Self.memberById).firstRow(arguments: [groupId, playerId], Self.membership(from:)) ?? nil
        }
    }

    public func member(tokenHash: Data, groupId: String) async throws -> MemberLookup? {
        try await lookupOne { db in
            try db.cachedStatement(sql: Self.memberByToken).firstRow(arguments: [groupId, tokenHash]) {
                MemberLookup(player: Self.player(from: $0), membership: Self.membership(from: $0))
            }
        }
    }

    /// A player, and the group given as the first argument with its version when that is the
    /// player's group now, in one statement: every request of a member to its group asks this
    /// first. Columns: the player's four, `groupColumns` (null for a stranger), the version.
    static let memberSelect = """
        SELECT player.id, player.name, player.language, player.created_at,
            play_group.id, play_group.venue_id, play_group.name, play_group.join_code, play_group.creator_id,
            play_group.created_at, play_group.joinable_until, play_group.closed_at, play_group.closed_reason,
            (SELECT COALESCE(MAX(seq), 0) FROM group_event WHERE group_id = play_group.id)
        FROM player
        LEFT JOIN membership ON membership.player_id = player.id AND membership.left_at IS NULL AND membership.group_id = ?
        LEFT JOIN play_group ON play_group.id = membership.group_id
        WHERE
        """

    /// `memberSelect` by player id and by token hash, joined once: GRDB finds a cached statement
    /// by its SQL, which a lookup would otherwise build anew for every request.
    static let memberById = memberSelect + " player.id = ?"
    static let memberByToken = memberSelect + " player.token_hash = ?"

    /// The membership of a `memberSelect` row, nil for a stranger.
    static func membership(from row: StatementColumns) -> Membership? {
        guard !row.isNull(4) else { return nil }
        return Membership(group: group(from: row, at: 4), version: row.value(13))
    }

    /// The members, chosen photos and collages of a group, in one read.
    public func groupContents(_ group: Group) async throws -> GroupContents {
        try await lookup { db in
            GroupContents(
                members: try Self.members(db, group: group), taskPhotos: try Self.taskPhotos(db, groupId: group.id),
                collages: try Self.collages(db, groupId: group.id), claims: try Self.memberClaims(db, groupId: group.id)
            )
        }
    }

    public func memberCount(groupId: String) async throws -> Int {
        try await lookupOne { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM membership WHERE group_id = ? AND left_at IS NULL"), arguments: [groupId]) ?? 0
        }
    }

    /// The group `playerId` is in now, if any.
    public func currentGroup(of playerId: String) async throws -> Group? {
        try await lookup { db in
            guard let groupId = try Self.activeGroupId(db, playerId: playerId) else { return nil }
            return try Self.group(db, where: "id = ?", groupId)
        }
    }

    /// The group a join code opens, for the page a QR code leads to.
    public func group(code: JoinCode) async throws -> Group? {
        try await lookupOne { db in try Self.group(db, where: "join_code = ?", code.value) }
    }

    /// Every membership a player ever had, oldest first.
    public func membershipHistory(of playerId: String) async throws -> [MembershipSpan] {
        try await lookup { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT group_id, joined_at, left_at FROM membership WHERE player_id = ? ORDER BY id"), arguments: [playerId])
                .map { row in
                    MembershipSpan(groupId: row["group_id"], joinedAt: Date(timeIntervalSince1970: row["joined_at"]), leftAt: (row["left_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
                }
        }
    }

    // MARK: - Inside transactions

    /// `MembershipRules.requireMember`, read in the writer's transaction: the checks before a
    /// member's change to their group.
    static func requireMember(_ db: Database, of groupId: String, playerId: String, adding: Bool) throws {
        try MembershipRules.requireMember(
            of: groupId, current: try activeGroupId(db, playerId: playerId), group: adding ? try group(db, where: "id = ?", groupId) : nil, adding: adding
        )
    }

    static func activeGroupId(_ db: Database, playerId: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT group_id FROM membership WHERE player_id = ? AND left_at IS NULL"), arguments: [playerId])
    }

    static func group(_ db: Database, where condition: String, _ value: String) throws -> Group? {
        try db.cachedStatement(sql: "SELECT \(groupColumns) FROM play_group WHERE \(condition)").firstRow(arguments: [value]) { group(from: $0) }
    }

    static let groupColumns = SQLColumns.group

    /// A group from the row's `groupColumns`, which start at column `first`; read by position,
    /// as GRDB's lookup by name lowercases the name on every read.
    static func group(from row: some PositionalColumns, at first: Int32 = 0) -> Group {
        let closedAt: Double? = row.optional(first + 7)
        return Group(
            id: row.value(first), venueId: row.value(first + 1), name: row.optional(first + 2),
            joinCode: JoinCode(typed: row.value(first + 3))!, creatorId: row.optional(first + 4),
            createdAt: Date(timeIntervalSince1970: row.value(first + 5)),
            joinableUntil: Date(timeIntervalSince1970: row.value(first + 6)),
            closed: closedAt.map { Group.Closure(at: Date(timeIntervalSince1970: $0), reason: row.optional(first + 8) ?? "") }
        )
    }

    static func members(_ db: Database, group: Group) throws -> [Member] {
        try db.cachedStatement(sql: """
            SELECT player.id, player.name, membership.joined_at FROM membership
            JOIN player ON player.id = membership.player_id
            WHERE membership.group_id = ? AND membership.left_at IS NULL
            ORDER BY membership.joined_at, membership.id
            """
        ).allRows(arguments: [group.id]) { row in
            let id: String = row.value(0)
            return Member(playerId: id, name: row.value(1), joinedAt: Date(timeIntervalSince1970: row.value(2)), isCreator: id == group.creatorId)
        }
    }

    /// The group and its members now, longest-standing first: what a change of membership reads.
    static func seats(_ db: Database, groupId: String) throws -> GroupSeats? {
        guard let group = try group(db, where: "id = ?", groupId) else { return nil }
        let members = try String.fetchAll(
            db.cachedStatement(sql: "SELECT player_id FROM membership WHERE group_id = ? AND left_at IS NULL ORDER BY joined_at, id"), arguments: [groupId]
        )
        return GroupSeats(group: group, memberIds: members)
    }

    /// Writes what a rule of Core decided, then stores its events in the same transaction;
    /// returns the events, numbered.
    static func apply(_ db: Database, _ decision: GroupDecision, now: Date) throws -> [GroupEvent] {
        let at = now.timeIntervalSince1970
        for mutation in decision.mutations {
            switch mutation {
            case .endMembership(let groupId, let playerId):
                try db.executeCached(
                    sql: "UPDATE membership SET left_at = ? WHERE group_id = ? AND player_id = ? AND left_at IS NULL", arguments: [at, groupId, playerId]
                )
                // A member who leaves gives back their claims: none holds for them if they come back.
                try db.executeCached(sql: "DELETE FROM task_claim WHERE group_id = ? AND player_id = ?", arguments: [groupId, playerId])
            case .addMembership(let groupId, let playerId):
                try db.executeCached(sql: "INSERT INTO membership (group_id, player_id, joined_at) VALUES (?, ?, ?)", arguments: [groupId, playerId, at])
                try countVisit(db, groupId: groupId, events: [], at: at, joins: true)
            case .setCreator(let groupId, let playerId):
                try db.executeCached(sql: "UPDATE play_group SET creator_id = ? WHERE id = ?", arguments: [playerId, groupId])
            case .close(let groupId, let closure):
                try db.executeCached(
                    sql: "UPDATE play_group SET closed_at = ?, closed_reason = ? WHERE id = ?",
                    arguments: [closure.at.timeIntervalSince1970, closure.reason, groupId]
                )
            case .reopen(let groupId):
                try db.executeCached(sql: "UPDATE play_group SET closed_at = NULL, closed_reason = NULL WHERE id = ?", arguments: [groupId])
            case .rename(let playerId, let name):
                try db.executeCached(sql: "UPDATE player SET name = ? WHERE id = ?", arguments: [name, playerId])
            }
        }
        return try decision.eventsByGroup.flatMap { try appendEvents(db, groupId: $0.groupId, $0.payloads, now: now) }
    }
}

extension SQLiteStore {
    /// Deletes groups created before `cutoff` with their memberships, photos, events and counts;
    /// returns how many went and the blobs no photo uses any more, whose files the caller removes.
    public func deleteGroups(createdBefore cutoff: Date) async throws -> RetentionSweep {
        try await commits.write { db in
            let blobs = try String.fetchAll(db, sql: """
                SELECT DISTINCT p.blob FROM (SELECT blob, group_id FROM photo UNION ALL SELECT blob, group_id FROM hidden_photo) p
                JOIN play_group ON play_group.id = p.group_id
                WHERE play_group.created_at < ?
                """, arguments: [cutoff.timeIntervalSince1970])
            try Self.uncountGroups(db, where: "created_at < ?", [cutoff.timeIntervalSince1970])
            try db.executeCached(sql: "DELETE FROM play_group WHERE created_at < ?", arguments: [cutoff.timeIntervalSince1970])
            let count = db.changesCount
            // Players who belong to no group any more (every group of theirs is gone, or they
            // never joined one) go too, with their names.
            try db.executeCached(
                sql: "DELETE FROM player WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM membership WHERE membership.player_id = player.id)",
                arguments: [cutoff.timeIntervalSince1970]
            )
            return RetentionSweep(groups: count, unusedBlobs: try blobs.filter { try !Self.isBlobUsed(db, $0) })
        }
    }
}
