import Foundation
import GRDB
import GroupieCore

/// A stored event of a group: what its members' screens are told, numbered in the group's sequence.
public struct GroupEvent: Sendable, Equatable {
    public var groupId: String
    public var seq: Int
    public var type: String
    /// A JSON object.
    public var data: String

    public init(groupId: String, seq: Int, type: String, data: String) {
        self.groupId = groupId
        self.seq = seq
        self.type = type
        self.data = data
    }
}

extension GroupieDatabase {
    /// Stores events of a group with its next sequence numbers; returns them numbered.
    public func appendEvents(groupId: String, _ events: [(type: String, data: String)], now: Date) async throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        return try await writer.write { db in try Self.appendEvents(db, groupId: groupId, events, now: now) }
    }

    /// Inside a transaction: the events commit with the change they tell of, or not at all.
    static func appendEvents(_ db: Database, groupId: String, _ events: [(type: String, data: String)], now: Date) throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        var seq = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(seq) FROM group_event WHERE group_id = ?"), arguments: [groupId]) ?? 0
        var stored: [GroupEvent] = []
        for event in events {
            seq += 1
            try db.execute(
                sql: "INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [groupId, seq, event.type, event.data, now.timeIntervalSince1970]
            )
            stored.append(GroupEvent(groupId: groupId, seq: seq, type: event.type, data: event.data))
        }
        // An event written after its player was erased (a rename racing the erasure) keeps no name.
        let first = stored.first?.seq ?? 0
        try db.execute(sql: """
            UPDATE group_event SET data = json_set(data, '$.name', '')
            WHERE group_id = ? AND seq >= ? AND json_type(data, '$.name') IS NOT NULL AND json_type(data, '$.playerId') IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM player WHERE player.id = json_extract(group_event.data, '$.playerId'))
            """, arguments: [groupId, first])
        return stored
    }

    /// What a change of a group's photos is told as: given the photo and the task photos
    /// before and after, the events to store with it.
    public typealias PhotoEvents = @Sendable (_ photo: Photo, _ before: TaskPhotos, _ after: TaskPhotos) -> [(type: String, data: String)]

    /// The group's events after `seq`, oldest first, at most `limit`.
    public func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT seq, type, data FROM group_event WHERE group_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
                arguments: [groupId, seq, limit]
            ).map { GroupEvent(groupId: groupId, seq: $0["seq"], type: $0["type"], data: $0["data"]) }
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
