import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// The venue numbers kept as events are stored, by `VisitTallyRules`: the visit state of the
// groups a change touches is read (or handed over by the read the change made already), Core
// says what it becomes and what the tally gains and loses, and `ApplyWrites` writes both in the
// change's one statement.
extension PostgresStore {
    /// What the writes do to the numbers of the groups they touch: a membership added, or an
    /// event that counts. Reads the visit state of those `writes.visits` does not hold, in one
    /// statement; none when no write counts.
    static func visitChanges(_ connection: PostgresConnection, _ writes: Writes, now: Date, logger: Logger) async throws -> [VisitTallyRules.Change] {
        var joins: [String] = []
        for case .addMembership(let groupId, _) in writes.mutations where !joins.contains(groupId) { joins.append(groupId) }
        var touched: [(groupId: String, payloads: [GroupEventPayload])] = writes.events.filter { VisitTallyRules.touches($0.payloads) }
        for groupId in joins where !touched.contains(where: { $0.groupId == groupId }) { touched.append((groupId, [])) }
        guard !touched.isEmpty else { return [] }
        var visits = writes.visits
        let missing = touched.map(\.groupId).filter { visits[$0] == nil }
        if !missing.isEmpty {
            for visit in try await groupVisits(connection, ids: missing, logger: logger) { visits[visit.groupId] = visit }
        }
        let at = now.timeIntervalSince1970
        return touched.compactMap { groupId, payloads in
            visits[groupId].map { VisitTallyRules.change($0, events: payloads.map { .init($0, at: at) }, joins: joins.contains(groupId)) }
        }.filter { !$0.isEmpty }
    }

    /// The visit state of the groups `ids`, those that exist.
    static func groupVisits(_ connection: PostgresConnection, ids: [String], logger: Logger) async throws -> [VisitTallyRules.GroupVisit] {
        try await connection.rows(Prepared<VisitSnapshot>(ids), logger: logger).map { try visit(from: $0) }
    }

    /// Columns: the group's id, venue, time made, whether played, photos added; its visit
    /// missions and tasks as JSON arrays of arrays.
    enum VisitSnapshot: PreparedSQL {
        static let types: [PostgresDataType] = [.textArray]
        static let sql = "SELECT \(visitColumns) FROM play_group WHERE id = ANY($1)"
    }

    /// The group, its row locked until the transaction ends, with its visit state: what a change
    /// whose events count reads, in one statement.
    static func lockGroupVisit(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> (Group?, VisitTallyRules.GroupVisit?) {
        guard let row = try await connection.one(Prepared<LockGroupVisit>(id), logger: logger) else { return (nil, nil) }
        return (try group(from: row), try visit(from: row, at: 9))
    }

    enum LockGroupVisit: PreparedSQL {
        static let types: [PostgresDataType] = [.text]
        static let sql = "SELECT \(groupColumns), \(visitColumns) FROM play_group WHERE id = $1 FOR UPDATE"
    }

    static let visitColumns = """
        play_group.id, play_group.venue_id, play_group.created_at, play_group.played, play_group.photos_added,
        (SELECT COALESCE(jsonb_agg(jsonb_build_array(mission_id, started_at, completed_at)), '[]') FROM visit_mission WHERE group_id = play_group.id)::text,
        (SELECT COALESCE(jsonb_agg(jsonb_build_array(mission_id, task_id, seconds)), '[]') FROM visit_task WHERE group_id = play_group.id)::text
        """

    /// A row of `visitColumns`, from column `first`.
    static func visit(from row: PostgresRandomAccessRow, at first: Int = 0) throws -> VisitTallyRules.GroupVisit {
        var visit = VisitTallyRules.GroupVisit(
            groupId: try row.get(first), venueId: try row.get(first + 1), createdAt: try row.get(first + 2), played: try row.get(first + 3),
            photosAdded: try row.get(first + 4)
        )
        let decoder = JSONDecoder()
        for mission in try decoder.decode([MissionJSON].self, from: Data(try row.get(first + 5, as: String.self).utf8)) {
            visit.missions[mission.missionId] = .init(startedAt: mission.startedAt, completedAt: mission.completedAt)
        }
        for task in try decoder.decode([TaskJSON].self, from: Data(try row.get(first + 6, as: String.self).utf8)) {
            visit.tasks[.init(missionId: task.missionId, taskId: task.taskId)] = task.seconds
        }
        return visit
    }

    /// `[mission_id, started_at, completed_at]`.
    private struct MissionJSON: Decodable {
        var missionId: String, startedAt: Double?, completedAt: Double?
        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            missionId = try values.decode(String.self)
            startedAt = try values.decodeIfPresent(Double.self)
            completedAt = try values.decodeIfPresent(Double.self)
        }
    }

