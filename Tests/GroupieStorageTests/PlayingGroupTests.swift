import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

@Suite("A venue's playing groups read at once, on both backends")
struct PlayingGroupTests {
    let contract = StoreContractTests()

    @Test("the venue page's read gives each playing group's members and task photos, as reading them one by one does", arguments: Backend.chosen)
    func sameAsOneByOne(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await contract.pair(in: store)
        let venue = contract.venue
        _ = try await store.addPhoto(contract.photo(group, by: ada, "a", "1"), venue: venue, now: contract.now)
        let second = try await store.addPhoto(contract.photo(group, by: bo, "a", "1"), venue: venue, now: contract.now.addingTimeInterval(1)).photo
        _ = try await store.choosePhoto(groupId: group.id, task: .init(missionId: "a", taskId: "1"), photoId: second.id, by: bo, venue: venue, now: contract.now)
        let cy = try await contract.player("Cy", in: store)
        let other = try await store.createGroup(venueId: "v", name: "Other", creatorId: cy.id, joinableFor: 3600, now: contract.now.addingTimeInterval(2)).group
        _ = try await store.addPhoto(contract.photo(other, by: cy, "b", "1"), venue: venue, now: contract.now.addingTimeInterval(3))
        // Gone from the page: a group nobody is in any more, and one of another venue.
        let dee = try await contract.player("Dee", in: store)
        let empty = try await store.createGroup(venueId: "v", name: "Empty", creatorId: dee.id, joinableFor: 3600, now: contract.now).group
        try await store.removeMember(groupId: empty.id, playerId: dee.id, by: dee.id, now: contract.now)
        let eve = try await contract.player("Eve", in: store)
        _ = try await store.createGroup(venueId: "w", name: "Elsewhere", creatorId: eve.id, joinableFor: 3600, now: contract.now)

        let page = try await store.playingGroupContents(venueId: "v", limit: 10)
        #expect(page.map(\.group) == (try await store.playingGroups(venueId: "v", limit: 10)))
        #expect(page.map(\.group.id) == [other.id, group.id])
        for playing in page {
            let contents = try await store.groupContents(playing.group)
            #expect(playing.members == contents.members)
            #expect(playing.taskPhotos.photos == contents.taskPhotos.photos)
            #expect(playing.taskPhotos.chosen == contents.taskPhotos.chosen)
        }
        #expect(page.last?.members.first { $0.isCreator }?.playerId == ada.id)
        #expect(try await store.playingGroupContents(venueId: "v", limit: 1).map(\.group.id) == [other.id])
    }
}

@Suite("Locked missions, on both backends")
struct LockedMissionStoreTests {
    let contract = StoreContractTests()

    @Test("a photo for a mission that is locked in the photo's own transaction is refused and stores nothing", arguments: Backend.chosen)
    func lockedInTransaction(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, group) = try await contract.pair(in: store)
        var venue = contract.venue
        venue.missions[1].after = ["a"]
        let counts = try await store.counts()
        await #expect(throws: PhotoRules.Refusal.missionLocked(missionId: "b")) {
            _ = try await store.addPhoto(contract.photo(group, by: ada, "b", "1"), venue: venue, now: contract.now)
        }
        #expect(try await store.counts() == counts)
        _ = try await store.addPhoto(contract.photo(group, by: ada, "a", "1"), venue: venue, now: contract.now)
        _ = try await store.addPhoto(contract.photo(group, by: ada, "a", "2"), venue: venue, now: contract.now)
        #expect(try await store.addPhoto(contract.photo(group, by: ada, "b", "1"), venue: venue, now: contract.now).created)
    }
}
