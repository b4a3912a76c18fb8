import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// Reactions to the group feed's entries: the member's check, what the entry is and whether the
// member's reaction is on it, Core's rule and the event in one transaction.
extension SQLiteStore {
    public func react(groupId: String, entry: Int, reaction: String, on: Bool, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.requireMember(db, of: groupId, playerId: playerId, adding: false)
            let kind = try String.fetchOne(
                db.cachedStatement(sql: "SELECT type FROM group_event WHERE group_id = ? AND seq = ?"), arguments: [groupId, entry]
            ).flatMap(GroupEventKind.init(rawValue:))
            let given = try String.fetchOne(
                db.cachedStatement(sql: """
                    SELECT json_extract(data, '$.on') FROM group_event
                    WHERE group_id = ? AND seq > ? AND type = 'reaction-changed' AND json_extract(data, '$.entry') = ?
                      AND json_extract(data, '$.reaction') = ? AND json_extract(data, '$.playerId') = ?
                    ORDER BY seq DESC LIMIT 1
                    """),
                arguments: [groupId, entry, String(entry), reaction, playerId]
            )
            let events = try ReactionRules.react(entry: entry, kind: kind, reaction: reaction, on: on, given: ReactionRules.given(given), by: playerId)
            return try Self.appendEvents(db, groupId: groupId, events, now: now)
        }
    }
}
