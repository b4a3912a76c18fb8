/// A venue's points (`points:` in its file; none by default): what a done task and a complete
/// mission are worth, and the badges a group can earn. Groups see their own standing; a class's
/// wall shows the standing of its groups, by group name only.
public struct PointsRules: Sendable, Hashable {
    public static let valueRange = 0...1000
    public static let defaultTask = 10
    public static let defaultMission = 50

    public var task: Int
    public var mission: Int
    /// The badges on offer, in the file's order.
    public var badges: [Badge]

    public init(task: Int = PointsRules.defaultTask, mission: Int = PointsRules.defaultMission, badges: [Badge] = []) {
        self.task = task
        self.mission = mission
        self.badges = badges
    }
}

/// A badge and the rule that earns it.
public enum Badge: String, Sendable, Hashable, CaseIterable {
    /// The group has the photo of a task.
    case firstPhoto = "first-photo"
    /// Every mission of the venue is complete.
    case allMissions = "all-missions"
    /// A complete mission of two tasks or more whose tasks show photos by as many different members.
    case differentMembers = "different-members"
}

/// A group's points and badges, from its chosen photos: tasks of missions the venue no longer
/// has count for nothing.
public struct Standing: Sendable, Hashable {
    public var points: Int
    /// Earned badges, in the order the venue offers them.
    public var badges: [Badge]

    public init(points: Int, badges: [Badge]) {
        self.points = points
        self.badges = badges
    }

    public init(rules: PointsRules, venue: Venue, taskPhotos: TaskPhotos) {
        let progress = GroupProgress(venue: venue, doneTasks: taskPhotos.done)
        let done = progress.missions.reduce(0) { $0 + $1.tasks.filter(\.isDone).count }
        let complete = progress.missions.filter(\.isComplete)
        points = done * rules.task + complete.count * rules.mission
        badges = rules.badges.filter { badge in
            switch badge {
            case .firstPhoto:
                return done > 0
            case .allMissions:
                return !progress.missions.isEmpty && complete.count == progress.missions.count
            case .differentMembers:
                return venue.missions.contains { mission in
                    guard mission.tasks.count >= 2,
                        let photos = taskPhotos.chosen(missionId: mission.id, taskIds: mission.tasks.map(\.id))
                    else { return false }
                    return Set(photos.map(\.photographerId)).count == photos.count
                }
            }
        }
    }
}
