import Foundation

/// Why a group's visit is over: the moment its members are shown their recap. A group whose
/// visit is over may still look at its album; the recap is what it keeps.
public enum VisitEnd: String, Sendable, Hashable, CaseIterable {
    /// Every mission of the venue is complete.
    case missionsDone = "missions-done"
    /// The venue's staff closed the group (at the end of the day, or of a class's visit).
    case closed
    /// The group's joining time is over (`joinableUntil`).
    case joiningTimeOver = "joining-time-over"

    /// Why the visit of `group` is over at `now`, or nil while it goes on. `progress` is nil when
    /// the venue's file has been withdrawn; a venue without missions is never "all done".
    public static func of(_ group: Group, progress: GroupProgress?, now: Date) -> VisitEnd? {
        if let progress, !progress.missions.isEmpty, progress.missions.allSatisfy(\.isComplete) { return .missionsDone }
        if group.closed != nil { return .closed }
        if now >= group.joinableUntil { return .joiningTimeOver }
        return nil
    }
}
