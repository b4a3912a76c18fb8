import Foundation

/// What a photo, its removal or a member's pick does to a group: computed here from the state
/// before, stored by the database in the same transaction as the change itself.
public enum PhotoRules {
    public enum Action: Sendable {
        /// A member's new photo, free or for a task. With `choose`, the photographer also makes it
        /// the task's chosen photo in place of the one before; without, it only joins the album.
        /// With `claimed`, the photographer held the task's claim ("I'm on it") when it arrived:
        /// it takes the place of a teammate's photo taken meanwhile, unless a member picked that.
        case add(Photo, choose: Bool = false, claimed: Bool = false)
        /// A photo the venue's staff bring back into the album: one that was in it before and was
        /// hidden (`restored`), or one that never was (held for review, or hidden while held).
        case restore(Photo, restored: Bool)
        /// A photo deleted by `actorId`, its photographer alone, in a group whose creator is
        /// `creatorId` (nil once the creator left and no one took over): a creator is told to hide
        /// a teammate's photo instead.
        case remove(Photo, actorId: String, creatorId: String?)
        /// A photo the venue's staff hid or deleted: it leaves the album, whoever took it.
        case withdraw(Photo)
        /// A member, `by`, picks `photo` as the one their group shows for `task`.
        case choose(Photo, for: GroupProgress.TaskKey, groupId: String, by: Player)

        var photo: Photo {
            switch self {
            case .add(let photo, _, _), .restore(let photo, _), .remove(let photo, _, _), .withdraw(let photo), .choose(let photo, _, _, _): photo
            }
        }
    }

    public enum Refusal: Error, Sendable, Equatable {
        /// Only a photo's photographer (or the venue's staff) may delete it for good.
        case notAllowedToDelete
        /// Only the group's creator may hide a teammate's photo from the group.
        case notAllowedToHide
        /// The group's creator may hide a teammate's photo from the group, not delete it.
        case creatorMayOnlyHide
        /// The picked photo is not one of the task's in this group.
        case notOfThisTask
        /// A photo for a mission whose `after` missions the group has not all completed.
        case missionLocked(missionId: String)
    }

    /// Refuses a new photo for a task of `missionId` while the mission is locked for a group
    /// whose task photos are `before`; a free photo (no mission), a mission the venue no longer
    /// has, or no venue, passes. Checked in the photo's own transaction, so that a prerequisite
    /// undone meanwhile (a photo deleted or hidden) is seen.
    /// Whether a photo for a task of `missionId`, taken `now`, may join a group whose task photos
    /// are `before`: its mission unlocked (`Refusal.missionLocked`), and within the mission's
    /// time limit when it has one (`AnswerRules.Refusal.timeUp`), counted from the group's first
    /// photo or attempt for one of its tasks.
    public static func requireAdmissible(_ missionId: String?, now: Date, before: TaskPhotos, venue: Venue?) throws {
        try requireUnlocked(missionId, before: before, venue: venue)
        guard let missionId, let mission = venue?.mission(id: missionId),
            let deadline = AnswerRules.deadline(of: mission, photos: before, attempts: []), now > deadline
        else { return }
        throw AnswerRules.Refusal.timeUp(missionId: missionId)
    }

    public static func requireUnlocked(_ missionId: String?, before: TaskPhotos, venue: Venue?) throws(Refusal) {
        guard let missionId, let venue else { return }
        let progress = GroupProgress(venue: venue, doneTasks: before.done)
        if let mission = progress.mission(missionId), !mission.isUnlocked { throw .missionLocked(missionId: missionId) }
    }

    /// The group's creator may hide a teammate's photo from the group (its album, progress and
    /// collages) without deleting it; the venue's staff can bring it back. Anyone else is refused.
    public static func requireMayHide(_ photo: Photo, actorId: String, creatorId: String?) throws(Refusal) {
        guard creatorId == actorId else { throw .notAllowedToHide }
    }

