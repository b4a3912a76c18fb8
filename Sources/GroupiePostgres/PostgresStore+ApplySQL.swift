import Foundation
import GroupieStorage
import PostgresNIO

// The statement that writes a change (`PostgresStore.apply`), in as many shapes as the kinds of
// change need: each shape holds only the parts its changes fill. PostgreSQL runs every part of a
// statement, opening and locking each table written and its indexes, whether the part has rows
// or not: a task choice written by the whole statement took twice as long as by its own shape.
extension PostgresStore {
    /// The parts of `WritesJSON` a change fills, beyond its groups and events, which every shape
    /// writes.
    struct ApplyParts: OptionSet, Sendable {
        let rawValue: Int
        static let ended = ApplyParts(rawValue: 1 << 0)
        static let added = ApplyParts(rawValue: 1 << 1)
        static let renamed = ApplyParts(rawValue: 1 << 2)
        static let picks = ApplyParts(rawValue: 1 << 3)
        /// The venue numbers: visit missions and tasks, and the tally.
        static let numbers = ApplyParts(rawValue: 1 << 4)
        static let all: ApplyParts = [.ended, .added, .renamed, .picks, .numbers]
    }

    /// A statement that writes the parts `parts` of a change, and its groups and events.
    /// Parameters: the time, and the writes (`WritesJSON`). Rows: each event stored, by group
    /// and number.
    protocol ApplyShape: PreparedSQL {
        static var parts: ApplyParts { get }
    }

    /// Events, and the photos chosen for tasks: a choice, a claim, a reaction, a message.
    enum ApplyEvents: ApplyShape {
        static let parts: ApplyParts = [.picks]
        static let types = applyTypes
        static let sql = applySQL(parts)
    }

    /// Memberships that end and begin, with their events: a join, a leave, a removal.
    enum ApplyMemberships: ApplyShape {
        static let parts: ApplyParts = [.ended, .added]
        static let types = applyTypes
        static let sql = applySQL(parts)
    }

    /// A player's new name, told to their group.
    enum ApplyRenames: ApplyShape {
        static let parts: ApplyParts = [.renamed]
        static let types = applyTypes
        static let sql = applySQL(parts)
    }

    /// Every part: any other change.
    enum ApplyWrites: ApplyShape {
        static let parts = ApplyParts.all
        static let types = applyTypes
        static let sql = applySQL(parts)
    }

    static let applyTypes: [PostgresDataType] = [.float8, .text]

    /// The statement of the parts `parts`, its parts in the order that the full one has them.
    static func applySQL(_ parts: ApplyParts) -> String {
        var ctes = ["writes AS (SELECT $2::jsonb AS document)"]
        for (part, name, text) in applyParts where part.map(parts.contains) ?? true {
            ctes.append("\(name) AS (\n\(text)\n)")
        }
        return "WITH " + ctes.joined(separator: ",\n") + "\nSELECT group_id, seq, data FROM stored ORDER BY group_id, seq"
    }

