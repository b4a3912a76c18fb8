import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// Reactions to the group feed's entries: the member's check, Core's rule and the event in one
// transaction.
extension GroupieDatabase {
    public func react(groupId: String, entry: Int, reaction: String, on: Bool, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            guard try Self.activeGroupId(db, playerId: playerId) == groupId else { throw MembershipError.groupNotFound }
            let kind = try String.fetchOne(
                db.cachedStatement(sql: "SELECT type FROM group_event WHERE group_id = ? AND seq = ?"), arguments: [groupId, entry]
            ).flatMap(GroupEventKind.init(rawValue:))
            let events = try ReactionRules.react(entry: entry, kind: kind, reaction: reaction, on: on, by: playerId)
            return try Self.appendEvents(db, groupId: groupId, events, now: now)
        }
    }
}
