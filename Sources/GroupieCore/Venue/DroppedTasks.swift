/// What a new version of a venue's file leaves behind: the tasks under which a group has photos
/// that the version no longer has (its mission gone, or the task's id changed). Their photos stay
/// in the group's album, but the tasks no longer count, so staff are warned before it happens.
public enum DroppedTasks {
    /// The keys of `photos` (a group's task photos) that `venue` has no task for, each with how
    /// many photos are under it, in the order of mission and task id.
    public static func of(_ photos: TaskPhotos, in venue: Venue) -> [(task: GroupProgress.TaskKey, photos: Int)] {
        var kept = Set<GroupProgress.TaskKey>()
        for mission in venue.missions {
            for task in mission.tasks { kept.insert(.init(missionId: mission.id, taskId: task.id)) }
        }
        return photos.photos.filter { !kept.contains($0.key) && !$0.value.isEmpty }
            .map { ($0.key, $0.value.count) }
            .sorted { ($0.task.missionId, $0.task.taskId) < ($1.task.missionId, $1.task.taskId) }
    }
}
