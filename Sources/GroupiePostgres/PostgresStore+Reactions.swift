import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Reactions to the group feed's entries, as `GroupieDatabase` keeps them: with the group's row
// locked, the member's check, Core's rule and the event in one transaction.
extension PostgresStore {
    public func react(groupId: String, entry: Int, reaction: String, on: Bool, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            _ = try await Self.lockGroup(connection, id: groupId, logger: logger)
            guard try await Self.activeGroupId(connection, playerId: playerId, logger: logger) == groupId else { throw MembershipError.groupNotFound }
            let kind = try await connection.value(
                "SELECT type FROM group_event WHERE group_id = \(groupId) AND seq = \(entry)", as: String.self, logger: logger
            ).flatMap(GroupEventKind.init(rawValue:))
            let events = try ReactionRules.react(entry: entry, kind: kind, reaction: reaction, on: on, by: playerId)
            return try await Self.appendEvents(connection, groupId: groupId, events, now: now, logger: logger)
        }
    }
}
