import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// What a rule of Core decided, written in one statement: every mutation, the task picks and the
// events numbered from their groups' rows, announced once the transaction commits
// (`PostgresAnnouncer`). One round trip whatever the decision, where a statement per mutation
// and per group's events kept the transaction open while Groupie sent the next.
extension PostgresStore {
    /// The writes of one change, gathered from Core's decisions.
    struct Writes {
        var mutations: [GroupMutation] = []
        var picks: [(groupId: String, task: GroupProgress.TaskKey, photoId: String)] = []
        var events: [(groupId: String, payloads: [GroupEventPayload])] = []

        init(_ decision: GroupDecision) {
            mutations = decision.mutations
            events = decision.eventsByGroup
        }

        init(groupId: String, events payloads: [GroupEventPayload], pick: (task: GroupProgress.TaskKey, photoId: String)? = nil) {
            if let pick { picks = [(groupId, pick.task, pick.photoId)] }
            if !payloads.isEmpty { events = [(groupId, payloads)] }
        }

        var isEmpty: Bool { mutations.isEmpty && picks.isEmpty && events.isEmpty }
    }

    /// Writes what a rule of Core decided and stores its events, in the caller's transaction
    /// (announced once it commits); returns the events, numbered, in the decision's order.
    static func apply(_ connection: PostgresConnection, _ decision: GroupDecision, now: Date, logger: Logger) async throws -> [GroupEvent] {
        try await apply(connection, Writes(decision), now: now, logger: logger)
    }

