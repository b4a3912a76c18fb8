import Foundation

/// A group's photos of tasks and the photos its members picked, and the rule between them:
/// a task's chosen photo is the members' pick, else its first photo. A later photo joins the
/// album without taking the place of a teammate's: only a member's pick changes the choice.
public struct TaskPhotos: Sendable {
    /// Each task's photos, oldest first (by time taken, then id).
    public private(set) var photos: [GroupProgress.TaskKey: [Photo]]
    /// The photo id the members picked for a task.
    public private(set) var picks: [GroupProgress.TaskKey: String]
    /// The chosen photo of each task that has any.
    public private(set) var chosen: [GroupProgress.TaskKey: Photo] = [:]
    /// The tasks done without a photo: questions answered right, codes found.
    public var answered: Set<GroupProgress.TaskKey>
    /// When the group started each mission, as stored once with its first photo or attempt (right
    /// or wrong) for one of its tasks, and never moved since: where its time limit runs from,
    /// however many of its photos were deleted.
    public var missionStarts: [String: Date]

    /// `photos` in any order; those of no task are left out, and picks of photos not among them.
    public init(
        photos: [Photo], picks: [GroupProgress.TaskKey: String], answered: Set<GroupProgress.TaskKey> = [], missionStarts: [String: Date] = [:]
    ) {
        self.answered = answered
        self.missionStarts = missionStarts
        var byTask: [GroupProgress.TaskKey: [Photo]] = [:]
        for photo in photos {
            if let task = photo.task { byTask[task, default: []].append(photo) }
        }
        self.photos = byTask.mapValues { $0.sorted(by: Self.olderFirst) }
        self.picks = picks
        for task in self.photos.keys { chooseFor(task) }
    }

    public var done: Set<GroupProgress.TaskKey> { answered.union(chosen.keys) }

    /// The chosen photos of a mission's tasks in their order, or nil while a task has none:
    /// what the mission's collage shows, and what a stored collage is current for.
    public func chosen(missionId: String, taskIds: [String]) -> [Photo]? {
        var result: [Photo] = []
        for taskId in taskIds {
            guard let photo = chosen[GroupProgress.TaskKey(missionId: missionId, taskId: taskId)] else { return nil }
            result.append(photo)
        }
        return result
    }

    func adding(_ photo: Photo) -> TaskPhotos {
        guard let task = photo.task else { return self }
        var next = self
        next.photos[task, default: []].append(photo)
        next.photos[task]?.sort(by: Self.olderFirst)
        next.chooseFor(task)
        return next
    }

    func removing(_ photo: Photo) -> TaskPhotos {
        guard let task = photo.task else { return self }
        var next = self
        next.photos[task]?.removeAll { $0.id == photo.id }
        if next.photos[task]?.isEmpty == true { next.photos[task] = nil }
        if next.picks[task] == photo.id { next.picks[task] = nil }
        next.chooseFor(task)
        return next
    }

    func picking(_ photoId: String, for task: GroupProgress.TaskKey) -> TaskPhotos {
        var next = self
        next.picks[task] = photoId
        next.chooseFor(task)
        return next
    }

    private mutating func chooseFor(_ task: GroupProgress.TaskKey) {
        let candidates = photos[task] ?? []
        chosen[task] = picks[task].flatMap { pick in candidates.first { $0.id == pick } } ?? candidates.first
    }

    private static func olderFirst(_ a: Photo, _ b: Photo) -> Bool {
        (a.createdAt, a.id) < (b.createdAt, b.id)
    }
}
