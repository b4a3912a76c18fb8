import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    var taskA1: GroupProgress.TaskKey { .init(missionId: "a", taskId: "1") }

    @Test("A claim is stored with its event and shown in the group; a teammate's claim of it is refused by name", arguments: Backend.chosen)
    func claims(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let claimed = try await store.claimTask(groupId: group.id, task: taskA1, by: ada, venue: venue, now: now)
        #expect(claimed.map(\.kind) == [.taskClaimed])
        #expect(claimed.first?.data.contains("\"name\":\"Ada\"") == true)
        #expect(try await store.groupContents(group).claims == [TaskClaim(task: taskA1, playerId: ada.id, name: "Ada", claimedAt: now)])
        await #expect(throws: ClaimRules.Refusal.claimedByOther(name: "Ada")) {
            try await store.claimTask(groupId: group.id, task: self.taskA1, by: bo, venue: self.venue, now: self.now.addingTimeInterval(1))
        }
        // Once the claim has run out, Bo may take the task over.
        let later = now.addingTimeInterval(ClaimRules.lifetime + 1)
        #expect(try await store.claimTask(groupId: group.id, task: taskA1, by: bo, venue: venue, now: later).map(\.kind) == [.taskClaimed])
        #expect(try await store.groupContents(group).claims.map(\.playerId) == [bo.id])
        // Bo's photo ends his claim in its own transaction; the done task cannot be claimed.
        let added = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: later.addingTimeInterval(1))
        #expect(added.events.map(\.kind) == [.photoAdded, .taskDone, .taskReleased])
        #expect(try await store.groupContents(group).claims.isEmpty)
        await #expect(throws: ClaimRules.Refusal.taskDone) {
            try await store.claimTask(groupId: group.id, task: self.taskA1, by: ada, venue: self.venue, now: later.addingTimeInterval(2))
        }
    }

    @Test("The claimer's photo wins over a teammate's that came first, unless a member picked that one", arguments: Backend.chosen)
    func claimerWins(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        _ = try await store.claimTask(groupId: group.id, task: taskA1, by: ada, venue: venue, now: now)
        // Both take the photo at once; Bo's arrives first and is the task's for a moment.
        let bos = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now.addingTimeInterval(1)).photo
        #expect(try await store.groupContents(group).taskPhotos.chosen[taskA1]?.id == bos.id)
        let adas = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(2))
        #expect(adas.events.map(\.kind) == [.photoAdded, .choiceChanged, .taskReleased])
        #expect(adas.events[1].data.contains("\"playerId\":\"\(ada.id)\""), "the choice is Ada's: \(adas.events[1].data)")
        let contents = try await store.groupContents(group)
        #expect(contents.taskPhotos.chosen[taskA1]?.id == adas.photo.id)
        #expect(contents.taskPhotos.photos[taskA1]?.count == 2, "Bo's photo stays in the album")
        #expect(contents.claims.isEmpty)

        // A photo a member picked stays the task's: here Ada's claim of task 2 does not undo Bo's pick.
        let task2 = GroupProgress.TaskKey(missionId: "a", taskId: "2")
        _ = try await store.claimTask(groupId: group.id, task: task2, by: ada, venue: venue, now: now.addingTimeInterval(3))
        let first = try await store.addPhoto(photo(group, by: bo, "a", "2"), venue: venue, now: now.addingTimeInterval(4)).photo
        let second = try await store.addPhoto(photo(group, by: bo, "a", "2"), venue: venue, now: now.addingTimeInterval(5)).photo
        _ = try await store.choosePhoto(groupId: group.id, task: task2, photoId: second.id, by: bo, venue: venue, now: now.addingTimeInterval(6))
        let late = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: venue, now: now.addingTimeInterval(7))
        #expect(!late.events.map(\.kind).contains(.choiceChanged))
        #expect(try await store.groupContents(group).taskPhotos.chosen[task2]?.id == second.id, "not \(first.id) nor Ada's")
    }

    @Test("A claim ends when its member releases it or leaves; an outsider cannot claim", arguments: Backend.chosen)
    func claimEnds(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        _ = try await store.claimTask(groupId: group.id, task: taskA1, by: bo, venue: venue, now: now)
        #expect(try await store.releaseTask(groupId: group.id, task: taskA1, playerId: bo.id, now: now).map(\.kind) == [.taskReleased])
        #expect(try await store.releaseTask(groupId: group.id, task: taskA1, playerId: bo.id, now: now).isEmpty, "nothing left to release")
        #expect(try await store.groupContents(group).claims.isEmpty)

        _ = try await store.claimTask(groupId: group.id, task: taskA1, by: bo, venue: venue, now: now)
        try await store.removeMember(groupId: group.id, playerId: bo.id, by: bo.id, now: now.addingTimeInterval(1))
        #expect(try await store.groupContents(group).claims.isEmpty, "a departed member's claim is not shown")
        #expect(try await store.claimTask(groupId: group.id, task: taskA1, by: ada, venue: venue, now: now.addingTimeInterval(2)).map(\.kind) == [.taskClaimed])
        await #expect(throws: MembershipError.groupNotFound) {
            try await store.claimTask(groupId: group.id, task: .init(missionId: "a", taskId: "2"), by: bo, venue: self.venue, now: self.now)
        }
    }

    @Test("A member who leaves gives back their claim for good: it does not come back when they rejoin", arguments: Backend.chosen)
    func claimGoneAfterRejoin(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, bo, group) = try await pair(in: store)
        _ = try await store.claimTask(groupId: group.id, task: taskA1, by: bo, venue: venue, now: now)
        try await store.removeMember(groupId: group.id, playerId: bo.id, by: bo.id, now: now.addingTimeInterval(1))
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now.addingTimeInterval(2)) { _ in 5 }
        #expect(try await store.groupContents(group).claims.isEmpty, "the claim made before leaving holds no more")
    }

    @Test("A task of a timed mission whose time ran out for the group cannot be claimed", arguments: Backend.chosen)
    func claimAfterTimeUp(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, group) = try await pair(in: store)
        var timed = venue
        timed.missions[0].timeLimit = 1
        _ = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: timed, now: now)
        #expect(try await store.claimTask(groupId: group.id, task: taskA1, by: ada, venue: timed, now: now.addingTimeInterval(59)).map(\.kind) == [.taskClaimed])
        _ = try await store.releaseTask(groupId: group.id, task: taskA1, playerId: ada.id, now: now.addingTimeInterval(59))
        await #expect(throws: ClaimRules.Refusal.timeUp(missionId: "a")) {
            try await store.claimTask(groupId: group.id, task: self.taskA1, by: ada, venue: timed, now: self.now.addingTimeInterval(61))
        }
        #expect(try await store.groupContents(group).claims.isEmpty)
    }

    @Test("A timed mission's time runs from its first photo as stored: deleting that photo moves no deadline", arguments: Backend.chosen)
    func deletionKeepsStart(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        var timed = venue
        timed.missions[0].timeLimit = 1
        let first = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: timed, now: now).photo
        _ = try await store.deletePhoto(id: first.id, by: ada.id, venue: timed, now: now.addingTimeInterval(30))
        #expect(try await store.groupContents(group).taskPhotos.missionStarts["a"] == now)
        // A minute after the first photo, with none of the mission's photos left, the time is up all the same.
        await #expect(throws: AnswerRules.Refusal.timeUp(missionId: "a")) {
            try await store.addPhoto(self.photo(group, by: bo, "a", "2"), venue: timed, now: self.now.addingTimeInterval(61))
        }
        await #expect(throws: ClaimRules.Refusal.timeUp(missionId: "a")) {
            try await store.claimTask(groupId: group.id, task: self.taskA1, by: bo, venue: timed, now: self.now.addingTimeInterval(61))
        }
        #expect(try await store.groupContents(group).taskPhotos.photos.isEmpty)
    }

    @Test("Two members claiming one task at once: one claim holds, the other is refused", arguments: Backend.chosen)
    func concurrentClaims(_ backend: Backend) async throws {
        let (one, two) = try await backend.openTwo()
        let (ada, bo, group) = try await pair(in: one)
        async let first = Result(awaiting: { try await one.claimTask(groupId: group.id, task: self.taskA1, by: ada, venue: self.venue, now: self.now) })
        async let second = Result(awaiting: { try await two.claimTask(groupId: group.id, task: self.taskA1, by: bo, venue: self.venue, now: self.now) })
        let results = await [first, second]
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        #expect(results.contains { if case .failure(let error) = $0 { error is ClaimRules.Refusal } else { false } })
        #expect(try await one.groupContents(group).claims.count == 1)
    }

    @Test("Only its photographer deletes a photo; the group's creator is refused and told to hide it", arguments: Backend.chosen)
    func deletePermission(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let taken = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now).photo
        await #expect(throws: PhotoRules.Refusal.creatorMayOnlyHide) {
            try await store.deletePhoto(id: taken.id, by: ada.id, venue: self.venue, now: self.now)
        }
        #expect(try await store.counts().photos == 1)
        #expect(try await store.deletePhoto(id: taken.id, by: bo.id, venue: venue, now: now).events.map(\.kind) == [.photoRemoved, .taskUndone])
    }

    @Test("The group's creator hides a teammate's photo, decided in the hide's transaction; a member who is not the creator is refused", arguments: Backend.chosen)
    func creatorHides(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let taken = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now).photo
        await #expect(throws: PhotoRules.Refusal.notAllowedToHide) {
            try await store.hidePhotoFromGroup(id: taken.id, by: bo.id, reason: "r", venue: self.venue, now: self.now)
        }
        #expect(try await store.counts().photos == 1, "a refused hide changes nothing")
        let theirs = try await store.addPhoto(photo(group, by: bo, "a", "2"), venue: venue, now: now).photo
        let hidden = try await store.hidePhotoFromGroup(id: theirs.id, by: ada.id, reason: "Hidden from the group by its creator", venue: venue, now: now)
        #expect(hidden.map(\.kind) == [.photoRemoved, .taskUndone])
        #expect(try await store.staffView(groupId: group.id)?.hidden.map(\.reason) == ["Hidden from the group by its creator"])
        await #expect(throws: ModerationError.photoNotFound) {
            try await store.hidePhotoFromGroup(id: "no-such-photo", by: ada.id, reason: "r", venue: self.venue, now: self.now)
        }
    }
}

extension Result where Failure == any Error {
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
