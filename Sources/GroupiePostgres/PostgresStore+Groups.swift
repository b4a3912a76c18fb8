import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Groups and memberships: each change reads what `MembershipRules` needs, with the player's row,
// then the groups' rows in the order of their ids, locked; asks Core; and writes its decision.
extension PostgresStore {
    // MARK: Groups

    public func createGroup(venueId: String, name: String?, creatorId: String, joinableFor: TimeInterval, now: Date) async throws -> Join {
        try await write { connection in
            let creator = try await Self.lockPlayer(connection, id: creatorId, logger: logger)
            var current: GroupSeats?
            if let groupId = try await Self.activeGroupId(connection, playerId: creatorId, logger: logger) {
                current = try await Self.seats(connection, groupId: groupId, logger: logger)
            }
            let group = try await Self.insertGroup(connection, venueId: venueId, name: name, creatorId: creatorId, joinableFor: joinableFor, now: now, logger: logger)
            // A new group: nobody has played it, it has no photo.
            let visit = VisitTallyRules.GroupVisit(groupId: group.id, venueId: venueId, createdAt: now.timeIntervalSince1970)
            let decision = try MembershipRules.create(group, creatorId: creatorId, current: current)
            let events = try await Self.apply(connection, decision, visits: [visit], now: now, logger: logger)
            return Join.created(group, left: events, creator: creator, at: now)
        }
    }

    public func createGroupsInAdvance(venueId: String, names: [String], joinableFor: TimeInterval, now: Date) async throws -> [Group] {
        try await write { connection in
            var groups: [Group] = []
            for name in names {
                groups.append(try await Self.insertGroup(connection, venueId: venueId, name: name, creatorId: nil, joinableFor: joinableFor, now: now, logger: logger))
            }
            return groups
        }
    }

    /// A new group row with a join code no group has; `ON CONFLICT DO NOTHING` keeps a code
    /// another instance takes at the same moment from failing the transaction.
    static func insertGroup(
        _ connection: PostgresConnection, venueId: String, name: String?, creatorId: String?, joinableFor: TimeInterval, now: Date,
        batch: (id: String, label: String?)? = nil, logger: Logger
    ) async throws -> Group {
        let id = newId()
        for attempt in 0..<30 {
            let code = JoinCode.random(length: 6 + attempt / 10)
            let group = Group(
                id: id, venueId: venueId, name: name, joinCode: code, creatorId: creatorId,
                createdAt: now, joinableUntil: now.addingTimeInterval(joinableFor)
            )
            let inserted = try await connection.rows("""
                INSERT INTO play_group (id, venue_id, name, join_code, creator_id, created_at, joinable_until, batch_id, batch_label)
                VALUES (\(id), \(venueId), \(name), \(code.value), \(creatorId), \(now.timeIntervalSince1970), \(group.joinableUntil.timeIntervalSince1970),
                        \(batch?.id), \(batch?.label))
                ON CONFLICT (join_code) DO NOTHING RETURNING 1
                """, logger: logger)
            if !inserted.isEmpty { return group }
        }
        throw PostgresStoreError.noFreeJoinCode
    }

