import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Group events: numbered, stored and announced in the transaction of the change they tell of.
extension PostgresStore {
    // MARK: Events

    public func appendEvents(groupId: String, _ events: [GroupEventPayload], now: Date) async throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        return try await write { connection in
            _ = try await Self.lockGroup(connection, id: groupId, logger: logger)
            return try await Self.appendEvents(connection, groupId: groupId, events, now: now, logger: logger)
        }
    }

    /// Inside a transaction that holds the group's row: the events commit with the change they
    /// tell of, and are announced to every instance when they do.
    static func appendEvents(_ connection: PostgresConnection, groupId: String, _ events: [GroupEventPayload], now: Date, logger: Logger) async throws -> [GroupEvent] {
        try await apply(connection, Writes(groupId: groupId, events: events), now: now, logger: logger)
    }

    /// The event's data as stored: an event that names a player erased meanwhile keeps no name.
    static func erasureChecked(_ data: String) -> String {
        """
        CASE WHEN \(data)::jsonb ? 'name' AND \(data)::jsonb ? 'playerId'
                  AND NOT EXISTS (SELECT 1 FROM player WHERE player.id = \(data)::jsonb ->> 'playerId')
             THEN jsonb_set(\(data)::jsonb, '{name}', '""')::text
             ELSE \(data) END
        """
    }

    public func newestEvents(of groupIds: [String]) async throws -> [String: Int] {
        guard !groupIds.isEmpty else { return [:] }
        var newest: [String: Int] = [:]
        for row in try await statement("SELECT id, event_seq FROM play_group WHERE id = ANY(\(groupIds)) AND event_seq > 0") {
            let (id, seq) = try row.decode((String, Int).self)
            newest[id] = seq
        }
        return newest
    }

    public func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent] {
        try await events(after: [groupId: seq], limit: limit)
    }

    /// One statement for every group asked about: an instance that hears of many groups' events
    /// at once reads them in one round trip.
    public func events(after seqs: [String: Int], limit: Int) async throws -> [GroupEvent] {
        guard !seqs.isEmpty else { return [] }
        let wanted = seqs.sorted { $0.key < $1.key }
        let kinds = GroupEventKind.allCases.map(\.rawValue)
        return try await once { connection in
            try await connection.rows(Prepared<EventsAfter>(wanted.map(\.key), wanted.map(\.value), kinds, limit), logger: logger).compactMap { row in
                try GroupEventKind(rawValue: try row.get(2)).map { GroupEvent(groupId: try row.get(0), seq: try row.get(1), kind: $0, data: try row.get(3)) }
            }
        }
    }

    /// Each group's events after its number, oldest first, at most `$4` of each; of the kinds
    /// this version knows, so that a full batch stays full and a replay goes on.
    enum EventsAfter: PreparedSQL {
        static let types: [PostgresDataType] = [.textArray, .int8Array, .textArray, .int8]
        static let sql = """
            SELECT wanted.group_id, event.seq, event.type, event.data
            FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS wanted(group_id, after, position)
            CROSS JOIN LATERAL (
                SELECT seq, type, data FROM group_event
                WHERE group_id = wanted.group_id AND seq > wanted.after AND type = ANY($3) ORDER BY seq LIMIT $4
            ) AS event
            ORDER BY wanted.position, event.seq
            """
    }

    public func activeGroupIds(venueId: String) async throws -> [String] {
        try await once { connection in
            try await connection.column("""
                SELECT DISTINCT play_group.id FROM play_group JOIN membership ON membership.group_id = play_group.id
                WHERE play_group.venue_id = \(venueId) AND membership.left_at IS NULL
                """, as: String.self, logger: logger)
        }
    }
}
