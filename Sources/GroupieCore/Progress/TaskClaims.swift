import Foundation

/// A member's word that they are on a task ("Ada is on it"), so that a group of five splits the
/// tasks instead of racing for one. A claim lasts `ClaimRules.lifetime`, and ends sooner when
/// its member releases it, uploads the task's photo or leaves the group.
public struct TaskClaim: Sendable, Hashable {
    public var task: GroupProgress.TaskKey
    public var playerId: String
    /// The member's name, read with the claim (never stored with it).
    public var name: String
    public var claimedAt: Date

    public init(task: GroupProgress.TaskKey, playerId: String, name: String, claimedAt: Date) {
        self.task = task
        self.playerId = playerId
        self.name = name
        self.claimedAt = claimedAt
    }

    public var expiresAt: Date { claimedAt.addingTimeInterval(ClaimRules.lifetime) }
}

/// Who may claim or release a task, and what each does to the group's claims: computed here from
/// the claims before, stored by the database in the same transaction with the events.
public enum ClaimRules {
    /// How long a claim holds without a photo: long enough to find the object in a room.
    public static let lifetime: TimeInterval = 10 * 60

    public enum Action: Sendable {
        /// `player` says they are on `task`.
        case claim(GroupProgress.TaskKey, by: Player)
        /// The claimer gives the task back.
        case release(GroupProgress.TaskKey, playerId: String)
        /// The claimer's photo for the task arrived: their claim ends with it.
        case photographed(Photo)
    }

    public enum Refusal: Error, Sendable, Equatable {
        /// Another member claimed the task first, and their claim holds.
        case claimedByOther(name: String)
        /// The task has its photo already: there is nothing left to split.
        case taskDone
        /// The venue has no such task, or its mission is locked for the group.
        case notOpen
        /// The mission's time limit ran out for the group: none of its tasks is open any more.
        case timeUp(missionId: String)
    }

    /// What to write: the claim to store in place of the task's (nil: none), the task whose
    /// claim goes, and the events, in order.
    public struct Change: Sendable, Equatable {
        public var store: TaskClaim?
        public var remove: GroupProgress.TaskKey?
        public var events: [GroupEventPayload]
    }

    /// The claims that hold at `now`: not expired, by a member still in the group.
    public static func holding(_ claims: [TaskClaim], members: Set<String>, now: Date) -> [TaskClaim] {
        claims.filter { $0.expiresAt > now && members.contains($0.playerId) }
    }

    /// Whether `playerId`'s claim of `task` holds at `now`: a photo of theirs for it then wins
    /// over a teammate's taken meanwhile (`PhotoRules.Action.add`).
    public static func holds(_ task: GroupProgress.TaskKey, by playerId: String, claims: [TaskClaim], members: Set<String>, now: Date) -> Bool {
        holding(claims, members: members, now: now).contains { $0.task == task && $0.playerId == playerId }
    }

    /// The change `action` makes to a group whose stored claims are `before` (expired ones and
    /// those of departed members included: they are passed over), whose `members` are active,
    /// whose task photos and answers are `photos` (what is done, and when each mission started),
    /// at a venue (nil when it is gone).
    public static func change(
        _ action: Action, before: [TaskClaim], members: Set<String>, photos: TaskPhotos, venue: Venue?, now: Date
    ) throws(Refusal) -> Change {
        let holding = holding(before, members: members, now: now)
        switch action {
        case .claim(let task, let player):
            let done = photos.done
            guard let venue, let mission = venue.mission(id: task.missionId), mission.task(id: task.taskId) != nil,
                GroupProgress(venue: venue, doneTasks: done).mission(task.missionId)?.isUnlocked == true
            else { throw .notOpen }
            guard !done.contains(task) else { throw .taskDone }
            if let deadline = AnswerRules.deadline(of: mission, photos: photos, attempts: []), now > deadline { throw .timeUp(missionId: mission.id) }
            if let other = holding.first(where: { $0.task == task }), other.playerId != player.id {
                throw .claimedByOther(name: other.name)
            }
            let claim = TaskClaim(task: task, playerId: player.id, name: player.name, claimedAt: now)
            return Change(store: claim, remove: nil, events: [.taskClaimed(task, playerId: player.id, name: player.name, until: claim.expiresAt)])
        case .release(let task, let playerId):
            return released(task, by: playerId, before: before, holding: holding)
        case .photographed(let photo):
            guard let task = photo.task else { return Change(store: nil, remove: nil, events: []) }
            return released(task, by: photo.photographerId, before: before, holding: holding)
        }
    }

    /// The player's claim of the task goes; told to the group only while it held (an expired
    /// one goes quietly). Releasing a claim one does not have changes nothing.
    private static func released(_ task: GroupProgress.TaskKey, by playerId: String, before: [TaskClaim], holding: [TaskClaim]) -> Change {
        guard before.contains(where: { $0.task == task && $0.playerId == playerId }) else { return Change(store: nil, remove: nil, events: []) }
        let held = holding.contains { $0.task == task && $0.playerId == playerId }
        return Change(store: nil, remove: task, events: held ? [.taskReleased(task, playerId: playerId)] : [])
    }
}