    public func joinGroup(
        code: JoinCode, playerId: String, now: Date, gate: FailureGate?, maximumSize: @escaping @Sendable (String) -> Int
    ) async throws -> Join {
        try await write { connection in
            // One player's changes (of group, of name, an erasure) wait for each other on the
            // player's row, which `JoinSeats` locks first. Its snapshot, taken before that wait,
            // may miss a join of the same player that committed meanwhile: the group they left
            // has changed, and the join starts again (`ReadAgain`); a membership they took where
            // the snapshot saw none refuses this one at the unique index of memberships in use,
            // and `write` runs it again too, moving the player on as SQLite's single writer would.
            let seats = try await Self.joinSeats(connection, code: code, playerId: playerId, gate: gate, now: now, logger: logger)
            guard let player = seats.player else { throw MembershipError.groupNotFound }
            guard let group = seats.target else { throw MembershipError.unknownCode }
            let decision = try MembershipRules.join(group, player: player, current: seats.current, maximumSize: maximumSize(group.group.venueId), now: now)
            let events = try await Self.apply(connection, decision, visits: seats.visit.map { [$0] } ?? [], now: now, logger: logger)
            var join = Join(
                group: group.group.applying(decision.mutations),
                left: events.filter { $0.groupId != group.group.id }, joined: events.filter { $0.groupId == group.group.id }
            )
            // The group's contents as the join leaves them, at the version of its event: what
            // the rows locked since the read held, with the joiner among the members.
            if join.membership != nil, var contents = seats.targetContents {
                contents.members = contents.members.applying(decision.mutations, to: group.group, names: [player.id: player.name], at: now)
                join.contents = contents
            }
            return join
        }
    }

    /// What a join reads, in one statement: the player, their row locked first, as every change
    /// of a player's locks it; the gate's failures; and the group of the join code and the
    /// player's group now, each with its members, locked in the order of their ids (two players
    /// swapping groups wait for each other instead of deadlocking). Read again when another
    /// change of either group committed while this one waited for its row, so that the members
    /// are those of now. With the join code's group, what the numbers need of it. The groups are
    /// read only once the gate has passed: with failures of its keys, the first reading leaves
    /// them out, the gate decides, and a second reading takes them. A client the gate refuses
    /// learns nothing of a code, not even by the time the answer takes.
    static func joinSeats(
        _ connection: PostgresConnection, code: JoinCode, playerId: String, gate: FailureGate?, now: Date, logger: Logger
    ) async throws -> JoinSnapshot {
        func read(groupsDespiteFailures: Bool) async throws -> [PostgresRandomAccessRow] {
            try await connection.rows(Prepared<JoinSeats>(
                playerId, code.value, gate?.keys ?? [], now.timeIntervalSince1970 - (gate?.window ?? 0), groupsDespiteFailures
            ), logger: logger)
        }
        var rows = try await read(groupsDespiteFailures: false)
        // The statement has one row at least: the failures are in each.
        let failed = try rows.first.map { try Self.failures(from: $0.get(19)) } ?? [:]
        if let gate {
            try gate.check(failed)
            if failed.values.contains(where: { !$0.isEmpty }) { rows = try await read(groupsDespiteFailures: true) }
        }
        // Each reading waits only for rows another change holds; a few are enough however busy
        // the groups. A reading that finds other groups (the player's changed meanwhile) would
        // lock them after rows of higher ids: the join starts again instead, its locks released.
        func current(_ rows: [PostgresRandomAccessRow]) throws -> Bool { try rows.allSatisfy { try $0[0].bytes == nil || isCurrent($0, from: 9) } }
        func ids(_ rows: [PostgresRandomAccessRow]) throws -> Set<String> { Set(try rows.compactMap { try $0.get(0, as: String?.self) }) }
        let groupIds = try ids(rows)
        for _ in 0..<4 where try !current(rows) {
            rows = try await read(groupsDespiteFailures: true)
            guard try ids(rows) == groupIds else { throw ReadAgain() }
        }
        guard try current(rows) else { throw ReadAgain() }
        var snapshot = JoinSnapshot()
        for row in rows {
            if snapshot.player == nil, row[15].bytes != nil {
                snapshot.player = try player(from: row, at: 15)
                // A rename committed while the join waited for the player's row: the contents
                // read before it show the old name, on the player's photos and claims.
                snapshot.nameChanged = try row.get(25, as: String?.self) != snapshot.player?.name
            }
            guard row[0].bytes != nil else { continue }
            let seats = GroupSeats(group: try group(from: row), memberIds: try row.get(11))
            if try row.get(12, as: Bool.self) {
                snapshot.target = seats
                if !snapshot.nameChanged { snapshot.targetContents = try contents(row, from: 20, group: seats.group) }
                snapshot.visit = .init(groupId: seats.group.id, venueId: seats.group.venueId, createdAt: try row.get(5), played: try row.get(13), photosAdded: try row.get(14))
            }
            if seats.memberIds.contains(playerId) { snapshot.current = seats }
        }
        return snapshot
    }

