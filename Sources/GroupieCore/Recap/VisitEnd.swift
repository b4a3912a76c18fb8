import Foundation

/// Why a group's visit is over: the moment its members are shown their recap. A group whose
/// visit is over may still look at its album; the recap is what it keeps.
public enum VisitEnd: String, Sendable, Hashable, CaseIterable {
    /// Every mission of the venue is complete.
    case missionsDone = "missions-done"
    /// Every mission is complete or over: its time ran out before the group finished it (or it
    /// waits for such a mission, and so can never open).
    case missionsOver = "missions-over"
    /// The venue's staff closed the group (at the end of the day, or of a class's visit).
    case closed
    /// The group's joining time is over (`joinableUntil`).
    case joiningTimeOver = "joining-time-over"

    /// Why the visit of `group` is over at `now`, or nil while it goes on. `progress` is nil when
    /// the venue's file has been withdrawn; a venue without missions is never "all done".
    /// `over`: the missions that are over for the group without being complete (`over(in:…)`).
    public static func of(_ group: Group, progress: GroupProgress?, over: Set<String> = [], now: Date) -> VisitEnd? {
        if let progress, !progress.missions.isEmpty {
            if progress.missions.allSatisfy(\.isComplete) { return .missionsDone }
            if progress.missions.allSatisfy({ $0.isComplete || over.contains($0.missionId) }) { return .missionsOver }
        }
        if group.closed != nil { return .closed }
        if now >= group.joinableUntil { return .joiningTimeOver }
        return nil
    }

    /// The next moment after `now` at which a mission of `venue` that the group started and has
    /// not completed runs out of time: until then, nothing the clock alone decides about the
    /// group's missions changes. Nil when no such mission is running.
    public static func nextDeadline(in venue: Venue, photos: TaskPhotos, after now: Date) -> Date? {
        let complete = Set(GroupProgress(venue: venue, doneTasks: photos.done).missions.filter(\.isComplete).map(\.missionId))
        return venue.missions.filter { !complete.contains($0.id) }
            .compactMap { AnswerRules.deadline(of: $0, photos: photos, attempts: []) }
            .filter { $0 >= now }.min()
    }

    /// The missions of `venue` that are over for a group at `now` without being complete: those
    /// whose time limit ran out (from the group's start, `photos.missionStarts`), and those that
    /// wait (`after:`) for a mission that is over, which can never open.
    public static func over(in venue: Venue, photos: TaskPhotos, now: Date) -> Set<String> {
        let progress = GroupProgress(venue: venue, doneTasks: photos.done)
        let complete = Set(progress.missions.filter(\.isComplete).map(\.missionId))
        var over = Set(venue.missions.compactMap { mission -> String? in
            guard !complete.contains(mission.id), let deadline = AnswerRules.deadline(of: mission, photos: photos, attempts: []), now > deadline else {
                return nil
            }
            return mission.id
        })
        // A mission waiting for one that is over is over too, however long the chain.
        var grew = true
        while grew {
            grew = false
            for mission in venue.missions where !complete.contains(mission.id) && !over.contains(mission.id) && !over.isDisjoint(with: mission.after) {
                over.insert(mission.id)
                grew = true
            }
        }
        return over
    }
}
