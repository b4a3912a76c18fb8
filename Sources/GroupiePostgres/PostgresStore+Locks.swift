import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// The row locks a change takes inside its transaction, and the check before a member's change
// (`lockForMember`): the group's row for a change to the group, the player's for a change of
// group.
extension PostgresStore {
    /// Locks the group's row, then asks `MembershipRules.requireMember`: a member's claim,
    /// release, answer and reaction start here, so that none forgets the lock. (A photo takes
    /// the group's lock with its visit's, `lockGroupVisit`, and a choice reads its snapshot
    /// under the lock in one statement, `ChoiceSnapshot`.) Returns the group.
    @discardableResult
    static func lockForMember(_ connection: PostgresConnection, of groupId: String, playerId: String, adding: Bool, logger: Logger) async throws -> Group? {
        let group = try await lockGroup(connection, id: groupId, logger: logger)
        try MembershipRules.requireMember(
            of: groupId, current: try await activeGroupId(connection, playerId: playerId, logger: logger), group: group, adding: adding
        )
        return group
    }

    static func activeGroupId(_ connection: PostgresConnection, playerId: String, logger: Logger) async throws -> String? {
        try await connection.one(Prepared<ActiveGroup>(playerId), logger: logger)?.get(0)
    }

    enum ActiveGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT group_id FROM membership WHERE player_id = $1 AND left_at IS NULL"
    }

    /// Locks the player's row until the transaction ends, so that one player's changes of group
    /// wait for each other, and reads it. `NO KEY UPDATE`: rows that refer to the player (a
    /// photo, a membership) can still be written meanwhile.
    @discardableResult
    static func lockPlayer(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Player? {
        try await connection.one(Prepared<LockPlayer>(id), logger: logger).map { row in
            try player(from: row)
        }
    }

    enum LockPlayer: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT id, name, language, created_at FROM player WHERE id = $1 FOR NO KEY UPDATE"
    }

    /// The group, its row locked until the transaction ends.
    static func lockGroup(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Group? {
        try await connection.one(Prepared<LockGroup>(id), logger: logger).map(group(from:))
    }

    enum LockGroup: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT \(groupColumns) FROM play_group WHERE id = $1 FOR UPDATE"
    }
}
