import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    /// Stores events of a group with its next sequence numbers; returns them numbered.
    public func appendEvents(groupId: String, _ events: [GroupEventPayload], now: Date) async throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        return try await commits.write { db in try Self.appendEvents(db, groupId: groupId, events, now: now) }
    }

    /// Inside a transaction: the events commit with the change they tell of, or not at all, and
    /// with what they add to the venue numbers.
    static func appendEvents(_ db: Database, groupId: String, _ events: [GroupEventPayload], now: Date) throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        try countVisit(db, groupId: groupId, events: events, at: now.timeIntervalSince1970)
        var seq = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(seq) FROM group_event WHERE group_id = ?"), arguments: [groupId]) ?? 0
        var stored: [GroupEvent] = []
        for event in events {
            seq += 1
            var fields = event.fields
            // An event written after its player was erased (a rename racing the erasure) keeps no
            // name, stored and published alike. Writes are serial, so the check holds until commit.
            if fields["name"] != nil, let playerId = fields["playerId"],
                try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM player WHERE id = ?"), arguments: [playerId]) == nil
            {
                fields["name"] = ""
            }
            let data = String(decoding: try eventEncoder.encode(fields), as: UTF8.self)
            try db.executeCached(
                sql: "INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [groupId, seq, event.kind.rawValue, data, now.timeIntervalSince1970]
            )
            stored.append(GroupEvent(groupId: groupId, seq: seq, kind: event.kind, data: data))
        }
        return stored
    }

    /// An event's JSON object, keys sorted: the payload's `fields`, as its own encoding gives them.
    private static let eventEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every kind, as SQL literals: a row of another type (which no version of Groupie writes)
    /// is passed over in the query, so that a full batch stays full and a replay goes on.
    static let knownKinds = GroupEventKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    public func newestEvents(of groupIds: [String]) async throws -> [String: Int] {
        guard !groupIds.isEmpty else { return [:] }
        return try await lookupOne { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT group_id, MAX(seq) AS seq FROM group_event WHERE group_id IN (\(databaseQuestionMarks(count: groupIds.count))) GROUP BY group_id",
                arguments: StatementArguments(groupIds)
            )
            return Dictionary(rows.map { ($0["group_id"], $0["seq"]) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The group's events after `seq`, oldest first, at most `limit`.
    public func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent] {
        try await lookupOne { db in try Self.events(db, groupId: groupId, after: seq, limit: limit) }
    }

    public func events(after seqs: [String: Int], limit: Int) async throws -> [GroupEvent] {
        guard !seqs.isEmpty else { return [] }
        return try await lookupOne { db in
            try seqs.sorted { $0.key < $1.key }.flatMap { try Self.events(db, groupId: $0.key, after: $0.value, limit: limit) }
        }
    }

    private static func events(_ db: Database, groupId: String, after seq: Int, limit: Int) throws -> [GroupEvent] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT seq, type, data FROM group_event WHERE group_id = ? AND seq > ? AND type IN (\(knownKinds)) ORDER BY seq LIMIT ?
                """),
            arguments: [groupId, seq, limit]
        ).compactMap { row in
            GroupEventKind(rawValue: row["type"]).map { GroupEvent(groupId: groupId, seq: row["seq"], kind: $0, data: row["data"]) }
        }
    }

    /// Groups of a venue that someone is still in: those to tell when the venue changes.
    public func activeGroupIds(venueId: String) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT play_group.id FROM play_group JOIN membership ON membership.group_id = play_group.id
                WHERE play_group.venue_id = ? AND membership.left_at IS NULL
                """, arguments: [venueId])
        }
    }
}