    /// `[mission_id, task_id, seconds]`.
    private struct TaskJSON: Decodable {
        var missionId: String, taskId: String, seconds: Int
        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            missionId = try values.decode(String.self)
            taskId = try values.decode(String.self)
            seconds = try values.decode(Int.self)
        }
    }

    /// Inside a transaction, before the groups made before `cutoff` are deleted: their counts
    /// taken out of the tally (their visit rows go with them, by their foreign keys).
    static func uncountGroups(_ connection: PostgresConnection, createdBefore cutoff: Date, logger: Logger) async throws {
        let visits = try await connection.rows(
            "SELECT \(unescaped: visitColumns) FROM play_group WHERE created_at < \(cutoff.timeIntervalSince1970)", logger: logger
        ).map { try visit(from: $0) }
        var writes = Writes(groupId: "", events: [])
        writes.tally = VisitTallyRules.removal(of: visits)
        _ = try await apply(connection, writes, now: cutoff, logger: logger)
    }

    /// Inside a transaction, after the groups `ids` were copied in without their numbers (an
    /// import): each group's numbers made from its stored events, in order, as they would have
    /// been counted.
    static func countCopiedGroups(_ connection: PostgresConnection, ids: [String], logger: Logger) async throws {
        let kinds = VisitTallyRules.kinds.map(\.rawValue)
        var events: [String: [VisitTallyRules.Event]] = [:]
        var seen: [String: Set<String>] = [:]
        for row in try await connection.rows("""
            SELECT group_id, type, data::jsonb ->> 'missionId', data::jsonb ->> 'taskId', created_at,
                   data::jsonb ->> 'photoId', data::jsonb ->> 'restored'
            FROM group_event WHERE group_id = ANY(\(ids)) AND type = ANY(\(kinds)) ORDER BY group_id, seq
            """, logger: logger)
        {
            guard let kind = GroupEventKind(rawValue: try row.get(1)) else { continue }
            let groupId: String = try row.get(0)
            events[groupId, default: []].append(.init(
                stored: kind, missionId: try row.get(2), taskId: try row.get(3), at: try row.get(4), photoId: try row.get(5), restored: try row.get(6),
                seen: &seen[groupId, default: []]
            ))
        }
        var writes = Writes(groupId: "", events: [])
        // Played: anyone joined, or (counted again) the group was counted as played before,
        // whose members may all have been erased since.
        for row in try await connection.rows("""
            SELECT id, venue_id, created_at, played OR EXISTS (SELECT 1 FROM membership WHERE membership.group_id = play_group.id)
            FROM play_group WHERE id = ANY(\(ids))
            """, logger: logger)
        {
            let groupId: String = try row.get(0)
            let visit = VisitTallyRules.GroupVisit(groupId: groupId, venueId: try row.get(1), createdAt: try row.get(2))
            writes.counted.append(VisitTallyRules.change(visit, events: events[groupId] ?? [], joins: try row.get(3)))
        }
        _ = try await apply(connection, writes, now: Date(), logger: logger)
    }
}
