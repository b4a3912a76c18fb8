import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    @Test("Playing groups are a venue's groups with members now, newest first, up to the limit; the active group ids are the same groups", arguments: Backend.chosen)
    func playingGroups(_ backend: Backend) async throws {
        let store = try await backend.open()
        var players: [Player] = []
        for name in ["Ada", "Bo", "Cy", "Dee", "Eve", "Fay"] { players.append(try await player(name, in: store)) }
        let (ada, bo, cy, dee, eve, fay) = (players[0], players[1], players[2], players[3], players[4], players[5])
        let oldest = try await store.createGroup(venueId: "v", name: "1", creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: oldest.joinCode, playerId: fay.id, now: now.addingTimeInterval(1)) { _ in 5 }
        let tiedOne = try await store.createGroup(venueId: "v", name: "2", creatorId: bo.id, joinableFor: 3600, now: now.addingTimeInterval(10)).group
        let tiedTwo = try await store.createGroup(venueId: "v", name: "3", creatorId: eve.id, joinableFor: 3600, now: now.addingTimeInterval(10)).group
        let left = try await store.createGroup(venueId: "v", name: "4", creatorId: cy.id, joinableFor: 3600, now: now.addingTimeInterval(20)).group
        try await store.removeMember(groupId: left.id, playerId: cy.id, by: cy.id, now: now.addingTimeInterval(21))
        let elsewhere = try await store.createGroup(venueId: "w", name: "5", creatorId: dee.id, joinableFor: 3600, now: now.addingTimeInterval(30)).group
        _ = try await store.createGroupsInAdvance(venueId: "v", names: ["6"], joinableFor: 3600, now: now.addingTimeInterval(40))

        let tied = [tiedOne, tiedTwo].sorted { $0.id < $1.id }
        #expect(try await store.playingGroups(venueId: "v", limit: 10) == tied + [oldest])
        #expect(try await store.playingGroups(venueId: "v", limit: 2) == tied)
        #expect(try await store.playingGroups(venueId: "v", limit: 1) == [tied[0]])
        #expect(try await store.playingGroups(venueId: "w", limit: 10) == [elsewhere])
        #expect(try await store.playingGroups(venueId: "x", limit: 10).isEmpty)

        let active = try await store.activeGroupIds(venueId: "v")
        #expect(active.count == 3, "each group once, however many members it has")
        #expect(Set(active) == [oldest.id, tiedOne.id, tiedTwo.id])
        #expect(try await store.activeGroupIds(venueId: "w") == [elsewhere.id])
        #expect(try await store.activeGroupIds(venueId: "x").isEmpty)

        // Bo moves to the oldest group: his group is left empty and stops playing.
        _ = try await store.joinGroup(code: oldest.joinCode, playerId: bo.id, now: now.addingTimeInterval(50)) { _ in 5 }
        #expect(try await store.playingGroups(venueId: "v", limit: 10).map(\.id) == [tiedTwo.id, oldest.id])
        #expect(Set(try await store.activeGroupIds(venueId: "v")) == [oldest.id, tiedTwo.id])
    }

    @Test("The latest photos of a venue are its groups' shown photos, newest first, up to the limit", arguments: Backend.chosen)
    func latestPhotos(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store), cy = try await player("Cy", in: store)
        let first = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let second = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now).group
        let elsewhere = try await store.createGroup(venueId: "w", name: nil, creatorId: cy.id, joinableFor: 3600, now: now).group
        #expect(try await store.latestPhotos(venueId: "v", limit: 10).isEmpty)
        let (oldest, tiedOne, tiedTwo, other, hidden) = try await venuePhotos(store, first: (first, ada), second: (second, bo), elsewhere: (elsewhere, cy))

        let tied = [tiedOne, tiedTwo].sorted { $0.id > $1.id }
        #expect(try await store.latestPhotos(venueId: "v", limit: 10) == tied + [oldest], "neither hidden nor held photos, nor another venue's")
        #expect(try await store.latestPhotos(venueId: "v", limit: 2) == tied)
        #expect(try await store.latestPhotos(venueId: "v", limit: 1) == [tied[0]])
        #expect(try await store.latestPhotos(venueId: "w", limit: 10) == [other])

        _ = try await store.restorePhoto(id: hidden.id, venue: venue, now: now.addingTimeInterval(7))
        #expect(try await store.latestPhotos(venueId: "v", limit: 1) == [hidden], "a restored photo keeps when it was taken")
    }

    // MARK: Numbers

    @Test("A venue's histories come in pages that join up, ties of start broken by group id, with no repeats or gaps; the page after the last is empty", arguments: Backend.chosen)
    func venueHistoriesPaging(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store), cy = try await player("Cy", in: store)
        let early = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now.addingTimeInterval(-60)).group
        // Three groups that start at the same moment: a page may end between them.
        let tables = try await store.createGroupsInAdvance(venueId: "v", names: ["1", "2", "3"], joinableFor: 3600, now: now)
        let played = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now.addingTimeInterval(60.25)).group
        _ = try await store.createGroup(venueId: "w", name: nil, creatorId: cy.id, joinableFor: 3600, now: now.addingTimeInterval(30)).group
        _ = try await store.addPhoto(photo(played, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(70))
        _ = try await store.addPhoto(photo(played, by: ada, nil, nil), venue: venue, now: now.addingTimeInterval(80))
        _ = try await store.appendEvents(groupId: played.id, [.memberRenamed(playerId: ada.id, name: "A")], now: now.addingTimeInterval(85))
        _ = try await store.addPhoto(photo(played, by: ada, "a", "2"), venue: venue, now: now.addingTimeInterval(90))
        _ = try await store.addPhoto(photo(early, by: bo, "b", "1"), venue: venue, now: now.addingTimeInterval(100))

        let whole = try await store.venueHistories(venueId: "v")
        let expectedOrder = [early.id] + tables.map(\.id).sorted() + [played.id]
        #expect(whole.map(\.groupId) == expectedOrder, "by start, then by id")
        #expect(whole.map(\.startedAt) == [now.addingTimeInterval(-60), now, now, now, now.addingTimeInterval(60.25)])
        let history = try #require(whole.last)
        #expect(history.events.map(\.kind) == [.photoAdded, .taskDone, .photoAdded, .photoAdded, .taskDone, .missionCompleted], "photo, task and mission events only")
        #expect(history.events.map(\.missionId) == ["a", "a", nil, "a", "a", "a"])
        #expect(history.events.map(\.taskId) == ["1", "1", nil, "2", "2", nil])
        #expect(history.events.map(\.at) == [70, 70, 80, 90, 90, 90].map { now.addingTimeInterval($0) })
        #expect(whole.first?.events.map(\.kind) == [.photoAdded, .taskDone, .missionCompleted])
        #expect(whole.dropFirst().dropLast().allSatisfy { $0.events.isEmpty })

        for limit in [1, 2, 3, 5, 6] {
            var pages: [[VisitNumbers.History]] = []
            var after: HistoryCursor?
            while true {
                let page = try await store.venueHistories(venueId: "v", after: after, limit: limit)
                guard let last = page.last else { break }
                #expect(page.count <= limit)
                pages.append(page)
                after = HistoryCursor(after: last)
                if pages.count > 10 { break }
            }
            let joined = pages.flatMap { $0 }
            #expect(joined.map(\.groupId) == expectedOrder, "pages of \(limit) join up to the whole, with no repeats or gaps")
            #expect(pages.dropLast().allSatisfy { $0.count == limit }, "every page but the last is full (pages of \(limit))")
            #expect(pages.count == (expectedOrder.count + limit - 1) / limit)
            #expect(joined.map(\.events.count) == whole.map(\.events.count))
            #expect(joined.map(\.startedAt) == whole.map(\.startedAt))
        }
        // After the newest group there is nothing; from a group in the middle of a tie, the rest of the tie follows.
        #expect(try await store.venueHistories(venueId: "v", after: HistoryCursor(after: history), limit: 10).isEmpty)
        #expect(try await store.venueHistories(venueId: "v", after: HistoryCursor(after: whole[2]), limit: 10).map(\.groupId) == Array(expectedOrder.dropFirst(3)))
        #expect(try await store.venueHistories(venueId: "x", after: nil, limit: 10).isEmpty)
    }

    // MARK: Staff sessions and health

    @Test("Ending a staff session ends that session only; ending one that is not there is no error", arguments: Backend.chosen)
    func endStaffSession(_ backend: Backend) async throws {
        let store = try await backend.open()
        let member = try await store.addStaff(email: "a@museum.org", passwordHash: "h", role: .moderator, venueIds: ["v"], now: now)
        try await store.startStaffSession(staffId: member.id, tokenHash: Data([1]), csrfToken: "one", now: now, lifetime: 3600)
        try await store.startStaffSession(staffId: member.id, tokenHash: Data([2]), csrfToken: "two", now: now, lifetime: 3600)
        #expect(try await store.staffSession(tokenHash: Data([1]), now: now)?.member == member)
        try await store.endStaffSession(tokenHash: Data([1]))
        #expect(try await store.staffSession(tokenHash: Data([1]), now: now) == nil)
        #expect(try await store.staffSession(tokenHash: Data([2]), now: now)?.csrfToken == "two", "the member's other session goes on")
        try await store.endStaffSession(tokenHash: Data([1]))
        try await store.endStaffSession(tokenHash: Data([9, 9]))
        #expect(try await store.staffSession(tokenHash: Data([2]), now: now)?.member == member)
        // A token ended and started again is a new session.
        try await store.startStaffSession(staffId: member.id, tokenHash: Data([1]), csrfToken: "three", now: now, lifetime: 3600)
        #expect(try await store.staffSession(tokenHash: Data([1]), now: now)?.csrfToken == "three")
    }

    @Test("A store that was opened answers, and names its backend", arguments: Backend.chosen)
    func isReachable(_ backend: Backend) async throws {
        let store = try await backend.open()
        #expect(await store.isReachable())
        #expect(store.backend == backend.rawValue)
        // Still after work has been done on it, and from many callers at once.
        _ = try await player("Ada", in: store)
        let answers = await withTaskGroup(of: Bool.self) { tasks in
            for _ in 0..<8 { tasks.addTask { await store.isReachable() } }
            return await tasks.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: true, count: 8))
    }

    // MARK: Two instances on one database

    /// On PostgreSQL these are two stores, as two instances hold them; SQLite is written by one
    /// process, whose store `openTwo` gives twice, and keeps rate-limit state in that process's
    /// memory (`FailureLog`) by design: there the same promise holds within the process.
    @Test("A failure recorded through one store is counted through the other, within the window, oldest first", arguments: Backend.chosen)
    func rateLimitAcrossInstances(_ backend: Backend) async throws {
        let (first, second) = try await backend.openTwo()
        let key = "join-address:10.0.0.1"
        try await first.recordFailure(of: key, now: now, window: 60)
        #expect(try await second.failures(of: key, within: 60, now: now.addingTimeInterval(1)) == [now])
        try await second.recordFailure(of: key, now: now.addingTimeInterval(10.5), window: 60)
        try await first.recordFailure(of: key, now: now.addingTimeInterval(20), window: 60)
        try await first.recordFailure(of: "join-address:10.0.0.2", now: now.addingTimeInterval(20), window: 60)
        let all = [now, now.addingTimeInterval(10.5), now.addingTimeInterval(20)]
        #expect(try await first.failures(of: key, within: 60, now: now.addingTimeInterval(30)) == all)
        #expect(try await second.failures(of: key, within: 60, now: now.addingTimeInterval(30)) == all)
        // A failure exactly a window old no longer counts.
        #expect(try await second.failures(of: key, within: 60, now: now.addingTimeInterval(60)) == Array(all.dropFirst()))
        #expect(try await first.failures(of: key, within: 60, now: now.addingTimeInterval(79.5)) == [now.addingTimeInterval(20)])
        #expect(try await second.failures(of: "join-address:10.0.0.2", within: 60, now: now.addingTimeInterval(30)) == [now.addingTimeInterval(20)])
        #expect(try await second.failures(of: "join-address:10.0.0.3", within: 60, now: now.addingTimeInterval(30)).isEmpty)

        // Many failures at once through both: none lost.
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for index in 0..<20 {
                let store = index % 2 == 0 ? first : second
                tasks.addTask { try await store.recordFailure(of: "login:a@museum.org", now: self.now.addingTimeInterval(Double(index)), window: 600) }
            }
            try await tasks.waitForAll()
        }
        // Recorded in whatever order the tasks ran, read back oldest first.
        let times = (0..<20).map { now.addingTimeInterval(Double($0)) }
        #expect(try await first.failures(of: "login:a@museum.org", within: 600, now: now.addingTimeInterval(30)) == times)
        #expect(try await second.failures(of: "login:a@museum.org", within: 600, now: now.addingTimeInterval(30)) == times)
    }

    @Test("Failures recorded out of order are read back oldest first", arguments: Backend.chosen)
    func failuresOldestFirst(_ backend: Backend) async throws {
        let store = try await backend.open()
        try await store.recordFailure(of: "k", now: now.addingTimeInterval(5), window: 60)
        try await store.recordFailure(of: "k", now: now, window: 60)
        try await store.recordFailure(of: "k", now: now.addingTimeInterval(7), window: 60)
        try await store.recordFailure(of: "k", now: now.addingTimeInterval(2), window: 60)
        let expected = [0, 2, 5, 7].map { now.addingTimeInterval(Double($0)) }
        #expect(try await store.failures(of: "k", within: 60, now: now.addingTimeInterval(10)) == expected)
    }

    @Test("An upload repeated with its idempotency key through the other store gives back the first photo, not a second one", arguments: Backend.chosen)
    func idempotentUploadsAcrossInstances(_ backend: Backend) async throws {
        let (first, second) = try await backend.openTwo()
        let ada = try await player("Ada", in: first)
        let group = try await first.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let original = try await first.addPhoto(photo(group, by: ada, "a", "1", key: "k1"), venue: venue, now: now)
        #expect(original.created && original.events.map(\.kind) == [.photoAdded, .taskDone])

        let retry = try await second.addPhoto(photo(group, by: ada, "a", "1", key: "k1"), venue: venue, now: now.addingTimeInterval(5))
        #expect(!retry.created && !retry.held)
        #expect(retry.photo == original.photo, "the first photo, as stored, with its time")
        #expect(retry.events.isEmpty, "and no events")
        #expect(try await second.counts().photos == 1)
        #expect(try await first.counts().photos == 1)
        #expect(try await second.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k1", now: now)?.photo == original.photo)
        #expect(try await second.events(groupId: group.id, after: 0, limit: 100).filter { $0.kind == .photoAdded }.count == 1)
        await #expect(throws: PhotoError.keyReused) {
            try await second.addPhoto(photo(group, by: ada, "a", "2", key: "k1"), venue: venue, now: now)
        }

        // The same new key through both at once: one photo, the same for both.
        let results = try await withThrowingTaskGroup(of: (id: String, created: Bool).self) { tasks in
            for store in [first, second, first, second] {
                tasks.addTask {
                    let added = try await store.addPhoto(self.photo(group, by: ada, "a", "2", key: "k2"), venue: self.venue, now: self.now.addingTimeInterval(10))
                    return (added.photo.id, added.created)
                }
            }
            return try await tasks.reduce(into: [(id: String, created: Bool)]()) { $0.append($1) }
        }
        #expect(Set(results.map(\.id)).count == 1)
        #expect(results.filter(\.created).count == 1)
        #expect(try await first.counts().photos == 2)

        // A held upload repeated through the other store comes back held.
        let held = try await first.addPhoto(photo(group, by: ada, "b", "1", key: "k3"), venue: reviewed, now: now.addingTimeInterval(20))
        let heldRetry = try await second.addPhoto(photo(group, by: ada, "b", "1", key: "k3"), venue: reviewed, now: now.addingTimeInterval(21))
        #expect(held.held && heldRetry.held && !heldRetry.created && heldRetry.photo == held.photo)
        #expect(try await second.heldPhotos(groupId: group.id, photographerId: ada.id).map(\.id) == [held.photo.id])

        // Once staff deleted the photo, the key answers nothing, and a retry makes a new photo.
        _ = try await first.deletePhotoByStaff(id: original.photo.id, venue: venue, now: now.addingTimeInterval(30))
        #expect(try await second.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k1", now: now.addingTimeInterval(31)) == nil)
        let again = try await second.addPhoto(photo(group, by: ada, "a", "1", key: "k1"), venue: venue, now: now.addingTimeInterval(32))
        #expect(again.created && again.photo.id != original.photo.id)
        #expect(try await first.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k1", now: now.addingTimeInterval(33))?.photo == again.photo)
    }
}
