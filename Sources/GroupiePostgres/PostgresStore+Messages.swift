import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Messages from staff: one `staff-message` event per group, with the audit line, in one transaction.
extension PostgresStore {
    public func sendStaffMessage(_ text: String, venueId: String, groupId: String?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.audited(connection, audit, logger: logger) {
                let groupIds: [String]
                if let groupId {
                    guard try await Self.lockGroup(connection, id: groupId, logger: logger)?.venueId == venueId else { throw ModerationError.groupNotFound }
                    groupIds = [groupId]
                } else {
                    // Locked in the order of their ids, as every statement that locks several groups does.
                    groupIds = try await connection.rows("""
                        SELECT id FROM play_group
                        WHERE venue_id = \(venueId) AND closed_at IS NULL
                          AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
                        ORDER BY id FOR UPDATE
                        """, logger: logger).map { try $0.get(0, as: String.self) }
                }
                var events: [GroupEvent] = []
                for id in groupIds {
                    events += try await Self.appendEvents(connection, groupId: id, [.staffMessage(text: text)], now: now, logger: logger)
                }
                return events
            }
        }
    }

    public func staffMessageCount(venueId: String) async throws -> Int {
        try await once { connection in
            try await connection.one("""
                SELECT COUNT(*)::bigint FROM group_event JOIN play_group ON play_group.id = group_event.group_id
                WHERE play_group.venue_id = \(venueId) AND group_event.type = \(GroupEventKind.staffMessage.rawValue)
                """, logger: logger)?.get(0, as: Int.self) ?? 0
        }
    }
}

extension PostgresStore {
    public func groups(venueId: String, createdFrom start: Date, before end: Date, limit: Int) async throws -> [Group] {
        try await once { connection in
            try await connection.rows("""
                SELECT \(unescaped: Self.groupColumns) FROM play_group
                WHERE venue_id = \(venueId) AND created_at >= \(start.timeIntervalSince1970) AND created_at < \(end.timeIntervalSince1970)
                ORDER BY created_at, id LIMIT \(limit)
                """, logger: logger).map(Self.group(from:))
        }
    }
}
