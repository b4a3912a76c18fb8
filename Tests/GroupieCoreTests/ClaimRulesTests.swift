import Foundation
import GroupieCore
import Testing

@Suite("Claim rules")
struct ClaimRulesTests {
    /// Mission `a` (tasks 1, 2), then `b` (task 1) unlocked by `a`: the photo rules' venue.
    let venue = PhotoRulesTests().venue
    let ada = Player(id: "p1", name: "Ada", language: nil, createdAt: Date(timeIntervalSince1970: 0))
    let bo = Player(id: "p2", name: "Bo", language: nil, createdAt: Date(timeIntervalSince1970: 0))
    let task = GroupProgress.TaskKey(missionId: "a", taskId: "1")
    let members: Set<String> = ["p1", "p2"]
    let noon = Date(timeIntervalSince1970: 12 * 3600)

    func claim(by player: Player, at date: Date) -> TaskClaim {
        TaskClaim(task: task, playerId: player.id, name: player.name, claimedAt: date)
    }

    func change(_ action: ClaimRules.Action, before: [TaskClaim] = [], members: Set<String>? = nil, done: Set<GroupProgress.TaskKey> = [], at date: Date? = nil)
        throws(ClaimRules.Refusal) -> ClaimRules.Change
    {
        try ClaimRules.change(
            action, before: before, members: members ?? self.members, photos: TaskPhotos(photos: [], picks: [:], answered: done), venue: venue,
            now: date ?? noon
        )
    }

    @Test("an open task's claim is stored and told with the member's name and its end")
    func claimOpen() throws {
        let made = try change(.claim(task, by: ada))
        #expect(made.store == claim(by: ada, at: noon))
        #expect(made.events == [.taskClaimed(task, playerId: "p1", name: "Ada", until: noon.addingTimeInterval(ClaimRules.lifetime))])
    }

    @Test("a second member's claim of a claimed task is refused with the first's name; the first may claim again")
    func secondClaim() throws {
        let before = [claim(by: ada, at: noon.addingTimeInterval(-60))]
        #expect(throws: ClaimRules.Refusal.claimedByOther(name: "Ada")) { try change(.claim(task, by: bo), before: before) }
        #expect(try change(.claim(task, by: ada), before: before).store == claim(by: ada, at: noon))
    }

    @Test("an expired claim, or one of a member who left, gives way to another member's")
    func lapsedClaims() throws {
        let expired = [claim(by: ada, at: noon.addingTimeInterval(-ClaimRules.lifetime))]
        #expect(try change(.claim(task, by: bo), before: expired).store?.playerId == "p2")
        let departed = [claim(by: ada, at: noon)]
        #expect(try change(.claim(task, by: bo), before: departed, members: ["p2"]).store?.playerId == "p2")
        #expect(ClaimRules.holding(departed + expired, members: ["p2"], now: noon).isEmpty)
    }

    @Test("a done task, an unknown one, or one of a locked mission cannot be claimed")
    func notOpen() {
        #expect(throws: ClaimRules.Refusal.taskDone) { try change(.claim(task, by: ada), done: [task]) }
        #expect(throws: ClaimRules.Refusal.notOpen) { try change(.claim(.init(missionId: "a", taskId: "9"), by: ada)) }
        #expect(throws: ClaimRules.Refusal.notOpen) { try change(.claim(.init(missionId: "b", taskId: "1"), by: ada)) }
        #expect(throws: ClaimRules.Refusal.notOpen) {
            try ClaimRules.change(.claim(task, by: ada), before: [], members: members, photos: TaskPhotos(photos: [], picks: [:]), venue: nil, now: noon)
        }
    }

    @Test("a task of a timed mission can be claimed until its time is up, counted from the group's first attempt, and not after")
    func timeUp() throws {
        var timed = venue
        timed.missions[0].timeLimit = 10
        let started = TaskPhotos(photos: [], picks: [:], missionStarts: ["a": noon])
        func claim(at date: Date) throws(ClaimRules.Refusal) -> ClaimRules.Change {
            try ClaimRules.change(.claim(task, by: ada), before: [], members: members, photos: started, venue: timed, now: date)
        }
        #expect(try claim(at: noon.addingTimeInterval(600)).store != nil)
        #expect(throws: ClaimRules.Refusal.timeUp(missionId: "a")) { try claim(at: noon.addingTimeInterval(601)) }
        // Before the group's first attempt, the clock has not started.
        #expect(
            try ClaimRules.change(
                .claim(task, by: ada), before: [], members: members, photos: TaskPhotos(photos: [], picks: [:]), venue: timed,
                now: noon.addingTimeInterval(86_400)
            ).store != nil
        )
    }

    @Test("releasing ends one's own claim with task-released; another's claim, or none, stays as it is")
    func release() throws {
        let before = [claim(by: ada, at: noon)]
        let released = try change(.release(task, playerId: "p1"), before: before)
        #expect(released.remove == task)
        #expect(released.events == [.taskReleased(task, playerId: "p1")])
        let other = try change(.release(task, playerId: "p2"), before: before)
        #expect(other.remove == nil && other.events.isEmpty)
    }

    @Test("the claimer's photo for the task ends the claim; an expired claim goes without an event")
    func photographed() throws {
        let photo = Photo(
            id: "x", groupId: "g", photographerId: "p1", photographerName: "Ada", missionId: "a", taskId: "1",
            blob: "b", format: "jpeg", width: 100, height: 100, createdAt: noon
        )
        let ended = try change(.photographed(photo), before: [claim(by: ada, at: noon)])
        #expect(ended.remove == task && ended.events == [.taskReleased(task, playerId: "p1")])
        let quiet = try change(.photographed(photo), before: [claim(by: ada, at: noon.addingTimeInterval(-ClaimRules.lifetime - 1))])
        #expect(quiet.remove == task && quiet.events.isEmpty)
        #expect(try change(.photographed(photo), before: [claim(by: bo, at: noon)]).remove == nil, "a teammate's claim stays")
    }

    @Test("the claim's events carry the task, the member and the claim's end")
    func fields() {
        let event = GroupEventPayload.taskClaimed(task, playerId: "p1", name: "Ada", until: Date(timeIntervalSince1970: 0))
        #expect(event.kind == .taskClaimed)
        #expect(event.fields == ["missionId": "a", "taskId": "1", "playerId": "p1", "name": "Ada", "expiresAt": "1970-01-01T00:00:00Z"])
    }
}
