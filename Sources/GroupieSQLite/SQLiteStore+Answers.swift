import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// Members' answers to questions and the codes they found: read, decided by `AnswerRules`,
// written with their events.
extension SQLiteStore {
    /// Every attempt, right or wrong; a member's erasure keeps the attempt without its player,
    /// so that a task answered right stays done. The name is read from `player`.
    static let taskAnswerSchema = """
        CREATE TABLE task_answer (
            group_id TEXT NOT NULL REFERENCES play_group(id) ON DELETE CASCADE,
            mission_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            player_id TEXT REFERENCES player(id) ON DELETE SET NULL,
            answer TEXT NOT NULL,
            correct INTEGER NOT NULL,
            answered_at REAL NOT NULL
        );
        CREATE INDEX task_answer_by_group ON task_answer(group_id, answered_at);
        CREATE INDEX task_answer_by_player ON task_answer(player_id);
        """

    /// Erasure blanks what a player typed as it goes (`forgetAnswers`); players erased before
    /// it did kept their answers in their attempts and events.
    static let erasedAnswersBlanked = """
        UPDATE task_answer SET answer = '' WHERE player_id IS NULL;
        UPDATE group_event SET data = json_set(data, '$.answer', '')
        WHERE type = 'task-answered' AND json_extract(data, '$.playerId') NOT IN (SELECT id FROM player);
        """

    public func answerTask(
        groupId: String, task: GroupProgress.TaskKey, given: AnswerRules.Given, by player: Player, venue: Venue?, now: Date
    ) async throws -> [GroupEvent] {
        try await commits.write { db in
            try Self.requireMember(db, of: groupId, playerId: player.id, adding: true)
            let change = try AnswerRules.answer(
                given, to: task, by: player, before: try Self.taskPhotos(db, groupId: groupId),
                attempts: try Self.attemptCount(db, groupId: groupId, task: task), venue: venue, now: now
            )
            let answer = change.answer
            try db.executeCached(
                sql: "INSERT INTO task_answer (group_id, mission_id, task_id, player_id, answer, correct, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [groupId, task.missionId, task.taskId, answer.playerId, answer.answer, answer.right, answer.answeredAt.timeIntervalSince1970]
            )
            return try Self.appendEvents(db, groupId: groupId, change.events, now: now)
        }
    }

    public func taskAnswers(groupId: String) async throws -> [TaskAnswer] {
        try await lookup { db in try Self.answers(db, groupId: groupId) }
    }

    public func venueAnswers(venueId: String) async throws -> [(groupId: String, answer: TaskAnswer)] {
        try await lookup { db in
            try db.cachedStatement(sql: Self.answerSelect + """
                 JOIN play_group ON play_group.id = task_answer.group_id
                WHERE play_group.venue_id = ? ORDER BY task_answer.answered_at, task_answer.rowid
                """
            ).allRows(arguments: [venueId]) { row in (row.value(7), Self.answer(from: row)) }
        }
    }

    /// Columns: the attempt's task, player, name (empty once erased), answer, whether right,
    /// when, and its group.
    static let answerSelect = """
        SELECT task_answer.mission_id, task_answer.task_id, task_answer.player_id, COALESCE(player.name, ''), task_answer.answer,
               task_answer.correct, task_answer.answered_at, task_answer.group_id
        FROM task_answer LEFT JOIN player ON player.id = task_answer.player_id
        """

    static func answer(from row: some PositionalColumns) -> TaskAnswer {
        TaskAnswer(
            task: GroupProgress.TaskKey(missionId: row.value(0), taskId: row.value(1)), playerId: row.optional(2), name: row.value(3),
            answer: row.value(4), right: row.value(5), answeredAt: Date(timeIntervalSince1970: row.value(6))
        )
    }

    /// The group's attempts, oldest first.
    static func answers(_ db: Database, groupId: String) throws -> [TaskAnswer] {
        try db.cachedStatement(sql: answerSelect + " WHERE task_answer.group_id = ? ORDER BY task_answer.answered_at, task_answer.rowid")
            .allRows(arguments: [groupId]) { answer(from: $0) }
    }

    /// How many attempts the group has stored at `task`.
    static func attemptCount(_ db: Database, groupId: String, task: GroupProgress.TaskKey) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM task_answer WHERE group_id = ? AND mission_id = ? AND task_id = ?"),
            arguments: [groupId, task.missionId, task.taskId]
        ) ?? 0
    }

    /// When the group started each mission: the start its numbers stored with the mission's first
    /// photo or attempt, which no deletion moves.
    static func missionStarts(_ db: Database, groupId: String) throws -> [String: Date] {
        Dictionary(uniqueKeysWithValues: try db.cachedStatement(sql: "SELECT mission_id, started_at FROM visit_mission WHERE group_id = ? AND started_at IS NOT NULL")
            .allRows(arguments: [groupId]) { row -> (String, Date) in (row.value(0), Date(timeIntervalSince1970: row.value(1))) })
    }

    /// The group's tasks answered right or found.
    static func answered(_ db: Database, groupId: String) throws -> Set<GroupProgress.TaskKey> {
        Set(try db.cachedStatement(sql: "SELECT DISTINCT mission_id, task_id FROM task_answer WHERE group_id = ? AND correct = 1")
            .allRows(arguments: [groupId]) { row in GroupProgress.TaskKey(missionId: row.value(0), taskId: row.value(1)) })
    }
}
