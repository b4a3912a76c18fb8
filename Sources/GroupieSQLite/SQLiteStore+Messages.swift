import Foundation
import GRDB
import GroupieCore
import GroupieStorage

extension SQLiteStore {
    public func sendStaffMessage(_ text: String, venueId: String, groupId: String?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.audited(db, audit) {
                let groupIds: [String]
                if let groupId {
                    guard try Self.group(db, where: "id = ?", groupId)?.venueId == venueId else { throw ModerationError.groupNotFound }
                    groupIds = [groupId]
                } else {
                    groupIds = try String.fetchAll(db, sql: """
                        SELECT id FROM play_group
                        WHERE venue_id = ? AND closed_at IS NULL AND EXISTS (SELECT 1 FROM membership WHERE group_id = play_group.id AND left_at IS NULL)
                        ORDER BY id
                        """, arguments: [venueId])
                }
                return try groupIds.flatMap { try Self.appendEvents(db, groupId: $0, [.staffMessage(text: text)], now: now) }
            }
        }
    }

    public func staffMessageCount(venueId: String) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM group_event JOIN play_group ON play_group.id = group_event.group_id
                WHERE play_group.venue_id = ? AND group_event.type = ?
                """, arguments: [venueId, GroupEventKind.staffMessage.rawValue]) ?? 0
        }
    }
}

extension SQLiteStore {
    public func groups(venueId: String, createdFrom start: Date, before end: Date, limit: Int) async throws -> [Group] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.groupColumns) FROM play_group
                WHERE venue_id = ? AND created_at >= ? AND created_at < ?
                ORDER BY created_at, id LIMIT ?
                """, arguments: [venueId, start.timeIntervalSince1970, end.timeIntervalSince1970, limit]).map { Self.group(from: $0) }
        }
    }
}
