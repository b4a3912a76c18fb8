import Foundation

/// The kinds of event a group's stream carries (the SSE `event:` field). The API document's
/// `GroupEvent` and the web client's `live.js` list exactly these; a test holds them to it.
public enum GroupEventKind: String, CaseIterable, Sendable, Hashable {
    case memberJoined = "member-joined"
    case memberLeft = "member-left"
    case memberRenamed = "member-renamed"
    case photoAdded = "photo-added"
    case photoRemoved = "photo-removed"
    case taskAnswered = "task-answered"
    case taskDone = "task-done"
    case taskUndone = "task-undone"
    case choiceChanged = "choice-changed"
    case taskClaimed = "task-claimed"
    case taskReleased = "task-released"
    case missionCompleted = "mission-completed"
    case collageReady = "collage-ready"
    case collageRemoved = "collage-removed"
    case venueUpdated = "venue-updated"
    case groupClosed = "group-closed"
    case staffMessage = "staff-message"
    case groupReopened = "group-reopened"
    case reactionChanged = "reaction-changed"
}

/// An event of a group with what its members' screens need to show it: the SSE `data:` object.
public enum GroupEventPayload: Sendable, Hashable {
    case memberJoined(playerId: String, name: String)
    case memberLeft(playerId: String)
    case memberRenamed(playerId: String, name: String)
    /// A photo joined the album. `restored`: staff brought back a photo that was in the album
    /// before (hidden since): it is not a new photo of the group, and the venue numbers count it once.
    case photoAdded(Photo, restored: Bool = false)
    case photoRemoved(Photo)
    /// A member (`playerId`, `name`) answered a question or typed a code: what they gave
    /// (the typed text, or the number of the choice from 1) and whether it was right.
    case taskAnswered(GroupProgress.TaskKey, playerId: String, name: String, answer: String, right: Bool)
    case taskDone(GroupProgress.TaskKey)
    case taskUndone(GroupProgress.TaskKey)
    /// The member who made the choice: `playerId` and their `name`.
    case choiceChanged(GroupProgress.TaskKey, photoId: String, playerId: String, name: String)
    /// A member is on the task (`name`), until `until` unless they release it sooner.
    case taskClaimed(GroupProgress.TaskKey, playerId: String, name: String, until: Date)
    /// The member's claim of the task ended: released, or their photo arrived.
    case taskReleased(GroupProgress.TaskKey, playerId: String)
    case missionCompleted(missionId: String)
    case collageReady(missionId: String)
    case collageRemoved(missionId: String)
    case venueUpdated(venueId: String)
    /// The venue's staff closed the group, saying why.
    case groupClosed(reason: String)
    /// A short message from the venue's staff (`StaffMessage`), shown until dismissed.
    case staffMessage(text: String)
    /// The venue's staff reopened the group they had closed.
    case groupReopened
    /// A member put a reaction (`GroupFeed.reactions`) on the feed's entry `entry`, or took it off.
    case reactionChanged(entry: Int, reaction: String, playerId: String, on: Bool)

    public var kind: GroupEventKind {
        switch self {
        case .memberJoined: .memberJoined
        case .memberLeft: .memberLeft
        case .memberRenamed: .memberRenamed
        case .photoAdded: .photoAdded
        case .photoRemoved: .photoRemoved
        case .taskAnswered: .taskAnswered
        case .taskDone: .taskDone
        case .taskUndone: .taskUndone
        case .choiceChanged: .choiceChanged
        case .taskClaimed: .taskClaimed
        case .taskReleased: .taskReleased
        case .missionCompleted: .missionCompleted
        case .collageReady: .collageReady
        case .collageRemoved: .collageRemoved
        case .venueUpdated: .venueUpdated
        case .groupClosed: .groupClosed
        case .staffMessage: .staffMessage
        case .groupReopened: .groupReopened
        case .reactionChanged: .reactionChanged
        }
    }

    /// The members of the event's JSON object. A photo's event names its photographer; erasure
    /// blanks `name` and `photographerName` in stored events, so no other member carries a name.
    private static func fields(of photo: Photo) -> [String: String] {
        var fields = ["photoId": photo.id, "photographerId": photo.photographerId, "photographerName": photo.photographerName]
        fields["missionId"] = photo.missionId
        fields["taskId"] = photo.taskId
        return fields
    }

    public var fields: [String: String] {
        switch self {
        case .memberJoined(let playerId, let name), .memberRenamed(let playerId, let name):
            return ["playerId": playerId, "name": name]
        case .memberLeft(let playerId):
            return ["playerId": playerId]
        case .photoAdded(let photo, let restored):
            var fields = Self.fields(of: photo)
            if restored { fields["restored"] = "true" }
            return fields
        case .photoRemoved(let photo):
            return Self.fields(of: photo)
        case .taskAnswered(let task, let playerId, let name, let answer, let right):
            return ["missionId": task.missionId, "taskId": task.taskId, "playerId": playerId, "name": name, "answer": answer, "right": right ? "true" : "false"]
        case .taskDone(let task), .taskUndone(let task):
            return ["missionId": task.missionId, "taskId": task.taskId]
        case .choiceChanged(let task, let photoId, let playerId, let name):
            return ["missionId": task.missionId, "taskId": task.taskId, "photoId": photoId, "playerId": playerId, "name": name]
        case .taskClaimed(let task, let playerId, let name, let until):
            return ["missionId": task.missionId, "taskId": task.taskId, "playerId": playerId, "name": name, "expiresAt": until.formatted(.iso8601)]
        case .taskReleased(let task, let playerId):
            return ["missionId": task.missionId, "taskId": task.taskId, "playerId": playerId]
        case .missionCompleted(let missionId), .collageReady(let missionId), .collageRemoved(let missionId):
            return ["missionId": missionId]
        case .venueUpdated(let venueId):
            return ["venueId": venueId]
        case .groupClosed(let reason):
            return ["reason": reason]
        case .staffMessage(let text):
            return ["text": text]
        case .groupReopened:
            return [:]
        case .reactionChanged(let entry, let reaction, let playerId, let on):
            return ["entry": String(entry), "reaction": reaction, "playerId": playerId, "on": on ? "true" : "false"]
        }
    }
}

extension GroupEventPayload: Encodable {
    private struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Member.self)
        for (key, value) in fields { try container.encode(value, forKey: Member(stringValue: key)) }
    }
}
