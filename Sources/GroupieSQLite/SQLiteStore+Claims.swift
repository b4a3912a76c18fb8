import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// Members' claims of tasks: read, decided by `ClaimRules`, written with their events.
extension SQLiteStore {
    /// One claim per task of a group; the claimer's name is read from `player`, so that erasing
    /// them leaves nothing here.
    static let taskClaimSchema = """
        CREATE TABLE task_claim (
            group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
            mission_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            player_id TEXT NOT NULL REFERENCES player(id) ON DELETE CASCADE,
            claimed_at REAL NOT NULL,
            PRIMARY KEY (group_id, mission_id, task_id)
        ) WITHOUT ROWID;
        CREATE INDEX task_claim_by_player ON task_claim(player_id);
        """

    public func claimTask(groupId: String, task: GroupProgress.TaskKey, by player: Player, venue: Venue?, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.requireMember(db, of: groupId, playerId: player.id, adding: true)
            let photos = try Self.taskPhotos(db, groupId: groupId)
            return try Self.applyClaim(db, .claim(task, by: player), groupId: groupId, photos: photos, venue: venue, now: now)
        }
    }

    public func releaseTask(groupId: String, task: GroupProgress.TaskKey, playerId: String, now: Date) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.requireMember(db, of: groupId, playerId: playerId, adding: false)
            return try Self.applyClaim(db, .release(task, playerId: playerId), groupId: groupId, photos: TaskPhotos(photos: [], picks: [:]), venue: nil, now: now)
        }
    }

    /// Inside a transaction: reads the group's claims and members, asks `ClaimRules` and writes
    /// its change with the events.
    static func applyClaim(
        _ db: Database, _ action: ClaimRules.Action, groupId: String, photos: TaskPhotos, venue: Venue?, now: Date,
        read: (claims: [TaskClaim], members: Set<String>)? = nil
    ) throws -> [GroupEvent] {
        let (claims, members) = try read ?? (claims(db, groupId: groupId), memberIds(db, groupId: groupId))
        let change = try ClaimRules.change(
            action, before: claims, members: members, photos: photos, venue: venue, now: now
        )
        if let task = change.remove {
            try db.executeCached(
                sql: "DELETE FROM task_claim WHERE group_id = ? AND mission_id = ? AND task_id = ?", arguments: [groupId, task.missionId, task.taskId]
            )
        }
        if let claim = change.store {
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO task_claim (group_id, mission_id, task_id, player_id, claimed_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [groupId, claim.task.missionId, claim.task.taskId, claim.playerId, claim.claimedAt.timeIntervalSince1970]
            )
        }
        return try appendEvents(db, groupId: groupId, change.events, now: now)
    }

    /// Every stored claim of the group, expired ones and those of departed members too.
    static func claims(_ db: Database, groupId: String) throws -> [TaskClaim] {
        try db.cachedStatement(sql: """
            SELECT task_claim.mission_id, task_claim.task_id, task_claim.player_id, player.name, task_claim.claimed_at
            FROM task_claim JOIN player ON player.id = task_claim.player_id
            WHERE task_claim.group_id = ? ORDER BY task_claim.claimed_at, task_claim.mission_id, task_claim.task_id
            """
        ).allRows(arguments: [groupId]) { row in
            TaskClaim(
                task: GroupProgress.TaskKey(missionId: row.value(0), taskId: row.value(1)), playerId: row.value(2), name: row.value(3),
                claimedAt: Date(timeIntervalSince1970: row.value(4))
            )
        }
    }

    /// The claims of members still in the group: what the group's document shows.
    static func memberClaims(_ db: Database, groupId: String) throws -> [TaskClaim] {
        let members = try memberIds(db, groupId: groupId)
        return try claims(db, groupId: groupId).filter { members.contains($0.playerId) }
    }

    static func memberIds(_ db: Database, groupId: String) throws -> Set<String> {
        Set(try String.fetchAll(db.cachedStatement(sql: "SELECT player_id FROM membership WHERE group_id = ? AND left_at IS NULL"), arguments: [groupId]))
    }
}
