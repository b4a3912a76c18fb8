import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// What a rule of Core decided, written in one statement: every mutation, the task picks, what
// the events add to the venue numbers (`PostgresStore+Tally`) and the events numbered from their
// groups' rows, announced once the transaction commits (`PostgresAnnouncer`). One round trip
// whatever the decision, where a statement per mutation and per group's events kept the
// transaction open while Groupie sent the next.
extension PostgresStore {
    /// The writes of one change, gathered from Core's decisions.
    struct Writes {
        var mutations: [GroupMutation] = []
        var picks: [(groupId: String, task: GroupProgress.TaskKey, photoId: String)] = []
        var events: [(groupId: String, payloads: [GroupEventPayload])] = []
        /// The visit state of groups the change read already: not read again for the numbers.
        var visits: [String: VisitTallyRules.GroupVisit] = [:]
        /// Changes of the numbers decided already (an import's), and counts added or taken out
        /// (groups that go).
        var counted: [VisitTallyRules.Change] = []
        var tally: [VisitTallyRules.TallyKey: Int] = [:]

        init(_ decision: GroupDecision, visits: [VisitTallyRules.GroupVisit] = []) {
            mutations = decision.mutations
            events = decision.eventsByGroup
            self.visits = Dictionary(visits.map { ($0.groupId, $0) }, uniquingKeysWith: { a, _ in a })
        }

        init(
            groupId: String, events payloads: [GroupEventPayload], pick: (task: GroupProgress.TaskKey, photoId: String)? = nil,
            visit: VisitTallyRules.GroupVisit? = nil
        ) {
            if let pick { picks = [(groupId, pick.task, pick.photoId)] }
            if !payloads.isEmpty { events = [(groupId, payloads)] }
            if let visit { visits = [visit.groupId: visit] }
        }

        var isEmpty: Bool { mutations.isEmpty && picks.isEmpty && events.isEmpty && counted.isEmpty && tally.isEmpty }
    }

    /// Writes what a rule of Core decided and stores its events, in the caller's transaction
    /// (announced once it commits); returns the events, numbered, in the decision's order.
    static func apply(
        _ connection: PostgresConnection, _ decision: GroupDecision, visits: [VisitTallyRules.GroupVisit] = [], now: Date, logger: Logger
    ) async throws -> [GroupEvent] {
        try await apply(connection, Writes(decision, visits: visits), now: now, logger: logger)
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
        var tally = writes.tally
        for change in try await writes.counted + visitChanges(connection, writes, now: now, logger: logger) {
            let visit = change.visit
            if change.groupChanged {
                let index = touched(visit.groupId)
                document.groups[index].played = visit.played
                document.groups[index].photos_added = visit.photosAdded
            }
            document.missions += change.missions.sorted { $0.key < $1.key }.map {
                .init(group_id: visit.groupId, venue_id: visit.venueId, mission_id: $0.key, started_at: $0.value.startedAt, completed_at: $0.value.completedAt)
            }
            document.tasks += change.tasks.map {
                .init(group_id: visit.groupId, venue_id: visit.venueId, mission_id: $0.key.missionId, task_id: $0.key.taskId, seconds: $0.value)
            }
            for (key, count) in change.tally { tally[key, default: 0] += count }
        }
        // In the order of their keys, as every change takes the tally's rows.
        document.counted = tally.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map {
            .init(venue_id: $0.key.venueId, kind: $0.key.kind.rawValue, mission_id: $0.key.missionId, task_id: $0.key.taskId, value: $0.key.value, count: $0.value)
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
        let rows = try await connection.rows(applying: document.parts, at: now, text, logger: logger)
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
            /// The numbers' columns, when they change.
            var played: Bool?
            var photos_added: Int?
        }
        struct Rename: Encodable { var id: String, name: String }
        struct Pick: Encodable { var group_id: String, mission_id: String, task_id: String, photo_id: String }
        /// `back`: how many of its group's events come after it.
        struct Event: Encodable { var group_id: String, type: String, data: String, back: Int }

        var ended: [Membership] = [], added: [Membership] = [], groups: [GroupChange] = []
        var renamed: [Rename] = [], picks: [Pick] = [], events: [Event] = []
        /// The venue numbers (`VisitTallyRules`): visit rows written, and counts added to the tally.
        struct Mission: Encodable { var group_id: String, venue_id: String, mission_id: String, started_at: Double?, completed_at: Double? }
        struct Task: Encodable { var group_id: String, venue_id: String, mission_id: String, task_id: String, seconds: Int }
        struct Count: Encodable { var venue_id: String, kind: String, mission_id: String, task_id: String, value: Int, count: Int }
        var missions: [Mission] = [], tasks: [Task] = [], counted: [Count] = []

        /// The parts filled, beyond groups and events: which shape of the statement writes them.
        var parts: ApplyParts {
            var parts: ApplyParts = []
            if !ended.isEmpty { parts.insert(.ended) }
            if !added.isEmpty { parts.insert(.added) }
            if !renamed.isEmpty { parts.insert(.renamed) }
            if !picks.isEmpty { parts.insert(.picks) }
            if !missions.isEmpty || !tasks.isEmpty || !counted.isEmpty { parts.insert(.numbers) }
            return parts
        }
    }
}
