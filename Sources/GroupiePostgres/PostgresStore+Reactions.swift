import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Reactions to the group feed's entries, as `SQLiteStore` keeps them: with the group's row
// locked, the member's check, what the entry is and whether the member's reaction is on it (one
// statement), Core's rule and the event in one transaction.
extension PostgresStore {
    public func react(groupId: String, entry: Int, reaction: String, on: Bool, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.lockForMember(connection, of: groupId, playerId: playerId, adding: false, logger: logger)
            let row = try await connection.one(
                """
                SELECT (SELECT type FROM group_event WHERE group_id = \(groupId) AND seq = \(entry)),
                    (SELECT data::jsonb ->> 'on' FROM group_event
                     WHERE group_id = \(groupId) AND seq > \(entry) AND type = 'reaction-changed' AND data::jsonb ->> 'entry' = \(String(entry))
                       AND data::jsonb ->> 'reaction' = \(reaction) AND data::jsonb ->> 'playerId' = \(playerId)
                     ORDER BY seq DESC LIMIT 1)
                """, logger: logger
            )
            let kind = try row?.get(0, as: String?.self).flatMap(GroupEventKind.init(rawValue:))
            let given = try row?.get(1, as: String?.self)
            let events = try ReactionRules.react(entry: entry, kind: kind, reaction: reaction, on: on, given: ReactionRules.given(given), by: playerId)
            return try await Self.appendEvents(connection, groupId: groupId, events, now: now, logger: logger)
        }
    }
}
