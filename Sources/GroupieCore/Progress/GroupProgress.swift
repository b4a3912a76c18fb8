/// Where a group stands in a venue: which tasks are done, which missions are complete and
/// which are unlocked. A task is done when the group has at least one visible photo for it;
/// a mission is complete when all its tasks are done; it is unlocked when every mission of
/// its `after:` is complete.
public struct GroupProgress: Sendable, Hashable {
    public struct TaskKey: Sendable, Hashable {
        public var missionId: String
        public var taskId: String

        public init(missionId: String, taskId: String) {
            self.missionId = missionId
            self.taskId = taskId
        }
    }

    public struct TaskState: Sendable, Hashable {
        public var taskId: String
        public var isDone: Bool
    }

    public struct MissionState: Sendable, Hashable {
        public var missionId: String
        public var tasks: [TaskState]
        public var isComplete: Bool
        public var isUnlocked: Bool
    }

    public var missions: [MissionState]

    /// `doneTasks` may name tasks the venue no longer has (a renamed id); they are ignored.
    public init(venue: Venue, doneTasks: Set<TaskKey>) {
        var complete = Set<String>()
        var states: [MissionState] = []
        for mission in venue.missions {
            let tasks = mission.tasks.map { task in
                TaskState(taskId: task.id, isDone: doneTasks.contains(TaskKey(missionId: mission.id, taskId: task.id)))
            }
            let isComplete = tasks.allSatisfy(\.isDone)
            if isComplete { complete.insert(mission.id) }
            states.append(MissionState(missionId: mission.id, tasks: tasks, isComplete: isComplete, isUnlocked: true))
        }
        for index in states.indices {
            states[index].isUnlocked = venue.missions[index].after.allSatisfy(complete.contains)
        }
        self.missions = states
    }

    public func mission(_ id: String) -> MissionState? {
        missions.first { $0.missionId == id }
    }
}
