import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

/// The rest of the storage contract, on both backends: the methods the tests in
/// `StoreContractTests.swift` do not reach, each run once per backend on a new store.
extension StoreContractTests {
    /// The venue, reviewing photos before they are shared.
    var reviewed: Venue {
        var reviewed = venue
        reviewed.review = .beforeSharing
        return reviewed
    }

    // MARK: Players and groups

    @Test("A player's name and language change as given, and later reads see them; an unknown player changes nothing", arguments: Backend.chosen)
    func updatePlayer(_ backend: Backend) async throws {
        let store = try await backend.open()
        let token = Data(UUID().uuidString.utf8)
        let ada = try await store.createPlayer(name: "Ada", language: "en", tokenHash: token, now: now)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let added = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now)

        let renaming = try await store.updatePlayer(id: ada.id, name: "Ada L.", language: nil, now: now)
        let renamed = renaming?.player
        #expect(renamed == Player(id: ada.id, name: "Ada L.", language: "en", createdAt: now), "no language given: it stays")
        // The new name is told to the group in the same transaction, and stored.
        #expect(renaming?.events.map(\.kind) == [.memberRenamed])
        #expect(renaming?.events.first?.groupId == group.id)
        #expect(try await store.events(groupId: group.id, after: 0, limit: 100).last == renaming?.events.first)
        let relanguaged = try await store.updatePlayer(id: ada.id, name: nil, language: "sv", now: now)
        #expect(relanguaged?.player == Player(id: ada.id, name: "Ada L.", language: "sv", createdAt: now), "no name given: it stays")
        #expect(relanguaged?.events == [], "no new name: no event")
        #expect(try await store.updatePlayer(id: ada.id, name: nil, language: nil, now: now)?.player == relanguaged?.player, "nothing given changes nothing")
        #expect(try await store.updatePlayer(id: ada.id, name: "Ada L.", language: nil, now: now)?.events == [], "the same name: no event")
        let cleared = try await store.updatePlayer(id: ada.id, name: "Åda 🐟", language: .some(nil), now: now)?.player
        #expect(cleared == Player(id: ada.id, name: "Åda 🐟", language: nil, createdAt: now), "a language of nil clears it")

        #expect(try await store.player(id: ada.id) == cleared)
        #expect(try await store.player(tokenHash: token) == cleared)
        #expect(try await store.groupContents(group).members.map(\.name) == ["Åda 🐟"])
        #expect(try await store.photo(id: added.photo.id)?.photographerName == "Åda 🐟")
        #expect(try await store.collageSubject(groupId: group.id)?.creatorLanguage == nil)

