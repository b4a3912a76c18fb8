import Foundation
import GRDB
import GroupieCore
import GroupieStorage

/// The venue numbers kept as events are stored, by `VisitTallyRules`: in the transaction that
/// stores a command's events (or a membership), the group's visit rows are read, Core says what
/// they become and what the tally gains and loses, and both are written here.
extension SQLiteStore {
    /// Migration v17: the triggers of v10 and v12 that kept the numbers go; their tables and
    /// counts stay, and Core goes on counting the same way.
    static let tallyTriggersDropped = """
        DROP TRIGGER group_played;
        DROP TRIGGER tally_group_played;
        DROP TRIGGER tally_group_gone;
        DROP TRIGGER tally_group_photos;
        DROP TRIGGER tally_mission_added;
        DROP TRIGGER tally_mission_gone;
        DROP TRIGGER tally_mission_changed;
        DROP TRIGGER tally_task_added;
        DROP TRIGGER tally_task_gone;
        DROP TRIGGER visit_photo_added;
        DROP TRIGGER visit_task_done;
        DROP TRIGGER visit_mission_completed;
        DROP TRIGGER visit_task_undone;
        """

    /// Inside a transaction: what storing `events` at `at` (after a membership when `joins`)
    /// does to the group's numbers, written.
    static func countVisit(_ db: Database, groupId: String, events: [GroupEventPayload], at: Double, joins: Bool = false) throws {
        guard VisitTallyRules.touches(events, joins: joins), let visit = try visits(db, where: "id = ?", [groupId]).first else { return }
        try write(db, VisitTallyRules.change(visit, events: events.map { .init($0, at: at) }, joins: joins))
    }

    /// Inside a transaction, before the groups that `condition` picks are deleted: their counts
    /// taken out of the tally (their visit rows go with them, by their foreign keys).
    static func uncountGroups(_ db: Database, where condition: String, _ arguments: StatementArguments) throws {
        try addToTally(db, VisitTallyRules.removal(of: try visits(db, where: condition, arguments)))
    }

    /// Migration v18: the numbers counted again from the stored events by today's rules (a photo
    /// staff restored counts once, an answer starts its mission); a group counted as played
    /// stays played.
    static func recountVisits(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM visit_tally; DELETE FROM visit_mission; DELETE FROM visit_task; UPDATE play_group SET photos_added = 0")
        try countCopiedGroups(db, where: "1")
    }

    /// Inside a transaction, after groups were copied in without their numbers (an import): each
    /// group's numbers made from its stored events, in order, as they would have been counted.
    static func countCopiedGroups(_ db: Database, where condition: String, _ arguments: StatementArguments = []) throws {
        // Played: anyone joined, or (counted again) the group was counted as played before,
        // whose members may all have been erased since.
        let groups = try Row.fetchAll(
            db, sql: """
                SELECT id, venue_id, created_at, played OR EXISTS (SELECT 1 FROM membership WHERE membership.group_id = play_group.id)
                FROM play_group WHERE \(condition)
                """, arguments: arguments
        )
        let kinds = VisitTallyRules.kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let events = try db.cachedStatement(sql: """
            SELECT type, json_extract(data, '$.missionId'), json_extract(data, '$.taskId'), created_at,
                   json_extract(data, '$.photoId'), json_extract(data, '$.restored')
            FROM group_event WHERE group_id = ? AND type IN (\(kinds)) ORDER BY seq
            """)
        for group in groups {
            let groupId: String = group[0]
            let visit = VisitTallyRules.GroupVisit(groupId: groupId, venueId: group[1], createdAt: group[2])
            var seen: Set<String> = []
            let stored = try Row.fetchAll(events, arguments: [groupId]).compactMap { row -> VisitTallyRules.Event? in
                GroupEventKind(rawValue: row[0]).map {
                    VisitTallyRules.Event(stored: $0, missionId: row[1], taskId: row[2], at: row[3], photoId: row[4], restored: row[5], seen: &seen)
                }
            }
            let change = VisitTallyRules.change(visit, events: stored, joins: group[3])
            if !change.isEmpty { try write(db, change) }
        }
    }

    /// The visit state of the groups that `condition` (on `play_group`) picks.
    static func visits(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [VisitTallyRules.GroupVisit] {
        var visits: [String: VisitTallyRules.GroupVisit] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, venue_id, created_at, played, photos_added FROM play_group WHERE \(condition)"), arguments: arguments
        ) {
            visits[row[0]] = .init(groupId: row[0], venueId: row[1], createdAt: row[2], played: row[3], photosAdded: row[4])
        }
        guard !visits.isEmpty else { return [] }
        let groups = "group_id IN (SELECT id FROM play_group WHERE \(condition))"
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT group_id, mission_id, started_at, completed_at FROM visit_mission WHERE \(groups)"), arguments: arguments
        ) {
            visits[row[0] as String]?.missions[row[1]] = .init(startedAt: row[2], completedAt: row[3])
        }
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT group_id, mission_id, task_id, seconds FROM visit_task WHERE \(groups)"), arguments: arguments
        ) {
            visits[row[0] as String]?.tasks[.init(missionId: row[1], taskId: row[2])] = row[3]
        }
        return visits.values.sorted { $0.groupId < $1.groupId }
    }

    /// Writes a change of Core: the group's row, its visit rows, the tally.
    private static func write(_ db: Database, _ change: VisitTallyRules.Change) throws {
        let visit = change.visit
        if change.groupChanged {
            try db.executeCached(
                sql: "UPDATE play_group SET played = ?, photos_added = ? WHERE id = ?", arguments: [visit.played, visit.photosAdded, visit.groupId]
            )
        }
        for (missionId, mission) in change.missions.sorted(by: { $0.key < $1.key }) {
            try db.executeCached(
                sql: """
                    INSERT INTO visit_mission (group_id, venue_id, mission_id, started_at, completed_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (group_id, mission_id) DO UPDATE SET started_at = excluded.started_at, completed_at = excluded.completed_at
                    """,
                arguments: [visit.groupId, visit.venueId, missionId, mission.startedAt, mission.completedAt]
            )
        }
        for (task, seconds) in change.tasks.sorted(by: { ($0.key.missionId, $0.key.taskId) < ($1.key.missionId, $1.key.taskId) }) {
            try db.executeCached(
                sql: "INSERT OR IGNORE INTO visit_task (group_id, venue_id, mission_id, task_id, seconds) VALUES (?, ?, ?, ?, ?)",
                arguments: [visit.groupId, visit.venueId, task.missionId, task.taskId, seconds]
            )
        }
        try addToTally(db, change.tally)
    }

    /// Adds Core's deltas to `visit_tally`: a count taken from a row the tally does not hold is
    /// passed over.
    private static func addToTally(_ db: Database, _ deltas: [VisitTallyRules.TallyKey: Int]) throws {
        for (key, count) in deltas.sorted(by: { $0.key < $1.key }) {
            let arguments: StatementArguments = [count, key.venueId, key.kind.rawValue, key.missionId, key.taskId, key.value]
            if count > 0 {
                try db.executeCached(
                    sql: """
                        INSERT INTO visit_tally (count, venue_id, kind, mission_id, task_id, value) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT DO UPDATE SET count = count + excluded.count
                        """,
                    arguments: arguments
                )
            } else {
                try db.executeCached(
                    sql: "UPDATE visit_tally SET count = count + ? WHERE venue_id = ? AND kind = ? AND mission_id = ? AND task_id = ? AND value = ?",
                    arguments: arguments
                )
            }
        }
    }
}