    /// Each part's common table expression: nil for the parts in every shape.
    private static let applyParts: [(part: ApplyParts?, name: String, text: String)] = [
        (.ended, "ended", """
            UPDATE membership SET left_at = $1
            FROM writes, groupie_writes(writes.document, 'ended') AS gone_object, jsonb_to_record(gone_object) AS gone(group_id text, player_id text)
            WHERE membership.group_id = gone.group_id AND membership.player_id = gone.player_id AND membership.left_at IS NULL
            RETURNING 1
            """),
        (.ended, "unclaimed", """
            -- A member who leaves gives back their claims: none holds for them if they come back.
            DELETE FROM task_claim
            USING writes, groupie_writes(writes.document, 'ended') AS gone_object, jsonb_to_record(gone_object) AS gone(group_id text, player_id text)
            WHERE task_claim.group_id = gone.group_id AND task_claim.player_id = gone.player_id
            RETURNING 1
            """),
        (.added, "added", """
            -- After the memberships that end: a player is in one group at a time.
            INSERT INTO membership (group_id, player_id, joined_at)
            SELECT joining.group_id, joining.player_id, $1
            FROM writes, groupie_writes(writes.document, 'added') AS joining_object, jsonb_to_record(joining_object) AS joining(group_id text, player_id text)
            WHERE (SELECT COUNT(*) FROM ended) >= 0
            RETURNING 1
            """),
        (nil, "touched", """
            UPDATE play_group SET event_seq = play_group.event_seq + change.events,
                creator_id = CASE WHEN change.sets_creator THEN change.creator_id ELSE play_group.creator_id END,
                closed_at = CASE WHEN change.reopens THEN NULL ELSE COALESCE(change.closed_at, play_group.closed_at) END,
                closed_reason = CASE WHEN change.reopens THEN NULL WHEN change.closed_at IS NOT NULL THEN change.reason ELSE play_group.closed_reason END,
                played = COALESCE(change.played, play_group.played), photos_added = COALESCE(change.photos_added, play_group.photos_added)
            FROM writes, groupie_writes(writes.document, 'groups') AS change_object,
                jsonb_to_record(change_object) AS change(
                    group_id text, events bigint, sets_creator boolean, creator_id text, closed_at double precision, reason text, reopens boolean,
                    played boolean, photos_added bigint
                )
            WHERE play_group.id = change.group_id
            RETURNING play_group.id, play_group.event_seq
            """),
        (.renamed, "renamed", """
            UPDATE player SET name = renaming.name
            FROM writes, groupie_writes(writes.document, 'renamed') AS renaming_object, jsonb_to_record(renaming_object) AS renaming(id text, name text)
            WHERE player.id = renaming.id
            RETURNING 1
            """),
        (.picks, "picked", """
            INSERT INTO task_choice (group_id, mission_id, task_id, photo_id)
            SELECT pick.group_id, pick.mission_id, pick.task_id, pick.photo_id
            FROM writes, groupie_writes(writes.document, 'picks') AS pick_object, jsonb_to_record(pick_object) AS pick(group_id text, mission_id text, task_id text, photo_id text)
            ON CONFLICT (group_id, mission_id, task_id) DO UPDATE SET photo_id = excluded.photo_id
            RETURNING 1
            """),
        (.numbers, "visited", """
            INSERT INTO visit_mission (group_id, venue_id, mission_id, started_at, completed_at)
            SELECT visit.group_id, visit.venue_id, visit.mission_id, visit.started_at, visit.completed_at
            FROM writes, groupie_writes(writes.document, 'missions') AS visit_object,
                jsonb_to_record(visit_object) AS visit(group_id text, venue_id text, mission_id text, started_at double precision, completed_at double precision)
            ON CONFLICT (group_id, mission_id) DO UPDATE SET started_at = excluded.started_at, completed_at = excluded.completed_at
            RETURNING 1
            """),
        (.numbers, "done", """
            INSERT INTO visit_task (group_id, venue_id, mission_id, task_id, seconds)
            SELECT task.group_id, task.venue_id, task.mission_id, task.task_id, task.seconds
            FROM writes, groupie_writes(writes.document, 'tasks') AS task_object,
                jsonb_to_record(task_object) AS task(group_id text, venue_id text, mission_id text, task_id text, seconds bigint)
            ON CONFLICT DO NOTHING
            RETURNING 1
            """),
        (.numbers, "counted", """
            INSERT INTO visit_tally (venue_id, kind, mission_id, task_id, value, count)
            SELECT delta.venue_id, delta.kind, delta.mission_id, delta.task_id, delta.value, delta.count
            FROM writes, groupie_writes(writes.document, 'counted') AS delta_object,
                jsonb_to_record(delta_object) AS delta(venue_id text, kind text, mission_id text, task_id text, value bigint, count bigint)
            WHERE delta.count > 0
            ON CONFLICT (venue_id, kind, mission_id, task_id, value) DO UPDATE SET count = visit_tally.count + excluded.count
            RETURNING 1
            """),
        (.numbers, "uncounted", """
            -- A count taken from a row the tally does not hold is passed over.
            UPDATE visit_tally SET count = visit_tally.count + delta.count
            FROM writes, groupie_writes(writes.document, 'counted') AS delta_object,
                jsonb_to_record(delta_object) AS delta(venue_id text, kind text, mission_id text, task_id text, value bigint, count bigint)
            WHERE delta.count < 0 AND visit_tally.venue_id = delta.venue_id AND visit_tally.kind = delta.kind
              AND visit_tally.mission_id = delta.mission_id AND visit_tally.task_id = delta.task_id AND visit_tally.value = delta.value
            RETURNING 1
            """),
        (nil, "stored", """
            INSERT INTO group_event (group_id, seq, type, data, created_at)
            SELECT event.group_id, touched.event_seq - event.back, event.type, \(erasureChecked("event.data")), $1
            FROM writes, groupie_writes(writes.document, 'events') WITH ORDINALITY AS listed(object, position),
                jsonb_to_record(listed.object) AS event(group_id text, type text, data text, back bigint)
            JOIN touched ON touched.id = event.group_id
            ORDER BY listed.position
            RETURNING group_id, seq, data
            """),
    ]
}

extension PostgresConnection {
    /// Runs the smallest shape of the change's statement that holds the parts `parts`.
    func rows(applying parts: PostgresStore.ApplyParts, at now: Date, _ writes: String, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        func run<Shape: PostgresStore.ApplyShape>(_ shape: Shape.Type) async throws -> [PostgresRandomAccessRow]? {
            guard Shape.parts.isSuperset(of: parts) else { return nil }
            return try await rows(Prepared<Shape>(now.timeIntervalSince1970, writes), logger: logger)
        }
        if let rows = try await run(PostgresStore.ApplyEvents.self) { return rows }
        if let rows = try await run(PostgresStore.ApplyMemberships.self) { return rows }
        if let rows = try await run(PostgresStore.ApplyRenames.self) { return rows }
        return try await rows(Prepared<PostgresStore.ApplyWrites>(now.timeIntervalSince1970, writes), logger: logger)
    }
}
