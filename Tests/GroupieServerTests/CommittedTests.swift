import Foundation
import GroupieCore
import GroupieStorage
@testable import GroupieServer
import Testing

@Suite("What follows a commit")
struct CommittedTests {
    static func event(_ payload: GroupEventPayload) throws -> GroupEvent {
        let data = try JSONSerialization.data(withJSONObject: payload.fields, options: [.sortedKeys])
        return GroupEvent(groupId: "g", seq: 1, kind: payload.kind, data: String(decoding: data, as: UTF8.self))
    }

    @Test("A task's photo coming, going or chosen, a completion and a group's closing or opening make its collages again; nothing else does")
    func collagesByKind() throws {
        let task = GroupProgress.TaskKey(missionId: "sharks", taskId: "shark")
        func photo(_ task: GroupProgress.TaskKey?) -> Photo {
            Photo(
                id: "p", groupId: "g", photographerId: "a", photographerName: "Ada", missionId: task?.missionId, taskId: task?.taskId,
                blob: "b", format: "jpeg", width: 4, height: 3, createdAt: Date(timeIntervalSince1970: 0)
            )
        }
        let redraw: [GroupEventPayload] = [
            .photoAdded(photo(task)), .photoAdded(photo(task), restored: true), .photoRemoved(photo(task)),
            .choiceChanged(task, photoId: "p", playerId: "a", name: "Ada"), .missionCompleted(missionId: "sharks"),
            .groupClosed(reason: "closing time"), .groupReopened,
        ]
        let leave: [GroupEventPayload] = [
            .photoAdded(photo(nil)), .photoRemoved(photo(nil)), .memberJoined(playerId: "a", name: "Ada"), .memberLeft(playerId: "a"),
            .taskClaimed(task, playerId: "a", name: "Ada", until: Date(timeIntervalSince1970: 60)), .taskReleased(task, playerId: "a"),
            .collageReady(missionId: "sharks"), .collageRemoved(missionId: "sharks"), .venueUpdated(venueId: "aquarium"),
        ]
        for payload in redraw { #expect(Committed.changesCollages(try Self.event(payload)), "\(payload.kind)") }
        for payload in leave { #expect(!Committed.changesCollages(try Self.event(payload)), "\(payload.kind)") }
    }
}