    struct JoinSnapshot {
        var target: GroupSeats?, current: GroupSeats?, visit: VisitTallyRules.GroupVisit?
        var player: Player?
        var nameChanged = false
        /// The join code's group's contents, as the snapshot has them: before the join.
        var targetContents: GroupContents?
    }

    /// A join's reading found the player's group changed: the transaction starts again (`write`).
    struct ReadAgain: Error {}

    /// Whether a row locked by a statement that also read the group's members (or photos) saw
    /// them as they are: its columns `column` and the next are the group's newest event on its
    /// row (as it is now, once locked) and in the statement's snapshot (as it was when the
    /// statement began). Every change of a group's members and photos stores an event.
    static func isCurrent(_ row: PostgresRandomAccessRow, from column: Int) throws -> Bool {
        try row.get(column, as: Int.self) == row.get(column + 1, as: Int.self)
    }

    /// Parameters: the player, the join code, the gate's keys, the time its window begins, and
    /// whether to read the groups when the keys have failures.
    /// The groups are read after the player's row is locked (`me` is the outer side of the
    /// loop that reads them, and they depend on it). One row per group (at least one, its group
    /// columns NULL when there is none). Columns:
    /// `groupColumns`, the newest event's number on the row and in the snapshot, the member ids
    /// longest-standing first, whether it is the join code's group, whether it was played and
    /// its photos added; the player's id, name, language and time made (NULL when there is no
    /// such player); the failures as a JSON array of `[key, at]`; and for the join code's group
    /// (NULL for the other), its contents as `ContentsOfGroup` reads them, with the claims of the
    /// player, about to be a member, too; the player's name as the snapshot has it.
    enum JoinSeats: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .text, .textArray, .float8, .bool]
        static let targetContents = [membersJSON, taskPhotosJSON, choicesJSON, collagesJSON, claimsJSON(alsoOf: "me.id")]
            .map { "CASE WHEN play_group.join_code = $2 THEN \(PlayingGroupContents.ofEachGroup($0))::text END" }
            .joined(separator: ", ")
        static let sql = """
            WITH me AS MATERIALIZED (SELECT id, name, language, created_at FROM player WHERE id = $1 FOR NO KEY UPDATE)
            SELECT seats.c0, seats.c1, seats.c2, seats.c3, seats.c4, seats.c5, seats.c6, seats.c7, seats.c8, seats.c9, seats.c10,
                   seats.c11, seats.c12, seats.c13, seats.c14, me.id, me.name, me.language, me.created_at, failed.list,
                   seats.c15, seats.c16, seats.c17, seats.c18, seats.c19, (SELECT name FROM player WHERE id = $1)
            FROM (SELECT 1) AS one
            LEFT JOIN me ON true
            CROSS JOIN LATERAL (
                SELECT COALESCE(json_agg(json_build_array(key, at) ORDER BY key, at), '[]')::text AS list
                FROM rate_failure WHERE key = ANY($3) AND at > $4
            ) AS failed
            LEFT JOIN LATERAL (
                SELECT \(qualifiedGroupColumns), play_group.event_seq, \(newestEvent),
                       ARRAY(SELECT player_id FROM membership WHERE group_id = play_group.id AND left_at IS NULL ORDER BY joined_at, id),
                       play_group.join_code = $2, play_group.played, play_group.photos_added, \(targetContents)
                FROM play_group
                WHERE (play_group.join_code = $2 OR play_group.id = (SELECT group_id FROM membership WHERE player_id = me.id AND left_at IS NULL))
                  AND ($5 OR failed.list = '[]')
                ORDER BY play_group.id FOR UPDATE OF play_group
            ) AS seats(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19) ON true
            """
    }

    /// The group's newest event as the statement's snapshot has it.
    static let newestEvent = "(SELECT COALESCE(MAX(seq), 0) FROM group_event WHERE group_id = play_group.id)"

    @discardableResult
    public func removeMember(groupId: String, playerId: String, by actorId: String, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            // The member's row first, as their changes of group take it, then the group's.
            try await Self.lockPlayer(connection, id: playerId, logger: logger)
            guard let seats = try await Self.seats(connection, groupId: groupId, logger: logger) else { throw MembershipError.groupNotFound }
            return try await Self.apply(connection, MembershipRules.remove(seats, playerId: playerId, by: actorId), now: now, logger: logger)
        }
    }

    public func membership(playerId: String, groupId: String) async throws -> Membership? {
        try await once { connection in
            guard let row = try await connection.one(Prepared<MembershipOfPlayer>(groupId, playerId), logger: logger) else { return nil }
            return Membership(group: try Self.group(from: row), version: try row.get(9))
        }
    }

    enum MembershipOfPlayer: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .text]
        static let sql = """
            SELECT \(qualifiedGroupColumns), play_group.event_seq
            FROM play_group JOIN membership ON membership.group_id = play_group.id
            WHERE play_group.id = $1 AND membership.player_id = $2 AND membership.left_at IS NULL
            """
    }

    /// One statement: the player, and the group's columns and version where the membership holds.
    public func member(tokenHash: Data, groupId: String) async throws -> MemberLookup? {
        try await once { connection in
            guard let row = try await connection.one(Prepared<MemberByToken>(groupId, tokenHash), logger: logger) else { return nil }
            let player = try Self.player(from: row, at: 10)
            guard try row.get(0, as: String?.self) != nil else { return MemberLookup(player: player, membership: nil) }
            return MemberLookup(player: player, membership: Membership(group: try Self.group(from: row), version: try row.get(9)))
        }
    }

    enum MemberByToken: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .bytea]
        static let sql = """
            SELECT \(qualifiedGroupColumns), play_group.event_seq,
                   player.id, player.name, player.language, player.created_at
            FROM player
            LEFT JOIN membership ON membership.player_id = player.id AND membership.left_at IS NULL AND membership.group_id = $1
            LEFT JOIN play_group ON play_group.id = membership.group_id
            WHERE player.token_hash = $2
            """
    }

    public func groupContents(_ group: Group) async throws -> GroupContents {
        try await once { try await Self.contents($0, group: group, logger: logger) }
    }

    public func currentGroup(of playerId: String) async throws -> Group? {
        try await once { connection in
            try await Self.group(connection, """
                SELECT \(unescaped: Self.qualifiedGroupColumns) FROM play_group JOIN membership ON membership.group_id = play_group.id
                WHERE membership.player_id = \(playerId) AND membership.left_at IS NULL
                """, logger: logger)
        }
    }

    public func group(code: JoinCode) async throws -> Group? {
        try await once { try await Self.group($0, "SELECT \(unescaped: Self.groupColumns) FROM play_group WHERE join_code = \(code.value)", logger: logger) }
    }

    public func group(id: String) async throws -> Group? {
        try await once { try await Self.group($0, "SELECT \(unescaped: Self.groupColumns) FROM play_group WHERE id = \(id)", logger: logger) }
    }

    public func groupExists(id: String) async throws -> Bool {
        try await statement("SELECT 1 FROM play_group WHERE id = \(id)").isEmpty == false
    }

    public func membershipHistory(of playerId: String) async throws -> [MembershipSpan] {
        try await once { connection in
            try await connection.rows("SELECT group_id, joined_at, left_at FROM membership WHERE player_id = \(playerId) ORDER BY id", logger: logger).map { row in
                MembershipSpan(groupId: try row.get(0), joinedAt: Date(timeIntervalSince1970: try row.get(1)), leftAt: try row.get(2, as: Double?.self).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func deleteGroups(createdBefore cutoff: Date) async throws -> RetentionSweep {
        try await write { connection in
            let blobs = try await connection.column("""
                SELECT DISTINCT p.blob FROM (SELECT blob, group_id FROM photo UNION ALL SELECT blob, group_id FROM hidden_photo) p
                JOIN play_group ON play_group.id = p.group_id
                WHERE play_group.created_at < \(cutoff.timeIntervalSince1970)
                """, as: String.self, logger: logger)
            try await Self.uncountGroups(connection, createdBefore: cutoff, logger: logger)
            let count = try await connection.value("""
                WITH gone AS (DELETE FROM play_group WHERE created_at < \(cutoff.timeIntervalSince1970) RETURNING 1) SELECT COUNT(*) FROM gone
                """, as: Int.self, logger: logger) ?? 0
            // Players who belong to no group any more (every group of theirs is gone, or they
            // never joined one) go too, with their names.
            try await connection.run("""
                DELETE FROM player WHERE created_at < \(cutoff.timeIntervalSince1970)
                AND NOT EXISTS (SELECT 1 FROM membership WHERE membership.player_id = player.id)
                """, logger: logger)
            var unused: [String] = []
            for blob in blobs where try await !Self.isBlobUsed(connection, blob, logger: logger) { unused.append(blob) }
            return RetentionSweep(groups: count, unusedBlobs: unused)
        }
    }

    // MARK: - Inside transactions

    static let groupColumns = SQLColumns.group
    static let qualifiedGroupColumns = groupColumns.split(separator: ", ").map { "play_group.\($0)" }.joined(separator: ", ")

    static func group(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Group? {
        try await connection.one(query, logger: logger).map(group(from:))
    }

    /// A row whose first columns are `groupColumns`.
    static func group(from row: PostgresRandomAccessRow) throws -> Group {
        let closedAt = try row.get(7, as: Double?.self)
        return Group(
            id: try row.get(0), venueId: try row.get(1), name: try row.get(2),
            joinCode: JoinCode(typed: try row.get(3))!, creatorId: try row.get(4),
            createdAt: Date(timeIntervalSince1970: try row.get(5)),
            joinableUntil: Date(timeIntervalSince1970: try row.get(6)),
            closed: try closedAt.map { Group.Closure(at: Date(timeIntervalSince1970: $0), reason: try row.get(8, as: String?.self) ?? "") }
        )
    }

    static func members(_ connection: PostgresConnection, group: Group, logger: Logger) async throws -> [Member] {
        try await connection.rows(Prepared<Members>(group.id), logger: logger).map { row in
            let id: String = try row.get(0)
            return Member(playerId: id, name: try row.get(1), joinedAt: Date(timeIntervalSince1970: try row.get(2)), isCreator: id == group.creatorId)
        }
    }

    enum Members: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = """
            SELECT player.id, player.name, membership.joined_at FROM membership
            JOIN player ON player.id = membership.player_id
            WHERE membership.group_id = $1 AND membership.left_at IS NULL
            ORDER BY membership.joined_at, membership.id
            """
    }

    /// The group, its row locked until the transaction ends, and its members now,
    /// longest-standing first: what a change of membership reads.
    static func seats(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> GroupSeats? {
        guard let group = try await lockGroup(connection, id: groupId, logger: logger) else { return nil }
        let members = try await connection.rows(Prepared<MemberIds>(groupId), logger: logger).map { try $0.get(0, as: String.self) }
        return GroupSeats(group: group, memberIds: members)
    }

    enum MemberIds: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT player_id FROM membership WHERE group_id = $1 AND left_at IS NULL ORDER BY joined_at, id"
    }
}
