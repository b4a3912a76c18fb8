import Foundation

/// The venue numbers kept as events are stored: each group's visit state (when it started and
/// completed each mission, when it first did each task, whether anyone joined it, how many photos
/// it added) and its counts in the venue's `VisitNumbers.Tally`. A backend reads a group's
/// `GroupVisit`, hands it the events a command appends, and applies what comes back (the rows to
/// write and the tally's deltas) in the transaction that stores the events.
///
/// A group's counts are a function of its visit state alone (`counts(of:)`): a change's deltas are
/// its counts after less its counts before, and a group that goes takes all of its counts out.
/// Times are seconds since 1970 as stored; whole seconds are rounded half away from zero and a
/// quarter hour is `seconds / 900` truncated, as the numbers have been counted since they were
/// first kept, so that the counts stored before and those added now stay one tally.
public enum VisitTallyRules {
    public typealias TaskKey = GroupProgress.TaskKey

    /// A group's mission: its first photo for one of the mission's tasks (`startedAt`), and its
    /// completion, unless a `task-undone` took it back since.
    public struct MissionVisit: Sendable, Hashable {
        public var startedAt: Double?
        public var completedAt: Double?

        public init(startedAt: Double? = nil, completedAt: Double? = nil) {
            self.startedAt = startedAt
            self.completedAt = completedAt
        }
    }

    /// What the numbers hold of one group.
    public struct GroupVisit: Sendable, Equatable {
        public var groupId: String
        public var venueId: String
        public var createdAt: Double
        /// Whether anyone ever joined the group: until then it does not count, nor its photos.
        public var played: Bool
        public var photosAdded: Int
        public var missions: [String: MissionVisit]
        /// Each task done: whole seconds from its mission's start to its first `task-done`, or
        /// `notCompleted` when the mission had not started.
        public var tasks: [TaskKey: Int]

        public init(
            groupId: String, venueId: String, createdAt: Double, played: Bool = false, photosAdded: Int = 0,
            missions: [String: MissionVisit] = [:], tasks: [TaskKey: Int] = [:]
        ) {
            self.groupId = groupId
            self.venueId = venueId
            self.createdAt = createdAt
            self.played = played
            self.photosAdded = photosAdded
            self.missions = missions
            self.tasks = tasks
        }
    }

    /// One event as the numbers read it, with the time it was stored.
    public struct Event: Sendable, Hashable {
        public var kind: GroupEventKind
        public var missionId: String?
        public var taskId: String?
        public var at: Double
        /// A `photo-added` of a photo that was in the album before: not counted again.
        public var restored: Bool

        public init(kind: GroupEventKind, missionId: String?, taskId: String?, at: Double, restored: Bool = false) {
            self.kind = kind
            self.missionId = missionId
            self.taskId = taskId
            self.at = at
            self.restored = restored
        }

        /// A stored event read again (an import, a recount): a `photo-added` of `photoId` is a
        /// restore when it says so, or when the photo was added before (`seen`): events stored
        /// before `restored` was kept do not say it.
        public init(stored kind: GroupEventKind, missionId: String?, taskId: String?, at: Double, photoId: String?, restored: String?, seen: inout Set<String>) {
            let again = kind == .photoAdded && photoId.map { !seen.insert($0).inserted } == true
            self.init(kind: kind, missionId: missionId, taskId: taskId, at: at, restored: kind == .photoAdded && (restored == "true" || again))
        }

        /// An event about to be stored at `at`.
        public init(_ payload: GroupEventPayload, at: Double) {
            let fields = payload.fields
            self.init(kind: payload.kind, missionId: fields["missionId"], taskId: fields["taskId"], at: at, restored: fields["restored"] == "true")
        }
    }

    /// The kinds of event that change a group's visit state; others leave it as it is.
    public static let kinds: Set<GroupEventKind> = [.photoAdded, .taskAnswered, .taskDone, .taskUndone, .missionCompleted]

    /// Whether storing `payloads`, or a membership (`joins`), may change the numbers: only then is
    /// the group's visit state worth reading.
    public static func touches(_ payloads: [GroupEventPayload], joins: Bool = false) -> Bool {
        joins || payloads.contains { kinds.contains($0.kind) }
    }

    /// A row of the tally: what is counted, and its value.
    public struct TallyKey: Sendable, Hashable, Comparable {
        public enum Kind: String, Sendable, CaseIterable {
            /// Value: the quarter hour the group was made in.
            case group
            /// Value: the quarter hour of a mission's completion.
            case completion
            /// Value: the photos a group added.
            case photos
            /// Value: whole seconds from the mission's start to its completion, or `notCompleted`.
            case mission
            /// Value: whole seconds from the mission's start to the task's first `task-done`.
            case task
        }

        public var venueId: String
        public var kind: Kind
        public var missionId: String
        public var taskId: String
        public var value: Int

        public init(venueId: String, kind: Kind, missionId: String = "", taskId: String = "", value: Int) {
            self.venueId = venueId
            self.kind = kind
            self.missionId = missionId
            self.taskId = taskId
            self.value = value
        }

        public static func < (a: TallyKey, b: TallyKey) -> Bool {
            (a.venueId, a.kind.rawValue, a.missionId, a.taskId, a.value) < (b.venueId, b.kind.rawValue, b.missionId, b.taskId, b.value)
        }
    }