    static func apply(_ connection: PostgresConnection, _ writes: Writes, now: Date, logger: Logger) async throws -> [GroupEvent] {
        guard !writes.isEmpty else { return [] }
        var document = WritesJSON()
        func touched(_ groupId: String) -> Int {
            if let index = document.groups.firstIndex(where: { $0.group_id == groupId }) { return index }
            document.groups.append(WritesJSON.GroupChange(group_id: groupId))
            return document.groups.count - 1
        }
        for mutation in writes.mutations {
            switch mutation {
            case .endMembership(let groupId, let playerId): document.ended.append(.init(group_id: groupId, player_id: playerId))
            case .addMembership(let groupId, let playerId): document.added.append(.init(group_id: groupId, player_id: playerId))
            case .setCreator(let groupId, let playerId):
                let index = touched(groupId)
                document.groups[index].sets_creator = true
                document.groups[index].creator_id = playerId
            case .close(let groupId, let closure):
                let index = touched(groupId)
                document.groups[index].closed_at = closure.at.timeIntervalSince1970
                document.groups[index].reason = closure.reason
            case .reopen(let groupId):
                document.groups[touched(groupId)].reopens = true
            case .rename(let playerId, let name): document.renamed.append(.init(id: playerId, name: name))
            }
        }
        document.picks = writes.picks.map { .init(group_id: $0.groupId, mission_id: $0.task.missionId, task_id: $0.task.taskId, photo_id: $0.photoId) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (groupId, payloads) in writes.events {
            document.groups[touched(groupId)].events += payloads.count
            for (index, payload) in payloads.enumerated() {
                document.events.append(.init(
                    group_id: groupId, type: payload.kind.rawValue, data: String(decoding: try encoder.encode(payload), as: UTF8.self),
                    back: payloads.count - 1 - index
                ))
            }
        }
        let text = String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
        let rows = try await connection.rows(Prepared<ApplyWrites>(now.timeIntervalSince1970, text), logger: logger)
        var stored: [String: [(seq: Int, data: String)]] = [:]
        for row in rows {
            let groupId: String = try row.get(0), seq: Int = try row.get(1)
            stored[groupId, default: []].append((seq, try row.get(2)))
            PostgresAnnouncer.stored?.add(groupId: groupId, seq: seq)
        }
        // Rows by group in the order of their numbers: the group's events in the decision's order.
        return writes.events.flatMap { groupId, payloads in
            zip(payloads, stored[groupId] ?? []).map { GroupEvent(groupId: groupId, seq: $1.seq, kind: $0.kind, data: $1.data) }
        }
    }

    /// The writes as the statement reads them: one document, whose parts PostgreSQL estimates
    /// alike whatever their length, so that it keeps one plan for any writes after five runs
    /// (arrays of values, whose lengths it reads, had it plan each run anew).
    struct WritesJSON: Encodable {
        struct Membership: Encodable { var group_id: String, player_id: String }
        /// A group touched: its events' count, whether its creator changes (and to whom: nil
        /// for nobody), and when it closes and why.
        struct GroupChange: Encodable {
            var group_id: String
            var events = 0
            var sets_creator = false
            var creator_id: String?
            var closed_at: Double?
            var reason: String?
            var reopens = false
        }
        struct Rename: Encodable { var id: String, name: String }
        struct Pick: Encodable { var group_id: String, mission_id: String, task_id: String, photo_id: String }
        /// `back`: how many of its group's events come after it.
        struct Event: Encodable { var group_id: String, type: String, data: String, back: Int }

        var ended: [Membership] = [], added: [Membership] = [], groups: [GroupChange] = []
        var renamed: [Rename] = [], picks: [Pick] = [], events: [Event] = []
    }

    /// Parameters: the time, and the writes (`WritesJSON`). Rows: each event stored, by group
    /// and number.
    enum ApplyWrites: PreparedSQL {
        static let types: [PostgresDataType] = [.float8, .text]
        static let sql = """
            WITH writes AS (SELECT $2::jsonb AS document),
            ended AS (
                UPDATE membership SET left_at = $1
                FROM writes, groupie_writes(writes.document, 'ended') AS gone_object, jsonb_to_record(gone_object) AS gone(group_id text, player_id text)
                WHERE membership.group_id = gone.group_id AND membership.player_id = gone.player_id AND membership.left_at IS NULL
                RETURNING 1
            ),
            added AS (
                -- After the memberships that end: a player is in one group at a time.
                INSERT INTO membership (group_id, player_id, joined_at)
                SELECT joining.group_id, joining.player_id, $1
                FROM writes, groupie_writes(writes.document, 'added') AS joining_object, jsonb_to_record(joining_object) AS joining(group_id text, player_id text)
                WHERE (SELECT COUNT(*) FROM ended) >= 0
                RETURNING 1
            ),
            touched AS (
                UPDATE play_group SET event_seq = play_group.event_seq + change.events,
                    creator_id = CASE WHEN change.sets_creator THEN change.creator_id ELSE play_group.creator_id END,
                    closed_at = CASE WHEN change.reopens THEN NULL ELSE COALESCE(change.closed_at, play_group.closed_at) END,
                    closed_reason = CASE WHEN change.reopens THEN NULL WHEN change.closed_at IS NOT NULL THEN change.reason ELSE play_group.closed_reason END
                FROM writes, groupie_writes(writes.document, 'groups') AS change_object,
                    jsonb_to_record(change_object) AS change(
                        group_id text, events bigint, sets_creator boolean, creator_id text, closed_at double precision, reason text, reopens boolean
                    )
                WHERE play_group.id = change.group_id
                RETURNING play_group.id, play_group.event_seq
            ),
            renamed AS (
                UPDATE player SET name = renaming.name
                FROM writes, groupie_writes(writes.document, 'renamed') AS renaming_object, jsonb_to_record(renaming_object) AS renaming(id text, name text)
                WHERE player.id = renaming.id
                RETURNING 1
            ),
            picked AS (
                INSERT INTO task_choice (group_id, mission_id, task_id, photo_id)
                SELECT pick.group_id, pick.mission_id, pick.task_id, pick.photo_id
                FROM writes, groupie_writes(writes.document, 'picks') AS pick_object, jsonb_to_record(pick_object) AS pick(group_id text, mission_id text, task_id text, photo_id text)
                ON CONFLICT (group_id, mission_id, task_id) DO UPDATE SET photo_id = excluded.photo_id
                RETURNING 1
            ),
            stored AS (
                INSERT INTO group_event (group_id, seq, type, data, created_at)
                SELECT event.group_id, touched.event_seq - event.back, event.type, \(erasureChecked("event.data")), $1
                FROM writes, groupie_writes(writes.document, 'events') WITH ORDINALITY AS listed(object, position),
                    jsonb_to_record(listed.object) AS event(group_id text, type text, data text, back bigint)
                JOIN touched ON touched.id = event.group_id
                -- In the decision's order: the numbers' triggers read each event after those before it.
                ORDER BY listed.position
                RETURNING group_id, seq, data
            )
            SELECT group_id, seq, data FROM stored ORDER BY group_id, seq
            """
    }
}
