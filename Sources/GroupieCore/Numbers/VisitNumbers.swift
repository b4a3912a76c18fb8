import Foundation

/// What a venue's staff learn from the groups that played: computed from each group's stored
/// events, never from names or photos.
///
/// The rules, as the console states them:
/// - a group *counts* once someone has joined it (groups made for table cards that nobody
///   joined do not count, nor their photos);
/// - a group *starts* a mission with its first photo for one of the mission's tasks, or its
///   first answer (right or wrong) to one of its questions or codes;
/// - it *completes* the mission with the `mission-completed` event; a `task-undone` of the
///   mission (a photo hidden or deleted) takes the completion back, until it completes again;
/// - it *drops off* a mission it started and did not complete once it has *stopped playing*:
///   staff closed it, or nothing happened in it for `quietAfter` (see `VisitNumbers+Playing`);
/// - the *time* of a mission runs from its start to its completion; the time of a task from the
///   mission's start to the task's first `task-done`;
/// - a task is *skipped* by a group that started its mission, never did the task and stopped
///   playing;
/// - days are the venue's calendar days, in its time zone.
public struct VisitNumbers: Sendable, Equatable {
    /// One group's history: when it was made, and its events in order.
    public struct History: Sendable {
        public struct Event: Sendable {
            public var kind: GroupEventKind
            public var missionId: String?
            public var taskId: String?
            public var at: Date
            /// The photo of a `photo-added`: a photo hidden and restored is added again.
            public var photoId: String?

            public init(kind: GroupEventKind, missionId: String?, taskId: String?, at: Date, photoId: String? = nil) {
                self.kind = kind
                self.missionId = missionId
                self.taskId = taskId
                self.at = at
                self.photoId = photoId
            }
        }

        public var groupId: String
        public var startedAt: Date
        public var events: [Event]
        /// Whether anyone ever joined the group.
        public var played: Bool

        public init(groupId: String, startedAt: Date, events: [Event], played: Bool = true) {
            self.groupId = groupId
            self.startedAt = startedAt
            self.events = events
            self.played = played
        }
    }

    public struct Day: Sendable, Equatable {
        /// `YYYY-MM-DD` in the venue's time zone.
        public var date: String
        public var groupsStarted: Int
        public var missionsCompleted: Int
    }

    public struct MissionRow: Sendable, Equatable {
        public var missionId: String
        public var started: Int
        public var completed: Int
        /// Started, not completed, by groups that stopped playing.
        public var dropOff: Int { started - completed - playing }
        /// Median whole seconds from start to completion, over the groups that completed it.
        public var medianSeconds: Double?
        /// Started, not completed, by groups still playing.
        public var playing = 0
    }

    public struct TaskRow: Sendable, Equatable {
        public var missionId: String
        public var taskId: String
        public var done: Int
        public var skipped: Int
        /// Median seconds from the mission's start to the task's first `task-done`.
        public var medianSeconds: Double?
    }

    public var groups: Int
    public var days: [Day]
    /// In the venue's order.
    public var missions: [MissionRow]
    /// In the venue's order; `mostSkipped` sorts them.
    public var tasks: [TaskRow]
    /// Photos added per group (those later deleted count too): median and mean.
    public var medianPhotosPerGroup: Double?
    public var meanPhotosPerGroup: Double?

    public init(
        groups: Int, days: [Day], missions: [MissionRow], tasks: [TaskRow], medianPhotosPerGroup: Double?, meanPhotosPerGroup: Double?
    ) {
        self.groups = groups
        self.days = days
        self.missions = missions
        self.tasks = tasks
        self.medianPhotosPerGroup = medianPhotosPerGroup
        self.meanPhotosPerGroup = meanPhotosPerGroup
    }

    /// Tasks skipped at least once, most skipped first.
    public var mostSkipped: [TaskRow] {
        tasks.filter { $0.skipped > 0 }.sorted { ($0.skipped, $1.missionId, $1.taskId) > ($1.skipped, $0.missionId, $0.taskId) }
    }

