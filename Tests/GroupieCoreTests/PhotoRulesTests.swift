import Foundation
import GroupieCore
import Testing

@Suite("Photo rules")
struct PhotoRulesTests {
    /// Mission `a` (tasks 1, 2), then `b` (task 1) unlocked by `a`.
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(id: "a", title: .plain("A"), icon: "i.svg", after: [], tasks: [MissionTask(id: "1", prompt: .plain("p")), MissionTask(id: "2", prompt: .plain("p"))]),
            Mission(id: "b", title: .plain("B"), icon: "i.svg", after: ["a"], tasks: [MissionTask(id: "1", prompt: .plain("p"))]),
        ]
    )

    func photo(_ id: String, _ mission: String?, _ task: String?, by photographer: String = "p1", at second: Double = 0, group: String = "g") -> Photo {
        Photo(
            id: id, groupId: group, photographerId: photographer, photographerName: "Ada", missionId: mission, taskId: task,
            blob: "b\(id)", format: "jpeg", width: 100, height: 100, createdAt: Date(timeIntervalSince1970: second)
        )
    }

    func key(_ mission: String, _ task: String) -> GroupProgress.TaskKey { .init(missionId: mission, taskId: task) }

    let bo = Player(id: "p2", name: "Bo", language: nil, createdAt: Date(timeIntervalSince1970: 0))

    @Test("a task's first photo marks it done; the photo's event comes first")
    func firstPhoto() throws {
        let added = photo("x", "a", "1")
        let change = try PhotoRules.change(.add(added), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(added), .taskDone(key("a", "1"))])
        #expect(change.after.chosen[key("a", "1")] == added)
    }

    @Test("the photo completing a mission: photo, task done, mission completed, in that order")
    func completesMission() throws {
        let first = photo("x", "a", "1", at: 1)
        let second = photo("y", "a", "2", at: 2)
        let change = try PhotoRules.change(.add(second), before: TaskPhotos(photos: [first], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(second), .taskDone(key("a", "2")), .missionCompleted(missionId: "a")])
        #expect(GroupProgress(venue: venue, doneTasks: change.after.done).mission("b")?.isUnlocked == true)
    }

    @Test("a collage is looked at only for a mission complete before or after the change, or when the venue is gone")
    func touchesCollage() throws {
        let first = photo("x", "a", "1", at: 1), other = photo("z", "a", "1", at: 3), second = photo("y", "a", "2", at: 2)
        let incomplete = TaskPhotos(photos: [first, other], picks: [:])
        #expect(try !PhotoRules.change(.choose(other, for: key("a", "1"), groupId: "g", by: bo), before: incomplete, venue: venue).touchesCollage)
        #expect(try !PhotoRules.change(.add(photo("w", nil, nil)), before: incomplete, venue: venue).touchesCollage)
        #expect(try PhotoRules.change(.add(second), before: incomplete, venue: venue).touchesCollage, "completes a")
        let complete = TaskPhotos(photos: [first, other, second], picks: [:])
        #expect(try PhotoRules.change(.choose(other, for: key("a", "1"), groupId: "g", by: bo), before: complete, venue: venue).touchesCollage)
        #expect(try PhotoRules.change(.withdraw(second), before: complete, venue: venue).touchesCollage, "undoes a")
        #expect(try PhotoRules.change(.choose(other, for: key("a", "1"), groupId: "g", by: bo), before: incomplete, venue: nil).touchesCollage)
    }

    @Test("a second photo of a done task joins the album; the teammate's first photo stays chosen")
    func secondPhoto() throws {
        let first = photo("x", "a", "1", by: "p1", at: 1)
        let second = photo("y", "a", "1", by: "p2", at: 2)
        let change = try PhotoRules.change(.add(second), before: TaskPhotos(photos: [first], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(second)])
        #expect(change.after.chosen[key("a", "1")] == first)
        #expect(change.after.photos[key("a", "1")] == [first, second])
    }

    @Test("a second photo the photographer chooses takes the place of the first, and says who chose it")
    func secondPhotoChosen() throws {
        let first = photo("x", "a", "1", by: "p1", at: 1)
        var second = photo("y", "a", "1", by: "p2", at: 2)
        second.photographerName = "Bo"
        let change = try PhotoRules.change(.add(second, choose: true), before: TaskPhotos(photos: [first], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(second), .choiceChanged(key("a", "1"), photoId: "y", playerId: "p2", name: "Bo")])
        #expect(change.after.chosen[key("a", "1")] == second)
        #expect(change.after.picks[key("a", "1")] == "y")
    }

    @Test("the claimer's photo takes the place of a teammate's that came first; a pick, or their own earlier photo, stays")
    func claimerWins() throws {
        let first = photo("x", "a", "1", by: "p1", at: 1)
        var claimer = photo("y", "a", "1", by: "p2", at: 2)
        claimer.photographerName = "Ada"
        let change = try PhotoRules.change(.add(claimer, claimed: true), before: TaskPhotos(photos: [first], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(claimer), .choiceChanged(key("a", "1"), photoId: "y", playerId: "p2", name: "Ada")])
        #expect(change.after.chosen[key("a", "1")] == claimer)
        let picked = try PhotoRules.change(.add(claimer, claimed: true), before: TaskPhotos(photos: [first], picks: [key("a", "1"): "x"]), venue: venue)
        #expect(picked.after.chosen[key("a", "1")] == first)
        #expect(picked.events == [.photoAdded(claimer)])
        let own = photo("w", "a", "1", by: "p2", at: 1)
        let again = try PhotoRules.change(.add(claimer, claimed: true), before: TaskPhotos(photos: [own], picks: [:]), venue: venue)
        #expect(again.after.chosen[key("a", "1")] == own, "a claimer's second photo joins the album as anyone's does")
        let unclaimed = try PhotoRules.change(.add(claimer), before: TaskPhotos(photos: [first], picks: [:]), venue: venue)
        #expect(unclaimed.after.chosen[key("a", "1")] == first)
    }

    @Test("a task's first photo is chosen anyway: choosing it adds no pick and no choice event")
    func firstPhotoChosen() throws {
        let added = photo("x", "a", "1")
        let change = try PhotoRules.change(.add(added, choose: true), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(added), .taskDone(key("a", "1"))])
        #expect(change.after.picks.isEmpty)
    }

    @Test("a member's pick stays chosen when newer photos arrive")
    func pickHolds() throws {
        let first = photo("x", "a", "1", at: 1)
        let second = photo("y", "a", "1", at: 2)
        let change = try PhotoRules.change(.add(second), before: TaskPhotos(photos: [first], picks: [key("a", "1"): "x"]), venue: venue)
        #expect(change.after.chosen[key("a", "1")] == first)
    }

    @Test("a free photo changes no task")
    func freePhoto() throws {
        let free = photo("x", nil, nil)
        let change = try PhotoRules.change(.add(free), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(change.events == [.photoAdded(free)])
        #expect(change.after.chosen.isEmpty)
    }

    @Test("without its venue a photo tells only of itself")
    func venueGone() throws {
        let added = photo("x", "a", "1")
        let change = try PhotoRules.change(.add(added), before: TaskPhotos(photos: [], picks: [:]), venue: nil)
        #expect(change.events == [.photoAdded(added)])
    }

    @Test("removing a task's only photo undoes the task; a complete mission stays announced once")
    func removeOnly() throws {
        let first = photo("x", "a", "1", at: 1), second = photo("y", "a", "2", at: 2)
        let change = try PhotoRules.change(
            .remove(first, actorId: "p1", creatorId: "c"), before: TaskPhotos(photos: [first, second], picks: [:]), venue: venue
        )
        #expect(change.events == [.photoRemoved(first), .taskUndone(key("a", "1"))])
        #expect(change.after.chosen[key("a", "1")] == nil)
    }

    @Test("removing the picked photo falls back to the task's first")
    func removePicked() throws {
        let first = photo("x", "a", "1", at: 1), second = photo("y", "a", "1", at: 2), third = photo("z", "a", "1", at: 3)
        let before = TaskPhotos(photos: [third, first, second], picks: [key("a", "1"): "x"])
        #expect(before.chosen[key("a", "1")] == first)
        let change = try PhotoRules.change(.remove(first, actorId: "p1", creatorId: "c"), before: before, venue: venue)
        #expect(change.events == [.photoRemoved(first)])
        #expect(change.after.chosen[key("a", "1")] == second)
        #expect(change.after.picks[key("a", "1")] == nil)
    }

    @Test("only the photographer deletes a photo; the group's creator is told to hide it instead")
    func removeAllowed() throws {
        let taken = photo("x", "a", "1", by: "p1")
        let before = TaskPhotos(photos: [taken], picks: [:])
        #expect(throws: PhotoRules.Refusal.notAllowedToDelete) {
            try PhotoRules.change(.remove(taken, actorId: "p2", creatorId: "c"), before: before, venue: self.venue)
        }
        #expect(throws: PhotoRules.Refusal.creatorMayOnlyHide) {
            try PhotoRules.change(.remove(taken, actorId: "c", creatorId: "c"), before: before, venue: self.venue)
        }
        #expect(try PhotoRules.change(.remove(taken, actorId: "p1", creatorId: "p1"), before: before, venue: venue).events.first == .photoRemoved(taken))
    }

    @Test("the group's creator alone may hide a teammate's photo")
    func hideAllowed() throws {
        let taken = photo("x", "a", "1", by: "p1")
        try PhotoRules.requireMayHide(taken, actorId: "c", creatorId: "c")
        #expect(throws: PhotoRules.Refusal.notAllowedToHide) { try PhotoRules.requireMayHide(taken, actorId: "p2", creatorId: "c") }
        #expect(throws: PhotoRules.Refusal.notAllowedToHide) { try PhotoRules.requireMayHide(taken, actorId: "p2", creatorId: nil) }
    }

    @Test("without a creator, the photographer alone may remove a photo")
    func removeWithoutCreator() throws {
        let taken = photo("x", "a", "1", by: "p1")
        let before = TaskPhotos(photos: [taken], picks: [:])
        #expect(try PhotoRules.change(.remove(taken, actorId: "p1", creatorId: nil), before: before, venue: venue).events.first == .photoRemoved(taken))
        #expect(throws: PhotoRules.Refusal.notAllowedToDelete) {
            try PhotoRules.change(.remove(taken, actorId: "p2", creatorId: nil), before: before, venue: self.venue)
        }
    }

    @Test("picking a photo tells of the choice and who made it, and changes no progress")
    func choose() throws {
        let first = photo("x", "a", "1", at: 1), second = photo("y", "a", "1", at: 2)
        let change = try PhotoRules.change(.choose(second, for: key("a", "1"), groupId: "g", by: bo), before: TaskPhotos(photos: [first, second], picks: [:]), venue: venue)
        #expect(change.events == [.choiceChanged(key("a", "1"), photoId: "y", playerId: "p2", name: "Bo")])
        #expect(change.after.chosen[key("a", "1")] == second)
    }

    @Test("a photo of another task or group cannot be picked")
    func chooseOther() {
        let other = photo("x", "a", "2"), elsewhere = photo("y", "a", "1", group: "h")
        let before = TaskPhotos(photos: [other], picks: [:])
        #expect(throws: PhotoRules.Refusal.notOfThisTask) { try PhotoRules.change(.choose(other, for: self.key("a", "1"), groupId: "g", by: self.bo), before: before, venue: self.venue) }
        #expect(throws: PhotoRules.Refusal.notOfThisTask) { try PhotoRules.change(.choose(elsewhere, for: self.key("a", "1"), groupId: "g", by: self.bo), before: before, venue: self.venue) }
    }

    @Test("photos taken in the same second are ordered by id, as the database orders them")
    func sameSecond() {
        let a = photo("a1", "a", "1", at: 5), b = photo("b1", "a", "1", at: 5)
        #expect(TaskPhotos(photos: [b, a], picks: [:]).chosen[key("a", "1")] == a)
        #expect(TaskPhotos(photos: [a, b], picks: [:]).chosen[key("a", "1")] == a)
    }

    @Test("a photo staff restore joins the album again, marked restored when it was in it before")
    func restore() throws {
        let back = photo("x", "a", "1")
        let restored = try PhotoRules.change(.restore(back, restored: true), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(restored.events == [.photoAdded(back, restored: true), .taskDone(key("a", "1"))])
        #expect(restored.after.chosen[key("a", "1")] == back)
        #expect(restored.events.first?.fields["restored"] == "true")
        let shared = try PhotoRules.change(.restore(back, restored: false), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(shared.events == [.photoAdded(back), .taskDone(key("a", "1"))], "a photo held for review is new to the album")
        #expect(shared.events.first?.fields["restored"] == nil)
    }

    @Test("every event kind has its name and fields")
    func payloads() {
        let taken = photo("x", "a", "1", by: "p1")
        #expect(GroupEventPayload.photoAdded(taken).fields == ["photoId": "x", "photographerId": "p1", "photographerName": "Ada", "missionId": "a", "taskId": "1"])
        #expect(GroupEventPayload.photoRemoved(photo("x", nil, nil)).fields.keys.sorted() == ["photoId", "photographerId", "photographerName"])
        #expect(GroupEventPayload.memberJoined(playerId: "p", name: "Bo").kind.rawValue == "member-joined")
        #expect(GroupEventPayload.choiceChanged(key("a", "1"), photoId: "x", playerId: "p2", name: "Bo").fields == ["missionId": "a", "taskId": "1", "photoId": "x", "playerId": "p2", "name": "Bo"])
        #expect(Set(GroupEventKind.allCases.map(\.rawValue)).count == GroupEventKind.allCases.count)
    }

    @Test("an erased photographer's photos leave one after another: each photo, then each task undone, nameless; another's photo keeps a task done")
    func erasure() throws {
        let mine1 = photo("x", "a", "1", at: 1), mine2 = photo("y", "a", "2", at: 2), free = photo("z", nil, nil, at: 3)
        let theirs = photo("w", "b", "1", by: "p2", at: 4)
        let before = TaskPhotos(photos: [mine1, mine2, free, theirs], picks: [:])
        let events = try PhotoRules.erasure(ofPhotos: [mine1, mine2, free], before: before, venue: venue)
        func nameless(_ photo: Photo) -> Photo {
            var photo = photo
            photo.photographerName = ""
            return photo
        }
        #expect(events == [
            .photoRemoved(nameless(mine1)), .taskUndone(key("a", "1")),
            .photoRemoved(nameless(mine2)), .taskUndone(key("a", "2")),
            .photoRemoved(nameless(free)),
        ])
        #expect(try PhotoRules.erasure(ofPhotos: [], before: before, venue: venue).isEmpty)
    }
}
