import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// Members' answers and found codes, as `SQLiteStore` keeps them: each attempt with the
// group's row locked, so that two members answering at once are decided one after the other.
extension PostgresStore {
    public func answerTask(
        groupId: String, task: GroupProgress.TaskKey, given: AnswerRules.Given, by player: Player, venue: Venue?, now: Date
    ) async throws -> [GroupEvent] {
        try await write { connection in
            try await Self.lockForMember(connection, of: groupId, playerId: player.id, adding: true, logger: logger)
            let change = try AnswerRules.answer(
                given, to: task, by: player, before: try await Self.taskPhotos(connection, groupId: groupId, logger: logger),
                attempts: try await Self.attemptCount(connection, groupId: groupId, task: task, logger: logger), venue: venue, now: now
            )
            let answer = change.answer
            try await connection.run("""
                INSERT INTO task_answer (group_id, mission_id, task_id, player_id, answer, correct, answered_at)
                VALUES (\(groupId), \(task.missionId), \(task.taskId), \(answer.playerId), \(answer.answer), \(answer.right),
                        \(answer.answeredAt.timeIntervalSince1970))
                """, logger: logger)
            return try await Self.appendEvents(connection, groupId: groupId, change.events, now: now, logger: logger)
        }
    }

    public func taskAnswers(groupId: String) async throws -> [TaskAnswer] {
        try await once { try await Self.answers($0, groupId: groupId, logger: logger) }
    }

    public func venueAnswers(venueId: String) async throws -> [(groupId: String, answer: TaskAnswer)] {
        try await once { connection in
            try await connection.rows("""
                SELECT task_answer.mission_id, task_answer.task_id, task_answer.player_id, COALESCE(player.name, ''), task_answer.answer,
                       task_answer.correct, task_answer.answered_at, task_answer.group_id
                FROM task_answer LEFT JOIN player ON player.id = task_answer.player_id JOIN play_group ON play_group.id = task_answer.group_id
                WHERE play_group.venue_id = \(venueId) ORDER BY task_answer.answered_at, task_answer.id
                """, logger: logger).map { row in (try row.get(7, as: String.self), try Self.answer(from: row)) }
        }
    }

    /// How many attempts the group has stored at `task`; read with the group's row locked, so
    /// that attempts sent at once are counted one after the other.
    static func attemptCount(_ connection: PostgresConnection, groupId: String, task: GroupProgress.TaskKey, logger: Logger) async throws -> Int {
        try await connection.value(
            "SELECT COUNT(*) FROM task_answer WHERE group_id = \(groupId) AND mission_id = \(task.missionId) AND task_id = \(task.taskId)",
            as: Int.self, logger: logger
        ) ?? 0
    }

    /// The group's attempts, oldest first.
    static func answers(_ connection: PostgresConnection, groupId: String, logger: Logger) async throws -> [TaskAnswer] {
        try await connection.rows("""
            SELECT task_answer.mission_id, task_answer.task_id, task_answer.player_id, COALESCE(player.name, ''), task_answer.answer,
                   task_answer.correct, task_answer.answered_at
            FROM task_answer LEFT JOIN player ON player.id = task_answer.player_id
            WHERE task_answer.group_id = \(groupId) ORDER BY task_answer.answered_at, task_answer.id
            """, logger: logger).map(answer(from:))
    }

    /// Columns: the attempt's task, player, name (empty once erased), answer, whether right, when.
    static func answer(from row: PostgresRandomAccessRow) throws -> TaskAnswer {
        TaskAnswer(
            task: GroupProgress.TaskKey(missionId: try row.get(0), taskId: try row.get(1)), playerId: try row.get(2, as: String?.self),
            name: try row.get(3), answer: try row.get(4), right: try row.get(5), answeredAt: Date(timeIntervalSince1970: try row.get(6))
        )
    }
}