    /// What the numbers are made of, as counts: how many groups started in each quarter hour,
    /// how many missions were completed in each, and histograms of whole seconds and photos.
    /// The database keeps one up to date as events are stored; `init(histories:)` makes one from
    /// the events themselves. Either way, `VisitNumbers(venue:tally:)` reads it.
    public struct Tally: Sendable, Equatable {
        public typealias TaskKey = GroupProgress.TaskKey
        /// Quarter hours since 1970 (`seconds / 900`): every time zone's offset is a multiple of
        /// one, so a quarter hour falls on one calendar day anywhere.
        public var groupsStarted: [Int: Int] = [:]
        public var missionsCompleted: [Int: Int] = [:]
        /// Groups by the number of photos they added.
        public var photosPerGroup: [Int: Int] = [:]
        /// Per mission, the groups that started it: by whole seconds to its completion, or -1
        /// when they did not complete it.
        public var missions: [String: [Int: Int]] = [:]
        /// Per task, the groups that did it: by whole seconds from the mission's start, or -1
        /// when the mission had not started.
        public var tasks: [TaskKey: [Int: Int]] = [:]

        public static let quarterHour = 900.0
        public static let notCompleted = -1

        public init() {}

        public static func quarter(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / quarterHour).rounded(.down)) }

        /// The tally of stored histories, by the rules above.
        public init(histories: [History]) {
            for history in histories where history.played {
                groupsStarted[Self.quarter(history.startedAt), default: 0] += 1
                var missionStart: [String: Date] = [:]
                var completedAt: [String: Date] = [:]
                var done: Set<TaskKey> = []
                var photos = 0
                var photoIds: Set<String> = []
                for event in history.events {
                    switch event.kind {
                    case .photoAdded:
                        // A photo staff restored was counted when it was first added.
                        if let photoId = event.photoId, !photoIds.insert(photoId).inserted { continue }
                        photos += 1
                        if let missionId = event.missionId, event.taskId != nil, missionStart[missionId] == nil {
                            missionStart[missionId] = event.at
                        }
                    case .taskAnswered:
                        if let missionId = event.missionId, event.taskId != nil, missionStart[missionId] == nil {
                            missionStart[missionId] = event.at
                        }
                    case .taskDone:
                        guard let missionId = event.missionId, let taskId = event.taskId else { continue }
                        let task = TaskKey(missionId: missionId, taskId: taskId)
                        guard done.insert(task).inserted else { continue }
                        let seconds = missionStart[missionId].map { Int(event.at.timeIntervalSince($0).rounded()) } ?? Self.notCompleted
                        tasks[task, default: [:]][seconds, default: 0] += 1
                    case .missionCompleted:
                        guard let missionId = event.missionId, completedAt[missionId] == nil else { continue }
                        completedAt[missionId] = event.at
                        missionsCompleted[Self.quarter(event.at), default: 0] += 1
                    case .taskUndone:
                        // Every task of a mission is needed: one undone takes the completion back.
                        guard let missionId = event.missionId, let at = completedAt.removeValue(forKey: missionId) else { continue }
                        let quarter = Self.quarter(at)
                        missionsCompleted[quarter, default: 0] -= 1
                        if missionsCompleted[quarter] == 0 { missionsCompleted[quarter] = nil }
                    default:
                        continue
                    }
                }
                photosPerGroup[photos, default: 0] += 1
                for (missionId, start) in missionStart {
                    let seconds = completedAt[missionId].map { Int($0.timeIntervalSince(start).rounded()) } ?? Self.notCompleted
                    missions[missionId, default: [:]][seconds, default: 0] += 1
                }
            }
        }
    }

    public static func compute(venue: Venue, histories: [History]) -> VisitNumbers {
        VisitNumbers(venue: venue, tally: Tally(histories: histories))
    }

    /// The numbers of the venue's missions as its file has them now, from a tally.
    public init(venue: Venue, tally: Tally) {
        let days = VenueDays(timeZone: TimeZone(identifier: venue.timeZone) ?? TimeZone(identifier: "UTC")!)
        let started = days.perDay(tally.groupsStarted), completed = days.perDay(tally.missionsCompleted)
        groups = tally.photosPerGroup.values.reduce(0, +)
        self.days = Set(started.keys).union(completed.keys).sorted().map {
            Day(date: $0, groupsStarted: started[$0] ?? 0, missionsCompleted: completed[$0] ?? 0)
        }
        missions = venue.missions.map { mission in
            let histogram = tally.missions[mission.id] ?? [:]
            let times = histogram.filter { $0.key != Tally.notCompleted }
            return MissionRow(
                missionId: mission.id, started: histogram.values.reduce(0, +), completed: times.values.reduce(0, +),
                medianSeconds: Self.median(of: times)
            )
        }
        tasks = venue.missions.flatMap { mission in
            let started = (tally.missions[mission.id] ?? [:]).values.reduce(0, +)
            return mission.tasks.map { task in
                let histogram = tally.tasks[GroupProgress.TaskKey(missionId: mission.id, taskId: task.id)] ?? [:]
                let done = histogram.values.reduce(0, +)
                return TaskRow(
                    missionId: mission.id, taskId: task.id, done: done, skipped: max(0, started - done),
                    medianSeconds: Self.median(of: histogram.filter { $0.key != Tally.notCompleted })
                )
            }
        }
        medianPhotosPerGroup = Self.median(of: tally.photosPerGroup)
        let photos = tally.photosPerGroup.reduce(0) { $0 + $1.key * $1.value }
        meanPhotosPerGroup = groups == 0 ? nil : Double(photos) / Double(groups)
    }

    /// The median of a histogram (value: how many times), as `median` of the values spelled out.
    public static func median(of histogram: [Int: Int]) -> Double? {
        let entries = histogram.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        let count = entries.reduce(0) { $0 + $1.value }
        guard count > 0 else { return nil }
        func value(at index: Int) -> Int {
            var seen = 0
            for entry in entries {
                seen += entry.value
                if index < seen { return entry.key }
            }
            return entries.last!.key
        }
        let middle = count / 2
        return count % 2 == 1 ? Double(value(at: middle)) : Double(value(at: middle - 1) + value(at: middle)) / 2
    }

    /// The middle value, or the mean of the two middle ones; nil for none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Calendar days in a venue's time zone, quickly: the zone's offset is looked up once per
/// stretch between its transitions, and each day is spelled out once, by arithmetic.
struct VenueDays {
    let timeZone: TimeZone

    /// Counts per quarter hour as counts per local day (`YYYY-MM-DD`).
    func perDay(_ quarters: [Int: Int]) -> [String: Int] {
        var days: [Int: Int] = [:]
        // In ascending order, so that each offset holds until the zone's next transition.
        var offset = 0.0, validUntil = -Double.infinity
        for (quarter, count) in quarters.sorted(by: { $0.key < $1.key }) where count > 0 {
            let seconds = Double(quarter) * VisitNumbers.Tally.quarterHour
            if seconds >= validUntil {
                let date = Date(timeIntervalSince1970: seconds)
                offset = Double(timeZone.secondsFromGMT(for: date))
                validUntil = timeZone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
            }
            days[Int(((seconds + offset) / 86_400).rounded(.down)), default: 0] += count
        }
        return Dictionary(uniqueKeysWithValues: days.map { (Self.civilDate(daysSince1970: $0.key), $0.value) })
    }

    /// `YYYY-MM-DD` of a day number (days since 1970-01-01), by Howard Hinnant's algorithm.
    static func civilDate(daysSince1970 days: Int) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}