        #expect(try await store.updatePlayer(id: "no-such-player", name: "Ghost", language: "en", now: now) == nil)
        #expect(try await store.counts().players == 1, "updating an unknown player adds none")
    }

    @Test("Groups made in advance have no members and no creator until the first joiner, who becomes it", arguments: Backend.chosen)
    func groupsInAdvance(_ backend: Backend) async throws {
        let store = try await backend.open()
        #expect(try await store.createGroupsInAdvance(venueId: "v", names: [], joinableFor: 600, now: now).isEmpty)
        let groups = try await store.createGroupsInAdvance(venueId: "v", names: ["Table 1", "Table 2", "Table 2"], joinableFor: 600, now: now)
        #expect(groups.map(\.name) == ["Table 1", "Table 2", "Table 2"], "in the order of the names, duplicates kept")
        #expect(groups.allSatisfy { $0.venueId == "v" && $0.creatorId == nil && $0.closed == nil })
        #expect(groups.allSatisfy { $0.createdAt == now && $0.joinableUntil == now.addingTimeInterval(600) })
        #expect(Set(groups.map(\.id)).count == 3 && Set(groups.map(\.joinCode)).count == 3)
        #expect(try await store.counts() == RowCounts(players: 0, groups: 3, memberships: 0))
        for group in groups {
            #expect(try await store.group(id: group.id) == group)
            #expect(try await store.group(code: group.joinCode) == group)
            #expect(try await store.groupContents(group).members.isEmpty)
        }
        #expect(try await store.activeGroupIds(venueId: "v").isEmpty, "a group no one joined yet is not active")
        #expect(try await store.playingGroups(venueId: "v", limit: 10).isEmpty)

        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store)
        let first = try await store.joinGroup(code: groups[1].joinCode, playerId: ada.id, now: now.addingTimeInterval(10)) { _ in 5 }
        #expect(first.group.creatorId == ada.id, "the first to join becomes the creator")
        #expect(first.joined.map(\.kind) == [.memberJoined] && first.joined.first?.seq == 1)
        let second = try await store.joinGroup(code: groups[1].joinCode, playerId: bo.id, now: now.addingTimeInterval(20)) { _ in 5 }
        #expect(second.group.creatorId == ada.id, "the second does not")
        #expect(try await store.group(id: groups[1].id)?.creatorId == ada.id)
        #expect(try await store.groupContents(try #require(try await store.group(id: groups[1].id))).members.map(\.isCreator) == [true, false])
        #expect(try await store.group(id: groups[0].id)?.creatorId == nil, "the other groups are untouched")
        #expect(try await store.activeGroupIds(venueId: "v") == [groups[1].id])

        let late = try await player("Late", in: store)
        await #expect(throws: MembershipError.joiningTimeOver) {
            try await store.joinGroup(code: groups[0].joinCode, playerId: late.id, now: now.addingTimeInterval(600)) { _ in 5 }
        }
    }

    @Test("A group is found by its join code and known to exist until it is deleted", arguments: Backend.chosen)
    func groupByCodeAndExistence(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store)
        let group = try await store.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now).group
        #expect(try await store.group(code: group.joinCode) == group)
        var unknown = JoinCode.random()
        while unknown == group.joinCode { unknown = JoinCode.random() }
        #expect(try await store.group(code: unknown) == nil)
        #expect(try await store.groupExists(id: group.id))
        #expect(try await store.groupExists(id: "no-such-group") == false)

        let closed = try await store.closeGroup(id: group.id, reason: "closing time", now: now.addingTimeInterval(5)).group
        #expect(try await store.group(code: group.joinCode) == closed)
        #expect(try await store.group(code: group.joinCode)?.closed == Group.Closure(at: now.addingTimeInterval(5), reason: "closing time"))
        #expect(try await store.groupExists(id: group.id), "a closed group still exists")

        #expect(try await store.deleteGroups(createdBefore: now.addingTimeInterval(1)).groups == 1)
        #expect(try await store.groupExists(id: group.id) == false)
        #expect(try await store.group(code: group.joinCode) == nil)
        #expect(try await store.group(id: group.id) == nil)
    }

    // MARK: Photos

    @Test("A photo is shown to its group's members only: not to a stranger, nor to a member once they left", arguments: Backend.chosen)
    func photoSeenBy(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store), cy = try await player("Cy", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now) { _ in 5 }
        let other = try await store.createGroup(venueId: "v", name: nil, creatorId: cy.id, joinableFor: 3600, now: now).group
        let added = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now).photo
        let cysOwn = try await store.addPhoto(photo(other, by: cy, nil, nil), venue: venue, now: now).photo

        #expect(try await store.photo(id: added.id, seenBy: ada.id) == added)
        #expect(try await store.photo(id: added.id, seenBy: bo.id) == added, "any member, not only the photographer")
        #expect(try await store.photo(id: added.id, seenBy: cy.id) == nil, "a member of another group")
        #expect(try await store.photo(id: cysOwn.id, seenBy: ada.id) == nil)
        #expect(try await store.photo(id: added.id, seenBy: "no-such-player") == nil)
        #expect(try await store.photo(id: "no-such-photo", seenBy: ada.id) == nil)

        try await store.removeMember(groupId: group.id, playerId: bo.id, by: bo.id, now: now.addingTimeInterval(1))
        #expect(try await store.photo(id: added.id, seenBy: bo.id) == nil, "a former member")
        // Bo moves to Cy's group: he sees its photos now, and still not those of the group he left.
        _ = try await store.joinGroup(code: other.joinCode, playerId: bo.id, now: now.addingTimeInterval(2)) { _ in 5 }
        #expect(try await store.photo(id: cysOwn.id, seenBy: bo.id) == cysOwn)
        #expect(try await store.photo(id: added.id, seenBy: bo.id) == nil)
        #expect(try await store.photo(id: added.id) == added, "the photo itself is still there")

        _ = try await store.hidePhoto(id: added.id, reason: "r", venue: venue, now: now.addingTimeInterval(3))
        #expect(try await store.photo(id: added.id, seenBy: ada.id) == nil, "a photo staff hid is shown to no member")
        let held = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: reviewed, now: now.addingTimeInterval(4)).photo
        #expect(try await store.photo(id: held.id, seenBy: ada.id) == nil, "nor one held for review, even to its photographer")
    }

    @Test("A photo held for review is found as held until staff share it or keep it hidden; other photos are not held", arguments: Backend.chosen)
    func heldPhoto(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let shown = try await store.addPhoto(photo(group, by: ada, "b", "1"), venue: venue, now: now).photo
        var new = photo(group, by: ada, "a", "1", blob: "held-blob")
        new.focus = Focus(x: 0.25, y: 0.75)
        let held = try await store.addPhoto(new, venue: reviewed, now: now.addingTimeInterval(1.5))
        #expect(held.held && held.created && held.events.isEmpty)
        let expected = Photo(
            id: held.photo.id, groupId: group.id, photographerId: ada.id, photographerName: "Ada", missionId: "a", taskId: "1",
            blob: "held-blob", format: "jpeg", width: 400, height: 300, createdAt: now.addingTimeInterval(1.5), focus: Focus(x: 0.25, y: 0.75)
        )
        #expect(held.photo == expected)
        #expect(try await store.heldPhoto(id: held.photo.id) == expected)
        #expect(try await store.photo(id: held.photo.id) == nil, "out of the album")
        #expect(try await store.heldPhoto(id: shown.id) == nil, "a shown photo is not held")
        #expect(try await store.heldPhoto(id: "no-such-photo") == nil)

        // Kept hidden by staff: no longer held.
        #expect(try await store.hidePhoto(id: held.photo.id, reason: "faces", venue: venue, now: now.addingTimeInterval(2)).isEmpty)
        #expect(try await store.heldPhoto(id: held.photo.id) == nil)
        #expect(try await store.moderatedPhoto(id: held.photo.id).map { [$0.hidden, $0.held] } == [true, false])
        // Hidden by staff from the album: not held either.
        _ = try await store.hidePhoto(id: shown.id, reason: "r", venue: venue, now: now.addingTimeInterval(3))
        #expect(try await store.heldPhoto(id: shown.id) == nil)

        // Shared by staff: in the album, no longer held.
        let other = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: reviewed, now: now.addingTimeInterval(4)).photo
        #expect(try await store.heldPhoto(id: other.id) == other)
        #expect(try await store.restorePhoto(id: other.id, venue: venue, now: now.addingTimeInterval(5)).map(\.kind) == [.photoAdded, .taskDone])
        #expect(try await store.heldPhoto(id: other.id) == nil)
        #expect(try await store.photo(id: other.id) == other)
    }

    @Test("Staff delete a photo shown, hidden or held for good: with the events of a shown one, its choice undone, and whether its files can go", arguments: Backend.chosen)
    func deletePhotoByStaff(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let task = GroupProgress.TaskKey(missionId: "a", taskId: "1")
        let first = try await store.addPhoto(photo(group, by: ada, "a", "1", blob: "first"), venue: venue, now: now.addingTimeInterval(1)).photo
        let picked = try await store.addPhoto(photo(group, by: bo, "a", "1", blob: "shared"), venue: venue, now: now.addingTimeInterval(2)).photo
        let free = try await store.addPhoto(photo(group, by: bo, nil, nil, blob: "shared"), venue: venue, now: now.addingTimeInterval(3)).photo
        _ = try await store.choosePhoto(groupId: group.id, task: task, photoId: picked.id, by: bo, venue: venue, now: now.addingTimeInterval(4))

        // The chosen photo: the choice falls back to the task's first; the blob is still used.
        let gone = try await store.deletePhotoByStaff(id: picked.id, venue: venue, now: now.addingTimeInterval(5))
        #expect(gone.photo == picked)
        #expect(gone.events.map(\.kind) == [.photoRemoved], "the task is still done by the other photo")
        #expect(!gone.blobUnused, "the free photo uses the same blob")
        #expect(try await store.photo(id: picked.id) == nil)
        #expect(try await store.moderatedPhoto(id: picked.id) == nil, "gone for good, not hidden")
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == first.id)
        #expect(try await store.taskPhotos(groupId: group.id).picks[task] == nil, "the pick went with its photo")
        let stored = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(Array(stored.suffix(gone.events.count)) == gone.events, "its events are stored, last in the group's sequence")
        #expect(stored.map(\.seq) == Array(1...stored.count))

        // The task's last photo: the task is undone.
        let last = try await store.deletePhotoByStaff(id: first.id, venue: venue, now: now.addingTimeInterval(6))
        #expect(last.events.map(\.kind) == [.photoRemoved, .taskUndone])
        #expect(last.blobUnused)
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task] == nil)
        #expect(try await store.membership(playerId: ada.id, groupId: group.id)?.version == last.events.last?.seq)

        // A hidden photo: no events (its members saw it go when it was hidden); now nothing uses the blob.
        _ = try await store.hidePhoto(id: free.id, reason: "r", venue: venue, now: now.addingTimeInterval(7))
        let version = try await store.membership(playerId: ada.id, groupId: group.id)?.version
        let hidden = try await store.deletePhotoByStaff(id: free.id, venue: venue, now: now.addingTimeInterval(8))
        #expect(hidden.photo == free && hidden.events.isEmpty && hidden.blobUnused)
        #expect(try await store.moderatedPhoto(id: free.id) == nil)
        #expect(try await store.staffView(groupId: group.id)?.hidden.isEmpty == true)
        #expect(try await store.membership(playerId: ada.id, groupId: group.id)?.version == version)
        #expect(try await store.isBlobUsed("shared") == false)

        // A photo held for review: no events either.
        let held = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: reviewed, now: now.addingTimeInterval(9)).photo
        let deletedHeld = try await store.deletePhotoByStaff(id: held.id, venue: reviewed, now: now.addingTimeInterval(10))
        #expect(deletedHeld.photo == held && deletedHeld.events.isEmpty && deletedHeld.blobUnused)
        #expect(try await store.heldPhoto(id: held.id) == nil)
        #expect(try await store.heldPhotos(venueId: "v", limit: 10).total == 0)

        await #expect(throws: ModerationError.photoNotFound) { try await store.deletePhotoByStaff(id: held.id, venue: venue, now: now) }
        await #expect(throws: ModerationError.photoNotFound) { try await store.deletePhotoByStaff(id: "no-such-photo", venue: venue, now: now) }
        #expect(try await store.counts().photos == 0)
    }

    @Test("An upload that asks to be chosen replaces the task's chosen photo, stores the pick and says so; one that does not leaves the choice", arguments: Backend.chosen)
    func chooseOnUpload(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let task = GroupProgress.TaskKey(missionId: "a", taskId: "1")
        func choosing(_ new: NewPhoto) -> NewPhoto {
            var new = new
            new.choose = true
            return new
        }

        // The task's first photo is its chosen one anyway: no choice event.
        let first = try await store.addPhoto(choosing(photo(group, by: ada, "a", "1")), venue: venue, now: now.addingTimeInterval(1))
        #expect(first.events.map(\.kind) == [.photoAdded, .taskDone])
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == first.photo.id)
        // A later one without `choose` only joins the album.
        let plain = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now.addingTimeInterval(2))
        #expect(plain.events.map(\.kind) == [.photoAdded])
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == first.photo.id)
        // A later one with `choose` takes the choice, in the same transaction, with its event.
        let chosen = try await store.addPhoto(choosing(photo(group, by: bo, "a", "1")), venue: venue, now: now.addingTimeInterval(3))
        #expect(chosen.events.map(\.kind) == [.photoAdded, .choiceChanged])
        #expect(chosen.events.map(\.seq) == [chosen.events[0].seq, chosen.events[0].seq + 1])
        let choice = try #require(chosen.events.last)
        #expect(choice.data.contains(chosen.photo.id) && choice.data.contains(bo.id))
        let photos = try await store.taskPhotos(groupId: group.id)
        #expect(photos.picks == [task: chosen.photo.id], "the pick is stored")
        #expect(photos.chosen[task]?.id == chosen.photo.id)
        #expect(try await store.groupContents(group).taskPhotos.picks == [task: chosen.photo.id])
        #expect(try await store.events(groupId: group.id, after: 0, limit: 100).suffix(2).map(\.kind) == [.photoAdded, .choiceChanged])
        // The pick holds against later uploads that do not ask.
        _ = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(4))
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == chosen.photo.id)
        // A free photo has no task to be chosen for; a held one is not in the album to be chosen.
        #expect(try await store.addPhoto(choosing(photo(group, by: ada, nil, nil)), venue: venue, now: now.addingTimeInterval(5)).events.map(\.kind) == [.photoAdded])
        let held = try await store.addPhoto(choosing(photo(group, by: ada, "a", "1")), venue: reviewed, now: now.addingTimeInterval(6))
        #expect(held.held && held.events.isEmpty)
        #expect(try await store.taskPhotos(groupId: group.id).picks == [task: chosen.photo.id])
    }

    // MARK: Collages

    @Test("Collages: one per mission, replaced with the previous key returned, listed in the order made, deleted one mission at a time", arguments: Backend.chosen)
    func collages(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let other = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now).group
        #expect(try await store.collages(groupId: group.id).isEmpty)
        func record(_ mission: String, key: String, at seconds: Double, in target: Group) -> CollageRecord {
            CollageRecord(groupId: target.id, missionId: mission, photoIds: ["p-\(key)", "q-\(key)"], key: key, width: 1080, height: 1350, createdAt: now.addingTimeInterval(seconds))
        }

        let b1 = record("b", key: "b1", at: 1.5, in: group), a1 = record("a", key: "a1", at: 2.25, in: group)
        #expect(try await store.saveCollage(b1) == nil, "no collage before")
        #expect(try await store.saveCollage(a1) == nil)
        let others = record("a", key: "other", at: 0, in: other)
        #expect(try await store.saveCollage(others) == nil)
        #expect(try await store.collages(groupId: group.id) == [b1, a1], "in the order they were made")

        let b2 = record("b", key: "b2", at: 3, in: group)
        #expect(try await store.saveCollage(b2) == "b1", "a new collage of a mission returns the key of the one it replaces")
        #expect(try await store.collages(groupId: group.id) == [a1, b2])
        var b2Again = b2
        b2Again.photoIds = ["r"]
        #expect(try await store.saveCollage(b2Again) == nil, "the same key again: no files to remove")
        #expect(try await store.collages(groupId: group.id) == [a1, b2Again])

        // Made at the same moment: by mission.
        let a2 = record("a", key: "a2", at: 3, in: group)
        #expect(try await store.saveCollage(a2) == "a1")
        #expect(try await store.collages(groupId: group.id) == [a2, b2Again])
        #expect(try await store.groupContents(group).collages == [a2, b2Again])

        try await store.deleteCollage(groupId: group.id, missionId: "a")
        #expect(try await store.collages(groupId: group.id) == [b2Again])
        #expect(try await store.collageSubject(groupId: group.id)?.collages == [b2Again])
        #expect(try await store.collages(groupId: other.id) == [others], "another group's collage of the same mission stays")
        try await store.deleteCollage(groupId: group.id, missionId: "a")
        try await store.deleteCollage(groupId: "no-such-group", missionId: "b")
        #expect(try await store.collages(groupId: group.id) == [b2Again], "deleting what is not there changes nothing")
        #expect(try await store.saveCollage(record("a", key: "a3", at: 4, in: group)) == nil, "the deleted collage's key is not returned again")

        #expect(try await store.saveCollage(record("a", key: "x", at: 5, in: Group(
            id: "no-such-group", venueId: "v", name: nil, joinCode: group.joinCode, creatorId: nil, createdAt: now, joinableUntil: now
        ))) == nil)
        #expect(try await store.collages(groupId: "no-such-group").isEmpty, "nothing is stored for a group that is gone")
    }

    // MARK: Staff's view of a venue
}
