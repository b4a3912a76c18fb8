import Foundation

/// What a venue's staff learn from the groups that played: computed from each group's stored
/// events, never from names or photos.
///
/// The rules, as the console states them:
/// - a group *starts* a mission with its first photo for one of the mission's tasks;
/// - it *completes* the mission with the `mission-completed` event; started and not completed
///   is *drop-off*;
/// - the *time* of a mission runs from its start to its completion; the time of a task from the
///   mission's start to the task's first `task-done`;
/// - a task is *skipped* by a group that started its mission and never did the task;
/// - days are the venue's calendar days, in its time zone.
public struct VisitNumbers: Sendable, Equatable {
    /// One group's history: when it was made, and its events in order.
    public struct History: Sendable {
        public struct Event: Sendable {
            public var kind: GroupEventKind
            public var missionId: String?
            public var taskId: String?
            public var at: Date

            public init(kind: GroupEventKind, missionId: String?, taskId: String?, at: Date) {
                self.kind = kind
                self.missionId = missionId
                self.taskId = taskId
                self.at = at
            }
        }

        public var groupId: String
        public var startedAt: Date
        public var events: [Event]

        public init(groupId: String, startedAt: Date, events: [Event]) {
            self.groupId = groupId
            self.startedAt = startedAt
            self.events = events
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
        public var dropOff: Int { started - completed }
        /// Median whole seconds from start to completion, over the groups that completed it.
        public var medianSeconds: Double?
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

    /// Tasks skipped at least once, most skipped first.
    public var mostSkipped: [TaskRow] {
        tasks.filter { $0.skipped > 0 }.sorted { ($0.skipped, $1.missionId, $1.taskId) > ($1.skipped, $0.missionId, $0.taskId) }
    }

    public static func compute(venue: Venue, histories: [History]) -> VisitNumbers {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: venue.timeZone) ?? TimeZone(identifier: "UTC")!
        func day(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
        var started: [String: Int] = [:], completedOnDay: [String: Int] = [:]
        var missionStarts: [String: Int] = [:], missionCompletions: [String: Int] = [:]
        var missionTimes: [String: [Double]] = [:]
        var taskDone: [GroupProgress.TaskKey: Int] = [:], taskSkipped: [GroupProgress.TaskKey: Int] = [:]
        var taskTimes: [GroupProgress.TaskKey: [Double]] = [:]
        var photoCounts: [Double] = []

        for history in histories {
            started[day(history.startedAt), default: 0] += 1
            var missionStart: [String: Date] = [:]
            var completed: Set<String> = []
            var done: Set<GroupProgress.TaskKey> = []
            var photos = 0
            for event in history.events {
                switch event.kind {
                case .photoAdded:
                    photos += 1
                    if let missionId = event.missionId, event.taskId != nil, missionStart[missionId] == nil {
                        missionStart[missionId] = event.at
                    }
                case .taskDone:
                    guard let missionId = event.missionId, let taskId = event.taskId else { continue }
                    let task = GroupProgress.TaskKey(missionId: missionId, taskId: taskId)
                    if done.insert(task).inserted, let start = missionStart[missionId] {
                        taskTimes[task, default: []].append(event.at.timeIntervalSince(start).rounded())
                    }
                case .missionCompleted:
                    guard let missionId = event.missionId, completed.insert(missionId).inserted else { continue }
                    completedOnDay[day(event.at), default: 0] += 1
                    if let start = missionStart[missionId] {
                        missionTimes[missionId, default: []].append(event.at.timeIntervalSince(start).rounded())
                    }
                default:
                    continue
                }
            }
            photoCounts.append(Double(photos))
            for mission in venue.missions {
                guard missionStart[mission.id] != nil else { continue }
                missionStarts[mission.id, default: 0] += 1
                if completed.contains(mission.id) { missionCompletions[mission.id, default: 0] += 1 }
                for task in mission.tasks {
                    let key = GroupProgress.TaskKey(missionId: mission.id, taskId: task.id)
                    if done.contains(key) { taskDone[key, default: 0] += 1 } else { taskSkipped[key, default: 0] += 1 }
                }
            }
        }

        let dates = Set(started.keys).union(completedOnDay.keys).sorted()
        return VisitNumbers(
            groups: histories.count,
            days: dates.map { Day(date: $0, groupsStarted: started[$0] ?? 0, missionsCompleted: completedOnDay[$0] ?? 0) },
            missions: venue.missions.map { mission in
                MissionRow(
                    missionId: mission.id, started: missionStarts[mission.id] ?? 0, completed: missionCompletions[mission.id] ?? 0,
                    medianSeconds: median(missionTimes[mission.id] ?? [])
                )
            },
            tasks: venue.missions.flatMap { mission in
                mission.tasks.map { task in
                    let key = GroupProgress.TaskKey(missionId: mission.id, taskId: task.id)
                    return TaskRow(
                        missionId: mission.id, taskId: task.id, done: taskDone[key] ?? 0, skipped: taskSkipped[key] ?? 0,
                        medianSeconds: median(taskTimes[key] ?? [])
                    )
                }
            },
            medianPhotosPerGroup: median(photoCounts),
            meanPhotosPerGroup: photoCounts.isEmpty ? nil : photoCounts.reduce(0, +) / Double(photoCounts.count)
        )
    }

    /// The middle value, or the mean of the two middle ones; nil for none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
