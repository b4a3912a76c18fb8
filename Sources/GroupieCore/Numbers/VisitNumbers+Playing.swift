import Foundation

/// Groups still playing: a group that started a mission a minute ago has not dropped off it, and
/// the tasks it has not taken yet are not skipped. A group *stops playing* when staff close it,
/// or after `quietAfter` without a new photo or answer (what staff do to its photos is not its
/// playing).
extension VisitNumbers {
    /// The kinds of event a `History` holds, as SQL's list of strings.
    public static let historyKinds = [GroupEventKind.photoAdded, .taskAnswered, .taskDone, .taskUndone, .missionCompleted, .groupClosed, .groupReopened]
        .map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// How long without activity a group stops playing.
    public static let quietAfter: TimeInterval = 30 * 60
    /// How far back the groups still playing are looked for: one started earlier has stopped.
    public static let playingLookback: TimeInterval = 24 * 3600

    /// Whether the group is still playing at `now`: not closed (its last closing not followed
    /// by a reopening), and started or with a new photo or answer within `quietAfter`.
    public static func isPlaying(_ history: History, now: Date) -> Bool {
        guard history.played else { return false }
        var closed = false
        var last = history.startedAt
        var photos: Set<String> = []
        for event in history.events {
            switch event.kind {
            case .groupClosed: closed = true
            case .groupReopened: closed = false
            // A photo added again is one staff restored: theirs, not the group's playing.
            case .photoAdded where event.photoId.map { !photos.insert($0).inserted } == true: continue
            case .photoAdded, .taskAnswered: last = max(last, event.at)
            default: continue
            }
        }
        return !closed && now.timeIntervalSince(last) < quietAfter
    }

    /// The numbers of a tally, with the missions that the groups of `recent` still playing at
    /// `now` have started and not completed counted as `playing`, not as drop-off, and their
    /// tasks not taken yet not as skipped.
    public init(venue: Venue, tally: Tally, recent: [History], now: Date) {
        self.init(venue: venue, tally: tally)
        var inPlay: [String: Int] = [:]
        var doneInPlay: [Tally.TaskKey: Int] = [:]
        for history in recent where Self.isPlaying(history, now: now) {
            let own = Tally(histories: [history])
            for (missionId, histogram) in own.missions where histogram[Tally.notCompleted] != nil {
                inPlay[missionId, default: 0] += 1
                for task in own.tasks.keys where task.missionId == missionId { doneInPlay[task, default: 0] += 1 }
            }
        }
        missions = missions.map { row in
            var row = row
            row.playing = inPlay[row.missionId] ?? 0
            return row
        }
        let started = Dictionary(missions.map { ($0.missionId, $0.started) }, uniquingKeysWith: { a, _ in a })
        tasks = tasks.map { row in
            var row = row
            let key = Tally.TaskKey(missionId: row.missionId, taskId: row.taskId)
            let stopped = (started[row.missionId] ?? 0) - (inPlay[row.missionId] ?? 0)
            row.skipped = max(0, stopped - (row.done - (doneInPlay[key] ?? 0)))
            return row
        }
    }
}

extension VisitNumbers {
    /// One row of the research export: an event of a group, as the numbers count it.
    public struct ResearchEvent: Sendable, Equatable {
        public var event: String
        public var missionId: String?
        public var taskId: String?
        public var at: Date
    }

    /// A group's events as the research export lists them, by the rules above: nothing for a
    /// group nobody joined; a `mission-uncompleted` after the `task-undone` that takes a
    /// completion back, so that counting `mission-completed` rows less `mission-uncompleted`
    /// rows gives the missions complete.
    public static func researchEvents(_ history: History) -> [ResearchEvent] {
        guard history.played else { return [] }
        var rows = [ResearchEvent(event: "group-started", missionId: nil, taskId: nil, at: history.startedAt)]
        var complete: Set<String> = []
        var photos: Set<String> = []
        for event in history.events {
            if event.kind == .missionCompleted, let missionId = event.missionId, !complete.insert(missionId).inserted { continue }
            // One line per photo: the staff's restoring a hidden photo adds it again.
            if event.kind == .photoAdded, let photoId = event.photoId, !photos.insert(photoId).inserted { continue }
            rows.append(.init(event: event.kind.rawValue, missionId: event.missionId, taskId: event.taskId, at: event.at))
            if event.kind == .taskUndone, let missionId = event.missionId, complete.remove(missionId) != nil {
                rows.append(.init(event: "mission-uncompleted", missionId: missionId, taskId: nil, at: event.at))
            }
        }
        return rows
    }
}
