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
    /// tell of, and are announced to every instance when they do. One prepared statement, one
    /// round trip, whatever the number of events.
    static func appendEvents(_ connection: PostgresConnection, groupId: String, _ events: [GroupEventPayload], now: Date, logger: Logger) async throws -> [GroupEvent] {
        guard !events.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let at = now.timeIntervalSince1970
        // One event, as most changes make, has a statement of its own: its plan fits any values,
        // so PostgreSQL keeps it, where the plan for an array of events is made at each use.
        let rows = try await events.count == 1
            ? connection.rows(Prepared<AppendEvent>(groupId, events[0].kind.rawValue, data[0], at), logger: logger)
            : connection.rows(Prepared<AppendEvents>(groupId, events.map(\.kind.rawValue), data, at), logger: logger)
        // Rows in the order of `events`: numbered by their position.
        return try zip(events, rows).map { event, row in
            GroupEvent(groupId: groupId, seq: try row.get(0), kind: event.kind, data: try row.get(1))
        }
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

    /// Numbers the event after the group's newest, stores it and announces it.
    enum AppendEvent: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .text, .text, .float8]
        static let sql = """
            WITH newest AS (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM group_event WHERE group_id = $1),
            stored AS (
                INSERT INTO group_event (group_id, seq, type, data, created_at)
                SELECT $1, newest.seq, $2, \(erasureChecked("$3::text")), $4 FROM newest
                RETURNING seq, data
            )
            SELECT stored.seq, stored.data, pg_notify('\(eventChannel)', $1 || ' ' || stored.seq) FROM stored
            """
    }

    /// Numbers the events after the group's newest, stores them and announces the last one.
    enum AppendEvents: PreparedSQL {
        static let types: [PostgresDataType] = [.text, .textArray, .textArray, .float8]
        static let sql = """
            WITH newest AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM group_event WHERE group_id = $1),
            stored AS (
                INSERT INTO group_event (group_id, seq, type, data, created_at)
                SELECT $1, newest.seq + event.position, event.type, \(erasureChecked("event.data")), $4
                FROM newest, unnest($2::text[], $3::text[]) WITH ORDINALITY AS event(type, data, position)
                RETURNING seq, data
            )
            SELECT stored.seq, stored.data
            FROM stored, (SELECT pg_notify('\(eventChannel)', $1 || ' ' || MAX(seq)) FROM stored) AS announced
            ORDER BY stored.seq
            """
    }

    public func events(groupId: String, after seq: Int, limit: Int) async throws -> [GroupEvent] {
        let kinds = GroupEventKind.allCases.map(\.rawValue)
        return try await statement("""
            SELECT seq, type, data FROM group_event WHERE group_id = \(groupId) AND seq > \(seq) AND type = ANY(\(kinds)) ORDER BY seq LIMIT \(limit)
            """).compactMap { row in
            let row = row.makeRandomAccess()
            return try GroupEventKind(rawValue: try row.get(1)).map { GroupEvent(groupId: groupId, seq: try row.get(0), kind: $0, data: try row.get(2)) }
        }
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
