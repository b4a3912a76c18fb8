import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Members' claims of tasks, as `SQLiteStore` keeps them: each change with the group's row
// locked, so that two members claiming one task at once are decided one after the other.
extension PostgresStore {
    public func claimTask(groupId: String, task: GroupProgress.TaskKey, by player: Player, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.lockForMember(connection, of: groupId, playerId: player.id, adding: true, logger: logger)
            let photos = try await Self.taskPhotos(connection, groupId: groupId, logger: logger)
            return try await Self.applyClaim(connection, .claim(task, by: player), groupId: groupId, photos: photos, venue: venue, now: now, logger: logger)
        }
    }

    public func releaseTask(groupId: String, task: GroupProgress.TaskKey, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.lockForMember(connection, of: groupId, playerId: playerId, adding: false, logger: logger)
            return try await Self.applyClaim(
                connection, .release(task, playerId: playerId), groupId: groupId, photos: TaskPhotos(photos: [], picks: [:]), venue: nil, now: now, logger: logger
            )
        }
    }

    /// Inside a transaction that locked the group's row: reads its claims and members, asks
    /// `ClaimRules` and writes its change with the events.
    static func applyClaim(
        _ connection: PostgresConnection, _ action: ClaimRules.Action, groupId: String, photos: TaskPhotos, venue: Venue?,
        now: Date, logger: Logger, read: ClaimState? = nil
    ) async throws -> [GroupEvent] {
        let state: ClaimState
        if let read { state = read } else { state = try await claimState(connection, groupId: groupId, logger: logger) }
        let (claims, members) = (state.claims, state.members)
        let change = try ClaimRules.change(action, before: claims, members: members, photos: photos, venue: venue, now: now)
        if let task = change.remove {
            try await connection.run(
                "DELETE FROM task_claim WHERE group_id = \(groupId) AND mission_id = \(task.missionId) AND task_id = \(task.taskId)", logger: logger
            )
        }
        if let claim = change.store {
            try await connection.run("""
                INSERT INTO task_claim (group_id, mission_id, task_id, player_id, claimed_at)
                VALUES (\(groupId), \(claim.task.missionId), \(claim.task.taskId), \(claim.playerId), \(claim.claimedAt.timeIntervalSince1970))
                ON CONFLICT (group_id, mission_id, task_id) DO UPDATE SET player_id = excluded.player_id, claimed_at = excluded.claimed_at
                """, logger: logger)
        }
        return try await appendEvents(connection, groupId: groupId, change.events, now: now, logger: logger)
    }

    /// A group's stored claims (expired ones too) and its members.
    struct ClaimState {
        var claims: [TaskClaim]
        var members: Set<String>
    }

    static func claimState(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> ClaimState {
        let claims = try await connection.rows("""
            SELECT task_claim.mission_id, task_claim.task_id, task_claim.player_id, player.name, task_claim.claimed_at
            FROM task_claim JOIN player ON player.id = task_claim.player_id WHERE task_claim.group_id = \(groupId)
            """, logger: logger).map { row in
            TaskClaim(
                task: GroupProgress.TaskKey(missionId: try row.get(0), taskId: try row.get(1)), playerId: try row.get(2), name: try row.get(3),
                claimedAt: Date(timeIntervalSince1970: try row.get(4))
            )
        }
        let members = try await connection.rows("SELECT player_id FROM membership WHERE group_id = \(groupId) AND left_at IS NULL", logger: logger)
            .map { try $0.get(0, as: String.self) }
        return ClaimState(claims: claims, members: Set(members))
    }
}
