import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    @Test("The photo feed is a venue's shown photos with their groups, newest first, narrowed by mission, group code or name in any case, and time; pages join up; ended groups stay", arguments: Backend.chosen)
    func photoFeed(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, cy) = (try await player("Ada", in: store), try await player("Bo", in: store), try await player("Cy", in: store))
        let first = try await store.createGroup(venueId: "v", name: "Otters Ü", creatorId: ada.id, joinableFor: 3600, now: now).group
        let second = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now).group
        let elsewhere = try await store.createGroup(venueId: "w", name: "Otters", creatorId: cy.id, joinableFor: 3600, now: now).group
        func feed(_ venueId: String = "v", mission: String? = nil, group: String? = nil, from: Double? = nil, to: Double? = nil, before: String? = nil, limit: Int = 10)
            async throws -> [FeedPhoto]
        {
            try await store.photoFeed(PhotoFeedFilter(
                venueId: venueId, missionId: mission, group: group, from: from.map { now.addingTimeInterval($0) }, to: to.map { now.addingTimeInterval($0) },
                before: before, limit: limit
            ))
        }
        #expect(try await feed().isEmpty)
        let (oldest, tiedOne, tiedTwo, other, _) = try await venuePhotos(store, first: (first, ada), second: (second, bo), elsewhere: (elsewhere, cy))

        func entry(_ photo: Photo) -> FeedPhoto { FeedPhoto(photo: photo, group: photo.groupId == first.id ? first : second) }
        let tied = [tiedOne, tiedTwo].sorted { $0.id > $1.id }
        let all = (tied + [oldest]).map(entry)
        #expect(try await feed() == all, "neither hidden nor held photos, nor another venue's")
        #expect(try await feed("w") == [FeedPhoto(photo: other, group: elsewhere)])
        #expect(try await feed(mission: "a") == [tiedTwo, oldest].map(entry))
        #expect(try await feed(mission: "b").isEmpty)
        #expect(try await feed(group: "oTTers") == [tiedTwo, oldest].map(entry), "part of the name, in any case")
        #expect(try await feed(group: String(second.joinCode.value.lowercased().dropFirst())) == [entry(tiedOne)], "part of the join code")
        #expect(try await feed(group: "  ") == all, "a blank search asks for nothing")
        #expect(try await feed(group: "%").isEmpty, "no wildcards")
        #expect(try await feed(group: "_").isEmpty, "no wildcards")
        #expect(try await feed(from: 2, to: 3) == tied.map(entry))
        #expect(try await feed(from: 2.5) == tied.map(entry), "from is inclusive")
        #expect(try await feed(to: 2.5) == [entry(oldest)], "to is exclusive")
        #expect(try await feed(mission: "a", group: "otters", from: 2) == [entry(tiedTwo)])

        // Pages join up, ties broken by id; the page after the last is empty.
        #expect(try await feed(limit: 1) == [all[0]])
        #expect(try await feed(before: all[0].photo.id, limit: 1) == [all[1]])
        #expect(try await feed(before: all[1].photo.id, limit: 1) == [all[2]])
        #expect(try await feed(before: all[2].photo.id, limit: 1).isEmpty)
        #expect(try await feed(group: "otters", before: tiedTwo.id) == [entry(oldest)])

        // Groups that have ended stay in the feed: closed, or left by everyone.
        let closed = try await store.closeGroup(id: first.id, reason: "home time", now: now.addingTimeInterval(7), audit: nil).group
        _ = try await store.removeMember(groupId: second.id, playerId: bo.id, by: bo.id, now: now.addingTimeInterval(8))
        let ended = try await feed()
        #expect(ended.map(\.photo) == all.map(\.photo))
        #expect(ended.first { $0.photo.id == oldest.id }?.group == closed)
    }

    /// Photos of two groups of venue `v` and one of `w`: the oldest, two taken at the same
    /// time, another venue's, one hidden (returned) and one held for review.
    func venuePhotos(_ store: any GroupieStore, first: (Group, Player), second: (Group, Player), elsewhere: (Group, Player)) async throws
        -> (oldest: Photo, tiedOne: Photo, tiedTwo: Photo, other: Photo, hidden: Photo)
    {
        let oldest = try await store.addPhoto(photo(first.0, by: first.1, "a", "1"), venue: venue, now: now.addingTimeInterval(1)).photo
        let tiedOne = try await store.addPhoto(photo(second.0, by: second.1, nil, nil), venue: venue, now: now.addingTimeInterval(2.5)).photo
        let tiedTwo = try await store.addPhoto(photo(first.0, by: first.1, "a", "2"), venue: venue, now: now.addingTimeInterval(2.5)).photo
        let other = try await store.addPhoto(photo(elsewhere.0, by: elsewhere.1, "a", "1"), venue: venue, now: now.addingTimeInterval(3)).photo
        let hidden = try await store.addPhoto(photo(first.0, by: first.1, "b", "1"), venue: venue, now: now.addingTimeInterval(4)).photo
        _ = try await store.hidePhoto(id: hidden.id, reason: "r", venue: venue, now: now.addingTimeInterval(5))
        _ = try await store.addPhoto(photo(second.0, by: second.1, "a", "1"), venue: reviewed, now: now.addingTimeInterval(6))
        return (oldest, tiedOne, tiedTwo, other, hidden)
    }
}