    /// What storing a command's events does to a group's numbers.
    public struct Change: Sendable, Equatable {
        /// The group's visit state after.
        public var visit: GroupVisit
        /// Whether `played` or `photosAdded` changed: the group's row is written.
        public var groupChanged: Bool
        /// Missions whose row is written (made, or changed), with their state after.
        public var missions: [String: MissionVisit]
        /// Tasks first done now.
        public var tasks: [TaskKey: Int]
        /// Counts added to (positive) or taken from (negative) the tally, none zero.
        public var tally: [TallyKey: Int]

        public var isEmpty: Bool { !groupChanged && missions.isEmpty && tasks.isEmpty && tally.isEmpty }
    }

    /// What storing `events` (in order), after a membership when `joins`, does to `visit`:
    /// - a membership makes the group played: it counts, with its photos;
    /// - a `photo-added` counts a photo (unless staff restored one counted before), and with a
    ///   mission and a task starts the mission unless it had started;
    /// - a `task-answered` (right or wrong) starts its mission unless it had started;
    /// - a `task-done` of a task not done before times it from its mission's start (`notCompleted` before one);
    /// - a `mission-completed` completes the mission unless it is complete;
    /// - a `task-undone` takes the completion of its mission back.
    public static func change(_ visit: GroupVisit, events: [Event], joins: Bool = false) -> Change {
        var after = visit
        var missions: [String: MissionVisit] = [:]
        var tasks: [TaskKey: Int] = [:]
        if joins { after.played = true }
        /// Sets the mission's time at `path` unless it has one.
        func first(_ path: WritableKeyPath<MissionVisit, Double?>, of missionId: String, at: Double) {
            var mission = after.missions[missionId] ?? MissionVisit()
            guard mission[keyPath: path] == nil else { return }
            mission[keyPath: path] = at
            after.missions[missionId] = mission
            missions[missionId] = mission
        }
        for event in events {
            switch event.kind {
            case .photoAdded:
                if !event.restored { after.photosAdded += 1 }
                guard let missionId = event.missionId, event.taskId != nil else { continue }
                first(\.startedAt, of: missionId, at: event.at)
            case .taskAnswered:
                guard let missionId = event.missionId, event.taskId != nil else { continue }
                first(\.startedAt, of: missionId, at: event.at)
            case .taskDone:
                guard let missionId = event.missionId, let taskId = event.taskId else { continue }
                let task = TaskKey(missionId: missionId, taskId: taskId)
                guard after.tasks[task] == nil else { continue }
                let seconds = after.missions[missionId]?.startedAt.map { wholeSeconds(event.at - $0) } ?? VisitNumbers.Tally.notCompleted
                after.tasks[task] = seconds
                tasks[task] = seconds
            case .missionCompleted:
                guard let missionId = event.missionId else { continue }
                first(\.completedAt, of: missionId, at: event.at)
            case .taskUndone:
                guard let missionId = event.missionId, var mission = after.missions[missionId], mission.completedAt != nil else { continue }
                mission.completedAt = nil
                after.missions[missionId] = mission
                missions[missionId] = mission
            default:
                continue
            }
        }
        var tally = counts(of: after)
        for (key, count) in counts(of: visit) { tally[key, default: 0] -= count }
        return Change(
            visit: after, groupChanged: after.played != visit.played || after.photosAdded != visit.photosAdded,
            missions: missions.filter { visit.missions[$0.key] != $0.value }, tasks: tasks, tally: tally.filter { $0.value != 0 }
        )
    }

    /// The counts that groups going (retention, erasure) take out of the tally: negative.
    public static func removal(of visits: [GroupVisit]) -> [TallyKey: Int] {
        var tally: [TallyKey: Int] = [:]
        for visit in visits {
            for (key, count) in counts(of: visit) { tally[key, default: 0] -= count }
        }
        return tally.filter { $0.value != 0 }
    }

    /// A group's counts in its venue's tally: when it is played, its quarter hour and its photos;
    /// each mission it started, by its time to completion; each completion, by its quarter hour;
    /// each task done, by its time from the mission's start.
    public static func counts(of visit: GroupVisit) -> [TallyKey: Int] {
        var tally: [TallyKey: Int] = [:]
        let venue = visit.venueId
        if visit.played {
            tally[TallyKey(venueId: venue, kind: .group, value: quarter(visit.createdAt)), default: 0] += 1
            tally[TallyKey(venueId: venue, kind: .photos, value: visit.photosAdded), default: 0] += 1
        }
        for (missionId, mission) in visit.missions {
            if let started = mission.startedAt {
                let value = mission.completedAt.map { wholeSeconds($0 - started) } ?? VisitNumbers.Tally.notCompleted
                tally[TallyKey(venueId: venue, kind: .mission, missionId: missionId, value: value), default: 0] += 1
            }
            if let completed = mission.completedAt {
                tally[TallyKey(venueId: venue, kind: .completion, value: quarter(completed)), default: 0] += 1
            }
        }
        for (task, seconds) in visit.tasks {
            tally[TallyKey(venueId: venue, kind: .task, missionId: task.missionId, taskId: task.taskId, value: seconds), default: 0] += 1
        }
        return tally
    }

    /// Whole seconds, halves away from zero.
    public static func wholeSeconds(_ seconds: Double) -> Int { Int(seconds.rounded(.toNearestOrAwayFromZero)) }

    /// The quarter hour of a time: seconds over 900, truncated toward zero.
    public static func quarter(_ seconds: Double) -> Int { Int(seconds / VisitNumbers.Tally.quarterHour) }
}
