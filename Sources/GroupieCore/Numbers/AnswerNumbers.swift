/// The venue's questions and found-it codes in numbers: for each, how many groups tried it
/// and how many got it right, counted from the stored attempts (each group once per task).
public struct AnswerNumbers: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public var missionId: String
        public var taskId: String
        /// `question` or `code`.
        public var kind: String
        public var groupsAnswered: Int
        public var groupsRight: Int
        /// Attempts of every group, wrong ones included.
        public var attempts: Int
    }

    /// One row per question or code task of the venue, in the file's order.
    public var rows: [Row]

    /// `attempts`: every stored attempt of the venue's groups, with its group.
    public init(venue: Venue, attempts: [(groupId: String, answer: TaskAnswer)]) {
        var answered: [GroupProgress.TaskKey: Set<String>] = [:], right: [GroupProgress.TaskKey: Set<String>] = [:]
        var counts: [GroupProgress.TaskKey: Int] = [:]
        for (groupId, answer) in attempts {
            answered[answer.task, default: []].insert(groupId)
            if answer.right { right[answer.task, default: []].insert(groupId) }
            counts[answer.task, default: 0] += 1
        }
        rows = venue.missions.flatMap { mission in
            mission.tasks.filter { $0.kind != .photo }.map { task in
                let key = GroupProgress.TaskKey(missionId: mission.id, taskId: task.id)
                return Row(
                    missionId: mission.id, taskId: task.id, kind: task.kind.name, groupsAnswered: answered[key]?.count ?? 0,
                    groupsRight: right[key]?.count ?? 0, attempts: counts[key] ?? 0
                )
            }
        }
    }
}