    public struct Change: Sendable {
        /// The task photos after the action.
        public var after: TaskPhotos
        /// The events to store with the change, in the order members see them: the action's
        /// own events (a photo added, then the choice it changed), then each task done or
        /// undone, then each mission completed.
        public var events: [GroupEventPayload]
        /// Whether a collage may show the change: the photo's mission was complete before it or
        /// is after it (or the venue is gone, so that nobody can tell). Otherwise no collage
        /// needs making again or withdrawing.
        public var touchesCollage: Bool
    }

    /// The events of an erased photographer's `photos` leaving a group at once, one after
    /// another, as staff withdrawing each would cause them; the events do not repeat the
    /// photographer's name.
    public static func erasure(ofPhotos photos: [Photo], before: TaskPhotos, venue: Venue?) throws(Refusal) -> [GroupEventPayload] {
        var taskPhotos = before
        var events: [GroupEventPayload] = []
        for var photo in photos {
            photo.photographerName = ""
            let change = try change(.withdraw(photo), before: taskPhotos, venue: venue)
            taskPhotos = change.after
            events += change.events
        }
        return events
    }

    /// The change `action` makes to a group whose task photos are `before`, at a venue
    /// (nil when the venue is gone: no task or mission events then).
    public static func change(_ action: Action, before: TaskPhotos, venue: Venue?) throws(Refusal) -> Change {
        var after: TaskPhotos
        var events: [GroupEventPayload]
        switch action {
        case .add(let photo, let choose, let claimed):
            after = before.adding(photo)
            events = [.photoAdded(photo)]
            // A task's first photo is its chosen one anyway; a later one replaces it when asked
            // to, or when its photographer was on the task and a teammate's photo came first.
            if let task = photo.task, let current = before.chosen[task], current.id != photo.id,
                choose || (claimed && before.picks[task] == nil && current.photographerId != photo.photographerId)
            {
                after = after.picking(photo.id, for: task)
                events.append(.choiceChanged(task, photoId: photo.id, playerId: photo.photographerId, name: photo.photographerName))
            }
        case .restore(let photo, let restored):
            after = before.adding(photo)
            events = [.photoAdded(photo, restored: restored)]
        case .remove(let photo, let actorId, let creatorId):
            guard photo.photographerId == actorId else { throw creatorId == actorId ? .creatorMayOnlyHide : .notAllowedToDelete }
            after = before.removing(photo)
            events = [.photoRemoved(photo)]
        case .withdraw(let photo):
            after = before.removing(photo)
            events = [.photoRemoved(photo)]
        case .choose(let photo, let task, let groupId, let member):
            guard photo.groupId == groupId, photo.task == task else { throw .notOfThisTask }
            after = before.picking(photo.id, for: task)
            events = [.choiceChanged(task, photoId: photo.id, playerId: member.id, name: member.name)]
        }
        var touchesCollage = true
        if let venue {
            let old = GroupProgress(venue: venue, doneTasks: before.done), new = GroupProgress(venue: venue, doneTasks: after.done)
            events += progressEvents(before: old, after: new)
            touchesCollage = action.photo.missionId.map { old.mission($0)?.isComplete == true || new.mission($0)?.isComplete == true } ?? false
        }
        return Change(after: after, events: events, touchesCollage: touchesCollage)
    }

    /// The task and mission events between two states of a group's progress, mission by
    /// mission in the venue's order.
    public static func progressEvents(before: GroupProgress, after: GroupProgress) -> [GroupEventPayload] {
        var events: [GroupEventPayload] = []
        for (old, new) in zip(before.missions, after.missions) {
            for (oldTask, newTask) in zip(old.tasks, new.tasks) where oldTask.isDone != newTask.isDone {
                let task = GroupProgress.TaskKey(missionId: new.missionId, taskId: newTask.taskId)
                events.append(newTask.isDone ? .taskDone(task) : .taskUndone(task))
            }
            if !old.isComplete, new.isComplete {
                events.append(.missionCompleted(missionId: new.missionId))
            }
        }
        return events
    }
}

/// Why a photo's change was refused, beyond `PhotoRules.Refusal`.
public enum PhotoError: Error, Sendable, Equatable {
    /// An idempotency key used again by the same player in the same group for another task.
    case keyReused
    /// No photo of the actor's group has this id.
    case photoNotFound
}
